// How many cores this process may use: the CPUs of its affinity mask
// (taskset, a container's cpuset), capped by a cgroup CPU quota (a
// container's --cpus), rather than every CPU the machine has online, which
// std::thread::hardware_concurrency() counts. A worker pool sized from the
// latter on a 64-CPU host inside a 2-CPU container would keep 63 threads
// spinning over 2 CPUs' worth of time.
#ifndef HLO_IR_CPU_COUNT_H_
#define HLO_IR_CPU_COUNT_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace hlo {

// The cores, at least 1; computed once per process.
int64_t UsableCpuCount();

// Parts, exposed for tests.
namespace cpu_count {

// The CPUs of the calling thread's affinity mask (the online CPUs where it
// cannot be read).
int64_t AffinityCpus();

// The CPUs a cgroup v2 `cpu.max` line ("max 100000", "150000 100000")
// allows, rounded up; nullopt when unlimited or unreadable.
std::optional<int64_t> FromCpuMax(std::string_view cpu_max);

// The same from cgroup v1's cpu.cfs_quota_us and cpu.cfs_period_us
// (a quota of -1: unlimited).
std::optional<int64_t> FromCfsQuota(std::string_view quota_us, std::string_view period_us);

// The cgroup paths of /proc/self/cgroup's text: cgroup v2's (the "0::"
// line) and v1's cpu controller's ("N:cpu,cpuacct:" or "N:cpu:"); empty
// when absent.
struct CgroupPaths {
  std::string_view v2, v1_cpu, v1_mount;  // v1_mount: "cpu,cpuacct" or "cpu"
};
CgroupPaths ParseProcCgroup(std::string_view text);

}  // namespace cpu_count
}  // namespace hlo

#endif  // HLO_IR_CPU_COUNT_H_

#include "ir/cpu_count.h"

#include <sched.h>

#include <catch2/catch.hpp>
#include <thread>

namespace hlo {
namespace {

using cpu_count::FromCfsQuota;
using cpu_count::FromCpuMax;
using cpu_count::ParseProcCgroup;

TEST_CASE("a cgroup v2 cpu.max gives whole CPUs, rounded up", "[cpu_count]") {
  CHECK(FromCpuMax("max 100000\n") == std::nullopt);
  CHECK(FromCpuMax("200000 100000\n") == 2);
  CHECK(FromCpuMax("150000 100000") == 2);  // 1.5 CPUs of time: two threads can use it
  CHECK(FromCpuMax("50000 100000") == 1);
  CHECK(FromCpuMax("") == std::nullopt);
  CHECK(FromCpuMax("garbage") == std::nullopt);
  CHECK(FromCpuMax("100000 0") == std::nullopt);
  CHECK(FromCpuMax("12x 100000") == std::nullopt);
}

TEST_CASE("a cgroup v1 CFS quota gives whole CPUs, -1 none", "[cpu_count]") {
  CHECK(FromCfsQuota("-1\n", "100000\n") == std::nullopt);
  CHECK(FromCfsQuota("400000\n", "100000\n") == 4);
  CHECK(FromCfsQuota("250000", "100000") == 3);
  CHECK(FromCfsQuota("", "100000") == std::nullopt);
}

TEST_CASE("/proc/self/cgroup names the v2 path and v1's cpu hierarchy", "[cpu_count]") {
  // cgroup v2 alone (a container's view).
  auto v2 = ParseProcCgroup("0::/docker/abc\n");
  CHECK(v2.v2 == "/docker/abc");
  CHECK(v2.v1_cpu.empty());
  // Hybrid, cpu and cpuacct mounted together.
  auto hybrid = ParseProcCgroup("4:memory:/x\n3:cpu,cpuacct:/user.slice\n0::/init.scope\n");
  CHECK(hybrid.v2 == "/init.scope");
  CHECK(hybrid.v1_cpu == "/user.slice");
  CHECK(hybrid.v1_mount == "cpu,cpuacct");
  // cpu alone; cpuacct and cpuset are not it.
  auto apart = ParseProcCgroup("3:cpuset:/a\n2:cpuacct:/b\n1:cpu:/c\n");
  CHECK(apart.v1_cpu == "/c");
  CHECK(apart.v1_mount == "cpu");
  CHECK(apart.v2.empty());
  CHECK(ParseProcCgroup("").v2.empty());
  CHECK(ParseProcCgroup("no colons here\n1:only-one\n").v1_cpu.empty());
}

TEST_CASE("the affinity mask's CPUs are counted, not the machine's", "[cpu_count]") {
  cpu_set_t saved;
  CPU_ZERO(&saved);
  REQUIRE(sched_getaffinity(0, sizeof(saved), &saved) == 0);
  CHECK(cpu_count::AffinityCpus() == CPU_COUNT(&saved));
  // This thread on one CPU of its mask, as taskset or an MPI binding does.
  int first = 0;
  while (!CPU_ISSET(first, &saved)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  REQUIRE(sched_setaffinity(0, sizeof(one), &one) == 0);
  const int64_t pinned = cpu_count::AffinityCpus();
  REQUIRE(sched_setaffinity(0, sizeof(saved), &saved) == 0);
  CHECK(pinned == 1);
  // The process's figure lies between one CPU and the machine's.
  CHECK(UsableCpuCount() >= 1);
  CHECK(UsableCpuCount() <=
        static_cast<int64_t>(std::max(1u, std::thread::hardware_concurrency())));
}

}  // namespace
}  // namespace hlo

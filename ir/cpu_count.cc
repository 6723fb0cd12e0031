#include "ir/cpu_count.h"

#include <sched.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace hlo {
namespace cpu_count {
namespace {

std::optional<int64_t> ParseInt(std::string_view s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.remove_suffix(1);
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<int64_t> RoundedUpCpus(std::optional<int64_t> quota, std::optional<int64_t> period) {
  if (!quota || !period || *quota <= 0 || *period <= 0) return std::nullopt;
  return std::max<int64_t>(1, (*quota + *period - 1) / *period);
}

std::optional<std::string> ReadSmallFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The tightest quota on `path` or any cgroup above it under `root`
// (a limit set on a parent binds its children too).
template <typename Read>
std::optional<int64_t> TightestUp(const std::string& root, std::string path, const Read& read) {
  std::optional<int64_t> best;
  while (true) {
    if (std::optional<int64_t> here = read(root + path)) {
      best = best ? std::min(*best, *here) : *here;
    }
    if (path.empty() || path == "/") return best;
    const size_t slash = path.rfind('/');
    path = slash == std::string::npos || slash == 0 ? "" : path.substr(0, slash);
  }
}

std::optional<int64_t> CgroupQuotaCpus() {
  const std::optional<std::string> self = ReadSmallFile("/proc/self/cgroup");
  if (!self) return std::nullopt;
  const CgroupPaths paths = ParseProcCgroup(*self);
  std::optional<int64_t> best;
  auto take = [&](std::optional<int64_t> q) {
    if (q) best = best ? std::min(*best, *q) : *q;
  };
  auto v2 = [](const std::string& dir) -> std::optional<int64_t> {
    const std::optional<std::string> max = ReadSmallFile(dir + "/cpu.max");
    return max ? FromCpuMax(*max) : std::nullopt;
  };
  auto v1 = [](const std::string& dir) -> std::optional<int64_t> {
    const std::optional<std::string> quota = ReadSmallFile(dir + "/cpu.cfs_quota_us");
    const std::optional<std::string> period = ReadSmallFile(dir + "/cpu.cfs_period_us");
    return quota && period ? FromCfsQuota(*quota, *period) : std::nullopt;
  };
  if (!paths.v2.empty()) {
    // Where cgroup v2 is mounted: alone, or beside v1 ("unified").
    take(TightestUp("/sys/fs/cgroup", std::string(paths.v2), v2));
    take(TightestUp("/sys/fs/cgroup/unified", std::string(paths.v2), v2));
  }
  if (!paths.v1_cpu.empty()) {
    take(
        TightestUp("/sys/fs/cgroup/" + std::string(paths.v1_mount), std::string(paths.v1_cpu), v1));
  }
  return best;
}

}  // namespace

int64_t AffinityCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int count = CPU_COUNT(&set);
    if (count > 0) return count;
  }
  return std::max<int64_t>(1, std::thread::hardware_concurrency());
}

std::optional<int64_t> FromCpuMax(std::string_view cpu_max) {
  const size_t space = cpu_max.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const std::string_view quota = cpu_max.substr(0, space);
  if (quota == "max") return std::nullopt;
  return RoundedUpCpus(ParseInt(quota), ParseInt(cpu_max.substr(space + 1)));
}

std::optional<int64_t> FromCfsQuota(std::string_view quota_us, std::string_view period_us) {
  return RoundedUpCpus(ParseInt(quota_us), ParseInt(period_us));
}

CgroupPaths ParseProcCgroup(std::string_view text) {
  CgroupPaths paths;
  while (!text.empty()) {
    const size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    // hierarchy-id:controllers:path
    const size_t first = line.find(':');
    const size_t second = first == std::string_view::npos ? first : line.find(':', first + 1);
    if (second == std::string_view::npos) continue;
    const std::string_view id = line.substr(0, first);
    const std::string_view controllers = line.substr(first + 1, second - first - 1);
    const std::string_view path = line.substr(second + 1);
    if (id == "0" && controllers.empty()) {
      paths.v2 = path;
      continue;
    }
    // A v1 hierarchy holding the cpu controller ("cpu", "cpu,cpuacct").
    std::string_view rest = controllers;
    while (!rest.empty()) {
      const size_t comma = rest.find(',');
      if (rest.substr(0, comma) == "cpu") {
        paths.v1_cpu = path;
        paths.v1_mount = controllers;
        break;
      }
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
  }
  return paths;
}

}  // namespace cpu_count

int64_t UsableCpuCount() {
  static const int64_t cpus = [] {
    const int64_t affinity = cpu_count::AffinityCpus();
    const std::optional<int64_t> quota = cpu_count::CgroupQuotaCpus();
    return quota ? std::min(affinity, *quota) : affinity;
  }();
  return cpus;
}

}  // namespace hlo

#include "ir/read_file.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <vector>

#include "ir/located_status.h"
#include "ir/strings.h"

namespace hlo {
namespace {

// A limit of the process's memory in bytes (none: INT64_MAX).
int64_t Limit(int resource) {
  struct rlimit r;
  if (getrlimit(resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return INT64_MAX;
  return static_cast<int64_t>(std::min<rlim_t>(r.rlim_cur, INT64_MAX));
}

absl::Status TooLarge(const std::string& path, std::string_view size, int64_t limit) {
  return MarkLocated(absl::ResourceExhaustedError(StrCat(
      path, ": error: cannot read: ", size, " exceeds the input limit of ", limit, " bytes")));
}

}  // namespace

int64_t MaxInputBytes() {
  int64_t memory = INT64_MAX;
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) memory = static_cast<int64_t>(pages) * page;
  memory = std::min({memory, Limit(RLIMIT_AS), Limit(RLIMIT_DATA)});
  return memory / 2;
}

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  FILE* in = std::fopen(path.c_str(), "rb");
  if (!in) {
    return MarkLocated(
        absl::NotFoundError(StrCat(path, ": error: cannot open: ", std::strerror(errno))));
  }
  absl::StatusOr<std::string> data = ReadRestOfFile(in, path);
  std::fclose(in);
  return data;
}

absl::StatusOr<std::string> ReadRestOfFile(std::FILE* in, const std::string& path) {
  return ReadRestOfFile(in, path, MaxInputBytes());
}

absl::StatusOr<std::string> ReadRestOfFile(std::FILE* in, const std::string& path, int64_t limit) {
  // One read of the file's size when it has one, then whatever else comes
  // (a file that grew meanwhile, or a stream with no size) in blocks, up to
  // the limit: an endless stream (/dev/zero, a FIFO) ends in this error,
  // not in running out of memory. (Blocks, joined at the end, need at most
  // twice the input; a string grown by doubling needed three times.)
  constexpr size_t kBlock = size_t{1} << 20;
  constexpr size_t kProbe = size_t{4} << 10;
  std::string data;
  try {
    struct stat st;
    if (fstat(fileno(in), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
      if (st.st_size > limit) {
        return TooLarge(path, StrCat("its size (", st.st_size, " bytes)"), limit);
      }
      data.resize(static_cast<size_t>(st.st_size));
      data.resize(std::fread(data.data(), 1, data.size(), in));
    }
    std::vector<std::string> blocks;
    int64_t total = static_cast<int64_t>(data.size());
    // After a read of the whole size, a small block to find the end (a
    // megabyte each is much where many threads read under a memory limit).
    size_t next = data.empty() ? kBlock : kProbe;
    for (;;) {
      std::string block(next, '\0');
      next = kBlock;
      const size_t wanted = block.size();
      block.resize(std::fread(block.data(), 1, wanted, in));
      if (block.empty()) break;
      total += static_cast<int64_t>(block.size());
      if (total > limit) {
        return TooLarge(path, StrCat("the input (more than ", total - block.size(), " bytes)"),
                        limit);
      }
      const bool last = block.size() < wanted;
      blocks.push_back(std::move(block));
      if (last) break;
    }
    data.reserve(static_cast<size_t>(total));
    for (const std::string& b : blocks) data += b;
  } catch (const std::bad_alloc&) {
    return MarkLocated(absl::ResourceExhaustedError(
        StrCat(path, ": error: cannot read: the input does not fit in memory")));
  }
  if (std::ferror(in) != 0) {
    return MarkLocated(
        absl::DataLossError(StrCat(path, ": error: cannot read: ", std::strerror(errno))));
  }
  return data;
}

}  // namespace hlo

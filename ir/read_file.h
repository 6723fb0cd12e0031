// A whole file into memory in one read of its size (a 100 MB dump or a
// 4 MB .npy input is not grown piece by piece: an istreambuf copy grew its
// string by doubling, briefly holding up to three times the file).
#ifndef HLO_IR_READ_FILE_H_
#define HLO_IR_READ_FILE_H_

#include <cstdint>
#include <cstdio>
#include <string>

#include "absl/status/statusor.h"

namespace hlo {

// The bytes of the file at `path` (a pipe or other stream: all it gives,
// up to MaxInputBytes()). Errors name the file and the reason: "PATH:
// error: cannot open: REASON", "PATH: error: cannot read: REASON".
absl::StatusOr<std::string> ReadWholeFile(const std::string& path);
// The rest of the open file `in` (not closed here); `path` names it in the
// read error.
absl::StatusOr<std::string> ReadRestOfFile(std::FILE* in, const std::string& path);
// The same with a limit of `max_bytes` instead of MaxInputBytes().
absl::StatusOr<std::string> ReadRestOfFile(std::FILE* in, const std::string& path,
                                           int64_t max_bytes);

// The most bytes one input may have: half of the memory the process may
// use (physical memory, or its address-space or data limit when lower), so
// that an endless stream such as /dev/zero ends in an error, not in the
// memory running out.
int64_t MaxInputBytes();

}  // namespace hlo

#endif  // HLO_IR_READ_FILE_H_

// Every file the tools write (-o for HLO text, JSON, dot and .npy results,
// --dump-dir, --outfeed) goes through WriteFileAtomically: whole or not at
// all, and on failure a message that says why.
#ifndef HLO_IR_OUTPUT_FILE_H_
#define HLO_IR_OUTPUT_FILE_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace hlo {

// Writes `data` to `path` through a temporary file beside it, flushed to disk
// and renamed over `path`; on any failure the temporary is removed and `path`
// keeps whatever it had. Devices and pipes (/dev/null, a FIFO) are written in
// place, since a rename would replace them with a regular file. The error is
// "PATH: cannot write: REASON" (strerror: "No space left on device", "File
// too large", ...). SIGXFSZ is ignored from the first call on, so a file-size
// limit is an error to report, not a signal that kills the tool.
absl::Status WriteFileAtomically(const std::string& path, std::string_view data);

}  // namespace hlo

#endif  // HLO_IR_OUTPUT_FILE_H_

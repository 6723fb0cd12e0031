// Every file the tools write (-o for HLO text, JSON, dot and .npy results,
// --dump-dir, --outfeed, hlo-test's files) goes through WriteFileAtomically
// or an OutputDir (ir/output_dir.h): whole or not at all, on failure a
// message that says why, and on SIGINT, SIGTERM or SIGHUP no temporary left
// (ir/interrupt.h).
#ifndef HLO_IR_OUTPUT_FILE_H_
#define HLO_IR_OUTPUT_FILE_H_

#include <string>
#include <string_view>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"

namespace hlo {

// Writes `data` to `path` through a temporary file beside it (PATH.tmp.PID),
// flushed to disk when `sync` and renamed over `path`; on any failure the
// temporary is removed and `path` keeps whatever it had; a signal while it
// writes removes the temporary too. Devices and pipes (/dev/null, a FIFO)
// are written in place, since a rename would replace them with a regular
// file. The error is "PATH: cannot write: REASON" (strerror: "No space left
// on device", "File too large", ...). SIGXFSZ is ignored from the first call
// on, so a file-size limit is an error to report, not a signal that kills
// the tool.
absl::Status WriteFileAtomically(const std::string& path, std::string_view data, bool sync = true);

// What a file's bytes are handed to, piece by piece, in order.
using ByteSink = absl::FunctionRef<absl::Status(std::string_view)>;
// The same for a file whose bytes `produce` hands to its sink in pieces (a
// result's text as it is formatted, a header and then an array's buffer),
// so that they need not be in memory at once: whole or not at all. Returns
// the first error, of the sink or of `produce`.
absl::Status WriteFileInPieces(const std::string& path,
                               absl::FunctionRef<absl::Status(ByteSink)> produce, bool sync = true);

// Writes all of `data` to `fd`: 0, or the errno of the failure. Ignores
// SIGXFSZ as above.
int WriteAll(int fd, std::string_view data);
// Writes what `produce` hands over to `fd` and closes it (fsync first when
// `sync`): 0, or the errno of the first failure; `*produced` gets the
// producer's own error.
int WriteAndClose(int fd, absl::FunctionRef<absl::Status(ByteSink)> produce, bool sync,
                  absl::Status* produced);

// "PATH: cannot write: strerror(err)".
absl::Status CannotWrite(const std::string& path, int err);

}  // namespace hlo

#endif  // HLO_IR_OUTPUT_FILE_H_

// A set of files that appear in a directory together, or not at all
// (hlo-run's npy results, hlo-opt's --dump-dir). They are written into a
// staging directory, removed on failure or on SIGINT, SIGTERM or SIGHUP
// (ir/interrupt.h), and published by Commit:
//   * DIR does not exist: the staging directory is DIR.tmp.PID beside it
//     and one rename makes it DIR;
//   * DIR exists: the staging directory is DIR/.tmp.PID and Commit moves
//     each file into DIR (replacing files of the same names; other files of
//     DIR stay) with the signals held, so a signal waits for the last rename
//     and then ends the tool with every file in place.
#ifndef HLO_IR_OUTPUT_DIR_H_
#define HLO_IR_OUTPUT_DIR_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ir/output_file.h"

namespace hlo {

class OutputDir {
 public:
  // Makes the staging directory; `make_parents`: DIR's missing parents are
  // made first (they stay). The error is "DIR: error: cannot create: REASON".
  static absl::StatusOr<std::unique_ptr<OutputDir>> Open(const std::string& dir, bool make_parents);
  // Removes the staging directory unless committed.
  ~OutputDir();
  OutputDir(const OutputDir&) = delete;
  OutputDir& operator=(const OutputDir&) = delete;

  // Writes DIR/NAME (NAME may hold subdirectories; with `sync`, Commit
  // flushes the files to disk, with one syncfs, before publishing them); the
  // error is "DIR/NAME: cannot write: REASON", and after one Commit
  // publishes nothing.
  absl::Status Write(const std::string& name, std::string_view data, bool sync = true);
  // The same for bytes handed over in pieces (WriteFileInPieces).
  absl::Status Write(const std::string& name, absl::FunctionRef<absl::Status(ByteSink)> produce,
                     bool sync = true);
  // Publishes what was written (an empty DIR when nothing was), or after a
  // failed Write removes it and returns OK (the Write returned the error).
  absl::Status Commit();

  const std::string& dir() const { return dir_; }
  size_t files() const { return names_.size(); }

 private:
  OutputDir(std::string dir, std::string staging, bool beside, int handle)
      : dir_(std::move(dir)), staging_(std::move(staging)), beside_(beside), handle_(handle) {}
  absl::Status MakeSubdirectories(const std::string& name);
  void Discard();

  std::string dir_;
  std::string staging_;
  bool beside_;  // DIR.tmp.PID (DIR did not exist) rather than DIR/.tmp.PID
  int handle_;   // interrupt::Remember's
  bool failed_ = false;
  bool sync_ = false;
  bool done_ = false;
  std::vector<std::string> subdirs_;  // relative, parents first
  std::vector<std::string> names_;    // relative, in order written
};

}  // namespace hlo

#endif  // HLO_IR_OUTPUT_DIR_H_

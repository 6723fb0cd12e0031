#include "ir/output_dir.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "ir/interrupt.h"
#include "ir/located_status.h"
#include "ir/output_file.h"
#include "ir/strings.h"

namespace hlo {
namespace {

absl::Status CannotCreate(const std::string& dir, const std::string& reason) {
  return MarkLocated(absl::PermissionDeniedError(StrCat(dir, ": error: cannot create: ", reason)));
}

// The paths of a per-file publication, built before the signals are held.
struct Moves {
  std::vector<std::string> dirs;                           // to make, parents first
  std::vector<std::pair<std::string, std::string>> files;  // staged -> final
};

// Only system calls (it runs with the signals held). Checks every target
// first, so that a name taken by a directory fails before anything moves:
// 0, or the errno with `*failed` the index (dirs, then files) it is about.
int MoveEach(const Moves& moves, size_t* failed) {
  auto fail = [failed](size_t at, int err) {
    *failed = at;
    return err;
  };
  struct stat st;
  size_t k = 0;
  for (const std::string& d : moves.dirs) {
    if (lstat(d.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) return fail(k, ENOTDIR);
    ++k;
  }
  for (const auto& [from, to] : moves.files) {
    if (lstat(to.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return fail(k, EISDIR);
    ++k;
  }
  k = 0;
  for (const std::string& d : moves.dirs) {
    if (mkdir(d.c_str(), 0777) != 0 && errno != EEXIST) return fail(k, errno);
    ++k;
  }
  for (const auto& [from, to] : moves.files) {
    if (rename(from.c_str(), to.c_str()) != 0) return fail(k, errno);
    ++k;
  }
  return 0;
}

}  // namespace

absl::StatusOr<std::unique_ptr<OutputDir>> OutputDir::Open(const std::string& dir,
                                                           bool make_parents) {
  std::string d = dir;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  struct stat st;
  bool exists = stat(d.c_str(), &st) == 0;
  if (exists && !S_ISDIR(st.st_mode)) return CannotCreate(d, std::strerror(ENOTDIR));
  if (!exists && make_parents) {
    std::filesystem::path parent = std::filesystem::path(d).parent_path();
    std::error_code ec;
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    if (ec) return CannotCreate(d, ec.message());
  }
  std::string staging = exists ? StrCat(d, "/.tmp.", getpid()) : StrCat(d, ".tmp.", getpid());
  int err = 0, handle = -1;
  for (int attempt = 0; attempt < 2; ++attempt) {
    interrupt::Critical critical;
    err = mkdir(staging.c_str(), 0777) == 0 ? 0 : errno;
    if (err == 0) {
      handle = interrupt::Remember(interrupt::Kind::kTree, staging, d);
      break;
    }
    // Left by a process of the same number that was killed outright.
    if (err != EEXIST) break;
    interrupt::RemoveTree(staging.c_str());
  }
  if (err != 0) return CannotCreate(d, std::strerror(err));
  return std::unique_ptr<OutputDir>(new OutputDir(d, staging, !exists, handle));
}

OutputDir::~OutputDir() { Discard(); }

void OutputDir::Discard() {
  if (done_) return;
  done_ = true;
  interrupt::Critical critical;
  interrupt::RemoveTree(staging_.c_str());
  interrupt::Forget(handle_);
}

absl::Status OutputDir::MakeSubdirectories(const std::string& name) {
  for (size_t slash = name.find('/'); slash != std::string::npos;
       slash = name.find('/', slash + 1)) {
    std::string sub = name.substr(0, slash);
    if (sub.empty() || std::find(subdirs_.begin(), subdirs_.end(), sub) != subdirs_.end()) {
      continue;
    }
    std::string path = StrCat(staging_, "/", sub);
    int err = 0;
    {
      interrupt::Critical critical;  // nothing new appears once a signal came
      if (mkdir(path.c_str(), 0777) != 0 && errno != EEXIST) err = errno;
    }
    if (err != 0) return CannotWrite(StrCat(dir_, "/", sub), err);
    subdirs_.push_back(std::move(sub));
  }
  return absl::OkStatus();
}

absl::Status OutputDir::Write(const std::string& name, std::string_view data, bool sync) {
  return Write(
      name, [&](ByteSink sink) { return sink(data); }, sync);
}

absl::Status OutputDir::Write(const std::string& name,
                              absl::FunctionRef<absl::Status(ByteSink)> produce, bool sync) {
  std::string shown = StrCat(dir_, "/", name);
  if (done_) return absl::FailedPreconditionError(StrCat(shown, ": written after the end"));
  if (absl::Status st = MakeSubdirectories(name); !st.ok()) {
    failed_ = true;
    return st;
  }
  std::string path = StrCat(staging_, "/", name);
  int fd, err = 0;
  {
    interrupt::Critical critical;  // nothing new appears once a signal came
    fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) err = errno;
  }
  absl::Status produced;
  if (fd >= 0) err = WriteAndClose(fd, produce, /*sync=*/false, &produced);
  sync_ |= sync;
  if (err != 0 || !produced.ok()) {
    failed_ = true;
    unlink(path.c_str());
    return err != 0 ? CannotWrite(shown, err) : produced;
  }
  if (std::find(names_.begin(), names_.end(), name) == names_.end()) names_.push_back(name);
  return absl::OkStatus();
}

absl::Status OutputDir::Commit() {
  if (done_) return absl::OkStatus();
  if (failed_) {
    Discard();
    return absl::OkStatus();
  }
  if (sync_) {
    // One flush of the file system for all the files (an fsync each costs
    // a journal commit each: 1.5 s for 300 files).
    int fd = open(staging_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int err = fd < 0 || syncfs(fd) != 0 ? errno : 0;
    if (fd >= 0) close(fd);
    if (err != 0) {
      Discard();
      return CannotWrite(dir_, err);
    }
  }
  Moves moves;
  for (const std::string& sub : subdirs_) moves.dirs.push_back(StrCat(dir_, "/", sub));
  for (const std::string& name : names_) {
    moves.files.emplace_back(StrCat(staging_, "/", name), StrCat(dir_, "/", name));
  }
  int err = 0;
  size_t failed = 0;
  {
    interrupt::Critical critical;
    bool published = false;
    if (beside_) {
      // DIR did not exist: one rename (over an empty DIR made meanwhile too).
      published = rename(staging_.c_str(), dir_.c_str()) == 0;
      if (!published && errno != EEXIST && errno != ENOTEMPTY) err = errno;
    }
    if (!published && err == 0) err = MoveEach(moves, &failed);
    if (!published) interrupt::RemoveTree(staging_.c_str());
    interrupt::Forget(handle_);
  }
  done_ = true;
  if (err == 0) return absl::OkStatus();
  if (failed < moves.dirs.size()) return CannotWrite(moves.dirs[failed], err);
  failed -= moves.dirs.size();
  return CannotWrite(failed < moves.files.size() ? moves.files[failed].second : dir_, err);
}

}  // namespace hlo

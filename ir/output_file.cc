#include "ir/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "ir/interrupt.h"
#include "ir/strings.h"

namespace hlo {

absl::Status CannotWrite(const std::string& path, int err) {
  return absl::DataLossError(StrCat(path, ": cannot write: ", std::strerror(err)));
}

int WriteAll(int fd, std::string_view data) {
  static const bool ignore_xfsz = (std::signal(SIGXFSZ, SIG_IGN), true);
  (void)ignore_xfsz;
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EIO;
    done += static_cast<size_t>(n);
  }
  return 0;
}

int WriteAndClose(int fd, absl::FunctionRef<absl::Status(ByteSink)> produce, bool sync,
                  absl::Status* produced) {
  int err = 0;
  *produced = produce([&](std::string_view piece) {
    err = WriteAll(fd, piece);
    return err == 0 ? absl::OkStatus() : absl::DataLossError("write failed");
  });
  if (err == 0 && produced->ok() && sync && fsync(fd) != 0) err = errno;
  if (close(fd) != 0 && err == 0) err = errno;
  return err;
}

absl::Status WriteFileAtomically(const std::string& path, std::string_view data, bool sync) {
  return WriteFileInPieces(
      path, [&](ByteSink sink) { return sink(data); }, sync);
}

absl::Status WriteFileInPieces(const std::string& path,
                               absl::FunctionRef<absl::Status(ByteSink)> produce, bool sync) {
  absl::Status produced;
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) return CannotWrite(path, EISDIR);
    int dev = open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (dev < 0) return CannotWrite(path, errno);
    int err = WriteAndClose(dev, produce, /*sync=*/false, &produced);
    if (err != 0) return CannotWrite(path, err);
    return produced;
  }
  std::string tmp = StrCat(path, ".tmp.", getpid());
  int fd, err = 0, handle = -1;
  {
    // Made and noted together: a signal finds either no temporary or one
    // it removes. (No allocation while signals are held.)
    interrupt::Critical critical;
    fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
      err = errno;
    } else {
      handle = interrupt::Remember(interrupt::Kind::kFile, tmp, path);
    }
  }
  if (fd < 0) return CannotWrite(path, err);
  err = WriteAndClose(fd, produce, sync, &produced);
  {
    interrupt::Critical critical;
    if (err == 0 && produced.ok() && rename(tmp.c_str(), path.c_str()) != 0) err = errno;
    if (err != 0 || !produced.ok()) unlink(tmp.c_str());
    interrupt::Forget(handle);
  }
  if (err != 0) return CannotWrite(path, err);
  return produced;
}

}  // namespace hlo

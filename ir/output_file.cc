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

int WriteAndClose(int fd, std::string_view data, bool sync) {
  static const bool ignore_xfsz = (std::signal(SIGXFSZ, SIG_IGN), true);
  (void)ignore_xfsz;
  int err = 0;
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      err = n < 0 ? errno : EIO;
      break;
    }
    done += static_cast<size_t>(n);
  }
  if (err == 0 && sync && fsync(fd) != 0) err = errno;
  if (close(fd) != 0 && err == 0) err = errno;
  return err;
}

absl::Status WriteFileAtomically(const std::string& path, std::string_view data, bool sync) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) return CannotWrite(path, EISDIR);
    int dev = open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (dev < 0) return CannotWrite(path, errno);
    int err = WriteAndClose(dev, data, /*sync=*/false);
    return err == 0 ? absl::OkStatus() : CannotWrite(path, err);
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
  err = WriteAndClose(fd, data, sync);
  {
    interrupt::Critical critical;
    if (err == 0 && rename(tmp.c_str(), path.c_str()) != 0) err = errno;
    if (err != 0) unlink(tmp.c_str());
    interrupt::Forget(handle);
  }
  return err == 0 ? absl::OkStatus() : CannotWrite(path, err);
}

}  // namespace hlo

#include "ir/output_file.h"

#include <csignal>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include <sys/stat.h>
#include <unistd.h>

#include "ir/strings.h"

namespace hlo {
namespace {

absl::Status CannotWrite(const std::string& path, int err) {
  return absl::DataLossError(StrCat(path, ": cannot write: ", std::strerror(err)));
}

// Writes all of `data` to `f`, then flushes it to the disk; false with errno set on failure.
bool WriteAll(FILE* f, std::string_view data, bool sync) {
  if (std::fwrite(data.data(), 1, data.size(), f) != data.size()) return false;
  if (std::fflush(f) != 0) return false;
  return !sync || fsync(fileno(f)) == 0;
}

}  // namespace

absl::Status WriteFileAtomically(const std::string& path, std::string_view data) {
  static const bool ignore_xfsz = (std::signal(SIGXFSZ, SIG_IGN), true);
  (void)ignore_xfsz;
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) return CannotWrite(path, EISDIR);
    FILE* dev = std::fopen(path.c_str(), "wb");
    if (!dev) return CannotWrite(path, errno);
    bool ok = WriteAll(dev, data, /*sync=*/false);
    int err = errno;
    if (std::fclose(dev) != 0 && ok) {
      ok = false;
      err = errno;
    }
    return ok ? absl::OkStatus() : CannotWrite(path, err);
  }
  std::string tmp = StrCat(path, ".tmp.", getpid());
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return CannotWrite(path, errno);
  bool ok = WriteAll(f, data, /*sync=*/true);
  int err = errno;
  if (std::fclose(f) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (ok && std::rename(tmp.c_str(), path.c_str()) != 0) {
    ok = false;
    err = errno;
  }
  if (!ok) {
    std::remove(tmp.c_str());
    return CannotWrite(path, err);
  }
  return absl::OkStatus();
}

}  // namespace hlo

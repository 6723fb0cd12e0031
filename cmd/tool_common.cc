#include "cmd/tool_common.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include <unistd.h>

#include "ir/strings.h"

namespace hlo {

absl::StatusOr<std::string> ReadInput(const std::string& path) {
  if (path == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    return ss.str();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(StrCat(path, ": cannot open: ", std::strerror(errno)));
  }
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return absl::DataLossError(StrCat(path, ": read error"));
  return data;
}

absl::Status WriteOutputAtomically(const std::string& path, std::string_view data) {
  if (path == "-" || path.empty()) {
    std::fwrite(data.data(), 1, data.size(), stdout);
    std::fflush(stdout);
    if (std::ferror(stdout)) return absl::DataLossError("error writing standard output");
    return absl::OkStatus();
  }
  std::string tmp = StrCat(path, ".tmp.", getpid());
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) {
    return absl::PermissionDeniedError(
        StrCat(path, ": cannot write: ", std::strerror(errno)));
  }
  size_t written = std::fwrite(data.data(), 1, data.size(), f);
  bool ok = written == data.size() && std::fflush(f) == 0 && fsync(fileno(f)) == 0;
  ok = (std::fclose(f) == 0) && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    std::remove(tmp.c_str());
    return absl::DataLossError(StrCat(path, ": cannot write: ", std::strerror(err)));
  }
  return absl::OkStatus();
}

void ReportError(std::string_view tool, const absl::Status& status) {
  std::string_view msg(status.message().data(), status.message().size());
  // Diagnostics already carry "FILE:LINE:COL: error:".
  if (msg.find(": error: ") != std::string_view::npos) {
    std::cerr << msg << "\n";
  } else {
    std::cerr << tool << ": error: " << msg << "\n";
  }
}

}  // namespace hlo

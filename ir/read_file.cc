#include "ir/read_file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "ir/strings.h"

namespace hlo {

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  FILE* in = std::fopen(path.c_str(), "rb");
  if (!in) {
    return absl::NotFoundError(StrCat(path, ": error: cannot open: ", std::strerror(errno)));
  }
  absl::StatusOr<std::string> data = ReadRestOfFile(in, path);
  std::fclose(in);
  return data;
}

absl::StatusOr<std::string> ReadRestOfFile(std::FILE* in, const std::string& path) {
  // One read of the file's size when it has one, then whatever else comes
  // (a file that grew meanwhile, or a stream with no size).
  std::string data;
  struct stat st;
  if (fstat(fileno(in), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    data.resize(static_cast<size_t>(st.st_size));
    data.resize(std::fread(data.data(), 1, data.size(), in));
  }
  char chunk[1 << 16];
  while (size_t n = std::fread(chunk, 1, sizeof chunk, in)) data.append(chunk, n);
  if (std::ferror(in) != 0) {
    return absl::DataLossError(StrCat(path, ": error: cannot read: ", std::strerror(errno)));
  }
  return data;
}

}  // namespace hlo

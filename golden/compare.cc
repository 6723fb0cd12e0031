#include "golden/compare.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "check/source_text.h"
#include "ir/output_file.h"
#include "ir/read_file.h"

namespace hlo::golden {

namespace {

std::vector<std::string> Lines(std::string_view text) {
  std::string normalized = NormalizeTrailing(text);
  std::vector<std::string> lines;
  for (std::string_view line : check::SplitLines(normalized)) lines.emplace_back(line);
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

bool IsCaseSeparator(std::string_view line) {
  while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.remove_suffix(1);
  return line.size() >= 8 && line.substr(0, 2) == "//" &&
         line.find_first_not_of(' ', 2) != std::string_view::npos &&
         line.substr(line.find_first_not_of(' ', 2)).find_first_not_of('-') ==
             std::string_view::npos &&
         line.size() - line.find_first_not_of(' ', 2) >= 5;
}

}  // namespace

std::string NormalizeTrailing(std::string_view text) {
  std::string out;
  for (std::string_view line : check::SplitLines(text)) {
    size_t end = line.find_last_not_of(" \t\r");
    out +=
        std::string(end == std::string_view::npos ? std::string_view() : line.substr(0, end + 1));
    out += '\n';
  }
  while (out.size() > 1 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n') {
    out.pop_back();
  }
  if (out == "\n") out.clear();
  return out;
}

bool SameText(std::string_view expected, std::string_view actual) {
  return NormalizeTrailing(expected) == NormalizeTrailing(actual);
}

std::string UnifiedDiff(std::string_view expected, std::string_view actual,
                        const std::string& expected_name, const std::string& actual_name,
                        size_t max_lines) {
  std::vector<std::string> a = Lines(expected), b = Lines(actual);
  // Longest common subsequence table (outputs of golden tests are small).
  size_t n = a.size(), m = b.size();
  if (n * m > 4'000'000) {
    return absl::StrCat("--- ", expected_name, "\n+++ ", actual_name, "\n(", n, " vs ", m,
                        " lines: too large to diff)\n");
  }
  std::vector<std::vector<int>> lcs(n + 1, std::vector<int>(m + 1, 0));
  for (size_t i = n; i-- > 0;) {
    for (size_t j = m; j-- > 0;) {
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  struct Edit {
    char kind;
    size_t i, j;
  };
  std::vector<Edit> edits;
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      edits.push_back({' ', i++, j++});
    } else if (j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j])) {
      edits.push_back({'+', i, j++});
    } else {
      edits.push_back({'-', i++, j});
    }
  }
  std::string out = absl::StrCat("--- ", expected_name, "\n+++ ", actual_name, "\n");
  size_t shown = 0;
  constexpr size_t kContext = 2;
  for (size_t k = 0; k < edits.size();) {
    if (edits[k].kind == ' ') {
      ++k;
      continue;
    }
    size_t start = k >= kContext ? k - kContext : 0;
    size_t end = k;
    // Extend the hunk while changes are within 2 * context of each other.
    for (size_t last = k; end < edits.size(); ++end) {
      if (edits[end].kind != ' ') last = end;
      if (end - last > 2 * kContext) break;
    }
    while (end > k && edits[end - 1].kind == ' ' && end - 1 > k && edits[end - 2].kind == ' ' &&
           end - k > kContext) {
      --end;
    }
    out += absl::StrCat("@@ -", edits[start].i + 1, " +", edits[start].j + 1, " @@\n");
    for (size_t e = start; e < end; ++e) {
      const std::string& line = edits[e].kind == '+' ? b[edits[e].j] : a[edits[e].i];
      out += absl::StrCat(std::string(1, edits[e].kind), line, "\n");
      if (++shown >= max_lines) return out + "...\n";
    }
    k = end;
  }
  return out;
}

std::vector<std::string> SplitCases(std::string_view text) {
  std::vector<std::string> cases(1);
  for (std::string_view line : check::SplitLines(text)) {
    if (IsCaseSeparator(line)) {
      cases.emplace_back();
      continue;
    }
    cases.back().append(line);
    cases.back() += '\n';
  }
  return cases;
}

std::vector<int> DifferingCases(std::string_view expected, std::string_view actual) {
  std::vector<std::string> a = SplitCases(expected), b = SplitCases(actual);
  std::vector<int> differing;
  if (a.size() != b.size() || a.size() < 2) return differing;
  for (size_t k = 0; k < a.size(); ++k) {
    if (!SameText(a[k], b[k])) differing.push_back(static_cast<int>(k) + 1);
  }
  return differing;
}

bool ReadFile(const std::string& path, std::string* text, std::string* error, size_t max_bytes) {
  auto fail = [&](const std::string& why) {
    if (error != nullptr) *error = absl::StrCat(path, ": ", why);
    return false;
  };
  // O_NONBLOCK: a FIFO with no writer must not hang the open (it is refused
  // below); regular files and devices such as /dev/null are read.
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return fail(std::strerror(errno));
  struct stat st;
  int saved = fstat(fd, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : 0;
  if (saved == 0 && !S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode)) {
    close(fd);
    return fail("not a regular file");
  }
  if (saved != 0) {
    close(fd);
    return fail(std::strerror(saved));
  }
  text->clear();
  std::FILE* in = fdopen(fd, "rb");
  if (in == nullptr) {
    saved = errno;
    close(fd);
    return fail(std::strerror(saved));
  }
  // hlo-run's reader and bound (ir/read_file.h): at most half of the memory
  // the process may use, read in blocks, so that /dev/zero under `ulimit -v`
  // ends in this error, not in bad_alloc.
  absl::StatusOr<std::string> data = ReadRestOfFile(
      in, path, static_cast<int64_t>(std::min<uint64_t>(max_bytes, MaxInputBytes())));
  std::fclose(in);
  if (!data.ok()) {
    std::string why(data.status().message());
    const std::string_view kPrefix = ": error: cannot read: ";
    if (size_t at = why.find(kPrefix); at != std::string::npos) why.erase(0, at + kPrefix.size());
    return fail(why);
  }
  *text = std::move(*data);
  return true;
}

bool WriteFile(const std::string& path, const std::string& text, std::string* error) {
  auto fail = [&](const std::string& why) {
    if (error != nullptr) *error = absl::StrCat(path, ": ", why);
    return false;
  };
  // An existing file keeps its mode; a read-only one is not replaced (root
  // may write anything, so the mode bits decide).
  struct stat st;
  mode_t mode = 0666;
  if (stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return fail(std::strerror(EISDIR));
    // A rename would put a file in place of /dev/null or a FIFO.
    if (!S_ISREG(st.st_mode)) return fail("not a regular file, not replaced");
    if ((st.st_mode & 0222) == 0 || access(path.c_str(), W_OK) != 0) {
      return fail("read-only file, not replaced");
    }
    mode = st.st_mode & 07777;
  }
  // Old or new, never truncated, and no temporary left by a failure or by
  // SIGINT/SIGTERM/SIGHUP (ir/output_file.h). Golden outputs need no fsync.
  absl::Status written = WriteFileAtomically(path, text, /*sync=*/false);
  if (!written.ok()) {
    // "PATH: cannot write: REASON": the runner says "--update cannot write".
    std::string_view message(written.message().data(), written.message().size());
    std::string_view marker = ": cannot write: ";
    size_t at = message.find(marker);
    return fail(
        std::string(at == std::string_view::npos ? message : message.substr(at + marker.size())));
  }
  if (mode != 0666 && chmod(path.c_str(), mode) != 0) return fail(std::strerror(errno));
  return true;
}

}  // namespace hlo::golden

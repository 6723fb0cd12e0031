#include "golden/test_file.h"

#include <algorithm>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "check/source_text.h"
#include "golden/compare.h"

namespace hlo::golden {

namespace fs = std::filesystem;

namespace {

constexpr const char* kConfigName = "hlo-test.cfg";

bool IsTestName(const fs::path& path) {
  std::string name = path.filename().string();
  // StableHLO tests may be .mlir files (hlo-opt and hlo-run read them).
  return (name.size() > 4 && name.ends_with(".hlo") && !name.ends_with(".expected.hlo")) ||
         (name.size() > 5 && name.ends_with(".mlir"));
}

// Parses `// RUN: ...` lines; `prefix` is the comment leader ("//" in test
// files, "" in config files).
std::vector<RunLine> ParseRuns(const std::string& text, bool config) {
  std::vector<RunLine> runs;
  bool continued = false;
  int number = 0;
  for (std::string_view line : check::SplitLines(text)) {
    ++number;
    std::string_view rest = check::TrimLeading(line);
    if (config) {
      if (rest.empty() || rest[0] == '#') continue;
    } else if (!check::ConsumePrefix(&rest, "//")) {
      continued = false;
      continue;
    }
    rest = check::TrimLeading(rest);
    bool error = false;
    std::string_view run_key = config ? "run:" : "RUN:";
    std::string_view error_key = config ? "run-error:" : "RUN-ERROR:";
    if (check::ConsumePrefix(&rest, error_key)) {
      error = true;
    } else if (!check::ConsumePrefix(&rest, run_key)) {
      continued = false;
      continue;
    }
    std::string command(check::Trim(rest));
    bool continues = !command.empty() && command.back() == '\\';
    if (continues) command.pop_back();
    if (continued && !runs.empty()) {
      runs.back().command += " " + command;
    } else {
      runs.push_back({error, command, config ? 0 : number});
    }
    continued = continues;
  }
  return runs;
}

}  // namespace

// Every line of an hlo-test.cfg is blank, a `#` comment, `run:`,
// `run-error:` or `exclude:`: another (a misspelt key) is an error, not a
// line silently skipped.
static absl::Status CheckConfig(const std::string& text, const std::string& path) {
  int number = 0;
  for (std::string_view line : check::SplitLines(text)) {
    ++number;
    std::string_view rest = check::Trim(line);
    if (rest.empty() || rest[0] == '#') continue;
    if (rest.starts_with("run:") || rest.starts_with("run-error:") ||
        rest.starts_with("exclude:")) {
      continue;
    }
    return absl::InvalidArgumentError(absl::StrCat(
        path, ":", number, ": error: not a comment, run:, run-error: or exclude: line"));
  }
  return absl::OkStatus();
}

// `exclude: NAME` lines of DIR/hlo-test.cfg: files or folders under DIR that
// hold no tests of this suite. No config: none; one that cannot be read or
// has a bad line: an error.
static absl::StatusOr<std::vector<fs::path>> Excluded(const fs::path& directory) {
  std::vector<fs::path> excluded;
  const std::string path = (directory / kConfigName).string();
  std::error_code ec;
  if (!fs::exists(path, ec)) return excluded;
  std::string config, error;
  if (!ReadFile(path, &config, &error)) {
    return absl::InvalidArgumentError(absl::StrCat("cannot read ", error));
  }
  if (absl::Status st = CheckConfig(config, path); !st.ok()) return st;
  for (std::string_view line : check::SplitLines(config)) {
    line = check::Trim(line);
    if (check::ConsumePrefix(&line, "exclude:")) {
      excluded.push_back((directory / check::Trim(line)).lexically_normal());
    }
  }
  return excluded;
}

absl::StatusOr<std::vector<std::string>> FindTestFiles(const std::string& path) {
  std::vector<std::string> files;
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) {
    files.push_back(fs::absolute(path).lexically_normal().string());
    return files;
  }
  auto excluded = Excluded(fs::absolute(path).lexically_normal());
  if (!excluded.ok()) return excluded.status();
  for (auto it = fs::recursive_directory_iterator(path, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    fs::path entry = fs::absolute(it->path()).lexically_normal();
    if (std::find(excluded->begin(), excluded->end(), entry) != excluded->end()) {
      if (it->is_directory(ec)) it.disable_recursion_pending();
      continue;
    }
    if (it->is_directory(ec)) {
      auto more = Excluded(entry);
      if (!more.ok()) return more.status();
      excluded->insert(excluded->end(), more->begin(), more->end());
      continue;
    }
    if (it->is_regular_file(ec) && IsTestName(it->path())) {
      files.push_back(fs::absolute(it->path()).lexically_normal().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string SuiteRoot(const std::string& file, const std::string& given) {
  fs::path directory = fs::path(file).parent_path();
  std::string root;
  for (fs::path p = directory; !p.empty(); p = p.parent_path()) {
    std::error_code ec;
    if (fs::exists(p / kConfigName, ec)) root = p.string();
    if (p == p.root_path()) break;
  }
  if (!root.empty()) return root;
  std::error_code ec;
  fs::path base = fs::absolute(given).lexically_normal();
  if (fs::is_regular_file(base, ec)) base = base.parent_path();
  std::string text = base.string();
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  return text;
}

std::vector<RunLine> ParseRunLines(const std::string& text) { return ParseRuns(text, false); }

absl::StatusOr<bool> ParseXfail(const std::string& text, const std::string& path) {
  bool xfail = false;
  int number = 0;
  for (std::string_view line : check::SplitLines(text)) {
    ++number;
    std::string_view rest = check::TrimLeading(line);
    if (!check::ConsumePrefix(&rest, "//")) continue;
    rest = check::TrimLeading(rest);
    if (!check::ConsumePrefix(&rest, "XFAIL:")) continue;
    // lit: a comma-separated list, any item true; `*` is always true.
    for (absl::string_view piece : absl::StrSplit(std::string(rest), ',')) {
      std::string_view item = check::Trim(std::string_view(piece.data(), piece.size()));
      if (item != "*") {
        return absl::InvalidArgumentError(
            absl::StrCat(path, ":", number, ": XFAIL: '", std::string(item),
                         "' is not supported: hlo-test has no features, only `*`"));
      }
      xfail = true;
    }
  }
  return xfail;
}

absl::StatusOr<TestFile> LoadTestFile(const std::string& path, const std::string& root) {
  TestFile test;
  test.root = root;
  test.relative = fs::path(path).lexically_relative(root).string();
  std::string error;
  if (!ReadFile(path, &test.text, &error)) {
    return absl::NotFoundError(absl::StrCat("cannot read ", error));
  }
  auto xfail = ParseXfail(test.text, path);
  if (!xfail.ok()) return xfail.status();
  test.xfail = *xfail;
  test.runs = ParseRunLines(test.text);
  if (!test.runs.empty()) return test;
  // Defaults: the nearest hlo-test.cfg with run lines, up to the root.
  for (fs::path p = fs::path(path).parent_path();; p = p.parent_path()) {
    std::string config, config_path = (p / kConfigName).string();
    std::error_code ec;
    if (fs::exists(config_path, ec)) {
      if (!ReadFile(config_path, &config, &error)) {
        return absl::InvalidArgumentError(absl::StrCat("cannot read ", error));
      }
      if (absl::Status st = CheckConfig(config, config_path); !st.ok()) return st;
      test.runs = ParseRuns(config, true);
      if (!test.runs.empty()) break;
    }
    if (p.string().size() <= root.size() || p == p.root_path()) break;
  }
  return test;
}

std::string SiblingPath(const TestFile& test, const std::string& suffix) {
  std::string base = test.relative;
  if (base.ends_with(".hlo")) base.resize(base.size() - 4);
  if (base.ends_with(".mlir")) base.resize(base.size() - 5);
  return base + suffix;
}

// A path as one word of the RUN-line shell: quoted when it holds a blank,
// quote or operator (a $TMPDIR with a space), else as it is.
static std::string ShellWord(const std::string& path) {
  if (path.find_first_of(" \t'\"\\|&<>") == std::string::npos) return path;
  std::string quoted = "'";
  for (char c : path) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string Substitute(const std::string& command, const TestFile& test,
                       const std::string& temp_dir) {
  std::string directory = fs::path(test.relative).parent_path().string();
  if (directory.empty()) directory.push_back('.');
  std::string flat = test.relative;
  std::replace(flat.begin(), flat.end(), '/', '_');
  std::string expected = SiblingPath(test, ".expected.hlo");
  std::error_code ec;
  if (!fs::exists(fs::path(test.root) / expected, ec)) expected = test.relative;
  std::string out;
  for (size_t i = 0; i < command.size(); ++i) {
    if (command[i] != '%' || i + 1 >= command.size()) {
      out += command[i];
      continue;
    }
    char c = command[i + 1];
    if (command.compare(i, 11, "%{expected}") == 0) {
      out += ShellWord(expected);
      i += 10;
    } else if (c == 's') {
      out += ShellWord(test.relative);
      ++i;
    } else if (c == 'S') {
      out += ShellWord(directory);
      ++i;
    } else if (c == 't') {
      out += ShellWord(absl::StrCat(temp_dir, "/", flat, ".tmp"));
      ++i;
    } else if (c == 'T') {
      out += ShellWord(temp_dir);
      ++i;
    } else if (c == '%') {
      out += '%';
      ++i;
    } else {
      out += '%';
    }
  }
  return out;
}

}  // namespace hlo::golden

// The built-in tests (--crash, --error-matches, --nonfinite, --mismatch,
// --slower-than): each runs hlo-run (and hlo-opt) on the candidate as the
// user would, with --run-args, so that the reduced module reproduces with
// the same command line.
#include <algorithm>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "ir/read_file.h"
#include "re2/re2.h"
#include "reduce/oracle.h"
#include "reduce/subprocess.h"
#include "tools/tool_status.h"

namespace hlo::reduce {
namespace {

// A crash: a signal, an exit status no tool gives (0, 1, 2 are theirs), or
// an internal error reported as one.
bool Crashed(const ProcessResult& r) {
  if (!r.started || r.timed_out) return false;
  if (r.signal != 0) return true;
  if (r.exit_code > 2) return true;
  std::string lower = absl::AsciiStrToLower(r.output);
  return absl::StrContains(lower, "internal error") || absl::StrContains(r.output, "INTERNAL:");
}

// A result file of hlo-run's JSON output holds a non-finite element: they
// are the strings "nan", "inf" and "-inf" (design.md's JSON result).
bool JsonHasNonfinite(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  std::vector<char> buffer(1 << 20);
  std::string carry;
  bool found = false;
  while (!found) {
    size_t n = std::fread(buffer.data(), 1, buffer.size(), f);
    if (n == 0) break;
    std::string chunk = carry + std::string(buffer.data(), n);
    found = absl::StrContains(chunk, "\"nan\"") || absl::StrContains(chunk, "\"inf\"") ||
            absl::StrContains(chunk, "\"-inf\"");
    carry = chunk.substr(chunk.size() - std::min<size_t>(chunk.size(), 8));
  }
  std::fclose(f);
  return found;
}

class BuiltinOracle : public Oracle {
 public:
  BuiltinOracle(BuiltinTest test, std::vector<std::string> run_args,
                std::vector<std::string> opt_args, double timeout)
      : test_(std::move(test)),
        run_args_(std::move(run_args)),
        opt_args_(std::move(opt_args)),
        timeout_(timeout),
        pattern_(test_.pattern, RE2::Quiet) {}

  bool ok() const { return pattern_.ok(); }

  bool Interesting(const std::string& path, const std::string& scratch) override {
    return Check(path, scratch, nullptr);
  }
  std::string Explain(const std::string& path, const std::string& scratch) override {
    std::string why;
    Check(path, scratch, &why);
    return why;
  }

 private:
  std::string Tool(const std::string& name) const {
    return test_.bin_dir.empty() ? name : test_.bin_dir + "/" + name;
  }
  ProcessResult RunTool(const std::string& tool, const std::vector<std::string>& before,
                        const std::vector<std::string>& after, const std::string& scratch,
                        const std::string& log) {
    std::vector<std::string> argv = {Tool(tool)};
    argv.insert(argv.end(), before.begin(), before.end());
    argv.insert(argv.end(), after.begin(), after.end());
    return RunProcess(argv, scratch + "/" + log, timeout_);
  }
  static std::string Describe(const std::string& tool, const ProcessResult& r) {
    std::string tail = r.output.size() > 2000 ? r.output.substr(r.output.size() - 2000) : r.output;
    std::string how = !r.started    ? "could not start"
                      : r.timed_out ? "ran past --timeout"
                      : r.signal    ? "was killed by signal " + std::to_string(r.signal)
                                    : "exited with status " + std::to_string(r.exit_code);
    return tool + " " + how + (tail.empty() ? "" : "; its output:\n" + tail);
  }

  bool Check(const std::string& path, const std::string& scratch, std::string* why) {
    switch (test_.kind) {
      case BuiltinTest::Kind::kCrash: {
        const bool opt = test_.crash_tool == "hlo-opt";
        std::vector<std::string> args = {path};
        args.insert(args.end(), (opt ? opt_args_ : run_args_).begin(),
                    (opt ? opt_args_ : run_args_).end());
        ProcessResult r =
            RunTool(test_.crash_tool, args, {"-o", scratch + "/out"}, scratch, "run.log");
        if (why) *why = Describe(test_.crash_tool, r) + "\n(no signal and no internal error)";
        return Crashed(r);
      }
      case BuiltinTest::Kind::kErrorMatches: {
        std::vector<std::string> args = {path};
        args.insert(args.end(), run_args_.begin(), run_args_.end());
        ProcessResult r = RunTool("hlo-run", args, {"-o", scratch + "/out"}, scratch, "run.log");
        if (why) *why = Describe("hlo-run", r) + "\n(the pattern does not match a failure)";
        return r.started && !r.timed_out && r.exit_code != 0 &&
               RE2::PartialMatch(r.output, pattern_);
      }
      case BuiltinTest::Kind::kNonfinite: {
        std::vector<std::string> args = {path};
        args.insert(args.end(), run_args_.begin(), run_args_.end());
        const std::string out = scratch + "/result.json";
        std::remove(out.c_str());
        ProcessResult r =
            RunTool("hlo-run", args, {"--output-format=json", "-o", out}, scratch, "run.log");
        if (why) *why = Describe("hlo-run", r) + "\n(no NaN or Inf in the result)";
        return r.started && !r.timed_out && r.exit_code == 0 && JsonHasNonfinite(out);
      }
      case BuiltinTest::Kind::kMismatch:
        return Mismatch(path, scratch, why);
      case BuiltinTest::Kind::kSlowerThan: {
        std::vector<std::string> args = {path};
        args.insert(args.end(), run_args_.begin(), run_args_.end());
        ProcessResult r =
            RunTool("hlo-run", args, {"--bench", "1", "-o", scratch + "/out"}, scratch, "run.log");
        double ms = -1;
        size_t at = r.output.find("median_ms=");
        if (at != std::string::npos) ms = std::atof(r.output.c_str() + at + 10);
        if (why) {
          *why = Describe("hlo-run", r) + "\n(median " + std::to_string(ms) + " ms, not above " +
                 std::to_string(test_.slower_ms) + ")";
        }
        return r.started && !r.timed_out && r.exit_code == 0 && ms > test_.slower_ms;
      }
    }
    return false;
  }

  // Results before and after the pipeline differ beyond the tolerance:
  // hlo-run's own --expect compares them.
  bool Mismatch(const std::string& path, const std::string& scratch, std::string* why) {
    if (!test_.reference.empty()) return DiffersFromReference(path, scratch, why);
    const std::string before = scratch + "/before";
    const std::string after = scratch + "/after.hlo";
    std::vector<std::string> args = {path};
    args.insert(args.end(), run_args_.begin(), run_args_.end());
    ProcessResult r =
        RunTool("hlo-run", args, {"--output-format=npy", "-o", before + ".d"}, scratch, "run.log");
    if (!r.started || r.timed_out || r.exit_code != 0) {
      if (why) *why = Describe("hlo-run", r);
      return false;
    }
    ProcessResult o = RunTool("hlo-opt", {path, "--passes=" + test_.pipeline, "-o", after}, {},
                              scratch, "opt.log");
    if (!o.started || o.timed_out || o.exit_code != 0) {
      if (why) *why = Describe("hlo-opt", o);
      return false;
    }
    return DiffersFrom(after, before + ".d", scratch, why);
  }

  // hlo-run on `module` with --expect `expected` reports a difference (not a
  // failure to run).
  bool DiffersFrom(const std::string& module, const std::string& expected,
                   const std::string& scratch, std::string* why) {
    std::vector<std::string> check = {module};
    check.insert(check.end(), run_args_.begin(), run_args_.end());
    check.insert(check.end(), {"--expect", expected});
    if (test_.rtol) check.insert(check.end(), {"--rtol", std::to_string(*test_.rtol)});
    if (test_.atol) check.insert(check.end(), {"--atol", std::to_string(*test_.atol)});
    ProcessResult c = RunTool("hlo-run", check, {}, scratch, "check.log");
    if (why) *why = Describe("hlo-run (after the passes)", c);
    return c.started && !c.timed_out && c.exit_code == 1 &&
           absl::StrContains(c.output, "differs from");
  }

  // Bisection: the reference's results, made once, beside the workers'
  // folders.
  bool DiffersFromReference(const std::string& path, const std::string& scratch, std::string* why) {
    const std::string ref = scratch.substr(0, scratch.rfind('/')) + "/reference.d";
    {
      std::lock_guard<std::mutex> lock(reference_mu_);
      if (!reference_made_) {
        std::vector<std::string> args = {test_.reference};
        args.insert(args.end(), run_args_.begin(), run_args_.end());
        reference_run_ =
            RunTool("hlo-run", args, {"--output-format=npy", "-o", ref}, scratch, "reference.log");
        reference_made_ = true;
      }
    }
    const ProcessResult& r = reference_run_;
    if (!r.started || r.timed_out || r.exit_code != 0) {
      if (why) *why = Describe("hlo-run (the input)", r);
      return false;
    }
    return DiffersFrom(path, ref, scratch, why);
  }

  BuiltinTest test_;
  std::vector<std::string> run_args_;
  std::vector<std::string> opt_args_;
  double timeout_;
  RE2 pattern_;
  std::mutex reference_mu_;
  bool reference_made_ = false;
  ProcessResult reference_run_;
};

}  // namespace

absl::StatusOr<std::vector<std::string>> SplitArgs(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else if (c == '\'' || c == '"') {
      size_t close = text.find(c, i + 1);
      if (close == std::string::npos) {
        return UsageError("unterminated quote in arguments: " + text);
      }
      word += text.substr(i + 1, close - i - 1);
      i = close;
      in_word = true;
    } else if (c == '\\' && i + 1 < text.size()) {
      word += text[++i];
      in_word = true;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

absl::StatusOr<std::unique_ptr<Oracle>> MakeBuiltinOracle(const BuiltinTest& test,
                                                          double timeout_seconds) {
  auto run_args = SplitArgs(test.run_args);
  if (!run_args.ok()) return run_args.status();
  auto opt_args = SplitArgs(test.opt_args);
  if (!opt_args.ok()) return opt_args.status();
  auto oracle = std::make_unique<BuiltinOracle>(test, *std::move(run_args), *std::move(opt_args),
                                                timeout_seconds);
  if (!oracle->ok())
    return UsageError(absl::StrCat("--error-matches: invalid RE2 pattern '", test.pattern, "'"));
  return oracle;
}

}  // namespace hlo::reduce

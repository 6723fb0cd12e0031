// libFuzzer target: hlo-check's engine (check/filecheck.h) on a check file
// and an input, both from the fuzzer's bytes: the first byte picks options
// (--match-full-lines, --strict-whitespace, --ignore-case, -v, a second
// prefix, a -D definition), the rest is split at the first NUL into the
// check text and the input text.
//
// Checked: no crash or sanitizer report, no hang (libFuzzer's -timeout) and
// bounded memory (-rss_limit_mb) whatever the patterns hold: regexes,
// [[VAR:...]] definitions and uses, numeric expressions, CHECK-COUNT-N;
// and the exit code is one of FileCheck's (0, 1 or 2).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "check/filecheck.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t flags = data[0];
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  size_t nul = rest.find('\0');
  std::string check_text(rest.substr(0, nul));
  std::string input_text(nul == std::string_view::npos ? std::string_view() : rest.substr(nul + 1));
  hlo::check::CheckOptions options;
  options.match_full_lines = flags & 1;
  options.strict_whitespace = flags & 2;
  options.ignore_case = flags & 4;
  options.verbose = (flags >> 3) & 1;
  if (flags & 16) options.check_prefixes = {"CHECK", "NEXT"};
  if (flags & 32) options.defines = {"V=f32[8]{0}", "#N=7"};
  options.allow_empty_input = flags & 64;
  options.dump_input =
      (flags & 128) ? hlo::check::DumpInput::kAlways : hlo::check::DumpInput::kFail;
  // The near-miss search of a failure (nearly every input fails) took 88% of
  // the time: up to 200M steps, some milliseconds even at -O1. It runs the
  // same code with a budget of 20,000 steps, stopping sooner.
  options.near_miss_steps = 20'000;
  hlo::check::CheckResult r =
      hlo::check::RunFileCheck("fuzz.check", check_text, "fuzz.input", input_text, options);
  if (r.exit_code() < 0 || r.exit_code() > 2) {
    hlo::fuzz::Fail("hlo-check's exit code is not 0, 1 or 2", r.messages);
  }
  return 0;
}

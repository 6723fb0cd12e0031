// `--test=CMD`: the user's interestingness test, as llvm-reduce runs it.
#include <string>

#include "reduce/oracle.h"
#include "reduce/subprocess.h"

namespace hlo::reduce {
namespace {

// 'text' with its single quotes escaped: one word for sh.
std::string ShellQuote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

class ScriptOracle : public Oracle {
 public:
  ScriptOracle(std::string command, double timeout)
      : command_(std::move(command)), timeout_(timeout) {}

  bool Interesting(const std::string& path, const std::string& scratch) override {
    ProcessResult r = Run(path, scratch);
    return r.started && !r.timed_out && r.signal == 0 && r.exit_code == 0;
  }

  std::string Explain(const std::string& path, const std::string& scratch) override {
    ProcessResult r = Run(path, scratch);
    std::string why = !r.started    ? "it could not start: " + r.output
                      : r.timed_out ? "it ran past --timeout"
                      : r.signal    ? "it was killed by signal " + std::to_string(r.signal)
                                    : "it exited with status " + std::to_string(r.exit_code);
    std::string tail = r.output.size() > 2000 ? r.output.substr(r.output.size() - 2000) : r.output;
    return why + (tail.empty() || !r.started ? "" : "; its output:\n" + tail);
  }

 private:
  ProcessResult Run(const std::string& path, const std::string& scratch) {
    std::string command = command_;
    const std::string quoted = ShellQuote(path);
    size_t at = command.find("{}");
    if (at == std::string::npos) {
      command.push_back(' ');
      command.append(quoted);
    } else {
      for (; at != std::string::npos; at = command.find("{}", at + quoted.size())) {
        command.replace(at, 2, quoted);
      }
    }
    return RunProcess({"/bin/sh", "-c", command}, scratch + "/test.log", timeout_);
  }

  std::string command_;
  double timeout_;
};

}  // namespace

std::unique_ptr<Oracle> MakeScriptOracle(const std::string& command, double timeout_seconds) {
  return std::make_unique<ScriptOracle>(command, timeout_seconds);
}

}  // namespace hlo::reduce

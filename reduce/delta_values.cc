// values: an instruction of the entry becomes a constant holding the value
// it had, when that value is small (at most 64 elements). The values come
// from one hlo-run of the module on the built-in tests' inputs
// (--random-inputs --seed 1) with --dump-values, in a subprocess under a
// deadline (a module may crash or hang the run: then nothing changes), once
// per module text. Instructions inside loops and called computations are
// left alone: they have a value per trip or call.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "eval/io/run_io.h"
#include "ir/hlo_printer.h"
#include "ir/interrupt.h"
#include "ir/literal.h"
#include "re2/re2.h"
#include "reduce/delta.h"
#include "reduce/subprocess.h"

namespace hlo::reduce {
namespace {

constexpr int64_t kMaxElements = 64;
constexpr double kRunSeconds = 60;

bool IsTarget(const Instruction& inst) {
  const Opcode op = inst.opcode();
  if (op == Opcode::kConstant || op == Opcode::kParameter || HasSideEffect(op)) return false;
  const Shape& s = inst.shape();
  return s.IsArray() && s.IsStatic() && s.ElementCount() <= kMaxElements &&
         s.element_type() != PrimitiveType::kToken;
}

// hlo-run beside this tool, else on PATH.
std::string HloRunPath() {
  const std::string dir = ToolDirBesideSelf();
  return dir.empty() ? "hlo-run" : dir + "/hlo-run";
}

// A temporary folder, removed with its contents (also on SIGINT/SIGTERM).
class TempDir {
 public:
  TempDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/hlo-reduce-values.XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    interrupt::Critical critical;
    if (mkdtemp(buf.data()) == nullptr) return;
    path_ = buf.data();
    handle_ = interrupt::Remember(interrupt::Kind::kTree, path_, "");
  }
  ~TempDir() {
    if (path_.empty()) return;
    interrupt::Critical critical;
    interrupt::RemoveTree(path_.c_str());
    interrupt::Forget(handle_);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int handle_ = -1;
};

using Values = absl::flat_hash_map<std::string, std::shared_ptr<const Literal>>;

// The values of `targets` in a run of `module` (those the run produced).
Values RunForValues(Module& module, const std::vector<const Instruction*>& targets) {
  Values values;
  TempDir tmp;
  if (tmp.path().empty()) return values;
  const std::string hlo = tmp.path() + "/m.hlo", dump = tmp.path() + "/values";
  {
    std::ofstream out(hlo);
    out << PrintModule(module, module.style());
    if (!out) return values;
  }
  std::string pattern;
  for (const Instruction* t : targets) {
    if (!pattern.empty()) pattern += '|';
    pattern += RE2::QuoteMeta(std::string(t->name()));
  }
  ProcessResult r = RunProcess({HloRunPath(), hlo, "--random-inputs", "--seed", "1",
                                "--dump-values", "^(" + pattern + ")$", dump},
                               tmp.path() + "/log", kRunSeconds);
  if (!r.started || r.timed_out || r.signal != 0) return values;
  for (const Instruction* t : targets) {
    const std::string file = dump + "/" + std::string(t->name()) + ".npy";
    if (access(file.c_str(), R_OK) != 0) continue;
    auto lit = LoadLiteralFile(file, t->shape());
    if (lit.ok()) values[std::string(t->name())] = std::make_shared<const Literal>(*std::move(lit));
  }
  return values;
}

class ValuesDelta : public Delta {
 public:
  void Run(Module& module, TargetSelector& select) override {
    std::vector<Instruction*> picked;
    std::vector<const Instruction*> all;
    for (Instruction* inst : module.entry()->PostOrder()) {
      if (!IsTarget(*inst)) continue;
      all.push_back(inst);
      if (select.Pick()) picked.push_back(inst);
    }
    if (picked.empty()) return;
    const Values values = ValuesOf(module, all);
    for (Instruction* inst : picked) {
      auto it = values.find(std::string(inst->name()));
      if (it == values.end()) continue;
      auto c = std::make_unique<Instruction>(Opcode::kConstant, inst->name(), inst->shape_ptr());
      c->set_literal(it->second);
      Instruction* constant = module.entry()->AddInstruction(std::move(c));
      inst->ReplaceAllUsesWith(constant);
    }
  }

 private:
  // One run per module text: the chunks of a round share it.
  Values ValuesOf(Module& module, const std::vector<const Instruction*>& targets) {
    const std::string key = PrintModule(module, module.style());
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (key == key_) return values_;
    }
    Values v = RunForValues(module, targets);
    std::lock_guard<std::mutex> lock(mu_);
    key_ = key;
    values_ = v;
    return v;
  }

  std::mutex mu_;
  std::string key_;
  Values values_;
};

}  // namespace

std::unique_ptr<Delta> CreateValuesDelta() { return std::make_unique<ValuesDelta>(); }

}  // namespace hlo::reduce

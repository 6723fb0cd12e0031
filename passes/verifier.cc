#include "passes/verifier.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ir/opcode_attributes.h"
#include "ir/strings.h"
#include "parser/diagnostic.h"
#include "passes/shape_inference.h"

namespace hlo {
namespace {

std::string_view LineOf(const std::string& text, uint32_t line) {
  size_t pos = 0;
  for (uint32_t l = 1; l < line && pos != std::string::npos; ++l) {
    pos = text.find('\n', pos);
    if (pos != std::string::npos) ++pos;
  }
  if (pos == std::string::npos || pos > text.size()) return {};
  size_t end = text.find('\n', pos);
  std::string_view s(text.data() + pos, (end == std::string::npos ? text.size() : end) - pos);
  if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  return s;
}

class Verifier {
 public:
  Verifier(Module& module, const VerifyOptions& options)
      : module_(module), options_(options) {}

  absl::Status Run() {
    if (!module_.entry()) Report(SourceLoc{}, "", "the module has no entry computation");
    for (const auto& c : module_.computations()) VerifyComputation(*c);
    VerifyEntryLayout();
    if (errors_.empty()) return absl::OkStatus();
    std::string msg = StrJoin(errors_, "\n");
    if (dropped_ > 0) StrAppend(&msg, "\n(", dropped_, " more problems not shown)");
    return absl::InvalidArgumentError(msg);
  }

 private:
  void Report(SourceLoc loc, std::string_view name, std::string_view message) {
    if (static_cast<int>(errors_.size()) >= options_.max_errors) {
      ++dropped_;
      return;
    }
    std::string text = name.empty() ? std::string(message) : StrCat("%", name, ": ", message);
    const std::string& file = module_.source_name().empty() ? std::string("<module>")
                                                            : module_.source_name();
    if (loc.line == 0) {
      errors_.push_back(StrCat(file, ": error: ", text));
      return;
    }
    std::string_view src;
    if (module_.source_text()) src = LineOf(*module_.source_text(), loc.line);
    errors_.push_back(FormatDiagnostic(file, loc.line, loc.col, text, src));
  }

  void ReportInst(const Instruction& inst, std::string_view message) {
    Report(inst.loc(), inst.name(), message);
  }

  void VerifyComputation(const Computation& comp) {
    if (!comp.root()) {
      Report(comp.loc(), "", StrCat("computation '", comp.name(), "' has no root"));
      return;
    }
    for (int64_t i = 0; i < comp.parameter_count(); ++i) {
      if (!comp.parameter(i)) {
        Report(comp.loc(), "", StrCat("computation '", comp.name(), "' has no parameter(",
                                      i, ")"));
      }
    }
    absl::flat_hash_set<std::string_view> names;
    for (const auto& inst : comp.instructions()) {
      if (!names.insert(inst->name()).second) {
        ReportInst(*inst, "the name is used twice in the computation");
      }
      VerifyInstruction(comp, *inst);
    }
    VerifyAcyclic(comp);
  }

  void VerifyInstruction(const Computation& comp, const Instruction& inst) {
    for (int64_t i = 0; i < inst.operand_count(); ++i) {
      const Instruction* op = inst.operand(i);
      if (!op || op->parent() != &comp) {
        ReportInst(inst, StrCat("operand ", i, " is not an instruction of computation '",
                                comp.name(), "'"));
        return;
      }
    }
    for (const Instruction* p : inst.control_predecessors()) {
      if (!p || p->parent() != &comp) {
        ReportInst(inst, "a control predecessor is not in the same computation");
      }
    }
    Opcode rules = inst.has_wrapped_opcode() && inst.opcode() == Opcode::kAsyncStart
                       ? inst.wrapped_opcode()
                       : inst.opcode();
    for (const Attribute& a : inst.attributes()) {
      if (!IsAllowedAttr(rules, a.kind) && a.kind != AttrKind::kAsyncExecutionThread) {
        ReportInst(inst, StrCat("attribute '", AttrName(a.kind), "' is not allowed on '",
                                inst.OpcodeText(), "'"));
      }
    }
    if (!(inst.has_wrapped_opcode() && inst.opcode() != Opcode::kAsyncStart)) {
      for (const AttrRule& r : OpcodeAttrRules(rules)) {
        if (r.required && !inst.HasAttr(r.kind)) {
          ReportInst(inst, StrCat("'", inst.OpcodeText(), "' needs the attribute '",
                                  AttrName(r.kind), "'"));
        }
      }
    }
    auto inferred = InferShape(inst, module_.shapes());
    if (!inferred.ok()) {
      ReportInst(inst, std::string(inferred.status().message()));
      return;
    }
    if (!inferred->Compatible(inst.shape())) {
      ReportInst(inst, StrCat("the shape is ", inst.shape().ToString(false),
                              " but the operands and attributes give ",
                              inferred->ToString(false)));
    }
  }

  // Iterative three-colour DFS over operands and control predecessors.
  void VerifyAcyclic(const Computation& comp) {
    absl::flat_hash_map<const Instruction*, int> color;
    for (const auto& start : comp.instructions()) {
      if (color[start.get()] != 0) continue;
      std::vector<std::pair<const Instruction*, size_t>> stack{{start.get(), 0}};
      color[start.get()] = 1;
      while (!stack.empty()) {
        auto& [inst, next] = stack.back();
        auto preds = inst->control_predecessors();
        size_t n_ops = inst->operands().size();
        if (next == n_ops + preds.size()) {
          color[inst] = 2;
          stack.pop_back();
          continue;
        }
        const Instruction* dep = next < n_ops ? inst->operand(next) : preds[next - n_ops];
        ++next;
        if (!dep || dep->parent() != &comp) continue;
        int& c = color[dep];
        if (c == 1) {
          ReportInst(*dep, StrCat("is part of a cycle (through '", inst->name(), "')"));
          return;
        }
        if (c == 0) {
          c = 1;
          stack.push_back({dep, 0});
        }
      }
    }
  }

  void VerifyEntryLayout() {
    const Computation* entry = module_.entry();
    const Shape* result = module_.entry_result_layout();
    if (!entry || !result) return;
    const auto& params = module_.entry_parameter_layouts();
    if (static_cast<int64_t>(params.size()) != entry->parameter_count()) {
      Report(entry->loc(), "", StrCat("entry_computation_layout lists ", params.size(),
                                      " parameters but the entry computation has ",
                                      entry->parameter_count()));
      return;
    }
    for (size_t i = 0; i < params.size(); ++i) {
      const Instruction* p = entry->parameter(static_cast<int64_t>(i));
      if (p && !params[i]->Compatible(p->shape())) {
        ReportInst(*p, StrCat("entry_computation_layout gives parameter ", i, " shape ",
                              params[i]->ToString(false), " but the parameter has ",
                              p->shape().ToString(false)));
      }
    }
    if (entry->root() && !result->Compatible(entry->root()->shape())) {
      ReportInst(*entry->root(), StrCat("entry_computation_layout gives the result shape ",
                                        result->ToString(false), " but the root has ",
                                        entry->root()->shape().ToString(false)));
    }
  }

  Module& module_;
  const VerifyOptions& options_;
  std::vector<std::string> errors_;
  int dropped_ = 0;
};

}  // namespace

absl::Status VerifyModule(Module& module, const VerifyOptions& options) {
  return Verifier(module, options).Run();
}

absl::StatusOr<bool> VerifierPass::Run(Module& module) {
  absl::Status st = VerifyModule(module);
  if (!st.ok()) return st;
  return false;
}

}  // namespace hlo

#include "passes/verifier.h"

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ir/located_status.h"
#include "ir/opcode_attributes.h"
#include "ir/strings.h"
#include "parser/diagnostic.h"
#include "passes/shape_inference.h"

namespace hlo {
namespace {

// The subshape at `index` (tuple element numbers from the outside in), or
// null when the index leaves the shape.
const Shape* Subshape(const Shape& shape, absl::Span<const int64_t> index) {
  const Shape* s = &shape;
  for (int64_t i : index) {
    if (!s->IsTuple() || i < 0 || i >= s->tuple_size()) return nullptr;
    s = &s->tuple_shape(i);
  }
  return s;
}

std::string IndexText(absl::Span<const int64_t> index) {
  return StrCat("{", StrJoin(index, ","), "}");
}

// Array and token leaves of a shape, as XLA's ShapeUtil::GetLeafCount.
int64_t LeafCount(const Shape& shape) {
  if (!shape.IsTuple()) return 1;
  int64_t n = 0;
  for (int64_t i = 0; i < shape.tuple_size(); ++i) n += LeafCount(shape.tuple_shape(i));
  return n;
}

class Verifier {
 public:
  Verifier(Module& module, const VerifyOptions& options) : module_(module), options_(options) {}

  absl::Status Run() {
    if (!module_.entry()) Report(SourceLoc{}, "", "the module has no entry computation");
    for (const auto& c : module_.computations()) VerifyComputation(*c);
    VerifyCallGraph();
    VerifyEntryLayout();
    if (errors_.empty()) return absl::OkStatus();
    std::string msg = StrJoin(errors_, "\n");
    if (dropped_ > 0) StrAppend(&msg, "\n(", dropped_, " more problems not shown)");
    return MarkLocated(absl::InvalidArgumentError(msg));  // each line names its place
  }

 private:
  void Report(SourceLoc loc, std::string_view name, std::string_view message) {
    if (static_cast<int>(errors_.size()) >= options_.max_errors) {
      ++dropped_;
      return;
    }
    std::string text = name.empty() ? std::string(message) : StrCat("%", name, ": ", message);
    const std::string& file =
        module_.source_name().empty() ? std::string("<module>") : module_.source_name();
    if (loc.line == 0) {
      errors_.push_back(StrCat(file, ": error: ", text));
      return;
    }
    std::string_view src;
    if (module_.source_text()) src = SourceLineAt(*module_.source_text(), loc.line);
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
        Report(comp.loc(), "", StrCat("computation '", comp.name(), "' has no parameter(", i, ")"));
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
    VerifyAttributeValues(inst);
    auto inferred = InferShape(inst, module_.shapes());
    if (!inferred.ok()) {
      ReportInst(inst, std::string(inferred.status().message()));
      return;
    }
    if (!inferred->Compatible(inst.shape())) {
      ReportInst(inst, StrCat("the shape is ", inst.shape().ToString(false),
                              " but the operands and attributes give ", inferred->ToString(false)));
    }
  }

  // Attribute values that relate to operands or the result but that shape
  // inference does not read (XLA's HandleCustomCall/HandleFusion checks).
  void VerifyAttributeValues(const Instruction& inst) {
    if (const Attribute* a = inst.FindAttr(AttrKind::kOutputToOperandAliasing)) {
      const auto* aliasing = std::get_if<std::shared_ptr<const Aliasing>>(&a->value);
      if (aliasing && *aliasing) {
        for (const AliasEntry& e : **aliasing) VerifyAlias(inst, e);
      }
    }
    if (const Attribute* a = inst.FindAttr(AttrKind::kOperandLayoutConstraints)) {
      const auto* shapes = std::get_if<std::vector<const Shape*>>(&a->value);
      if (shapes && static_cast<int64_t>(shapes->size()) != inst.operand_count()) {
        ReportInst(inst,
                   StrCat("operand_layout_constraints lists ", shapes->size(), " shape",
                          shapes->size() == 1 ? "" : "s", " but the instruction has ",
                          inst.operand_count(), " operand", inst.operand_count() == 1 ? "" : "s"));
      } else if (shapes) {
        for (int64_t i = 0; i < inst.operand_count(); ++i) {
          const Shape* want = (*shapes)[i];
          if (want && !want->Compatible(inst.operand(i)->shape())) {
            ReportInst(inst, StrCat("operand_layout_constraints gives operand ", i, " shape ",
                                    want->ToString(false), " but the operand has ",
                                    inst.operand(i)->shape().ToString(false)));
          }
        }
      }
    }
    if (const Attribute* a = inst.FindAttr(AttrKind::kParameterReplication)) {
      const std::vector<bool>* flags = nullptr;
      if (const auto* shared = std::get_if<std::shared_ptr<const std::vector<bool>>>(&a->value)) {
        flags = shared->get();
      }
      int64_t leaves = LeafCount(inst.shape());
      if (flags && static_cast<int64_t>(flags->size()) != leaves) {
        ReportInst(inst, StrCat("parameter_replication has ", flags->size(), " entr",
                                flags->size() == 1 ? "y" : "ies", " but the parameter ",
                                inst.shape().ToString(false), " has ", leaves, " leaf buffer",
                                leaves == 1 ? "" : "s"));
      }
    }
  }

  // {output index}: (operand, {operand index}): both places exist and hold
  // the same shape (the buffers are shared).
  void VerifyAlias(const Instruction& inst, const AliasEntry& e) {
    std::string what = StrCat("output_to_operand_aliasing {", StrJoin(e.output_index, ","), "}: (",
                              e.operand, ", ", IndexText(e.operand_index), ")");
    const Shape* out = Subshape(inst.shape(), e.output_index);
    if (!out) {
      ReportInst(inst, StrCat(what, ": the result ", inst.shape().ToString(false),
                              " has no element at index ", IndexText(e.output_index)));
      return;
    }
    if (e.operand < 0 || e.operand >= inst.operand_count()) {
      ReportInst(inst, StrCat(what, ": there is no operand ", e.operand, " (the instruction has ",
                              inst.operand_count(), ")"));
      return;
    }
    const Shape& operand = inst.operand(e.operand)->shape();
    const Shape* in = Subshape(operand, e.operand_index);
    if (!in) {
      ReportInst(inst, StrCat(what, ": operand ", e.operand, " ", operand.ToString(false),
                              " has no element at index ", IndexText(e.operand_index)));
      return;
    }
    if (!in->Compatible(*out)) {
      ReportInst(inst, StrCat(what, ": the output ", out->ToString(false), " and the operand ",
                              in->ToString(false), " must have the same shape"));
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

  // Nothing calls the entry computation, and no computation calls itself,
  // directly or through others (XLA's call graph is a DAG rooted at the
  // entry). A cycle is reported once, at the call that closes it.
  void VerifyCallGraph() {
    const Computation* entry = module_.entry();
    absl::flat_hash_map<const Computation*, int> color;  // 1 open, 2 done
    std::vector<std::string_view> path;
    // A computation an async-start wraps belongs to that op alone (XLA:
    // "called by more than one async op").
    absl::flat_hash_map<const Computation*, const Instruction*> async_caller;
    std::function<void(const Computation*)> visit = [&](const Computation* c) {
      color[c] = 1;
      path.push_back(c->name());
      for (const auto& inst : c->instructions()) {
        for (const Computation* callee : inst->called_computations()) {
          if (!callee) continue;
          if (inst->opcode() == Opcode::kAsyncStart) {
            auto [it, first] = async_caller.emplace(callee, inst.get());
            if (!first) {
              ReportInst(*inst, StrCat("wraps computation '", callee->name(),
                                       "', which async-start '", it->second->name(),
                                       "' wraps too: an async op's computation is its own"));
            }
          }
          if (callee == entry) {
            ReportInst(*inst, StrCat("calls the entry computation '", callee->name(),
                                     "', which nothing may call"));
            continue;
          }
          int state = color[callee];
          if (state == 1) {
            std::string cycle;
            auto it = std::find(path.begin(), path.end(), callee->name());
            for (; it != path.end(); ++it) StrAppend(&cycle, "'", *it, "' -> ");
            StrAppend(&cycle, "'", callee->name(), "'");
            ReportInst(*inst, StrCat("calls computation '", callee->name(), "' recursively (",
                                     cycle, "); calls must not form a cycle"));
          } else if (state == 0) {
            visit(callee);
          }
        }
      }
      path.pop_back();
      color[c] = 2;
    };
    if (entry) visit(entry);
    for (const auto& c : module_.computations()) {
      if (color[c.get()] == 0) visit(c.get());
    }
  }

  void VerifyEntryLayout() {
    const Computation* entry = module_.entry();
    const Shape* result = module_.entry_result_layout();
    if (!entry || !result) return;
    const auto& params = module_.entry_parameter_layouts();
    if (static_cast<int64_t>(params.size()) != entry->parameter_count()) {
      Report(entry->loc(), "",
             StrCat("entry_computation_layout lists ", params.size(),
                    " parameters but the entry computation has ", entry->parameter_count()));
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
      ReportInst(*entry->root(),
                 StrCat("entry_computation_layout gives the result shape ", result->ToString(false),
                        " but the root has ", entry->root()->shape().ToString(false)));
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

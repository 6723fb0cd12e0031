// merge-computations: a computation that is a copy of an earlier one (the
// same instructions in the same order, names aside) goes, and what called
// it calls the earlier one. XLA's dumps hold many such copies (a fused
// computation, reducer or comparator per use); sharing one is the reverse
// of inlining that shrinks a module. The entry is never merged away.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/attribute.h"
#include "ir/strings.h"
#include "reduce/delta.h"

namespace hlo::reduce {
namespace {

// What makes two computations copies of each other: per instruction in
// order, the opcode, shape, operands (by position), literal and attributes
// (computations by name: copies call the same ones once those are merged).
std::string Signature(const Computation& comp) {
  absl::flat_hash_map<const Instruction*, size_t> position;
  std::string sig;
  for (const auto& owned : comp.instructions()) {
    const Instruction& inst = *owned;
    position[&inst] = position.size();
    StrAppend(&sig, OpcodeName(inst.opcode()), " ", inst.shape().ToString());
    if (inst.has_wrapped_opcode()) StrAppend(&sig, " ", OpcodeName(inst.wrapped_opcode()));
    if (inst.opcode() == Opcode::kParameter) StrAppend(&sig, " ", inst.parameter_number());
    sig += inst.is_root() ? " root (" : " (";
    for (const Instruction* op : inst.operands()) {
      auto it = position.find(op);
      if (it == position.end()) {
        sig += "?,";
      } else {
        StrAppend(&sig, it->second, ",");
      }
    }
    sig += ')';
    if (inst.literal_elided()) sig += " elided";
    if (const Literal* lit = inst.literal()) {
      // A tuple constant's bytes are its elements': such computations stay.
      if (!lit->elements().empty()) return StrCat("#", reinterpret_cast<uintptr_t>(&comp));
      StrAppend(&sig, " ", lit->size_bytes(), ":");
      sig.append(reinterpret_cast<const char*>(lit->data()), lit->size_bytes());
    }
    for (const Attribute& a : inst.attributes()) {
      if (a.kind == AttrKind::kMetadata) continue;
      sig += ' ';
      AppendAttrValue(sig, a, /*percent=*/false);
    }
    sig += '\n';
  }
  return sig;
}

// Every reference to `from` in an attribute of the module now names `to`.
void Redirect(Module& module, const Computation* from, Computation* to) {
  for (const auto& comp : module.computations()) {
    for (const auto& inst : comp->instructions()) {
      std::vector<std::pair<AttrKind, std::vector<Computation*>>> changes;
      for (const Attribute& a : inst->attributes()) {
        auto* v = std::get_if<std::vector<Computation*>>(&a.value);
        if (v == nullptr || std::find(v->begin(), v->end(), from) == v->end()) continue;
        std::vector<Computation*> changed = *v;
        std::replace(changed.begin(), changed.end(), const_cast<Computation*>(from), to);
        changes.emplace_back(a.kind, std::move(changed));
      }
      for (auto& [kind, comps] : changes) inst->SetAttr(kind, std::move(comps));
    }
  }
}

class MergeComputationsDelta : public Delta {
 public:
  void Run(Module& module, TargetSelector& select) override {
    absl::flat_hash_map<std::string, Computation*> first;
    // Callees first: once a callee's copies are merged, their callers'
    // signatures agree.
    for (Computation* comp : module.PostOrder()) {
      if (comp == module.entry()) continue;
      auto [it, inserted] = first.emplace(Signature(*comp), comp);
      if (inserted || !select.Pick()) continue;
      Redirect(module, comp, it->second);
    }
  }
};

}  // namespace

std::unique_ptr<Delta> CreateMergeComputationsDelta() {
  return std::make_unique<MergeComputationsDelta>();
}

}  // namespace hlo::reduce

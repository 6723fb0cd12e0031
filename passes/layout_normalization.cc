// layout-normalization: rewrites the module so every shape has the default
// (descending) layout, as XLA's LayoutNormalization, without changing what
// the module computes.
//
// Values are logical arrays whatever their layout: a layout only says where
// elements live in memory. The one op whose result depends on layouts is
// bitcast (it reinterprets memory), so each bitcast between layouts becomes
// the data movement it stands for, on default layouts:
//   transpose(operand -> its physical order), reshape (or a default-layout
//   bitcast when element types differ), transpose(physical -> logical),
// each step left out when it is the identity. Every other shape, including
// tuple elements, the entry computation layout and shapes inside attributes
// (operand_layout_constraints, outfeed_shape), simply takes the default
// layout. Copies between layouts become copies of equal layouts (removing
// them is algsimp's job). Bitcasts whose layouts pack elements
// (element_size_in_bits) are left as they are.
//
// Linear: one walk over each computation.
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "passes/layout_assignment_util.h"
#include "passes/passes.h"

namespace hlo {
namespace {

class Normalizer {
 public:
  explicit Normalizer(Module& module) : module_(module) {}

  bool Run() {
    for (const auto& c : module_.computations()) NormalizeComputation(*c);
    NormalizeEntryLayout();
    return changed_;
  }

 private:
  const Shape* Default(const Shape& s) { return WithDefaultLayouts(module_, s); }

  void NormalizeComputation(Computation& comp) {
    std::vector<Instruction*> order = comp.PostOrder();
    // A bitcast's meaning needs its operand's layout from before the rewrite.
    absl::flat_hash_map<const Instruction*, const Shape*> bitcast_operand;
    for (Instruction* inst : order) {
      if (inst->opcode() == Opcode::kBitcast && inst->operand_count() == 1) {
        bitcast_operand[inst] = inst->operand(0)->shape_ptr();
      }
    }
    for (Instruction* inst : order) {
      auto it = bitcast_operand.find(inst);
      if (it != bitcast_operand.end() && RewriteBitcast(comp, *inst, *it->second)) continue;
      SetShape(*inst, Default(inst->shape()));
      NormalizeAttributes(*inst);
    }
    if (dead_.empty()) return;
    // Replaced bitcasts (kept when something still orders after them).
    absl::flat_hash_set<const Instruction*> dead;
    for (const Instruction* b : dead_) {
      if (b->users().empty() && b != comp.root()) dead.insert(b);
    }
    for (const auto& inst : comp.instructions()) {
      for (const Instruction* p : inst->control_predecessors()) dead.erase(p);
    }
    comp.RemoveInstructions(dead);
    dead_.clear();
  }

  void SetShape(Instruction& inst, const Shape* s) {
    if (s != inst.shape_ptr()) {
      inst.set_shape(s);
      changed_ = true;
    }
  }

  void NormalizeAttributes(Instruction& inst) {
    if (const Attribute* a = inst.FindAttr(AttrKind::kOperandLayoutConstraints)) {
      if (const auto* shapes = std::get_if<std::vector<const Shape*>>(&a->value)) {
        std::vector<const Shape*> out;
        for (const Shape* s : *shapes) out.push_back(s ? Default(*s) : nullptr);
        if (out != *shapes) {
          inst.SetAttr(AttrKind::kOperandLayoutConstraints, std::move(out));
          changed_ = true;
        }
      }
    }
    if (const Attribute* a = inst.FindAttr(AttrKind::kOutfeedShape)) {
      if (const auto* shape = std::get_if<const Shape*>(&a->value); shape && *shape) {
        const Shape* d = Default(**shape);
        if (d != *shape) {
          inst.SetAttr(AttrKind::kOutfeedShape, d);
          changed_ = true;
        }
      }
    }
  }

  static bool Packs(const Shape& s) {
    return s.has_layout() && s.layout().element_size_in_bits != 0;
  }

  // Replaces a bitcast between arrays by default-layout data movement; false
  // when it is left alone (non-array, dynamic or packed).
  bool RewriteBitcast(Computation& comp, Instruction& bitcast, const Shape& in) {
    const Shape& out = bitcast.shape();
    if (!in.IsArray() || !out.IsArray() || !in.IsStatic() || !out.IsStatic() || Packs(in) ||
        Packs(out)) {
      return false;
    }
    Instruction* x = bitcast.operand(0);  // already default-layout
    // Physical (major-to-minor) order of each side.
    MinorToMajor in_m2m = MinorToMajorOf(in), out_m2m = MinorToMajorOf(out);
    std::vector<int64_t> in_perm(in_m2m.rbegin(), in_m2m.rend());
    std::vector<int64_t> out_perm(out_m2m.rbegin(), out_m2m.rend());
    if (IsIdentityPermutation(in_perm) && IsIdentityPermutation(out_perm)) {
      // Default layouts both sides already: a row-major reinterpretation.
      SetShape(bitcast, Default(out));
      return true;
    }
    Instruction* v = x;
    if (!IsIdentityPermutation(in_perm)) {
      v = AddTranspose(comp, v, in_perm, Physical(in, in_perm));
    }
    const Shape* out_physical = Physical(out, out_perm);
    if (!v->shape().Compatible(*out_physical)) {
      Opcode op = in.element_type() == out.element_type() ? Opcode::kReshape : Opcode::kBitcast;
      v = AddInstruction(comp, op, out_physical, {v},
                         op == Opcode::kReshape ? "reshape" : "bitcast");
    }
    if (!IsIdentityPermutation(out_perm)) {
      v = AddTranspose(comp, v, InversePermutation(out_perm), Default(out));
    }
    bitcast.ReplaceAllUsesWith(v);
    if (bitcast.control_predecessors().empty()) dead_.push_back(&bitcast);
    changed_ = true;
    return true;
  }

  // `s` with dims permuted to physical order, default layout.
  const Shape* Physical(const Shape& s, absl::Span<const int64_t> major_to_minor) {
    std::vector<int64_t> dims = PermuteDims(s.dims(), major_to_minor);
    return module_.Intern(Shape::Array(s.element_type(), dims).WithDefaultLayout());
  }

  void NormalizeEntryLayout() {
    const Shape* result = module_.entry_result_layout();
    if (!result) return;
    std::vector<const Shape*> params;
    for (const Shape* p : module_.entry_parameter_layouts()) params.push_back(Default(*p));
    const Shape* r = Default(*result);
    if (params != module_.entry_parameter_layouts() || r != result) {
      module_.set_entry_layout(std::move(params), r);
      changed_ = true;
    }
  }

  Module& module_;
  std::vector<const Instruction*> dead_;
  bool changed_ = false;
};

class LayoutNormalization : public Pass {
 public:
  std::string_view name() const override { return "layout-normalization"; }
  std::string_view description() const override {
    return "gives every shape the default layout; bitcasts between layouts become transposes";
  }
  absl::StatusOr<bool> Run(Module& module) override { return Normalizer(module).Run(); }
};

}  // namespace

std::unique_ptr<Pass> CreateLayoutNormalization() {
  return std::make_unique<LayoutNormalization>();
}

}  // namespace hlo

// widen-floats: rewrites the module to compute every real float narrower
// than f64 (f32, bf16, f16, the f8 and f4 types) in f64, and c64 in c128,
// while its inputs and outputs keep their declared types. `hlo-run
// --precision=f64` runs it before evaluating, so the result carries one
// rounding (at the outputs) instead of one per operation: a reference for
// how much rounding error the module's own types bring.
//
// Every instruction of the entry computation and of what it calls takes the
// wide element types (tuples element by element), called computations'
// parameters and roots included, so calls, fusions, reducers, comparators,
// loop bodies and branches stay consistent. Constants convert exactly (every
// narrow value is an f64 value). Converts between float types become
// converts to f64 (no rounding); reduce-precision keeps its exponent and
// mantissa bits, so it still rounds as written. Dots and convolutions lose
// their `algorithm` attribute (it names the narrow types).
//
// Instructions whose meaning depends on the declared type keep it, with
// converts from and to the wide types around them where needed ("opaque"):
// entry parameters, bitcast-convert, bitcast between element types, rng (its
// draws depend on the type), stochastic-convert, custom-calls other than the
// type-generic ones, infeed, outfeed, host-transfer send/recv, and elided
// constants (filled from the seed by their shape). A computation called only
// by such an instruction (a custom call's) keeps its types. The type-generic
// custom calls are widened: TopK and the partitioning annotations as they
// are, XLA:GPU's cuDNN/cuBLAS calls and jaxlib's GPU solver calls as they
// are, jaxlib's LAPACK/BLAS kernels renamed to their double twins
// (lapack_spotrf_ffi -> lapack_dpotrf_ffi, c -> z).
// The entry root converts back to the declared result type, so the entry
// computation's layout is unchanged.
//
// Linear: one walk over each computation; the converts are made once per
// value that needs them.
#include <memory>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ir/computation.h"
#include "ir/interned_string.h"
#include "ir/strings.h"
#include "passes/passes.h"

namespace hlo {
namespace {

bool IsNarrowReal(PrimitiveType t) { return IsFloat(t) && t != PrimitiveType::kF64; }

PrimitiveType WideType(PrimitiveType t) {
  if (IsNarrowReal(t)) return PrimitiveType::kF64;
  if (t == PrimitiveType::kC64) return PrimitiveType::kC128;
  return t;
}

bool HasNarrow(const Shape& s) {
  if (s.IsTuple()) {
    for (const Shape* e : s.tuple_shapes()) {
      if (HasNarrow(*e)) return true;
    }
    return false;
  }
  return s.IsArray() && WideType(s.element_type()) != s.element_type();
}

// Custom-call targets that compute the same thing in any float type: the
// TopK and partitioning annotations as they are, and jaxlib's LAPACK and
// BLAS kernels under the name of their double (s -> d, c -> z), which this
// writes to `renamed` (left empty when the name stays).
bool WidenableCustomCall(std::string_view target, std::string* renamed) {
  renamed->clear();
  if (target == "TopK" || target == "Sharding" || target == "SPMDFullToShardShape" ||
      target == "SPMDShardToFullShape" || target.starts_with("xla.sdy.")) {
    return true;
  }
  // XLA:GPU's library calls and jaxlib's GPU solver calls (eval/gpu/) take
  // their element type from their operands and results.
  if (target.starts_with("__cudnn$conv") || target == "__cudnn$norm" || target == "__cublas$gemm" ||
      target == "__cublas$lt$matmul" || target == "__cublas$triangularSolve" ||
      target.starts_with("cusolver_") || target.starts_with("hipsolver_") ||
      target.starts_with("xla.gpu.ext.cub_") ||
      (target.starts_with("__cudnn$fmha") && !target.ends_with("F8"))) {
    return true;
  }
  for (std::string_view prefix : {"lapack_", "blas_"}) {
    if (!target.starts_with(prefix) || target.size() <= prefix.size() + 1) continue;
    const char letter = target[prefix.size()];
    if (letter != 's' && letter != 'c') return false;
    *renamed = std::string(target);
    (*renamed)[prefix.size()] = letter == 's' ? 'd' : 'z';
    return true;
  }
  return false;
}

// An element's value is the same in the wide type; only the declared type
// matters to these.
bool KeepsDeclaredTypes(const Instruction& inst) {
  switch (inst.opcode()) {
    case Opcode::kParameter:
      return inst.parent()->is_entry();
    case Opcode::kConstant:
      return inst.literal() == nullptr;  // elided: drawn by its shape
    case Opcode::kCustomCall: {
      std::string renamed;
      return !WidenableCustomCall(inst.GetString(AttrKind::kCustomCallTarget), &renamed);
    }
    case Opcode::kBitcastConvert:
    case Opcode::kRng:
    case Opcode::kStochasticConvert:
    case Opcode::kInfeed:
    case Opcode::kOutfeed:
      return true;
    case Opcode::kSend:
    case Opcode::kRecv:
    case Opcode::kSendDone:
    case Opcode::kRecvDone:
      return inst.GetBool(AttrKind::kIsHostTransfer);
    case Opcode::kBitcast:
      return inst.operand_count() == 1 &&
             (!inst.shape().IsArray() || !inst.operand(0)->shape().IsArray() ||
              inst.shape().element_type() != inst.operand(0)->shape().element_type());
    default:
      return false;
  }
}

class Widener {
 public:
  explicit Widener(Module& module) : module_(module) {}

  absl::StatusOr<bool> Run() {
    if (module_.entry() == nullptr) return false;
    if (auto st = ChooseComputations(); !st.ok()) return st;
    for (const auto& c : module_.computations()) {
      if (widen_.contains(c.get())) WidenComputation(*c);
    }
    return changed_;
  }

 private:
  // The computations to widen: the entry and what widened instructions
  // call; what a declared-type instruction calls keeps its types.
  absl::Status ChooseComputations() {
    std::vector<Computation*> work = {module_.entry()};
    widen_.insert(module_.entry());
    std::vector<Computation*> kept_work;
    while (!work.empty()) {
      Computation* c = work.back();
      work.pop_back();
      for (const auto& inst : c->instructions()) {
        if (!inst->may_call_computations()) continue;
        const bool keep = KeepsDeclaredTypes(*inst);
        for (Computation* callee : inst->called_computations()) {
          if (keep) {
            if (kept_.insert(callee).second) kept_work.push_back(callee);
          } else if (widen_.insert(callee).second) {
            work.push_back(callee);
          }
        }
      }
    }
    while (!kept_work.empty()) {
      Computation* c = kept_work.back();
      kept_work.pop_back();
      for (const auto& inst : c->instructions()) {
        if (!inst->may_call_computations()) continue;
        for (Computation* callee : inst->called_computations()) {
          if (kept_.insert(callee).second) kept_work.push_back(callee);
        }
      }
    }
    for (const Computation* c : kept_) {
      if (widen_.contains(c)) {
        return absl::UnimplementedError(
            StrCat("widen-floats: computation '", c->name(),
                   "' is called both by an instruction that keeps its declared types (a custom "
                   "call's) and by one that is widened"));
      }
    }
    return absl::OkStatus();
  }

  const Shape* Wide(const Shape& s) {
    if (!HasNarrow(s)) return module_.Intern(s);
    if (s.IsTuple()) {
      std::vector<const Shape*> elements;
      for (const Shape* e : s.tuple_shapes()) elements.push_back(Wide(*e));
      return module_.Intern(Shape::Tuple(std::move(elements)));
    }
    Shape w = s.WithElementType(WideType(s.element_type()));
    if (w.has_layout() && w.layout().element_size_in_bits != 0) {
      Layout layout = w.layout();
      layout.element_size_in_bits = 0;  // a packed sub-byte layout no longer fits
      w = w.WithLayout(std::move(layout));
    }
    return module_.Intern(w);
  }

  void WidenComputation(Computation& comp) {
    std::vector<Instruction*> order = comp.PostOrder();
    for (Instruction* inst : order) declared_[inst] = inst->shape_ptr();
    for (Instruction* inst : order) {
      if (KeepsDeclaredTypes(*inst)) {
        kept_inst_.insert(inst);
        for (int64_t i = 0; i < inst->operand_count(); ++i) {
          Instruction* op = inst->operand(i);
          Instruction* narrow = Declared(comp, op);
          if (narrow != op) inst->ReplaceOperand(i, narrow);
        }
        continue;
      }
      for (int64_t i = 0; i < inst->operand_count(); ++i) {
        Instruction* op = inst->operand(i);
        Instruction* wide = Widened(comp, op);
        if (wide != op) inst->ReplaceOperand(i, wide);
      }
      WidenInstruction(*inst);
    }
    Instruction* root = comp.root();
    Instruction* new_root = comp.is_entry() ? Declared(comp, root) : Widened(comp, root);
    if (new_root != root) {
      comp.set_root(new_root);
      changed_ = true;
    }
  }

  void WidenInstruction(Instruction& inst) {
    const Shape* wide = Wide(inst.shape());
    if (wide == inst.shape_ptr()) return;
    inst.set_shape(wide);
    changed_ = true;
    if (inst.opcode() == Opcode::kConstant) {
      inst.set_literal(std::make_shared<const Literal>(WidenLiteral(*inst.literal(), *wide)));
    }
    if (inst.opcode() == Opcode::kDot || inst.opcode() == Opcode::kConvolution) {
      inst.RemoveAttr(AttrKind::kAlgorithm);
    }
    if (inst.opcode() == Opcode::kCustomCall) WidenCustomCall(inst);
  }

  void WidenCustomCall(Instruction& inst) {
    std::string renamed;
    WidenableCustomCall(inst.GetString(AttrKind::kCustomCallTarget), &renamed);
    if (!renamed.empty()) inst.SetAttr(AttrKind::kCustomCallTarget, InternedString(renamed));
    const Attribute* a = inst.FindAttr(AttrKind::kOperandLayoutConstraints);
    if (!a) return;
    if (const auto* shapes = std::get_if<std::vector<const Shape*>>(&a->value)) {
      std::vector<const Shape*> wide;
      for (const Shape* s : *shapes) wide.push_back(s ? Wide(*s) : nullptr);
      inst.SetAttr(AttrKind::kOperandLayoutConstraints, std::move(wide));
    }
  }

  static Literal WidenLiteral(const Literal& lit, const Shape& wide) {
    if (lit.IsTuple()) {
      std::vector<Literal> elements;
      for (size_t i = 0; i < lit.elements().size(); ++i) {
        elements.push_back(WidenLiteral(lit.elements()[i], wide.tuple_shape(i)));
      }
      return Literal::Tuple(std::move(elements));
    }
    if (WideType(lit.element_type()) == lit.element_type()) return lit;
    // The same size in elements as the original, so it fits.
    Literal out = *Literal::Create(lit.shape().WithElementType(WideType(lit.element_type())));
    const bool complex = IsComplex(lit.element_type());
    for (int64_t i = 0; i < lit.element_count(); ++i) {
      if (complex) {
        out.SetComplex(i, lit.GetComplex(i));
      } else {
        out.SetDouble(i, lit.GetDouble(i));
      }
    }
    return out;
  }

  // `value` as its widened self (a widened instruction, or converts of one
  // that keeps its declared types).
  Instruction* Widened(Computation& comp, Instruction* value) {
    if (!kept_inst_.contains(value) || !HasNarrow(value->shape())) return value;
    auto [it, inserted] = widened_.try_emplace(value, nullptr);
    if (inserted) it->second = ConvertTree(comp, value, Wide(value->shape()));
    return it->second;
  }

  // `value` with its declared types (converts of a widened instruction).
  Instruction* Declared(Computation& comp, Instruction* value) {
    if (kept_inst_.contains(value) || declared_.at(value) == value->shape_ptr()) return value;
    auto [it, inserted] = declared_value_.try_emplace(value, nullptr);
    if (inserted) it->second = ConvertTree(comp, value, declared_.at(value));
    return it->second;
  }

  // Converts `value` to `target` (the same structure, other float types):
  // a convert per array leaf whose type differs, tuples rebuilt.
  Instruction* ConvertTree(Computation& comp, Instruction* value, const Shape* target) {
    const Shape& from = value->shape();
    if (from.IsTuple()) {
      std::vector<Instruction*> parts;
      for (int64_t i = 0; i < from.tuple_size(); ++i) {
        Instruction* gte = Add(comp, Opcode::kGetTupleElement, from.tuple_shapes()[i], {value});
        gte->SetAttr(AttrKind::kIndex, i);
        parts.push_back(ConvertTree(comp, gte, target->tuple_shapes()[i]));
      }
      return Add(comp, Opcode::kTuple, target, parts);
    }
    if (!from.IsArray() || from.element_type() == target->element_type()) return value;
    return Add(comp, Opcode::kConvert, target, {value});
  }

  Instruction* Add(Computation& comp, Opcode opcode, const Shape* shape,
                   absl::Span<Instruction* const> operands) {
    auto inst =
        std::make_unique<Instruction>(opcode, module_.UniqueName(OpcodeName(opcode)), shape);
    for (Instruction* op : operands) inst->AppendOperand(op);
    changed_ = true;
    return comp.AddInstruction(std::move(inst));
  }

  Module& module_;
  absl::flat_hash_set<const Computation*> widen_, kept_;
  // Instructions that keep their declared types, and each instruction's
  // declared shape.
  absl::flat_hash_set<const Instruction*> kept_inst_;
  absl::flat_hash_map<const Instruction*, const Shape*> declared_;
  absl::flat_hash_map<const Instruction*, Instruction*> widened_, declared_value_;
  bool changed_ = false;
};

class WidenFloats : public Pass {
 public:
  std::string_view name() const override { return "widen-floats"; }
  std::string_view description() const override {
    return "computes every float narrower than f64 in f64 (c64 in c128); inputs and outputs "
           "keep their types";
  }
  absl::StatusOr<bool> Run(Module& module) override { return Widener(module).Run(); }
};

}  // namespace

std::unique_ptr<Pass> CreateWidenFloats() { return std::make_unique<WidenFloats>(); }

}  // namespace hlo

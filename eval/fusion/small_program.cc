#include "eval/fusion/small_program.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <string>
#include <type_traits>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "eval/denormals.h"
#include "eval/interp/batch_program.h"
#include "eval/interp/elementwise_ops.h"
#include "eval/kernels/gather_index.h"
#include "eval/kernels/kernels.h"
#include "eval/kernels/reduce_internal.h"
#include "eval/kernels/strided_axes.h"
#include "eval/runtime/array_recycler.h"
#include "ir/strings.h"

namespace hlo {

// out = f(in...): one op over whole buffers.
struct SmallProgram::Step {
  enum class Kind : uint8_t {
    kRaw,        // raw: a raw elementwise kernel over n elements
    kApply,      // elementwise::Apply on the slots' registers
    kCopy,       // out[i] = in0[i]
    kFill,       // out[i] = in0[0]
    kGather,     // out[i] = in0[base + map[i]]
    kGatherPad,  // out[i] = map[i] < 0 ? in1[0] : in0[map[i]]
    kScatter,    // out[base + map[j]] = in0[j], j < n
    kKernel,     // out = the evaluator's kernel on kernel_calls_[call]
    kReduce,     // out = reduces_[reduce] of in0 from the scalar in1
    kGemm,       // out = gemms_[gemm] of in0 and in1 (EvalDot's gemm call)
  };
  Kind kind = Kind::kCopy;
  int32_t out = -1;
  int32_t in[3] = {-1, -1, -1};
  int32_t arity = 0;
  int64_t n = 0;
  int32_t width = 0;
  // Gather and scatter: the element map (small moves), else strided axes
  // from the element at `offset` (dst for a gather, src for a scatter, the
  // side enumerated in row-major order).
  int32_t map = -1;  // maps_
  StridedAxes axes;
  int64_t offset = 0;
  int32_t dynamic = -1;  // dynamics_: base from start indices, else 0
  // Gather and scatter: the other side's elements are one run from
  // `offset` (a dynamic slice of whole rows): one memmove, no map.
  bool contiguous = false;
  int32_t call = -1;     // kernel_calls_
  int32_t reduce = -1;   // reduces_
  int32_t gemm = -1;     // gemms_
  bool flush = false;    // kApply: XLA:CPU's flush-to-zero applies
  bool bitcast = false;  // kApply: bitcast-convert
  RawStep raw;
  const Instruction* inst = nullptr;
};

// Start indices of a dynamic-slice or dynamic-update-slice.
struct SmallProgram::Dynamic {
  // Per indexed dimension: the integer slot and element holding its start.
  absl::InlinedVector<int32_t, 4> slots;
  absl::InlinedVector<int32_t, 4> elements;
  // Each start as the kernels read it (u64 past INT64_MAX as INT64_MAX).
  absl::InlinedVector<gather_internal::IndexReader, 4> readers;
  absl::InlinedVector<int64_t, 4> limits;  // dim - size: the largest start
  absl::InlinedVector<int64_t, 4> strides;
  // A scatter's window: a start out of [0, limit] skips the move (XLA drops
  // the whole window); else starts are clamped into it.
  bool skip = false;
};

namespace {

using PT = PrimitiveType;
using Dims = absl::InlinedVector<int64_t, 6>;

absl::Status Unsupported(const Instruction& inst, std::string_view why) {
  return absl::UnimplementedError(StrCat("%", inst.name(), ": ", why));
}

// Calls f(coordinates) for every index of `dims` in row-major order.
template <typename F>
void ForEachIndex(absl::Span<const int64_t> dims, F f) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  Dims c(dims.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    f(absl::Span<const int64_t>(c));
    for (size_t k = dims.size(); k-- > 0;) {
      if (++c[k] < dims[k]) break;
      c[k] = 0;
    }
  }
}

bool IndexType(PT t) { return (IsSignedInt(t) || IsUnsignedInt(t)) && BitWidth(t) >= 8; }

// Elements moved as unsigned integers where one fits (loops vectorise).
template <int W>
struct Wide {
  uint8_t b[W];
};
template <int W>
using Bytes = std::conditional_t<
    W == 1, uint8_t,
    std::conditional_t<
        W == 2, uint16_t,
        std::conditional_t<W == 4, uint32_t, std::conditional_t<W == 8, uint64_t, Wide<W>>>>>;

template <int W>
void GatherTyped(uint8_t* out, const uint8_t* in, const int32_t* map, int64_t base, int64_t n) {
  auto* o = reinterpret_cast<Bytes<W>*>(out);
  const auto* s = reinterpret_cast<const Bytes<W>*>(in) + base;
  for (int64_t i = 0; i < n; ++i) o[i] = s[map[i]];
}

template <int W>
void GatherPadTyped(uint8_t* out, const uint8_t* in, const uint8_t* pad, const int32_t* map,
                    int64_t n) {
  auto* o = reinterpret_cast<Bytes<W>*>(out);
  const auto* s = reinterpret_cast<const Bytes<W>*>(in);
  const Bytes<W> p = *reinterpret_cast<const Bytes<W>*>(pad);
  for (int64_t i = 0; i < n; ++i) o[i] = map[i] < 0 ? p : s[map[i]];
}

template <int W>
void ScatterTyped(uint8_t* out, const uint8_t* in, const int32_t* map, int64_t base, int64_t n) {
  auto* o = reinterpret_cast<Bytes<W>*>(out) + base;
  const auto* s = reinterpret_cast<const Bytes<W>*>(in);
  for (int64_t j = 0; j < n; ++j) o[map[j]] = s[j];
}

// Calls f.template operator()<W>() for the element widths the steps move.
template <typename F>
void ByWidth(int32_t width, F f) {
  switch (width) {
    case 1:
      return f.template operator()<1>();
    case 2:
      return f.template operator()<2>();
    case 4:
      return f.template operator()<4>();
    case 8:
      return f.template operator()<8>();
    default:
      return f.template operator()<16>();
  }
}

}  // namespace

class SmallProgram::Compiler {
 public:
  Compiler(SmallProgram& program, bool flush) : p_(program), flush_(flush) {}

  absl::Status Build(const Computation& computation) {
    // Inputs: each array parameter, each element of a tuple parameter.
    for (int64_t p = 0; p < computation.parameter_count(); ++p) {
      const Shape& shape = computation.parameter(p)->shape();
      input_base_.push_back(static_cast<int64_t>(p_.input_slots_.size()));
      const size_t leaves = shape.IsTuple() ? shape.tuple_shapes().size() : 1;
      for (size_t k = 0; k < leaves; ++k) {
        const Shape& leaf = shape.IsTuple() ? *shape.tuple_shapes()[k] : shape;
        p_.input_slots_.push_back(-1);
        input_shapes_.push_back(&leaf);
        input_in_tuple_.push_back(shape.IsTuple());
        p_.input_types_.push_back(leaf.IsArray() ? leaf.element_type() : PT::kPred);
        p_.input_elements_.push_back(leaf.IsArray() && leaf.IsStatic() ? leaf.ElementCount() : 0);
      }
    }
    p_.input_copied_.assign(p_.input_slots_.size(), false);
    absl::StatusOr<std::vector<int32_t>> results = LowerComputation(computation, nullptr, {}, 0);
    if (!results.ok()) return results.status();
    p_.result_slots_ = *std::move(results);
    return Finish();
  }

 private:
  // Calls nest at most this deep (JAX's jit-wrapped helpers call others).
  static constexpr int kMaxDepth = 8;

  // The slots of `computation`'s root (at the top, a tuple root's
  // elements), its instructions lowered in post order. A called
  // computation (`call` not null) has its parameters bound to `args`, the
  // call's operands.
  absl::StatusOr<std::vector<int32_t>> LowerComputation(const Computation& computation,
                                                        const Instruction* call,
                                                        absl::Span<const int32_t> args, int depth) {
    const Instruction& root = *computation.root();
    for (const Instruction* inst : computation.PostOrder()) {
      if (inst == &root && root.opcode() == Opcode::kTuple) break;
      const size_t first_step = p_.steps_.size();
      absl::StatusOr<int32_t> slot = inst->opcode() == Opcode::kParameter && call != nullptr
                                         ? BindParameter(*inst, *call, args)
                                         : Lower(*inst, depth);
      if (!slot.ok()) return slot.status();
      slot_of_[inst] = *slot;
      if (*slot < 0) continue;  // a tuple: its elements' slots were folded
      if (absl::Status st = FoldConstant(*inst, *slot, first_step); !st.ok()) return st;
    }
    std::vector<int32_t> results;
    if (root.opcode() == Opcode::kTuple) {
      for (const Instruction* op : root.operands()) {
        auto it = slot_of_.find(op);
        if (it == slot_of_.end() || it->second < 0) return Unsupported(root, "a nested tuple");
        results.push_back(it->second);
      }
    } else {
      const int32_t slot = slot_of_.at(&root);
      if (slot < 0) return Unsupported(root, "a tuple");
      results.push_back(slot);
    }
    return results;
  }

  // A called computation's parameter: the slot of the call's operand.
  absl::StatusOr<int32_t> BindParameter(const Instruction& param, const Instruction& call,
                                        absl::Span<const int32_t> args) {
    const int64_t p = param.parameter_number();
    if (p < 0 || p >= static_cast<int64_t>(args.size())) {
      return Unsupported(param, "no argument for this parameter");
    }
    const Shape& want = param.shape();
    const Shape& have = call.operand(p)->shape();
    if (!StaticArray(want) || want.element_type() != have.element_type() ||
        !(want.dims() == have.dims())) {
      return Unsupported(param, "an argument of another shape");
    }
    return args[p];
  }

  // A call or fusion inside the program: its computation's steps, inline.
  absl::StatusOr<int32_t> LowerCall(const Instruction& inst, int depth) {
    const Computation* callee = inst.to_apply();
    if (callee == nullptr || IsSdyManualComputationCall(inst)) {
      return Unsupported(inst, "a call not inlined");
    }
    absl::StatusOr<std::vector<int32_t>> r = LowerCalled(inst, *callee, inst.shape(), depth);
    if (!r.ok()) return r.status();
    return (*r)[0];
  }

  // A fusion of several results (XLA's multi-output fusions): its
  // computation's steps inline; get-tuple-element reads the root tuple's
  // elements.
  absl::StatusOr<int32_t> LowerTupleCall(const Instruction& inst, int depth) {
    const Computation* callee = inst.to_apply();
    if (callee == nullptr || callee->root()->opcode() != Opcode::kTuple) {
      return Unsupported(inst, "a tuple not made by its computation's root tuple");
    }
    absl::StatusOr<std::vector<int32_t>> r = LowerCalled(inst, *callee, inst.shape(), depth);
    if (!r.ok()) return r.status();
    tuple_leaves_[&inst] = *std::move(r);
    return kTupleParameter;
  }

  // fusion-start (an async-start wrapping a fusion): the fusion's steps
  // inline, its result kept for the fusion-done; the start's own tuple
  // (operands, result, context) is never read by anything else here.
  absl::StatusOr<int32_t> LowerFusionStart(const Instruction& inst, int depth) {
    const Computation* callee = inst.to_apply();
    const Shape& s = inst.shape();
    if (callee == nullptr || !s.IsTuple() || s.tuple_size() < 2) {
      return Unsupported(inst, "an async fusion without its computation");
    }
    absl::StatusOr<std::vector<int32_t>> r = LowerCalled(inst, *callee, s.tuple_shape(1), depth);
    if (!r.ok()) return r.status();
    async_results_[&inst] = *std::move(r);
    return kTupleParameter;
  }

  // fusion-done: its fusion-start's result.
  absl::StatusOr<int32_t> LowerFusionDone(const Instruction& inst) {
    auto it =
        inst.operand_count() == 1 ? async_results_.find(inst.operand(0)) : async_results_.end();
    if (it == async_results_.end()) return Unsupported(inst, "a done of no fusion-start here");
    if (!inst.shape().IsTuple()) return it->second[0];
    tuple_leaves_[&inst] = it->second;
    return kTupleParameter;
  }

  // The slots of `callee`'s result (an array, or a tuple's elements) with its
  // parameters bound to `inst`'s operands, checked against `result`.
  absl::StatusOr<std::vector<int32_t>> LowerCalled(const Instruction& inst,
                                                   const Computation& callee, const Shape& result,
                                                   int depth) {
    absl::StatusOr<absl::InlinedVector<int32_t, 4>> ins = OperandSlots(inst);
    if (!ins.ok()) return ins.status();
    if (depth >= kMaxDepth || callee.parameter_count() != static_cast<int64_t>(ins->size())) {
      return Unsupported(inst, "a call not inlined");
    }
    const Shape& root = callee.root()->shape();
    const size_t leaves = result.IsTuple() ? result.tuple_shapes().size() : 1;
    if (root.IsTuple() != result.IsTuple() ||
        (root.IsTuple() && root.tuple_shapes().size() != leaves)) {
      return Unsupported(inst, "a call of another shape");
    }
    for (size_t k = 0; k < leaves; ++k) {
      const Shape& want = result.IsTuple() ? *result.tuple_shapes()[k] : result;
      const Shape& have = root.IsTuple() ? *root.tuple_shapes()[k] : root;
      if (!StaticArray(want) || !StaticArray(have) || want.element_type() != have.element_type() ||
          !(want.dims() == have.dims())) {
        return Unsupported(inst, "a call of another shape");
      }
    }
    return LowerComputation(callee, &inst, *ins, depth + 1);
  }

  // The slots of `inst`'s operands, each a static array in the program.
  absl::StatusOr<absl::InlinedVector<int32_t, 4>> OperandSlots(const Instruction& inst) {
    absl::InlinedVector<int32_t, 4> ins;
    for (const Instruction* op : inst.operands()) {
      // Maps hold 32-bit element offsets.
      if (!StaticArray(op->shape()) || op->shape().ElementCount() > INT32_MAX) {
        return Unsupported(inst, "an operand too large");
      }
      auto it = slot_of_.find(op);
      if (it == slot_of_.end()) return Unsupported(inst, "an operand outside the program");
      ins.push_back(it->second);
    }
    return ins;
  }

  static bool WrapsFusion(const Instruction& inst, Opcode opcode) {
    return inst.opcode() == opcode && inst.has_wrapped_opcode() &&
           inst.wrapped_opcode() == Opcode::kFusion;
  }

  bool StaticArray(const Shape& s) const { return s.IsArray() && s.IsStatic(); }

  absl::StatusOr<int32_t> NewSlot(const Instruction& inst, bool buffer) {
    return NewSlot(inst, inst.shape(), buffer);
  }
  absl::StatusOr<int32_t> NewSlot(const Instruction& inst, const Shape& s, bool buffer) {
    const int64_t n = s.ElementCount();
    const int64_t bytes = n * ByteWidth(s.element_type());
    if (buffer && bytes > kMaxValueBytes) return Unsupported(inst, "a large value");
    Slot slot;
    slot.type = s.element_type();
    slot.elements = n;
    slot.width = ByteWidth(slot.type);
    if (slot.width != 1 && slot.width != 2 && slot.width != 4 && slot.width != 8 &&
        slot.width != 16) {
      return Unsupported(inst, "an element width the steps do not move");
    }
    p_.slots_.push_back(slot);
    p_.registers_.emplace_back();
    constant_.push_back(false);
    fill_of_.push_back(-1);
    if (buffer) {
      bytes_ += bytes;
      if (bytes_ > kMaxProgramBytes) return Unsupported(inst, "values too large together");
      absl::StatusOr<Literal> reg = Literal::Create(Shape::Array(slot.type, {n}));
      if (!reg.ok()) return reg.status();
      p_.registers_.back() = *std::move(reg);
    }
    // (A vector's heap buffer stays where it is when the vector moves.)
    p_.home_.push_back(p_.registers_.back().size_bytes() > 0 ? p_.registers_.back().data()
                                                             : nullptr);
    return static_cast<int32_t>(p_.slots_.size() - 1);
  }

  const Slot& SlotOf(int32_t s) const { return p_.slots_[s]; }

  // A step of `kind` that makes all of slot `out` from the slots `ins`.
  Step StepInto(Step::Kind kind, int32_t out, std::initializer_list<int32_t> ins) const {
    Step step;
    step.kind = kind;
    step.out = out;
    step.arity = static_cast<int32_t>(ins.size());
    std::copy(ins.begin(), ins.end(), step.in);
    step.n = SlotOf(out).elements;
    step.width = SlotOf(out).width;
    return step;
  }

  int32_t AddMap(std::vector<int32_t> map) {
    p_.maps_.push_back(std::move(map));
    return static_cast<int32_t>(p_.maps_.size() - 1);
  }

  void AddStep(const Step& step) { p_.steps_.push_back(step); }

  absl::StatusOr<int32_t> Lower(const Instruction& inst, int depth) {
    if (inst.opcode() == Opcode::kParameter) return LowerParameter(inst);
    if (inst.opcode() == Opcode::kGetTupleElement && inst.operand_count() == 1) {
      return LowerElement(inst);
    }
    if (WrapsFusion(inst, Opcode::kAsyncStart)) return LowerFusionStart(inst, depth);
    if (WrapsFusion(inst, Opcode::kAsyncDone)) return LowerFusionDone(inst);
    if (inst.opcode() == Opcode::kFusion && inst.shape().IsTuple()) {
      return LowerTupleCall(inst, depth);
    }
    if (!StaticArray(inst.shape())) return Unsupported(inst, "not a static array");
    absl::StatusOr<absl::InlinedVector<int32_t, 4>> operand_slots = OperandSlots(inst);
    if (!operand_slots.ok()) return operand_slots.status();
    const absl::InlinedVector<int32_t, 4>& ins = *operand_slots;
    const Shape& shape = inst.shape();
    const Opcode opcode = inst.opcode();
    if (ins.empty() && opcode != Opcode::kParameter && opcode != Opcode::kConstant &&
        opcode != Opcode::kIota) {
      return Unsupported(inst, "no operands");
    }
    switch (opcode) {
      case Opcode::kConstant:
        return LowerConstant(inst);
      case Opcode::kIota:
        return LowerIota(inst);
      case Opcode::kBitcast:
      case Opcode::kReshape:
      case Opcode::kCopy: {
        // The same row-major bytes: the operand's slot stands for it.
        const Shape& from = inst.operand(0)->shape();
        const bool same = from.element_type() == shape.element_type() &&
                          from.ElementCount() == shape.ElementCount();
        const bool bytes_kept = inst.opcode() == Opcode::kReshape ||
                                (inst.opcode() == Opcode::kCopy && from.dims() == shape.dims()) ||
                                (inst.opcode() == Opcode::kBitcast && RowMajorOrNoLayout(from) &&
                                 RowMajorOrNoLayout(shape));
        if (ins.size() != 1 || !same || !bytes_kept) return Unsupported(inst, "moves elements");
        return ins[0];
      }
      case Opcode::kBroadcast:
        return LowerBroadcast(inst, ins);
      case Opcode::kSlice:
      case Opcode::kTranspose:
      case Opcode::kReverse:
        return LowerPermute(inst, ins);
      case Opcode::kConcatenate:
        return LowerConcatenate(inst, ins);
      case Opcode::kPad:
        return LowerPad(inst, ins);
      case Opcode::kDynamicSlice:
      case Opcode::kDynamicUpdateSlice:
        return LowerDynamic(inst, ins);
      case Opcode::kCall:
      case Opcode::kFusion:
        return LowerCall(inst, depth);
      case Opcode::kReduce:
        if (std::optional<reduction::RawReduce> plan = reduction::RawReduceOf(inst)) {
          return LowerReduce(inst, ins, *std::move(plan));
        }
        return LowerKernel(inst, ins);
      case Opcode::kDot:
        if (ins.size() == 2) {
          if (std::optional<PlannedGemm> plan =
                  PlanDirectGemm(inst, inst.operand(0)->shape(), inst.operand(1)->shape())) {
            return LowerGemm(inst, ins, *plan);
          }
        }
        return LowerKernel(inst, ins);
      case Opcode::kScatter: {
        absl::StatusOr<int32_t> native = LowerScatter(inst, ins);
        if (native.ok() || native.status().code() != absl::StatusCode::kUnimplemented) {
          return native;
        }
        return LowerKernel(inst, ins);
      }
      default:
        if (IsElementwise(inst.opcode())) {
          absl::StatusOr<int32_t> native = LowerElementwise(inst, ins);
          if (native.ok() || native.status().code() != absl::StatusCode::kUnimplemented) {
            return native;
          }
        }
        return LowerKernel(inst, ins);
    }
  }

  // A parameter's input slot; a tuple parameter's elements get theirs (its
  // get-tuple-elements read them) and it has none itself.
  absl::StatusOr<int32_t> LowerParameter(const Instruction& inst) {
    const int64_t p = inst.parameter_number();
    if (p < 0 || p >= static_cast<int64_t>(input_base_.size())) {
      return Unsupported(inst, "no argument for this parameter");
    }
    const Shape& shape = inst.shape();
    const size_t leaves = shape.IsTuple() ? shape.tuple_shapes().size() : 1;
    std::vector<int32_t> slots;
    for (size_t k = 0; k < leaves; ++k) {
      const Shape& leaf = shape.IsTuple() ? *shape.tuple_shapes()[k] : shape;
      if (!StaticArray(leaf)) return Unsupported(inst, "a parameter not of static arrays");
      absl::StatusOr<int32_t> s = NewSlot(inst, leaf, /*buffer=*/false);
      if (!s.ok()) return s;
      const int64_t input = input_base_[p] + static_cast<int64_t>(k);
      p_.slots_[*s].parameter = static_cast<int32_t>(input);
      p_.input_slots_[input] = *s;
      slots.push_back(*s);
    }
    if (!shape.IsTuple()) return slots[0];
    tuple_leaves_[&inst] = std::move(slots);
    return kTupleParameter;
  }

  // get-tuple-element of a tuple parameter: its element's slot.
  absl::StatusOr<int32_t> LowerElement(const Instruction& inst) {
    auto it = tuple_leaves_.find(inst.operand(0));
    const int64_t index = inst.GetInt(AttrKind::kIndex, -1);
    if (it == tuple_leaves_.end() || index < 0 ||
        index >= static_cast<int64_t>(it->second.size())) {
      return Unsupported(inst, "an element of a tuple other than a parameter");
    }
    const Shape& leaf = *inst.operand(0)->shape().tuple_shapes()[index];
    if (!StaticArray(inst.shape()) || inst.shape().element_type() != leaf.element_type() ||
        !(inst.shape().dims() == leaf.dims())) {
      return Unsupported(inst, "an element of another shape");
    }
    return it->second[index];
  }

  absl::StatusOr<int32_t> LowerConstant(const Instruction& inst) {
    const Literal* lit = inst.literal();
    if (lit == nullptr || lit->element_type() != inst.shape().element_type() ||
        lit->element_count() != inst.shape().ElementCount()) {
      return Unsupported(inst, "a constant of another shape");
    }
    absl::StatusOr<int32_t> s = NewSlot(inst, true);
    if (!s.ok()) return s;
    Literal& reg = p_.registers_[*s];
    if (reg.size_bytes() != lit->size_bytes()) return Unsupported(inst, "constant storage");
    if (reg.size_bytes() > 0) std::memcpy(reg.data(), lit->data(), reg.size_bytes());
    return s;
  }

  absl::StatusOr<int32_t> LowerIota(const Instruction& inst) {
    const Shape& shape = inst.shape();
    const int64_t d = inst.GetInt(AttrKind::kIotaDimension, -1);
    if (inst.operand_count() != 0 || d < 0 || d >= shape.rank()) {
      return Unsupported(inst, "an iota dimension out of range");
    }
    absl::StatusOr<Literal> line = IotaLine(shape.element_type(), shape.dim(d));
    if (!line.ok()) return line.status();
    absl::StatusOr<int32_t> s = NewSlot(inst, true);
    if (!s.ok()) return s;
    uint8_t* out = p_.registers_[*s].data();
    const int32_t w = SlotOf(*s).width;
    int64_t i = 0;
    ForEachIndex(shape.dims(), [&](absl::Span<const int64_t> c) {
      std::memcpy(out + (i++) * w, line->data() + c[d] * w, w);
    });
    return s;
  }

  absl::StatusOr<int32_t> LowerBroadcast(const Instruction& inst, absl::Span<const int32_t> ins) {
    const Shape& shape = inst.shape();
    const Shape& from = inst.operand(0)->shape();
    absl::Span<const int64_t> dims = inst.GetInts(AttrKind::kDimensions);
    if (ins.size() != 1 || from.element_type() != shape.element_type() ||
        static_cast<int64_t>(dims.size()) != from.rank()) {
      return Unsupported(inst, "not a broadcast of its operand");
    }
    Dims src(shape.rank(), 0);
    Dims from_strides = gather_internal::RowMajorStrides(from.dims());
    absl::InlinedVector<bool, 6> used(shape.rank(), false);
    for (int64_t k = 0; k < from.rank(); ++k) {
      const int64_t d = dims[k];
      if (d < 0 || d >= shape.rank() || used[d] ||
          (from.dim(k) != shape.dim(d) && from.dim(k) != 1)) {
        return Unsupported(inst, "broadcast dimensions");
      }
      used[d] = true;
      if (from.dim(k) != 1) src[d] = from_strides[k];
    }
    absl::StatusOr<int32_t> s = NewSlot(inst, true);
    if (!s.ok()) return s;
    const bool fill = from.ElementCount() == 1;
    Step step = StepInto(fill ? Step::Kind::kFill : Step::Kind::kGather, *s, {ins[0]});
    if (!fill) SetMove(step, shape.dims(), src, 0);
    if (step.n > 0 && from.ElementCount() > 0) {
      AddStep(step);
      if (fill) fill_of_[*s] = ins[0];
    }
    return s;
  }

  // Moves of at most this many elements go through an element map (a
  // strided copy's setup costs more than such a loop); larger ones through
  // the data-movement kernels' strided copy (memcpy runs, fills, tiles).
  static constexpr int64_t kMapElements = 256;

  // A gather's or scatter's move: the side it enumerates in row-major order
  // has `dims`; the other reads or writes offset + sum c[d] * strides[d].
  void SetMove(Step& step, absl::Span<const int64_t> dims, absl::Span<const int64_t> strides,
               int64_t offset) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    if (n <= kMapElements) {
      std::vector<int32_t> map = MapOf(dims, strides, offset);
      bool run = true;
      for (size_t i = 1; run && i < map.size(); ++i)
        run = map[i] == map[0] + static_cast<int32_t>(i);
      if (run && !map.empty()) {
        step.contiguous = true;
        step.offset = map[0];
        return;
      }
      step.map = AddMap(std::move(map));
      return;
    }
    const Dims rows = gather_internal::RowMajorStrides(dims);
    const bool gather = step.kind == Step::Kind::kGather;
    for (size_t k = 0; k < dims.size(); ++k) {
      step.axes.push_back(gather ? StridedAxis{dims[k], rows[k], strides[k]}
                                 : StridedAxis{dims[k], strides[k], rows[k]});
    }
    MergeContiguousAxes(step.axes);
    step.offset = offset;
  }

  // map[i] = offset + sum c[d] * strides[d] over the row-major indices of dims.
  static std::vector<int32_t> MapOf(absl::Span<const int64_t> dims,
                                    absl::Span<const int64_t> strides, int64_t offset) {
    std::vector<int32_t> map;
    ForEachIndex(dims, [&](absl::Span<const int64_t> c) {
      int64_t at = offset;
      for (size_t k = 0; k < c.size(); ++k) at += c[k] * strides[k];
      map.push_back(static_cast<int32_t>(at));
    });
    return map;
  }

  // slice, transpose, reverse: a gather through a map made once.
  absl::StatusOr<int32_t> LowerPermute(const Instruction& inst, absl::Span<const int32_t> ins) {
    const Shape& shape = inst.shape();
    const Shape& from = inst.operand(0)->shape();
    const int64_t rank = from.rank();
    if (ins.size() != 1 || from.element_type() != shape.element_type() || shape.rank() != rank) {
      return Unsupported(inst, "not a rearrangement of its operand");
    }
    Dims from_strides = gather_internal::RowMajorStrides(from.dims());
    Dims strides(rank, 0);
    int64_t offset = 0;
    if (inst.opcode() == Opcode::kSlice) {
      const SliceSpec* spec = inst.slice();
      if (spec == nullptr || static_cast<int64_t>(spec->size()) != rank) {
        return Unsupported(inst, "slice spec");
      }
      for (int64_t d = 0; d < rank; ++d) {
        const SliceDim& sd = (*spec)[d];
        if (sd.start < 0 || sd.limit < sd.start || sd.limit > from.dim(d) || sd.stride < 1 ||
            shape.dim(d) != (sd.limit - sd.start + sd.stride - 1) / sd.stride) {
          return Unsupported(inst, "slice bounds");
        }
        offset += sd.start * from_strides[d];
        strides[d] = sd.stride * from_strides[d];
      }
    } else if (inst.opcode() == Opcode::kTranspose) {
      absl::Span<const int64_t> perm = inst.GetInts(AttrKind::kDimensions);
      absl::InlinedVector<bool, 6> seen(rank, false);
      if (static_cast<int64_t>(perm.size()) != rank) return Unsupported(inst, "permutation");
      for (int64_t d = 0; d < rank; ++d) {
        const int64_t q = perm[d];
        if (q < 0 || q >= rank || seen[q] || shape.dim(d) != from.dim(q)) {
          return Unsupported(inst, "permutation");
        }
        seen[q] = true;
        strides[d] = from_strides[q];
      }
    } else {  // reverse
      if (!(shape.dims() == from.dims())) return Unsupported(inst, "reverse dims");
      for (int64_t d = 0; d < rank; ++d) strides[d] = from_strides[d];
      absl::InlinedVector<bool, 6> seen(rank, false);
      for (int64_t d : inst.GetInts(AttrKind::kDimensions)) {
        if (d < 0 || d >= rank || seen[d]) return Unsupported(inst, "reverse dimensions");
        seen[d] = true;
        offset += (from.dim(d) - 1) * from_strides[d];
        strides[d] = -from_strides[d];
      }
    }
    absl::StatusOr<int32_t> s = NewSlot(inst, true);
    if (!s.ok()) return s;
    Step step = StepInto(Step::Kind::kGather, *s, {ins[0]});
    SetMove(step, shape.dims(), strides, offset);
    if (step.n > 0) AddStep(step);
    return s;
  }

  absl::StatusOr<int32_t> LowerConcatenate(const Instruction& inst, absl::Span<const int32_t> ins) {
    const Shape& shape = inst.shape();
    absl::Span<const int64_t> attr = inst.GetInts(AttrKind::kDimensions);
    const int64_t rank = shape.rank();
    if (ins.empty() || attr.size() != 1 || attr[0] < 0 || attr[0] >= rank) {
      return Unsupported(inst, "concatenate dimension");
    }
    const int64_t dim = attr[0];
    Dims out_strides = gather_internal::RowMajorStrides(shape.dims());
    int64_t at = 0;
    std::vector<Step> steps;
    for (size_t k = 0; k < ins.size(); ++k) {
      const Shape& from = inst.operand(k)->shape();
      bool fits = from.rank() == rank && from.element_type() == shape.element_type();
      for (int64_t d = 0; fits && d < rank; ++d) fits = d == dim || from.dim(d) == shape.dim(d);
      if (!fits) return Unsupported(inst, "concatenate operands");
      Step step;
      step.kind = Step::Kind::kScatter;
      step.in[0] = ins[k];
      step.arity = 1;
      step.n = from.ElementCount();
      step.width = ByteWidth(shape.element_type());
      SetMove(step, from.dims(), out_strides, at * out_strides[dim]);
      if (step.n > 0) steps.push_back(step);
      at += from.dim(dim);
    }
    if (at != shape.dim(dim)) return Unsupported(inst, "concatenate size");
    absl::StatusOr<int32_t> s = NewSlot(inst, true);
    if (!s.ok()) return s;
    for (Step& step : steps) {
      step.out = *s;
      AddStep(step);
    }
    return s;
  }

  absl::StatusOr<int32_t> LowerPad(const Instruction& inst, absl::Span<const int32_t> ins) {
    const Shape& shape = inst.shape();
    const Shape& from = inst.operand(0)->shape();
    const PaddingConfig* config = inst.padding();
    const int64_t rank = from.rank();
    if (ins.size() != 2 || inst.operand(1)->shape().rank() != 0 ||
        inst.operand(1)->shape().element_type() != shape.element_type() ||
        from.element_type() != shape.element_type() || shape.rank() != rank || config == nullptr ||
        static_cast<int64_t>(config->size()) != rank) {
      return Unsupported(inst, "pad operands");
    }
    for (int64_t d = 0; d < rank; ++d) {
      const PaddingDim& pd = (*config)[d];
      const int64_t n = from.dim(d);
      if (pd.interior < 0 || pd.interior > kMaxValueBytes || std::abs(pd.low) > kMaxValueBytes ||
          std::abs(pd.high) > kMaxValueBytes ||
          shape.dim(d) != n + pd.low + pd.high + std::max<int64_t>(n - 1, 0) * pd.interior) {
        return Unsupported(inst, "pad sizes");
      }
    }
    if (std::all_of(config->begin(), config->end(), [](const PaddingDim& pd) {
          return pd.interior == 0 && pd.low >= 0 && pd.high >= 0;
        })) {
      return LowerPlainPad(inst, ins);
    }
    // Result position c reads operand element k along d where
    // c = low + k * (interior + 1); other positions read the pad value.
    Dims from_strides = gather_internal::RowMajorStrides(from.dims());
    std::vector<int32_t> map;
    ForEachIndex(shape.dims(), [&](absl::Span<const int64_t> c) {
      int64_t at = 0;
      for (int64_t d = 0; d < rank && at >= 0; ++d) {
        const PaddingDim& pd = (*config)[d];
        const int64_t q = c[d] - pd.low, step = pd.interior + 1;
        if (q < 0 || q % step != 0 || q / step >= from.dim(d)) {
          at = -1;
        } else {
          at += q / step * from_strides[d];
        }
      }
      map.push_back(static_cast<int32_t>(at));
    });
    absl::StatusOr<int32_t> s = NewSlot(inst, true);
    if (!s.ok()) return s;
    Step step = StepInto(Step::Kind::kGatherPad, *s, {ins[0], ins[1]});
    step.map = AddMap(std::move(map));
    if (step.n > 0) AddStep(step);
    return s;
  }

  // A pad that only widens (no interior padding, no cropping): the pad value
  // filled, then the operand moved into place as a scatter (its rows as
  // runs, where an element map took a load and a test per element: XLA's
  // scans pad [64,33] to [64,48]: 1.8 us a fusion that way, now 0.5).
  absl::StatusOr<int32_t> LowerPlainPad(const Instruction& inst, absl::Span<const int32_t> ins) {
    const Shape& shape = inst.shape();
    const Shape& from = inst.operand(0)->shape();
    absl::StatusOr<int32_t> s = NewSlot(inst, true);
    if (!s.ok()) return s;
    const int64_t n = SlotOf(*s).elements;
    if (n == 0) return s;
    Step fill;
    fill.kind = Step::Kind::kFill;
    fill.out = *s;
    fill.in[0] = ins[1];
    fill.arity = 1;
    fill.n = n;
    fill.width = SlotOf(*s).width;
    AddStep(fill);
    const Dims strides = gather_internal::RowMajorStrides(shape.dims());
    int64_t offset = 0;
    for (int64_t d = 0; d < from.rank(); ++d) offset += (*inst.padding())[d].low * strides[d];
    Step move;
    move.kind = Step::Kind::kScatter;
    move.out = *s;
    move.in[0] = ins[0];
    move.arity = 1;
    move.width = fill.width;
    move.n = from.ElementCount();
    SetMove(move, from.dims(), strides, offset);
    if (move.n > 0) AddStep(move);
    return s;
  }

  // dynamic-slice: a gather from the clamped start; dynamic-update-slice:
  // the operand copied, then the update scattered at the clamped start.
  absl::StatusOr<int32_t> LowerDynamic(const Instruction& inst, absl::Span<const int32_t> ins) {
    const bool update = inst.opcode() == Opcode::kDynamicUpdateSlice;
    const Shape& shape = inst.shape();
    const Shape& from = inst.operand(0)->shape();
    const int64_t rank = from.rank();
    const size_t first = update ? 2 : 1;
    if (ins.size() != first + rank || from.element_type() != shape.element_type()) {
      return Unsupported(inst, "dynamic operands");
    }
    Dims sizes;
    if (update) {
      const Shape& upd = inst.operand(1)->shape();
      if (upd.rank() != rank || upd.element_type() != shape.element_type() ||
          !(shape.dims() == from.dims())) {
        return Unsupported(inst, "update shape");
      }
      sizes.assign(upd.dims().begin(), upd.dims().end());
    } else {
      absl::Span<const int64_t> attr = inst.GetInts(AttrKind::kDynamicSliceSizes);
      if (!inst.HasAttr(AttrKind::kDynamicSliceSizes)) attr = shape.dims();
      if (static_cast<int64_t>(attr.size()) != rank || !(shape.dims() == attr)) {
        return Unsupported(inst, "slice sizes");
      }
      sizes.assign(attr.begin(), attr.end());
    }
    Dynamic dyn;
    Dims from_strides = gather_internal::RowMajorStrides(from.dims());
    for (int64_t d = 0; d < rank; ++d) {
      const Shape& index = inst.operand(first + d)->shape();
      if (sizes[d] < 0 || sizes[d] > from.dim(d) || index.rank() != 0 ||
          !IndexType(index.element_type())) {
        return Unsupported(inst, "start indices");
      }
      dyn.slots.push_back(ins[first + d]);
      dyn.elements.push_back(0);
      dyn.readers.push_back(gather_internal::ReaderFor(index.element_type()));
      dyn.limits.push_back(from.dim(d) - sizes[d]);
      dyn.strides.push_back(from_strides[d]);
    }
    if (update) return AddDynamicMove(inst, std::move(dyn), ins[0], ins[1], sizes, from_strides);
    return AddDynamicMove(inst, std::move(dyn), -1, ins[0], sizes, from_strides);
  }

  // The result of a dynamic move: `copied` (a slot, or -1) copied whole,
  // then a gather from `moved` (copied < 0) or a scatter of `moved` into
  // it (copied >= 0), `dims` (row-major over the moved elements) at the
  // start `dyn` gives, `strides` the result's.
  absl::StatusOr<int32_t> AddDynamicMove(const Instruction& inst, Dynamic dyn, int32_t copied,
                                         int32_t moved, absl::Span<const int64_t> dims,
                                         absl::Span<const int64_t> strides) {
    absl::StatusOr<int32_t> s = NewSlot(inst, true);
    if (!s.ok()) return s;
    p_.dynamics_.push_back(std::move(dyn));
    const int32_t width = SlotOf(*s).width;
    if (copied >= 0 && SlotOf(*s).elements > 0) {
      Step copy;
      copy.kind = Step::Kind::kCopy;
      copy.out = *s;
      copy.in[0] = copied;
      copy.arity = 1;
      copy.n = SlotOf(*s).elements;
      copy.width = width;
      AddStep(copy);
    }
    Step step;
    step.kind = copied >= 0 ? Step::Kind::kScatter : Step::Kind::kGather;
    step.out = *s;
    step.in[0] = moved;
    step.arity = 1;
    step.width = width;
    step.dynamic = static_cast<int32_t>(p_.dynamics_.size() - 1);
    step.n = 1;
    for (int64_t d : dims) step.n *= d;
    SetMove(step, dims, strides, 0);
    if (step.n > 0) AddStep(step);
    return s;
  }

  // Whether `c` is a scatter's "replace" combiner: (old, update) -> update.
  static bool Replaces(const Computation* c, PrimitiveType type) {
    if (c == nullptr || c->parameter_count() != 2 || c->instruction_count() != 2) return false;
    const Instruction* root = c->root();
    for (int64_t p = 0; p < 2; ++p) {
      const Shape& s = c->parameter(p)->shape();
      if (!s.IsArray() || s.rank() != 0 || s.element_type() != type) return false;
    }
    return root == c->parameter(1);
  }

  // A scatter of one window (one index vector: JAX's x.at[i].set(v)) that
  // replaces: the operand copied, then the update moved in at the window's
  // start unless the window reaches out of the operand.
  absl::StatusOr<int32_t> LowerScatter(const Instruction& inst, absl::Span<const int32_t> ins) {
    const Shape& shape = inst.shape();
    if (ins.size() != 3) return Unsupported(inst, "a scatter of several inputs");
    const Shape& from = inst.operand(0)->shape();
    const Shape& idx = inst.operand(1)->shape();
    const Shape& upd = inst.operand(2)->shape();
    const PT type = shape.element_type();
    absl::Span<const int64_t> uwd = inst.GetInts(AttrKind::kUpdateWindowDims);
    absl::Span<const int64_t> iwd = inst.GetInts(AttrKind::kInsertedWindowDims);
    absl::Span<const int64_t> sdod = inst.GetInts(AttrKind::kScatterDimsToOperandDims);
    const int64_t ivd = inst.GetInt(AttrKind::kIndexVectorDim, -1);
    const int64_t rank = from.rank();
    // One index vector: indices of rank 0 or 1, the vector along dim 0.
    const int64_t components = idx.rank() == 0 ? 1 : idx.rank() == 1 ? idx.dim(0) : -1;
    bool ok = from.element_type() == type && upd.element_type() == type &&
              shape.dims() == from.dims() && ivd == 0 && components >= 0 &&
              IndexType(idx.element_type()) && !inst.HasAttr(AttrKind::kInputBatchingDims) &&
              !inst.HasAttr(AttrKind::kScatterIndicesBatchingDims) &&
              static_cast<int64_t>(sdod.size()) == components &&
              static_cast<int64_t>(uwd.size()) == upd.rank() &&
              static_cast<int64_t>(uwd.size() + iwd.size()) == rank &&
              Replaces(inst.to_apply(), type);
    for (size_t j = 0; ok && j < uwd.size(); ++j) ok = uwd[j] == static_cast<int64_t>(j);
    // The window's size along each operand dim: 1 where inserted, else the
    // update's next dim.
    Dims window(rank, 1);
    absl::InlinedVector<bool, 6> inserted(rank, false);
    for (int64_t d : iwd) {
      ok = ok && d >= 0 && d < rank && !inserted[d];
      if (ok) inserted[d] = true;
    }
    for (int64_t d = 0, j = 0; ok && d < rank; ++d) {
      if (!inserted[d]) window[d] = upd.dim(j++);
    }
    absl::InlinedVector<bool, 6> indexed(rank, false);
    for (int64_t d : sdod) {
      ok = ok && d >= 0 && d < rank && !indexed[d];
      if (ok) indexed[d] = true;
    }
    for (int64_t d = 0; ok && d < rank; ++d) ok = window[d] <= from.dim(d);
    if (!ok) return Unsupported(inst, "a scatter not of one replaced window");
    Dims from_strides = gather_internal::RowMajorStrides(from.dims());
    Dynamic dyn;
    dyn.skip = true;
    for (int64_t k = 0; k < components; ++k) {
      const int64_t d = sdod[k];
      dyn.slots.push_back(ins[1]);
      dyn.elements.push_back(static_cast<int32_t>(k));
      dyn.readers.push_back(gather_internal::ReaderFor(idx.element_type()));
      dyn.limits.push_back(from.dim(d) - window[d]);
      dyn.strides.push_back(from_strides[d]);
    }
    return AddDynamicMove(inst, std::move(dyn), ins[0], ins[2], window, from_strides);
  }

  // Ops run through the evaluator's kernel on copies of their operands:
  // pure ops of one array result (no state, no side effects, no control
  // flow).
  static bool KernelOp(const Instruction& inst) {
    switch (inst.opcode()) {
      case Opcode::kDot:
      case Opcode::kReduce:
      case Opcode::kReduceWindow:
      case Opcode::kGather:
      case Opcode::kScatter:
      case Opcode::kSort:
      case Opcode::kSelectAndScatter:
      case Opcode::kConvolution:
      case Opcode::kCholesky:
      case Opcode::kTriangularSolve:
      case Opcode::kFft:
      case Opcode::kMap:
      case Opcode::kClamp:
      case Opcode::kSelect:
      case Opcode::kDynamicSlice:
      case Opcode::kDynamicUpdateSlice:
        return true;
      default:
        return false;
    }
  }

  // A reduce EvalReduce runs as one plain pass, run here on the slots'
  // buffers with the result flushed as the evaluator flushes a fast
  // reduction's.
  absl::StatusOr<int32_t> LowerReduce(const Instruction& inst, absl::Span<const int32_t> ins,
                                      reduction::RawReduce plan) {
    absl::StatusOr<int32_t> s = NewSlot(inst, true);
    if (!s.ok()) return s;
    p_.reduces_.push_back(std::move(plan));
    Step step = StepInto(Step::Kind::kReduce, *s, {ins[0], ins[1]});
    step.reduce = static_cast<int32_t>(p_.reduces_.size() - 1);
    step.flush = flush_;
    step.inst = &inst;
    AddStep(step);
    return s;
  }

  // A dot that EvalDot runs as one gemm call, that call on the slots'
  // buffers.
  absl::StatusOr<int32_t> LowerGemm(const Instruction& inst, absl::Span<const int32_t> ins,
                                    const PlannedGemm& plan) {
    absl::StatusOr<int32_t> s = NewSlot(inst, true);
    if (!s.ok()) return s;
    p_.gemms_.push_back(plan);
    Step step = StepInto(Step::Kind::kGemm, *s, {ins[0], ins[1]});
    step.gemm = static_cast<int32_t>(p_.gemms_.size() - 1);
    step.inst = &inst;
    AddStep(step);
    return s;
  }

  absl::StatusOr<int32_t> LowerKernel(const Instruction& inst, absl::Span<const int32_t> ins) {
    if (!KernelOp(inst)) {
      return Unsupported(inst, StrCat("'", inst.OpcodeText(), "' is not in small programs"));
    }
    KernelCall call;
    for (size_t k = 0; k < ins.size(); ++k) {
      const Shape& shape = inst.operand(static_cast<int64_t>(k))->shape();
      call.slots.push_back(ins[k]);
      // An element of a loop's state (a tuple parameter) of the operand's
      // own shape, a matrix the body multiplies by trip after trip, goes to
      // the kernel as the caller's Value, whatever its size. (A fusion with
      // a large operand runs once a call: instruction by instruction, as
      // before, costs it no more.)
      const int32_t input = SlotOf(ins[k]).parameter;
      if (input >= 0 && input_in_tuple_[input] && *input_shapes_[input] == shape) {
        call.inputs.push_back(input);
        call.operands.push_back(nullptr);
        continue;
      }
      if (shape.ElementCount() * ByteWidth(shape.element_type()) > kMaxValueBytes) {
        return Unsupported(inst, "a large operand");
      }
      absl::StatusOr<Literal> lit = Literal::Create(shape);
      if (!lit.ok()) return lit.status();
      call.inputs.push_back(-1);
      call.operands.push_back(std::make_shared<Literal>(*std::move(lit)));
    }
    call.values.resize(ins.size());
    call.pointers.resize(ins.size());
    absl::StatusOr<int32_t> s = NewSlot(inst, true);
    if (!s.ok()) return s;
    p_.kernel_calls_.push_back(std::move(call));
    Step step = StepInto(Step::Kind::kKernel, *s, {});  // (its operands are the call's)
    step.call = static_cast<int32_t>(p_.kernel_calls_.size() - 1);
    step.inst = &inst;
    AddStep(step);
    return s;
  }

  absl::StatusOr<int32_t> LowerElementwise(const Instruction& inst, absl::Span<const int32_t> ins) {
    const Shape& shape = inst.shape();
    const Opcode op = inst.opcode();
    if (!IsElementwise(op) || op == Opcode::kStochasticConvert) {
      return Unsupported(inst, StrCat("'", inst.OpcodeText(), "' is not in small programs"));
    }
    if (ins.empty() || ins.size() > 3) return Unsupported(inst, "arity");
    const bool bitcast = op == Opcode::kBitcastConvert;
    PrimitiveType types[3] = {};
    bool floats = IsFloat(shape.element_type()) || IsComplex(shape.element_type());
    for (size_t i = 0; i < ins.size(); ++i) {
      const Slot& in = SlotOf(ins[i]);
      if (!(inst.operand(i)->shape().dims() == shape.dims())) {
        return Unsupported(inst, "operands of other dimensions");
      }
      types[i] = in.type;
      floats = floats || IsFloat(in.type) || IsComplex(in.type);
    }
    if (bitcast && ByteWidth(types[0]) != ByteWidth(shape.element_type())) {
      return Unsupported(inst, "a bitcast-convert between widths");
    }
    absl::StatusOr<int32_t> s = NewSlot(inst, true);
    if (!s.ok()) return s;
    Step step;
    step.out = *s;
    step.arity = static_cast<int32_t>(ins.size());
    for (size_t i = 0; i < ins.size(); ++i) step.in[i] = ins[i];
    step.n = SlotOf(*s).elements;
    step.inst = &inst;
    step.bitcast = bitcast;
    step.flush = flush_ && floats && ElementwiseFlushesDenormals(inst);
    step.raw = RawStepOf(inst, bitcast, step.flush, absl::MakeConstSpan(types, ins.size()),
                         shape.element_type());
    step.kind = step.raw.kind != RawStep::Kind::kNone ? Step::Kind::kRaw : Step::Kind::kApply;
    if (step.raw.kind == RawStep::Kind::kBinaryInt) ReadScalarOperand(step);
    AddStep(step);
    return s;
  }

  // An integer op of an array and a broadcast scalar reads the scalar
  // itself (its fill then unread, DropUnreadFills: threefry's rotations
  // and key additions filled a whole array per round).
  void ReadScalarOperand(Step& step) const {
    for (int i : {1, 0}) {
      const int32_t scalar = fill_of_[step.in[i]];
      if (scalar < 0) continue;
      const elementwise::BinaryIntFn fn = elementwise::BinaryIntKernelFor(
          step.inst->opcode(), step.raw.type,
          i == 1 ? elementwise::IntOperands::kScalarB : elementwise::IntOperands::kScalarA);
      if (fn == nullptr) continue;
      step.raw.binary_int = fn;
      step.in[i] = scalar;
      return;
    }
  }

  bool Constant(int32_t s) const { return s >= 0 && constant_[s]; }

  // A value made only of constants (broadcast constants, iotas, their
  // converts) is made now, once: its steps run here and leave the program.
  absl::Status FoldConstant(const Instruction& inst, int32_t slot, size_t first_step) {
    const Opcode op = inst.opcode();
    if (op == Opcode::kConstant || op == Opcode::kIota) {
      constant_[slot] = true;
      return absl::OkStatus();
    }
    if (op == Opcode::kParameter || first_step == p_.steps_.size()) {
      // An alias: constant when what it stands for is (slot shared).
      return absl::OkStatus();
    }
    for (size_t k = first_step; k < p_.steps_.size(); ++k) {
      const Step& step = p_.steps_[k];
      if (step.kind == Step::Kind::kKernel) return absl::OkStatus();  // run per run
      for (int i = 0; i < step.arity; ++i) {
        if (!Constant(step.in[i])) return absl::OkStatus();
      }
      if (step.dynamic >= 0) {
        for (int32_t idx : p_.dynamics_[step.dynamic].slots) {
          if (!Constant(idx)) return absl::OkStatus();
        }
      }
    }
    p_.data_ = p_.home_;
    for (size_t k = first_step; k < p_.steps_.size(); ++k) {
      if (absl::Status st = p_.RunStep(p_.steps_[k], std::nullopt); !st.ok()) {
        return Unsupported(inst, "a constant value that fails");
      }
    }
    p_.steps_.resize(first_step);
    constant_[slot] = true;
    return absl::OkStatus();
  }

  // Parameters that Apply steps read get registers (copied in per run);
  // results that only buffer-moving or raw steps write go straight into
  // their outputs.
  absl::Status Finish() {
    DropUnreadFills();
    const size_t slots = p_.slots_.size();
    std::vector<bool> read_by_apply(slots, false), made_by_step(slots, false);
    for (const Step& step : p_.steps_) {
      made_by_step[step.out] = true;
      if (step.kind != Step::Kind::kApply) continue;
      for (int i = 0; i < step.arity; ++i) read_by_apply[step.in[i]] = true;
    }
    for (const Step& step : p_.steps_) {
      if (step.kind == Step::Kind::kApply) made_by_step[step.out] = false;
    }
    for (size_t p = 0; p < p_.input_slots_.size(); ++p) {
      const int32_t s = p_.input_slots_[p];
      if (s < 0 || !read_by_apply[s]) continue;
      const Slot& slot = p_.slots_[s];
      bytes_ += slot.elements * slot.width;
      if (slot.elements * slot.width > kMaxValueBytes || bytes_ > kMaxProgramBytes) {
        return absl::UnimplementedError("parameters too large to copy");
      }
      absl::StatusOr<Literal> reg = Literal::Create(Shape::Array(slot.type, {slot.elements}));
      if (!reg.ok()) return reg.status();
      p_.registers_[s] = *std::move(reg);
      p_.input_copied_[p] = true;
    }
    p_.result_in_place_.assign(p_.result_slots_.size(), false);
    for (size_t r = 0; r < p_.result_slots_.size(); ++r) {
      const int32_t s = p_.result_slots_[r];
      const bool once = std::count(p_.result_slots_.begin(), p_.result_slots_.end(), s) == 1;
      p_.result_in_place_[r] = made_by_step[s] && !read_by_apply[s] && once;
    }
    FindUpdatedInputs();
    for (size_t s = 0; s < slots; ++s) {
      p_.home_[s] = p_.registers_[s].size_bytes() > 0 ? p_.registers_[s].data() : nullptr;
    }
    p_.data_ = p_.home_;
    return absl::OkStatus();
  }

  // Calls read(slot) for every slot `step` reads.
  template <typename Read>
  void ForEachRead(const Step& step, Read read) const {
    for (int i = 0; i < step.arity; ++i) read(step.in[i]);
    if (step.dynamic >= 0) {
      for (int32_t s : p_.dynamics_[step.dynamic].slots) read(s);
    }
    if (step.kind == Step::Kind::kKernel) {
      for (int32_t s : p_.kernel_calls_[step.call].slots) read(s);
    }
  }

  // Per slot: how many steps read it (a step once per operand it reads).
  std::vector<int32_t> CountReaders() const {
    std::vector<int32_t> readers(p_.slots_.size(), 0);
    for (const Step& step : p_.steps_) ForEachRead(step, [&](int32_t s) { ++readers[s]; });
    return readers;
  }

  // Fills whose every reader reads the scalar instead (ReadScalarOperand)
  // and that are no result.
  void DropUnreadFills() {
    std::vector<int32_t> readers = CountReaders();
    for (int32_t s : p_.result_slots_) ++readers[s];
    p_.steps_.erase(std::remove_if(p_.steps_.begin(), p_.steps_.end(),
                                   [&](const Step& step) {
                                     return step.kind == Step::Kind::kFill &&
                                            readers[step.out] == 0;
                                   }),
                    p_.steps_.end());
  }

  // result_updates_: a result written in place whose first step copies an
  // input whole that no other step reads, and no result is (a dynamic
  // move's copy, AddDynamicMove: over that input, the copy is a no-op and
  // the move writes the rest).
  void FindUpdatedInputs() {
    const size_t results = p_.result_slots_.size();
    p_.result_updates_.assign(results, -1);
    const std::vector<int32_t> readers = CountReaders();
    for (size_t r = 0; r < results; ++r) {
      const int32_t out = p_.result_slots_[r];
      if (!p_.result_in_place_[r]) continue;
      auto first = std::find_if(p_.steps_.begin(), p_.steps_.end(),
                                [&](const Step& step) { return step.out == out; });
      if (first == p_.steps_.end() || first->kind != Step::Kind::kCopy) continue;
      const int32_t in = first->in[0];
      const int64_t input = SlotOf(in).parameter;
      const bool whole = first->n == SlotOf(out).elements && SlotOf(in).type == SlotOf(out).type &&
                         SlotOf(in).elements == SlotOf(out).elements;
      const bool a_result =
          std::find(p_.result_slots_.begin(), p_.result_slots_.end(), in) != p_.result_slots_.end();
      if (input < 0 || !whole || readers[in] != 1 || a_result || p_.input_copied_[input]) continue;
      p_.result_updates_[r] = input;
    }
  }

  SmallProgram& p_;
  bool flush_;
  int64_t bytes_ = 0;
  absl::flat_hash_map<const Instruction*, int32_t> slot_of_;
  // The slot_of_ entry of a tuple (a parameter, a multi-output fusion, a
  // fusion-start or -done); its elements' slots are in tuple_leaves_.
  static constexpr int32_t kTupleParameter = -2;
  absl::flat_hash_map<const Instruction*, std::vector<int32_t>> tuple_leaves_;
  // Per fusion-start: the slots of its fusion's result (one, or a tuple's).
  absl::flat_hash_map<const Instruction*, std::vector<int32_t>> async_results_;
  std::vector<int64_t> input_base_;  // per parameter: its first input
  std::vector<const Shape*> input_shapes_;
  std::vector<bool> input_in_tuple_;
  std::vector<bool> constant_;    // per slot: the same value every run
  std::vector<int32_t> fill_of_;  // per slot: the scalar slot a fill step spreads, or -1
};

SmallProgram::SmallProgram() = default;
SmallProgram::~SmallProgram() = default;

absl::StatusOr<std::unique_ptr<SmallProgram>> SmallProgram::Compile(const Computation& computation,
                                                                    bool flush_denormals) {
  std::unique_ptr<SmallProgram> program(new SmallProgram());
  Compiler compiler(*program, flush_denormals);
  if (absl::Status st = compiler.Build(computation); !st.ok()) return st;
  return program;
}

int64_t SmallProgram::DynamicBase(const Dynamic& d) const {
  int64_t base = 0;
  for (size_t k = 0; k < d.slots.size(); ++k) {
    const int64_t start = d.readers[k](data_[d.slots[k]], d.elements[k]);
    if (d.skip && (start < 0 || start > d.limits[k])) return -1;
    base += std::clamp<int64_t>(start, 0, d.limits[k]) * d.strides[k];
  }
  return base;
}

absl::Status SmallProgram::RunApply(const Step& step) {
  const Literal* ops[3] = {};
  for (int i = 0; i < step.arity; ++i) ops[i] = &registers_[step.in[i]];
  return RunLiteralStep(*step.inst, step.bitcast, step.flush, absl::MakeConstSpan(ops, step.arity),
                        registers_[step.out], absl::MakeSpan(flush_scratch_));
}

int64_t SmallProgram::step_count() const { return static_cast<int64_t>(steps_.size()); }

absl::Status SmallProgram::RunKernel(const Step& step, const KernelRunner& kernels) {
  KernelCall& call = kernel_calls_[step.call];
  for (size_t k = 0; k < call.slots.size(); ++k) {
    const int32_t input = call.inputs[k];
    // The caller's Value, unless this is its only reference: a kernel may
    // then write its result into it, which the program reads again.
    if (input >= 0 && !input_values_.empty() && !input_values_[input]->unique()) {
      call.pointers[k] = input_values_[input];
      continue;
    }
    if (call.operands[k] == nullptr) {
      absl::StatusOr<Literal> lit = Literal::Create(step.inst->operand(k)->shape());
      if (!lit.ok()) return lit.status();
      call.operands[k] = std::make_shared<Literal>(*std::move(lit));
    }
    Literal& operand = *call.operands[k];
    if (operand.size_bytes() > 0) {
      std::memcpy(operand.data(), data_[call.slots[k]], operand.size_bytes());
    }
    call.values[k] = Value::Array(call.operands[k]);
    call.pointers[k] = &call.values[k];
  }
  absl::StatusOr<Value> r = kernels(*step.inst, call.pointers);
  for (Value& v : call.values) v = Value();
  if (!r.ok()) return r.status();
  const size_t bytes = static_cast<size_t>(step.n * step.width);
  if (!r->is_array() || r->array().element_type() != slots_[step.out].type ||
      r->array().size_bytes() != bytes) {
    return absl::InternalError(
        StrCat("%", step.inst->name(), ": a kernel result of another shape"));
  }
  if (bytes > 0) std::memcpy(data_[step.out], r->array().data(), bytes);
  RecycleArray(*r);
  return absl::OkStatus();
}

absl::Status SmallProgram::RunStep(const Step& step, const std::optional<KernelRunner>& kernels) {
  if (step.kind == Step::Kind::kKernel) {
    if (!kernels) return absl::InternalError("a small program's kernel step without a runner");
    return RunKernel(step, *kernels);
  }
  uint8_t* out = data_[step.out];
  const uint8_t* in0 = data_[step.in[0]];
  switch (step.kind) {
    case Step::Kind::kRaw: {
      const uint8_t* in[3] = {in0, step.arity > 1 ? data_[step.in[1]] : nullptr,
                              step.arity > 2 ? data_[step.in[2]] : nullptr};
      return RunRawStep(step.raw, in, out, step.n);
    }
    case Step::Kind::kApply:
      return RunApply(step);
    case Step::Kind::kCopy:
      // (Skipped over an input updated in place: result_updates_input.)
      if (out != in0) std::memcpy(out, in0, step.n * step.width);
      break;
    case Step::Kind::kFill:
      data_internal::FillElements(step.width, out, step.n, in0);
      break;
    case Step::Kind::kGather: {
      const int64_t base = step.dynamic >= 0 ? DynamicBase(dynamics_[step.dynamic]) : 0;
      if (step.contiguous) {
        std::memmove(out, in0 + (base + step.offset) * step.width, step.n * step.width);
        break;
      }
      if (step.map < 0) {
        data_internal::StridedCopy(step.width, out, in0 + (base + step.offset) * step.width,
                                   step.axes);
        break;
      }
      const int32_t* map = maps_[step.map].data();
      ByWidth(step.width, [&]<int W>() { GatherTyped<W>(out, in0, map, base, step.n); });
      break;
    }
    case Step::Kind::kGatherPad: {
      const uint8_t* pad = data_[step.in[1]];
      const int32_t* map = maps_[step.map].data();
      ByWidth(step.width, [&]<int W>() { GatherPadTyped<W>(out, in0, pad, map, step.n); });
      break;
    }
    case Step::Kind::kReduce:
      reduction::RunRawReduce(reduces_[step.reduce], in0, data_[step.in[1]], out);
      if (step.flush) FlushDenormalsInPlace(slots_[step.out].type, out, step.n);
      break;
    case Step::Kind::kGemm:
      RunPlannedGemm(gemms_[step.gemm], in0, data_[step.in[1]], out);
      break;
    case Step::Kind::kKernel:
      break;  // above
    case Step::Kind::kScatter: {
      const int64_t base = step.dynamic >= 0 ? DynamicBase(dynamics_[step.dynamic]) : 0;
      if (base < 0) break;  // a window out of bounds
      if (step.contiguous) {
        std::memmove(out + (base + step.offset) * step.width, in0, step.n * step.width);
        break;
      }
      if (step.map < 0) {
        data_internal::StridedCopy(step.width, out + (base + step.offset) * step.width, in0,
                                   step.axes);
        break;
      }
      const int32_t* map = maps_[step.map].data();
      ByWidth(step.width, [&]<int W>() { ScatterTyped<W>(out, in0, map, base, step.n); });
      break;
    }
  }
  return absl::OkStatus();
}

absl::Status SmallProgram::Run(absl::Span<const void* const> inputs,
                               absl::Span<void* const> outputs, std::optional<KernelRunner> kernels,
                               absl::Span<const Value* const> input_values) {
  if (inputs.size() != input_slots_.size() || outputs.size() != result_slots_.size() ||
      (!input_values.empty() && input_values.size() != inputs.size())) {
    return absl::InvalidArgumentError(StrCat("the computation takes ", input_slots_.size(),
                                             " inputs and gives ", result_slots_.size(),
                                             " results"));
  }
  input_values_ = input_values;
  for (size_t p = 0; p < inputs.size(); ++p) {
    const int32_t s = input_slots_[p];
    if (s < 0) continue;
    data_[s] = static_cast<uint8_t*>(const_cast<void*>(inputs[p]));
    if (input_copied_[p] && registers_[s].size_bytes() > 0) {
      std::memcpy(registers_[s].data(), inputs[p], registers_[s].size_bytes());
    }
  }
  for (size_t r = 0; r < outputs.size(); ++r) {
    if (result_in_place_[r]) data_[result_slots_[r]] = static_cast<uint8_t*>(outputs[r]);
  }
  absl::Status status;
  for (const Step& step : steps_) {
    // A raw step's resolved loop is called here, past RunStep's and
    // RunRawStep's dispatch (XLA's Philox and threefry rounds are dozens of
    // such steps over a few elements): the same loop, so the same bits.
    if (step.kind == Step::Kind::kRaw) {
      if (const auto loop = step.raw.direct_binary()) {
        loop(data_[step.in[0]], data_[step.in[1]], data_[step.out], step.n);
        continue;
      }
      if (const auto loop = step.raw.direct_unary()) {
        loop(data_[step.in[0]], data_[step.out], step.n);
        continue;
      }
    }
    status = RunStep(step, kernels);
    if (!status.ok()) break;
  }
  for (size_t r = 0; r < outputs.size() && status.ok(); ++r) {
    const int32_t s = result_slots_[r];
    const size_t bytes = slots_[s].elements * slots_[s].width;
    if (data_[s] != outputs[r] && bytes > 0) std::memcpy(outputs[r], data_[s], bytes);
  }
  for (size_t r = 0; r < outputs.size(); ++r) data_[result_slots_[r]] = home_[result_slots_[r]];
  input_values_ = {};
  return status;
}

}  // namespace hlo

#include "eval/interp/batch_program.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "eval/denormals.h"
#include "eval/interp/elementwise_ops.h"
#include "eval/interp/raw_step.h"
#include "eval/runtime/stream_store.h"
#include "eval/type_dispatch.h"
#include "ir/compare_order.h"
#include "ir/strings.h"

namespace hlo {

bool RowMajorOrNoLayout(const Shape& s) {
  if (!s.has_layout()) return true;
  const Layout& layout = s.layout();
  if (layout.element_size_in_bits != 0) return false;
  if (layout.minor_to_major.empty()) return true;
  const int64_t rank = s.rank();
  if (static_cast<int64_t>(layout.minor_to_major.size()) != rank) return false;
  for (int64_t i = 0; i < rank; ++i) {
    if (layout.minor_to_major[i] != rank - 1 - i) return false;
  }
  return true;
}

// One elementwise op: registers in, register out.
struct BatchProgram::Step {
  const Instruction* inst = nullptr;
  int32_t operands[3] = {-1, -1, -1};
  int32_t arity = 0;
  int32_t result = -1;
  bool flush = false;    // XLA:CPU's flush-to-zero applies to this op
  bool bitcast = false;  // a scalar bitcast between types: bitcast-convert
  // Runs on raw arrays (PlanInPlace) unless its kind is kNone.
  RawStep raw;
  // The chain (chains_) that starts here, run in its place, or -1.
  int32_t chain = -1;
};

// Walks a computation (inlining calls and fusions) and assigns registers.
// Scalar mode: every value is rank 0. Array mode (elementwise fusions):
// values are arrays of one shape, or scalars that stand for their broadcast.
class BatchProgram::Compiler {
 public:
  Compiler(BatchProgram& program, bool flush, const Shape* array_dims)
      : program_(program), flush_(flush), array_dims_(array_dims) {}

  using Registers = absl::flat_hash_map<const Instruction*, std::vector<int32_t>>;

  // Registers of `computation`'s root elements, with its parameters bound
  // to `arguments`.
  absl::StatusOr<std::vector<int32_t>> Inline(const Computation& computation,
                                              const std::vector<int32_t>& arguments, int depth) {
    if (depth > 64) return absl::UnimplementedError("calls nest too deep");
    Registers regs;
    for (const Instruction* inst : computation.PostOrder()) {
      absl::StatusOr<std::vector<int32_t>> r = Lower(*inst, regs, arguments, depth);
      if (!r.ok()) return r.status();
      regs[inst] = *std::move(r);
    }
    return regs.at(computation.root());
  }

  // Lowers `inst` with `regs` holding its operands' registers.
  absl::StatusOr<std::vector<int32_t>> Lower(const Instruction& inst, const Registers& regs,
                                             const std::vector<int32_t>& arguments, int depth) {
    const Shape& shape = inst.shape();
    // A value computed before the loop (CompileElementwise's precomputed):
    // its parameter's register; what it is computed from is not lowered.
    if (auto it = precomputed_.find(&inst); it != precomputed_.end()) {
      return std::vector<int32_t>{it->second};
    }
    if (skipped_.contains(&inst)) return std::vector<int32_t>{};
    std::vector<int32_t> ins;
    for (const Instruction* op : inst.operands()) {
      if (skipped_.contains(op)) {
        return Unsupported(inst, "reads what a precomputed value is made of");
      }
      auto it = regs.find(op);
      if (it == regs.end()) return Unsupported(inst, "an operand outside the program");
      ins.insert(ins.end(), it->second.begin(), it->second.end());
    }
    // A bitcast or broadcast on the way from a broadcast parameter: its
    // register already holds the broadcast values.
    if (pass_through_.contains(&inst)) {
      if (inst.opcode() != Opcode::kParameter) return ins;
      return std::vector<int32_t>{arguments[inst.parameter_number()]};
    }
    if (std::find(ins.begin(), ins.end(), kSlicedOnly) != ins.end()) {
      // A parameter of another shape: only its single elements are read.
      if (inst.opcode() == Opcode::kSlice && depth == 0) return SliceElement(inst);
      return Unsupported(inst, "an array parameter of another shape read whole");
    }
    switch (inst.opcode()) {
      case Opcode::kParameter:
        if (inst.parameter_number() >= static_cast<int64_t>(arguments.size())) {
          return Unsupported(inst, "no argument for this parameter");
        }
        if (arguments[inst.parameter_number()] == kSlicedOnly)
          return std::vector<int32_t>{kSlicedOnly};
        if (!IsScalar(shape) && !IsGroupArray(shape)) return Unsupported(inst, "not a scalar");
        return std::vector<int32_t>{arguments[inst.parameter_number()]};
      case Opcode::kConstant:
        if (!IsScalar(shape) || inst.literal() == nullptr || inst.literal()->element_count() != 1) {
          return Unsupported(inst, "not a scalar constant");
        }
        return std::vector<int32_t>{NewRegister(shape.element_type(), inst.literal())};
      case Opcode::kTuple:
        return ins;
      case Opcode::kGetTupleElement: {
        int64_t index = inst.GetInt(AttrKind::kIndex);
        if (index < 0 || index >= static_cast<int64_t>(ins.size()) || !shape.IsArray()) {
          return Unsupported(inst, "a nested tuple");
        }
        return std::vector<int32_t>{ins[index]};
      }
      case Opcode::kBroadcast:
      case Opcode::kBitcast:
      case Opcode::kReshape:
      case Opcode::kCopy:
      case Opcode::kTranspose:
        return LowerMove(inst, ins);
      case Opcode::kIota:
        return NewIota(inst);
      case Opcode::kCall:
      case Opcode::kFusion: {
        const Computation* callee = inst.to_apply();
        if (callee == nullptr) return Unsupported(inst, "no called computation");
        return Inline(*callee, ins, depth + 1);
      }
      default:
        return LowerElementwise(inst, ins);
    }
  }

  static absl::Status Unsupported(const Instruction& inst, std::string_view why) {
    return absl::UnimplementedError(StrCat("%", inst.name(), ": ", why));
  }

  // broadcast, bitcast, reshape, copy, transpose: the operand's register
  // when it already holds the values, or a bitcast-convert step.
  absl::StatusOr<std::vector<int32_t>> LowerMove(const Instruction& inst,
                                                 const std::vector<int32_t>& ins) {
    const Shape& shape = inst.shape();
    const Opcode opcode = inst.opcode();
    if (ins.size() != 1) return Unsupported(inst, "data movement of non-scalars");
    const Shape& from = inst.operand(0)->shape();
    // A scalar's broadcast: the scalar's register stands for it.
    if (opcode == Opcode::kBroadcast && array_dims_ && IsGroupArray(shape) && IsScalar(from)) {
      return ins;
    }
    // Between scalar types of one width (XLA's comparators bitcast f32 to
    // s32): bitcast-convert's bits.
    if ((opcode == Opcode::kBroadcast || opcode == Opcode::kBitcast) && IsScalar(shape) &&
        IsScalar(from) && from.element_type() != shape.element_type() &&
        ByteWidth(from.element_type()) == ByteWidth(shape.element_type())) {
      Step step;
      step.inst = &inst;
      step.arity = 1;
      step.operands[0] = ins[0];
      step.result = NewRegister(shape.element_type(), nullptr);
      step.bitcast = true;
      program_.steps_.push_back(step);
      return std::vector<int32_t>{step.result};
    }
    const bool same_type = from.element_type() == shape.element_type();
    // Loop fusions: a reshape, a row-major bitcast or a copy keeps each
    // element at its row-major position, so the register stands for it.
    if (reshapes_ && opcode != Opcode::kTranspose && IsGroupArray(shape) && IsGroupArray(from) &&
        same_type &&
        (opcode != Opcode::kBitcast || (RowMajorOrNoLayout(shape) && RowMajorOrNoLayout(from))) &&
        (opcode != Opcode::kCopy || shape.dims() == from.dims())) {
      return ins;
    }
    // One element of a parameter (SliceElement) to rank 0: the value.
    if (IsScalar(shape) && opcode != Opcode::kTranspose && sliced_.contains(ins[0]) && same_type) {
      return ins;
    }
    // Rank 0 to rank 0: the value itself.
    if (!IsScalar(shape) || !same_type) {
      return Unsupported(inst, "data movement of non-scalars");
    }
    return ins;
  }

  // An elementwise op on scalars (or arrays of the group's shape): a step.
  absl::StatusOr<std::vector<int32_t>> LowerElementwise(const Instruction& inst,
                                                        const std::vector<int32_t>& ins) {
    const Shape& shape = inst.shape();
    if (!IsElementwise(inst.opcode()) || inst.opcode() == Opcode::kStochasticConvert) {
      return Unsupported(inst, StrCat("'", inst.OpcodeText(), "' is not batched"));
    }
    if (!IsScalar(shape) && !IsGroupArray(shape)) return Unsupported(inst, "not a scalar");
    for (const Instruction* op : inst.operands()) {
      if (!IsScalar(op->shape()) && !IsGroupArray(op->shape())) {
        return Unsupported(inst, "operands of another shape");
      }
    }
    if (ins.empty() || ins.size() > 3) return Unsupported(inst, "arity");
    Step step;
    step.inst = &inst;
    step.arity = static_cast<int32_t>(ins.size());
    for (size_t i = 0; i < ins.size(); ++i) step.operands[i] = ins[i];
    step.result = NewRegister(shape.element_type(), nullptr);
    // Integer and predicate steps hold no denormals: no scans for them.
    bool floats = IsFloat(shape.element_type()) || IsComplex(shape.element_type());
    for (const Instruction* op : inst.operands()) {
      const PrimitiveType t = op->shape().element_type();
      floats = floats || IsFloat(t) || IsComplex(t);
    }
    step.flush = flush_ && floats && ElementwiseFlushesDenormals(inst);
    program_.steps_.push_back(step);
    return std::vector<int32_t>{step.result};
  }

  int32_t NewParameter(PrimitiveType type, bool scalar, int64_t source = -1, int64_t offset = 0) {
    program_.parameter_sources_.push_back(
        source >= 0 ? source : static_cast<int64_t>(program_.parameter_types_.size()));
    program_.parameter_offsets_.push_back(offset);
    program_.parameter_types_.push_back(type);
    program_.parameter_scalar_.push_back(scalar);
    program_.broadcasts_.emplace_back();
    int32_t r = NewRegister(type, nullptr);
    program_.parameter_registers_.push_back(r);
    return r;
  }

  // An iota over the loop's positions (of its dimensions, or reshaped to
  // them: row-major order is the same): a register filled per block.
  absl::StatusOr<std::vector<int32_t>> NewIota(const Instruction& inst) {
    const Shape& shape = inst.shape();
    const int64_t d = inst.GetInt(AttrKind::kIotaDimension, -1);
    if (!IsGroupArray(shape) || inst.operand_count() != 0 || d < 0 || d >= shape.rank()) {
      return absl::UnimplementedError(
          StrCat("%", inst.name(), ": an iota not of the loop's positions"));
    }
    absl::StatusOr<Literal> line = IotaLine(shape.element_type(), shape.dim(d));
    if (!line.ok()) return line.status();
    Iota iota;
    iota.reg = NewRegister(shape.element_type(), nullptr);
    iota.broadcast.result_dims.assign(shape.dims().begin(), shape.dims().end());
    iota.broadcast.strides.assign(shape.rank(), 0);
    iota.broadcast.strides[d] = 1;
    SetPeriod(iota.broadcast);
    iota.line = *std::move(line);
    program_.iotas_.push_back(std::move(iota));
    return std::vector<int32_t>{program_.iotas_.back().reg};
  }

  // The argument of a parameter that is neither a scalar nor of the
  // arrays' dimensions, but read only through one-element slices (JAX's
  // threefry unstacks its key words that way).
  static constexpr int32_t kSlicedOnly = -1;

 private:
  static bool IsScalar(const Shape& s) { return s.IsArray() && s.rank() == 0; }

  // slice(p) of one element of parameter p: a scalar parameter reading
  // that element (row-major storage).
  absl::StatusOr<std::vector<int32_t>> SliceElement(const Instruction& inst) {
    const Instruction& param = *inst.operand(0);
    const Shape& in = param.shape();
    const SliceSpec* spec = inst.slice();
    if (param.opcode() != Opcode::kParameter || !inst.shape().IsArray() ||
        inst.shape().ElementCount() != 1 || spec == nullptr ||
        static_cast<int64_t>(spec->size()) != in.rank()) {
      return absl::UnimplementedError(StrCat("%", inst.name(), ": not one element of a parameter"));
    }
    int64_t offset = 0;
    for (int64_t d = 0; d < in.rank(); ++d) {
      const SliceDim& s = (*spec)[d];
      if (s.start < 0 || s.start >= in.dim(d) || s.limit <= s.start || s.limit > in.dim(d)) {
        return absl::UnimplementedError(StrCat("%", inst.name(), ": a slice out of range"));
      }
      offset = offset * in.dim(d) + s.start;
    }
    const int32_t r = NewParameter(in.element_type(), true, param.parameter_number(), offset);
    sliced_.insert(r);
    return std::vector<int32_t>{r};
  }
  bool IsGroupArray(const Shape& s) const {
    if (array_dims_ == nullptr || !s.IsArray()) return false;
    if (s.dims() == array_dims_->dims()) return true;
    return reshapes_ && s.rank() > 0 && s.ElementCount() == array_dims_->ElementCount();
  }

  int32_t NewRegister(PrimitiveType type, const Literal* constant) {
    program_.register_types_.push_back(type);
    program_.constants_.push_back(constant);
    return static_cast<int32_t>(program_.register_types_.size() - 1);
  }

  BatchProgram& program_;
  bool flush_;
  absl::flat_hash_set<int32_t> sliced_;  // registers of SliceElement
  absl::flat_hash_set<const Instruction*> pass_through_;
  absl::flat_hash_map<const Instruction*, int32_t> precomputed_;
  absl::flat_hash_set<const Instruction*> skipped_;
  // Loop fusions (CompileElementwise): arrays of the root's element count
  // in other dimensions, reshaped between them, are arrays of the loop.
  bool reshapes_ = false;

 public:
  void AllowReshapes() { reshapes_ = true; }
  void PassThrough(const Instruction* inst) { pass_through_.insert(inst); }
  // `value` is read from parameter register `reg`; `made_of` (the
  // instructions it is computed from) are left out of the program.
  void Precompute(const Instruction* value, int32_t reg,
                  absl::Span<const Instruction* const> made_of) {
    precomputed_[value] = reg;
    skipped_.insert(made_of.begin(), made_of.end());
  }
  const Shape* array_dims_;  // array mode: the arrays' dimensions
};

namespace {

// The one broadcast through which `param` is read, if every use of it goes
// through row-major bitcasts (reshapes of one element type) to that single
// broadcast, whose result has the loop's element count; `chain` receives
// the bitcasts and the broadcast. Null otherwise.
const Instruction* BroadcastOnlyUse(const Instruction& param, const Shape& dims,
                                    std::vector<const Instruction*>& chain) {
  const Instruction* at = &param;
  for (int hops = 0; hops < 8; ++hops) {
    if (at->users().size() != 1 || !RowMajorOrNoLayout(at->shape())) return nullptr;
    const Instruction* user = at->users()[0];
    if (!user->shape().IsArray() || user->shape().element_type() != param.shape().element_type()) {
      return nullptr;
    }
    if (user->opcode() == Opcode::kBroadcast) {
      if (user->shape().ElementCount() != dims.ElementCount() ||
          !RowMajorOrNoLayout(user->shape())) {
        return nullptr;
      }
      chain.push_back(user);
      return user;
    }
    if ((user->opcode() != Opcode::kBitcast && user->opcode() != Opcode::kReshape) ||
        user->shape().ElementCount() != param.shape().ElementCount()) {
      return nullptr;
    }
    chain.push_back(user);
    at = user;
  }
  return nullptr;
}

}  // namespace

BatchProgram::BatchProgram() = default;
BatchProgram::~BatchProgram() = default;

namespace {

// `count` copies of the `width`-byte value at src (a scalar's register):
// typed fills, where one memcpy per element cost more than the fused steps
// on small arrays.
template <typename T>
void FillTyped(uint8_t* dst, const void* src, int64_t count) {
  T v;
  std::memcpy(&v, src, sizeof(T));
  std::fill_n(reinterpret_cast<T*>(dst), count, v);
}

void FillRepeated(uint8_t* dst, const void* src, int64_t width, int64_t count) {
  switch (width) {
    case 1:
      std::memset(dst, *static_cast<const uint8_t*>(src), count);
      return;
    case 2:
      FillTyped<uint16_t>(dst, src, count);
      return;
    case 4:
      FillTyped<uint32_t>(dst, src, count);
      return;
    case 8:
      FillTyped<uint64_t>(dst, src, count);
      return;
    default:
      for (int64_t i = 0; i < count; ++i) std::memcpy(dst + i * width, src, width);
  }
}

absl::Status FinishProgram(const absl::StatusOr<std::vector<int32_t>>& results,
                           std::vector<int32_t>& result_registers,
                           std::vector<PrimitiveType>& result_types,
                           const std::vector<PrimitiveType>& register_types) {
  if (!results.ok()) return results.status();
  result_registers = *results;
  for (int32_t r : result_registers) result_types.push_back(register_types[r]);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<BatchProgram>> BatchProgram::Compile(const Computation& computation,
                                                                    bool flush_denormals) {
  std::unique_ptr<BatchProgram> program(new BatchProgram());
  Compiler compiler(*program, flush_denormals, nullptr);
  std::vector<int32_t> arguments;
  for (int64_t i = 0; i < computation.parameter_count(); ++i) {
    const Shape& s = computation.parameter(i)->shape();
    if (!s.IsArray() || s.rank() != 0) {
      return absl::UnimplementedError(StrCat("parameter ", i, " is not a scalar"));
    }
    arguments.push_back(compiler.NewParameter(s.element_type(), false));
  }
  absl::Status st =
      FinishProgram(compiler.Inline(computation, arguments, 0), program->result_registers_,
                    program->result_types_, program->register_types_);
  if (!st.ok()) return st;
  program->PlanInPlace();
  return program;
}

absl::StatusOr<std::unique_ptr<BatchProgram>> BatchProgram::CompileElementwise(
    const Computation& computation, bool flush_denormals,
    absl::Span<const Precomputed> precomputed) {
  const Shape& dims = computation.root()->shape();
  if (!dims.IsArray()) return absl::UnimplementedError("the root is not an array");
  std::unique_ptr<BatchProgram> program(new BatchProgram());
  program->block_ = kArrayBlock;
  Compiler compiler(*program, flush_denormals, &dims);
  compiler.AllowReshapes();
  std::vector<int32_t> arguments;
  for (int64_t i = 0; i < computation.parameter_count(); ++i) {
    const Shape& s = computation.parameter(i)->shape();
    bool scalar = s.IsArray() && s.rank() == 0;
    if (!s.IsArray()) return absl::UnimplementedError(StrCat("parameter ", i, " is not an array"));
    // Read only through slices: one-element slices (SliceElement) or none.
    absl::Span<Instruction* const> users = computation.parameter(i)->users();
    const bool sliced =
        !users.empty() && std::all_of(users.begin(), users.end(), [](const Instruction* u) {
          return u->opcode() == Opcode::kSlice;
        });
    if (!scalar && !sliced && s.ElementCount() != dims.ElementCount()) {
      // Read whole only through one broadcast (after row-major bitcasts):
      // a broadcast parameter, its values laid out per position.
      std::vector<const Instruction*> chain;
      if (const Instruction* b = BroadcastOnlyUse(*computation.parameter(i), dims, chain)) {
        absl::StatusOr<Broadcast> spec = BroadcastOf(*b);
        if (spec.ok()) {
          arguments.push_back(compiler.NewParameter(s.element_type(), false, i));
          program->broadcasts_.back() = *std::move(spec);
          compiler.PassThrough(computation.parameter(i));
          for (const Instruction* c : chain) compiler.PassThrough(c);
          continue;
        }
      }
    }
    arguments.push_back(!scalar && (sliced || s.ElementCount() != dims.ElementCount())
                            ? Compiler::kSlicedOnly
                            : compiler.NewParameter(s.element_type(), scalar, i));
  }
  // Values the caller computes before each run, each read through its one
  // broadcast as a broadcast parameter is.
  for (size_t k = 0; k < precomputed.size(); ++k) {
    const Instruction& value = *precomputed[k].value;
    std::vector<const Instruction*> chain;
    const Instruction* b = BroadcastOnlyUse(value, dims, chain);
    if (b == nullptr || !value.shape().IsArray()) {
      return absl::UnimplementedError(
          StrCat("%", value.name(), ": a precomputed value not read through one broadcast"));
    }
    absl::StatusOr<Broadcast> spec = BroadcastOf(*b);
    if (!spec.ok()) return spec.status();
    const int32_t reg = compiler.NewParameter(value.shape().element_type(), false,
                                              computation.parameter_count() + k);
    program->broadcasts_.back() = *std::move(spec);
    compiler.Precompute(&value, reg, precomputed[k].made_of);
    for (const Instruction* c : chain) compiler.PassThrough(c);
  }
  absl::Status st =
      FinishProgram(compiler.Inline(computation, arguments, 0), program->result_registers_,
                    program->result_types_, program->register_types_);
  if (!st.ok()) return st;
  if (program->result_registers_.size() != 1) {
    return absl::UnimplementedError("the root is not one array");
  }
  program->PlanInPlace();
  return program;
}

namespace {

// The operand-element strides of `broadcast`'s positions.
absl::StatusOr<std::vector<int64_t>> BroadcastStrides(const Instruction& broadcast) {
  const Shape& out = broadcast.shape();
  const Shape& in = broadcast.operand(0)->shape();
  absl::Span<const int64_t> dims = broadcast.GetInts(AttrKind::kDimensions);
  if (static_cast<int64_t>(dims.size()) != in.rank()) {
    return absl::UnimplementedError("a broadcast without one dimension per operand dimension");
  }
  std::vector<int64_t> strides(out.rank(), 0);
  int64_t stride = 1;
  for (int64_t k = in.rank() - 1; k >= 0; --k) {
    if (dims[k] < 0 || dims[k] >= out.rank() || in.dim(k) != out.dim(dims[k])) {
      return absl::UnimplementedError("a broadcast whose dimensions do not map");
    }
    strides[dims[k]] = in.dim(k) == 1 ? 0 : stride;
    stride *= in.dim(k);
  }
  return strides;
}

}  // namespace

namespace {

// dst[i] = src[i * stride] for n elements of type T (stride 0: a fill).
template <typename T>
void StridedRunOf(const uint8_t* src, int64_t stride, int64_t n, uint8_t* dst) {
  T* d = reinterpret_cast<T*>(dst);
  const T* s = reinterpret_cast<const T*>(src);
  if (stride == 0) {
    const T v = *s;
    for (int64_t i = 0; i < n; ++i) d[i] = v;
    return;
  }
  for (int64_t i = 0; i < n; ++i) d[i] = s[i * stride];
}

struct Bytes16 {
  uint64_t lo, hi;
};

void StridedRun(int64_t width, const uint8_t* src, int64_t stride, int64_t n, uint8_t* dst) {
  switch (width) {
    case 1:
      return StridedRunOf<uint8_t>(src, stride, n, dst);
    case 2:
      return StridedRunOf<uint16_t>(src, stride, n, dst);
    case 4:
      return StridedRunOf<uint32_t>(src, stride, n, dst);
    case 8:
      return StridedRunOf<uint64_t>(src, stride, n, dst);
    case 16:
      return StridedRunOf<Bytes16>(src, stride, n, dst);
    default:
      for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * width, src + i * stride * width, width);
  }
}

}  // namespace

absl::StatusOr<BatchProgram::Broadcast> BatchProgram::BroadcastOf(const Instruction& broadcast) {
  absl::StatusOr<std::vector<int64_t>> strides = BroadcastStrides(broadcast);
  if (!strides.ok()) return strides.status();
  Broadcast b;
  b.result_dims.assign(broadcast.shape().dims().begin(), broadcast.shape().dims().end());
  b.strides = *std::move(strides);
  SetPeriod(b);
  return b;
}

void BatchProgram::SetPeriod(Broadcast& b) {
  const int64_t rank = static_cast<int64_t>(b.result_dims.size());
  int64_t first_varying = 0;
  while (first_varying < rank && b.strides[first_varying] == 0) ++first_varying;
  b.period = 1;
  for (int64_t d = first_varying; d < rank; ++d) b.period *= b.result_dims[d];
}

bool BatchProgram::FilledAlready(const Broadcast& b, int64_t first, int64_t count) const {
  // Blocks start block_ apart, so a run's blocks share one phase.
  return b.filled_phase >= 0 && first % b.period == b.filled_phase && count <= b.filled_count;
}

void BatchProgram::NoteFill(Broadcast& b, int64_t first, int64_t count) {
  if (b.period <= 0 || b.period > block_ || block_ % b.period != 0) return;
  b.filled_phase = first % b.period;
  b.filled_count = count;
}

void BatchProgram::ForgetFills() {
  for (Broadcast& b : broadcasts_) b.filled_phase = -1;
  for (Iota& iota : iotas_) iota.broadcast.filled_phase = -1;
}

void BatchProgram::SeekBroadcast(Broadcast& b, int64_t first) {
  if (first == b.next) return;
  const int64_t rank = static_cast<int64_t>(b.result_dims.size());
  b.coord.resize(rank);
  int64_t rest = first;
  b.index = 0;
  for (int64_t d = rank - 1; d >= 0; --d) {
    b.coord[d] = rest % b.result_dims[d];
    rest /= b.result_dims[d];
    b.index += b.coord[d] * b.strides[d];
  }
  b.next = first;
}

void BatchProgram::StepBroadcast(Broadcast& b, int64_t run) {
  const int64_t rank = static_cast<int64_t>(b.result_dims.size());
  std::vector<int64_t>& coord = b.coord;
  b.next += run;
  coord[rank - 1] += run;
  b.index += run * b.strides[rank - 1];
  if (coord[rank - 1] < b.result_dims[rank - 1]) return;
  // The end of a minor run: on to the start of the next.
  b.index -= coord[rank - 1] * b.strides[rank - 1];
  coord[rank - 1] = 0;
  for (int64_t d = rank - 2; d >= 0; --d) {
    b.index += b.strides[d];
    if (++coord[d] < b.result_dims[d]) break;
    b.index -= coord[d] * b.strides[d];
    coord[d] = 0;
  }
}

void BatchProgram::FillBroadcast(Broadcast& b, const uint8_t* src, int64_t width, int64_t first,
                                 int64_t count, uint8_t* reg) {
  // Runs along the minor dimension: a copy where it reads consecutive
  // elements, a fill where it is broadcast.
  SeekBroadcast(b, first);
  const int64_t minor = b.result_dims.back();
  const int64_t minor_stride = b.strides.back();
  for (int64_t done = 0; done < count;) {
    const int64_t run = std::min(count - done, minor - b.coord.back());
    uint8_t* dst = reg + done * width;
    if (minor_stride == 1) {
      std::memcpy(dst, src + b.index * width, run * width);
    } else {
      StridedRun(width, src + b.index * width, minor_stride, run, dst);
    }
    StepBroadcast(b, run);
    done += run;
  }
}

const uint8_t* BatchProgram::BroadcastInPlace(Broadcast& b, const uint8_t* src, int64_t width,
                                              int64_t first, int64_t count) {
  SeekBroadcast(b, first);
  if (b.strides.back() != 1 || b.coord.back() + count > b.result_dims.back()) return nullptr;
  const uint8_t* at = src + b.index * width;
  StepBroadcast(b, count);
  return at;
}

absl::StatusOr<std::unique_ptr<BatchProgram>> BatchProgram::CompileGroup(
    const Instruction& root, const std::vector<const Instruction*>& members, bool flush_denormals,
    std::vector<const Instruction*>* inputs, absl::Span<const Instruction* const> outputs) {
  const Shape& dims = root.shape();
  if (!dims.IsArray()) return absl::UnimplementedError("the root is not an array");
  std::unique_ptr<BatchProgram> program(new BatchProgram());
  program->block_ = kArrayBlock;
  Compiler compiler(*program, flush_denormals, &dims);
  absl::flat_hash_map<const Instruction*, bool> is_member;
  for (const Instruction* m : members) is_member[m] = true;
  Compiler::Registers regs;
  inputs->clear();
  // Members in the given order (operands first); outside operands become
  // parameters on first sight.
  for (const Instruction* m : members) {
    if (m->opcode() == Opcode::kBroadcast && m->operand_count() == 1 &&
        m->operand(0)->shape().IsArray() && m->operand(0)->shape().rank() > 0 &&
        !is_member.contains(m->operand(0))) {
      // Reads its operand through the broadcast's dimension map.
      absl::StatusOr<Broadcast> b = BroadcastOf(*m);
      if (!b.ok()) return b.status();
      regs[m] = {compiler.NewParameter(m->shape().element_type(), false)};
      program->broadcasts_.back() = *std::move(b);
      inputs->push_back(m->operand(0));
      continue;
    }
    for (const Instruction* op : m->operands()) {
      if (is_member.contains(op) || regs.contains(op)) continue;
      const Shape& s = op->shape();
      bool scalar = s.IsArray() && s.rank() == 0;
      if (!s.IsArray() || (!scalar && s.dims() != dims.dims())) {
        return absl::UnimplementedError(StrCat("%", op->name(), " has another shape"));
      }
      regs[op] = {compiler.NewParameter(s.element_type(), scalar)};
      inputs->push_back(op);
    }
    absl::StatusOr<std::vector<int32_t>> r = compiler.Lower(*m, regs, {}, 0);
    if (!r.ok()) return r.status();
    regs[m] = *std::move(r);
  }
  auto it = regs.find(&root);
  if (it == regs.end() || it->second.size() != 1) {
    return absl::UnimplementedError("the root is not one array of the group");
  }
  program->result_registers_ = it->second;
  for (const Instruction* o : outputs) {
    auto out = regs.find(o);
    if (out == regs.end() || out->second.size() != 1 || !o->shape().IsArray() ||
        o->shape().dims() != dims.dims()) {
      return absl::UnimplementedError(StrCat("%", o->name(), " is not one array of the group"));
    }
    program->result_registers_.push_back(out->second[0]);
  }
  for (int32_t r : program->result_registers_) {
    program->result_types_.push_back(program->register_types_[r]);
  }
  program->PlanInPlace();
  return program;
}

int64_t BatchProgram::step_count() const { return static_cast<int64_t>(steps_.size()); }

int64_t BatchProgram::chained_step_count() const {
  int64_t steps = 0;
  for (const Chain& chain : chains_) steps += chain.steps;
  return steps;
}

std::unique_ptr<BatchProgram> BatchProgram::Clone() const {
  std::unique_ptr<BatchProgram> copy(new BatchProgram());
  copy->parameter_types_ = parameter_types_;
  copy->parameter_scalar_ = parameter_scalar_;
  copy->parameter_sources_ = parameter_sources_;
  copy->parameter_offsets_ = parameter_offsets_;
  copy->broadcasts_ = broadcasts_;
  copy->iotas_ = iotas_;
  copy->block_ = block_;
  copy->result_types_ = result_types_;
  copy->steps_ = steps_;
  copy->constants_ = constants_;
  copy->register_types_ = register_types_;
  copy->parameter_registers_ = parameter_registers_;
  copy->result_registers_ = result_registers_;
  copy->reads_in_place_ = reads_in_place_;
  copy->broadcast_in_place_ = broadcast_in_place_;
  copy->writes_in_place_ = writes_in_place_;
  copy->chains_ = chains_;
  return copy;
}

absl::Status BatchProgram::Resize(int64_t length) {
  registers_.clear();
  registers_.reserve(register_types_.size());
  for (size_t r = 0; r < register_types_.size(); ++r) {
    absl::StatusOr<Literal> lit = Literal::Create(Shape::Array(register_types_[r], {length}));
    if (!lit.ok()) return lit.status();
    registers_.push_back(*std::move(lit));
    if (const Literal* c = constants_[r]) {
      FillRepeated(registers_.back().data(), c->data(), static_cast<int64_t>(c->size_bytes()),
                   length);
    }
  }
  length_ = length;
  register_data_.resize(registers_.size());
  for (size_t r = 0; r < registers_.size(); ++r) register_data_[r] = registers_[r].data();
  return absl::OkStatus();
}

void BatchProgram::PlanInPlace() {
  const size_t regs = register_types_.size();
  std::vector<bool> read_by_literal_step(regs, false), produced_raw(regs, false);
  for (Step& step : steps_) {
    PrimitiveType types[3] = {};
    for (int i = 0; i < step.arity; ++i) types[i] = register_types_[step.operands[i]];
    step.raw = RawStepOf(*step.inst, step.bitcast, step.flush,
                         absl::MakeConstSpan(types, step.arity), register_types_[step.result]);
    if (step.raw.kind == RawStep::Kind::kNone) {
      for (int i = 0; i < step.arity; ++i) read_by_literal_step[step.operands[i]] = true;
    } else {
      produced_raw[step.result] = true;
    }
  }
  auto is_result = [&](int32_t r) {
    return std::count(result_registers_.begin(), result_registers_.end(), r);
  };
  reads_in_place_.assign(parameter_registers_.size(), false);
  broadcast_in_place_.assign(parameter_registers_.size(), false);
  for (size_t p = 0; p < parameter_registers_.size(); ++p) {
    const int32_t r = parameter_registers_[p];
    const bool raw_only = !read_by_literal_step[r] && is_result(r) == 0;
    const bool broadcast = parameter_is_broadcast(static_cast<int64_t>(p));
    reads_in_place_[p] = !parameter_scalar_[p] && !broadcast && raw_only;
    broadcast_in_place_[p] = broadcast && raw_only;
  }
  writes_in_place_.assign(result_registers_.size(), false);
  for (size_t k = 0; k < result_registers_.size(); ++k) {
    const int32_t r = result_registers_[k];
    writes_in_place_[k] = produced_raw[r] && !read_by_literal_step[r] && is_result(r) == 1;
  }
  PlanChains();
}

struct BatchProgram::LinkPlan {
  int32_t steps = 1, result = -1;
  PrimitiveType type = PrimitiveType::kF32;
  std::array<int32_t, 4> operands = {-1, -1, -1, -1};
  FloatChainLink link;
};

namespace {

// The IEEE compare a chain link can do for `inst`, if any: partial order
// and a direction the kernel knows (other compares stay steps, which
// report what is wrong with them).
bool ChainCompareOf(const Instruction& inst, ChainCompare& c) {
  const std::string_view type = inst.GetString(AttrKind::kType);
  if (!ComparesFloatsInIeeeOrder(inst) || (!type.empty() && type != "FLOAT")) return false;
  static constexpr std::pair<std::string_view, ChainCompare> kDirections[] = {
      {"EQ", ChainCompare::kEq}, {"NE", ChainCompare::kNe}, {"LT", ChainCompare::kLt},
      {"LE", ChainCompare::kLe}, {"GT", ChainCompare::kGt}, {"GE", ChainCompare::kGe}};
  const std::string_view d = inst.GetString(AttrKind::kDirection);
  for (const auto& [name, value] : kDirections) {
    if (d == name) {
      c = value;
      return true;
    }
  }
  return false;
}

}  // namespace

bool BatchProgram::LinkAt(size_t s, absl::Span<const int32_t> reads, LinkPlan& plan) const {
  plan = LinkPlan();
  const Step& step = steps_[s];
  if (step.raw.flush_result) return false;
  if (step.raw.binary_float != nullptr) {
    // (binary_float is resolved for exactly the ops a chain runs.)
    plan.type = step.raw.type;
    plan.result = step.result;
    plan.operands = {step.operands[0], step.operands[1], -1, -1};
    plan.link.op = step.inst->opcode();
    return true;
  }
  if (step.raw.kind == RawStep::Kind::kUnaryFloat) {
    plan.link.unary = elementwise::UnaryFloatKernelFor(step.inst->opcode(), step.raw.type);
    if (plan.link.unary == nullptr) return false;
    plan.link.kind = FloatChainLink::Kind::kUnary;
    plan.link.op = step.inst->opcode();
    plan.type = step.raw.type;
    plan.result = step.result;
    plan.operands = {step.operands[0], -1, -1, -1};
    return true;
  }
  // compare(a, b) read only by the select after it: select(p, c, d).
  if (step.raw.kind != RawStep::Kind::kCompareFloat || s + 1 >= steps_.size()) return false;
  const Step& select = steps_[s + 1];
  if (select.raw.kind != RawStep::Kind::kSelect || select.raw.flush_result ||
      select.raw.type != step.raw.type || select.operands[0] != step.result) {
    return false;
  }
  if (reads[step.result] != 1 || !ChainCompareOf(*step.inst, plan.link.compare)) return false;
  plan.steps = 2;
  plan.type = step.raw.type;
  plan.result = select.result;
  plan.operands = {step.operands[0], step.operands[1], select.operands[1], select.operands[2]};
  plan.link.kind = FloatChainLink::Kind::kCompareSelect;
  return true;
}

void BatchProgram::PlanChains() {
  chains_.clear();
  for (Step& step : steps_) step.chain = -1;
  // Reads of each register: by steps, and by the caller for results.
  std::vector<int32_t> reads(register_types_.size(), 0);
  for (const Step& step : steps_) {
    for (int i = 0; i < step.arity; ++i) ++reads[step.operands[i]];
  }
  for (int32_t r : result_registers_) ++reads[r];
  std::vector<LinkPlan> plans;
  for (size_t s = 0; s < steps_.size();) {
    plans.assign(1, LinkPlan());
    if (!LinkAt(s, reads, plans[0])) {
      ++s;
      continue;
    }
    // Links from s to e, each after the first reading the value before it.
    size_t e = s + plans[0].steps;
    LinkPlan next;
    while (e < steps_.size() && LinkAt(e, reads, next) && next.type == plans[0].type &&
           std::count(next.operands.begin(), next.operands.end(), plans.back().result) > 0) {
      plans.push_back(next);
      e += next.steps;
    }
    if (e - s >= 2) {
      Chain chain;
      chain.first_step = static_cast<int32_t>(s);
      chain.steps = static_cast<int32_t>(e - s);
      chain.result = plans.back().result;
      chain.result_unread = reads[chain.result] == 1;
      chain.type = plans[0].type;
      for (size_t k = 0; k < plans.size(); ++k) {
        std::array<int32_t, 4> operands = plans[k].operands;
        if (k > 0) {
          for (int32_t& r : operands) r = r == plans[k - 1].result ? -1 : r;
        }
        // The value is stored as well where anything but the next link
        // reads it.
        int32_t tap = -1;
        if (k + 1 < plans.size()) {
          const int32_t value = plans[k].result;
          const auto& by_next = plans[k + 1].operands;
          if (reads[value] > std::count(by_next.begin(), by_next.end(), value)) tap = value;
        }
        chain.operands.push_back(operands);
        chain.taps.push_back(tap);
        chain.links.push_back(plans[k].link);
      }
      steps_[s].chain = static_cast<int32_t>(chains_.size());
      chains_.push_back(std::move(chain));
    }
    s = e;
  }
}

absl::Status BatchProgram::RunSteps(int64_t count) {
  for (size_t s = 0; s < steps_.size(); ++s) {
    const Step& step = steps_[s];
    if (step.chain >= 0) {
      Chain& chain = chains_[step.chain];
      for (size_t k = 0; k < chain.links.size(); ++k) {
        for (int j = 0; j < 4; ++j) {
          const int32_t r = chain.operands[k][j];
          chain.links[k].operands[j] = r < 0 ? nullptr : register_data_[r];
        }
        chain.links[k].tap = chain.taps[k] < 0 ? nullptr : register_data_[chain.taps[k]];
      }
      RunFloatChain(chain.type, chain.links, register_data_[chain.result], count, chain.stream);
      s += chain.steps - 1;
      continue;
    }
    if (const auto loop = step.raw.direct_binary()) {
      // (The commonest step, called without RunRawStep's dispatch.)
      loop(register_data_[step.operands[0]], register_data_[step.operands[1]],
           register_data_[step.result], count);
      continue;
    }
    if (step.raw.kind != RawStep::Kind::kNone) {
      const uint8_t* in[3] = {};
      for (int i = 0; i < step.arity; ++i) in[i] = register_data_[step.operands[i]];
      if (absl::Status st = RunRawStep(step.raw, in, register_data_[step.result], count);
          !st.ok()) {
        return st;
      }
      continue;
    }
    const Literal* ops[3] = {};
    for (int i = 0; i < step.arity; ++i) ops[i] = &registers_[step.operands[i]];
    if (absl::Status st = RunLiteralStep(*step.inst, step.bitcast, step.flush,
                                         absl::MakeConstSpan(ops, step.arity),
                                         registers_[step.result], absl::MakeSpan(flush_scratch_));
        !st.ok()) {
      return st;
    }
  }
  return absl::OkStatus();
}

// A block's steps run between its inputs' reads, so the memory streams
// stall while they do; asking for the next block's lines first keeps them
// moving (eltwise, f32[4096,4096] in blocks of 512, the mean of 16
// processes' medians: 8.5 -> 7.5 ms in a fast hour, 11.9 -> 9.4 in a slow
// one; the fastest run unchanged at 6.8-7.0). Into L2 (prefetcht2), not
// L1: on a Zen 4 EPYC, 8 interleaved processes' medians, L1 prefetches made
// x * y + x over f32[4096,4096] 10.7 ms, none 8.7, L2 ones 7.2; eltwise
// 22.3, 20.2, 17.9; the same exp(x) * y + x 14.0 and 10.4 (L1, L2);
// softmax, reduce, depthwise_conv and transformer the same within noise.
// Not where every step runs in float chains: a chain's tiles keep the
// streams moving, and the prefetches only compete with them (on
// 2026-12-04, medians of interleaved processes: eltwise 8.0-9.4 ms with
// them, 7.1-8.4 without; x * y + x 3.2-3.7 and 2.3-2.7; exp(x) * y + x
// 4.2-4.8 and 3.3-3.6), while a program of steps still gains (converts, a
// xor, a floor and two float ops over f32[4096,4096]: 24.3 -> 21.2 ms).
// `remaining`: the positions of this run after the block (none: nothing
// to ask for).
void BatchProgram::PrefetchNextBlock(absl::Span<const void* const> inputs, int64_t offset,
                                     int64_t remaining) const {
  const int64_t count = std::min(block_, remaining);
  if (count <= 0) return;
  for (size_t p = 0; p < inputs.size(); ++p) {
    if (parameter_scalar_[p] || parameter_is_broadcast(static_cast<int64_t>(p))) continue;
    const int64_t width = ByteWidth(parameter_types_[p]);
    const char* at = static_cast<const char*>(inputs[p]) + offset * width;
    for (int64_t b = 0; b < count * width; b += 64) __builtin_prefetch(at + b, 0, 1);
  }
}

// A result goes straight into its output unless the output is also an
// input (in-place updates: the block's later steps may still read it) or
// is streamed (from the register, a block of whole lines at a time). A
// streamed result that a chain's last link makes, and nothing else reads,
// is streamed by the chain itself (no pass through its register).
void BatchProgram::ChooseInPlaceWrites(absl::Span<const void* const> inputs,
                                       absl::Span<void* const> outputs, bool stream_outputs,
                                       absl::Span<bool> write_in_place) {
  for (Chain& chain : chains_) chain.stream = false;
  for (size_t r = 0; r < outputs.size(); ++r) {
    if (!writes_in_place_[r] ||
        std::find(inputs.begin(), inputs.end(), outputs[r]) != inputs.end()) {
      continue;
    }
    Chain* chain = nullptr;
    for (Chain& c : chains_) chain = c.result == result_registers_[r] ? &c : chain;
    if (stream_outputs && (chain == nullptr || !chain->result_unread)) continue;
    write_in_place[r] = true;
    if (stream_outputs) chain->stream = true;
  }
}

void BatchProgram::LoadBlockInputs(absl::Span<const void* const> inputs, int64_t offset,
                                   int64_t count, bool fill_scalars) {
  for (size_t p = 0; p < inputs.size(); ++p) {
    const int64_t width = ByteWidth(parameter_types_[p]);
    uint8_t* reg = registers_[parameter_registers_[p]].data();
    const uint8_t* src = static_cast<const uint8_t*>(inputs[p]);
    if (reads_in_place_[p]) {
      // Only raw steps read it: they take the input where it lies.
      register_data_[parameter_registers_[p]] = const_cast<uint8_t*>(src) + offset * width;
      continue;
    }
    if (parameter_scalar_[p]) {
      // The same value at every position: filled once per run (it may
      // differ between runs) and after a resize.
      if (fill_scalars) FillRepeated(reg, src + parameter_offsets_[p] * width, width, length_);
      continue;
    }
    if (parameter_is_broadcast(static_cast<int64_t>(p))) {
      Broadcast& b = broadcasts_[p];
      if (FilledAlready(b, offset, count)) {
        register_data_[parameter_registers_[p]] = reg;
        continue;
      }
      if (broadcast_in_place_[p]) {
        // Only raw steps read it: where the block is one contiguous run
        // of the operand, they take it where it lies.
        const uint8_t* at = BroadcastInPlace(b, src, width, offset, count);
        register_data_[parameter_registers_[p]] = at != nullptr ? const_cast<uint8_t*>(at) : reg;
        if (at != nullptr) continue;
      }
      FillBroadcast(b, src, width, offset, count, reg);
      NoteFill(b, offset, count);
      continue;
    }
    std::memcpy(reg, src + offset * width, count * width);
  }
}

absl::Status BatchProgram::RunFrom(absl::Span<const void* const> inputs,
                                   absl::Span<void* const> outputs, int64_t n, int64_t first,
                                   int64_t output_origin, bool stream_outputs, bool same_inputs) {
  if (inputs.size() != parameter_types_.size() || outputs.size() != result_types_.size()) {
    return absl::InvalidArgumentError(StrCat("the computation takes ", parameter_types_.size(),
                                             " parameters and gives ", result_types_.size(),
                                             " results"));
  }
  absl::InlinedVector<bool, 8> write_in_place(outputs.size(), false);
  ChooseInPlaceWrites(inputs, outputs, stream_outputs, absl::MakeSpan(write_in_place));
  // Inputs may differ from the last run's: periodic fills start afresh,
  // unless the caller says they are the same.
  if (!same_inputs) ForgetFills();
  const bool prefetch = chained_step_count() < step_count();
  for (int64_t offset = first; offset < first + n; offset += block_) {
    const int64_t count = std::min(block_, first + n - offset);
    // Registers a power of two >= count long (at least 16), so that small
    // runs do not pay for a whole block (scalars are filled along all of
    // it); a run's short last block keeps the registers as they are.
    int64_t length = 16;
    while (length < count) length *= 2;
    bool resized = false;
    if (length != length_ && (length > length_ || (offset == first && length_ > 4 * length))) {
      if (absl::Status st = Resize(length); !st.ok()) return st;
      resized = true;
      ForgetFills();
    }
    LoadBlockInputs(inputs, offset, count, offset == first || resized);
    for (Iota& iota : iotas_) {
      if (FilledAlready(iota.broadcast, offset, count)) continue;
      FillBroadcast(iota.broadcast, iota.line.data(), ByteWidth(register_types_[iota.reg]), offset,
                    count, registers_[iota.reg].data());
      NoteFill(iota.broadcast, offset, count);
    }
    for (size_t r = 0; r < outputs.size(); ++r) {
      if (!writes_in_place_[r]) continue;
      // (Reset when not in place this call: the pointer may still name an
      // earlier call's output.)
      const int32_t reg = result_registers_[r];
      register_data_[reg] = write_in_place[r]
                                ? static_cast<uint8_t*>(outputs[r]) +
                                      (offset - output_origin) * ByteWidth(result_types_[r])
                                : registers_[reg].data();
    }
    if (prefetch) PrefetchNextBlock(inputs, offset + count, first + n - offset - count);
    if (absl::Status st = RunSteps(count); !st.ok()) return st;
    for (size_t r = 0; r < outputs.size(); ++r) {
      if (write_in_place[r]) continue;
      const int64_t width = ByteWidth(result_types_[r]);
      uint8_t* dst = static_cast<uint8_t*>(outputs[r]) + (offset - output_origin) * width;
      const uint8_t* reg = registers_[result_registers_[r]].data();
      if (stream_outputs) {
        StreamCopy(dst, reg, count * width);
      } else {
        std::memcpy(dst, reg, count * width);
      }
    }
  }
  if (stream_outputs) StreamStoreFence();
  return absl::OkStatus();
}

namespace {

// 0, 1, ..., n - 1 as T (integers wrap).
template <typename T>
void IotaValues(uint8_t* bytes, int64_t n) {
  T* p = reinterpret_cast<T*>(bytes);
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(i);
}

}  // namespace

absl::StatusOr<Literal> IotaLine(PrimitiveType type, int64_t n) {
  absl::StatusOr<Literal> line = Literal::Create(Shape::Array(type, {n}));
  if (!line.ok()) return line.status();
  // Whole-byte integers and f32/f64 typed; the rest element by element.
  bool typed = false;
  DispatchType(type, [&](auto tag) {
    using T = typename decltype(tag)::T;
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      if (BitWidth(type) == 8 * static_cast<int>(sizeof(T))) {
        IotaValues<T>(line->data(), n);
        typed = true;
      }
    }
  });
  if (typed) return line;
  for (int64_t i = 0; i < n; ++i) {
    if (IsComplex(type)) {
      line->SetComplex(i, {static_cast<double>(i), 0.0});
    } else if (IsFloat(type)) {
      line->SetDouble(i, static_cast<double>(i));
    } else {
      line->SetInt(i, i);  // integers wrap, as a converted wider iota would
    }
  }
  return line;
}

}  // namespace hlo

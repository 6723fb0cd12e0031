#include "eval/evaluator.h"

#include <algorithm>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "absl/container/flat_hash_map.h"
#include "eval/batch_program.h"
#include "eval/denormals.h"
#include "eval/fusion_plan.h"
#include "eval/kernels.h"
#include "eval/profiler.h"
#include "ir/computation.h"
#include "ir/strings.h"

namespace hlo {

int64_t ShapeBytes(const Shape& shape) {
  if (shape.IsTuple()) {
    int64_t n = 0;
    for (const Shape* e : shape.tuple_shapes()) {
      int64_t b = ShapeBytes(*e);
      if (b < 0 || n > INT64_MAX - b) return -1;
      n += b;
    }
    return n;
  }
  if (!shape.IsArray()) return 0;
  int64_t count = shape.ElementCount();
  int64_t width = ByteWidth(shape.element_type());
  if (count < 0 || (width > 0 && count > INT64_MAX / width)) return -1;
  return count * width;
}

absl::Status CheckInputsFit(const Module& module, int64_t max_bytes) {
  const Computation* entry = module.entry();
  if (entry == nullptr) return absl::OkStatus();
  int64_t total = 0;  // bytes of the parameters before i
  for (int64_t i = 0; i < entry->parameter_count(); ++i) {
    const Instruction& param = *entry->parameter(i);
    int64_t bytes = ShapeBytes(param.shape());
    if (bytes >= 0 && total <= INT64_MAX - bytes && total + bytes <= max_bytes) {
      total += bytes;
      continue;
    }
    std::string where = module.source_name().empty() ? "<module>" : module.source_name();
    if (param.loc().line > 0) StrAppend(&where, ":", param.loc().line, ":", param.loc().col);
    return absl::ResourceExhaustedError(StrCat(
        where, ": error: %", param.name(), ": parameter ", i, " needs ",
        bytes < 0 ? std::string("more than 2^63") : StrCat(bytes), " bytes with ", total,
        " bytes of earlier parameters, over the limit of ", max_bytes, " bytes (--max-memory)"));
  }
  return absl::OkStatus();
}

// The order and use counts of a computation, computed once per computation.
struct ComputationPlan {
  std::vector<const Instruction*> order;
  std::vector<std::vector<int32_t>> operands;  // slots of each one's operands
  std::vector<int32_t> uses;                    // how many later reads
  int32_t root = -1;
  // Elementwise groups run as one loop (eval/fusion_plan.h): at a group's
  // root slot its group (whose inputs are that slot's operands), at the
  // other members' slots `fused_away` (they produce no value).
  std::vector<std::unique_ptr<FusedGroup>> groups;
  std::vector<FusedGroup*> group_at;
  std::vector<bool> fused_away;
};

const ComputationPlan& Evaluator::PlanFor(const Computation& comp) {
  auto it = plans_.find(&comp);
  if (it != plans_.end()) return *it->second;
  auto plan = std::make_unique<ComputationPlan>();
  std::vector<Instruction*> order = comp.PostOrder();
  absl::flat_hash_map<const Instruction*, int32_t> slot;
  slot.reserve(order.size());
  for (size_t i = 0; i < order.size(); ++i) slot[order[i]] = static_cast<int32_t>(i);
  plan->order.assign(order.begin(), order.end());
  plan->operands.resize(order.size());
  plan->uses.assign(order.size(), 0);
  plan->group_at.assign(order.size(), nullptr);
  plan->fused_away.assign(order.size(), false);
  if (options_.fast_paths) {
    plan->groups = FindFusedGroups(plan->order, options_.flush_denormals);
    for (const std::unique_ptr<FusedGroup>& g : plan->groups) {
      for (const Instruction* m : g->members) plan->fused_away[slot.at(m)] = true;
      plan->fused_away[slot.at(g->root)] = false;
      plan->group_at[slot.at(g->root)] = g.get();
    }
  }
  for (size_t i = 0; i < order.size(); ++i) {
    if (plan->fused_away[i]) continue;
    auto read = [&](const Instruction* op) {
      int32_t s = slot.at(op);
      plan->operands[i].push_back(s);
      ++plan->uses[s];
    };
    if (const FusedGroup* g = plan->group_at[i]) {
      for (const Instruction* op : g->inputs) read(op);
    } else {
      for (const Instruction* op : order[i]->operands()) read(op);
    }
  }
  plan->root = slot.at(comp.root());
  ++plan->uses[plan->root];  // the result outlives the loop
  return *plans_.emplace(&comp, std::move(plan)).first->second;
}

BatchProgram* Evaluator::BatchProgramFor(const Computation& comp) {
  if (!options_.fast_paths) return nullptr;
  auto it = batch_programs_.find(&comp);
  if (it != batch_programs_.end()) return it->second.get();
  absl::StatusOr<std::unique_ptr<BatchProgram>> program = BatchProgram::Compile(comp, options_.flush_denormals);
  std::unique_ptr<BatchProgram> kept = program.ok() ? *std::move(program) : nullptr;
  return batch_programs_.emplace(&comp, std::move(kept)).first->second.get();
}

Evaluator::Evaluator(Module& module, EvalOptions options)
    : module_(module), options_(std::move(options)) {}

Evaluator::~Evaluator() = default;

absl::Status Evaluator::Reserve(int64_t bytes, const Instruction& inst) {
  if (bytes < 0 || bytes > options_.max_memory_bytes - live_bytes_) {
    return Located(inst, absl::ResourceExhaustedError(StrCat(
                             "needs ", bytes < 0 ? std::string("more than 2^63") : StrCat(bytes),
                             " bytes for its result with ", live_bytes_,
                             " bytes live, over the limit of ", options_.max_memory_bytes,
                             " bytes (--max-memory)")));
  }
  live_bytes_ += bytes;
  peak_live_bytes_ = std::max(peak_live_bytes_, live_bytes_);
  return absl::OkStatus();
}

absl::Status Evaluator::Located(const Instruction& inst, const absl::Status& status) const {
  std::string where = module_.source_name().empty() ? "<module>" : module_.source_name();
  if (inst.loc().line > 0) StrAppend(&where, ":", inst.loc().line, ":", inst.loc().col);
  return absl::Status(status.code(), StrCat(where, ": error: %", inst.name(), ": ",
                                            std::string(status.message())));
}

absl::StatusOr<Value> Evaluator::Run(std::vector<Value> arguments) {
  const Computation* entry = module_.entry();
  if (!entry) return absl::InvalidArgumentError("the module has no entry computation");
  if (static_cast<int64_t>(arguments.size()) != entry->parameter_count()) {
    return absl::InvalidArgumentError(StrCat("the entry computation takes ",
                                             entry->parameter_count(), " parameters but ",
                                             arguments.size(), " inputs were given"));
  }
  for (size_t i = 0; i < arguments.size(); ++i) {
    const Instruction* p = entry->parameter(static_cast<int64_t>(i));
    absl::Status st = CheckValueShape(arguments[i], p->shape(), StrCat("input ", i));
    if (!st.ok()) return Located(*p, st);
  }
  // The inputs are live for the whole run.
  int64_t input_bytes = 0;
  for (size_t i = 0; i < arguments.size(); ++i) {
    const Instruction* p = entry->parameter(static_cast<int64_t>(i));
    int64_t bytes = ShapeBytes(p->shape());
    if (absl::Status st = Reserve(bytes, *p); !st.ok()) {
      Release(input_bytes);
      return st;
    }
    input_bytes += bytes;
  }
  std::vector<const Value*> ptrs;
  for (const Value& v : arguments) ptrs.push_back(&v);
  ScopedFlushDenormals denormal_mode(options_.flush_denormals);
  absl::StatusOr<Value> result = Call(*entry, ptrs);
  Release(input_bytes);
  return result;
}

absl::StatusOr<Value> Evaluator::Call(const Computation& comp,
                                      absl::Span<const Value* const> arguments) {
  if (++call_depth_ > 10000) {
    --call_depth_;
    return absl::ResourceExhaustedError("computations nest more than 10000 calls deep");
  }
  const ComputationPlan& plan = PlanFor(comp);
  const size_t n = plan.order.size();
  std::vector<Value> slots(n);
  std::vector<int32_t> remaining = plan.uses;
  std::vector<const Value*> ops;
  std::vector<bool> reusable;
  bool report = options_.progress && comp.is_entry();
  Profiler* profiler =
      options_.profiler != nullptr && Profiler::Covers(comp) ? options_.profiler : nullptr;
  absl::Status failure;
  for (size_t i = 0; i < n; ++i) {
    const Instruction& inst = *plan.order[i];
    if (plan.fused_away[i]) {
      // Computed inside its group's loop.
    } else if (inst.opcode() == Opcode::kParameter) {
      int64_t p = inst.parameter_number();
      if (p >= static_cast<int64_t>(arguments.size())) {
        failure = Located(inst, absl::InvalidArgumentError("no argument for this parameter"));
        break;
      }
      slots[i] = *arguments[p];
    } else {
      ops.clear();
      for (int32_t s : plan.operands[i]) ops.push_back(&slots[s]);
      int64_t bytes = ShapeBytes(inst.shape());
      if (absl::Status st = Reserve(bytes, inst); !st.ok()) {
        failure = st;
        break;
      }
      auto evaluate = [&]() -> absl::StatusOr<Value> {
        FusedGroup* group = plan.group_at[i];
        if (group == nullptr) return Evaluate(inst, ops);
        // An input read by this group alone, not the caller's, may become
        // the result.
        reusable.clear();
        for (int32_t s : plan.operands[i]) {
          reusable.push_back(remaining[s] == 1 && plan.order[s]->opcode() != Opcode::kParameter);
        }
        absl::StatusOr<Value> r = RunFusedGroup(*group, ops, reusable);
        if (!r.ok()) return Located(inst, r.status());
        return r;
      };
      absl::StatusOr<Value> result = profiler ? profiler->Time(inst, evaluate) : evaluate();
      if (!result.ok()) {
        Release(bytes);
        failure = result.status();
        break;
      }
      slots[i] = *std::move(result);
      // Free operands after their last use.
      for (int32_t s : plan.operands[i]) {
        if (--remaining[s] == 0) {
          // A parameter's buffer is the caller's, counted there.
          if (plan.order[s]->opcode() != Opcode::kParameter) {
            Release(ShapeBytes(plan.order[s]->shape()));
          }
          slots[s] = Value();
        }
      }
    }
    if (report) options_.progress(static_cast<int64_t>(i + 1), static_cast<int64_t>(n));
  }
  --call_depth_;
  if (!failure.ok()) {
    for (size_t i = 0; i < n; ++i) {
      if (plan.order[i]->opcode() != Opcode::kParameter && slots[i].is_array()) {
        Release(ShapeBytes(plan.order[i]->shape()));
      }
    }
    return failure;
  }
  // The caller counts the result as its instruction's.
  if (plan.order[plan.root]->opcode() != Opcode::kParameter) {
    Release(ShapeBytes(plan.order[plan.root]->shape()));
  }
  return std::move(slots[plan.root]);
}

absl::StatusOr<Value> Evaluator::Evaluate(const Instruction& inst, Operands ops) {
  absl::StatusOr<Value> result;
  switch (inst.opcode()) {
    case Opcode::kReduce: case Opcode::kReduceWindow: case Opcode::kSelectAndScatter:
      result = EvalReduction(inst, ops, *this);
      if (options_.flush_denormals && result.ok()) FlushFastReductionResult(inst, *result);
      break;
    case Opcode::kCall: case Opcode::kFusion: case Opcode::kWhile:
    case Opcode::kConditional: case Opcode::kMap: case Opcode::kOptimizationBarrier:
    case Opcode::kAfterAll: case Opcode::kAddDependency: case Opcode::kDomain:
    case Opcode::kScan:
      result = EvalControl(inst, ops, *this);
      break;
    case Opcode::kBroadcast: case Opcode::kReshape: case Opcode::kTranspose:
    case Opcode::kSlice: case Opcode::kDynamicSlice: case Opcode::kDynamicUpdateSlice:
    case Opcode::kConcatenate: case Opcode::kPad: case Opcode::kReverse:
    case Opcode::kIota: case Opcode::kCopy: case Opcode::kBitcast: case Opcode::kTuple:
    case Opcode::kGetTupleElement: case Opcode::kConstant:
    case Opcode::kGetDimensionSize: case Opcode::kSetDimensionSize:
    case Opcode::kDynamicReshape: case Opcode::kCopyStart: case Opcode::kCopyDone:
      result = EvalDataMovement(inst, ops, *this);
      break;
    case Opcode::kDot: case Opcode::kRaggedDot: case Opcode::kScaledDot:
      result = EvalDot(inst, ops, *this);
      break;
    case Opcode::kConvolution:
      result = EvalConvolution(inst, ops, *this);
      break;
    case Opcode::kCholesky: case Opcode::kTriangularSolve:
      result = EvalLinalg(inst, ops, *this);
      break;
    case Opcode::kFft:
      result = EvalFft(inst, ops, *this);
      break;
    case Opcode::kBatchNormTraining: case Opcode::kBatchNormInference:
    case Opcode::kBatchNormGrad:
      result = EvalBatchNorm(inst, ops, *this);
      break;
    case Opcode::kGather: case Opcode::kScatter:
      result = EvalGatherScatter(inst, ops, *this);
      break;
    case Opcode::kSort: case Opcode::kTopK:
      result = EvalSort(inst, ops, *this);
      break;
    case Opcode::kCustomCall:
      result = EvalCustomCall(inst, ops, *this);
      break;
    case Opcode::kRng: case Opcode::kRngBitGenerator: case Opcode::kRngGetAndUpdateState:
      result = EvalRandom(inst, ops, *this);
      break;
    case Opcode::kAllGather: case Opcode::kAllGatherStart: case Opcode::kAllGatherDone:
    case Opcode::kAllReduce: case Opcode::kAllReduceStart: case Opcode::kAllReduceDone:
    case Opcode::kAllToAll: case Opcode::kRaggedAllToAll: case Opcode::kReduceScatter:
    case Opcode::kCollectiveBroadcast: case Opcode::kCollectivePermute:
    case Opcode::kCollectivePermuteStart: case Opcode::kCollectivePermuteDone:
    case Opcode::kCollectiveReduce: case Opcode::kReplicaId: case Opcode::kPartitionId:
    case Opcode::kSend: case Opcode::kSendDone: case Opcode::kRecv: case Opcode::kRecvDone:
    case Opcode::kInfeed: case Opcode::kOutfeed:
    case Opcode::kAsyncStart: case Opcode::kAsyncUpdate: case Opcode::kAsyncDone:
      result = EvalCollective(inst, ops, *this);
      break;
    default:
      if (IsElementwise(inst.opcode())) {
        result = options_.flush_denormals ? EvalElementwiseFlushingDenormals(inst, ops)
                                          : EvalElementwise(inst, ops);
        break;
      }
      result = absl::UnimplementedError(
          StrCat("hlo-run cannot evaluate '", inst.OpcodeText(), "' yet"));
  }
  if (!result.ok()) {
    // Errors from nested calls already name their instruction.
    std::string_view msg(result.status().message().data(), result.status().message().size());
    if (msg.find(": error: %") != std::string_view::npos) return result.status();
    return Located(inst, result.status());
  }
  return result;
}

absl::Status CheckValueShape(const Value& value, const Shape& shape, std::string_view what) {
  if (shape.IsTuple()) {
    if (!value.is_tuple() || static_cast<int64_t>(value.elements().size()) != shape.tuple_size()) {
      return absl::InvalidArgumentError(StrCat(what, " should be a tuple of ",
                                               shape.tuple_size(), " elements"));
    }
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      absl::Status st = CheckValueShape(value.element(i), shape.tuple_shape(i),
                                        StrCat(what, " element ", i));
      if (!st.ok()) return st;
    }
    return absl::OkStatus();
  }
  if (shape.IsToken()) {
    if (value.is_token()) return absl::OkStatus();
    return absl::InvalidArgumentError(StrCat(what, " should be a token"));
  }
  if (!value.is_array() || !value.array().shape().Compatible(shape.WithoutLayout())) {
    std::string got = value.is_array() ? value.array().shape().ToString(false)
                      : value.is_tuple() ? std::string("a tuple")
                                         : std::string("a token");
    return absl::InvalidArgumentError(StrCat(what, " has shape ", got, " but ",
                                             shape.ToString(false), " is expected"));
  }
  return absl::OkStatus();
}

namespace {

// Keeps freed result buffers in the heap for the next results. By default
// glibc hands a freed chunk at the top of the heap back to the kernel once
// the free space passes its trim threshold, so the next large result is
// fresh memory again and pays a page fault per 4 KiB (measured on softmax
// f32[256,8192]: 3.0 ms with this, 6.4 ms without, once results reuse
// their operands' buffers). Large buffers (past 32 MiB, glibc's largest
// mmap threshold) are still mapped and unmapped one by one.
bool TuneAllocator() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
  return true;
}

void TuneAllocatorOnce() {
  [[maybe_unused]] static const bool tuned = TuneAllocator();
}

}  // namespace

absl::StatusOr<Value> NewArray(const Shape& shape) {
  TuneAllocatorOnce();
  auto lit = Literal::Create(shape);
  if (!lit.ok()) return lit.status();
  return Value::Array(std::make_shared<Literal>(*std::move(lit)));
}

absl::StatusOr<Value> NewArrayUninitialized(const Shape& shape) {
  TuneAllocatorOnce();
  auto lit = Literal::CreateUninitialized(shape);
  if (!lit.ok()) return lit.status();
  return Value::Array(std::make_shared<Literal>(*std::move(lit)));
}

}  // namespace hlo

// custom-call: a registry from custom_call_target to the function that
// evaluates it. Targets are opaque to XLA itself, so only those whose
// meaning is fixed by XLA's own passes are here:
//
//   TopK       (f32[..,n]) -> (f32[..,k], s32[..,k]), made by XLA's
//              TopkRewriter (eval/kernels/sort_topk.cc).
//   Sharding, SPMDFullToShardShape, SPMDShardToFullShape,
//   xla.sdy.FuncResultSharding, xla.sdy.PropagationBarrier
//              partitioning annotations: on one device, the operand itself.
//   xla.sdy.ShardingGroup
//              a Shardy annotation with no result.
//   xla.sdy.GlobalToLocalShape, xla.sdy.LocalToGlobalShape
//              the ends of a manual computation (eval/collectives/sdy_manual_computation.cc).
//   lapack_<p><routine>_ffi, lapack_<p><routine>, blas_<p>trsm
//              jaxlib's CPU LAPACK kernels (p = s, d, c, z), the routine
//              families of kLapackRoutines (eval/linalg/lapack_kernels.h).
//   __cudnn$*, __cublas$*, cusolver_*_ffi, cu_lu_pivots_to_permutation
//              XLA:GPU's library calls and jaxlib's GPU kernels
//              (eval/gpu/gpu_custom_calls.h).
#include <string_view>

#include "eval/gpu/gpu_custom_calls.h"
#include "eval/kernels/kernels.h"
#include "eval/kernels/sort_internal.h"
#include "eval/linalg/lapack_kernels.h"
#include "ir/computation.h"
#include "ir/strings.h"

namespace hlo {
namespace {

using CustomCallFn = absl::StatusOr<Value> (*)(const Instruction& inst, Operands ops,
                                               KernelContext& ev);

absl::StatusOr<Value> TopKTarget(const Instruction& inst, Operands ops, KernelContext& ev) {
  return sort_internal::EvalTopKCustomCall(inst, ops, ev);
}

// An annotation that means the identity on a single device.
absl::StatusOr<Value> Identity(const Instruction& inst, Operands ops, KernelContext&) {
  if (ops.size() != 1) {
    return absl::InvalidArgumentError(
        StrCat("custom-call takes one operand here, not ", ops.size()));
  }
  if (auto st = CheckValueShape(*ops[0], inst.shape(), "the operand"); !st.ok()) return st;
  return *ops[0];
}

// An annotation with no result (an empty tuple): nothing to do.
absl::StatusOr<Value> NoResult(const Instruction& inst, Operands, KernelContext&) {
  if (!inst.shape().IsTuple() || inst.shape().tuple_size() != 0) {
    return absl::InvalidArgumentError(
        StrCat("custom-call ", inst.GetString(AttrKind::kCustomCallTarget),
               " returns an empty tuple, not ", inst.shape().ToString(false)));
  }
  return Value::Tuple({});
}

struct Target {
  std::string_view name;
  CustomCallFn fn;
};

constexpr Target kTargets[] = {
    {"TopK", &TopKTarget},
    {"Sharding", &Identity},
    {"SPMDFullToShardShape", &Identity},
    {"SPMDShardToFullShape", &Identity},
    // Shardy's round-trip annotations (xla/service/spmd/shardy/constants.h).
    {"xla.sdy.FuncResultSharding", &Identity},
    {"xla.sdy.PropagationBarrier", &Identity},
    {"xla.sdy.ShardingGroup", &NoResult},
    {"xla.sdy.GlobalToLocalShape", &EvalSdyGlobalToLocalShape},
    {"xla.sdy.LocalToGlobalShape", &EvalSdyLocalToGlobalShape},
};

using LapackFn = absl::StatusOr<Value> (*)(lapack::Call& call);

struct LapackRoutine {
  std::string_view name;
  LapackFn fn;
  std::string_view types;  // the type letters jaxlib names it with
  bool legacy;             // jaxlib also had the form without `_ffi`
};

constexpr LapackRoutine kLapackRoutines[] = {
    {"potrf", &lapack::EvalPotrf, "sdcz", true},  {"trsm", &lapack::EvalTrsm, "sdcz", true},
    {"getrf", &lapack::EvalGetrf, "sdcz", true},  {"geqrf", &lapack::EvalGeqrf, "sdcz", true},
    {"geqp3", &lapack::EvalGeqp3, "sdcz", false}, {"orgqr", &lapack::EvalOrgqr, "sd", true},
    {"ungqr", &lapack::EvalOrgqr, "cz", true},    {"ormqr", &lapack::EvalOrmqr, "sd", false},
    {"unmqr", &lapack::EvalOrmqr, "cz", false},   {"gesdd", &lapack::EvalGesdd, "sdcz", true},
    {"gesvd", &lapack::EvalGesvd, "sdcz", false}, {"syevd", &lapack::EvalSyevd, "sd", true},
    {"heevd", &lapack::EvalSyevd, "cz", true},    {"geev", &lapack::EvalGeev, "sdcz", true},
    {"gees", &lapack::EvalGees, "sdcz", true},    {"gehrd", &lapack::EvalGehrd, "sdcz", true},
    {"sytrd", &lapack::EvalSytrd, "sd", true},    {"hetrd", &lapack::EvalSytrd, "cz", true},
    {"gtsv", &lapack::EvalGtsv, "sdcz", false},
};

const LapackRoutine* FindLapackRoutine(const lapack::Target& t) {
  for (const LapackRoutine& r : kLapackRoutines) {
    if (r.name == t.routine && (t.ffi || r.legacy) &&
        r.types.find(lapack::TypeLetter(t.type)) != std::string_view::npos) {
      return &r;
    }
  }
  return nullptr;
}

}  // namespace

absl::StatusOr<Value> EvalCustomCall(const Instruction& inst, Operands ops, KernelContext& ev) {
  std::string_view target = inst.GetString(AttrKind::kCustomCallTarget);
  for (const Target& t : kTargets) {
    if (t.name == target) return t.fn(inst, ops, ev);
  }
  if (std::optional<lapack::Target> t = lapack::ParseTarget(target)) {
    if (const LapackRoutine* r = FindLapackRoutine(*t)) {
      lapack::Call call(inst, ops, *t);
      return r->fn(call);
    }
  }
  if (gpu::GpuCustomCallFn fn = gpu::FindGpuCustomCall(target)) return fn(inst, ops, ev);
  return absl::UnimplementedError(
      StrCat("hlo-run has no implementation of custom-call target '", target, "'"));
}

}  // namespace hlo

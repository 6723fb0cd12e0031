// custom-call: a registry from custom_call_target to the function that
// evaluates it. Targets are opaque to XLA itself, so only those whose
// meaning is fixed by XLA's own passes (or by jaxlib's kernels) are here.
// kTargets and kLapackRoutines are the one list of what hlo-run implements:
// each entry names a target (or a family), its handler and one line about it;
// ListCustomCallTargets() gives them to README's list (custom_call_test.cc
// holds the two together). A new target: its line here and its row in
// README's table (the test prints the rows it expects).
#include "eval/custom_call.h"

#include <string>
#include <string_view>
#include <vector>

#include "eval/gpu/gpu_custom_calls.h"
#include "eval/kernels/kernels.h"
#include "eval/kernels/sort_internal.h"
#include "eval/kernels/stablehlo_check.h"
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
  std::string_view description;
};

constexpr Target kTargets[] = {
    {"TopK", &TopKTarget,
     "the k largest of the last dimension and their indices (XLA's TopkRewriter makes it)"},
    {"Sharding", &Identity, "partitioning annotation: on one device, the operand itself"},
    {"SPMDFullToShardShape", &Identity,
     "partitioning annotation: on one device, the operand itself"},
    {"SPMDShardToFullShape", &Identity,
     "partitioning annotation: on one device, the operand itself"},
    // Shardy's round-trip annotations (xla/service/spmd/shardy/constants.h).
    {"xla.sdy.FuncResultSharding", &Identity,
     "Shardy annotation: on one device, the operand itself"},
    {"xla.sdy.PropagationBarrier", &Identity,
     "Shardy annotation: on one device, the operand itself"},
    {"xla.sdy.ShardingGroup", &NoResult, "Shardy annotation with no result (an empty tuple)"},
    {"xla.sdy.GlobalToLocalShape", &EvalSdyGlobalToLocalShape,
     "entry of a Shardy manual computation: the operands, which its call cuts into shards"},
    {"xla.sdy.LocalToGlobalShape", &EvalSdyLocalToGlobalShape,
     "exit of a Shardy manual computation: the devices' shards joined by its out-shardings"},
    // StableHLO's interpreter tests' check ops (stablehlo/ops_check.cc).
    {"stablehlo.check.expect_eq", &EvalStableHloCheck,
     "StableHLO's check.expect_eq: operand 0 equals operand 1 (IEEE), else an error"},
    {"stablehlo.check.expect_almost_eq", &EvalStableHloCheck,
     "StableHLO's check.expect_almost_eq: within backend_config's tolerance=X (NaN matches NaN)"},
    {"stablehlo.check.expect_close", &EvalStableHloCheck,
     "StableHLO's check.expect_close: ULP difference within backend_config's bounds"},
    {"stablehlo.check.expect_serialized_eq", &EvalExpectSerializedEq,
     "StableHLO's check.expect_serialized_eq: the value interpreter.probe recorded (iter=N)"},
    {"stablehlo.interpreter.print", &EvalInterpreterPrint,
     "StableHLO's interpreter.print: the operand printed on standard output as it runs"},
    {"stablehlo.interpreter.probe", &EvalInterpreterProbe,
     "StableHLO's interpreter.probe: the operand, recorded under backend_config's probe_id"},
};

using LapackFn = absl::StatusOr<Value> (*)(lapack::Call& call);

struct LapackRoutine {
  std::string_view name;
  LapackFn fn;
  std::string_view types;  // the type letters jaxlib names it with
  bool legacy;             // jaxlib also had the form without `_ffi`
  std::string_view description;
};

constexpr LapackRoutine kLapackRoutines[] = {
    {"potrf", &lapack::EvalPotrf, "sdcz", true, "Cholesky factorisation"},
    {"trsm", &lapack::EvalTrsm, "sdcz", true, "triangular solve (BLAS)"},
    {"getrf", &lapack::EvalGetrf, "sdcz", true, "LU factorisation with partial pivoting"},
    {"geqrf", &lapack::EvalGeqrf, "sdcz", true, "QR factorisation (Householder reflectors)"},
    {"geqp3", &lapack::EvalGeqp3, "sdcz", false, "QR factorisation with column pivoting"},
    {"orgqr", &lapack::EvalOrgqr, "sd", true, "Q from Householder reflectors"},
    {"ungqr", &lapack::EvalOrgqr, "cz", true, "Q from Householder reflectors"},
    {"ormqr", &lapack::EvalOrmqr, "sd", false, "Q from reflectors times a matrix"},
    {"unmqr", &lapack::EvalOrmqr, "cz", false, "Q from reflectors times a matrix"},
    {"gesdd", &lapack::EvalGesdd, "sdcz", true, "SVD, divide and conquer"},
    {"gesvd", &lapack::EvalGesvd, "sdcz", false, "SVD, QR iteration"},
    {"syevd", &lapack::EvalSyevd, "sd", true, "symmetric eigensystem"},
    {"heevd", &lapack::EvalSyevd, "cz", true, "Hermitian eigensystem"},
    {"geev", &lapack::EvalGeev, "sdcz", true, "general eigensystem"},
    {"gees", &lapack::EvalGees, "sdcz", true, "Schur factorisation"},
    {"gehrd", &lapack::EvalGehrd, "sdcz", true, "Hessenberg reduction"},
    {"sytrd", &lapack::EvalSytrd, "sd", true, "symmetric tridiagonal reduction"},
    {"hetrd", &lapack::EvalSytrd, "cz", true, "Hermitian tridiagonal reduction"},
    {"gtsv", &lapack::EvalGtsv, "sdcz", false, "tridiagonal solve"},
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

const Target* FindTarget(std::string_view target) {
  for (const Target& t : kTargets) {
    if (t.name == target) return &t;
  }
  return nullptr;
}

}  // namespace

absl::StatusOr<Value> EvalCustomCall(const Instruction& inst, Operands ops, KernelContext& ev) {
  std::string_view target = inst.GetString(AttrKind::kCustomCallTarget);
  if (const Target* t = FindTarget(target)) return t->fn(inst, ops, ev);
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

bool HasCustomCallHandler(std::string_view target) {
  if (const Target* t = FindTarget(target)) return t->fn != nullptr;
  if (gpu::FindGpuCustomCall(target) != nullptr) return true;
  std::optional<lapack::Target> t = lapack::ParseTarget(target);
  const LapackRoutine* r = t ? FindLapackRoutine(*t) : nullptr;
  return r != nullptr && r->fn != nullptr;
}

std::vector<CustomCallTargetInfo> ListCustomCallTargets() {
  std::vector<CustomCallTargetInfo> list;
  for (const Target& t : kTargets) list.push_back({{std::string(t.name)}, "", t.description});
  for (const LapackRoutine& r : kLapackRoutines) {
    CustomCallTargetInfo info{{StrCat("lapack_?", r.name, "_ffi")}, r.types, r.description};
    if (r.legacy) info.names.push_back(StrCat(r.name == "trsm" ? "blas_?" : "lapack_?", r.name));
    list.push_back(std::move(info));
  }
  for (gpu::GpuTargetInfo& g : gpu::ListGpuCustomCallTargets()) {
    list.push_back({std::move(g.names), "", g.description});
  }
  return list;
}

}  // namespace hlo

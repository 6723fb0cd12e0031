// XLA:GPU's cuDNN layer norm, __cudnn$norm, as
// xla/backends/gpu/transforms/cudnn_norm_rewriter.cc builds it and
// xla/service/gpu/thunk_emitter.cc (EmitNormThunk) reads it, after
// cudnn_norm_backend_config's kind and epsilon:
//
//   LAYER_FWD_INFER (x, scale, bias) -> (y, u8[workspace])
//   LAYER_FWD_TRAIN (x, scale, bias) -> (y, expectation, norm_factor, u8[workspace])
//   LAYER_BWD (x, scale, dy, expectation, norm_factor) -> (dx, dscale, dbias, u8[workspace])
//
// x is [N, ...]: each of its N rows (dimension 0) is normalised over the
// other dimensions (the rewriter transposes the normalised dimensions last,
// merges the rest into dimension 0 and pads to 4 dimensions); scale, bias,
// dscale and dbias are [1, ...] with x's other dimensions; expectation and
// norm_factor hold one value per row ([N,1,1,1]). Forward: mean = E[x],
// var = E[(x - mean)^2], nf = (var + epsilon)^-1/2, y = (x - mean) * nf *
// scale + bias; expectation and norm_factor are mean and nf (cuDNN's saved
// mean and inverse variance, which the rewriter puts in place of its own).
// Backward, the gradients the rewriter matches (MatchLayerNormGradient),
// from the given expectation and norm factor: xc = x - expectation, g =
// scale * dy, F1 = -xc * nf^3 * E[xc * g], F2 = nf * g, dx = F1 + F2 -
// E[F1 + F2]; dscale = the sum over rows of dy * xc * nf, dbias of dy.
// The arithmetic runs in f32 (f64 when x is f64, as --precision=f64 makes
// it) and rounds once to the result types.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "eval/gpu/float_codec.h"
#include "eval/gpu/gpu_config.h"
#include "eval/gpu/gpu_custom_calls.h"
#include "eval/runtime/parallel.h"
#include "ir/status_macros.h"
#include "ir/strings.h"

namespace hlo::gpu {
namespace {

absl::Status Invalid(std::string message) { return absl::InvalidArgumentError(std::move(message)); }

constexpr std::string_view kTarget = "custom-call __cudnn$norm";

enum class Kind { kInfer, kTrain, kBackward };

absl::StatusOr<Kind> ReadKind(const Json& m) {
  HLO_ASSIGN_OR_RETURN(std::string k, EnumField(m, "kind", "LAYER_FWD_INFER"));
  if (k == "LAYER_FWD_INFER" || k == "0") return Kind::kInfer;
  if (k == "LAYER_FWD_TRAIN" || k == "1") return Kind::kTrain;
  if (k == "LAYER_BWD" || k == "2") return Kind::kBackward;
  return Invalid(
      StrCat(kTarget, ": kind ", k, " is not LAYER_FWD_INFER, LAYER_FWD_TRAIN or LAYER_BWD"));
}

// The call's operands and results, checked against x's shape.
struct Shapes {
  const Shape* x = nullptr;
  int64_t rows = 0, cols = 0;
  std::vector<int64_t> param_dims;  // scale's: [1, x's other dims]
};

absl::Status CheckFloat(const Literal& l, std::string_view name) {
  if (!IsFloat(l.element_type())) {
    return Invalid(
        StrCat(kTarget, ": ", name, " must be a float array, not ", l.shape().ToString(false)));
  }
  return absl::OkStatus();
}

absl::StatusOr<Shapes> CheckOperands(Kind kind, Operands ops) {
  const size_t want = kind == Kind::kBackward ? 5 : 3;
  if (ops.size() != want) {
    return Invalid(StrCat(
        kTarget, " (", kind == Kind::kBackward ? "LAYER_BWD" : "forward", ") takes ", want,
        " operands ",
        kind == Kind::kBackward ? "(x, scale, dy, expectation, norm_factor)" : "(x, scale, bias)",
        ", not ", ops.size()));
  }
  const char* names[] = {"x", "scale", kind == Kind::kBackward ? "dy" : "bias", "expectation",
                         "norm_factor"};
  for (size_t i = 0; i < ops.size(); ++i) {
    if (!ops[i]->is_array()) return Invalid(StrCat(kTarget, ": ", names[i], " is a tuple"));
    HLO_RETURN_IF_ERROR(CheckFloat(ops[i]->array(), names[i]));
  }
  Shapes s;
  s.x = &ops[0]->array().shape();
  if (s.x->rank() < 2) {
    return Invalid(StrCat(kTarget, ": x must have a row dimension and normalised dimensions, not ",
                          s.x->ToString(false)));
  }
  s.rows = s.x->dim(0);
  s.cols = s.rows == 0 ? 0 : ops[0]->array().element_count() / s.rows;
  s.param_dims.assign(s.x->dims().begin(), s.x->dims().end());
  s.param_dims[0] = 1;
  for (size_t i = 1; i < ops.size(); ++i) {
    const Shape& o = ops[i]->array().shape();
    const bool ok = i == 1 || (i == 2 && kind != Kind::kBackward)
                        ? o.dims() == absl::Span<const int64_t>(s.param_dims)
                    : i == 2 ? o.dims() == s.x->dims()
                             : o.ElementCount() == s.rows;
    if (!ok) {
      return Invalid(
          StrCat(kTarget, ": ", names[i], " is ", o.ToString(false), ", which does not ",
                 i < 3 ? "have the dims it takes from x " : "hold one value per row of x ",
                 s.x->ToString(false)));
    }
  }
  return s;
}

absl::Status CheckResults(const Instruction& inst, Kind kind, const Shapes& s) {
  const Shape& r = inst.shape();
  const int64_t n = kind == Kind::kInfer ? 1 : 3;
  bool ok = r.IsTuple() && r.tuple_size() >= n;
  for (int64_t i = 0; ok && i < n; ++i) {
    const Shape& e = r.tuple_shape(i);
    ok = e.IsArray() && IsFloat(e.element_type()) &&
         (i == 0                    ? e.dims() == s.x->dims()
          : kind == Kind::kBackward ? e.dims() == absl::Span<const int64_t>(s.param_dims)
                                    : e.ElementCount() == s.rows);
  }
  if (!ok) {
    return Invalid(StrCat(kTarget, " on x ", s.x->ToString(false), " returns ",
                          kind == Kind::kInfer   ? "(y, u8[workspace])"
                          : kind == Kind::kTrain ? "(y, expectation, norm_factor, u8[workspace])"
                                                 : "(dx, dscale, dbias, u8[workspace])",
                          ", not ", r.ToString(false)));
  }
  return absl::OkStatus();
}

template <typename F>
std::vector<F> Values(const Literal& l) {
  std::vector<F> v(l.element_count());
  for (int64_t i = 0; i < l.element_count(); ++i) v[i] = static_cast<F>(LoadLikeGetDouble(l, i));
  return v;
}

absl::StatusOr<std::vector<Value>> NewResults(const Instruction& inst, int64_t n) {
  std::vector<Value> out;
  for (int64_t i = 0; i < n; ++i) {
    HLO_ASSIGN_OR_RETURN(Value v, NewArrayUninitialized(inst.shape().tuple_shape(i)));
    out.push_back(std::move(v));
  }
  return out;
}

// Rows a part of the forward norm at least.
constexpr int64_t kRowsPerPart = 8;

template <typename F>
absl::StatusOr<std::vector<Value>> Forward(const Instruction& inst, Operands ops, bool train,
                                           const Shapes& s, double epsilon) {
  const std::vector<F> x = Values<F>(ops[0]->array()), scale = Values<F>(ops[1]->array()),
                       bias = Values<F>(ops[2]->array());
  HLO_ASSIGN_OR_RETURN(std::vector<Value> out, NewResults(inst, train ? 3 : 1));
  // Rows are independent (each sum in its own order): they go to the cores.
  ParallelRows(s.rows, kRowsPerPart, [&](int64_t begin, int64_t end) {
    std::vector<F> y(s.cols);
    for (int64_t r = begin; r < end; ++r) {
      const F* row = x.data() + r * s.cols;
      F sum = 0, sq = 0;
      for (int64_t j = 0; j < s.cols; ++j) sum += row[j];
      const F mean = sum / static_cast<F>(s.cols);
      for (int64_t j = 0; j < s.cols; ++j) sq += (row[j] - mean) * (row[j] - mean);
      const F nf = F(1) / std::sqrt(sq / static_cast<F>(s.cols) + static_cast<F>(epsilon));
      for (int64_t j = 0; j < s.cols; ++j) y[j] = (row[j] - mean) * nf * scale[j] + bias[j];
      StoreRowLikeSetDouble(out[0].mutable_array(), r * s.cols, y.data(), s.cols);
      if (train) {
        StoreLikeSetDouble(out[1].mutable_array(), r, mean);
        StoreLikeSetDouble(out[2].mutable_array(), r, nf);
      }
    }
  });
  return out;
}

template <typename F>
absl::StatusOr<std::vector<Value>> Backward(const Instruction& inst, Operands ops,
                                            const Shapes& s) {
  const std::vector<F> x = Values<F>(ops[0]->array()), scale = Values<F>(ops[1]->array()),
                       dy = Values<F>(ops[2]->array()), mean = Values<F>(ops[3]->array()),
                       nf = Values<F>(ops[4]->array());
  HLO_ASSIGN_OR_RETURN(std::vector<Value> out, NewResults(inst, 3));
  std::vector<F> dscale(s.cols, 0), dbias(s.cols, 0), f(s.cols);
  const F n = static_cast<F>(s.cols);
  for (int64_t r = 0; r < s.rows; ++r) {
    const int64_t base = r * s.cols;
    F xcg = 0;
    for (int64_t j = 0; j < s.cols; ++j) xcg += (x[base + j] - mean[r]) * scale[j] * dy[base + j];
    const F nf3 = nf[r] * nf[r] * nf[r];
    F fsum = 0;
    for (int64_t j = 0; j < s.cols; ++j) {
      const F xc = x[base + j] - mean[r];
      f[j] = -xc * nf3 * (xcg / n) + nf[r] * scale[j] * dy[base + j];
      fsum += f[j];
      dscale[j] += dy[base + j] * xc * nf[r];
      dbias[j] += dy[base + j];
    }
    for (int64_t j = 0; j < s.cols; ++j) f[j] -= fsum / n;
    StoreRowLikeSetDouble(out[0].mutable_array(), base, f.data(), s.cols);
  }
  StoreRowLikeSetDouble(out[1].mutable_array(), 0, dscale.data(), s.cols);
  StoreRowLikeSetDouble(out[2].mutable_array(), 0, dbias.data(), s.cols);
  return out;
}

}  // namespace

absl::StatusOr<Value> EvalCudnnNorm(const Instruction& inst, Operands ops, KernelContext&) {
  HLO_ASSIGN_OR_RETURN(Json m, ConfigMessage(inst, "cudnn_norm_backend_config"));
  HLO_ASSIGN_OR_RETURN(Kind kind, ReadKind(m));
  HLO_ASSIGN_OR_RETURN(double epsilon, DoubleField(m, "epsilon", 0));
  HLO_ASSIGN_OR_RETURN(Shapes s, CheckOperands(kind, ops));
  HLO_RETURN_IF_ERROR(CheckResults(inst, kind, s));
  const bool wide = s.x->element_type() == PrimitiveType::kF64;
  absl::StatusOr<std::vector<Value>> out =
      kind == Kind::kBackward
          ? (wide ? Backward<double>(inst, ops, s) : Backward<float>(inst, ops, s))
          : (wide ? Forward<double>(inst, ops, kind == Kind::kTrain, s, epsilon)
                  : Forward<float>(inst, ops, kind == Kind::kTrain, s, epsilon));
  if (!out.ok()) return out.status();
  return WithWorkspaces(inst, *std::move(out));
}

}  // namespace hlo::gpu

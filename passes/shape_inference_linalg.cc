// Shape inference for dot, convolution, fft, triangular-solve, cholesky, the
// batch-norm ops, rng and rng-bit-generator.
//
// Follows XLA's ShapeInference, with the StableHLO constraints as the
// checklist. Where the two differ HLO follows XLA: dot and convolution
// accept operands of different numeric types (s8 x bf16) and take the
// instruction's declared element type as the result type; batch norm's
// scale/offset/mean/variance may differ from the operand in float precision.
#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "passes/shape_inference.h"
#include "passes/shape_inference_util.h"

namespace hlo {
namespace {

// ---- element types of dot and convolution -----------------------------------

// Operands may differ in type (XLA mixes s8 weights with bf16 activations),
// but pred only pairs with pred: it has no arithmetic to promote to.
absl::Status CheckOperandTypes(const Shape& lhs, const Shape& rhs) {
  PrimitiveType a = lhs.element_type(), b = rhs.element_type();
  if (a == b || (!IsPred(a) && !IsPred(b))) return absl::OkStatus();
  return ShapeError("lhs has element type ", PrimitiveTypeName(a), " but rhs has ",
                    PrimitiveTypeName(b), "; pred operands cannot be mixed with numbers");
}

// XLA's HigherPrecisionType: complex over real, float over integer, wider
// over narrower, bf16 over f16 (more range), signed over unsigned.
PrimitiveType HigherPrecision(PrimitiveType a, PrimitiveType b) {
  auto key = [](PrimitiveType t) {
    int kind = IsComplex(t) ? 3 : IsFloat(t) ? 2 : IsInteger(t) ? 1 : 0;
    return std::make_tuple(kind, BitWidth(t), t == PrimitiveType::kBF16, IsSignedInt(t));
  };
  return key(b) > key(a) ? b : a;
}

// XLA's MaybeUpcast: the declared type wins, but an integer result may not be
// narrower than the integer operands it accumulates.
absl::StatusOr<PrimitiveType> ResultType(const Shape& lhs, const Shape& rhs,
                                         std::optional<PrimitiveType> preferred) {
  PrimitiveType from = HigherPrecision(lhs.element_type(), rhs.element_type());
  if (!preferred.has_value() || *preferred == from) return from;
  if (!IsArrayType(*preferred)) {
    return ShapeError("the result element type ", PrimitiveTypeName(*preferred),
                      " is not an array type");
  }
  if (!IsFloat(from) && BitWidth(*preferred) < BitWidth(from)) {
    return ShapeError("the result element type ", PrimitiveTypeName(*preferred),
                      " is narrower than the operand type ", PrimitiveTypeName(from));
  }
  return *preferred;
}

// Equal, or one of them unbounded (`?`), as XLA's CompatibleDimensionSizes.
bool SizesMatch(const Shape& a, int64_t da, const Shape& b, int64_t db) {
  return a.dim(da) == b.dim(db) || a.is_unbounded_dim(da) || b.is_unbounded_dim(db);
}

// ---- dot ---------------------------------------------------------------------

// Range, uniqueness, and no dimension both batch and contracting.
absl::Status CheckDotSide(const Shape& s, std::string_view side, absl::Span<const int64_t> batch,
                          absl::Span<const int64_t> contracting) {
  const std::string b = StrCat(side, "_batch_dims"), c = StrCat(side, "_contracting_dims");
  if (auto st = ExpectDimensions(batch, s.rank(), b); !st.ok()) return st;
  if (auto st = ExpectDimensions(contracting, s.rank(), c); !st.ok()) return st;
  for (int64_t d : batch) {
    if (std::find(contracting.begin(), contracting.end(), d) != contracting.end()) {
      return ShapeError(side, " dimension ", d, " is in both ", b, " and ", c);
    }
  }
  return absl::OkStatus();
}

// Paired dimensions: equal in number and size.
absl::Status CheckDotPairs(const Shape& lhs, absl::Span<const int64_t> l, const Shape& rhs,
                           absl::Span<const int64_t> r, std::string_view kind) {
  if (l.size() != r.size()) {
    return ShapeError("lhs has ", l.size(), " ", kind, " dimension", l.size() == 1 ? "" : "s", " ",
                      DimsText(l), " but rhs has ", r.size(), " ", DimsText(r));
  }
  for (size_t i = 0; i < l.size(); ++i) {
    if (!SizesMatch(lhs, l[i], rhs, r[i])) {
      return ShapeError("lhs ", kind, " dimension ", l[i], " has size ", lhs.dim(l[i]), " but rhs ",
                        kind, " dimension ", r[i], " has size ", rhs.dim(r[i]));
    }
  }
  return absl::OkStatus();
}

bool Contains(absl::Span<const int64_t> v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// Appends the dims of `s` that are neither batch nor contracting, in order.
void AppendFreeDims(const Shape& s, absl::Span<const int64_t> batch,
                    absl::Span<const int64_t> contracting, std::vector<int64_t>& dims,
                    std::vector<bool>& dynamic) {
  for (int64_t i = 0; i < s.rank(); ++i) {
    if (Contains(batch, i) || Contains(contracting, i)) continue;
    dims.push_back(s.dim(i));
    dynamic.push_back(s.is_dynamic_dim(i));
  }
}

Shape ArrayWithDynamism(PrimitiveType t, const std::vector<int64_t>& dims,
                        const std::vector<bool>& dynamic) {
  Shape out = Shape::Array(t, dims);
  for (size_t i = 0; i < dynamic.size(); ++i) {
    if (dynamic[i]) out = out.WithDynamicDim(static_cast<int64_t>(i), true);
  }
  return out;
}

// ---- convolution -------------------------------------------------------------

// One side of dim_labels (`b01f`, `01io`) must name every dimension of a
// rank-(spatial + 2) array exactly once.
absl::Status CheckConvLabels(std::string_view side, int64_t a, int64_t b,
                             const std::vector<int64_t>& spatial, int64_t rank) {
  std::vector<int64_t> all = {a, b};
  all.insert(all.end(), spatial.begin(), spatial.end());
  std::vector<bool> seen(rank, false);
  for (int64_t d : all) {
    if (d < 0 || d >= rank || seen[d]) {
      return ShapeError("dim_labels: the ", side, " dimensions ", DimsText(all),
                        " do not name each of the ", rank, " dimensions exactly once");
    }
    seen[d] = true;
  }
  return absl::OkStatus();
}

absl::Status CheckConvLayout(const Shape& lhs, const Shape& rhs, const Window& window,
                             const ConvDims& d) {
  const size_t n = d.input_spatial.size();
  if (d.kernel_spatial.size() != n || d.output_spatial.size() != n) {
    return ShapeError("dim_labels have ", n, " input, ", d.kernel_spatial.size(), " kernel and ",
                      d.output_spatial.size(), " output spatial dimensions; they must be equal");
  }
  if (window.size() != n) {
    return ShapeError("window has ", window.size(), " dimensions but dim_labels have ", n,
                      " spatial dimensions");
  }
  const int64_t rank = static_cast<int64_t>(n) + 2;
  if (lhs.rank() != rank || rhs.rank() != rank) {
    return ShapeError("dim_labels describe rank-", rank, " operands, but lhs is ", ShapeText(lhs),
                      " and rhs is ", ShapeText(rhs));
  }
  if (auto s = CheckConvLabels("input", d.input_batch, d.input_feature, d.input_spatial, rank);
      !s.ok()) {
    return s;
  }
  if (auto s = CheckConvLabels("kernel", d.kernel_input_feature, d.kernel_output_feature,
                               d.kernel_spatial, rank);
      !s.ok()) {
    return s;
  }
  return CheckConvLabels("output", d.output_batch, d.output_feature, d.output_spatial, rank);
}

absl::Status CheckGroupCounts(int64_t feature_groups, int64_t batch_groups) {
  if (feature_groups < 1) {
    return ShapeError("feature_group_count is ", feature_groups, "; it must be at least 1");
  }
  if (batch_groups < 1) {
    return ShapeError("batch_group_count is ", batch_groups, "; it must be at least 1");
  }
  if (feature_groups > 1 && batch_groups > 1) {
    return ShapeError("feature_group_count ", feature_groups, " and batch_group_count ",
                      batch_groups, " cannot both be greater than 1");
  }
  return absl::OkStatus();
}

// Grouped convolution splits the input features (feature groups) or the
// batch (batch groups) evenly; each group has its share of the kernel's
// output features.
absl::Status CheckConvFeatures(const Shape& lhs, const Shape& rhs, const ConvDims& d,
                               int64_t feature_groups, int64_t batch_groups) {
  const int64_t in_features = lhs.dim(d.input_feature);
  const int64_t batch = lhs.dim(d.input_batch);
  const int64_t kernel_in = rhs.dim(d.kernel_input_feature);
  const int64_t kernel_out = rhs.dim(d.kernel_output_feature);
  if (in_features % feature_groups != 0) {
    return ShapeError("the input feature dimension has size ", in_features,
                      ", which is not divisible by feature_group_count ", feature_groups);
  }
  if (in_features / feature_groups != kernel_in) {
    return ShapeError("the input feature dimension has size ", in_features,
                      " but the kernel input feature dimension has size ", kernel_in,
                      " (with feature_group_count ", feature_groups, " it must be ",
                      in_features / feature_groups, ")");
  }
  if (kernel_out % feature_groups != 0) {
    return ShapeError("the kernel output feature dimension has size ", kernel_out,
                      ", which is not divisible by feature_group_count ", feature_groups);
  }
  if (kernel_out % batch_groups != 0) {
    return ShapeError("the kernel output feature dimension has size ", kernel_out,
                      ", which is not divisible by batch_group_count ", batch_groups);
  }
  if (batch % batch_groups != 0) {
    return ShapeError("the input batch dimension has size ", batch,
                      ", which is not divisible by batch_group_count ", batch_groups);
  }
  return absl::OkStatus();
}

// Window positions over one spatial dimension of size `base`: floor((padded
// dilated base - dilated window) / stride) + 1, 0 when the window does not
// fit. Same rule as reduce-window.
absl::StatusOr<int64_t> WindowCount(int64_t base, const WindowDim& w, size_t i) {
  if (w.stride < 1) {
    return ShapeError("window dimension ", i, " has stride ", w.stride, "; it must be at least 1");
  }
  if (w.base_dilation < 1 || w.window_dilation < 1) {
    return ShapeError("window dimension ", i, " has dilation lhs ", w.base_dilation, " rhs ",
                      w.window_dilation, "; dilations must be at least 1");
  }
  int64_t dilated_base = 0, padded = 0, dilated_window = 0;
  bool overflow = base > 0 && __builtin_mul_overflow(base - 1, w.base_dilation, &dilated_base);
  if (base > 0) dilated_base += 1;
  overflow = overflow || __builtin_add_overflow(dilated_base, w.padding_low, &padded) ||
             __builtin_add_overflow(padded, w.padding_high, &padded) ||
             __builtin_mul_overflow(w.size - 1, w.window_dilation, &dilated_window);
  if (overflow) return ShapeError("window dimension ", i, " overflows 64-bit sizes");
  dilated_window += 1;
  if (padded < 0) {
    return ShapeError("window dimension ", i, " pads the input dimension of size ", dilated_base,
                      " (after lhs dilation) by ", w.padding_low, " and ", w.padding_high, " to ",
                      padded, ", which is negative");
  }
  if (dilated_window > padded) return 0;
  return (padded - dilated_window) / w.stride + 1;
}

// Sets the output spatial dims from the window; the window's sizes must be
// the kernel's spatial sizes.
absl::Status ConvSpatialDims(const Shape& lhs, const Shape& rhs, const Window& window,
                             const ConvDims& d, std::vector<int64_t>& dims,
                             std::vector<bool>& dynamic) {
  for (size_t i = 0; i < window.size(); ++i) {
    const WindowDim& w = window[i];
    const int64_t k = d.kernel_spatial[i], in = d.input_spatial[i], out = d.output_spatial[i];
    if (w.size < 1) {
      return ShapeError("window dimension ", i, " has size ", w.size, "; it must be at least 1");
    }
    if (w.size != rhs.dim(k) && !rhs.is_unbounded_dim(k)) {
      return ShapeError("window dimension ", i, " has size ", w.size,
                        " but kernel spatial dimension ", i, " (dimension ", k,
                        " of the kernel) has size ", rhs.dim(k));
    }
    if (rhs.is_unbounded_dim(k) || lhs.is_unbounded_dim(in)) {
      dims[out] = Shape::kUnboundedSize;
    } else {
      auto n = WindowCount(lhs.dim(in), w, i);
      if (!n.ok()) return n.status();
      dims[out] = *n;
    }
    dynamic[out] = lhs.is_dynamic_dim(in) || rhs.is_dynamic_dim(k);
  }
  return absl::OkStatus();
}

// ---- fft -----------------------------------------------------------------------

// The trailing dims of `s` must equal fft_length, except the last `skip_last`.
absl::Status CheckFftDims(const Shape& s, absl::Span<const int64_t> len, bool skip_last,
                          std::string_view type) {
  const int64_t first = s.rank() - static_cast<int64_t>(len.size());
  for (size_t i = 0; i + (skip_last ? 1 : 0) < len.size(); ++i) {
    const int64_t d = first + static_cast<int64_t>(i);
    if (s.dim(d) != len[i] && !s.is_unbounded_dim(d)) {
      return ShapeError(type, " transforms the last ", len.size(), " dimensions of ", ShapeText(s),
                        ", so dimension ", d, " must be fft_length[", i, "] = ", len[i],
                        ", but has size ", s.dim(d));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> InferRfft(const Shape& operand, absl::Span<const int64_t> len) {
  PrimitiveType t = operand.element_type();
  if (t != PrimitiveType::kF32 && t != PrimitiveType::kF64) {
    return ShapeError("RFFT needs an f32 or f64 operand, but has ", ShapeText(operand));
  }
  if (auto s = CheckFftDims(operand, len, false, "RFFT"); !s.ok()) return s;
  Shape out =
      WithType(operand, t == PrimitiveType::kF32 ? PrimitiveType::kC64 : PrimitiveType::kC128);
  // Real input has conjugate-symmetric output: only n/2+1 of the last n
  // frequencies are kept. (Zero-sized dims stay zero-sized.)
  const int64_t n = len.back();
  if (n == 0) return out;
  std::vector<int64_t> dims(out.dims().begin(), out.dims().end());
  dims.back() = n / 2 + 1;
  Shape sized = Shape::Array(out.element_type(), dims);
  for (int64_t i = 0; i < out.rank(); ++i) {
    if (out.is_dynamic_dim(i)) sized = sized.WithDynamicDim(i, true);
  }
  return sized;
}

absl::StatusOr<Shape> InferIrfft(const Shape& operand, absl::Span<const int64_t> len) {
  if (!IsComplex(operand.element_type())) {
    return ShapeError("IRFFT needs a complex operand, but has ", ShapeText(operand));
  }
  if (auto s = CheckFftDims(operand, len, true, "IRFFT"); !s.ok()) return s;
  const int64_t last = operand.rank() - 1, n = len.back();
  const bool both_empty = operand.dim(last) == 0 && n == 0;
  if (!both_empty && operand.dim(last) != n / 2 + 1 && !operand.is_unbounded_dim(last)) {
    return ShapeError("IRFFT of length ", n, " needs the last operand dimension to have size ", n,
                      "/2+1 = ", n / 2 + 1, ", but ", ShapeText(operand), " has ",
                      operand.dim(last));
  }
  std::vector<int64_t> dims(operand.dims().begin(), operand.dims().end());
  dims.back() = n;
  Shape out = Shape::Array(ComplexComponentType(operand.element_type()), dims);
  for (int64_t i = 0; i < last; ++i) {
    if (operand.is_dynamic_dim(i)) out = out.WithDynamicDim(i, true);
  }
  return out;
}

// ---- linear algebra and batch norm -----------------------------------------------

absl::Status ExpectFloatOrComplex(const Shape& s, std::string_view op, std::string_view what) {
  if (IsFloat(s.element_type()) || IsComplex(s.element_type())) return absl::OkStatus();
  return ShapeError(op, " needs floating-point or complex operands, but ", what, " is ",
                    ShapeText(s));
}

// [..., n, n]: rank >= 2 and square in the two minor dimensions.
absl::Status ExpectSquareMatrices(const Shape& a, std::string_view what) {
  if (a.rank() < 2) {
    return ShapeError(what, " must have rank at least 2, but has shape ", ShapeText(a));
  }
  if (a.dim(a.rank() - 1) != a.dim(a.rank() - 2)) {
    return ShapeError(what, " must be square in its last two dimensions, but has shape ",
                      ShapeText(a));
  }
  return absl::OkStatus();
}

// The operand of every batch-norm op: a float array with an in-range
// feature dimension.
absl::Status CheckBatchNormOperand(const Shape& operand, int64_t feature_index,
                                   std::string_view op) {
  if (auto s = ExpectArray(operand, "operand"); !s.ok()) return s;
  if (!IsFloat(operand.element_type())) {
    return ShapeError(op, " needs a floating-point operand, but has ", ShapeText(operand));
  }
  if (operand.rank() < 1) {
    return ShapeError(op, " needs an operand of rank at least 1, but has ", ShapeText(operand));
  }
  if (feature_index < 0 || feature_index >= operand.rank()) {
    return ShapeError("feature_index ", feature_index, " is out of range for operand ",
                      ShapeText(operand), " of rank ", operand.rank());
  }
  return absl::OkStatus();
}

// scale/offset/mean/variance: one float per feature.
absl::Status CheckFeatureVector(const Shape& v, std::string_view name, const Shape& operand,
                                int64_t feature_index) {
  if (auto s = ExpectArray(v, name); !s.ok()) return s;
  if (v.rank() != 1) {
    return ShapeError(name, " must have rank 1, but has shape ", ShapeText(v));
  }
  if (!IsFloat(v.element_type())) {
    return ShapeError(name, " has element type ", PrimitiveTypeName(v.element_type()),
                      " but the operand has ", PrimitiveTypeName(operand.element_type()));
  }
  if (v.dim(0) != operand.dim(feature_index)) {
    return ShapeError(name, " has ", v.dim(0), " elements but feature dimension ", feature_index,
                      " of the operand ", ShapeText(operand), " has size ",
                      operand.dim(feature_index));
  }
  return absl::OkStatus();
}

// (operand, feature vector, feature vector): batch-norm-training's
// (output, mean, variance) and batch-norm-grad's (grad_operand, grad_scale,
// grad_offset).
Shape OperandAndTwoFeatureVectors(const Shape& operand, int64_t feature_index, ShapePool& pool) {
  const Shape* feature =
      pool.Intern(Shape::Array(operand.element_type(), {operand.dim(feature_index)}));
  return Shape::Tuple({pool.Intern(operand.WithoutLayout()), feature, feature});
}

// ---- rng ---------------------------------------------------------------------------

absl::Status CheckRngBitState(const Shape& state, std::string_view algorithm) {
  if (!state.IsArray() || state.element_type() != PrimitiveType::kU64 || state.rank() != 1) {
    return ShapeError("the rng-bit-generator state must be a u64 vector, but has shape ",
                      ShapeText(state));
  }
  const int64_t n = state.dim(0);
  if (algorithm == "rng_three_fry" && n != 2) {
    return ShapeError("rng_three_fry needs a u64[2] state, but has ", ShapeText(state));
  }
  if (algorithm == "rng_philox" && n != 2 && n != 3) {
    return ShapeError("rng_philox needs a u64[2] or u64[3] state, but has ", ShapeText(state));
  }
  if (n < 1) return ShapeError("the rng-bit-generator state must not be empty");
  return absl::OkStatus();
}

}  // namespace

DotDims DotDimsOf(const Instruction& inst) {
  auto ints = [&](AttrKind k) {
    absl::Span<const int64_t> v = inst.GetInts(k);
    return std::vector<int64_t>(v.begin(), v.end());
  };
  DotDims d;
  d.lhs_batch = ints(AttrKind::kLhsBatchDims);
  d.lhs_contracting = ints(AttrKind::kLhsContractingDims);
  d.rhs_batch = ints(AttrKind::kRhsBatchDims);
  d.rhs_contracting = ints(AttrKind::kRhsContractingDims);
  return d;
}

absl::StatusOr<Shape> InferDotShape(const Shape& lhs, const Shape& rhs, const DotDims& dims,
                                    std::optional<PrimitiveType> preferred) {
  if (auto s = ExpectArray(lhs, "lhs"); !s.ok()) return s;
  if (auto s = ExpectArray(rhs, "rhs"); !s.ok()) return s;
  if (auto s = CheckOperandTypes(lhs, rhs); !s.ok()) return s;
  if (auto s = CheckDotSide(lhs, "lhs", dims.lhs_batch, dims.lhs_contracting); !s.ok()) return s;
  if (auto s = CheckDotSide(rhs, "rhs", dims.rhs_batch, dims.rhs_contracting); !s.ok()) return s;
  if (auto s = CheckDotPairs(lhs, dims.lhs_batch, rhs, dims.rhs_batch, "batch"); !s.ok()) {
    return s;
  }
  if (auto s = CheckDotPairs(lhs, dims.lhs_contracting, rhs, dims.rhs_contracting, "contracting");
      !s.ok()) {
    return s;
  }
  auto type = ResultType(lhs, rhs, preferred);
  if (!type.ok()) return type.status();
  // batch dims, then lhs's free dims, then rhs's, each in order.
  std::vector<int64_t> out;
  std::vector<bool> dynamic;
  for (int64_t d : dims.lhs_batch) {
    out.push_back(lhs.dim(d));
    dynamic.push_back(lhs.is_dynamic_dim(d));
  }
  AppendFreeDims(lhs, dims.lhs_batch, dims.lhs_contracting, out, dynamic);
  AppendFreeDims(rhs, dims.rhs_batch, dims.rhs_contracting, out, dynamic);
  return ArrayWithDynamism(*type, out, dynamic);
}

absl::StatusOr<Shape> InferRaggedDotShape(const Shape& lhs, const Shape& rhs,
                                          const Shape& group_sizes, const DotDims& dims,
                                          absl::Span<const int64_t> lhs_ragged,
                                          absl::Span<const int64_t> rhs_group,
                                          std::optional<PrimitiveType> preferred) {
  if (auto s = ExpectArray(lhs, "lhs"); !s.ok()) return s;
  if (auto s = ExpectArray(rhs, "rhs"); !s.ok()) return s;
  if (auto s = ExpectArray(group_sizes, "group_sizes"); !s.ok()) return s;
  if (!IsInteger(group_sizes.element_type()) || group_sizes.rank() < 1) {
    return ShapeError("group_sizes must be an integer array of rank at least 1, but has shape ",
                      ShapeText(group_sizes));
  }
  if (auto s = CheckOperandTypes(lhs, rhs); !s.ok()) return s;
  if (auto s = CheckDotSide(lhs, "lhs", dims.lhs_batch, dims.lhs_contracting); !s.ok()) return s;
  if (auto s = CheckDotSide(rhs, "rhs", dims.rhs_batch, dims.rhs_contracting); !s.ok()) return s;
  if (lhs_ragged.size() != 1) {
    return ShapeError("lhs_ragged_dims ", DimsText(lhs_ragged),
                      " must name exactly one dimension of lhs");
  }
  if (auto s = ExpectDimensions(lhs_ragged, lhs.rank(), "lhs_ragged_dims"); !s.ok()) return s;
  if (rhs_group.size() > 1) {
    return ShapeError("rhs_group_dims ", DimsText(rhs_group), " names more than one dimension");
  }
  if (auto s = ExpectDimensions(rhs_group, rhs.rank(), "rhs_group_dims"); !s.ok()) return s;
  // The ragged lhs dimension decides the mode (as JAX's ragged_dot_general):
  // non-contracting: rhs has a group dimension of g groups, dropped from the
  // result; contracting: the result gets a leading group dimension; batch:
  // neither.
  const int64_t ragged = lhs_ragged[0];
  const bool contracting = Contains(dims.lhs_contracting, ragged);
  const bool batch = Contains(dims.lhs_batch, ragged);
  if (!contracting && !batch && rhs_group.size() != 1) {
    return ShapeError("lhs ragged dimension ", ragged,
                      " is not contracting or batch, so rhs "
                      "needs one group dimension in rhs_group_dims");
  }
  if ((contracting || batch) && !rhs_group.empty()) {
    return ShapeError("lhs ragged dimension ", ragged, " is a ",
                      contracting ? "contracting" : "batch",
                      " dimension, so rhs_group_dims must be empty, but is ", DimsText(rhs_group));
  }
  for (const auto& [list, list_name] : {std::pair{&dims.rhs_batch, "rhs_batch_dims"},
                                        std::pair{&dims.rhs_contracting, "rhs_contracting_dims"}}) {
    if (!rhs_group.empty() && Contains(*list, rhs_group[0])) {
      return ShapeError("rhs dimension ", rhs_group[0], " is in both rhs_group_dims and ",
                        list_name);
    }
  }
  if (auto s = CheckDotPairs(lhs, dims.lhs_batch, rhs, dims.rhs_batch, "batch"); !s.ok()) {
    return s;
  }
  if (auto s = CheckDotPairs(lhs, dims.lhs_contracting, rhs, dims.rhs_contracting, "contracting");
      !s.ok()) {
    return s;
  }
  const int64_t groups = group_sizes.dim(group_sizes.rank() - 1);
  if (!rhs_group.empty() && !SizesMatch(group_sizes, group_sizes.rank() - 1, rhs, rhs_group[0])) {
    return ShapeError("group_sizes ", ShapeText(group_sizes), " counts ", groups,
                      " groups but rhs group dimension ", rhs_group[0], " has size ",
                      rhs.dim(rhs_group[0]));
  }
  auto type = ResultType(lhs, rhs, preferred);
  if (!type.ok()) return type.status();
  std::vector<int64_t> out;
  std::vector<bool> dynamic;
  if (contracting) {
    out.push_back(groups);
    dynamic.push_back(group_sizes.is_dynamic_dim(group_sizes.rank() - 1));
  }
  for (int64_t d : dims.lhs_batch) {
    out.push_back(lhs.dim(d));
    dynamic.push_back(lhs.is_dynamic_dim(d));
  }
  AppendFreeDims(lhs, dims.lhs_batch, dims.lhs_contracting, out, dynamic);
  std::vector<int64_t> rhs_dropped(dims.rhs_contracting);
  rhs_dropped.insert(rhs_dropped.end(), rhs_group.begin(), rhs_group.end());
  AppendFreeDims(rhs, dims.rhs_batch, rhs_dropped, out, dynamic);
  return ArrayWithDynamism(*type, out, dynamic);
}

absl::StatusOr<Shape> InferScaledDotShape(const Shape& lhs, const Shape& rhs,
                                          const Shape& lhs_scale, const Shape& rhs_scale,
                                          const DotDims& dims,
                                          std::optional<PrimitiveType> preferred) {
  // The scales hold one factor per block of their operand: same rank, each
  // operand dimension a whole number of blocks.
  const std::pair<const Shape*, const Shape*> pairs[] = {{&lhs, &lhs_scale}, {&rhs, &rhs_scale}};
  for (const auto& [operand, scale] : pairs) {
    const char* name = operand == &lhs ? "lhs" : "rhs";
    if (auto s = ExpectArray(*scale, StrCat(name, "_scale")); !s.ok()) return s;
    if (auto s = ExpectArray(*operand, name); !s.ok()) return s;
    if (scale->rank() != operand->rank()) {
      return ShapeError(name, "_scale ", ShapeText(*scale), " must have the rank of ", name, " ",
                        ShapeText(*operand));
    }
    for (int64_t d = 0; d < operand->rank(); ++d) {
      if (operand->is_unbounded_dim(d) || scale->is_unbounded_dim(d)) continue;
      int64_t block = scale->dim(d);
      if (block == 0 ? operand->dim(d) != 0 : operand->dim(d) % block != 0) {
        return ShapeError(name, " dimension ", d, " (", operand->dim(d),
                          ") does not split evenly into the ", block, " blocks of ", name,
                          "_scale dimension ", d);
      }
    }
  }
  return InferDotShape(lhs, rhs, dims, preferred);
}

absl::StatusOr<Shape> InferConvolutionShape(const Shape& lhs, const Shape& rhs,
                                            const Window& window, const ConvDims& dims,
                                            int64_t feature_group_count, int64_t batch_group_count,
                                            std::optional<PrimitiveType> preferred) {
  if (auto s = ExpectArray(lhs, "lhs"); !s.ok()) return s;
  if (auto s = ExpectArray(rhs, "rhs"); !s.ok()) return s;
  if (auto s = CheckOperandTypes(lhs, rhs); !s.ok()) return s;
  if (auto s = CheckGroupCounts(feature_group_count, batch_group_count); !s.ok()) return s;
  if (auto s = CheckConvLayout(lhs, rhs, window, dims); !s.ok()) return s;
  if (auto s = CheckConvFeatures(lhs, rhs, dims, feature_group_count, batch_group_count); !s.ok()) {
    return s;
  }
  if (rhs.is_dynamic_dim(dims.kernel_output_feature)) {
    return ShapeError("the kernel output feature dimension of ", ShapeText(rhs),
                      " must not be dynamic");
  }
  auto type = ResultType(lhs, rhs, preferred);
  if (!type.ok()) return type.status();
  std::vector<int64_t> out(lhs.rank());
  std::vector<bool> dynamic(lhs.rank(), false);
  if (auto s = ConvSpatialDims(lhs, rhs, window, dims, out, dynamic); !s.ok()) return s;
  // Batch groups fold batch slices into the output features.
  out[dims.output_batch] = lhs.dim(dims.input_batch) / batch_group_count;
  dynamic[dims.output_batch] = lhs.is_dynamic_dim(dims.input_batch);
  out[dims.output_feature] = rhs.dim(dims.kernel_output_feature);
  return ArrayWithDynamism(*type, out, dynamic);
}

absl::StatusOr<Shape> InferFftShape(const Shape& operand, std::string_view fft_type,
                                    absl::Span<const int64_t> fft_length) {
  if (fft_type != "FFT" && fft_type != "IFFT" && fft_type != "RFFT" && fft_type != "IRFFT") {
    return ShapeError("unknown fft_type '", fft_type, "'; expected FFT, IFFT, RFFT or IRFFT");
  }
  if (auto s = ExpectArray(operand, "operand"); !s.ok()) return s;
  if (fft_length.empty() || fft_length.size() > 3) {
    return ShapeError("fft_length ", DimsText(fft_length), " has ", fft_length.size(),
                      " entries; an FFT transforms 1 to 3 dimensions");
  }
  if (operand.rank() < static_cast<int64_t>(fft_length.size())) {
    return ShapeError("an FFT of ", fft_length.size(),
                      " dimensions needs an operand of rank "
                      "at least ",
                      fft_length.size(), ", but has ", ShapeText(operand));
  }
  for (int64_t n : fft_length) {
    if (n < 0) return ShapeError("fft_length ", DimsText(fft_length), " has a negative length");
  }
  if (fft_type == "RFFT") return InferRfft(operand, fft_length);
  if (fft_type == "IRFFT") return InferIrfft(operand, fft_length);
  // FFT and IFFT: complex to complex of the same shape.
  if (!IsComplex(operand.element_type())) {
    return ShapeError(fft_type, " needs a complex operand, but has ", ShapeText(operand));
  }
  if (auto s = CheckFftDims(operand, fft_length, false, fft_type); !s.ok()) return s;
  return operand.WithoutLayout();
}

absl::StatusOr<Shape> InferTriangularSolveShape(const Shape& a, const Shape& b, bool left_side) {
  if (auto s = ExpectArray(a, "a"); !s.ok()) return s;
  if (auto s = ExpectArray(b, "b"); !s.ok()) return s;
  if (auto s = ExpectFloatOrComplex(a, "triangular-solve", "a"); !s.ok()) return s;
  if (auto s = ExpectSameType(a, "a", b, "b"); !s.ok()) return s;
  if (auto s = ExpectSquareMatrices(a, "a"); !s.ok()) return s;
  if (b.rank() != a.rank()) {
    return ShapeError("a ", ShapeText(a), " and b ", ShapeText(b), " must have the same rank");
  }
  const int64_t r = a.rank();
  if (!std::equal(a.dims().begin(), a.dims().end() - 2, b.dims().begin())) {
    return ShapeError("a ", ShapeText(a), " and b ", ShapeText(b),
                      " must have the same batch dimensions (all but the last two)");
  }
  // Solving a x = b (left) needs b [..., m, n]; x a = b (right) [..., n, m].
  const int64_t shared = left_side ? r - 2 : r - 1;
  if (b.dim(shared) != a.dim(r - 1)) {
    return ShapeError("with left_side=", left_side ? "true" : "false", ", dimension ", shared,
                      " of b ", ShapeText(b), " must equal the size ", a.dim(r - 1),
                      " of the matrix a ", ShapeText(a), ", but is ", b.dim(shared));
  }
  return b.WithoutLayout();
}

absl::StatusOr<Shape> InferCholeskyShape(const Shape& a) {
  if (auto s = ExpectArray(a, "a"); !s.ok()) return s;
  if (auto s = ExpectFloatOrComplex(a, "cholesky", "a"); !s.ok()) return s;
  if (auto s = ExpectSquareMatrices(a, "a"); !s.ok()) return s;
  return a.WithoutLayout();
}

absl::StatusOr<Shape> InferBatchNormTrainingShape(const Shape& operand, const Shape& scale,
                                                  const Shape& offset, int64_t feature_index,
                                                  ShapePool& pool) {
  if (auto s = CheckBatchNormOperand(operand, feature_index, "batch-norm-training"); !s.ok()) {
    return s;
  }
  if (auto s = CheckFeatureVector(scale, "scale", operand, feature_index); !s.ok()) return s;
  if (auto s = CheckFeatureVector(offset, "offset", operand, feature_index); !s.ok()) return s;
  return OperandAndTwoFeatureVectors(operand, feature_index, pool);
}

absl::StatusOr<Shape> InferBatchNormInferenceShape(const Shape& operand, const Shape& scale,
                                                   const Shape& offset, const Shape& mean,
                                                   const Shape& variance, int64_t feature_index) {
  if (auto s = CheckBatchNormOperand(operand, feature_index, "batch-norm-inference"); !s.ok()) {
    return s;
  }
  const std::pair<const Shape*, const char*> vectors[] = {
      {&scale, "scale"}, {&offset, "offset"}, {&mean, "mean"}, {&variance, "variance"}};
  for (const auto& [v, name] : vectors) {
    if (auto s = CheckFeatureVector(*v, name, operand, feature_index); !s.ok()) return s;
  }
  return operand.WithoutLayout();
}

absl::StatusOr<Shape> InferBatchNormGradShape(const Shape& operand, const Shape& scale,
                                              const Shape& mean, const Shape& variance,
                                              const Shape& grad_output, int64_t feature_index,
                                              ShapePool& pool) {
  if (auto s = CheckBatchNormOperand(operand, feature_index, "batch-norm-grad"); !s.ok()) {
    return s;
  }
  const std::pair<const Shape*, const char*> vectors[] = {
      {&scale, "scale"}, {&mean, "mean"}, {&variance, "variance"}};
  for (const auto& [v, name] : vectors) {
    if (auto s = CheckFeatureVector(*v, name, operand, feature_index); !s.ok()) return s;
  }
  if (auto s = ExpectArray(grad_output, "grad_output"); !s.ok()) return s;
  if (!IsFloat(grad_output.element_type())) {
    return ShapeError("grad_output has element type ",
                      PrimitiveTypeName(grad_output.element_type()), " but the operand has ",
                      PrimitiveTypeName(operand.element_type()));
  }
  if (auto s = ExpectSameDims(operand, "operand", grad_output, "grad_output"); !s.ok()) {
    return s;
  }
  return OperandAndTwoFeatureVectors(operand, feature_index, pool);
}

absl::StatusOr<Shape> InferRngShape(std::string_view distribution, Shapes params,
                                    const Shape& result) {
  const bool uniform = distribution == "rng_uniform";
  if (!uniform && distribution != "rng_normal") {
    return ShapeError("unknown distribution '", distribution,
                      "'; expected rng_uniform or rng_normal");
  }
  // uniform draws from [a, b); normal has mean mu and deviation sigma.
  const char* a_name = uniform ? "a" : "mu";
  const char* b_name = uniform ? "b" : "sigma";
  if (params.size() != 2) {
    return ShapeError(distribution, " takes 2 operands (", a_name, " and ", b_name, "), but has ",
                      params.size());
  }
  if (auto s = ExpectScalar(*params[0], a_name); !s.ok()) return s;
  if (auto s = ExpectScalar(*params[1], b_name); !s.ok()) return s;
  if (auto s = ExpectSameType(*params[0], a_name, *params[1], b_name); !s.ok()) return s;
  PrimitiveType t = params[0]->element_type();
  if (uniform && !IsFloat(t) && !IsInteger(t) && !IsPred(t)) {
    return ShapeError("rng_uniform needs integer, floating-point or pred operands, but a is ",
                      ShapeText(*params[0]));
  }
  if (!uniform && !IsFloat(t)) {
    return ShapeError("rng_normal needs floating-point operands, but mu is ",
                      ShapeText(*params[0]));
  }
  if (auto s = ExpectArray(result, "the result"); !s.ok()) return s;
  if (result.element_type() != t) {
    return ShapeError("the result ", ShapeText(result), " must have the operands' element type ",
                      PrimitiveTypeName(t));
  }
  return result.WithoutLayout();
}

absl::StatusOr<Shape> InferRngBitGeneratorShape(const Shape& state, std::string_view algorithm,
                                                const Shape& result) {
  if (algorithm.empty()) algorithm = "rng_default";
  if (algorithm != "rng_default" && algorithm != "rng_three_fry" && algorithm != "rng_philox") {
    return ShapeError("unknown algorithm '", algorithm,
                      "'; expected rng_default, rng_three_fry or rng_philox");
  }
  if (auto s = CheckRngBitState(state, algorithm); !s.ok()) return s;
  // The result is declared: (the new state, the random bits).
  if (!result.IsTuple() || result.tuple_size() != 2) {
    return ShapeError("the result must be a tuple (new state, random bits), but is ",
                      ShapeText(result));
  }
  if (!result.tuple_shape(0).Compatible(state)) {
    return ShapeError("the result's new state has shape ", ShapeText(result.tuple_shape(0)),
                      " but the state operand has shape ", ShapeText(state));
  }
  const Shape& bits = result.tuple_shape(1);
  if (!bits.IsArray() || !(IsInteger(bits.element_type()) || IsFloat(bits.element_type()))) {
    return ShapeError(
        "the random bits must be an integer or floating-point array, but have "
        "shape ",
        ShapeText(bits));
  }
  return result.WithoutLayout();
}

}  // namespace hlo

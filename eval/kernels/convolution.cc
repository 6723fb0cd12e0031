// convolution: any dim_labels permutation, 0-3+ spatial dims, window
// strides, padding (negative crops), lhs (base) dilation, rhs (window)
// dilation, window reversal, feature_group_count, batch_group_count, every
// numeric type and pred; the result's element type is the instruction's.
//
// Computed in the compute type of eval/kernels/gemm_convert.h, from a source array
// x[batch][spatial...][feature] (eval/kernels/convolution_internal.h):
//  - the input itself when it has that layout and type and no lhs
//    dilation (padding is virtual: windows reaching outside read zeros);
//  - else a padded, dilated copy Xp in that layout (zeros in the padding
//    and holes), made once.
// The kernel is read in place when it is [spatial...][in][out] row-major in
// the compute type without reversal, else packed per group as
// Kc[group][tap][in][out]. Then:
//  - depthwise convolutions (one input feature per feature group) run as a
//    direct multiply-add over taps, vectorised across features
//    (eval/kernels/convolution_depthwise.cc);
//  - 2-D 3x3 stride-1 f32/f64 convolutions without dilation, reversal or
//    groups, with enough features and output tiles, take Winograd
//    F(2x2, 3x3) (eval/kernels/convolution_winograd.h): 2.25x fewer
//    multiplications;
//  - everything else is im2col + gemm per group and block of output rows
//    (eval/kernels/convolution_gemm.cc).
// The output is written in place when it is [batch][spatial...][feature] in
// the compute type, else into a canonical buffer scattered at the end.
// Weight gradients (a window as large as the input, a tiny output) are the
// same gemm: rows are the few output positions, the contraction runs over
// the window and the batch (as XLA writes them, with batch and feature
// labels swapped).
//
// Groups follow the spec: feature groups split the input features and the
// kernel's output features, batch groups split the input batch and the
// kernel's output features; results concatenate along the output features.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "eval/interp/float16_convert.h"
#include "eval/kernels/convolution_internal.h"
#include "eval/kernels/convolution_winograd.h"
#include "eval/kernels/gemm.h"
#include "eval/kernels/gemm_convert.h"
#include "eval/kernels/kernels.h"
#include "eval/kernels/strided_axes.h"
#include "eval/runtime/parallel.h"
#include "eval/runtime/scratch_buffer.h"
#include "ir/strings.h"

namespace hlo {
namespace {

using conv::Geometry;
using gemm::Dims;

absl::Status Invalid(std::string message) { return absl::InvalidArgumentError(std::move(message)); }

std::string DimsText(absl::Span<const int64_t> dims) {
  return StrCat("{", StrJoin(dims, ","), "}");
}

absl::Status CheckLabels(std::string_view side, int64_t a, int64_t b,
                         const std::vector<int64_t>& spatial, int64_t rank) {
  std::vector<int64_t> all = {a, b};
  all.insert(all.end(), spatial.begin(), spatial.end());
  std::vector<bool> seen(rank, false);
  if (static_cast<int64_t>(all.size()) != rank) {
    return Invalid(StrCat("dim_labels: the ", side, " labels name ", all.size(),
                          " dimensions but the ", side, " has rank ", rank));
  }
  for (int64_t d : all) {
    if (d < 0 || d >= rank || seen[d]) {
      return Invalid(StrCat("dim_labels: the ", side, " dimensions ", DimsText(all),
                            " do not name each of the ", rank, " dimensions exactly once"));
    }
    seen[d] = true;
  }
  return absl::OkStatus();
}

absl::Status CheckGroups(const Geometry& g) {
  if (g.feature_groups < 1 || g.batch_groups < 1) {
    return Invalid(StrCat("feature_group_count ", g.feature_groups, " and batch_group_count ",
                          g.batch_groups, " must be at least 1"));
  }
  if (g.feature_groups > 1 && g.batch_groups > 1) {
    return Invalid("feature_group_count and batch_group_count cannot both be greater than 1");
  }
  if (g.in_features % g.feature_groups != 0 || g.in_features / g.feature_groups != g.kernel_in) {
    return Invalid(StrCat("the input has ", g.in_features,
                          " features, which with "
                          "feature_group_count ",
                          g.feature_groups, " does not give the kernel's ", g.kernel_in,
                          " input features"));
  }
  if (g.kernel_out % (g.feature_groups * g.batch_groups) != 0) {
    return Invalid(StrCat("the kernel's ", g.kernel_out, " output features do not divide into ",
                          g.feature_groups * g.batch_groups, " groups"));
  }
  if (g.batch % g.batch_groups != 0) {
    return Invalid(StrCat("the input batch ", g.batch, " is not divisible by batch_group_count ",
                          g.batch_groups));
  }
  return absl::OkStatus();
}

// Output size of one spatial dim (as reduce-window): 0 when the window
// does not fit; an error when padding makes the input negative.
absl::Status SpatialDim(Geometry& g, int64_t i) {
  if (g.stride[i] < 1 || g.base_dil[i] < 1 || g.win_dil[i] < 1) {
    return Invalid(StrCat("window dimension ", i, " has stride ", g.stride[i], ", lhs dilation ",
                          g.base_dil[i], " and rhs dilation ", g.win_dil[i],
                          "; each must be at least 1"));
  }
  const int64_t n = g.in_sp[i];
  int64_t dilated = 0, padded = 0, window = 0;
  bool overflow = n > 0 && __builtin_mul_overflow(n - 1, g.base_dil[i], &dilated);
  if (n > 0) dilated += 1;
  overflow = overflow || __builtin_add_overflow(dilated, g.lo[i], &padded) ||
             __builtin_add_overflow(padded, g.hi[i], &padded) ||
             __builtin_mul_overflow(g.win[i] - 1, g.win_dil[i], &window);
  if (overflow) return Invalid(StrCat("window dimension ", i, " overflows 64-bit sizes"));
  if (padded < 0) {
    return Invalid(StrCat("window dimension ", i, " pads the input dimension of size ", dilated,
                          " by ", g.lo[i], " and ", g.hi[i], " to a negative size"));
  }
  window += 1;
  g.padded.push_back(padded);
  g.out_sp.push_back(window > padded ? 0 : (padded - window) / g.stride[i] + 1);
  return absl::OkStatus();
}

absl::StatusOr<Geometry> ReadGeometry(const Instruction& inst, const Shape& lhs, const Shape& rhs) {
  Geometry g;
  const ConvDims* labels = inst.conv_dims();
  if (labels == nullptr) return Invalid("convolution needs dim_labels");
  g.labels = *labels;
  const ConvDims& d = g.labels;
  g.nsp = static_cast<int64_t>(d.input_spatial.size());
  const int64_t rank = g.nsp + 2;
  if (d.kernel_spatial.size() != d.input_spatial.size() ||
      d.output_spatial.size() != d.input_spatial.size()) {
    return Invalid("dim_labels have different numbers of input, kernel and output spatial dims");
  }
  if (lhs.rank() != rank || rhs.rank() != rank || inst.shape().rank() != rank) {
    return Invalid(StrCat("dim_labels describe rank-", rank, " arrays, but lhs is ",
                          lhs.ToString(false), ", rhs ", rhs.ToString(false), " and the result ",
                          inst.shape().ToString(false)));
  }
  if (auto s = CheckLabels("input", d.input_batch, d.input_feature, d.input_spatial, rank);
      !s.ok()) {
    return s;
  }
  if (auto s = CheckLabels("kernel", d.kernel_input_feature, d.kernel_output_feature,
                           d.kernel_spatial, rank);
      !s.ok()) {
    return s;
  }
  if (auto s = CheckLabels("output", d.output_batch, d.output_feature, d.output_spatial, rank);
      !s.ok()) {
    return s;
  }
  const Window empty;
  const Window& w = inst.window() ? *inst.window() : empty;
  if (static_cast<int64_t>(w.size()) != g.nsp) {
    return Invalid(StrCat("window has ", w.size(), " dimensions but dim_labels have ", g.nsp,
                          " spatial dimensions"));
  }
  g.batch = lhs.dim(d.input_batch);
  g.in_features = lhs.dim(d.input_feature);
  g.kernel_in = rhs.dim(d.kernel_input_feature);
  g.kernel_out = rhs.dim(d.kernel_output_feature);
  g.feature_groups = inst.GetInt(AttrKind::kFeatureGroupCount, 1);
  g.batch_groups = inst.GetInt(AttrKind::kBatchGroupCount, 1);
  if (auto s = CheckGroups(g); !s.ok()) return s;
  g.out_batch = g.batch / g.batch_groups;
  for (int64_t i = 0; i < g.nsp; ++i) {
    const WindowDim& wd = w[i];
    if (wd.size < 1) {
      return Invalid(
          StrCat("window dimension ", i, " has size ", wd.size, "; it must be at least 1"));
    }
    if (wd.size != rhs.dim(d.kernel_spatial[i])) {
      return Invalid(StrCat("window dimension ", i, " has size ", wd.size,
                            " but the kernel's spatial dimension ", i, " has size ",
                            rhs.dim(d.kernel_spatial[i])));
    }
    g.in_sp.push_back(lhs.dim(d.input_spatial[i]));
    g.win.push_back(wd.size);
    g.stride.push_back(wd.stride);
    g.lo.push_back(wd.padding_low);
    g.hi.push_back(wd.padding_high);
    g.base_dil.push_back(wd.base_dilation);
    g.win_dil.push_back(wd.window_dilation);
    g.reversal.push_back(wd.window_reversal);
    if (auto s = SpatialDim(g, i); !s.ok()) return s;
  }
  // The result shape must be what these give.
  Dims want(rank, 0);
  want[d.output_batch] = g.out_batch;
  want[d.output_feature] = g.kernel_out;
  for (int64_t i = 0; i < g.nsp; ++i) want[d.output_spatial[i]] = g.out_sp[i];
  absl::Span<const int64_t> got = inst.shape().dims();
  if (!std::equal(got.begin(), got.end(), want.begin(), want.end())) {
    return Invalid(StrCat("convolution of these operands has dims ", DimsText(want),
                          ", but the result shape is ", inst.shape().ToString(false)));
  }
  return g;
}

Dims RowMajorStrides(absl::Span<const int64_t> dims) {
  Dims s(dims.size(), 1);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i)
    s[i] = s[i + 1] * dims[i + 1];
  return s;
}

int64_t Product(absl::Span<const int64_t> v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

// Advances a multi-index over `dims` (last fastest); false after the last.
bool Next(Dims& idx, absl::Span<const int64_t> dims) {
  for (int64_t d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
    if (++idx[d] < dims[d]) return true;
    idx[d] = 0;
  }
  return false;
}

// Checked product of sizes for a scratch buffer.
absl::StatusOr<int64_t> CheckedProduct(std::initializer_list<int64_t> parts,
                                       absl::Span<const int64_t> more = {}) {
  int64_t p = 1;
  for (int64_t x : parts) {
    if (__builtin_mul_overflow(p, x, &p)) return Invalid("convolution buffer size overflows");
  }
  for (int64_t x : more) {
    if (__builtin_mul_overflow(p, x, &p)) return Invalid("convolution buffer size overflows");
  }
  return p;
}

// ---- step 1: the padded, dilated input in canonical layout ------------------------

// Zeroes the parts of Xp that no input element lands on: everything when
// lhs dilation leaves holes, else the border rows and columns only.
template <typename T>
void ZeroPadding(const Geometry& g, const Dims& first, const Dims& count, T* xp) {
  const int64_t total = g.batch * Product(g.padded) * g.in_features;
  bool holes = Product(count) == 0;
  for (int64_t i = 0; i < g.nsp; ++i) holes = holes || g.base_dil[i] > 1;
  if (holes) {
    std::fill(xp, xp + total, T(0));
    return;
  }
  if (g.nsp == 0) return;
  const int64_t last = g.nsp - 1;
  const int64_t row = g.padded[last] * g.in_features;
  const int64_t lead = (g.lo[last] + first[last]) * g.in_features;
  const int64_t data = count[last] * g.in_features;
  Dims outer(g.padded.begin(), g.padded.end() - 1), idx(g.nsp - 1, 0);
  T* p = xp;
  for (int64_t n = 0; n < g.batch; ++n) {
    do {
      bool inside = true;
      for (int64_t i = 0; i < last; ++i) {
        const int64_t lo = g.lo[i] + first[i];
        inside = inside && idx[i] >= lo && idx[i] < lo + count[i];
      }
      if (!inside) {
        std::fill(p, p + row, T(0));
      } else {
        std::fill(p, p + lead, T(0));
        std::fill(p + lead + data, p + row, T(0));
      }
      p += row;
    } while (Next(idx, outer));
  }
}

// body(n) for n in [0, batches), split across the cores by batch where
// the batches hold enough elements (`per_batch` each) to pay for the
// hand-off: the input's padded copy and the result's scatter convert a
// 16-bit float element by element, and ran on one core beside a
// convolution that runs on all (bf16, the shared conv bench: 0.5 of 4 ms).
template <typename Body>
void ForBatchRange(int64_t batches, int64_t per_batch, const Body& body) {
  constexpr int64_t kSplitElements = int64_t{1} << 16;
  if (batches < 2 || batches * per_batch < kSplitElements) {
    for (int64_t n = 0; n < batches; ++n) body(n);
    return;
  }
  ParallelRows(batches, 1, [&](int64_t n0, int64_t n1) {
    for (int64_t n = n0; n < n1; ++n) body(n);
  });
}

// The input positions [first, first + count) of every batch of in
// (row-major strides `src` over lhs's dims) into the padded canonical
// input at xp, whose position strides are `dst`.
template <typename T>
void TransposeInput(const Geometry& g, const Dims& src, const Dims& dst, const Dims& first,
                    const Dims& count, const T* in, T* xp) {
  const ConvDims& d = g.labels;
  StridedAxes axes = {{g.batch, Product(g.padded) * g.in_features, src[d.input_batch]}};
  int64_t so = 0, doff = 0;
  for (int64_t i = 0; i < g.nsp; ++i) {
    so += first[i] * src[d.input_spatial[i]];
    doff += (g.lo[i] + first[i] * g.base_dil[i]) * dst[i];
    axes.push_back({count[i], g.base_dil[i] * dst[i], src[d.input_spatial[i]]});
  }
  axes.push_back({g.in_features, 1, src[d.input_feature]});
  data_internal::StridedCopy(sizeof(T), reinterpret_cast<uint8_t*>(xp + doff),
                             reinterpret_cast<const uint8_t*>(in + so), std::move(axes));
}

template <typename T>
absl::Status PadInput(const Geometry& g, const Literal& lhs, ScratchBuffer<T>& xp) {
  auto size = CheckedProduct({g.batch, g.in_features}, g.padded);
  if (!size.ok()) return size.status();
  if (auto st = xp.Reset(*size); !st.ok()) return st;
  if (*size == 0) return absl::OkStatus();
  const ConvDims& d = g.labels;
  const Dims src = RowMajorStrides(lhs.shape().dims());
  Dims dst = RowMajorStrides(g.padded);  // per spatial position
  for (int64_t& s : dst) s *= g.in_features;
  const int64_t dst_batch = Product(g.padded) * g.in_features;
  // The input positions that land inside the (possibly cropped) padding.
  Dims first(g.nsp), count(g.nsp);
  for (int64_t i = 0; i < g.nsp; ++i) {
    const int64_t b = g.base_dil[i];
    const int64_t x0 = g.lo[i] >= 0 ? 0 : (-g.lo[i] + b - 1) / b;
    const int64_t last = g.padded[i] - 1 - g.lo[i];  // largest dilated position
    const int64_t x1 = last < 0 ? -1 : std::min(g.in_sp[i] - 1, last / b);
    first[i] = x0;
    count[i] = std::max<int64_t>(0, x1 - x0 + 1);
  }
  ZeroPadding(g, first, count, xp.data());
  if (Product(count) == 0 || g.batch == 0) return absl::OkStatus();
  const float* table = nullptr;
  if (IsSmallFloat(lhs.element_type()) && BitWidth(lhs.element_type()) <= 8) {
    table = gemm::SmallFloatDecodeTable(lhs.element_type());
  }
  const int64_t fstride = src[d.input_feature];
  // Odometer over the batch and all but the last spatial dim; the last
  // spatial dim and the features run in the inner loops.
  Dims outer_count(count.begin(), count.end());
  const int64_t last = g.nsp - 1;
  const int64_t inner = g.nsp == 0 ? 1 : count[last];
  if (g.nsp > 0) outer_count[last] = 1;
  const int64_t src_x = g.nsp == 0 ? 0 : src[d.input_spatial[last]];
  const int64_t dst_x = g.nsp == 0 ? 0 : g.base_dil[last] * dst[last];
  DispatchType(lhs.element_type(), [&](auto tag) {
    constexpr PrimitiveType P = decltype(tag)::value;
    const Storage<P>* in = lhs.typed<Storage<P>>();
    const bool copy = std::is_same_v<Storage<P>, T> && fstride == 1;
    // Features apart in the source (a weight gradient's f01b): one strided
    // copy, its tiled transposes pairing the source's minor dim with the
    // features.
    if constexpr (std::is_same_v<Storage<P>, T>) {
      if (!copy) return TransposeInput(g, src, dst, first, count, in, xp.data());
    }
    ForBatchRange(g.batch, Product(count) * g.in_features, [&](int64_t n) {
      Dims idx(g.nsp, 0);
      do {
        int64_t so = n * src[d.input_batch], doff = n * dst_batch;
        for (int64_t i = 0; i < g.nsp; ++i) {
          const int64_t x = first[i] + idx[i];
          so += x * src[d.input_spatial[i]];
          doff += (g.lo[i] + x * g.base_dil[i]) * dst[i];
        }
        for (int64_t x = 0; x < inner; ++x, so += src_x, doff += dst_x) {
          T* out = xp.data() + doff;
          if constexpr (std::is_same_v<Storage<P>, T>) {
            if (copy) {
              std::memcpy(out, in + so, g.in_features * sizeof(T));
              continue;
            }
          }
          // f16 and bf16 features a row: one vectorised loop.
          if constexpr (std::is_same_v<T, float>) {
            if (fstride == 1 && WidenFloat16s(P, in + so, g.in_features, out)) continue;
          }
          for (int64_t c = 0; c < g.in_features; ++c) {
            out[c] = gemm::ToCompute<P, T>(in[so + c * fstride], table);
          }
        }
      } while (Next(idx, outer_count));
    });
  });
  return absl::OkStatus();
}

// ---- step 2: the kernel per group: Kc[group][tap][in][out] -------------------------

template <typename T>
absl::Status PackKernel(const Geometry& g, const Literal& rhs, ScratchBuffer<T>& kc) {
  if (auto st = kc.Reset(rhs.element_count()); !st.ok()) return st;
  if (rhs.element_count() == 0) return absl::OkStatus();
  const ConvDims& d = g.labels;
  const Dims src = RowMajorStrides(rhs.shape().dims());
  const int64_t groups = g.feature_groups * g.batch_groups;
  const int64_t per = g.kernel_out / groups;
  const float* table = nullptr;
  if (IsSmallFloat(rhs.element_type()) && BitWidth(rhs.element_type()) <= 8) {
    table = gemm::SmallFloatDecodeTable(rhs.element_type());
  }
  // Each window position's offset in the kernel, in the order of the rows.
  std::vector<int64_t> taps;
  Dims w(g.nsp, 0);
  do {
    int64_t tap = 0;
    for (int64_t i = 0; i < g.nsp; ++i) {
      const int64_t wi = g.reversal[i] ? g.win[i] - 1 - w[i] : w[i];
      tap += wi * src[d.kernel_spatial[i]];
    }
    taps.push_back(tap);
  } while (Next(w, g.win));
  const int64_t in_stride = src[d.kernel_input_feature];
  const int64_t out_stride = src[d.kernel_output_feature];
  DispatchType(rhs.element_type(), [&](auto tag) {
    constexpr PrimitiveType P = decltype(tag)::value;
    const Storage<P>* k = rhs.typed<Storage<P>>();
    T* out = kc.data();
    for (int64_t grp = 0; grp < groups; ++grp) {
      for (const int64_t tap : taps) {
        for (int64_t c = 0; c < g.kernel_in; ++c) {
          const int64_t base = tap + c * in_stride + grp * per * out_stride;
          // Out-features last in the kernel (a weight gradient's i01o): one
          // copy (of a few elements, the loop below: a depthwise weight
          // gradient's one feature a group made a memcpy call per element).
          if constexpr (std::is_same_v<Storage<P>, T>) {
            if (out_stride == 1 && per >= 16) {
              std::memcpy(out, k + base, static_cast<size_t>(per) * sizeof(T));
              out += per;
              continue;
            }
          }
          for (int64_t j = 0; j < per; ++j) {
            *out++ = gemm::ToCompute<P, T>(k[base + j * out_stride], table);
          }
        }
      }
    }
  });
  return absl::OkStatus();
}

// The kernel in place: [spatial...][in][out] row-major in the compute type,
// no reversal (any groups: group g's matrix is columns [g * per, (g + 1) *
// per) of the [taps * in] x [out] matrix).
template <typename T>
const T* KernelInPlace(const Geometry& g, const Literal& rhs) {
  const T* k = gemm::DirectData<T>(rhs);
  if (k == nullptr) return nullptr;
  const ConvDims& d = g.labels;
  if (d.kernel_output_feature != g.nsp + 1 || d.kernel_input_feature != g.nsp) return nullptr;
  for (int64_t i = 0; i < g.nsp; ++i) {
    if (d.kernel_spatial[i] != i || g.reversal[i]) return nullptr;
  }
  return k;
}

// The Winograd fast path (eval/kernels/convolution_winograd.h): real floats, 2-D
// 3x3 windows at stride 1 with non-negative padding and no dilation,
// reversal or groups, and enough features and output tiles for it to pay.
// Xp and Kc (or the input and kernel in place) are what it takes.
template <typename T>
bool UseWinograd(const Geometry& g) {
  if constexpr (!std::is_same_v<T, float> && !std::is_same_v<T, double>) {
    return false;
  } else {
    if (g.nsp != 2 || g.feature_groups != 1 || g.batch_groups != 1) return false;
    for (int64_t i = 0; i < 2; ++i) {
      if (g.win[i] != 3 || g.stride[i] != 1 || g.base_dil[i] != 1 || g.win_dil[i] != 1 ||
          g.reversal[i] || g.lo[i] < 0 || g.hi[i] < 0 || g.padded[i] < 3) {
        return false;
      }
    }
    const int64_t tiles = g.batch * ((g.out_sp[0] + 1) / 2) * ((g.out_sp[1] + 1) / 2);
    return conv::WinogradPays(g.in_features, g.kernel_out, tiles);
  }
}

// ---- step 4: the canonical output into the result --------------------------------------

bool CanonicalInput(const Geometry& g) {
  const ConvDims& d = g.labels;
  if (d.input_batch != 0 || d.input_feature != g.nsp + 1) return false;
  for (int64_t i = 0; i < g.nsp; ++i) {
    if (d.input_spatial[i] != i + 1) return false;
  }
  return true;
}

bool CanonicalOutput(const Geometry& g) {
  const ConvDims& d = g.labels;
  if (d.output_batch != 0 || d.output_feature != g.nsp + 1) return false;
  for (int64_t i = 0; i < g.nsp; ++i) {
    if (d.output_spatial[i] != i + 1) return false;
  }
  return true;
}

template <typename T>
void ScatterOutput(const Geometry& g, const T* oc, Literal& out) {
  const ConvDims& d = g.labels;
  const Dims dst = RowMajorStrides(out.shape().dims());
  DispatchType(out.element_type(), [&](auto tag) {
    constexpr PrimitiveType P = decltype(tag)::value;
    Storage<P>* o = out.typed<Storage<P>>();
    const int64_t per_batch = Product(g.out_sp) * g.kernel_out;
    ForBatchRange(g.out_batch, per_batch, [&](int64_t n) {
      const T* src = oc + n * per_batch;
      Dims idx(g.nsp, 0);
      do {
        int64_t off = n * dst[d.output_batch];
        for (int64_t i = 0; i < g.nsp; ++i) off += idx[i] * dst[d.output_spatial[i]];
        const int64_t fs = dst[d.output_feature];
        // f16 and bf16 features a row: one vectorised loop.
        if constexpr (std::is_same_v<T, float>) {
          if (fs == 1 && NarrowToFloat16s(P, src, g.kernel_out, o + off)) {
            src += g.kernel_out;
            continue;
          }
        }
        for (int64_t f = 0; f < g.kernel_out; ++f)
          o[off + f * fs] = gemm::FromCompute<P, T>(*src++);
      } while (Next(idx, g.out_sp));
    });
  });
}

// The source the fast paths read windows from: the input in place (virtual
// padding) or Xp.
template <typename T>
conv::Source<T> InputSource(const Geometry& g, const T* input) {
  conv::Source<T> s;
  s.x = input;
  s.sp = input != nullptr ? g.in_sp : g.padded;
  s.sp_stride = RowMajorStrides(s.sp);
  for (int64_t& x : s.sp_stride) x *= g.in_features;
  s.batch_stride = Product(s.sp) * g.in_features;
  s.pad = input != nullptr ? g.lo : Dims(g.nsp, 0);
  return s;
}

template <typename T>
bool InputInPlace(const Geometry& g) {
  for (int64_t i = 0; i < g.nsp; ++i) {
    if (g.base_dil[i] != 1) return false;
  }
  return CanonicalInput(g);
}

// Kd[tap][f] for the depthwise path from Kc (the kernel in place already
// has that layout).
template <typename T>
void DepthwiseKernel(const Geometry& g, const T* kc, T* kd) {
  const int64_t groups = g.groups(), per = g.per_group(), taps = g.taps();
  for (int64_t grp = 0; grp < groups; ++grp) {
    for (int64_t t = 0; t < taps; ++t) {
      for (int64_t j = 0; j < per; ++j) {
        kd[t * g.kernel_out + grp * per + j] = kc[(grp * taps + t) * per + j];
      }
    }
  }
}

template <typename T>
absl::Status RunConvolution(const Geometry& g, const Literal& lhs, const Literal& rhs,
                            Literal& out) {
  if (g.out_batch * g.positions() == 0 || g.kernel_out == 0) return absl::OkStatus();  // empty
  const bool winograd = UseWinograd<T>(g);
  const bool depthwise = !winograd && g.feature_groups > 1 && g.kernel_in == 1;
  // The input in place when it is canonical; Winograd also needs the
  // padding non-negative (checked by UseWinograd).
  const T* x = InputInPlace<T>(g) ? gemm::DirectData<T>(lhs) : nullptr;
  ScratchBuffer<T> xp, kc, obuf;
  if (x == nullptr) {
    if (auto st = PadInput<T>(g, lhs, xp); !st.ok()) return st;
  }
  const T* k = KernelInPlace<T>(g, rhs);
  const bool kernel_in_place = k != nullptr;
  if (k == nullptr) {
    if (auto st = PackKernel<T>(g, rhs, kc); !st.ok()) return st;
    k = kc.data();
  }
  T* oc = CanonicalOutput(g) ? gemm::MutableDirectData<T>(out) : nullptr;
  const bool scatter = oc == nullptr;
  if (scatter) {
    if (auto st = obuf.Reset(out.element_count()); !st.ok()) return st;
    oc = obuf.data();
  }
  if (winograd) {
    conv::WinogradShape s{g.batch,     g.padded[0], g.padded[1],   0,           0,
                          g.out_sp[0], g.out_sp[1], g.in_features, g.kernel_out};
    if (x != nullptr) {
      s.in_h = g.in_sp[0];
      s.in_w = g.in_sp[1];
      s.pad_top = g.lo[0];
      s.pad_left = g.lo[1];
    } else {
      x = xp.data();
    }
    // Instantiated for real floats only; UseWinograd is false for the rest,
    // but clang at -O1 (the fuzz build) still emits the call.
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      if (auto st = conv::Winograd3x3<T>(s, x, k, oc); !st.ok()) return st;
    }
  } else {
    conv::Source<T> from = InputSource<T>(g, x);
    if (x == nullptr) from.x = xp.data();
    if (depthwise && kernel_in_place) {
      conv::DepthwiseConvolution<T>(g, from, k, oc);
    } else if (depthwise) {
      ScratchBuffer<T> kd;
      if (auto st = kd.Reset(g.taps() * g.kernel_out); !st.ok()) return st;
      DepthwiseKernel<T>(g, k, kd.data());
      conv::DepthwiseConvolution<T>(g, from, kd.data(), oc);
    } else {
      conv::KernelMatrix<T> km{
          k, kernel_in_place ? g.per_group() : g.taps() * g.kernel_in * g.per_group(),
          kernel_in_place ? g.kernel_out : g.per_group()};
      if (auto st = conv::GemmConvolution<T>(g, from, km, oc); !st.ok()) return st;
    }
  }
  if (scatter) ScatterOutput<T>(g, oc, out);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Value> EvalConvolution(const Instruction& inst, Operands ops, KernelContext&) {
  if (ops.size() != 2) {
    return Invalid(StrCat("convolution takes 2 operands but has ", ops.size()));
  }
  for (size_t i = 0; i < 2; ++i) {
    if (ops[i] == nullptr || !ops[i]->is_array()) {
      return Invalid(StrCat("operand ", i, " of convolution must be an array"));
    }
  }
  if (!inst.shape().IsArray() || !IsArrayType(inst.shape().element_type())) {
    return Invalid(StrCat("convolution must produce an array, not ", inst.shape().ToString(false)));
  }
  const Literal& lhs = ops[0]->array();
  const Literal& rhs = ops[1]->array();
  auto g = ReadGeometry(inst, lhs.shape(), rhs.shape());
  if (!g.ok()) return g.status();
  // Every path writes every element of the result (gemm overwrites, empty
  // contractions give zeros), so it need not be zeroed first.
  absl::StatusOr<Value> out = NewArrayUninitialized(inst.shape());
  if (!out.ok()) return out;
  Literal& o = out->mutable_array();
  absl::Status st;
  gemm::DispatchCompute(
      gemm::ComputeTypeOf(lhs.element_type(), rhs.element_type(), o.element_type()),
      [&](auto c) { st = RunConvolution<decltype(c)>(*g, lhs, rhs, o); });
  if (!st.ok()) return st;
  return out;
}

}  // namespace hlo
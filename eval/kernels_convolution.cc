// convolution: any dim_labels permutation, 0-3+ spatial dims, window
// strides, padding (negative crops), lhs (base) dilation, rhs (window)
// dilation, window reversal, feature_group_count, batch_group_count, every
// numeric type and pred; the result's element type is the instruction's.
//
// Built as packing plus gemm, in the compute type of gemm_convert.h:
//  1. the input is converted once into a canonical padded and dilated
//     buffer Xp[batch][spatial...][feature] (zeros in the padding and holes),
//     so every window position is in bounds;
//  2. the kernel is packed per group as Kc[group][tap][in feature][out];
//  3. per group and block of output rows (batch x output positions) the
//     windows are gathered (im2col: one contiguous run of in-features per
//     tap) and multiplied by Kc[group] with gemm into a canonical output
//     Oc[batch][spatial...][feature] - the result itself when it has that
//     layout and type, else scattered into it at the end.
// 1x1 stride-1 windows skip the gather (Xp rows are the matrix), and
// depthwise convolutions (one input feature per group) run as a direct
// multiply-add over taps, vectorised across features. 2-D 3x3 stride-1
// f32/f64 convolutions without dilation, reversal, groups or negative
// padding take Winograd F(2x2, 3x3) instead of steps 1 and 3
// (kernels_convolution_winograd.h): 2.25x fewer multiplications; it reads
// a canonical input of the compute type in place, else Xp.
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

#include "eval/gemm.h"
#include "eval/gemm_convert.h"
#include "eval/kernels.h"
#include "eval/kernels_convolution_winograd.h"
#include "ir/strings.h"

namespace hlo {
namespace {

using conv::ParallelRows;
using gemm::Dims;

absl::Status Invalid(std::string message) {
  return absl::InvalidArgumentError(std::move(message));
}

std::string DimsText(absl::Span<const int64_t> dims) {
  return StrCat("{", StrJoin(dims, ","), "}");
}

// Sizes of everything, checked against each other and the result shape.
struct Geometry {
  int64_t nsp = 0;                      // spatial dims
  int64_t batch = 0, in_features = 0;   // input
  Dims in_sp;                           // input spatial sizes
  int64_t kernel_in = 0, kernel_out = 0;
  Dims win;                             // window (kernel spatial) sizes
  Dims stride, lo, hi, base_dil, win_dil;
  std::vector<bool> reversal;
  Dims padded;                          // padded dilated input spatial sizes
  Dims out_sp;
  int64_t out_batch = 0;
  int64_t feature_groups = 1, batch_groups = 1;
  ConvDims labels;
};

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
  if (g.in_features % g.feature_groups != 0 ||
      g.in_features / g.feature_groups != g.kernel_in) {
    return Invalid(StrCat("the input has ", g.in_features, " features, which with "
                          "feature_group_count ", g.feature_groups,
                          " does not give the kernel's ", g.kernel_in, " input features"));
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

absl::StatusOr<Geometry> ReadGeometry(const Instruction& inst, const Shape& lhs,
                                      const Shape& rhs) {
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
      return Invalid(StrCat("window dimension ", i, " has size ", wd.size,
                            "; it must be at least 1"));
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
  for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * dims[i + 1];
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

template <typename T>
absl::Status PadInput(const Geometry& g, const Literal& lhs, std::unique_ptr<T[]>& xp) {
  auto size = CheckedProduct({g.batch, g.in_features}, g.padded);
  if (!size.ok()) return size.status();
  if (auto st = gemm::AllocateUninitialized(xp, *size); !st.ok()) return st;
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
  ZeroPadding(g, first, count, xp.get());
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
    for (int64_t n = 0; n < g.batch; ++n) {
      Dims idx(g.nsp, 0);
      do {
        int64_t so = n * src[d.input_batch], doff = n * dst_batch;
        for (int64_t i = 0; i < g.nsp; ++i) {
          const int64_t x = first[i] + idx[i];
          so += x * src[d.input_spatial[i]];
          doff += (g.lo[i] + x * g.base_dil[i]) * dst[i];
        }
        for (int64_t x = 0; x < inner; ++x, so += src_x, doff += dst_x) {
          T* out = xp.get() + doff;
          if constexpr (std::is_same_v<Storage<P>, T>) {
            if (copy) {
              std::memcpy(out, in + so, g.in_features * sizeof(T));
              continue;
            }
          }
          for (int64_t c = 0; c < g.in_features; ++c) {
            out[c] = gemm::ToCompute<P, T>(in[so + c * fstride], table);
          }
        }
      } while (Next(idx, outer_count));
    }
  });
  return absl::OkStatus();
}

// ---- step 2: the kernel per group: Kc[group][tap][in][out] -------------------------

template <typename T>
absl::Status PackKernel(const Geometry& g, const Literal& rhs, std::vector<T>& kc) {
  if (auto st = gemm::Allocate(kc, rhs.element_count()); !st.ok()) return st;
  if (rhs.element_count() == 0) return absl::OkStatus();
  const ConvDims& d = g.labels;
  const Dims src = RowMajorStrides(rhs.shape().dims());
  const int64_t groups = g.feature_groups * g.batch_groups;
  const int64_t per = g.kernel_out / groups;
  const float* table = nullptr;
  if (IsSmallFloat(rhs.element_type()) && BitWidth(rhs.element_type()) <= 8) {
    table = gemm::SmallFloatDecodeTable(rhs.element_type());
  }
  DispatchType(rhs.element_type(), [&](auto tag) {
    constexpr PrimitiveType P = decltype(tag)::value;
    const Storage<P>* k = rhs.typed<Storage<P>>();
    T* out = kc.data();
    for (int64_t grp = 0; grp < groups; ++grp) {
      Dims w(g.nsp, 0);
      do {
        int64_t tap = 0;
        for (int64_t i = 0; i < g.nsp; ++i) {
          const int64_t wi = g.reversal[i] ? g.win[i] - 1 - w[i] : w[i];
          tap += wi * src[d.kernel_spatial[i]];
        }
        for (int64_t c = 0; c < g.kernel_in; ++c) {
          const int64_t base = tap + c * src[d.kernel_input_feature] +
                               grp * per * src[d.kernel_output_feature];
          for (int64_t j = 0; j < per; ++j) {
            *out++ = gemm::ToCompute<P, T>(k[base + j * src[d.kernel_output_feature]], table);
          }
        }
      } while (Next(w, g.win));
    }
  });
  return absl::OkStatus();
}

// ---- step 3: windows times kernels ---------------------------------------------------

// Offsets into Xp shared by the gather loops.
struct Layout {
  Dims xp_sp;            // Xp element stride of each spatial dim
  int64_t xp_batch = 0;  // Xp element stride of the batch
  std::vector<int64_t> taps;  // Xp offset of each window tap (row-major taps)
  int64_t rows = 0;      // out_batch x output positions
};

Layout MakeLayout(const Geometry& g) {
  Layout l;
  l.xp_sp = RowMajorStrides(g.padded);
  for (int64_t& s : l.xp_sp) s *= g.in_features;
  l.xp_batch = Product(g.padded) * g.in_features;
  Dims w(g.nsp, 0);
  do {
    int64_t off = 0;
    for (int64_t i = 0; i < g.nsp; ++i) off += w[i] * g.win_dil[i] * l.xp_sp[i];
    l.taps.push_back(off);
  } while (Next(w, g.win));
  l.rows = g.out_batch * Product(g.out_sp);
  return l;
}

// Xp offsets (batch and window origin, no feature offset) of output rows
// [r0, r0 + n), written to `origin`.
void RowOrigins(const Geometry& g, const Layout& l, int64_t r0, int64_t n,
                std::vector<int64_t>& origin) {
  origin.resize(n);
  const int64_t positions = Product(g.out_sp);
  Dims o(g.nsp, 0);
  int64_t rem = positions == 0 ? 0 : r0 % positions;
  int64_t b = positions == 0 ? 0 : r0 / positions;
  for (int64_t i = g.nsp - 1; i >= 0; --i) {
    o[i] = rem % g.out_sp[i];
    rem /= g.out_sp[i];
  }
  for (int64_t r = 0; r < n; ++r) {
    int64_t off = b * l.xp_batch;
    for (int64_t i = 0; i < g.nsp; ++i) off += o[i] * g.stride[i] * l.xp_sp[i];
    origin[r] = off;
    if (!Next(o, g.out_sp)) ++b;
  }
}

// Scratch elements of one im2col block (8 MB of f32). 1 MB measured best
// on an idle machine, but every gemm call wakes OpenBLAS's workers, and on a
// shared machine the per-call cost dominated (conv benchmark: 130 ms with
// 55 calls, 21 ms single-threaded); fewer, larger calls are the robust
// choice. The gather is split across the cores (OpenBLAS's workers are idle
// then).
constexpr int64_t kBlockElements = int64_t{1} << 21;

template <typename T>
absl::Status GemmGroups(const Geometry& g, const Layout& l, const T* xp, const T* kc, T* oc) {
  const int64_t groups = g.feature_groups * g.batch_groups;
  const int64_t per = g.kernel_out / groups;
  const int64_t taps = static_cast<int64_t>(l.taps.size());
  const int64_t kdim = taps * g.kernel_in;
  bool pointwise = true;
  for (int64_t i = 0; i < g.nsp; ++i) pointwise = pointwise && g.win[i] == 1 && g.stride[i] == 1;
  const int64_t block = std::max<int64_t>(1, std::min(l.rows, kBlockElements / std::max<int64_t>(1, kdim)));
  std::vector<T> cols;
  if (!pointwise) {
    if (auto st = gemm::Allocate(cols, block * kdim); !st.ok()) return st;
  }
  std::vector<int64_t> origin;
  for (int64_t grp = 0; grp < groups; ++grp) {
    // Feature groups take a slice of the features, batch groups of the batch.
    const int64_t c0 = g.feature_groups > 1 ? grp * g.kernel_in : 0;
    const int64_t n0 = g.batch_groups > 1 ? grp * g.out_batch * l.xp_batch : 0;
    const T* k = kc + grp * kdim * per;
    T* out = oc + grp * per;
    if (pointwise) {
      // Xp rows are the windows: output position == input position.
      gemm::Gemm<T>(false, false, l.rows, per, g.kernel_in, xp + n0 + c0, g.in_features, k, per,
                    out, g.kernel_out);
      continue;
    }
    for (int64_t r0 = 0; r0 < l.rows; r0 += block) {
      const int64_t n = std::min(block, l.rows - r0);
      RowOrigins(g, l, r0, n, origin);
      ParallelRows(n, 512, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          T* dst = cols.data() + r * kdim;
          const T* src = xp + n0 + c0 + origin[r];
          for (int64_t t = 0; t < taps; ++t) {
            std::memcpy(dst + t * g.kernel_in, src + l.taps[t], g.kernel_in * sizeof(T));
          }
        }
      });
      gemm::Gemm<T>(false, false, n, per, kdim, cols.data(), kdim, k, per,
                    out + r0 * g.kernel_out, g.kernel_out);
    }
  }
  return absl::OkStatus();
}

// One output row of a depthwise convolution: out[f] = sum over taps t of
// x[taps[t] + f] * k[t][f]. Blocks of 16 features accumulate in registers
// across all taps; built for AVX-512 and AVX2 too (the compiler may fuse
// the multiply-add, as OpenBLAS does in the gemm path).
#define HLO_DEPTHWISE_ROW(T)                                                                \
  __attribute__((target_clones("avx512f", "avx2", "default"))) void DepthwiseRow(            \
      T* out, const T* x, const int64_t* taps, int64_t ntaps, const T* k, int64_t n) {      \
    int64_t f0 = 0;                                                                         \
    for (; f0 + 16 <= n; f0 += 16) {                                                        \
      T acc[16] = {};                                                                       \
      for (int64_t t = 0; t < ntaps; ++t) {                                                 \
        const T* xt = x + taps[t] + f0;                                                     \
        const T* kt = k + t * n + f0;                                                       \
        for (int j = 0; j < 16; ++j) acc[j] += xt[j] * kt[j];                               \
      }                                                                                     \
      for (int j = 0; j < 16; ++j) out[f0 + j] = acc[j];                                    \
    }                                                                                       \
    for (; f0 < n; ++f0) {                                                                  \
      T acc = 0;                                                                            \
      for (int64_t t = 0; t < ntaps; ++t) acc += x[taps[t] + f0] * k[t * n + f0];           \
      out[f0] = acc;                                                                        \
    }                                                                                       \
  }
HLO_DEPTHWISE_ROW(float)
HLO_DEPTHWISE_ROW(double)
#undef HLO_DEPTHWISE_ROW
template <typename T>
void DepthwiseRow(T* out, const T* x, const int64_t* taps, int64_t ntaps, const T* k,
                  int64_t n) {
  std::fill(out, out + n, T(0));
  for (int64_t t = 0; t < ntaps; ++t) {
    for (int64_t f = 0; f < n; ++f) out[f] += x[taps[t] + f] * k[t * n + f];
  }
}


// One input feature per feature group: out[f] = sum over taps of x[group(f)]
// * k[tap][f], a multiply-add across all features per tap.
template <typename T>
void Depthwise(const Geometry& g, const Layout& l, const T* xp, const T* kc, T* oc) {
  const int64_t groups = g.feature_groups;
  const int64_t per = g.kernel_out / groups;
  const int64_t taps = static_cast<int64_t>(l.taps.size());
  // Kd[tap][f] from Kc[group][tap][0][j].
  std::vector<T> kd(taps * g.kernel_out);
  for (int64_t grp = 0; grp < groups; ++grp) {
    for (int64_t t = 0; t < taps; ++t) {
      for (int64_t j = 0; j < per; ++j) {
        kd[t * g.kernel_out + grp * per + j] = kc[(grp * taps + t) * per + j];
      }
    }
  }
  ParallelRows(l.rows, 2048, [&](int64_t begin, int64_t end) {
    std::vector<int64_t> origin;
    std::vector<T> spread(per == 1 ? 0 : g.kernel_out);
    for (int64_t r0 = begin; r0 < end; r0 += 1024) {
      const int64_t n = std::min<int64_t>(1024, end - r0);
      RowOrigins(g, l, r0, n, origin);
      for (int64_t r = 0; r < n; ++r) {
        T* out = oc + (r0 + r) * g.kernel_out;
        if (per == 1) {
          DepthwiseRow(out, xp + origin[r], l.taps.data(), taps, kd.data(), g.kernel_out);
          continue;
        }
        // Each input feature feeds `per` outputs: spread it over them first.
        std::fill(out, out + g.kernel_out, T(0));
        for (int64_t t = 0; t < taps; ++t) {
          const T* x = xp + origin[r] + l.taps[t];
          for (int64_t f = 0; f < g.kernel_out; ++f) spread[f] = x[f / per];
          const T* k = kd.data() + t * g.kernel_out;
          for (int64_t f = 0; f < g.kernel_out; ++f) out[f] += spread[f] * k[f];
        }
      }
    }
  });
}

// The Winograd fast path (kernels_convolution_winograd.h): real floats, 2-D
// 3x3 windows at stride 1 with non-negative padding and no dilation,
// reversal or groups, and enough features for it to pay. Xp and Kc are
// already what it takes.
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
    return conv::WinogradPays(g.in_features, g.kernel_out);
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
    const T* src = oc;
    for (int64_t n = 0; n < g.out_batch; ++n) {
      Dims idx(g.nsp, 0);
      do {
        int64_t off = n * dst[d.output_batch];
        for (int64_t i = 0; i < g.nsp; ++i) off += idx[i] * dst[d.output_spatial[i]];
        const int64_t fs = dst[d.output_feature];
        for (int64_t f = 0; f < g.kernel_out; ++f) o[off + f * fs] = gemm::FromCompute<P, T>(*src++);
      } while (Next(idx, g.out_sp));
    }
  });
}

template <typename T>
absl::Status RunConvolution(const Geometry& g, const Literal& lhs, const Literal& rhs,
                            Literal& out) {
  const Layout l = MakeLayout(g);
  if (l.rows == 0 || g.kernel_out == 0) return absl::OkStatus();  // result is empty
  // The Winograd path reads a canonical input of the compute type as it is
  // (padding included); everything else reads the padded copy Xp.
  const bool winograd = UseWinograd<T>(g);
  const T* x = winograd && CanonicalInput(g) ? gemm::DirectData<T>(lhs) : nullptr;
  std::unique_ptr<T[]> xp;
  std::vector<T> kc, obuf;
  if (x == nullptr) {
    if (auto st = PadInput<T>(g, lhs, xp); !st.ok()) return st;
  }
  if (auto st = PackKernel<T>(g, rhs, kc); !st.ok()) return st;
  T* oc = CanonicalOutput(g) ? gemm::MutableDirectData<T>(out) : nullptr;
  const bool scatter = oc == nullptr;
  if (scatter) {
    if (auto st = gemm::Allocate(obuf, out.element_count()); !st.ok()) return st;
    oc = obuf.data();
  }
  if (winograd) {
    conv::WinogradShape s{g.batch, g.padded[0], g.padded[1], 0, 0, g.out_sp[0], g.out_sp[1],
                          g.in_features, g.kernel_out};
    if (x != nullptr) {
      s.in_h = g.in_sp[0];
      s.in_w = g.in_sp[1];
      s.pad_top = g.lo[0];
      s.pad_left = g.lo[1];
    } else {
      x = xp.get();
    }
    if (auto st = conv::Winograd3x3<T>(s, x, kc.data(), oc); !st.ok()) return st;
  } else if (g.feature_groups > 1 && g.kernel_in == 1) {
    Depthwise<T>(g, l, xp.get(), kc.data(), oc);
  } else if (auto st = GemmGroups<T>(g, l, xp.get(), kc.data(), oc); !st.ok()) {
    return st;
  }
  if (scatter) ScatterOutput<T>(g, oc, out);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Value> EvalConvolution(const Instruction& inst, Operands ops, Evaluator&) {
  if (ops.size() != 2) {
    return Invalid(StrCat("convolution takes 2 operands but has ", ops.size()));
  }
  for (size_t i = 0; i < 2; ++i) {
    if (ops[i] == nullptr || !ops[i]->is_array()) {
      return Invalid(StrCat("operand ", i, " of convolution must be an array"));
    }
  }
  if (!inst.shape().IsArray() || !IsArrayType(inst.shape().element_type())) {
    return Invalid(StrCat("convolution must produce an array, not ",
                          inst.shape().ToString(false)));
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

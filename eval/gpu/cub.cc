// XLA:GPU's CUB calls (xla/backends/gpu/transforms/sort_rewriter.cc,
// scan_rewriter.cc and their scratch-size passes), typed FFI calls with
// their options as an attribute dictionary in backend_config:
//
//   xla.gpu.ext.cub_sort_keys (keys) -> (sorted keys, u8[scratch]) and
//   xla.gpu.ext.cub_sort_pairs (keys, values) -> (keys, values, u8[scratch]),
//     {descending, batch_size}: cub::DeviceRadixSort of each of the
//     batch_size rows (the last dimension, contiguous in the default layout):
//     a stable sort of the keys in radix order, values moved with them.
//     Radix order is the integers' order; for floats, the sign-flipped bits
//     (-NaN < -inf < ... < -0 = +0 < ... < +inf < +NaN), -0 and +0 equal.
//     Descending reverses the order; equal keys keep their order either way.
//   xla.gpu.ext.cub_scan (x) -> (y, u8[scratch]), {vector_length,
//     row_length, column_length, kind = 1 (SUM), is_reverse}: the inclusive
//     sum of each row along x's minor-most dimension (from its end when
//     is_reverse), accumulated in x's type.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "eval/gpu/gpu_config.h"
#include "eval/gpu/gpu_custom_calls.h"
#include "eval/linalg/lapack_call.h"
#include "ir/strings.h"

namespace hlo::gpu {
namespace {

absl::Status Invalid(std::string message) { return absl::InvalidArgumentError(std::move(message)); }

bool DefaultLayout(const Shape& s) {
  if (!s.has_layout()) return true;
  const auto& m2m = s.layout().minor_to_major;
  for (size_t i = 0; i < m2m.size(); ++i) {
    if (m2m[i] != static_cast<int64_t>(m2m.size() - 1 - i)) return false;
  }
  return true;
}

// A key's radix rank: unsigned order of the transformed bits.
uint64_t RadixRank(const Literal& keys, int64_t i) {
  const PrimitiveType t = keys.element_type();
  const int bits = BitWidth(t);
  const uint64_t raw = keys.GetBits(i);
  const uint64_t sign = uint64_t{1} << (bits - 1);
  const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  if (IsFloat(t)) {
    const uint64_t v = raw == sign ? 0 : raw;  // -0 sorts as +0
    return (v & sign) ? (~v & mask) : (v | sign);
  }
  if (IsSignedInt(t)) return (raw ^ sign) & mask;
  return raw & mask;
}

absl::StatusOr<Value> CopyOf(const Value& v) {
  absl::StatusOr<Value> out = NewArrayUninitialized(v.array().shape());
  if (!out.ok()) return out;
  std::memcpy(out->mutable_array().data(), v.array().data(), v.array().size_bytes());
  return out;
}

}  // namespace

absl::StatusOr<Value> EvalCubSort(const Instruction& inst, Operands ops, KernelContext&) {
  const std::string target = TargetOf(inst);
  if (ops.empty() || ops.size() > 2 || !ops[0]->is_array() ||
      (ops.size() == 2 && !ops[1]->is_array())) {
    return Invalid(StrCat("custom-call ", target, " takes (keys) or (keys, values)"));
  }
  const Literal& keys = ops[0]->array();
  const Shape& ks = keys.shape();
  if (ks.rank() < 1 || !DefaultLayout(inst.operand(0)->shape()) ||
      !(IsFloat(ks.element_type()) || IsSignedInt(ks.element_type()) ||
        IsUnsignedInt(ks.element_type())) ||
      BitWidth(ks.element_type()) < 8) {
    return Invalid(StrCat("custom-call ", target,
                          " sorts rows of integer or float keys in the "
                          "default layout, not ",
                          inst.operand(0)->shape().ToString()));
  }
  if (ops.size() == 2 && ops[1]->array().shape().dims() != ks.dims()) {
    return Invalid(StrCat("the values of ", target, " must have the keys' dimensions"));
  }
  lapack::Call call(inst, ops, lapack::Target{"sort", ks.element_type(), true});
  absl::StatusOr<bool> descending = call.BoolAttr("descending");
  if (!descending.ok()) return descending.status();
  const int64_t n = ks.dim(ks.rank() - 1);
  const int64_t rows = n == 0 ? 0 : keys.element_count() / n;
  std::vector<Value> results;
  for (const Value* v : ops) {
    absl::StatusOr<Value> c = CopyOf(*v);
    if (!c.ok()) return c;
    results.push_back(*std::move(c));
  }
  std::vector<int64_t> order(n);
  std::vector<uint64_t> rank(n);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < n; ++j) rank[j] = RadixRank(keys, r * n + j);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return *descending ? rank[a] > rank[b] : rank[a] < rank[b];
    });
    for (size_t k = 0; k < ops.size(); ++k) {
      const Literal& from = ops[k]->array();
      const int w = ByteWidth(from.element_type());
      uint8_t* to = results[k].mutable_array().data() + r * n * w;
      for (int64_t j = 0; j < n; ++j) {
        std::memcpy(to + j * w, from.data() + (r * n + order[j]) * w, w);
      }
    }
  }
  return WithWorkspaces(inst, std::move(results));
}

// Scans of up to kLines lines of f32 or f64 elements at once (line l starts
// at bases[l], its elements `stride` apart): each partial sum the generic
// loop's, the f64 sum of the last one and the element rounded to T. The
// lines go side by side so that one line's chain of dependent adds and
// conversions waits while the others run.
constexpr int kLines = 8;

template <typename T>
void ScanLines(const T* x, T* out, const int64_t* bases, int lines, int64_t len, int64_t stride,
               bool reverse) {
  double acc[kLines] = {};
  for (int64_t s = 0; s < len; ++s) {
    const int64_t step = (reverse ? len - 1 - s : s) * stride;
    for (int l = 0; l < lines; ++l) {
      const int64_t at = bases[l] + step;
      out[at] = static_cast<T>(acc[l] + static_cast<double>(x[at]));
      acc[l] = static_cast<double>(out[at]);
    }
  }
}

template <typename T>
void ScanAll(const Literal& x, Literal& out, int64_t outer, int64_t len, int64_t inner,
             bool reverse) {
  int64_t bases[kLines];
  int lines = 0;
  auto flush = [&]() {
    ScanLines(x.typed<T>(), out.typed<T>(), bases, lines, len, inner, reverse);
    lines = 0;
  };
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      bases[lines++] = o * len * inner + in;
      if (lines == kLines) flush();
    }
  }
  if (lines > 0) flush();
}

absl::StatusOr<Value> EvalCubScan(const Instruction& inst, Operands ops, KernelContext& ev) {
  const std::string target = TargetOf(inst);
  if (ops.size() != 1 || !ops[0]->is_array()) {
    return Invalid(StrCat("custom-call ", target, " takes one array"));
  }
  const Literal& x = ops[0]->array();
  const Shape& layout_of = inst.operand(0)->shape();
  lapack::Call call(inst, ops, lapack::Target{"scan", x.element_type(), true});
  absl::StatusOr<int64_t> kind = call.IntAttr("kind");
  if (!kind.ok()) return kind.status();
  absl::StatusOr<bool> reverse = call.BoolAttr("is_reverse");
  if (!reverse.ok()) return reverse.status();
  if (*kind != 1) return Invalid(StrCat(target, " kind ", *kind, " is not 1 (SUM)"));
  if (x.shape().rank() < 1 || !(IsFloat(x.element_type()) || IsSignedInt(x.element_type()) ||
                                IsUnsignedInt(x.element_type()))) {
    return Invalid(StrCat(target, " scans a numeric array, not ", x.shape().ToString(false)));
  }
  // The scan runs along the minor-most dimension of the operand's layout.
  const int64_t d = layout_of.has_layout() && !layout_of.layout().minor_to_major.empty()
                        ? layout_of.layout().minor_to_major[0]
                        : x.shape().rank() - 1;
  int64_t outer = 1, inner = 1;
  for (int64_t k = 0; k < d; ++k) outer *= x.shape().dim(k);
  for (int64_t k = d + 1; k < x.shape().rank(); ++k) inner *= x.shape().dim(k);
  const int64_t len = x.shape().dim(d);
  absl::StatusOr<Value> y = NewArrayUninitialized(x.shape());
  if (!y.ok()) return y;
  Literal& out = y->mutable_array();
  const bool integer = !IsFloat(x.element_type());
  const PrimitiveType t = x.element_type();
  const bool typed =
      ev.options().fast_paths && (t == PrimitiveType::kF32 || t == PrimitiveType::kF64);
  if (typed && t == PrimitiveType::kF32) ScanAll<float>(x, out, outer, len, inner, *reverse);
  if (typed && t == PrimitiveType::kF64) ScanAll<double>(x, out, outer, len, inner, *reverse);
  for (int64_t o = 0; !typed && o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      double acc = 0;
      int64_t iacc = 0;
      for (int64_t s = 0; s < len; ++s) {
        const int64_t i = *reverse ? len - 1 - s : s;
        const int64_t at = (o * len + i) * inner + in;
        if (integer) {
          iacc = static_cast<int64_t>(static_cast<uint64_t>(iacc) +
                                      static_cast<uint64_t>(x.GetInt(at)));
          out.SetInt(at, iacc);
        } else {
          // Accumulated in the element type: each partial sum is rounded.
          out.SetDouble(at, acc + x.GetDouble(at));
          acc = out.GetDouble(at);
        }
      }
    }
  }
  std::vector<Value> results;
  results.push_back(*std::move(y));
  return WithWorkspaces(inst, std::move(results));
}

}  // namespace hlo::gpu

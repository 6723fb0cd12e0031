// compare (every direction; FLOAT, TOTALORDER, SIGNED, UNSIGNED; order=TOTAL
// or PARTIAL), select and clamp.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <string_view>

#include "eval/interp/elementwise_ops.h"
#include "eval/vector_clones.h"
#include "ir/compare_order.h"
#include "ir/instruction.h"

namespace hlo {
namespace elementwise {
namespace {

using PT = PrimitiveType;

using Dir = CompareDirection;

// out[i] = key(a[i]) <dir> key(b[i]); one loop per direction so that each
// vectorises.
template <typename X, typename Key>
HLO_VECTOR_CLONES void CompareLoop(Dir dir, const X* __restrict a, const X* __restrict b,
                                   bool* __restrict out, int64_t n, Key key) {
  switch (dir) {
    case Dir::kEq:
      for (int64_t i = 0; i < n; ++i) out[i] = key(a[i]) == key(b[i]);
      break;
    case Dir::kNe:
      for (int64_t i = 0; i < n; ++i) out[i] = key(a[i]) != key(b[i]);
      break;
    case Dir::kGe:
      for (int64_t i = 0; i < n; ++i) out[i] = key(a[i]) >= key(b[i]);
      break;
    case Dir::kGt:
      for (int64_t i = 0; i < n; ++i) out[i] = key(a[i]) > key(b[i]);
      break;
    case Dir::kLe:
      for (int64_t i = 0; i < n; ++i) out[i] = key(a[i]) <= key(b[i]);
      break;
    case Dir::kLt:
      for (int64_t i = 0; i < n; ++i) out[i] = key(a[i]) < key(b[i]);
      break;
  }
}

// IEEE totalOrder as a signed integer key: -NaN < -inf < … < -0 < +0 < … <
// +inf < +NaN (NaNs ordered by payload). Negative values get their
// magnitude bits flipped.
inline int32_t TotalKey(float v) {
  int32_t bits;
  std::memcpy(&bits, &v, 4);
  return bits ^ static_cast<int32_t>(static_cast<uint32_t>(bits >> 31) >> 1);
}
inline int64_t TotalKey(double v) {
  int64_t bits;
  std::memcpy(&bits, &v, 8);
  return bits ^ static_cast<int64_t>(static_cast<uint64_t>(bits >> 63) >> 1);
}

// The same key from the raw bits of a narrow float (sign bit at width - 1;
// f8e8m0fnu has no sign bit).
inline int32_t SmallTotalKey(uint32_t bits, int width, bool has_sign) {
  uint32_t mask = (width >= 32) ? ~0u : ((1u << width) - 1);
  bits &= mask;
  if (!has_sign) return static_cast<int32_t>(bits);
  uint32_t sign = 1u << (width - 1);
  int32_t magnitude = static_cast<int32_t>(bits & (sign - 1));
  return (bits & sign) ? -magnitude - 1 : magnitude;
}

absl::Status TypeMismatch(std::string_view type, PT t) {
  return absl::InvalidArgumentError(
      StrCat("compare type ", type, " does not suit element type ", PrimitiveTypeName(t)));
}

// Integers compared as `signed_view` says (the element type's own
// signedness unless the comparison type overrides it).
template <PT P>
void IntCompare(Dir dir, bool signed_view, const void* va, const void* vb, bool* out, int64_t n) {
  using T = IntTraits<P>;
  using S = typename T::S;
  const S* a = static_cast<const S*>(va);
  const S* b = static_cast<const S*>(vb);
  if (signed_view == T::kSigned) {
    CompareLoop(dir, a, b, out, n, [](S x) { return x; });
  } else if (signed_view) {
    // Unsigned bits read as two's complement in the type's width.
    CompareLoop(dir, a, b, out, n, [](S x) -> int64_t {
      if constexpr (T::kFull) {
        return static_cast<std::make_signed_t<S>>(x);
      } else {
        int64_t v = static_cast<int64_t>(T::Bits(x));
        if (v & (int64_t{1} << (T::kBits - 1))) v -= int64_t{1} << T::kBits;
        return v;
      }
    });
  } else {
    CompareLoop(dir, a, b, out, n, [](S x) { return static_cast<uint64_t>(T::Bits(x)); });
  }
}

template <typename R>
absl::Status ComplexCompare(Dir dir, const Literal& la, const Literal& lb, bool* out) {
  using C = std::complex<R>;
  const C* a = la.typed<C>();
  const C* b = lb.typed<C>();
  const int64_t n = la.element_count();
  for (int64_t i = 0; i < n; ++i) {
    const C& x = a[i];
    const C& y = b[i];
    // Lexicographic on (real, imag), each part an IEEE quiet comparison.
    bool eq = x.real() == y.real() && x.imag() == y.imag();
    bool lt = x.real() < y.real() || (x.real() == y.real() && x.imag() < y.imag());
    bool gt = x.real() > y.real() || (x.real() == y.real() && x.imag() > y.imag());
    switch (dir) {
      case Dir::kEq:
        out[i] = eq;
        break;
      case Dir::kNe:
        out[i] = !eq;
        break;
      case Dir::kLt:
        out[i] = lt;
        break;
      case Dir::kGt:
        out[i] = gt;
        break;
      case Dir::kLe:
        out[i] = lt || eq;
        break;
      case Dir::kGe:
        out[i] = gt || eq;
        break;
    }
  }
  return absl::OkStatus();
}

// The comparison direction of `inst`.
absl::Status DirectionOf(const Instruction& inst, Dir& dir) {
  std::optional<Dir> d = CompareDirectionOf(inst);
  if (!d) {
    return absl::InvalidArgumentError(StrCat("compare direction '",
                                             inst.GetString(AttrKind::kDirection),
                                             "' is not one of EQ, NE, GE, GT, LE, LT"));
  }
  dir = *d;
  return absl::OkStatus();
}

// f32 / f64 (T): IEEE comparison, or totalOrder where the mode says.
template <typename T>
void FloatCompare(const CompareMode& mode, const T* a, const T* b, bool* out, int64_t n) {
  if (mode.total) {
    CompareLoop(mode.dir, a, b, out, n, [](T x) { return TotalKey(x); });
  } else {
    CompareLoop(mode.dir, a, b, out, n, [](T x) { return x; });
  }
}

}  // namespace

absl::Status EvalCompare(const Instruction& inst, const Literal& la, const Literal& lb,
                         Literal& lo) {
  const PT t = la.element_type();
  const int64_t n = la.element_count();
  bool* out = lo.typed<bool>();
  if (t == PT::kF32 || t == PT::kF64 || t == PT::kPred || IsInteger(t)) {
    return CompareArrays(inst, t, la.data(), lb.data(), out, n);
  }
  // Narrow floats and complex.
  Dir dir;
  if (absl::Status st = DirectionOf(inst, dir); !st.ok()) return st;
  std::string_view type = inst.GetString(AttrKind::kType);
  std::string_view order = inst.GetString(AttrKind::kOrder);
  if (!order.empty() && order != DefaultCompareOrder(t) && !IsFloat(t)) {
    return absl::InvalidArgumentError(
        StrCat("compare order ", order, " does not suit element type ", PrimitiveTypeName(t)));
  }
  if (IsFloat(t)) {
    bool total = ComparesFloatsInTotalOrder(inst);
    if (!total && !type.empty() && type != "FLOAT") return TypeMismatch(type, t);
    const int w = ByteWidth(t);
    if (total) {
      const int width = LogicalBits(t);
      const bool has_sign = !GetSmallFloatInfo(t).unsigned_only;
      if (w == 2) {
        const uint16_t* a = reinterpret_cast<const uint16_t*>(la.data());
        const uint16_t* b = reinterpret_cast<const uint16_t*>(lb.data());
        CompareLoop(dir, a, b, out, n,
                    [&](uint16_t x) { return SmallTotalKey(x, width, has_sign); });
      } else {
        CompareLoop(dir, la.data(), lb.data(), out, n,
                    [&](uint8_t x) { return SmallTotalKey(x, width, has_sign); });
      }
      return absl::OkStatus();
    }
    float a[kChunk], b[kChunk];
    for (int64_t i0 = 0; i0 < n; i0 += kChunk) {
      int64_t m = std::min(kChunk, n - i0);
      DecodeSmallFloats(t, la.data() + i0 * w, a, m);
      DecodeSmallFloats(t, lb.data() + i0 * w, b, m);
      CompareLoop(dir, a, b, out + i0, m, [](float x) { return x; });
    }
    return absl::OkStatus();
  }
  if (IsComplex(t)) {
    if (!type.empty() && type != "FLOAT") return TypeMismatch(type, t);
    return t == PT::kC64 ? ComplexCompare<float>(dir, la, lb, out)
                         : ComplexCompare<double>(dir, la, lb, out);
  }
  return TypeError(Opcode::kCompare, t);
}

absl::StatusOr<CompareMode> CompareModeOf(const Instruction& inst, PrimitiveType t) {
  CompareMode mode;
  if (absl::Status st = DirectionOf(inst, mode.dir); !st.ok()) return st;
  std::string_view type = inst.GetString(AttrKind::kType);
  if (t == PT::kF32 || t == PT::kF64) {
    mode.total = ComparesFloatsInTotalOrder(inst);
    if (!mode.total && !type.empty() && type != "FLOAT") return TypeMismatch(type, t);
    return mode;
  }
  std::string_view order = inst.GetString(AttrKind::kOrder);
  if (!order.empty() && order != DefaultCompareOrder(t)) {
    return absl::InvalidArgumentError(
        StrCat("compare order ", order, " does not suit element type ", PrimitiveTypeName(t)));
  }
  if (t == PT::kPred) {
    if (!type.empty() && type != "UNSIGNED" && type != "SIGNED") return TypeMismatch(type, t);
    return mode;
  }
  if (!IsInteger(t)) return TypeError(Opcode::kCompare, t);
  mode.signed_view = IsSignedInt(t);
  if (type == "SIGNED") {
    mode.signed_view = true;
  } else if (type == "UNSIGNED") {
    mode.signed_view = false;
  } else if (!type.empty()) {
    return TypeMismatch(type, t);
  }
  return mode;
}

void CompareRaw(const CompareMode& mode, PrimitiveType t, const void* a, const void* b, bool* out,
                int64_t n) {
  if (t == PT::kF32) {
    FloatCompare(mode, static_cast<const float*>(a), static_cast<const float*>(b), out, n);
  } else if (t == PT::kF64) {
    FloatCompare(mode, static_cast<const double*>(a), static_cast<const double*>(b), out, n);
  } else if (t == PT::kPred) {
    // false < true (as a signed 1-bit value true would be -1; XLA compares
    // pred unsigned).
    CompareLoop(mode.dir, static_cast<const bool*>(a), static_cast<const bool*>(b), out, n,
                [](bool x) { return static_cast<int>(x); });
  } else {
    DispatchType(t, [&](auto tag) {
      constexpr PT P = decltype(tag)::value;
      if constexpr (kIsInt<P>) IntCompare<P>(mode.dir, mode.signed_view, a, b, out, n);
    });
  }
}

absl::Status CompareArrays(const Instruction& inst, PrimitiveType t, const void* a, const void* b,
                           bool* out, int64_t n) {
  absl::StatusOr<CompareMode> mode = CompareModeOf(inst, t);
  if (!mode.ok()) return mode.status();
  CompareRaw(*mode, t, a, b, out, n);
  return absl::OkStatus();
}

// ---- select ---------------------------------------------------------------------

namespace {

struct Bytes16 {
  uint64_t lo, hi;
};

// A bit blend with a mask from the pred byte (0/1), so that it vectorises.
template <typename E>
HLO_VECTOR_CLONES void SelectLoop(const bool* __restrict pred, const E* __restrict t,
                                  const E* __restrict f, E* __restrict out, int64_t n) {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(pred);
  for (int64_t i = 0; i < n; ++i) {
    const E mask = static_cast<E>(E{0} - static_cast<E>(p[i]));
    out[i] = static_cast<E>((t[i] & mask) | (f[i] & static_cast<E>(~mask)));
  }
}
void SelectLoop(const bool* __restrict p, const Bytes16* __restrict t, const Bytes16* __restrict f,
                Bytes16* __restrict out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = p[i] ? t[i] : f[i];
}

}  // namespace

bool SelectArrays(int64_t width, const bool* pred, const void* on_true, const void* on_false,
                  void* out, int64_t n) {
  switch (width) {
    case 1:
      SelectLoop(pred, static_cast<const uint8_t*>(on_true), static_cast<const uint8_t*>(on_false),
                 static_cast<uint8_t*>(out), n);
      return true;
    case 2:
      SelectLoop(pred, static_cast<const uint16_t*>(on_true),
                 static_cast<const uint16_t*>(on_false), static_cast<uint16_t*>(out), n);
      return true;
    case 4:
      SelectLoop(pred, static_cast<const uint32_t*>(on_true),
                 static_cast<const uint32_t*>(on_false), static_cast<uint32_t*>(out), n);
      return true;
    case 8:
      SelectLoop(pred, static_cast<const uint64_t*>(on_true),
                 static_cast<const uint64_t*>(on_false), static_cast<uint64_t*>(out), n);
      return true;
    default:
      return false;
  }
}

absl::Status EvalSelect(const Literal& pred, const Literal& on_true, const Literal& on_false,
                        Literal& out) {
  const int64_t n = out.element_count();
  if (pred.shape().rank() == 0 && n != 1) {
    const Literal& chosen = pred.typed<bool>()[0] ? on_true : on_false;
    if (out.size_bytes() > 0) std::memcpy(out.data(), chosen.data(), out.size_bytes());
    return absl::OkStatus();
  }
  const bool* p = pred.typed<bool>();
  const int64_t width = ByteWidth(out.element_type());
  if (SelectArrays(width, p, on_true.data(), on_false.data(), out.data(), n)) {
    return absl::OkStatus();
  }
  if (width == 16) {
    SelectLoop(p, on_true.typed<Bytes16>(), on_false.typed<Bytes16>(), out.typed<Bytes16>(), n);
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      StrCat("'select' does not take element type ", PrimitiveTypeName(out.element_type())));
}

// ---- clamp ----------------------------------------------------------------------

namespace {

// out = min(max(x, lo), hi) with the type's maximum/minimum; lo and hi are
// scalars when their flags say so. Compiled per vector width: on the
// baseline's lanes a clamp of f32[1024,4096] took 6.3 ms (f64 18), four
// times a maximum's.
template <typename E, typename Max, typename Min>
HLO_VECTOR_CLONES void ClampLoop(const E* lo, bool lo_scalar, const E* x, const E* hi,
                                 bool hi_scalar, E* out, int64_t n, Max max, Min min) {
  if (lo_scalar && hi_scalar) {
    const E l = lo[0], h = hi[0];
    for (int64_t i = 0; i < n; ++i) out[i] = min(max(x[i], l), h);
  } else if (lo_scalar) {
    const E l = lo[0];
    for (int64_t i = 0; i < n; ++i) out[i] = min(max(x[i], l), hi[i]);
  } else if (hi_scalar) {
    const E h = hi[0];
    for (int64_t i = 0; i < n; ++i) out[i] = min(max(x[i], lo[i]), h);
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = min(max(x[i], lo[i]), hi[i]);
  }
}

}  // namespace

absl::Status EvalClamp(const Literal& lo, const Literal& x, const Literal& hi, Literal& out) {
  const PT t = x.element_type();
  const int64_t n = x.element_count();
  const bool ls = lo.shape().rank() == 0, hs = hi.shape().rank() == 0;
  auto fmax = [](auto a, auto b) { return MaxOf(a, b); };
  auto fmin = [](auto a, auto b) { return MinOf(a, b); };
  if (t == PT::kF32) {
    ClampLoop(lo.typed<float>(), ls, x.typed<float>(), hi.typed<float>(), hs, out.typed<float>(), n,
              fmax, fmin);
    return absl::OkStatus();
  }
  if (t == PT::kF64) {
    ClampLoop(lo.typed<double>(), ls, x.typed<double>(), hi.typed<double>(), hs,
              out.typed<double>(), n, fmax, fmin);
    return absl::OkStatus();
  }
  if (t == PT::kC64) {
    using C = std::complex<float>;
    ClampLoop(lo.typed<C>(), ls, x.typed<C>(), hi.typed<C>(), hs, out.typed<C>(), n, fmax, fmin);
    return absl::OkStatus();
  }
  if (t == PT::kC128) {
    using C = std::complex<double>;
    ClampLoop(lo.typed<C>(), ls, x.typed<C>(), hi.typed<C>(), hs, out.typed<C>(), n, fmax, fmin);
    return absl::OkStatus();
  }
  if (IsFloat(t)) {
    const int w = ByteWidth(t);
    float l[kChunk], v[kChunk], h[kChunk], r[kChunk];
    for (int64_t i0 = 0; i0 < n; i0 += kChunk) {
      int64_t m = std::min(kChunk, n - i0);
      DecodeSmallFloats(t, lo.data() + (ls ? 0 : i0 * w), l, ls ? 1 : m);
      DecodeSmallFloats(t, x.data() + i0 * w, v, m);
      DecodeSmallFloats(t, hi.data() + (hs ? 0 : i0 * w), h, hs ? 1 : m);
      ClampLoop(l, ls, v, h, hs, r, m, fmax, fmin);
      EncodeSmallFloats(t, r, out.data() + i0 * w, m);
    }
    return absl::OkStatus();
  }
  if (t == PT::kPred) {
    auto bmax = [](bool a, bool b) { return a || b; };
    auto bmin = [](bool a, bool b) { return a && b; };
    ClampLoop(lo.typed<bool>(), ls, x.typed<bool>(), hi.typed<bool>(), hs, out.typed<bool>(), n,
              bmax, bmin);
    return absl::OkStatus();
  }
  // The error only when no integer kernel ran (not built up front: a Status
  // with a message allocates, once per instruction).
  bool is_int = false;
  absl::Status status;
  DispatchType(t, [&](auto tag) {
    constexpr PT P = decltype(tag)::value;
    if constexpr (kIsInt<P>) {
      is_int = true;
      using S = Storage<P>;
      auto imax = [](S a, S b) { return std::max(a, b); };
      auto imin = [](S a, S b) { return std::min(a, b); };
      ClampLoop(lo.typed<S>(), ls, x.typed<S>(), hi.typed<S>(), hs, out.typed<S>(), n, imax, imin);
      status = absl::OkStatus();
    }
  });
  return is_int ? status : TypeError(Opcode::kClamp, t);
}

}  // namespace elementwise
}  // namespace hlo

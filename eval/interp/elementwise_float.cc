// The f32/f64 loops of the elementwise ops: plain loops the compiler
// vectorises for arithmetic, maximum/minimum and sqrt, and glibc's libmvec
// (the AVX-512 / AVX2 vector math library behind -ffast-math's vectorised
// calls, at most 4 ulp) for the transcendental functions, chosen at run time
// from the CPU's features; without AVX-512, f32 exp and tanh are this
// project's own (eval/interp/vector_math_avx2.h). Narrow floats reach these loops through float
// buffers (see eval/interp/elementwise_unary.cc / _binary.cc).
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "eval/denormals.h"
#include "eval/interp/elementwise_ops.h"
#include "eval/interp/float_remainder.h"
#include "eval/interp/vector_math_avx2.h"
#include "eval/interp/vector_math_avx512.h"
#include "eval/vector_clones.h"

#if defined(__SSE2__) || defined(__x86_64__)
#include <immintrin.h>
#endif
#if defined(__x86_64__) && defined(__GLIBC__)
#define HLO_EW_LIBMVEC 1
#endif

namespace hlo {
namespace elementwise {

namespace {
std::atomic<bool> vec_math_enabled{true};
std::atomic<int> vec_level_cap{2};

// e^x by libm, +0 in place of a subnormal result when `flush` (MXCSR's
// flush-to-zero; e^x is never negative).
template <typename T>
T ScalarExp(T x, bool flush) {
  const T r = std::exp(x);
  return flush && r < std::numeric_limits<T>::min() ? T(0) : r;
}

}  // namespace

void SetVecMathEnabled(bool enabled) { vec_math_enabled.store(enabled); }
void SetVecLevelCap(int level) { vec_level_cap.store(level); }

#ifdef HLO_EW_LIBMVEC

// The ops libmvec has, as X(opcode, libm name).
#define HLO_EW_LIBMVEC_OPS(X) \
  X(kExp, exp)                \
  X(kExpm1, expm1)            \
  X(kLog, log)                \
  X(kLog1p, log1p)            \
  X(kSin, sin)                \
  X(kCos, cos)                \
  X(kTan, tan)                \
  X(kTanh, tanh)              \
  X(kAsin, asin)              \
  X(kAcos, acos)              \
  X(kAtan, atan)              \
  X(kSinh, sinh)              \
  X(kCosh, cosh)              \
  X(kAsinh, asinh)            \
  X(kAcosh, acosh)            \
  X(kAtanh, atanh)            \
  X(kErf, erf)                \
  X(kCbrt, cbrt)

// The x86-64 vector function ABI names: _ZGV<isa>N<lanes>v_<name>, isa d =
// AVX2, e = AVX-512. libm.so's linker script pulls in libmvec as needed.
extern "C" {
#define HLO_EW_DECLARE(opcode, name)  \
  __m512 _ZGVeN16v_##name##f(__m512); \
  __m256 _ZGVdN8v_##name##f(__m256);  \
  __m512d _ZGVeN8v_##name(__m512d);   \
  __m256d _ZGVdN4v_##name(__m256d);
HLO_EW_LIBMVEC_OPS(HLO_EW_DECLARE)
#undef HLO_EW_DECLARE
}

namespace {

// 2: AVX-512F, 1: AVX2+FMA, 0: neither (at most vec_level_cap).
int VecLevel() {
  static const int level = __builtin_cpu_supports("avx512f")                                   ? 2
                           : (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) ? 1
                                                                                               : 0;
  return std::min(level, vec_level_cap.load(std::memory_order_relaxed));
}

using F16 = __m512 (*)(__m512);
using F8 = __m256 (*)(__m256);
using D8 = __m512d (*)(__m512d);
using D4 = __m256d (*)(__m256d);
struct VecFns {
  F16 f16 = nullptr;
  F8 f8 = nullptr;
  D8 d8 = nullptr;
  D4 d4 = nullptr;
};

VecFns Lookup(Opcode op) {
  switch (op) {
#define HLO_EW_CASE(opcode, name) \
  case Opcode::opcode:            \
    return {_ZGVeN16v_##name##f, _ZGVdN8v_##name##f, _ZGVeN8v_##name, _ZGVdN4v_##name};
    HLO_EW_LIBMVEC_OPS(HLO_EW_CASE)
#undef HLO_EW_CASE
    default:
      return {};
  }
}

// Full vectors straight from the buffers; the tail through a padded local
// vector, so that every element goes through the same code.
// (F16, or a function object that inlines, eval/interp/vector_math_avx512.h.)
template <typename F>
__attribute__((target("avx512f"))) void Run16(F f, const float* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(out + i, f(_mm512_loadu_ps(in + i)));
  if (i < n) {
    alignas(64) float buf[16] = {};
    std::memcpy(buf, in + i, (n - i) * sizeof(float));
    _mm512_store_ps(buf, f(_mm512_load_ps(buf)));
    std::memcpy(out + i, buf, (n - i) * sizeof(float));
  }
}
// (F: F8, or a function object that inlines, eval/interp/vector_math_avx2.h.)
template <typename F>
__attribute__((target("avx2,fma"))) void Run(F f, const float* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, f(_mm256_loadu_ps(in + i)));
  if (i < n) {
    alignas(32) float buf[8] = {};
    std::memcpy(buf, in + i, (n - i) * sizeof(float));
    _mm256_store_ps(buf, f(_mm256_load_ps(buf)));
    std::memcpy(out + i, buf, (n - i) * sizeof(float));
  }
}
template <typename F>
__attribute__((target("avx512f"))) void Run8d(F f, const double* in, double* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm512_storeu_pd(out + i, f(_mm512_loadu_pd(in + i)));
  if (i < n) {
    alignas(64) double buf[8] = {};
    std::memcpy(buf, in + i, (n - i) * sizeof(double));
    _mm512_store_pd(buf, f(_mm512_load_pd(buf)));
    std::memcpy(out + i, buf, (n - i) * sizeof(double));
  }
}
template <typename F>
__attribute__((target("avx2,fma"))) void Run4d(F f, const double* in, double* out, int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) _mm256_storeu_pd(out + i, f(_mm256_loadu_pd(in + i)));
  if (i < n) {
    alignas(32) double buf[4] = {};
    std::memcpy(buf, in + i, (n - i) * sizeof(double));
    _mm256_store_pd(buf, f(_mm256_load_pd(buf)));
    std::memcpy(out + i, buf, (n - i) * sizeof(double));
  }
}

// exp where many inputs lie past the vector function's range, |x| <= 87
// (softmax's shifted scores): lanes at or below -0x1.9fe36ap+6 (expf rounds
// them to +0) and at or above 0x1.62e43p+6 (+inf) are answered directly,
// those with subnormal results by ExpTinyAvx512/ExpTinyAvx2 (as scalar
// expf, they took 2.7 ms of GPT-2 small's 12 softmax exps, whose random
// weights spread the scores past 87), NaN as x + x (expf's answer: a
// logaddexp reducer's -inf padding makes -|(-inf) - (-inf)| a NaN, 15 of
// 16 lanes of a vector in cumulative's scans, 5.8 us of expf calls), the
// others (x in (87, 88.7)) call scalar expf one by one, and the vector
// function sees only in-range lanes. (libmvec's expf, used here before, sent a whole vector through
// a slow path, about 65 ns, as soon as one lane was past its range.)
constexpr float kExpInfAtOrAbove = 0x1.62e43p+6f;

// The scalar functions of the lanes the vector code leaves out.
// expf flushed under FTZ, as the hardware flushes ExpTinyAvx512's
// multiply: f32 exp flushes its own results (ExpFlushesItself in
// eval/denormals.h).
float ExpLane(float x) { return ScalarExp(x, FlushesDenormalResults()); }
float LogLane(float x) { return std::log(x); }
float Log1pLane(float x) { return std::log1p(x); }

// rs[l] = scalar(xs[l]) for each lane l set in `lanes` (a bit per lane).
using ScalarFn = float (*)(float);
void ScalarLanes(const float* xs, float* rs, unsigned lanes, ScalarFn scalar) {
  for (; lanes != 0; lanes &= lanes - 1)
    rs[__builtin_ctz(lanes)] = scalar(xs[__builtin_ctz(lanes)]);
}

// r with each lane set in `lanes` replaced by scalar(x). (Not inlined: its
// aligned arrays would make its callers realign the stack on every call,
// the common paths too.)
__attribute__((target("avx512f"), noinline)) __m512 WithScalarLanes(__m512 x, __m512 r,
                                                                    unsigned lanes,
                                                                    ScalarFn scalar) {
  alignas(64) float xs[16], rs[16];
  _mm512_store_ps(xs, x);
  _mm512_store_ps(rs, r);
  ScalarLanes(xs, rs, lanes, scalar);
  return _mm512_load_ps(rs);
}
__attribute__((target("avx2,fma"), noinline)) __m256 WithScalarLanes(__m256 x, __m256 r,
                                                                     unsigned lanes,
                                                                     ScalarFn scalar) {
  alignas(32) float xs[8], rs[8];
  _mm256_store_ps(xs, x);
  _mm256_store_ps(rs, r);
  ScalarLanes(xs, rs, lanes, scalar);
  return _mm256_load_ps(rs);
}

__attribute__((target("avx512f"))) __m512 ExpSaturating(__m512 x) {
  const __m512 magnitude = _mm512_abs_ps(x);
  const __mmask16 outside =
      _mm512_cmp_ps_mask(magnitude, _mm512_set1_ps(kExpAvx2Range), _CMP_NLE_UQ);
  if (outside == 0) return ExpAvx512(x);
  const __mmask16 zero = _mm512_cmp_ps_mask(x, _mm512_set1_ps(kExpZeroAtOrBelow), _CMP_LE_OQ);
  if (zero == 0xffff) return _mm512_setzero_ps();  // (masked or far-off softmax scores)
  const __mmask16 inf = _mm512_cmp_ps_mask(x, _mm512_set1_ps(kExpInfAtOrAbove), _CMP_GE_OQ);
  __m512 r = ExpAvx512(_mm512_mask_blend_ps(outside, x, _mm512_setzero_ps()));
  r = _mm512_mask_blend_ps(zero, r, _mm512_setzero_ps());
  r = _mm512_mask_blend_ps(inf, r, _mm512_set1_ps(__builtin_inff()));
  const __mmask16 tiny = outside & static_cast<__mmask16>(~zero) &
                         _mm512_cmp_ps_mask(x, _mm512_set1_ps(-kExpAvx2Range), _CMP_LT_OQ);
  if (tiny != 0) r = _mm512_mask_blend_ps(tiny, r, ExpTinyAvx512(x));
  // NaN: x + x, as expf answers it (a NaN quietened, its payload kept).
  const __mmask16 nan = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
  if (nan != 0) r = _mm512_mask_blend_ps(nan, r, _mm512_add_ps(x, x));
  unsigned scalar = outside & static_cast<__mmask16>(~(zero | inf | tiny | nan));
  if (scalar == 0) return r;
  return WithScalarLanes(x, r, scalar, ExpLane);
}
__attribute__((target("avx2,fma"))) __m256 ExpSaturating(__m256 x) {
  const __m256 magnitude = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x);
  const __m256 outside = _mm256_cmp_ps(magnitude, _mm256_set1_ps(kExpAvx2Range), _CMP_NLE_UQ);
  if (_mm256_movemask_ps(outside) == 0) return ExpAvx2(x);
  const __m256 zero = _mm256_cmp_ps(x, _mm256_set1_ps(kExpZeroAtOrBelow), _CMP_LE_OQ);
  if (_mm256_movemask_ps(zero) == 0xff) return _mm256_setzero_ps();
  const __m256 inf = _mm256_cmp_ps(x, _mm256_set1_ps(kExpInfAtOrAbove), _CMP_GE_OQ);
  __m256 r = ExpAvx2(_mm256_blendv_ps(x, _mm256_setzero_ps(), outside));
  r = _mm256_blendv_ps(r, _mm256_setzero_ps(), zero);
  r = _mm256_blendv_ps(r, _mm256_set1_ps(__builtin_inff()), inf);
  const __m256 tiny = _mm256_andnot_ps(
      zero, _mm256_and_ps(outside, _mm256_cmp_ps(x, _mm256_set1_ps(-kExpAvx2Range), _CMP_LT_OQ)));
  if (_mm256_movemask_ps(tiny) != 0) r = _mm256_blendv_ps(r, ExpTinyAvx2(x), tiny);
  const __m256 nan = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
  r = _mm256_blendv_ps(r, _mm256_add_ps(x, x), nan);
  unsigned scalar = _mm256_movemask_ps(
      _mm256_andnot_ps(_mm256_or_ps(_mm256_or_ps(zero, inf), _mm256_or_ps(tiny, nan)), outside));
  if (scalar == 0) return r;
  return WithScalarLanes(x, r, scalar, ExpLane);
}

// out[i] = exp(in[i] - s): the subtraction in the same loop (softmax rows'
// x - max), rounded to float before the exp, so the bits of a subtract
// pass and an exp pass.
// (Sixteen lanes: ExpAvx512, eval/interp/vector_math_avx512.h; eight:
// ExpAvx2.)
__attribute__((target("avx512f"))) void RunExp16(const float* in, float s, float* out, int64_t n) {
  const __m512 vs = _mm512_set1_ps(s);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512 x = _mm512_loadu_ps(in + i);
    x = _mm512_sub_ps(x, vs);
    _mm512_storeu_ps(out + i, ExpSaturating(x));
  }
  if (i < n) {
    alignas(64) float buf[16] = {};
    for (int64_t k = i; k < n; ++k) buf[k - i] = in[k] - s;
    _mm512_store_ps(buf, ExpSaturating(_mm512_load_ps(buf)));
    std::memcpy(out + i, buf, (n - i) * sizeof(float));
  }
}
__attribute__((target("avx2,fma"))) void RunExp8(const float* in, float s, float* out, int64_t n) {
  const __m256 vs = _mm256_set1_ps(s);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 x = _mm256_loadu_ps(in + i);
    x = _mm256_sub_ps(x, vs);
    _mm256_storeu_ps(out + i, ExpSaturating(x));
  }
  if (i < n) {
    alignas(32) float buf[8] = {};
    for (int64_t k = i; k < n; ++k) buf[k - i] = in[k] - s;
    _mm256_store_ps(buf, ExpSaturating(_mm256_load_ps(buf)));
    std::memcpy(out + i, buf, (n - i) * sizeof(float));
  }
}

// log on every lane: LogAvx512/LogAvx2 where x is a positive normal
// finite float, x + x where it is a NaN (logf's answer), scalar logf on
// the others (zero, negative, subnormal, inf), as libmvec's logf sends
// them there too. A lane is special where its
// bits less the smallest normal's are, unsigned, at or past 0x7f000000.
constexpr int32_t kSmallestNormalBits = 0x00800000;
constexpr int32_t kPastNormalBits = 0x7f000000;  // +inf's bits less the smallest normal's

__attribute__((target("avx512f"))) __m512 LogChecked(__m512 x) {
  const __m512i offset =
      _mm512_sub_epi32(_mm512_castps_si512(x), _mm512_set1_epi32(kSmallestNormalBits));
  const __mmask16 special =
      _mm512_cmp_epu32_mask(offset, _mm512_set1_epi32(kPastNormalBits), _MM_CMPINT_NLT);
  __m512 r = LogAvx512(x);
  if (special == 0) return r;
  // NaN: x + x, as logf answers it (a NaN quietened, its payload kept).
  const __mmask16 nan = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
  r = _mm512_mask_blend_ps(nan, r, _mm512_add_ps(x, x));
  // By their bits (DAZ would make a negative subnormal compare as -0):
  // zeros give -inf (logf's -1 / 0), +inf itself, and the negatives (-inf
  // too) logf's invalid operation (x - x) / (x - x), computed the same way.
  // (Half of a random operand's lanes are negative: through logf a lane at
  // a time, log ran 6 times slower.)
  const __m512i bits = _mm512_castps_si512(x);
  const __m512i magnitude = _mm512_and_si512(bits, _mm512_set1_epi32(0x7fffffff));
  const __mmask16 zero = _mm512_cmpeq_epi32_mask(magnitude, _mm512_setzero_si512());
  const __mmask16 plus_inf = _mm512_cmpeq_epi32_mask(bits, _mm512_set1_epi32(0x7f800000));
  const __mmask16 negative =
      _mm512_cmplt_epi32_mask(bits, _mm512_setzero_si512()) & static_cast<__mmask16>(~(zero | nan));
  const __m512 difference = _mm512_sub_ps(x, x);
  r = _mm512_mask_blend_ps(negative, r, _mm512_div_ps(difference, difference));
  r = _mm512_mask_blend_ps(zero, r, _mm512_set1_ps(-std::numeric_limits<float>::infinity()));
  r = _mm512_mask_blend_ps(plus_inf, r, x);
  const unsigned scalar = special & static_cast<__mmask16>(~(nan | zero | plus_inf | negative));
  if (scalar == 0) return r;
  return WithScalarLanes(x, r, scalar, LogLane);  // positive subnormals
}
__attribute__((target("avx2,fma"))) __m256 LogChecked(__m256 x) {
  // Unsigned offset >= kPastNormalBits, as signed with the sign bits flipped.
  const __m256i offset =
      _mm256_sub_epi32(_mm256_castps_si256(x), _mm256_set1_epi32(kSmallestNormalBits));
  const __m256i flip = _mm256_set1_epi32(INT32_MIN);
  const __m256i special = _mm256_cmpgt_epi32(_mm256_xor_si256(offset, flip),
                                             _mm256_set1_epi32((kPastNormalBits ^ INT32_MIN) - 1));
  __m256 r = LogAvx2(x);
  const unsigned lanes = _mm256_movemask_ps(_mm256_castsi256_ps(special));
  if (lanes == 0) return r;
  const __m256 nan = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
  r = _mm256_blendv_ps(r, _mm256_add_ps(x, x), nan);
  const unsigned scalar = lanes & ~static_cast<unsigned>(_mm256_movemask_ps(nan));
  if (scalar == 0) return r;
  return WithScalarLanes(x, r, scalar, LogLane);
}
// log1p likewise: Log1pAvx512/Log1pAvx2 where x > -1 is finite and |x| at
// least the smallest normal float. Zeros and subnormals give x itself (for
// |x| < 2^-24, x - x^2/2 rounds to x: glibc's log1pf returns x there), NaN
// and +inf give x + x (glibc's too: a NaN quietened, its payload kept), all
// in the vector; only x <= -1 (-inf, -1's pole, NaN below) takes scalar
// log1pf. (Zeros are common: log1p(exp(-inf)) in a logaddexp reducer's
// padding; they went to log1pf a lane at a time.)
__attribute__((target("avx512f"))) __m512 Log1pChecked(__m512 x) {
  const __m512 magnitude = _mm512_abs_ps(x);
  // (A NaN is not tiny, and fails x > -1: usual needs no third compare.)
  const __mmask16 tiny =
      _mm512_cmp_ps_mask(magnitude, _mm512_set1_ps(std::numeric_limits<float>::min()), _CMP_LT_OQ);
  const __mmask16 usual =
      _mm512_cmp_ps_mask(x, _mm512_set1_ps(-1.0f), _CMP_GT_OQ) &
      _mm512_cmp_ps_mask(magnitude, _mm512_set1_ps(__builtin_inff()), _CMP_LT_OQ) &
      static_cast<__mmask16>(~tiny);
  __m512 r = Log1pAvx512(x);
  if (usual == 0xffff) return r;
  const __mmask16 nan_or_inf = _mm512_cmp_ps_mask(x, _mm512_set1_ps(__builtin_inff()), _CMP_NLT_UQ);
  r = _mm512_mask_blend_ps(tiny, r, x);
  r = _mm512_mask_blend_ps(nan_or_inf, r, _mm512_add_ps(x, x));
  const unsigned special = static_cast<__mmask16>(~(usual | tiny | nan_or_inf));
  if (special == 0) return r;
  return WithScalarLanes(x, r, special, Log1pLane);
}
__attribute__((target("avx2,fma"))) __m256 Log1pChecked(__m256 x) {
  const __m256 magnitude = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x);
  const __m256 tiny =
      _mm256_cmp_ps(magnitude, _mm256_set1_ps(std::numeric_limits<float>::min()), _CMP_LT_OQ);
  const __m256 usual = _mm256_andnot_ps(
      tiny, _mm256_and_ps(_mm256_cmp_ps(x, _mm256_set1_ps(-1.0f), _CMP_GT_OQ),
                          _mm256_cmp_ps(magnitude, _mm256_set1_ps(__builtin_inff()), _CMP_LT_OQ)));
  __m256 r = Log1pAvx2(x);
  if (_mm256_movemask_ps(usual) == 0xff) return r;
  const __m256 nan_or_inf = _mm256_cmp_ps(x, _mm256_set1_ps(__builtin_inff()), _CMP_NLT_UQ);
  r = _mm256_blendv_ps(r, x, tiny);
  r = _mm256_blendv_ps(r, _mm256_add_ps(x, x), nan_or_inf);
  const __m256 handled = _mm256_or_ps(usual, _mm256_or_ps(tiny, nan_or_inf));
  const unsigned special = ~static_cast<unsigned>(_mm256_movemask_ps(handled)) & 0xffu;
  if (special == 0) return r;
  return WithScalarLanes(x, r, special, Log1pLane);
}
struct Log1pChecked16 {
  __attribute__((target("avx512f"))) __m512 operator()(__m512 x) const { return Log1pChecked(x); }
};
struct Log1pChecked8 {
  __attribute__((target("avx2,fma"))) __m256 operator()(__m256 x) const { return Log1pChecked(x); }
};
struct LogChecked16 {
  __attribute__((target("avx512f"))) __m512 operator()(__m512 x) const { return LogChecked(x); }
};
struct LogChecked8 {
  __attribute__((target("avx2,fma"))) __m256 operator()(__m256 x) const { return LogChecked(x); }
};

struct ExpSaturating16 {
  __attribute__((target("avx512f"))) __m512 operator()(__m512 x) const { return ExpSaturating(x); }
};
struct ExpSaturating8 {
  __attribute__((target("avx2,fma"))) __m256 operator()(__m256 x) const { return ExpSaturating(x); }
};

// VecMath's f32 loops, one per op and level, as UnaryFloatFns: F16 or F8,
// functions of one vector, over the array (Run16's and Run's tails give
// each lane the bits a whole vector would).
template <int kLevel, typename F16Fn, typename F8Fn>
void VectorLoop(const void* in, void* out, int64_t n) {
  const float* x = static_cast<const float*>(in);
  float* r = static_cast<float*>(out);
  if constexpr (kLevel == 2) {
    Run16(F16Fn{}, x, r, n);
  } else {
    Run(F8Fn{}, x, r, n);
  }
}
// libmvec's f32 function with NaN lanes answered in the vector: libmvec
// sends a vector with a NaN down its slow path, a scalar call per special
// lane (sin of a vector of NaNs cost 5x a vector of ordinary values, tan
// 6x), and glibc's scalar functions return the NaN quietened, sign and
// payload kept, which x + x is. The other lanes see 0 in the NaNs' places;
// each lane's result depends on its own input alone. Not for tanh and erf
// (kNanSafe false): cheap enough per vector that the test showed (the
// shared eltwise chain, whose tanh is most of its work, ran 3-8% slower
// with it), and the GELUs of every transformer run them.
struct NanSafe16 {
  F16 f;
  __attribute__((target("avx512f"))) __m512 operator()(__m512 x) const {
    const __mmask16 nan = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
    if (nan == 0) return f(x);
    const __m512 r = f(_mm512_mask_blend_ps(nan, x, _mm512_setzero_ps()));
    return _mm512_mask_blend_ps(nan, r, _mm512_add_ps(x, x));
  }
};
struct NanSafe8 {
  F8 f;
  __attribute__((target("avx2,fma"))) __m256 operator()(__m256 x) const {
    const __m256 nan = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
    if (_mm256_movemask_ps(nan) == 0) return f(x);
    const __m256 r = f(_mm256_blendv_ps(x, _mm256_setzero_ps(), nan));
    return _mm256_blendv_ps(r, _mm256_add_ps(x, x), nan);
  }
};
template <Opcode kOp, int kLevel>
void LibmvecLoop(const void* in, void* out, int64_t n) {
  constexpr bool kNanSafe = kOp != Opcode::kTanh && kOp != Opcode::kErf;
  const float* x = static_cast<const float*>(in);
  float* r = static_cast<float*>(out);
  if constexpr (kLevel == 2 && kNanSafe) {
    Run16(NanSafe16{Lookup(kOp).f16}, x, r, n);
  } else if constexpr (kLevel == 2) {
    Run16(Lookup(kOp).f16, x, r, n);
  } else if constexpr (kNanSafe) {
    Run(NanSafe8{Lookup(kOp).f8}, x, r, n);
  } else {
    Run(Lookup(kOp).f8, x, r, n);
  }
}

// f32 tanh flushes its own subnormal results while MXCSR's FTZ is set
// (--denormals=flush), as f32 exp does, so that it needs no flush pass of
// its own and a GELU's chain keeps its value in registers past it
// (HardwareFlushes in eval/denormals.h). A subnormal lane becomes the zero
// of its sign, as FlushDenormalsInPlace makes it. Only tiny inputs give
// such results, so MXCSR is read where a vector has one: read per call
// (a fused chain's tile of 128 values), it was 5% of the shared eltwise
// chain's time.
__attribute__((target("avx512f"))) inline __m512 FlushTiny(__m512 r) {
  const __m512i bits = _mm512_castps_si512(r);
  const __m512i magnitude = _mm512_and_epi32(bits, _mm512_set1_epi32(INT32_MAX));
  // 1 <= magnitude <= 0x7fffff: a subnormal, not a zero
  const __mmask16 tiny = _mm512_cmplt_epu32_mask(_mm512_sub_epi32(magnitude, _mm512_set1_epi32(1)),
                                                 _mm512_set1_epi32(0x007fffff));
  if (tiny == 0 || !FlushesDenormalResults()) return r;
  return _mm512_castsi512_ps(_mm512_mask_and_epi32(bits, tiny, bits, _mm512_set1_epi32(INT32_MIN)));
}
__attribute__((target("avx2,fma"))) inline __m256 FlushTiny(__m256 r) {
  // (By the bits: under DAZ a float compare reads a subnormal as zero.)
  const __m256 sign = _mm256_set1_ps(-0.0f);
  const __m256i magnitude = _mm256_castps_si256(_mm256_andnot_ps(sign, r));
  const __m256i tiny =
      _mm256_and_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32(0x00800000), magnitude),
                       _mm256_cmpgt_epi32(magnitude, _mm256_setzero_si256()));
  if (_mm256_movemask_epi8(tiny) == 0 || !FlushesDenormalResults()) return r;
  return _mm256_blendv_ps(r, _mm256_and_ps(r, sign), _mm256_castsi256_ps(tiny));
}
struct TanhFlushed16 {
  F16 f;
  __attribute__((target("avx512f"))) __m512 operator()(__m512 x) const { return FlushTiny(f(x)); }
};
struct TanhFlushed8 {
  __attribute__((target("avx2,fma"))) __m256 operator()(__m256 x) const {
    return FlushTiny(TanhAvx2(x));
  }
};
template <int kLevel>
void TanhLoop(const void* in, void* out, int64_t n) {
  const float* x = static_cast<const float*>(in);
  float* r = static_cast<float*>(out);
  if constexpr (kLevel == 2) {
    Run16(TanhFlushed16{Lookup(Opcode::kTanh).f16}, x, r, n);
  } else {
    Run(TanhFlushed8{}, x, r, n);
  }
}

// VecMath's loop for op at kLevel. This project's own exp, log and log1p
// replace libmvec's (eval/interp/vector_math_avx2.h and its AVX-512 twin:
// faster, more accurate, the same bits on both), and where AVX-512 is
// missing its tanh too (faster and more accurate there; AVX-512 libmvec's
// tanhf ran 0.19 against 0.25 ns per element for ours, at 1.36 ulp against
// 0.98, and stays).
template <int kLevel>
UnaryFloatFn VecMathLoopFor(Opcode op) {
  if (op == Opcode::kExp) return VectorLoop<kLevel, ExpSaturating16, ExpSaturating8>;
  if (op == Opcode::kLog) return VectorLoop<kLevel, LogChecked16, LogChecked8>;
  if (op == Opcode::kLog1p) return VectorLoop<kLevel, Log1pChecked16, Log1pChecked8>;
  if (op == Opcode::kTanh) return TanhLoop<kLevel>;
  switch (op) {
#define HLO_EW_LOOP(opcode, name) \
  case Opcode::opcode:            \
    return LibmvecLoop<Opcode::opcode, kLevel>;
    HLO_EW_LIBMVEC_OPS(HLO_EW_LOOP)
#undef HLO_EW_LOOP
    default:
      return nullptr;
  }
}

}  // namespace

UnaryFloatFn UnaryFloatKernelFor(Opcode op, PrimitiveType t) {
  if (t != PrimitiveType::kF32 || !vec_math_enabled.load(std::memory_order_relaxed)) {
    return nullptr;
  }
  const int level = VecLevel();
  return level == 2 ? VecMathLoopFor<2>(op) : level == 1 ? VecMathLoopFor<1>(op) : nullptr;
}

bool VecMath(Opcode op, const float* in, float* out, int64_t n) {
  const UnaryFloatFn loop = UnaryFloatKernelFor(op, PrimitiveType::kF32);
  if (loop == nullptr) return false;
  loop(in, out, n);
  return true;
}

bool VecExpOfDifference(const float* in, float s, float* out, int64_t n) {
  if (!vec_math_enabled.load(std::memory_order_relaxed)) return false;
  const int level = VecLevel();
  if (level == 0) return false;
  const VecFns fns = Lookup(Opcode::kExp);
  if (fns.f16 == nullptr) return false;
  level == 2 ? RunExp16(in, s, out, n) : RunExp8(in, s, out, n);
  return true;
}

// NanSafe16/NanSafe8 for f64, every libmvec op: a double's function costs
// enough per vector that the compare does not show (sin of 1M NaNs took
// 7x an ordinary array's time).
struct NanSafeD8 {
  D8 f;
  __attribute__((target("avx512f"))) __m512d operator()(__m512d x) const {
    const __mmask8 nan = _mm512_cmp_pd_mask(x, x, _CMP_UNORD_Q);
    if (nan == 0) return f(x);
    const __m512d r = f(_mm512_mask_blend_pd(nan, x, _mm512_setzero_pd()));
    return _mm512_mask_blend_pd(nan, r, _mm512_add_pd(x, x));
  }
};
struct NanSafeD4 {
  D4 f;
  __attribute__((target("avx2,fma"))) __m256d operator()(__m256d x) const {
    const __m256d nan = _mm256_cmp_pd(x, x, _CMP_UNORD_Q);
    if (_mm256_movemask_pd(nan) == 0) return f(x);
    const __m256d r = f(_mm256_blendv_pd(x, _mm256_setzero_pd(), nan));
    return _mm256_blendv_pd(r, _mm256_add_pd(x, x), nan);
  }
};

// f64 log: libmvec's sends a vector with a negative, zero, infinite or NaN
// lane down its slow path, a scalar call per lane (log of f64[1024,4096],
// half negative: 21 ms, 4.4 of positive values). Those lanes are answered
// here as glibc's log answers them, from their bits (so that DAZ changes
// nothing): ±0 gives -inf, +inf itself, and a negative or NaN x glibc's
// invalid operation (x - x) / (x - x), computed the same way; libmvec
// sees 1 in their place.
struct LogCheckedD8 {
  D8 f;
  __attribute__((target("avx512f"))) __m512d operator()(__m512d x) const {
    const __m512i bits = _mm512_castpd_si512(x);
    const __m512i inf_bits = _mm512_set1_epi64(0x7ff0000000000000);
    // sign set or zero (bits <= 0 as a signed integer), or +inf or NaN
    const __mmask8 special = _mm512_cmple_epi64_mask(bits, _mm512_setzero_si512()) |
                             _mm512_cmpge_epi64_mask(bits, inf_bits);
    if (special == 0) return f(x);
    const __m512d r = f(_mm512_mask_blend_pd(special, x, _mm512_set1_pd(1.0)));
    const __m512d zero = _mm512_maskz_sub_pd(0xff, x, x);
    __m512d answer = _mm512_maskz_div_pd(0xff, zero, zero);
    const __m512i magnitude = _mm512_and_si512(bits, _mm512_set1_epi64(INT64_MAX));
    answer = _mm512_mask_blend_pd(_mm512_cmpeq_epi64_mask(magnitude, _mm512_setzero_si512()),
                                  answer, _mm512_set1_pd(-__builtin_inf()));
    answer = _mm512_mask_blend_pd(_mm512_cmpeq_epi64_mask(bits, inf_bits), answer, x);
    return _mm512_mask_blend_pd(special, r, answer);
  }
};
struct LogCheckedD4 {
  D4 f;
  __attribute__((target("avx2,fma"))) __m256d operator()(__m256d x) const {
    const __m256i bits = _mm256_castpd_si256(x);
    const __m256i inf_bits = _mm256_set1_epi64x(0x7ff0000000000000);
    // sign set or zero (not bits > 0), or +inf or NaN (bits > inf - 1)
    const __m256i special = _mm256_or_si256(
        _mm256_xor_si256(_mm256_cmpgt_epi64(bits, _mm256_setzero_si256()), _mm256_set1_epi64x(-1)),
        _mm256_cmpgt_epi64(bits, _mm256_set1_epi64x(0x7fefffffffffffff)));
    if (_mm256_movemask_epi8(special) == 0) return f(x);
    const __m256d lanes = _mm256_castsi256_pd(special);
    const __m256d r = f(_mm256_blendv_pd(x, _mm256_set1_pd(1.0), lanes));
    const __m256d zero = _mm256_sub_pd(x, x);
    __m256d answer = _mm256_div_pd(zero, zero);
    const __m256i magnitude = _mm256_and_si256(bits, _mm256_set1_epi64x(INT64_MAX));
    answer = _mm256_blendv_pd(
        answer, _mm256_set1_pd(-__builtin_inf()),
        _mm256_castsi256_pd(_mm256_cmpeq_epi64(magnitude, _mm256_setzero_si256())));
    answer = _mm256_blendv_pd(answer, x, _mm256_castsi256_pd(_mm256_cmpeq_epi64(bits, inf_bits)));
    return _mm256_blendv_pd(r, answer, lanes);
  }
};

bool VecMath(Opcode op, const double* in, double* out, int64_t n) {
  if (!vec_math_enabled.load(std::memory_order_relaxed)) return false;
  int level = VecLevel();
  if (level == 0) return false;
  VecFns fns = Lookup(op);
  if (fns.d8 == nullptr) return false;
  if (op == Opcode::kLog) {
    level == 2 ? Run8d(LogCheckedD8{fns.d8}, in, out, n) : Run4d(LogCheckedD4{fns.d4}, in, out, n);
    return true;
  }
  if (level == 2) {
    Run8d(NanSafeD8{fns.d8}, in, out, n);
  } else {
    Run4d(NanSafeD4{fns.d4}, in, out, n);
  }
  return true;
}

#else  // !HLO_EW_LIBMVEC

bool VecMath(Opcode, const float*, float*, int64_t) { return false; }
bool VecMath(Opcode, const double*, double*, int64_t) { return false; }
UnaryFloatFn UnaryFloatKernelFor(Opcode, PrimitiveType) { return nullptr; }

#endif  // HLO_EW_LIBMVEC

namespace {

template <typename T, typename F>
HLO_VECTOR_CLONES void Map(const T* __restrict in, T* __restrict out, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) out[i] = f(in[i]);
}

// Same, but `in` may be `out` (in-place passes over a result buffer).
template <typename T, typename F>
void MapInPlace(const T* in, T* out, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) out[i] = f(in[i]);
}

template <typename T, typename F>
HLO_VECTOR_CLONES void Zip(const T* __restrict a, const T* __restrict b, T* __restrict out,
                           int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], b[i]);
}

template <typename T, typename F>
void ZipInPlace(const T* a, const T* b, T* out, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], b[i]);
}

// Same, for `out` equal to `a` or `b` (a result reusing an operand's buffer):
// element i is read before it is written, so there is no loop-carried
// dependence and ivdep lets the loop vectorise as Zip's does.
template <typename T, typename F>
HLO_VECTOR_CLONES void ZipAliased(const T* a, const T* b, T* out, int64_t n, F f) {
#pragma GCC ivdep
  for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], b[i]);
}

// IEEE sqrt without the errno branch that keeps std::sqrt scalar.
void Sqrt(const float* in, float* out, int64_t n) {
  int64_t i = 0;
#if defined(__SSE2__)
  for (; i + 4 <= n; i += 4) _mm_storeu_ps(out + i, _mm_sqrt_ps(_mm_loadu_ps(in + i)));
#endif
  for (; i < n; ++i) out[i] = std::sqrt(in[i]);
}
void Sqrt(const double* in, double* out, int64_t n) {
  int64_t i = 0;
#if defined(__SSE2__)
  for (; i + 2 <= n; i += 2) _mm_storeu_pd(out + i, _mm_sqrt_pd(_mm_loadu_pd(in + i)));
#endif
  for (; i < n; ++i) out[i] = std::sqrt(in[i]);
}

template <typename T>
void Transcendental(Opcode op, const T* in, T* out, int64_t n) {
  if (VecMath(op, in, out, n)) return;
  switch (op) {
    case Opcode::kExp: {
      const bool flush = FlushesDenormalResults();
      return MapInPlace(in, out, n, [flush](T x) { return ScalarExp(x, flush); });
    }
    case Opcode::kExpm1:
      return MapInPlace(in, out, n, [](T x) { return std::expm1(x); });
    case Opcode::kLog:
      return MapInPlace(in, out, n, [](T x) { return std::log(x); });
    case Opcode::kLog1p:
      return MapInPlace(in, out, n, [](T x) { return std::log1p(x); });
    case Opcode::kSin:
      return MapInPlace(in, out, n, [](T x) { return std::sin(x); });
    case Opcode::kCos:
      return MapInPlace(in, out, n, [](T x) { return std::cos(x); });
    case Opcode::kTan:
      return MapInPlace(in, out, n, [](T x) { return std::tan(x); });
    case Opcode::kTanh:
      MapInPlace(in, out, n, [](T x) { return std::tanh(x); });
      // (f32 flushes itself, as the vector loops do.)
      if (std::is_same_v<T, float> && FlushesDenormalResults()) {
        FlushDenormalsInPlace(PrimitiveType::kF32, out, n);
      }
      return;
    case Opcode::kAsin:
      return MapInPlace(in, out, n, [](T x) { return std::asin(x); });
    case Opcode::kAcos:
      return MapInPlace(in, out, n, [](T x) { return std::acos(x); });
    case Opcode::kAtan:
      return MapInPlace(in, out, n, [](T x) { return std::atan(x); });
    case Opcode::kSinh:
      return MapInPlace(in, out, n, [](T x) { return std::sinh(x); });
    case Opcode::kCosh:
      return MapInPlace(in, out, n, [](T x) { return std::cosh(x); });
    case Opcode::kAsinh:
      return MapInPlace(in, out, n, [](T x) { return std::asinh(x); });
    case Opcode::kAcosh:
      return MapInPlace(in, out, n, [](T x) { return std::acosh(x); });
    case Opcode::kAtanh:
      return MapInPlace(in, out, n, [](T x) { return std::atanh(x); });
    case Opcode::kErf:
      return MapInPlace(in, out, n, [](T x) { return std::erf(x); });
    case Opcode::kCbrt:
      return MapInPlace(in, out, n, [](T x) { return std::cbrt(x); });
    default:
      return;
  }
}

}  // namespace

template <typename T>
bool UnaryFloatKernel(Opcode op, const T* in, T* out, int64_t n) {
  switch (op) {
    case Opcode::kAbs:
      Map(in, out, n, [](T x) { return std::fabs(x); });
      return true;
    case Opcode::kNegate:
      Map(in, out, n, [](T x) { return -x; });
      return true;
    case Opcode::kSign:
      // NaN stays (its own NaN), ±0 stays, else ±1.
      Map(in, out, n, [](T x) {
        T s = x > T(0) ? T(1) : x;
        return x < T(0) ? T(-1) : s;
      });
      return true;
    case Opcode::kFloor:
      Map(in, out, n, [](T x) { return std::floor(x); });
      return true;
    case Opcode::kCeil:
      Map(in, out, n, [](T x) { return std::ceil(x); });
      return true;
    case Opcode::kRoundNearestAfz:
      // std::round's value from nearbyint (ties to even), which vectorises
      // (a call of round per element took 4.6x round-nearest-even's time):
      // x - nearbyint(x) is exact, and where it is a half (a tie) x + 1/2
      // away from zero is the integer. NaN and infinities keep nearbyint's
      // value (inf - inf is NaN, no tie); -0.3 gives -0, as round does.
      Map(in, out, n, [](T x) {
        const T r = std::nearbyint(x);
        return std::fabs(x - r) == T(0.5) ? x + std::copysign(T(0.5), x) : r;
      });
      return true;
    case Opcode::kRoundNearestEven:
      Map(in, out, n, [](T x) { return std::nearbyint(x); });
      return true;
    case Opcode::kSqrt:
      Sqrt(in, out, n);
      return true;
    case Opcode::kRsqrt:
      Sqrt(in, out, n);
      MapInPlace(out, out, n, [](T x) { return T(1) / x; });
      return true;
    case Opcode::kLogistic:
      // 1 / (1 + e^-x), computed from t = e^-|x| so that neither side
      // overflows: x >= 0 gives 1 / (1 + t), x < 0 gives t / (1 + t).
      MapInPlace(in, out, n, [](T x) { return -std::fabs(x); });
      Transcendental(Opcode::kExp, out, out, n);
      ZipInPlace(in, out, out, n, [](T x, T t) {
        T numerator = x >= T(0) ? T(1) : t;
        return numerator / (T(1) + t);
      });
      return true;
    case Opcode::kReal:
      std::memcpy(out, in, n * sizeof(T));
      return true;
    case Opcode::kImag:
      std::memset(out, 0, n * sizeof(T));
      return true;
    default:
      if (!IsTranscendental(op)) return false;
      Transcendental(op, in, out, n);
      return true;
  }
}

namespace {

// BinaryFloatKernel's loop for one op, as BinaryFloatFn.
template <typename T, typename F>
void BinaryFloatLoop(const void* a, const void* b, void* out, int64_t n) {
  const T* x = static_cast<const T*>(a);
  const T* y = static_cast<const T*>(b);
  T* o = static_cast<T*>(out);
  // (n > 0: empty buffers all have a null data pointer.)
  if (n > 0 && (o == x || o == y)) {
    ZipAliased(x, y, o, n, F{});
  } else {
    Zip(x, y, o, n, F{});
  }
}

template <typename T>
struct AddOf {
  T operator()(T x, T y) const { return x + y; }
};
template <typename T>
struct SubtractOf {
  T operator()(T x, T y) const { return x - y; }
};
template <typename T>
struct MultiplyOf {
  T operator()(T x, T y) const { return x * y; }
};
template <typename T>
struct DivideOf {
  T operator()(T x, T y) const { return x / y; }
};
template <typename T>
struct MaximumOf {
  T operator()(T x, T y) const { return MaxOf(x, y); }
};
template <typename T>
struct MinimumOf {
  T operator()(T x, T y) const { return MinOf(x, y); }
};

template <typename T>
BinaryFloatFn BinaryFloatLoopFor(Opcode op) {
  switch (op) {
    case Opcode::kAdd:
      return BinaryFloatLoop<T, AddOf<T>>;
    case Opcode::kSubtract:
      return BinaryFloatLoop<T, SubtractOf<T>>;
    case Opcode::kMultiply:
      return BinaryFloatLoop<T, MultiplyOf<T>>;
    case Opcode::kDivide:
      return BinaryFloatLoop<T, DivideOf<T>>;
    case Opcode::kMaximum:
      return BinaryFloatLoop<T, MaximumOf<T>>;
    case Opcode::kMinimum:
      return BinaryFloatLoop<T, MinimumOf<T>>;
    default:
      return nullptr;
  }
}

}  // namespace

template <typename T>
bool BinaryFloatKernel(Opcode op, const T* a, const T* b, T* out, int64_t n) {
  if (BinaryFloatFn loop = BinaryFloatLoopFor<T>(op)) {
    loop(a, b, out, n);
    return true;
  }
  if (n > 0 && (out == a || out == b)) return false;  // callers alias only for the ops above
  switch (op) {
    // The sign follows the dividend; |result| < |divisor| (C fmod).
    case Opcode::kRemainder:
      if constexpr (std::is_same_v<T, float>) {
        RemainderFloats(a, b, out, n);
      } else {
        RemainderDoubles(a, b, out, n);
      }
      return true;
    case Opcode::kPower:
      Zip(a, b, out, n, [](T x, T y) { return std::pow(x, y); });
      return true;
    case Opcode::kAtan2:
      Zip(a, b, out, n, [](T x, T y) { return std::atan2(x, y); });
      return true;
    default:
      return false;
  }
}

BinaryFloatFn BinaryFloatKernelFor(Opcode op, PrimitiveType t) {
  if (t == PrimitiveType::kF32) return BinaryFloatLoopFor<float>(op);
  if (t == PrimitiveType::kF64) return BinaryFloatLoopFor<double>(op);
  return nullptr;
}

template bool UnaryFloatKernel<float>(Opcode, const float*, float*, int64_t);
template bool UnaryFloatKernel<double>(Opcode, const double*, double*, int64_t);
template bool BinaryFloatKernel<float>(Opcode, const float*, const float*, float*, int64_t);
template bool BinaryFloatKernel<double>(Opcode, const double*, const double*, double*, int64_t);

}  // namespace elementwise
}  // namespace hlo

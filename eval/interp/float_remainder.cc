#include "eval/interp/float_remainder.h"

#include <cmath>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace hlo {
namespace float_remainder_internal {

#if defined(__x86_64__)
namespace {

// Why f64 is exact here, for f32 x = mx 2^a and y = my 2^b (mx, my
// integers under 2^24), both normal (or x zero), with |x / y| < 2^28: the
// f64 quotient truncates to the true quotient's integer part k. Where x is
// not k y, |x - k y| >= 2^min(a, b), so x / y lies at least 1/my > 2^-24
// from any integer when a >= b (and is under 1 - 2^-24 when a < b), while
// f64 rounds it by at most 2^-26 below 2^28: never across an integer.
// x - k y is then the true remainder, an f32 value, and the fma (or q y,
// at most 52 bits, then a subtraction) gives it exactly. It takes x's sign
// (a zero too: fmod(-6, 3) is -0). A result under 2^-126 (a subnormal f32)
// goes to fmodf, as do subnormal, infinite and NaN operands and larger
// quotients: f64 would round none of the subnormals, but DAZ would read a
// subnormal operand as zero and FTZ flush a subnormal result, where fmodf
// keeps them.

// Lanes whose f32 bits are a normal number, or (zero_too) a zero: read
// from the bits, which DAZ leaves alone.
__attribute__((target("avx512f,avx512vl"))) __mmask8 NormalLanes(__m256 v, bool zero_too) {
  const __m256i magnitude = _mm256_and_si256(_mm256_castps_si256(v), _mm256_set1_epi32(INT32_MAX));
  const __mmask8 normal =
      _mm256_cmp_epu32_mask(_mm256_sub_epi32(magnitude, _mm256_set1_epi32(0x00800000)),
                            _mm256_set1_epi32(0x7f000000), _MM_CMPINT_LT);
  return zero_too ? normal | _mm256_cmpeq_epu32_mask(magnitude, _mm256_setzero_si256()) : normal;
}

__attribute__((target("avx512f,avx512vl"))) __mmask8 Remainder8(const float* a, const float* b,
                                                                float* out, __mmask8 lanes) {
  const __m256 xf = _mm256_maskz_loadu_ps(lanes, a), yf = _mm256_maskz_loadu_ps(lanes, b);
  const __m512d x = _mm512_maskz_cvtps_pd(0xff, xf);
  const __m512d y = _mm512_maskz_cvtps_pd(0xff, yf);
  const __m512i sign = _mm512_set1_epi64(INT64_MIN);
  const __m512i xs = _mm512_and_si512(_mm512_castpd_si512(x), sign);
  const __m512d q =
      _mm512_maskz_roundscale_pd(0xff, _mm512_div_pd(x, y), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  const __m512d ar = _mm512_abs_pd(_mm512_fnmadd_pd(q, y, x));
  const __m512d r = _mm512_castsi512_pd(_mm512_or_si512(_mm512_castpd_si512(ar), xs));
  // (The masked conversions and rounding take every lane: GCC 12 reads the
  // unmasked forms' merge source as uninitialised. NaN quotients fail the
  // ordered compare.)
  const __mmask8 ok = NormalLanes(xf, /*zero_too=*/true) & NormalLanes(yf, /*zero_too=*/false) &
                      _mm512_cmp_pd_mask(_mm512_abs_pd(q), _mm512_set1_pd(0x1p28), _CMP_LT_OQ) &
                      (_mm512_cmp_pd_mask(ar, _mm512_set1_pd(0x1p-126), _CMP_GE_OQ) |
                       _mm512_cmp_pd_mask(ar, _mm512_setzero_pd(), _CMP_EQ_OQ));
  _mm256_mask_storeu_ps(out, lanes, _mm512_maskz_cvtpd_ps(0xff, r));
  return static_cast<__mmask8>(lanes & ~ok);
}

// f64: x and y normal (x may be zero), |y| >= 2^-968, |x / y| < 2^52. The
// rounded quotient truncates to the true integer part k or, where it
// rounded up across an integer (f64 has no wider type to divide in), to
// k + 1 in magnitude, never more: its last place is at most 1/2 there.
// x - q y in one fma is exact either way: the true remainder r, or r less
// y toward x's sign, both multiples of y's last place (at least 2^-1022,
// so never subnormal) under 2|y| in magnitude, so 53 bits. A result of the
// other sign than x's is the overshoot: adding y with x's sign gives r,
// exactly. The result takes x's sign. Lanes beyond these bounds, and
// subnormal results, go to fmod.
__attribute__((target("avx512f"))) __mmask8 Remainder8(const double* a, const double* b,
                                                       double* out, __mmask8 lanes) {
  const __m512d x = _mm512_maskz_loadu_pd(lanes, a), y = _mm512_maskz_loadu_pd(lanes, b);
  const __m512i sign = _mm512_set1_epi64(INT64_MIN);
  const __m512i xs = _mm512_and_si512(_mm512_castpd_si512(x), sign);
  const __m512d q =
      _mm512_maskz_roundscale_pd(0xff, _mm512_div_pd(x, y), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
  const __m512d r0 = _mm512_fnmadd_pd(q, y, x);
  const __m512i zero = _mm512_setzero_si512();
  // Nonzero with the other sign than x's: q went one past.
  const __mmask8 past =
      _mm512_cmp_pd_mask(r0, _mm512_setzero_pd(), _CMP_NEQ_OQ) &
      _mm512_cmplt_epi64_mask(_mm512_xor_si512(_mm512_castpd_si512(r0), xs), zero);
  const __m512d ay = _mm512_abs_pd(y);
  const __m512d y_as_x = _mm512_castsi512_pd(_mm512_or_si512(_mm512_castpd_si512(ay), xs));
  const __m512d ar = _mm512_abs_pd(_mm512_mask_add_pd(r0, past, r0, y_as_x));
  const __m512d r = _mm512_castsi512_pd(_mm512_or_si512(_mm512_castpd_si512(ar), xs));
  // Normal x (or zero) and y from the bits: exponent fields 1 to 0x7fe.
  const __m512i exp_mask = _mm512_set1_epi64(0x7ff0000000000000);
  const __m512i ex = _mm512_and_si512(_mm512_castpd_si512(x), exp_mask);
  const __m512i ey = _mm512_and_si512(_mm512_castpd_si512(y), exp_mask);
  const __mmask8 x_ok =
      (_mm512_cmpneq_epi64_mask(ex, zero) & _mm512_cmpneq_epi64_mask(ex, exp_mask)) |
      _mm512_cmpeq_epi64_mask(_mm512_castpd_si512(_mm512_abs_pd(x)), zero);
  const __mmask8 y_ok = _mm512_cmpneq_epi64_mask(ey, exp_mask) &
                        _mm512_cmp_pd_mask(ay, _mm512_set1_pd(0x1p-968), _CMP_GE_OQ);
  const __mmask8 ok = x_ok & y_ok &
                      _mm512_cmp_pd_mask(_mm512_abs_pd(q), _mm512_set1_pd(0x1p52), _CMP_LT_OQ) &
                      (_mm512_cmp_pd_mask(ar, _mm512_set1_pd(0x1p-1022), _CMP_GE_OQ) |
                       _mm512_cmp_pd_mask(ar, _mm512_setzero_pd(), _CMP_EQ_OQ));
  _mm512_mask_storeu_pd(out, lanes, r);
  return static_cast<__mmask8>(lanes & ~ok);
}

// Each step of eight lanes by Remainder8, the lanes it leaves by fmod.
template <typename T>
bool RemainderAvx512(const T* a, const T* b, T* out, int64_t n) {
  if (!UsesAvx512()) return false;
  for (int64_t k = 0; k < n; k += 8) {
    const int64_t m = n - k < 8 ? n - k : 8;
    unsigned rest = Remainder8(a + k, b + k, out + k, static_cast<__mmask8>((1u << m) - 1));
    for (; rest != 0; rest &= rest - 1) {
      const int64_t i = k + __builtin_ctz(rest);
      out[i] = std::fmod(a[i], b[i]);
    }
  }
  return true;
}

}  // namespace

bool UsesAvx512() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
}

bool RemainderFloatsAvx512(const float* a, const float* b, float* out, int64_t n) {
  return RemainderAvx512(a, b, out, n);
}
bool RemainderDoublesAvx512(const double* a, const double* b, double* out, int64_t n) {
  return RemainderAvx512(a, b, out, n);
}

#else
bool RemainderFloatsAvx512(const float*, const float*, float*, int64_t) { return false; }
bool RemainderDoublesAvx512(const double*, const double*, double*, int64_t) { return false; }
bool UsesAvx512() { return false; }
#endif

}  // namespace float_remainder_internal

void RemainderFloats(const float* a, const float* b, float* out, int64_t n) {
  if (float_remainder_internal::RemainderFloatsAvx512(a, b, out, n)) return;
  for (int64_t k = 0; k < n; ++k) out[k] = std::fmod(a[k], b[k]);
}

void RemainderDoubles(const double* a, const double* b, double* out, int64_t n) {
  if (float_remainder_internal::RemainderDoublesAvx512(a, b, out, n)) return;
  for (int64_t k = 0; k < n; ++k) out[k] = std::fmod(a[k], b[k]);
}

}  // namespace hlo

// f32 exp, tanh, log and log1p on eight lanes with AVX2 and FMA, where
// they replace libmvec's (eval/interp/elementwise_float.cc: exp, log and
// log1p on every x86 CPU with AVX2, their AVX-512 twins in
// vector_math_avx512.h giving the same bits; tanh where AVX-512 is
// missing). Faster (exp and tanh first measured on a Zen 3, 4096 inputs in
// L1: expf 0.54 -> 0.32 ns per element, tanhf 1.35 -> 0.89) and more
// accurate, against double libm: exp within 0.90 ulp on [-87, 87]
// (libmvec's: 2.5 near the subnormal edge), tanh within 0.98 on every
// float (libmvec's AVX2 tanhf: 1.03), log and log1p within 0.90 (libmvec's:
// 3.89 and 1.90). All keep ±0, ±inf and NaN as libm does.
#ifndef HLO_EVAL_INTERP_VECTOR_MATH_AVX2_H_
#define HLO_EVAL_INTERP_VECTOR_MATH_AVX2_H_

#if defined(__x86_64__)
#include <immintrin.h>

#include <cstdint>

namespace hlo {
namespace elementwise {

// exp(x) for |x| <= kExpAvx2Range (callers answer the other lanes: NaN,
// subnormal results, +0 and +inf); other lanes give unspecified values.
// tanh(x) for every x. Inline, so that loops calling them keep the
// constants in registers (called through a pointer, the same code ran no
// faster than libmvec's).
inline constexpr float kExpAvx2Range = 87.0f;

// exp(x) = 2^n * e^r with n = round(x / ln 2) and r = x - n ln 2 (ln 2 in
// two parts, the first exact in 16 bits, so n * ln2_hi is exact), |r| <=
// ln 2 / 2; e^r by a degree-6 polynomial (coefficients near 1/k!, nudged
// towards the minimax ones), 2^n added to the exponent field. For |x| <=
// 87, |n| <= 126 and e^r * 2^n stays a normal float.
// (The constants, shared with ExpAvx512: kExpPoly from the highest degree
// down.)
inline constexpr float kExpLog2e = 0x1.715476p+0f;
inline constexpr float kExpLn2Hi = 0x1.62e4p-1f;
inline constexpr float kExpLn2Lo = 0x1.7f7d1cp-20f;
inline constexpr float kExpPoly[7] = {
    0x1.6850e4p-10f, 0x1.123bccp-7f, 0x1.555b98p-5f, 0x1.55548ep-3f, 0x1.fffff8p-2f, 1.0f, 1.0f};
// e^r 2^(n + kBias): exp(x) with its exponent raised by kBias.
template <int kBias>
__attribute__((target("avx2,fma"))) inline __m256 ExpScaledAvx2(__m256 x) {
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(kExpLog2e)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kExpLn2Hi), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kExpLn2Lo), r);
  __m256 p = _mm256_set1_ps(kExpPoly[0]);
  for (int k = 1; k < 7; ++k) p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kExpPoly[k]));
  __m256i e = _mm256_cvtps_epi32(n);
  if constexpr (kBias != 0) e = _mm256_add_epi32(e, _mm256_set1_epi32(kBias));
  return _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(p), _mm256_slli_epi32(e, 23)));
}
__attribute__((target("avx2,fma"))) inline __m256 ExpAvx2(__m256 x) { return ExpScaledAvx2<0>(x); }

// exp(x) for x in (kExpZeroAtOrBelow, -kExpAvx2Range), whose results are
// subnormal or near it (-126 >= n >= -150): e^r 2^(n + 64), a normal
// float, times 2^-64, rounded once (to +0 under MXCSR's FTZ where the
// result is subnormal). Within 1 ulp of double libm there (the
// subnormals' ulp, 2^-149), as ExpAvx2 on [-87, 87]; at or below
// kExpZeroAtOrBelow exp rounds to +0.
inline constexpr float kExpZeroAtOrBelow = -0x1.9fe36ap+6f;
inline constexpr float kExpTinyScale = 0x1p-64f;
__attribute__((target("avx2,fma"))) inline __m256 ExpTinyAvx2(__m256 x) {
  return _mm256_mul_ps(ExpScaledAvx2<64>(x), _mm256_set1_ps(kExpTinyScale));
}

// tanh(x) = sign(x) * t(|x|):
//   |x| < 1: t = a + a^3 P(a^2), P of degree 7 fitted to (tanh(a) - a) /
//     a^3 (a reweighted least-squares fit, 0.13 ulp before rounding);
//   else t = 1 - 2 / (1 + E), E = e^(2a) >= 7.4, a clamped to 9.5 (past
//     about 9.01 tanh rounds to 1, and so does this): the quotient is at
//     most 0.24, so E's error reaches t shrunk.
// Both are computed and blended; NaN lanes give NaN. Within 0.98 ulp of
// double libm on every float (libmvec's tanhf: 1.03 on AVX2, 1.36 on
// AVX-512).
inline constexpr float kTanhPoly[8] = {-0x1.555552p-2f,  0x1.11105ep-3f,  -0x1.b9fbd8p-5f,
                                       0x1.64ebc2p-6f,   -0x1.19a4eep-7f, 0x1.9383ecp-9f,
                                       -0x1.b8fe2ap-11f, 0x1.fd797cp-14f};
__attribute__((target("avx2,fma"))) inline __m256 TanhAvx2(__m256 x) {
  const __m256 sign_bit = _mm256_set1_ps(-0.0f);
  const __m256 a = _mm256_andnot_ps(sign_bit, x);
  const __m256 sign = _mm256_and_ps(sign_bit, x);
  const __m256 a2 = _mm256_mul_ps(a, a);
  __m256 p = _mm256_set1_ps(kTanhPoly[7]);
  for (int k = 6; k >= 0; --k) p = _mm256_fmadd_ps(p, a2, _mm256_set1_ps(kTanhPoly[k]));
  const __m256 small = _mm256_fmadd_ps(_mm256_mul_ps(p, a2), a, a);
  const __m256 clamped = _mm256_min_ps(a, _mm256_set1_ps(9.5f));
  const __m256 e = ExpAvx2(_mm256_add_ps(clamped, clamped));
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 large =
      _mm256_sub_ps(one, _mm256_div_ps(_mm256_set1_ps(2.0f), _mm256_add_ps(one, e)));
  const __m256 use_small = _mm256_cmp_ps(a, one, _CMP_LT_OQ);
  const __m256 t = _mm256_or_ps(_mm256_blendv_ps(large, small, use_small), sign);
  const __m256 nan = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
  return _mm256_blendv_ps(t, _mm256_add_ps(x, x), nan);
}

// log(x) for positive normal finite x (callers answer the other lanes:
// zero, negative, subnormal, inf, NaN; those lanes give unspecified
// values). x = 2^e m with m in [sqrt(1/2), sqrt(2)) (from x's bits less
// sqrt(1/2)'s), f = m - 1 (exact), log(x) = e ln2 + log1p(f), log1p(f) =
// f - f^2/2 + f^3 P(f), P of degree 7 (a weighted least-squares fit), and
// e ln2_hi + f summed with its rounding error (Fast2Sum: |e ln2_hi| >= |f|
// unless e = 0). Within 0.90 ulp of double libm on every 7th positive
// normal float and every float of [0.5, 2); libmvec's logf: 3.89.
inline constexpr int32_t kLogSqrtHalfBits = 0x3f3504f3;
inline constexpr float kLogPoly[8] = {0x1.555548p-2f,  -0x1.00021cp-2f, 0x1.99a5ccp-3f,
                                      -0x1.54793ep-3f, 0x1.22734ap-3f,  -0x1.0ce62cp-3f,
                                      0x1.07937ap-3f,  -0x1.40ffcap-4f};
// log(u) + t, for LogAvx2 (t = 0) and Log1pAvx2: t joins the smallest terms.
__attribute__((target("avx2,fma"))) inline __m256 LogPlusAvx2(__m256 x, __m256 t) {
  const __m256i ix = _mm256_sub_epi32(_mm256_castps_si256(x), _mm256_set1_epi32(kLogSqrtHalfBits));
  const __m256i e = _mm256_srai_epi32(ix, 23);
  const __m256 m = _mm256_castsi256_ps(_mm256_add_epi32(
      _mm256_and_si256(ix, _mm256_set1_epi32(0x007fffff)), _mm256_set1_epi32(kLogSqrtHalfBits)));
  const __m256 f = _mm256_sub_ps(m, _mm256_set1_ps(1.0f));
  __m256 p = _mm256_set1_ps(kLogPoly[7]);
  for (int k = 6; k >= 0; --k) p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(kLogPoly[k]));
  // The terms as fused multiply-adds, written out: e ln2_hi + f, e ln2_hi - s,
  // e ln2_lo + t and f^2 (f p - 1/2) + that, which GCC formed from the
  // products and sums while the build let it contract (the bits and the
  // accuracy above were measured so; CMakeLists.txt now turns that off).
  const __m256 ef = _mm256_cvtepi32_ps(e);
  const __m256 ln2_hi = _mm256_set1_ps(kExpLn2Hi);
  const __m256 s = _mm256_fmadd_ps(ef, ln2_hi, f);
  const __m256 err = _mm256_add_ps(_mm256_fmsub_ps(ef, ln2_hi, s), f);
  const __m256 small = _mm256_fmadd_ps(ef, _mm256_set1_ps(kExpLn2Lo), t);
  const __m256 q =
      _mm256_fmadd_ps(_mm256_mul_ps(f, f), _mm256_fmsub_ps(f, p, _mm256_set1_ps(0.5f)), small);
  return _mm256_add_ps(s, _mm256_add_ps(err, q));
}
__attribute__((target("avx2,fma"))) inline __m256 LogAvx2(__m256 x) {
  return LogPlusAvx2(x, _mm256_setzero_ps());
}

// log1p(x) for x > -1, |x| >= the smallest normal float and finite
// (callers answer the other lanes): u = 1 + x rounded, c = (u - 1) - x its
// rounding error (exact), log1p(x) = log(u) - c / u to first order. Within
// 0.90 ulp of double libm on every 7th float of (-1, inf) and every float
// of [-0.5, 1]; libmvec's log1pf: 1.90.
__attribute__((target("avx2,fma"))) inline __m256 Log1pAvx2(__m256 x) {
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 u = _mm256_add_ps(one, x);
  const __m256 c = _mm256_sub_ps(_mm256_sub_ps(u, one), x);
  return LogPlusAvx2(u, _mm256_sub_ps(_mm256_setzero_ps(), _mm256_div_ps(c, u)));
}

}  // namespace elementwise
}  // namespace hlo

#endif  // __x86_64__
#endif  // HLO_EVAL_INTERP_VECTOR_MATH_AVX2_H_

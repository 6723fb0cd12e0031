// f32 exp, log and log1p on sixteen lanes with AVX-512: the AVX2 versions'
// operations lane for lane (eval/interp/vector_math_avx2.h), so the same
// bits and accuracy (exp within 0.90 ulp on [-87, 87], libmvec's AVX-512
// expf 2.5; log and log1p within 0.90 ulp, libmvec's 3.89 and 1.90),
// inlined into the loops that call them instead of libmvec's call per
// vector.
#ifndef HLO_EVAL_INTERP_VECTOR_MATH_AVX512_H_
#define HLO_EVAL_INTERP_VECTOR_MATH_AVX512_H_

#if defined(__x86_64__)
#include <immintrin.h>

#include "eval/interp/vector_math_avx2.h"  // kExpAvx2Range, the constants

namespace hlo {
namespace elementwise {

// exp(x) for |x| <= kExpAvx2Range, as ExpAvx2 (the other lanes are the
// callers' to answer).
// (The zero-masked forms with every lane set: GCC 12's unmasked round,
// convert and shift start from an undefined vector, which
// -Wmaybe-uninitialized rejects.)
template <int kBias>
__attribute__((target("avx512f"))) inline __m512 ExpScaledAvx512(__m512 x) {
  constexpr __mmask16 kAll = 0xffff;
  const __m512 n = _mm512_maskz_roundscale_ps(kAll, _mm512_mul_ps(x, _mm512_set1_ps(kExpLog2e)),
                                              _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kExpLn2Hi), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kExpLn2Lo), r);
  __m512 p = _mm512_set1_ps(kExpPoly[0]);
  for (int k = 1; k < 7; ++k) p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kExpPoly[k]));
  __m512i e = _mm512_maskz_cvtps_epi32(kAll, n);
  if constexpr (kBias != 0) e = _mm512_add_epi32(e, _mm512_set1_epi32(kBias));
  const __m512i scale = _mm512_maskz_slli_epi32(kAll, e, 23);
  return _mm512_castsi512_ps(_mm512_add_epi32(_mm512_castps_si512(p), scale));
}
__attribute__((target("avx512f"))) inline __m512 ExpAvx512(__m512 x) {
  return ExpScaledAvx512<0>(x);
}
// exp(x) for x in (kExpZeroAtOrBelow, -kExpAvx2Range), as ExpTinyAvx2.
__attribute__((target("avx512f"))) inline __m512 ExpTinyAvx512(__m512 x) {
  return _mm512_mul_ps(ExpScaledAvx512<64>(x), _mm512_set1_ps(kExpTinyScale));
}

// log(u) + t, as LogPlusAvx2.
__attribute__((target("avx512f"))) inline __m512 LogPlusAvx512(__m512 x, __m512 t) {
  constexpr __mmask16 kAll = 0xffff;
  const __m512i ix = _mm512_sub_epi32(_mm512_castps_si512(x), _mm512_set1_epi32(kLogSqrtHalfBits));
  const __m512i e = _mm512_maskz_srai_epi32(kAll, ix, 23);
  const __m512 m = _mm512_castsi512_ps(_mm512_add_epi32(
      _mm512_and_si512(ix, _mm512_set1_epi32(0x007fffff)), _mm512_set1_epi32(kLogSqrtHalfBits)));
  const __m512 f = _mm512_sub_ps(m, _mm512_set1_ps(1.0f));
  __m512 p = _mm512_set1_ps(kLogPoly[7]);
  for (int k = 6; k >= 0; --k) p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(kLogPoly[k]));
  // (The fused multiply-adds of LogPlusAvx2.)
  const __m512 ef = _mm512_maskz_cvtepi32_ps(kAll, e);
  const __m512 ln2_hi = _mm512_set1_ps(kExpLn2Hi);
  const __m512 s = _mm512_fmadd_ps(ef, ln2_hi, f);
  const __m512 err = _mm512_add_ps(_mm512_fmsub_ps(ef, ln2_hi, s), f);
  const __m512 small = _mm512_fmadd_ps(ef, _mm512_set1_ps(kExpLn2Lo), t);
  const __m512 q =
      _mm512_fmadd_ps(_mm512_mul_ps(f, f), _mm512_fmsub_ps(f, p, _mm512_set1_ps(0.5f)), small);
  return _mm512_add_ps(s, _mm512_add_ps(err, q));
}
// log(x) for positive normal finite x, as LogAvx2.
__attribute__((target("avx512f"))) inline __m512 LogAvx512(__m512 x) {
  return LogPlusAvx512(x, _mm512_setzero_ps());
}
// log1p(x) as Log1pAvx2.
__attribute__((target("avx512f"))) inline __m512 Log1pAvx512(__m512 x) {
  const __m512 one = _mm512_set1_ps(1.0f);
  const __m512 u = _mm512_add_ps(one, x);
  const __m512 c = _mm512_sub_ps(_mm512_sub_ps(u, one), x);
  return LogPlusAvx512(u, _mm512_sub_ps(_mm512_setzero_ps(), _mm512_div_ps(c, u)));
}

}  // namespace elementwise
}  // namespace hlo

#endif  // __x86_64__
#endif  // HLO_EVAL_INTERP_VECTOR_MATH_AVX512_H_

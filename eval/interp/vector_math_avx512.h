// f32 exp on sixteen lanes with AVX-512: ExpAvx2's operations lane for
// lane (eval/interp/vector_math_avx2.h), so the same bits and accuracy
// (within 0.90 ulp on [-87, 87], where libmvec's AVX-512 expf is within
// 2.5), inlined into the loops that call it instead of libmvec's call per
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
__attribute__((target("avx512f"))) inline __m512 ExpAvx512(__m512 x) {
  constexpr __mmask16 kAll = 0xffff;
  const __m512 n = _mm512_maskz_roundscale_ps(kAll, _mm512_mul_ps(x, _mm512_set1_ps(kExpLog2e)),
                                              _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kExpLn2Hi), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kExpLn2Lo), r);
  __m512 p = _mm512_set1_ps(kExpPoly[0]);
  for (int k = 1; k < 7; ++k) p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kExpPoly[k]));
  const __m512i scale = _mm512_maskz_slli_epi32(kAll, _mm512_maskz_cvtps_epi32(kAll, n), 23);
  return _mm512_castsi512_ps(_mm512_add_epi32(_mm512_castps_si512(p), scale));
}

struct ExpAvx512Fn {
  __attribute__((target("avx512f"))) __m512 operator()(__m512 x) const { return ExpAvx512(x); }
};

}  // namespace elementwise
}  // namespace hlo

#endif  // __x86_64__
#endif  // HLO_EVAL_INTERP_VECTOR_MATH_AVX512_H_

// f32 and f64 remainder (C fmod: exact, with the dividend's sign and
// |r| < |y|) over whole arrays. fmodf cost 8-9 ns an element here, fmod
// 13 (glibc's loop over the exponent difference); on AVX-512 the common
// lanes are done by one f64 division, truncation and fma, where that is
// exact (float_remainder.cc), and the rest by fmod, so every element gets
// fmod's bits.
#ifndef HLO_EVAL_INTERP_FLOAT_REMAINDER_H_
#define HLO_EVAL_INTERP_FLOAT_REMAINDER_H_

#include <cstdint>

namespace hlo {

// out[k] = fmod(a[k], b[k]) for k < n; out may not alias a or b.
void RemainderFloats(const float* a, const float* b, float* out, int64_t n);
void RemainderDoubles(const double* a, const double* b, double* out, int64_t n);

namespace float_remainder_internal {
// The f64 path alone (where the CPU has AVX-512F and VL; false, nothing
// written, where it has not), and whether this CPU takes it (for tests).
bool RemainderFloatsAvx512(const float* a, const float* b, float* out, int64_t n);
bool RemainderDoublesAvx512(const double* a, const double* b, double* out, int64_t n);
bool UsesAvx512();
}  // namespace float_remainder_internal

}  // namespace hlo

#endif  // HLO_EVAL_INTERP_FLOAT_REMAINDER_H_

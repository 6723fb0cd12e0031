// 64-byte GCC vectors of float and double, with same-width integer masks:
// one AVX-512 register, two AVX2 or four SSE2 ones in each HLO_VECTOR_CLONES
// clone (eval/vector_clones.h), so loops written on them keep values in
// registers where GCC's vectoriser would spill an array of lanes. Each
// operation is the lanes' IEEE one, so every clone gives the same bits.
#ifndef HLO_EVAL_INTERP_VECTOR_LANES_H_
#define HLO_EVAL_INTERP_VECTOR_LANES_H_

#include <cstdint>

namespace hlo {

template <typename T>
struct Lanes;
template <>
struct Lanes<float> {
  typedef float V __attribute__((vector_size(64)));
  typedef int32_t M __attribute__((vector_size(64)));
};
template <>
struct Lanes<double> {
  typedef double V __attribute__((vector_size(64)));
  typedef int64_t M __attribute__((vector_size(64)));
};

#define HLO_LANES_INLINE inline __attribute__((always_inline))

// The helpers take and return 64-byte vectors, which GCC and clang warn
// would pass differently without AVX-512; they are always inlined into the
// clones, so no call passes one. (GCC warns at the end of the file, so the
// option is off for the rest of every file that includes this one.)
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wpsabi"
#elif defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

// m ? a : b lane by lane (m a compare's all-ones or zero lanes).
template <typename V, typename M>
HLO_LANES_INLINE V Select(const M& m, const V& a, const V& b) {
  return (V)(((M)a & m) | ((M)b & ~m));
}

}  // namespace hlo

#endif  // HLO_EVAL_INTERP_VECTOR_LANES_H_

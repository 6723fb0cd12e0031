// Counter-based generators of Salmon et al. ("Parallel random numbers: as
// easy as 1, 2, 3", SC 2011; the Random123 library), and the way XLA lays
// their outputs into rng-bit-generator results (xla/hlo/builder/lib/prng.cc
// and the RngBitGeneratorExpander), so that results and states match XLA's
// CPU backend bit for bit.
#ifndef HLO_EVAL_KERNELS_PRNG_H_
#define HLO_EVAL_KERNELS_PRNG_H_

#include <array>
#include <cstdint>

#include "absl/types/span.h"

namespace hlo {

// Threefry-2x32 with 20 rounds.
std::array<uint32_t, 2> Threefry2x32(std::array<uint32_t, 2> counter, std::array<uint32_t, 2> key);

// Philox-4x32 with 10 rounds.
std::array<uint32_t, 4> Philox4x32(std::array<uint32_t, 4> counter, std::array<uint32_t, 2> key);

// A 128-bit Philox counter: two 64-bit words, low first.
struct U128 {
  uint64_t lo = 0;
  uint64_t hi = 0;
};

// XLA's bit layouts. Each fills `out` (row-major, `dims` or `count`
// elements) and returns the advanced counter.
//
// Threefry, 32-bit words: the result is split in halves along its first
// even dimension (else its largest); element (.., 2h+w, ..) is word w of the
// block whose counter is state + the row-major index of (.., h, ..) in the
// halved shape. Rank 0 takes word 0 of counter state. The state advances by
// the halved shape's element count.
uint64_t ThreefryBits32(uint64_t key, uint64_t counter, absl::Span<const int64_t> dims,
                        uint32_t* out);
// Threefry, 64-bit words: element i is (word0 | word1 << 32) of the block
// with counter state + i; the state advances by the element count.
uint64_t ThreefryBits64(uint64_t key, uint64_t counter, int64_t count, uint64_t* out);
// Philox, 32-bit words: element 4i + j is word j of block counter + i.
U128 PhiloxBits32(uint64_t key, U128 counter, int64_t count, uint32_t* out);
// Philox, 64-bit words: element 2i + k is (word 2k | word 2k+1 << 32) of
// block counter + i.
U128 PhiloxBits64(uint64_t key, U128 counter, int64_t count, uint64_t* out);

}  // namespace hlo

#endif  // HLO_EVAL_KERNELS_PRNG_H_

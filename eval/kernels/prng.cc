#include "eval/kernels/prng.h"

#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "eval/runtime/parallel.h"

namespace hlo {
namespace {

// Philox-4x32's multipliers and Weyl key increments (Random123).
constexpr uint64_t kPhiloxM0 = 0xD2511F53u, kPhiloxM1 = 0xCD9E8D57u;
constexpr uint32_t kPhiloxW0 = 0x9E3779B9u, kPhiloxW1 = 0xBB67AE85u;

constexpr uint32_t RotateLeft(uint32_t v, int d) { return (v << d) | (v >> (32 - d)); }

std::array<uint32_t, 2> Split(uint64_t v) {
  return {static_cast<uint32_t>(v), static_cast<uint32_t>(v >> 32)};
}

uint64_t Join(uint32_t lo, uint32_t hi) { return lo | (uint64_t{hi} << 32); }

U128 Add(U128 a, uint64_t n) {
  U128 r{a.lo + n, a.hi};
  if (r.lo < a.lo) ++r.hi;  // carry, as XLA's Uint128AddUint64
  return r;
}

std::array<uint32_t, 4> Words(U128 v) {
  auto lo = Split(v.lo), hi = Split(v.hi);
  return {lo[0], lo[1], hi[0], hi[1]};
}

}  // namespace

std::array<uint32_t, 2> Threefry2x32(std::array<uint32_t, 2> x, std::array<uint32_t, 2> key) {
  static constexpr int kRotations[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  // The key schedule has a third word: the parity constant xor both keys.
  const uint32_t ks[3] = {key[0], key[1], 0x1BD11BDAu ^ key[0] ^ key[1]};
  x[0] += ks[0];
  x[1] += ks[1];
  // Five groups of four rounds, each followed by a key injection.
  for (uint32_t group = 0; group < 5; ++group) {
    const int* rot = kRotations + (group % 2) * 4;
    for (int r = 0; r < 4; ++r) {
      x[0] += x[1];
      x[1] = RotateLeft(x[1], rot[r]) ^ x[0];
    }
    x[0] += ks[(group + 1) % 3];
    x[1] += ks[(group + 2) % 3] + group + 1;
  }
  return x;
}

std::array<uint32_t, 4> Philox4x32(std::array<uint32_t, 4> x, std::array<uint32_t, 2> key) {
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = kPhiloxM0 * x[0], p1 = kPhiloxM1 * x[2];
    x = {static_cast<uint32_t>(p1 >> 32) ^ x[1] ^ key[0], static_cast<uint32_t>(p1),
         static_cast<uint32_t>(p0 >> 32) ^ x[3] ^ key[1], static_cast<uint32_t>(p0)};
    key[0] += kPhiloxW0;
    key[1] += kPhiloxW1;
  }
  return x;
}

uint64_t ThreefryBits32(uint64_t key, uint64_t counter, absl::Span<const int64_t> dims,
                        uint32_t* out) {
  const auto k = Split(key);
  if (dims.empty()) {
    out[0] = Threefry2x32(Split(counter), k)[0];
    return counter + 1;
  }
  // XLA's SplitShapeIntoHalves: the first even dimension, else the first
  // largest one.
  size_t d = dims.size();
  for (size_t i = 0; i < dims.size() && d == dims.size(); ++i) {
    if (dims[i] % 2 == 0) d = i;
  }
  if (d == dims.size()) {
    d = 0;
    for (size_t i = 1; i < dims.size(); ++i) {
      if (dims[i] > dims[d]) d = i;
    }
  }
  int64_t outer = 1, inner = 1;
  for (size_t i = 0; i < d; ++i) outer *= dims[i];
  for (size_t i = d + 1; i < dims.size(); ++i) inner *= dims[i];
  const int64_t full = dims[d], half = (full + 1) / 2;
  uint64_t block = 0;  // row-major index in the halved shape
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t h = 0; h < half; ++h) {
      uint32_t* row = out + (o * full + 2 * h) * inner;
      const bool second = 2 * h + 1 < full;
      for (int64_t i = 0; i < inner; ++i, ++block) {
        auto w = Threefry2x32(Split(counter + block), k);
        row[i] = w[0];
        if (second) row[inner + i] = w[1];
      }
    }
  }
  return counter + block;
}

uint64_t ThreefryBits64(uint64_t key, uint64_t counter, int64_t count, uint64_t* out) {
  const auto k = Split(key);
  for (int64_t i = 0; i < count; ++i) {
    auto w = Threefry2x32(Split(counter + static_cast<uint64_t>(i)), k);
    out[i] = Join(w[0], w[1]);
  }
  return counter + static_cast<uint64_t>(count);
}

namespace {

// Blocks of Philox4x32-10 side by side, each round on every block at
// once: one block at a time ran at about 3 ns a word (GCC does not
// vectorise the 32x32 -> 64-bit products of the plain loops).
constexpr int64_t kPhiloxLanes = 16;

#if defined(__x86_64__)
// Each word's 16 blocks in two registers of 64-bit lanes, whose low halves
// multiply by vpmuludq.
__attribute__((target("avx512f"))) void PhiloxLanesAvx512(U128 first, uint32_t k0, uint32_t k1,
                                                          uint32_t* out) {
  // (maskz forms throughout: the plain ones start from an undefined
  // vector, which GCC 12's -Wuninitialized rejects.)
  const __m512i low = _mm512_set1_epi64(0xffffffff);
  __m512i x[4][2];
  for (int h = 0; h < 2; ++h) {
    // Counters first + 8h + i; the high word carries where the low wraps.
    const __m512i base = _mm512_set1_epi64(static_cast<int64_t>(first.lo));
    const __m512i lanes =
        _mm512_add_epi64(_mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0), _mm512_set1_epi64(8 * h));
    const __m512i lo = _mm512_add_epi64(base, lanes);
    const __mmask8 wrapped = _mm512_cmp_epu64_mask(lo, base, _MM_CMPINT_LT);
    const __m512i hi = _mm512_mask_add_epi64(
        _mm512_set1_epi64(static_cast<int64_t>(first.hi)), wrapped,
        _mm512_set1_epi64(static_cast<int64_t>(first.hi)), _mm512_set1_epi64(1));
    x[0][h] = _mm512_and_si512(lo, low);
    x[1][h] = _mm512_maskz_srli_epi64(0xff, lo, 32);
    x[2][h] = _mm512_and_si512(hi, low);
    x[3][h] = _mm512_maskz_srli_epi64(0xff, hi, 32);
  }
  const __m512i m0 = _mm512_set1_epi64(kPhiloxM0), m1 = _mm512_set1_epi64(kPhiloxM1);
  for (int round = 0; round < 10; ++round) {
    const __m512i key0 = _mm512_set1_epi64(k0), key1 = _mm512_set1_epi64(k1);
    for (int h = 0; h < 2; ++h) {
      const __m512i p0 = _mm512_maskz_mul_epu32(0xff, x[0][h], m0);
      const __m512i p1 = _mm512_maskz_mul_epu32(0xff, x[2][h], m1);
      x[0][h] =
          _mm512_xor_si512(_mm512_xor_si512(_mm512_maskz_srli_epi64(0xff, p1, 32), x[1][h]), key0);
      x[1][h] = _mm512_and_si512(p1, low);
      x[2][h] =
          _mm512_xor_si512(_mm512_xor_si512(_mm512_maskz_srli_epi64(0xff, p0, 32), x[3][h]), key1);
      x[3][h] = _mm512_and_si512(p0, low);
    }
    k0 += kPhiloxW0;
    k1 += kPhiloxW1;
  }
  // Block i's words (0, 1) and (2, 3) as 64-bit pairs, then the pairs of
  // blocks in order: 16 bytes a block.
  const __m512i first_half = _mm512_set_epi64(11, 3, 10, 2, 9, 1, 8, 0);
  const __m512i second_half = _mm512_set_epi64(15, 7, 14, 6, 13, 5, 12, 4);
  for (int h = 0; h < 2; ++h) {
    const __m512i w01 = _mm512_or_si512(x[0][h], _mm512_maskz_slli_epi64(0xff, x[1][h], 32));
    const __m512i w23 = _mm512_or_si512(x[2][h], _mm512_maskz_slli_epi64(0xff, x[3][h], 32));
    _mm512_storeu_si512(out + 32 * h, _mm512_maskz_permutex2var_epi64(0xff, w01, first_half, w23));
    _mm512_storeu_si512(out + 32 * h + 16,
                        _mm512_maskz_permutex2var_epi64(0xff, w01, second_half, w23));
  }
}
#endif

// Words 0..3 of blocks first + l, l < kPhiloxLanes, to out[4 l + j].
void PhiloxLanes(U128 first, uint32_t k0, uint32_t k1, uint32_t* out) {
#if defined(__x86_64__)
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  if (avx512) return PhiloxLanesAvx512(first, k0, k1, out);
#endif
  for (int64_t l = 0; l < kPhiloxLanes; ++l) {
    const std::array<uint32_t, 4> w =
        Philox4x32(Words(Add(first, static_cast<uint64_t>(l))), {k0, k1});
    std::memcpy(out + 4 * l, w.data(), sizeof(w));
  }
}

// Groups of blocks a part takes at least when they are cut across the
// cores (each block's words follow from its counter alone).
constexpr int64_t kPhiloxMinGroupsPerPart = 1024;

// The whole groups of kPhiloxLanes blocks among the first `blocks` from
// `counter`, their 16 bytes a block from `out` on; returns how many blocks.
int64_t PhiloxWholeGroups(std::array<uint32_t, 2> key, U128 counter, int64_t blocks, void* out) {
  const int64_t groups = blocks / kPhiloxLanes;
  ParallelRows(groups, kPhiloxMinGroupsPerPart, [&](int64_t begin, int64_t end) {
    alignas(64) uint32_t words[4 * kPhiloxLanes];
    for (int64_t g = begin; g < end; ++g) {
      const int64_t b = g * kPhiloxLanes;
      PhiloxLanes(Add(counter, static_cast<uint64_t>(b)), key[0], key[1], words);
      std::memcpy(static_cast<char*>(out) + 16 * b, words, sizeof(words));
    }
  });
  return groups * kPhiloxLanes;
}

}  // namespace

U128 PhiloxBits32(uint64_t key, U128 counter, int64_t count, uint32_t* out) {
  const auto k = Split(key);
  const int64_t blocks = (count + 3) / 4;
  for (int64_t b = PhiloxWholeGroups(k, counter, count / 4, out); b < blocks; ++b) {
    auto w = Philox4x32(Words(Add(counter, static_cast<uint64_t>(b))), k);
    for (int64_t j = 0; j < 4 && 4 * b + j < count; ++j) out[4 * b + j] = w[j];
  }
  return Add(counter, static_cast<uint64_t>(blocks));
}

U128 PhiloxBits64(uint64_t key, U128 counter, int64_t count, uint64_t* out) {
  const auto k = Split(key);
  const int64_t blocks = (count + 1) / 2;
  // (Whole groups' bytes: words 0 and 1, then 2 and 3, low word first.)
  for (int64_t b = PhiloxWholeGroups(k, counter, count / 2, out); b < blocks; ++b) {
    auto w = Philox4x32(Words(Add(counter, static_cast<uint64_t>(b))), k);
    out[2 * b] = Join(w[0], w[1]);
    if (2 * b + 1 < count) out[2 * b + 1] = Join(w[2], w[3]);
  }
  return Add(counter, static_cast<uint64_t>(blocks));
}

}  // namespace hlo

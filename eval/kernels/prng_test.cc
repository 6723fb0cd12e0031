// Threefry-2x32-20 and Philox-4x32-10 against the Random123 known-answer
// vectors (tests/kat_vectors of the Random123 distribution: counter words,
// key words, expected words), and XLA's layouts of their outputs.
#include "eval/kernels/prng.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

namespace hlo {
namespace {

using A2 = std::array<uint32_t, 2>;
using A4 = std::array<uint32_t, 4>;

TEST_CASE("prng: threefry2x32_20 known answers", "[prng]") {
  CHECK(Threefry2x32({0, 0}, {0, 0}) == A2{0x6b200159, 0x99ba4efe});
  CHECK(Threefry2x32({0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}) ==
        A2{0x1cb996fc, 0xbb002be7});
  CHECK(Threefry2x32({0x243f6a88, 0x85a308d3}, {0x13198a2e, 0x03707344}) ==
        A2{0xc4923a9c, 0x483df7a0});
}

TEST_CASE("prng: philox4x32_10 known answers", "[prng]") {
  CHECK(Philox4x32({0, 0, 0, 0}, {0, 0}) == A4{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8});
  CHECK(Philox4x32({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}) ==
        A4{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd});
  CHECK(Philox4x32({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}) ==
        A4{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1});
}

TEST_CASE("prng: threefry 64-bit words are word0 | word1 << 32 of counter + i", "[prng]") {
  // Key and counter 0 give the zero KAT block; the key is split low word
  // first, so key 0x0370734413198a2e with counter 0x85a308d3243f6a88 is the
  // pi KAT.
  uint64_t out[2];
  CHECK(ThreefryBits64(0, 0, 1, out) == 1);
  CHECK(out[0] == 0x99ba4efe6b200159ull);
  CHECK(ThreefryBits64(0x0370734413198a2eull, 0x85a308d3243f6a88ull, 1, out) ==
        0x85a308d3243f6a89ull);
  CHECK(out[0] == 0x483df7a0c4923a9cull);
  // Element 1 is the block of counter + 1.
  ThreefryBits64(7, 41, 2, out);
  auto w = Threefry2x32({42, 0}, {7, 0});
  CHECK(out[1] == (w[0] | (uint64_t{w[1]} << 32)));
}

TEST_CASE("prng: threefry 32-bit words pair up along the first even dimension", "[prng]") {
  auto b0 = Threefry2x32({0, 0}, {0, 0}), b1 = Threefry2x32({1, 0}, {0, 0}),
       b2 = Threefry2x32({2, 0}, {0, 0});
  // [3,2]: dimension 1 is even; row r holds both words of block r.
  std::vector<uint32_t> out(6);
  CHECK(ThreefryBits32(0, 0, {3, 2}, out.data()) == 3);
  CHECK(out == std::vector<uint32_t>{b0[0], b0[1], b1[0], b1[1], b2[0], b2[1]});
  // [2,3]: dimension 0 is even; the halved shape is [1,1,3], so column c
  // holds block c, word 0 in row 0 and word 1 in row 1.
  CHECK(ThreefryBits32(0, 0, {2, 3}, out.data()) == 3);
  CHECK(out == std::vector<uint32_t>{b0[0], b1[0], b2[0], b0[1], b1[1], b2[1]});
  // [3]: no even dimension, the largest is split into ceil(3/2) = 2 blocks;
  // the last word of block 1 is dropped.
  out.assign(3, 0);
  CHECK(ThreefryBits32(0, 0, {3}, out.data()) == 2);
  CHECK(out == std::vector<uint32_t>{b0[0], b0[1], b1[0]});
  // Rank 0: word 0 of the first block.
  uint32_t s;
  CHECK(ThreefryBits32(0, 0, {}, &s) == 1);
  CHECK(s == 0x6b200159u);
}

TEST_CASE("prng: philox words go round-robin over blocks; the counter carries", "[prng]") {
  // Counter 0, key 0 is the zero KAT block.
  std::vector<uint32_t> out(5);
  U128 next = PhiloxBits32(0, {0, 0}, 5, out.data());
  CHECK(next.lo == 2);
  CHECK(next.hi == 0);
  CHECK(out[0] == 0x6627e8d5u);
  CHECK(out[3] == 0x9b00dbd8u);
  CHECK(out[4] == Philox4x32({1, 0, 0, 0}, {0, 0})[0]);
  // The pi KAT: counter words low first, key 0x299f31d0a4093822.
  next = PhiloxBits32(0x299f31d0a4093822ull, {0x85a308d3243f6a88ull, 0x0370734413198a2eull}, 4,
                      out.data());
  CHECK(out[0] == 0xd16cfe09u);
  CHECK(out[3] == 0x24126ea1u);
  CHECK(next.lo == 0x85a308d3243f6a89ull);
  // All-ones counter + 1 carries into the high word.
  out.resize(8);
  next = PhiloxBits32(0xffffffffffffffffull, {~0ull, ~0ull}, 8, out.data());
  CHECK(out[0] == 0x408f276du);
  CHECK(out[4] == Philox4x32({0, 0, 0, 0}, {0xffffffff, 0xffffffff})[0]);
  CHECK(next.lo == 1);
  CHECK(next.hi == 0);
  // 64-bit: element 2i + k joins words 2k and 2k + 1 of block i.
  uint64_t w[3];
  next = PhiloxBits64(0, {0, 0}, 3, w);
  CHECK(w[0] == 0xe169c58d6627e8d5ull);
  CHECK(w[1] == 0x9b00dbd8bc57ac4cull);
  auto b1 = Philox4x32({1, 0, 0, 0}, {0, 0});
  CHECK(w[2] == (b1[0] | (uint64_t{b1[1]} << 32)));
  CHECK(next.lo == 2);
}

TEST_CASE("prng: philox's blocks side by side equal Philox4x32 block by block", "[prng]") {
  // Counts past several groups of 16 blocks plus a tail, from counters whose
  // low word wraps inside a group (the carry into the high word) and at
  // neither end; every word against the block function checked by the KATs
  // above, for 32- and 64-bit words.
  const uint64_t key = 0x299f31d0a4093822ull;
  for (U128 counter : {U128{~0ull - 20, 5}, U128{~0ull - 15, ~0ull}, U128{12345, 0}}) {
    for (int64_t count : {int64_t{16 * 4 * 3 + 7}, int64_t{16 * 4 * 40}}) {
      INFO("counter " << counter.lo << " " << counter.hi << " count " << count);
      auto block = [&](int64_t b) {
        U128 c{counter.lo + static_cast<uint64_t>(b), counter.hi};
        if (c.lo < counter.lo) ++c.hi;
        return Philox4x32({static_cast<uint32_t>(c.lo), static_cast<uint32_t>(c.lo >> 32),
                           static_cast<uint32_t>(c.hi), static_cast<uint32_t>(c.hi >> 32)},
                          {static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32)});
      };
      std::vector<uint32_t> w32(count);
      PhiloxBits32(key, counter, count, w32.data());
      int64_t wrong = 0;
      for (int64_t i = 0; i < count; ++i) wrong += w32[i] != block(i / 4)[i % 4];
      CHECK(wrong == 0);
      std::vector<uint64_t> w64(count / 2);
      PhiloxBits64(key, counter, count / 2, w64.data());
      wrong = 0;
      for (int64_t i = 0; i < count / 2; ++i) {
        const auto b = block(i / 2);
        wrong += w64[i] != (b[2 * (i % 2)] | (uint64_t{b[2 * (i % 2) + 1]} << 32));
      }
      CHECK(wrong == 0);
    }
  }
}

}  // namespace
}  // namespace hlo

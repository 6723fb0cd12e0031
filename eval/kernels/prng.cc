#include "eval/kernels/prng.h"

namespace hlo {
namespace {

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
  constexpr uint64_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
  constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = kM0 * x[0], p1 = kM1 * x[2];
    x = {static_cast<uint32_t>(p1 >> 32) ^ x[1] ^ key[0], static_cast<uint32_t>(p1),
         static_cast<uint32_t>(p0 >> 32) ^ x[3] ^ key[1], static_cast<uint32_t>(p0)};
    key[0] += kW0;
    key[1] += kW1;
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

U128 PhiloxBits32(uint64_t key, U128 counter, int64_t count, uint32_t* out) {
  const auto k = Split(key);
  const int64_t blocks = (count + 3) / 4;
  for (int64_t b = 0; b < blocks; ++b) {
    auto w = Philox4x32(Words(Add(counter, static_cast<uint64_t>(b))), k);
    for (int64_t j = 0; j < 4 && 4 * b + j < count; ++j) out[4 * b + j] = w[j];
  }
  return Add(counter, static_cast<uint64_t>(blocks));
}

U128 PhiloxBits64(uint64_t key, U128 counter, int64_t count, uint64_t* out) {
  const auto k = Split(key);
  const int64_t blocks = (count + 1) / 2;
  for (int64_t b = 0; b < blocks; ++b) {
    auto w = Philox4x32(Words(Add(counter, static_cast<uint64_t>(b))), k);
    out[2 * b] = Join(w[0], w[1]);
    if (2 * b + 1 < count) out[2 * b + 1] = Join(w[2], w[3]);
  }
  return Add(counter, static_cast<uint64_t>(blocks));
}

}  // namespace hlo

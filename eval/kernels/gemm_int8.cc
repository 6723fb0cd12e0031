// 8-bit integer products on oneDNN's VNNI gemm or AMX matmul (see gemm_int8.h).
#include "eval/kernels/gemm_int8.h"

#include <algorithm>
#include <atomic>
#include <climits>

#include "eval/kernels/gemm_onednn.h"
#include "eval/runtime/parallel.h"
#include "eval/runtime/scratch_buffer.h"

namespace hlo {
namespace gemm {
namespace {

bool IsByteInt(PrimitiveType t) { return t == PrimitiveType::kS8 || t == PrimitiveType::kU8; }

int64_t LargestMagnitude(PrimitiveType t) { return t == PrimitiveType::kU8 ? 255 : 128; }

// The result types stored here: the eight two's-complement widths.
bool IsStoredResult(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::kS8:
    case PrimitiveType::kS16:
    case PrimitiveType::kS32:
    case PrimitiveType::kS64:
    case PrimitiveType::kU8:
    case PrimitiveType::kU16:
    case PrimitiveType::kU32:
    case PrimitiveType::kU64:
      return true;
    default:
      return false;
  }
}

// One product as its parts see it: A and the s8 B oneDNN takes, the s32
// sums (in the result where it is s32 or u32, else a scratch), the amount
// added to each row (a shifted u8 B), and where the result goes.
struct Int8Product {
  bool a_unsigned, ta, tb;
  int64_t k;
  const uint8_t* a;
  int64_t lda;
  const int8_t* b;
  int64_t ldb;
  int32_t* sums;
  int64_t ld_sums;
  const uint32_t* row_add;  // null: nothing to add
  PrimitiveType result;
  void* c;
  int64_t ldc;
};

// Rows [r0, r1) and columns [c0, c1) of the result from its s32 sums: the
// row's addend added modulo 2^32, then truncated to the result's width or,
// past 32 bits, sign-extended (the sum is then the true one).
template <typename Out>
void StoreBlock(const Int8Product& p, int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
  for (int64_t i = r0; i < r1; ++i) {
    const uint32_t add = p.row_add != nullptr ? p.row_add[i] : 0;
    const int32_t* from = p.sums + i * p.ld_sums;
    Out* to = static_cast<Out*>(p.c) + i * p.ldc;
    for (int64_t j = c0; j < c1; ++j) {
      const uint32_t v = static_cast<uint32_t>(from[j]) + add;
      if constexpr (sizeof(Out) == 8) {
        to[j] = static_cast<Out>(static_cast<int64_t>(static_cast<int32_t>(v)));
      } else {
        to[j] = static_cast<Out>(v);
      }
    }
  }
}

void Store(const Int8Product& p, int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
  const bool in_place = p.sums == p.c;
  if (in_place && p.row_add == nullptr) return;
  switch (p.result) {
    case PrimitiveType::kS8:
    case PrimitiveType::kU8:
      return StoreBlock<uint8_t>(p, r0, r1, c0, c1);
    case PrimitiveType::kS16:
    case PrimitiveType::kU16:
      return StoreBlock<uint16_t>(p, r0, r1, c0, c1);
    case PrimitiveType::kS64:
    case PrimitiveType::kU64:
      return StoreBlock<uint64_t>(p, r0, r1, c0, c1);
    default:  // s32, u32: the same bits
      return StoreBlock<uint32_t>(p, r0, r1, c0, c1);
  }
}

// Rows [r0, r1) and columns [c0, c1) of C.
bool RunBlock(const Int8Product& p, int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
  const uint8_t* a = p.ta ? p.a + r0 : p.a + r0 * p.lda;
  const int8_t* b = p.tb ? p.b + c0 * p.ldb : p.b + c0;
  if (!OnednnInt8Gemm(p.a_unsigned, p.ta, p.tb, r1 - r0, c1 - c0, p.k, a, p.lda, b, p.ldb,
                      p.sums + r0 * p.ld_sums + c0, p.ld_sums)) {
    return false;
  }
  Store(p, r0, r1, c0, c1);
  return true;
}

// 128 times each row's sum of op(A) (m rows of k), modulo 2^32.
void RowAddends(const Int8Product& p, int64_t m, uint32_t* add) {
  auto element = [&](int64_t i, int64_t kk) -> int32_t {
    const uint8_t v = p.ta ? p.a[kk * p.lda + i] : p.a[i * p.lda + kk];
    return p.a_unsigned ? v : static_cast<int8_t>(v);
  };
  for (int64_t i = 0; i < m; ++i) {
    int32_t sum = 0;  // |sum| <= 255 k < 2^31
    for (int64_t kk = 0; kk < p.k; ++kk) sum += element(i, kk);
    add[i] = static_cast<uint32_t>(sum) * 128u;
  }
}

// Parts start at multiples of this many rows (columns).
constexpr int64_t kSplitUnit = 64;

}  // namespace

bool Int8Gemm(PrimitiveType a_type, PrimitiveType b_type, PrimitiveType result, bool ta, bool tb,
              int64_t m, int64_t n, int64_t k, const void* a, int64_t lda, const void* b,
              int64_t ldb, void* c, int64_t ldc, int64_t calls) {
  if (!IsByteInt(a_type) || !IsByteInt(b_type) || !IsStoredResult(result)) return false;
  if (m < 1 || n < 1 || k < 1 || k > kInt8MaxK) return false;
  if (BitWidth(result) > 32 &&
      k * LargestMagnitude(a_type) * LargestMagnitude(b_type) > INT32_MAX) {
    return false;
  }
  if (static_cast<double>(m) * n * k * calls < static_cast<double>(kOnednnMinProduct)) {
    return false;
  }
  if (!OnednnInt8Available()) return false;
  Int8Product p{a_type == PrimitiveType::kU8,
                ta,
                tb,
                k,
                static_cast<const uint8_t*>(a),
                lda,
                static_cast<const int8_t*>(b),
                ldb,
                nullptr,
                0,
                nullptr,
                result,
                c,
                ldc};
  // A u8 B as s8: b - 128 (its top bit flipped), in its own layout.
  ScratchBuffer<int8_t> shifted_b;
  ScratchBuffer<uint32_t> row_add;
  if (b_type == PrimitiveType::kU8) {
    const int64_t rows = tb ? n : k, cols = tb ? k : n;
    if (!shifted_b.Reset(rows * cols).ok() || !row_add.Reset(m).ok()) return false;
    const uint8_t* from = static_cast<const uint8_t*>(b);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t j = 0; j < cols; ++j) {
        shifted_b.data()[r * cols + j] = static_cast<int8_t>(from[r * ldb + j] ^ 0x80u);
      }
    }
    p.b = shifted_b.data();
    p.ldb = cols;
    RowAddends(p, m, row_add.data());
    p.row_add = row_add.data();
  }
  ScratchBuffer<int32_t> sums;
  if (BitWidth(result) == 32) {
    p.sums = static_cast<int32_t*>(c);
    p.ld_sums = ldc;
  } else {
    if (!sums.Reset(m * n).ok()) return false;
    p.sums = sums.data();
    p.ld_sums = n;
  }
  // Split C's rows across the cores, or its columns where it has few rows.
  const bool by_rows = m >= 2 * kSplitUnit || n < 2 * kSplitUnit;
  const int64_t extent = by_rows ? m : n;
  const int64_t units = (extent + kSplitUnit - 1) / kSplitUnit;
  const int64_t parts = std::min(CoreCount(), units);
  std::atomic<bool> ok{true};
  ParallelRows(parts, 1, [&](int64_t begin, int64_t end) {
    for (int64_t part = begin; part < end; ++part) {
      const int64_t lo = std::min(extent, units * part / parts * kSplitUnit);
      const int64_t hi = std::min(extent, units * (part + 1) / parts * kSplitUnit);
      if (hi <= lo) continue;
      const bool done = by_rows ? RunBlock(p, lo, hi, 0, n) : RunBlock(p, 0, m, lo, hi);
      if (!done) ok = false;
    }
  });
  return ok;
}

}  // namespace gemm
}  // namespace hlo

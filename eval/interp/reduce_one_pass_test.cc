// Column reductions in one pass (eval/interp/reduce_one_pass.h) against
// their stated order, bit for bit: each column folds a tree over the rows
// whose leaves of at most 32 rows go row by row, a node of more rows
// splitting at lo + ceil((hi - lo) / 2), left op right, then init op the
// tree. Over the operand in memory and made by a source, with widths that
// leave register-block tails and span several pieces, leaves of one row,
// few rows over columns the cores split,
// NaNs for maximum, and sums whose order shows in their bits.
#include "eval/interp/reduce_one_pass.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "ir/literal.h"

namespace hlo {
namespace {

template <typename T>
T Fold(Opcode op, T a, T b) {
  if (op == Opcode::kAdd) return a + b;
  // XLA's maximum: NaN wins.
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<T>::quiet_NaN();
  return a > b ? a : b;
}

template <typename T>
T ColumnTree(Opcode op, const std::vector<T>& x, int64_t cols, int64_t col, int64_t lo,
             int64_t hi) {
  if (hi - lo <= 32) {
    T acc = x[lo * cols + col];
    for (int64_t r = lo + 1; r < hi; ++r) acc = Fold(op, acc, x[r * cols + col]);
    return acc;
  }
  const int64_t mid = lo + (hi - lo + 1) / 2;
  return Fold(op, ColumnTree(op, x, cols, col, lo, mid), ColumnTree(op, x, cols, col, mid, hi));
}

template <typename T>
class ArraySource final : public OnePassSource {
 public:
  explicit ArraySource(const std::vector<T>& x) : x_(x) {}
  absl::Status Prepare(int64_t) override { return absl::OkStatus(); }
  absl::Status Fill(int64_t, int64_t first, int64_t n, void* dst) override {
    std::memcpy(dst, x_.data() + first, n * sizeof(T));
    return absl::OkStatus();
  }

 private:
  const std::vector<T>& x_;
};

template <typename T>
void CheckColumns(PrimitiveType type, Opcode op, int64_t rows, int64_t cols, bool from_source) {
  std::mt19937 rng(static_cast<uint32_t>(rows * 131 + cols));
  std::uniform_real_distribution<double> mantissa(-1, 1);
  std::uniform_int_distribution<int> exponent(-20, 20);
  std::vector<T> x(rows * cols);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<T>(std::ldexp(mantissa(rng), exponent(rng)));
    if (op == Opcode::kMaximum && i % 97 == 13) x[i] = std::numeric_limits<T>::quiet_NaN();
  }
  absl::StatusOr<Literal> operand = Literal::Create(Shape::Array(type, {rows * cols}));
  absl::StatusOr<Literal> init = Literal::Create(Shape::Array(type, {}));
  absl::StatusOr<Literal> out = Literal::Create(Shape::Array(type, {cols}));
  REQUIRE((operand.ok() && init.ok() && out.ok()));
  std::memcpy(operand->typed<T>(), x.data(), x.size() * sizeof(T));
  const T init_value = op == Opcode::kAdd ? T(0.5) : -std::numeric_limits<T>::infinity();
  init->typed<T>()[0] = init_value;
  const OnePassReduce reduce{ReduceAxes::kColumns, op, &*init, &*out};
  if (from_source) {
    ArraySource<T> source(x);
    REQUIRE(ReduceFromSource(source, type, rows, cols, {reduce}).ok());
  } else {
    REQUIRE(ReduceInOnePass(*operand, rows, cols, {reduce}));
  }
  for (int64_t c = 0; c < cols; ++c) {
    const T want = Fold(op, init_value, ColumnTree(op, x, cols, c, 0, rows));
    const T got = out->typed<T>()[c];
    INFO("rows " << rows << " cols " << cols << " column " << c << " source " << from_source);
    CHECK(std::memcmp(&want, &got, sizeof(T)) == 0);
  }
}

TEST_CASE("one-pass column reductions fold the stated tree, bit for bit", "[reduce_one_pass]") {
  for (bool from_source : {false, true}) {
    for (int64_t rows : {1, 2, 31, 33, 100, 257, 4099}) {
      for (int64_t cols : {1, 7, 32, 45, 64, 70, 1100}) {
        CheckColumns<float>(PrimitiveType::kF32, Opcode::kAdd, rows, cols, from_source);
        CheckColumns<double>(PrimitiveType::kF64, Opcode::kAdd, rows, cols, from_source);
        CheckColumns<float>(PrimitiveType::kF32, Opcode::kMaximum, rows, cols, from_source);
      }
    }
    // A few long rows (XLA:GPU's split-K partial products): one leaf per
    // part, its outputs written with init folded in, over columns split
    // among the cores where there are several.
    for (int64_t rows : {2, 8, 32}) {
      CheckColumns<float>(PrimitiveType::kF32, Opcode::kAdd, rows, 40000 + 13, from_source);
      CheckColumns<double>(PrimitiveType::kF64, Opcode::kAdd, rows, 40000 + 13, from_source);
      CheckColumns<float>(PrimitiveType::kF32, Opcode::kMaximum, rows, 40000 + 13, from_source);
    }
  }
}

}  // namespace
}  // namespace hlo

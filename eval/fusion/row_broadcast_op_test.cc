// A row-broadcast op with a unary op after (eval/fusion/row_broadcast_op.h):
// exp(x - v[r]), which runs as one pass, gives the bits of the subtract and
// the exp run as separate elementwise kernels, on every path of the exp
// (in range, results rounding to zero or subnormal, overflow, NaN, ±inf) and
// in place; the other ops keep theirs.
#include "eval/fusion/row_broadcast_op.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "eval/interp/elementwise_ops.h"

namespace hlo {
namespace {

constexpr int64_t kRows = 9, kInner = 3001;  // a tail past the vectors and the chunks

Value F32Array(std::vector<int64_t> dims, const std::vector<float>& data) {
  absl::StatusOr<Literal> lit = Literal::Create(Shape::Array(PrimitiveType::kF32, dims));
  REQUIRE(lit.ok());
  std::memcpy(lit->typed<float>(), data.data(), data.size() * sizeof(float));
  return Value::FromLiteral(*std::move(lit));
}

// x spans every range of exp(x - v): v[r] = r, x - v in [-130, 100], with
// NaN, ±inf and values at the edges of the ranges sprinkled in.
std::vector<float> Operand() {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> d(-130.0f, 100.0f);
  std::vector<float> x(kRows * kInner);
  const float special[] = {std::numeric_limits<float>::quiet_NaN(),
                           std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity(),
                           -0x1.9fe36ap+6f,
                           0x1.62e43p+6f,
                           -0x1.5d589ep+6f,
                           -90.0f,
                           0.0f};
  for (int64_t r = 0; r < kRows; ++r) {
    for (int64_t c = 0; c < kInner; ++c) {
      x[r * kInner + c] = (c % 97 < 8 ? special[c % 97] : d(rng)) + static_cast<float>(r);
    }
  }
  return x;
}

// The two passes: f32 x - v (or v - x), then the elementwise kernel.
std::vector<float> TwoPasses(const std::vector<float>& x, bool row_first, Opcode then) {
  std::vector<float> diff(x.size()), out(x.size());
  for (int64_t r = 0; r < kRows; ++r) {
    for (int64_t c = 0; c < kInner; ++c) {
      const float xv = x[r * kInner + c], v = static_cast<float>(r);
      diff[r * kInner + c] = row_first ? v - xv : xv - v;
    }
  }
  REQUIRE(elementwise::UnaryFloatKernel<float>(then, diff.data(), out.data(),
                                               static_cast<int64_t>(x.size())));
  return out;
}

bool SameBits(const float* a, const float* b, size_t n) {
  return std::memcmp(a, b, n * sizeof(float)) == 0;
}

TEST_CASE("row broadcast op: exp(x - v) in one pass has the two passes' bits", "[fusion][exp]") {
  const std::vector<float> x = Operand();
  std::vector<float> v(kRows);
  for (int64_t r = 0; r < kRows; ++r) v[r] = static_cast<float>(r);
  for (bool row_first : {false, true}) {
    for (Opcode then : {Opcode::kExp, Opcode::kTanh}) {
      for (bool reuse : {false, true}) {  // a fresh result, or in x's own buffer
        RowBroadcastOp op;
        op.op = Opcode::kSubtract;
        op.row_first = row_first;
        op.x_input = 0;
        op.row_input = 1;
        op.rows = kRows;
        op.inner = kInner;
        op.then = then;
        Value xv = F32Array({kRows, kInner}, x), sv = F32Array({kRows}, v);
        const Value* inputs[] = {&xv, &sv};
        absl::StatusOr<Value> out = RunRowBroadcastOp(
            op, Shape::Array(PrimitiveType::kF32, {kRows, kInner}), inputs, {reuse, false});
        REQUIRE(out.ok());
        const std::vector<float> want = TwoPasses(x, row_first, then);
        INFO("row_first " << row_first << " then " << static_cast<int>(then) << " reuse " << reuse);
        CHECK(SameBits(out->array().typed<float>(), want.data(), want.size()));
      }
    }
  }
}

TEST_CASE("row broadcast op: exp(x - v) follows exp's definition at its edges", "[fusion][exp]") {
  // Independent of the kernels: results against long double exp of the f32
  // difference, within libmvec's documented bound of 4 ulp (glibc's manual;
  // 1.1 ulp seen here); zero, subnormal and infinite results where IEEE puts
  // them.
  const std::vector<float> x = Operand();
  std::vector<float> v(kRows);
  for (int64_t r = 0; r < kRows; ++r) v[r] = static_cast<float>(r);
  RowBroadcastOp op;
  op.op = Opcode::kSubtract;
  op.rows = kRows;
  op.inner = kInner;
  op.x_input = 0;
  op.row_input = 1;
  op.then = Opcode::kExp;
  Value xv = F32Array({kRows, kInner}, x), sv = F32Array({kRows}, v);
  const Value* inputs[] = {&xv, &sv};
  absl::StatusOr<Value> out = RunRowBroadcastOp(
      op, Shape::Array(PrimitiveType::kF32, {kRows, kInner}), inputs, {false, false});
  REQUIRE(out.ok());
  const float* got = out->array().typed<float>();
  for (int64_t i = 0; i < kRows * kInner; ++i) {
    const float d = x[i] - v[i / kInner];
    const long double want = std::exp(static_cast<long double>(d));
    if (std::isnan(d)) {
      CHECK(std::isnan(got[i]));
    } else if (want > std::numeric_limits<float>::max()) {
      CHECK(got[i] == std::numeric_limits<float>::infinity());
    } else {
      const long double ulp =
          std::nextafter(static_cast<float>(want), std::numeric_limits<float>::infinity()) -
          static_cast<float>(want);
      INFO("x - v = " << d);
      CHECK(std::fabs(got[i] - want) <= 4 * ulp + std::numeric_limits<float>::denorm_min());
    }
  }
}

}  // namespace
}  // namespace hlo

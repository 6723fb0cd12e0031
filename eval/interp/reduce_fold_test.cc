// Float max/min row folds (FoldRow, eval/interp/reduce_fold.h) against
// the values XLA's maximum and minimum give, whatever the order: a NaN
// anywhere gives NaN; otherwise the largest (smallest) value, and where
// that is a zero, +0 for maximum if the row holds one (else -0), -0 for
// minimum if the row holds one (else +0). Rows of every length to 200
// (the vector loop takes 32 lanes at a time from 64), each with zeros of
// both signs, infinities and now and then a NaN at a random place.
#include "eval/interp/reduce_fold.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace hlo {
namespace {

template <Opcode op>
float Expected(const std::vector<float>& row) {
  bool nan = false, pos_zero = false, neg_zero = false;
  float best = op == Opcode::kMaximum ? -std::numeric_limits<float>::infinity()
                                      : std::numeric_limits<float>::infinity();
  for (float x : row) {
    if (std::isnan(x)) nan = true;
    if (x == 0) (std::signbit(x) ? neg_zero : pos_zero) = true;
    if (op == Opcode::kMaximum ? x > best : x < best) best = x;
  }
  if (nan) return std::numeric_limits<float>::quiet_NaN();
  if (best == 0) {
    if (op == Opcode::kMaximum) return pos_zero ? 0.0f : -0.0f;
    return neg_zero ? -0.0f : 0.0f;
  }
  return best;
}

template <Opcode op>
void CheckRows(std::mt19937& rng) {
  std::uniform_real_distribution<float> value(-4, 4);
  std::uniform_int_distribution<int> kind(0, 9);
  int64_t wrong = 0, checked = 0;
  for (int n = 1; n <= 200; ++n) {
    for (int trial = 0; trial < 12; ++trial) {
      std::vector<float> row(n);
      for (float& x : row) {
        switch (kind(rng)) {
          case 0:
            x = 0.0f;
            break;
          case 1:
            x = -0.0f;
            break;
          case 2:
            x = trial % 2 ? std::numeric_limits<float>::infinity() : value(rng);
            break;
          default:
            x = trial < 4 ? -std::fabs(value(rng)) : value(rng);
        }
      }
      // Rows whose extreme is a zero: every other value on the far side.
      if (trial >= 8) {
        for (float& x : row) {
          if (x != 0) x = op == Opcode::kMaximum ? -std::fabs(x) : std::fabs(x);
        }
      }
      if (trial % 3 == 2) row[rng() % n] = std::numeric_limits<float>::quiet_NaN();
      const float got = reduction::FoldRow<op>(row.data(), n);
      const float want = Expected<op>(row);
      const bool same =
          (std::isnan(got) && std::isnan(want)) || std::memcmp(&got, &want, sizeof(float)) == 0;
      ++checked;
      if (!same && ++wrong <= 5) {
        UNSCOPED_INFO("n " << n << " trial " << trial << ": got " << got << " (sign "
                           << std::signbit(got) << "), want " << want << " (sign "
                           << std::signbit(want) << ")");
      }
    }
  }
  CHECK(checked == 2400);
  CHECK(wrong == 0);
}

TEST_CASE("float max and min row folds give XLA's values for NaNs, zeros and infinities",
          "[reduce_fold]") {
  std::mt19937 rng(17);
  CheckRows<Opcode::kMaximum>(rng);
  CheckRows<Opcode::kMinimum>(rng);
}

}  // namespace
}  // namespace hlo

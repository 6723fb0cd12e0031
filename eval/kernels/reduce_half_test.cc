// bf16 and f16 reductions by add, multiply, maximum and minimum
// (eval/kernels/reduce_half.cc) give the generic evaluator's bytes
// (hlo-run --no-fast-paths): rows of more and fewer outputs than a tile's
// lanes and longer than a tile, columns, everything, dimensions that leave
// each output's elements apart, no dimension at all, the reducer's
// parameters either way round, with and without flushing subnormals; the
// values round at every step and hold infinities, signed zeros and
// subnormals, and for maximum and minimum NaNs of both signs and with
// payloads (two NaNs meeting in an add or a multiply give the NaN that the
// compiler's operand order picks, in any loop: no test holds those).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "eval/eval_test_util.h"
#include "eval/evaluator.h"
#include "ir/literal.h"
#include "ir/strings.h"

namespace hlo {
namespace {

std::string ReduceModule(std::string_view type, std::string_view op, bool swapped,
                         std::string_view in_dims, std::string_view dims, std::string_view out_dims,
                         std::string_view init) {
  return StrCat("HloModule r\n\nreducer {\n  a = ", type, "[] parameter(0)\n  b = ", type,
                "[] parameter(1)\n  ROOT r = ", type, "[] ", op, swapped ? "(b, a)" : "(a, b)",
                "\n}\n\nENTRY main {\n  x = ", type, "[", in_dims, "] parameter(0)\n  i = ", type,
                "[] constant(", init, ")\n  ROOT r = ", type, "[", out_dims,
                "] reduce(x, i), dimensions={", dims, "}, to_apply=reducer\n}\n");
}

// Mostly values near 1 (sums and products round at each step), with
// special ones among them: bits where the pick is a pattern; the first
// three (NaNs) only where `nans`.
Value HalfValues(const Shape& shape, bool bf16, bool nans) {
  auto lit = Literal::Create(shape);
  REQUIRE(lit.ok());
  // NaN (+, -, payload), infinities, signed zeros, subnormals, large.
  const uint64_t bf16_bits[] = {0x7FC0, 0xFFC0, 0x7FA1, 0x7F80, 0xFF80,
                                0x8000, 0x0000, 0x0001, 0x8013, 0x7F00};
  const uint64_t f16_bits[] = {0x7E00, 0xFE00, 0x7D01, 0x7C00, 0xFC00,
                               0x8000, 0x0000, 0x0001, 0x8013, 0x7800};
  uint32_t seed = 5;
  for (int64_t i = 0; i < lit->element_count(); ++i) {
    seed = seed * 1664525u + 1013904223u;
    if ((seed >> 16) % 61 == 0) {
      const uint64_t pick = nans ? (seed >> 8) % 10 : 3 + (seed >> 8) % 7;
      lit->SetBits(i, (bf16 ? bf16_bits : f16_bits)[pick]);
    } else {
      lit->SetDouble(i, 0.75 + static_cast<double>((seed >> 8) % 1000) / 1700.0);
    }
  }
  return Value::FromLiteral(*std::move(lit));
}

// Values near 1, and one in 13 a subnormal or zero of either sign.
Value TinyValues(const Shape& shape) {
  auto lit = Literal::Create(shape);
  REQUIRE(lit.ok());
  const uint64_t bits[] = {0x0001, 0x8000, 0x0000, 0x8013};
  uint32_t seed = 9;
  for (int64_t i = 0; i < lit->element_count(); ++i) {
    seed = seed * 1664525u + 1013904223u;
    if ((seed >> 16) % 13 == 0) {
      lit->SetBits(i, bits[(seed >> 8) % 4]);
    } else {
      lit->SetDouble(i, 0.75 + static_cast<double>((seed >> 8) % 1000) / 1700.0);
    }
  }
  return Value::FromLiteral(*std::move(lit));
}

struct Shape3 {
  std::string_view in, dims, out;
};

TEST_CASE("bf16 and f16 reductions give the generic evaluator's bytes", "[reduce_half]") {
  const Shape3 shapes[] = {
      {"37,45", "1", "37"},   // rows: a block of 32 lanes and one of 5
      {"40,300", "1", "40"},  // rows longer than a tile
      {"37,45", "0", "45"},   // columns, side by side
      {"37,45", "0,1", ""},   // everything: one chain
      {"5,6,7", "0,2", "6"},  // each output's elements apart
      {"5,6,7", "1", "5,7"},  // kept dimensions around the reduced one
      {"4,1,9", "1", "4,9"},  // a reduced dimension of one
      {"3,4", "", "3,4"},     // no dimension: init op x
  };
  for (std::string_view type : {"bf16", "f16"}) {
    for (std::string_view op : {"add", "multiply", "maximum", "minimum"}) {
      for (bool swapped : {false, true}) {
        for (const Shape3& s : shapes) {
          const std::string text =
              ReduceModule(type, op, swapped, s.in, s.dims, s.out, op == "multiply" ? "1" : "0.5");
          INFO(text);
          auto m = ParseTestModule(text);
          const std::vector<Value> args = {HalfValues(m->entry()->parameter(0)->shape(),
                                                      type == "bf16",
                                                      op == "maximum" || op == "minimum")};
          for (bool flush : {false, true}) CheckFastPathsKeepBytes(*m, args, flush);
          // Subnormals and zeros as the only specials: a minimum is then a
          // subnormal, flushed or not.
          const std::vector<Value> tiny = {TinyValues(m->entry()->parameter(0)->shape())};
          for (bool flush : {false, true}) CheckFastPathsKeepBytes(*m, tiny, flush);
        }
      }
    }
  }
}

// Signed values from a small set (ties), rows of one sign at times, and
// the specials that the key order and DAZ see differently: subnormals of
// both signs, signed zeros, infinities; NaNs where `nans`.
Value SignedValues(const Shape& shape, bool bf16, bool nans) {
  auto lit = Literal::Create(shape);
  REQUIRE(lit.ok());
  const uint64_t bf16_bits[] = {0x0001, 0x8001, 0x8000, 0x0000, 0x7F80, 0xFF80, 0xFFC1};
  const uint64_t f16_bits[] = {0x0001, 0x8001, 0x8000, 0x0000, 0x7C00, 0xFC00, 0xFE01};
  const int64_t row = shape.dim(shape.rank() - 1);
  uint32_t seed = 17;
  for (int64_t i = 0; i < lit->element_count(); ++i) {
    seed = seed * 1664525u + 1013904223u;
    const int64_t r = i / row;
    if ((seed >> 16) % 29 == 0) {
      lit->SetBits(i, (bf16 ? bf16_bits : f16_bits)[(seed >> 8) % (nans ? 7 : 6)]);
    } else {
      // rows 3k negative only, 3k+1 positive only, 3k+2 both
      const double v = 1.0 + static_cast<double>((seed >> 8) % 9) / 8.0;
      lit->SetDouble(i, r % 3 == 0 || (r % 3 == 2 && (seed >> 12) % 2 == 0) ? -v : v);
    }
  }
  return Value::FromLiteral(*std::move(lit));
}

TEST_CASE("bf16 and f16 maximum and minimum by their keys give the generic bytes",
          "[reduce_half]") {
  for (std::string_view type : {"bf16", "f16"}) {
    for (std::string_view op : {"maximum", "minimum"}) {
      for (std::string_view init : {"-inf", "inf", "0.5", "-0.5", "0", "-0"}) {
        for (int64_t row : {1, 15, 33, 64, 200, 1000}) {
          const std::string in = StrCat("12,", row);
          const std::string text = ReduceModule(type, op, false, in, "1", "12", init);
          INFO(text);
          auto m = ParseTestModule(text);
          for (bool nans : {false, true}) {
            const std::vector<Value> args = {
                SignedValues(m->entry()->parameter(0)->shape(), type == "bf16", nans)};
            for (bool flush : {false, true}) CheckFastPathsKeepBytes(*m, args, flush);
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace hlo

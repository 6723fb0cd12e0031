// rng-bit-generator, rng and rng-get-and-update-state through the evaluator.
// rng-bit-generator's values are checked against the Threefry/Philox blocks
// (themselves checked against Random123's vectors in eval/kernels/prng_test.cc) placed as
// XLA's expander places them; rng's generator is ours, so it is checked for
// its range, moments, and determinism from the seed.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "eval/evaluator.h"
#include "eval/kernels/prng.h"
#include "ir/strings.h"
#include "parser/parser.h"

namespace hlo {
namespace {

absl::StatusOr<Literal> RunModule(std::string_view body, uint64_t seed = 0) {
  auto m = ParseModule(StrCat("HloModule t\n\nENTRY main {\n", body, "\n}\n"));
  INFO((m.ok() ? std::string() : std::string(m.status().message())));
  REQUIRE(m.ok());
  EvalOptions options;
  options.seed = seed;
  Evaluator ev(**m, options);
  auto v = ev.Run({});
  if (!v.ok()) return v.status();
  return v->ToLiteral();
}

Literal MustRun(std::string_view body, uint64_t seed = 0) {
  auto lit = RunModule(body, seed);
  INFO((lit.ok() ? std::string() : std::string(lit.status().message())));
  REQUIRE(lit.ok());
  return *std::move(lit);
}

uint64_t Join(uint32_t lo, uint32_t hi) { return lo | (uint64_t{hi} << 32); }

TEST_CASE("rng-bit-generator: philox u64[2] state counts in state[1] under key state[0]",
          "[random]") {
  Literal r = MustRun(R"(
  s = u64[2] constant({5, 7})
  ROOT r = (u64[2], u32[6]) rng-bit-generator(s), algorithm=rng_philox)");
  const Literal& st = r.elements()[0];
  const Literal& bits = r.elements()[1];
  // 6 words take 2 blocks: the counter advances by 2; the key stays.
  CHECK(st.GetInt(0) == 5);
  CHECK(st.GetInt(1) == 9);
  // The 128-bit counter is (low state[1], high state[0]).
  auto b0 = Philox4x32({7, 0, 5, 0}, {5, 0});
  auto b1 = Philox4x32({8, 0, 5, 0}, {5, 0});
  for (int j = 0; j < 4; ++j) CHECK(static_cast<uint32_t>(bits.GetInt(j)) == b0[j]);
  CHECK(static_cast<uint32_t>(bits.GetInt(4)) == b1[0]);
  CHECK(static_cast<uint32_t>(bits.GetInt(5)) == b1[1]);
  // rng_default is Philox, as on XLA's CPU backend.
  Literal d = MustRun(R"(
  s = u64[2] constant({5, 7})
  ROOT r = (u64[2], u32[6]) rng-bit-generator(s), algorithm=rng_default)");
  CHECK(d == r);
}

TEST_CASE("rng-bit-generator: philox u64[3] state carries into state[2]", "[random]") {
  Literal r = MustRun(R"(
  s = u64[3] constant({1, 18446744073709551615, 4})
  ROOT r = (u64[3], s64[2]) rng-bit-generator(s), algorithm=rng_philox)");
  const Literal& st = r.elements()[0];
  CHECK(st.GetInt(0) == 1);
  CHECK(st.GetInt(1) == 0);
  CHECK(st.GetInt(2) == 5);
  auto b = Philox4x32({0xffffffff, 0xffffffff, 4, 0}, {1, 0});
  CHECK(static_cast<uint64_t>(r.elements()[1].GetInt(0)) == Join(b[0], b[1]));
  CHECK(static_cast<uint64_t>(r.elements()[1].GetInt(1)) == Join(b[2], b[3]));
}

TEST_CASE("rng-bit-generator: threefry state and narrow and float types", "[random]") {
  // The Random123 pi vector: key 0x0370734413198a2e, counter
  // 0x85a308d3243f6a88 -> words c4923a9c 483df7a0.
  Literal r = MustRun(R"(
  s = u64[2] constant({247824715720788526, 9629550131187509896})
  ROOT r = (u64[2], u64[]) rng-bit-generator(s), algorithm=rng_three_fry)");
  CHECK(static_cast<uint64_t>(r.elements()[0].GetInt(1)) == 9629550131187509897ull);
  CHECK(static_cast<uint64_t>(r.elements()[1].GetInt(0)) == 0x483df7a0c4923a9cull);
  // u8 takes the low byte of the 32-bit words, s16 the low half (wrapped
  // into the signed range), f32 the bits as they are.
  auto b0 = Threefry2x32({0, 0}, {0, 0});
  Literal u8 = MustRun(R"(
  s = u64[2] constant({0, 0})
  ROOT a = (u64[2], u8[2]) rng-bit-generator(s), algorithm=rng_three_fry)");
  CHECK(u8.elements()[1].GetInt(0) == (b0[0] & 0xff));
  CHECK(u8.elements()[1].GetInt(1) == (b0[1] & 0xff));
  Literal s16 = MustRun(R"(
  s = u64[2] constant({0, 0})
  ROOT a = (u64[2], s16[2]) rng-bit-generator(s), algorithm=rng_three_fry)");
  CHECK(s16.elements()[1].GetInt(0) == static_cast<int16_t>(b0[0] & 0xffff));
  CHECK(s16.elements()[1].GetInt(1) == static_cast<int16_t>(b0[1] & 0xffff));
  Literal f = MustRun(R"(
  s = u64[2] constant({0, 0})
  ROOT a = (u64[2], f32[2]) rng-bit-generator(s), algorithm=rng_three_fry)");
  CHECK(f.elements()[1].GetBits(0) == b0[0]);
  CHECK(f.elements()[1].GetBits(1) == b0[1]);
}

TEST_CASE("rng-get-and-update-state: {seed, 0}, then + delta with carry", "[random]") {
  Literal r = MustRun(R"(
  a = u64[2] rng-get-and-update-state(), delta=10
  b = u64[2] rng-get-and-update-state(), delta=9223372036854775807
  c = u64[2] rng-get-and-update-state(), delta=9223372036854775807
  d = u64[2] rng-get-and-update-state(), delta=1
  ROOT t = (u64[2], u64[2], u64[2], u64[2]) tuple(a, b, c, d))",
                      3);
  CHECK(r.elements()[0].GetInt(0) == 3);
  CHECK(r.elements()[0].GetInt(1) == 0);
  CHECK(r.elements()[1].GetInt(0) == 13);
  CHECK(r.elements()[1].GetInt(1) == 0);
  CHECK(static_cast<uint64_t>(r.elements()[2].GetInt(0)) == 13 + 9223372036854775807ull);
  // 13 + 2 (2^63 - 1) = 2^64 + 11.
  CHECK(r.elements()[3].GetInt(0) == 11);
  CHECK(r.elements()[3].GetInt(1) == 1);
}

TEST_CASE("rng: uniform floats lie in [a, b) with the uniform mean and variance", "[random]") {
  Literal r = MustRun(R"(
  a = f32[] constant(-2)
  b = f32[] constant(3)
  ROOT r = f32[100000] rng(a, b), distribution=rng_uniform)",
                      11);
  double sum = 0, sq = 0, lo = 1e9, hi = -1e9;
  const int64_t n = r.element_count();
  for (int64_t i = 0; i < n; ++i) {
    double x = r.GetDouble(i);
    sum += x;
    sq += x * x;
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  const double mean = sum / n, var = sq / n - mean * mean;
  // Uniform(-2, 3): mean 0.5, variance 25/12; the standard error of the
  // mean is sqrt(25/12 / 1e5) ~ 0.0046.
  CHECK(std::abs(mean - 0.5) < 0.03);
  CHECK(std::abs(var - 25.0 / 12) < 0.05);
  CHECK(lo >= -2);
  CHECK(hi < 3);
  CHECK(lo < -1.99);
  CHECK(hi > 2.99);
}

TEST_CASE("rng: uniform integers cover [a, b) evenly", "[random]") {
  Literal r = MustRun(R"(
  a = s32[] constant(-3)
  b = s32[] constant(4)
  ROOT r = s32[70000] rng(a, b), distribution=rng_uniform)",
                      5);
  int64_t count[7] = {};
  for (int64_t i = 0; i < r.element_count(); ++i) {
    int64_t v = r.GetInt(i);
    REQUIRE(v >= -3);
    REQUIRE(v < 4);
    ++count[v + 3];
  }
  // 10000 expected per value; sd ~ 93.
  for (int64_t c : count) CHECK(std::abs(c - 10000) < 600);
  Literal u = MustRun(R"(
  a = u64[] constant(10)
  b = u64[] constant(13)
  ROOT r = u64[1000] rng(a, b), distribution=rng_uniform)",
                      5);
  for (int64_t i = 0; i < u.element_count(); ++i) {
    REQUIRE(u.GetInt(i) >= 10);
    REQUIRE(u.GetInt(i) < 13);
  }
}

TEST_CASE("rng: normal has mean mu and deviation sigma", "[random]") {
  for (std::string_view t : {"f32", "f64"}) {
    Literal r = MustRun(StrCat(R"(
  m = )",
                               t, R"([] constant(1.5)
  s = )",
                               t, R"([] constant(2)
  ROOT r = )",
                               t, R"([100001] rng(m, s), distribution=rng_normal)"),
                        9);
    double sum = 0, sq = 0, within1 = 0;
    const int64_t n = r.element_count();
    for (int64_t i = 0; i < n; ++i) {
      double x = r.GetDouble(i);
      sum += x;
      sq += x * x;
      if (std::abs(x - 1.5) < 2) ++within1;
    }
    const double mean = sum / n, sd = std::sqrt(sq / n - mean * mean);
    CHECK(std::abs(mean - 1.5) < 0.03);
    CHECK(std::abs(sd - 2) < 0.03);
    // 68.27% of a normal lies within one deviation.
    CHECK(std::abs(within1 / n - 0.6827) < 0.01);
  }
}

TEST_CASE("rng: deterministic from the seed; successive rngs differ", "[random]") {
  constexpr std::string_view kBody = R"(
  a = f32[] constant(0)
  b = f32[] constant(1)
  x = f32[8] rng(a, b), distribution=rng_uniform
  y = f32[8] rng(a, b), distribution=rng_uniform
  ROOT t = (f32[8], f32[8]) tuple(x, y))";
  Literal r1 = MustRun(kBody, 1), r1b = MustRun(kBody, 1), r2 = MustRun(kBody, 2);
  CHECK(r1 == r1b);
  CHECK(!(r1 == r2));
  CHECK(!(r1.elements()[0] == r1.elements()[1]));
  // pred: [false, true) holds only false.
  Literal p = MustRun(R"(
  a = pred[] constant(false)
  b = pred[] constant(true)
  ROOT r = pred[4] rng(a, b), distribution=rng_uniform)");
  for (int64_t i = 0; i < 4; ++i) CHECK(p.GetInt(i) == 0);
}

}  // namespace
}  // namespace hlo

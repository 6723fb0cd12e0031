// gather and scatter (eval/kernels/gather_scatter.cc, eval/kernels/scatter_update.cc):
// malformed dimension numbers and shapes are errors (the kernels are reached
// with --no-verify too), scatter's in-place path leaves shared operands
// alone, and a large gather and scatter-add agree element by element with
// the spec's defining formula (stablehlo-spec.en.md, "gather"/"scatter").
// The worked examples and value cases live in testdata/eval/ (goldens).
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "eval/evaluator.h"
#include "ir/literal.h"
#include "ir/strings.h"
#include "parser/parser.h"

namespace hlo {
namespace {

// Runs the entry computation of `text` (parsed, not verified).
absl::StatusOr<Value> RunModule(std::string_view text, std::vector<Value> args = {}) {
  auto m = ParseModule(StrCat("HloModule test\n\n", text));
  INFO((m.ok() ? std::string() : std::string(m.status().message())));
  REQUIRE(m.ok());
  Evaluator ev(**m, {});
  return ev.Run(std::move(args));
}

void ExpectError(const absl::StatusOr<Value>& got, std::string_view fragment) {
  REQUIRE_FALSE(got.ok());
  std::string message(got.status().message());
  INFO(message);
  CHECK(message.find(fragment) != std::string::npos);
}

std::string Text(const Value& v) { return LiteralToString(v.ToLiteral(), LiteralStyle::kCompact); }

// A gather module over operand f32[4,3] and the given indices text.
std::string GatherModule(std::string_view indices, std::string_view attrs,
                         std::string_view result = "f32[2,3]") {
  return StrCat(
      "ENTRY main {\n  op = f32[4,3] constant({{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}})\n",
      "  idx = ", indices, "\n  ROOT g = ", result, " gather(op, idx), ", attrs, "\n}\n");
}

constexpr std::string_view kRowGather =
    "offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, "
    "slice_sizes={1,3}";

TEST_CASE("gather: a row lookup (checks the harness)", "[gather]") {
  auto r = RunModule(GatherModule("s32[2] constant({3, 0})", kRowGather));
  REQUIRE(r.ok());
  CHECK(Text(*r) == "f32[2,3] {{9, 10, 11}, {0, 1, 2}}");
}

TEST_CASE("gather: malformed dimension numbers are errors", "[gather]") {
  const std::string_view idx = "s32[2] constant({3, 0})";
  ExpectError(RunModule(GatherModule(idx,
                                     "offset_dims={1}, collapsed_slice_dims={0}, "
                                     "start_index_map={5}, index_vector_dim=1, "
                                     "slice_sizes={1,3}")),
              "start_index_map={5}: 5 is not in [0, 2)");
  ExpectError(RunModule(GatherModule(idx,
                                     "offset_dims={1}, collapsed_slice_dims={0}, "
                                     "start_index_map={0}, index_vector_dim=1, "
                                     "slice_sizes={1,4}")),
              "size 4 of dimension 1 is not in [0, 3]");
  ExpectError(RunModule(GatherModule(idx,
                                     "offset_dims={1}, collapsed_slice_dims={0}, "
                                     "start_index_map={0}, index_vector_dim=1, "
                                     "slice_sizes={2,3}")),
              "collapses dimension 0 whose slice size is 2");
  ExpectError(RunModule(GatherModule(idx,
                                     "offset_dims={1}, collapsed_slice_dims={0}, "
                                     "start_index_map={0}, index_vector_dim=3, "
                                     "slice_sizes={1,3}")),
              "index_vector_dim=3 is not in [0, 1]");
  ExpectError(RunModule(GatherModule(idx,
                                     "offset_dims={1}, collapsed_slice_dims={0}, "
                                     "start_index_map={0,1}, index_vector_dim=1, "
                                     "slice_sizes={1,3}")),
              "has 2 entries but the index vectors have 1");
  ExpectError(RunModule(GatherModule(idx,
                                     "offset_dims={1}, collapsed_slice_dims={0,0}, "
                                     "start_index_map={0}, index_vector_dim=1, "
                                     "slice_sizes={1,3}")),
              "repeats 0");
  ExpectError(RunModule(GatherModule(idx, kRowGather, "f32[2,2]")),
              "gather result f32[2,2] does not match");
  ExpectError(RunModule(GatherModule(idx, kRowGather, "s32[2,3]")), "cannot give s32[2,3]");
  ExpectError(RunModule(GatherModule("f32[2] constant({3, 0})", kRowGather)),
              "start indices must be integers");
  ExpectError(RunModule(GatherModule("s32[2] constant({3, 0})",
                                     "offset_dims={1}, collapsed_slice_dims={}, "
                                     "start_index_map={1}, operand_batching_dims={0}, "
                                     "start_indices_batching_dims={0}, index_vector_dim=1, "
                                     "slice_sizes={1,1}")),
              "batching dimension 0 of the operand (size 4");
}

// A scatter module: input s32[4], indices s32[3,1], updates s32[3].
std::string ScatterModule(std::string_view computation, std::string_view attrs,
                          std::string_view updates = "s32[3] constant({10, 20, 30})") {
  return StrCat(computation,
                "\nENTRY main {\n  in = s32[4] constant({1, 2, 3, 4})\n"
                "  idx = s32[3,1] constant({{0}, {2}, {0}})\n  upd = ",
                updates, "\n  ROOT s = s32[4] scatter(in, idx, upd), ", attrs, "\n}\n");
}

constexpr std::string_view kAdd =
    "add {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  ROOT s = s32[] add(a, b)\n}\n";
constexpr std::string_view kElemScatter =
    "update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
    "index_vector_dim=1, to_apply=add";

TEST_CASE("scatter: duplicates accumulate (checks the harness)", "[scatter]") {
  auto r = RunModule(ScatterModule(kAdd, kElemScatter));
  REQUIRE(r.ok());
  CHECK(Text(*r) == "s32[4] {41, 2, 23, 4}");
}

// f32 values whose sums depend on their order (1e8 + 1 - 1e8 is 0, not 1).
Value OrderSensitive(const Shape& shape, uint32_t seed) {
  auto lit = Literal::Create(shape);
  REQUIRE(lit.ok());
  const float pick[] = {1e8f, 1.0f, -1e8f, 3.5f, -0.0f, 0.25f};
  for (int64_t i = 0; i < lit->element_count(); ++i) {
    seed = seed * 1664525u + 1013904223u;
    lit->typed<float>()[i] = pick[(seed >> 16) % 6];
  }
  return Value::FromLiteral(*std::move(lit));
}

// The module's result with fast paths (first) and element by element.
std::pair<Value, Value> FastAndSlow(Module& m, const std::vector<Value>& args) {
  Evaluator fast(m, {});
  auto got = fast.Run(args);
  REQUIRE(got.ok());
  EvalOptions slow_options;
  slow_options.fast_paths = false;
  Evaluator slow(m, slow_options);
  auto want = slow.Run(args);
  REQUIRE(want.ok());
  return {*std::move(got), *std::move(want)};
}

TEST_CASE("scatter: one-element windows combine in index order on every path", "[scatter]") {
  // XLA's max-pool gradient scatter (index vectors, windows of ones) and a
  // plain element scatter; the large one takes the tiled, parallel path.
  // Indices repeat, so every target adds several f32 updates, in an order
  // the sums depend on; the evaluator element by element is the oracle.
  for (int64_t n : {int64_t{600}, int64_t{1200000}}) {
    const int64_t windows = 2 * n / 3;
    // The indices: rows in [0, n/4), columns in [0, 4), many repeats.
    auto idx = Literal::Create(Shape::Array(PrimitiveType::kS32, {windows, 2}));
    REQUIRE(idx.ok());
    uint32_t seed = 7;
    for (int64_t w = 0; w < windows; ++w) {
      seed = seed * 1664525u + 1013904223u;
      idx->typed<int32_t>()[2 * w] = static_cast<int32_t>((seed >> 8) % (n / 32 + 1));
      idx->typed<int32_t>()[2 * w + 1] = static_cast<int32_t>((seed >> 4) % 4);
    }
    const std::string module = StrCat(
        R"(addf {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  base = f32[)",
        n / 4, R"(,4] parameter(0)
  idx = s32[)",
        windows, R"(,2] parameter(1)
  upd = f32[)",
        windows, R"(,1,1] parameter(2)
  upd1 = f32[)",
        windows, R"(] parameter(3)
  a = f32[)",
        n / 4,
        R"(,4] scatter(base, idx, upd), update_window_dims={1,2}, inserted_window_dims={}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=1, to_apply=addf
  b = f32[)",
        n / 4,
        R"(,4] scatter(base, idx, upd1), update_window_dims={}, inserted_window_dims={0,1}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=1, to_apply=addf
  ROOT t = (f32[)",
        n / 4, R"(,4], f32[)", n / 4, R"(,4]) tuple(a, b)
}
)");
    auto m = ParseModule(StrCat("HloModule points\n\n", module));
    INFO((m.ok() ? std::string() : std::string(m.status().message())));
    REQUIRE(m.ok());
    std::vector<Value> args = {
        OrderSensitive(Shape::Array(PrimitiveType::kF32, {n / 4, 4}), 1),
        Value::FromLiteral(*std::move(idx)),
        OrderSensitive(Shape::Array(PrimitiveType::kF32, {windows, 1, 1}), 2),
        OrderSensitive(Shape::Array(PrimitiveType::kF32, {windows}), 2)};
    const auto [got, want] = FastAndSlow(**m, args);
    for (int k = 0; k < 2; ++k) {
      const Literal& g = got.element(k).array();
      const Literal& w = want.element(k).array();
      INFO("n " << n << ", scatter " << k);
      CHECK(std::memcmp(g.data(), w.data(), g.size_bytes()) == 0);
    }
  }
}

// Index vectors of 1 to 5 components (the window list unrolls 1-4 and
// loops over more), some of them out of bounds on one side or the other
// (their windows are skipped whole), against the evaluator element by
// element.
TEST_CASE("scatter: index vectors of every length, some out of bounds", "[scatter]") {
  const int64_t dims[5] = {3, 4, 5, 2, 3};
  for (int k = 1; k <= 5; ++k) {
    INFO("components " << k);
    const int64_t windows = 40;
    auto idx = Literal::Create(Shape::Array(PrimitiveType::kS32, {windows, k}));
    REQUIRE(idx.ok());
    uint32_t seed = 11 + k;
    int64_t outside = 0;
    for (int64_t w = 0; w < windows; ++w) {
      bool out = false;
      for (int j = 0; j < k; ++j) {
        seed = seed * 1664525u + 1013904223u;
        // In [-1, dim]: about one component in three of size 3 is outside.
        const int32_t v = static_cast<int32_t>((seed >> 8) % (dims[j] + 2)) - 1;
        out |= v < 0 || v >= dims[j];
        idx->typed<int32_t>()[w * k + j] = v;
      }
      outside += out;
    }
    CHECK(outside > 0);
    CHECK(outside < windows);
    std::string window_dims, inserted, sdod, update_shape = StrCat(windows);
    for (int j = 0; j < 5; ++j) {
      if (j < k) {
        StrAppend(&inserted, inserted.empty() ? "" : ",", j);
        StrAppend(&sdod, sdod.empty() ? "" : ",", j);
      } else {
        StrAppend(&window_dims, window_dims.empty() ? "" : ",", j - k + 1);
        StrAppend(&update_shape, ",", dims[j]);
      }
    }
    const std::string module = StrCat(R"(HloModule lengths
addf {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  base = f32[3,4,5,2,3] parameter(0)
  idx = s32[)",
                                      windows, ",", k, R"(] parameter(1)
  upd = f32[)",
                                      update_shape, R"(] parameter(2)
  ROOT s = f32[3,4,5,2,3] scatter(base, idx, upd), update_window_dims={)",
                                      window_dims, "}, inserted_window_dims={", inserted,
                                      "}, scatter_dims_to_operand_dims={", sdod,
                                      "}, index_vector_dim=1, to_apply=addf\n}\n");
    auto m = ParseModule(module);
    INFO((m.ok() ? std::string() : std::string(m.status().message())));
    REQUIRE(m.ok());
    std::vector<int64_t> udims = {windows};
    for (int j = k; j < 5; ++j) udims.push_back(dims[j]);
    std::vector<Value> args = {
        OrderSensitive(Shape::Array(PrimitiveType::kF32, {3, 4, 5, 2, 3}), 1),
        Value::FromLiteral(*std::move(idx)),
        OrderSensitive(Shape::Array(PrimitiveType::kF32, udims), 2)};
    const auto [got, want] = FastAndSlow(**m, args);
    const size_t bytes = got.array().size_bytes();
    CHECK(std::memcmp(got.array().data(), want.array().data(), bytes) == 0);
    // Something landed: the result is not the input.
    CHECK(std::memcmp(got.array().data(), args[0].array().data(), bytes) != 0);
  }
}

TEST_CASE("scatter: malformed scatters are errors", "[scatter]") {
  ExpectError(RunModule(ScatterModule(kAdd,
                                      "update_window_dims={}, inserted_window_dims={0}, "
                                      "scatter_dims_to_operand_dims={1}, "
                                      "index_vector_dim=1, to_apply=add")),
              "scatter_dims_to_operand_dims={1}: 1 is not in [0, 1)");
  ExpectError(RunModule(ScatterModule(kAdd, kElemScatter, "s32[2] constant({10, 20})")),
              "do not match the input");
  ExpectError(RunModule(ScatterModule(kAdd, kElemScatter, "f32[3] constant({1, 2, 3})")),
              "do not match input 0");
  ExpectError(RunModule(ScatterModule(kAdd,
                                      "update_window_dims={0}, inserted_window_dims={0}, "
                                      "scatter_dims_to_operand_dims={0}, "
                                      "index_vector_dim=1, to_apply=add")),
              "do not fit the input");
  // The update computation: wrong arity, wrong result type, and a failure.
  ExpectError(RunModule(ScatterModule("add {\n  a = s32[] parameter(0)\n  ROOT b = s32[] "
                                      "negate(a)\n}\n",
                                      kElemScatter)),
              "takes 1 parameters, not 2");
  ExpectError(RunModule(ScatterModule("add {\n  a = s32[] parameter(0)\n  b = s32[] "
                                      "parameter(1)\n  ROOT c = f32[] convert(b)\n}\n",
                                      kElemScatter)),
              "must return a scalar of the inputs' element types");
  ExpectError(RunModule(ScatterModule("add {\n  a = s32[] parameter(0)\n  b = s32[] "
                                      "parameter(1)\n  ROOT c = s32[] custom-call(a, b), "
                                      "custom_call_target=\"nope\"\n}\n",
                                      kElemScatter)),
              "custom-call target 'nope'");
}

TEST_CASE("scatter: the in-place path never changes a value someone else holds", "[scatter]") {
  // x feeds only the scatter: updated in place. y feeds the scatter and the
  // root tuple: the tuple must still see the original y.
  auto r = RunModule(StrCat(kAdd, R"(
ENTRY main {
  p = s32[3] parameter(0)
  x = s32[3] negate(p)
  y = s32[3] negate(p)
  idx = s32[1,1] constant({{1}})
  upd = s32[1] constant({100})
  sx = s32[3] scatter(x, idx, upd), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  sy = s32[3] scatter(y, idx, upd), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  sp = s32[3] scatter(p, idx, upd), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  ROOT t = (s32[3], s32[3], s32[3], s32[3], s32[3]) tuple(sx, sy, y, sp, p)
}
)"),
                     {Value::FromLiteral(*ParseLiteral("s32[3] {1, 2, 3}"))});
  REQUIRE(r.ok());
  CHECK(Text(*r) ==
        "(s32[3] {-1, 98, -3}, s32[3] {-1, 98, -3}, s32[3] {-1, -2, -3}, "
        "s32[3] {1, 102, 3}, s32[3] {1, 2, 3})");
}

TEST_CASE("gather and scatter: extreme indices clamp or are skipped, never overflow",
          "[gather][scatter]") {
  // Windows of 2 rows: gather clamps every start into [0, 2]; scatter drops
  // every window but the one at 2 (4 - 2) and the one at 0.
  auto r = RunModule(StrCat(kAdd, R"(
ENTRY main {
  op = s32[4,2] constant({{1, 2}, {3, 4}, {5, 6}, {7, 8}})
  s = s64[5,1] constant({{9223372036854775807}, {-9223372036854775808}, {3}, {2}, {0}})
  u = u64[2,1] constant({{18446744073709551615}, {9223372036854775808}})
  g = s32[5,2,2] gather(op, s), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0}, index_vector_dim=1, slice_sizes={2,2}
  gu = s32[2,2,2] gather(op, u), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0}, index_vector_dim=1, slice_sizes={2,2}
  hundred = s32[] constant(100)
  upd = s32[5,2,2] broadcast(hundred), dimensions={}
  sc = s32[4,2] scatter(op, s, upd), update_window_dims={1,2}, inserted_window_dims={}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  uu = s32[2,2,2] broadcast(hundred), dimensions={}
  su = s32[4,2] scatter(op, u, uu), update_window_dims={1,2}, inserted_window_dims={}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
  ROOT t = (s32[5,2,2], s32[2,2,2], s32[4,2], s32[4,2]) tuple(g, gu, sc, su)
}
)"));
  INFO((r.ok() ? std::string() : std::string(r.status().message())));
  REQUIRE(r.ok());
  CHECK(Text(*r) ==
        "(s32[5,2,2] {{{5, 6}, {7, 8}}, {{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}, {{5, 6}, {7, 8}}, "
        "{{1, 2}, {3, 4}}}, s32[2,2,2] {{{5, 6}, {7, 8}}, {{5, 6}, {7, 8}}}, "
        "s32[4,2] {{101, 102}, {103, 104}, {105, 106}, {107, 108}}, "
        "s32[4,2] {{1, 2}, {3, 4}, {5, 6}, {7, 8}})");
}

// Deterministic pseudo-random numbers for the large cases.
struct Lcg {
  uint64_t s = 12345;
  int64_t Next(int64_t n) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int64_t>((s >> 33) % static_cast<uint64_t>(n));
  }
};

TEST_CASE("gather and scatter: a large case against the defining formula", "[gather][scatter]") {
  // operand s32[6,7,5] (value = linear index), indices s32[9,4,2] with
  // index_vector_dim=2 mapping to operand dims {2,0} (starts in [-2, 8] so
  // some clamp / fall outside), offset dims {1,3} (slice 3x1x4 over operand
  // dims 0 and 2, dim 1 collapsed) -> result s32[9,3,4,4].
  Lcg rng;
  std::vector<int64_t> starts;
  for (int i = 0; i < 9 * 4 * 2; ++i) starts.push_back(rng.Next(11) - 2);
  std::vector<int64_t> updates;
  for (int i = 0; i < 9 * 3 * 4 * 4; ++i) updates.push_back(rng.Next(1000));
  auto lit_of = [](std::string_view type, const std::vector<int64_t>& dims,
                   const std::vector<int64_t>& vals) {
    auto l = Literal::Create(Shape::Array(*ParsePrimitiveType(type), dims));
    REQUIRE(l.ok());
    for (size_t i = 0; i < vals.size(); ++i) l->SetInt(static_cast<int64_t>(i), vals[i]);
    return *std::move(l);
  };
  std::vector<int64_t> base_vals(6 * 7 * 5);
  for (size_t i = 0; i < base_vals.size(); ++i) base_vals[i] = static_cast<int64_t>(i);
  std::string module = StrCat(kAdd, R"(
ENTRY main {
  base = s32[6,7,5] parameter(0)
  idx = s32[9,4,2] parameter(1)
  upd = s32[9,3,4,4] parameter(2)
  g = s32[9,3,4,4] gather(base, idx), offset_dims={1,3}, collapsed_slice_dims={1}, start_index_map={2,0}, index_vector_dim=2, slice_sizes={3,1,4}
  s = s32[6,7,5] scatter(base, idx, upd), update_window_dims={1,3}, inserted_window_dims={1}, scatter_dims_to_operand_dims={2,0}, index_vector_dim=2, to_apply=add
  ROOT t = (s32[9,3,4,4], s32[6,7,5]) tuple(g, s)
}
)");
  auto r = RunModule(module, {Value::FromLiteral(lit_of("s32", {6, 7, 5}, base_vals)),
                              Value::FromLiteral(lit_of("s32", {9, 4, 2}, starts)),
                              Value::FromLiteral(lit_of("s32", {9, 3, 4, 4}, updates))});
  INFO((r.ok() ? std::string() : std::string(r.status().message())));
  REQUIRE(r.ok());
  const Literal& g = r->element(0).array();
  const Literal& s = r->element(1).array();
  // gather: result[b0, o0, b1, o2] = operand[clamp(start0)+o0, clamp(start1), clamp... ]
  // with start vector (i2 -> dim 2, i0 -> dim 0) of idx[b0, b1, :].
  std::vector<int64_t> expect_s = base_vals;
  int checked = 0;
  for (int64_t b0 = 0; b0 < 9; ++b0) {
    for (int64_t b1 = 0; b1 < 4; ++b1) {
      int64_t v2 = starts[(b0 * 4 + b1) * 2 + 0];  // -> operand dim 2
      int64_t v0 = starts[(b0 * 4 + b1) * 2 + 1];  // -> operand dim 0
      int64_t c0 = std::clamp<int64_t>(v0, 0, 6 - 3), c2 = std::clamp<int64_t>(v2, 0, 5 - 4);
      bool inside = v0 >= 0 && v0 + 3 <= 6 && v2 >= 0 && v2 + 4 <= 5;
      for (int64_t o0 = 0; o0 < 3; ++o0) {
        for (int64_t o2 = 0; o2 < 4; ++o2) {
          int64_t r_lin = ((b0 * 3 + o0) * 4 + b1) * 4 + o2;
          int64_t op_lin = ((c0 + o0) * 7 + 0) * 5 + (c2 + o2);
          CHECK(g.GetInt(r_lin) == base_vals[op_lin]);
          if (inside) expect_s[((v0 + o0) * 7 + 0) * 5 + (v2 + o2)] += updates[r_lin];
          ++checked;
        }
      }
    }
  }
  CHECK(checked == 9 * 3 * 4 * 4);
  for (size_t i = 0; i < expect_s.size(); ++i)
    CHECK(s.GetInt(static_cast<int64_t>(i)) == expect_s[i]);
}

}  // namespace
}  // namespace hlo

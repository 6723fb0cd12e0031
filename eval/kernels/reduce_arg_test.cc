// JAX's argmax and argmin reducers (eval/kernels/reduce_arg.cc) give the
// generic evaluator's bytes (hlo-run --no-fast-paths): f32 values with s32
// indices and f64 with s64, rows, columns, everything and a strided walk,
// the reducer's or/and operands either way round, with and without
// flushing subnormals, on values with ties (equal values, +0 against -0),
// NaNs of both signs, infinities and subnormals; and reducers that differ
// from JAX's (GE for GT, the tie broken by GT) still give the generic
// bytes (they are not taken for argmax).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_replace.h"
#include "eval/eval_test_util.h"
#include "eval/evaluator.h"
#include "ir/literal.h"
#include "ir/strings.h"

namespace hlo {
namespace {

struct Variant {
  std::string_view keep_dir = "GT";  // LT: argmin
  std::string_view tie_dir = "LT";
  bool swap_or = false, swap_and = false;
};

std::string ArgModule(std::string_view v, std::string_view i, const Variant& r,
                      std::string_view in_dims, std::string_view dims, std::string_view out_dims) {
  const std::string keep = r.swap_or ? "or(ne, gt)" : "or(gt, ne)";
  const std::string tie = r.swap_and ? "and(lt, eq)" : "and(eq, lt)";
  const std::string take = r.swap_or ? "or(tie, keep)" : "or(keep, tie)";
  return StrCat(
      "HloModule arg\n\nreducer {\n  a = ", v, "[] parameter(0)\n  ai = ", i,
      "[] parameter(1)\n  b = ", v, "[] parameter(2)\n  bi = ", i,
      "[] parameter(3)\n  gt = pred[] compare(a, b), direction=", r.keep_dir,
      "\n  ne = pred[] compare(a, a), direction=NE\n  keep = pred[] ", keep, "\n  value = ", v,
      "[] select(keep, a, b)\n  eq = pred[] compare(a, b), direction=EQ\n  lt = pred[] "
      "compare(ai, bi), direction=",
      r.tie_dir, "\n  tie = pred[] ", tie, "\n  take = pred[] ", take, "\n  index = ", i,
      "[] select(take, ai, bi)\n  ROOT r = (", v, "[], ", i, "[]) tuple(value, index)\n}\n\n",
      "ENTRY main {\n  x = ", v, "[", in_dims, "] parameter(0)\n  io = ", i, "[", in_dims,
      "] iota(), iota_dimension=", dims.substr(dims.size() - 1), "\n  ninf = ", v,
      "[] constant(-inf)\n  z = ", i, "[] constant(0)\n  ROOT r = (", v, "[", out_dims, "], ", i,
      "[", out_dims, "]) reduce(x, io, ninf, z), dimensions={", dims, "}, to_apply=reducer\n}\n");
}

// Few distinct values (ties), and one in 9 special: NaNs, infinities,
// signed zeros, subnormals.
Value ArgValues(const Shape& shape) {
  auto lit = Literal::Create(shape);
  REQUIRE(lit.ok());
  const double special[] = {NAN, -NAN, INFINITY, -INFINITY, 0.0, -0.0, 1e-310, -1e-310, 1e-40};
  uint32_t seed = 3;
  for (int64_t k = 0; k < lit->element_count(); ++k) {
    seed = seed * 1664525u + 1013904223u;
    const uint32_t r = seed >> 8;
    lit->SetDouble(k, r % 9 == 0 ? special[(r / 9) % 9] : static_cast<double>(r % 7) - 3.0);
  }
  return Value::FromLiteral(*std::move(lit));
}

struct Walk {
  std::string_view in, dims, out;
};

TEST_CASE("argmax and argmin give the generic evaluator's bytes", "[reduce_arg]") {
  const Walk walks[] = {{"9,40", "1", "9"},      // rows
                        {"40,9", "0", "9"},      // columns
                        {"6,7", "0,1", ""},      // everything
                        {"5,6,7", "0,2", "6"}};  // each output's elements apart
  const Variant variants[] = {{"GT", "LT", false, false}, {"LT", "LT", false, false},
                              {"GT", "LT", true, true},   {"LT", "LT", true, false},
                              {"GE", "LT", false, false}, {"GT", "GT", false, false}};
  for (auto [v, i] : {std::pair<std::string_view, std::string_view>{"f32", "s32"},
                      std::pair<std::string_view, std::string_view>{"f64", "s64"}}) {
    for (const Variant& r : variants) {
      for (const Walk& w : walks) {
        const std::string text = ArgModule(v, i, r, w.in, w.dims, w.out);
        INFO(text);
        auto m = ParseTestModule(text);
        const std::vector<Value> args = {ArgValues(m->entry()->parameter(0)->shape())};
        for (bool flush : {false, true}) CheckFastPathsKeepBytes(*m, args, flush);
      }
    }
  }
}

// Values for the row shortcut: `kind` 0 few distinct values (long ties,
// signed zeros, subnormals, infinities), 1 many (a single greatest), 2 as 0
// with one NaN in each row of `row` elements, at a different place each.
Value RowValues(const Shape& shape, int kind, int64_t row) {
  auto lit = Literal::Create(shape);
  REQUIRE(lit.ok());
  const double special[] = {INFINITY, -INFINITY, 0.0, -0.0, 1e-310, -1e-310, 1e-40, -1e-40};
  uint32_t seed = 11;
  for (int64_t k = 0; k < lit->element_count(); ++k) {
    seed = seed * 1664525u + 1013904223u;
    const uint32_t r = seed >> 8;
    double x =
        kind == 1 ? static_cast<double>(r % 200003) - 100001.0 : static_cast<double>(r % 7) - 3.0;
    if (kind != 1 && r % 13 == 0) x = special[(r / 13) % 8];
    if (kind == 2 && k % row == (k / row * 37) % row) x = (k / row) % 2 == 0 ? NAN : -NAN;
    lit->SetDouble(k, x);
  }
  return Value::FromLiteral(*std::move(lit));
}

// Indices that are no iota: repeats, negatives, descending runs.
Value RowIndices(const Shape& shape) {
  auto lit = Literal::Create(shape);
  REQUIRE(lit.ok());
  uint32_t seed = 5;
  for (int64_t k = 0; k < lit->element_count(); ++k) {
    seed = seed * 1664525u + 1013904223u;
    lit->SetDouble(k, static_cast<double>(static_cast<int32_t>(seed >> 20) - 2048));
  }
  return Value::FromLiteral(*std::move(lit));
}

TEST_CASE("argmax and argmin rows and columns keep the generic bytes at every length",
          "[reduce_arg]") {
  const Variant variants[] = {{"GT", "LT", false, false}, {"LT", "LT", false, false}};
  for (auto [v, i] : {std::pair<std::string_view, std::string_view>{"f32", "s32"},
                      std::pair<std::string_view, std::string_view>{"f64", "s64"}}) {
    for (const Variant& r : variants) {
      for (int64_t row : {1, 7, 8, 16, 17, 31, 64, 65, 129, 300}) {
        for (bool columns : {false, true}) {
          const std::string in = columns ? StrCat(row, ",37") : StrCat("5,", row);
          for (bool index_param : {false, true}) {
            for (std::string_view init : {"-inf", "3", "inf"}) {
              std::string text =
                  columns ? ArgModule(v, i, r, in, "0", "37") : ArgModule(v, i, r, in, "1", "5");
              if (index_param) {
                text = absl::StrReplaceAll(
                    text, {{columns ? "iota(), iota_dimension=0" : "iota(), iota_dimension=1",
                            "parameter(1)"}});
              }
              text =
                  absl::StrReplaceAll(text, {{"constant(-inf)", StrCat("constant(", init, ")")}});
              INFO(text);
              auto m = ParseTestModule(text);
              const Shape& shape = m->entry()->parameter(0)->shape();
              for (int kind : {0, 1, 2}) {
                std::vector<Value> args = {RowValues(shape, kind, row)};
                if (index_param) {
                  args.push_back(RowIndices(m->entry()->parameter(1)->shape()));
                }
                INFO("kind " << kind);
                for (bool flush : {false, true}) CheckFastPathsKeepBytes(*m, args, flush);
              }
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace hlo

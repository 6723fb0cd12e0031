// Tests for reduce, reduce-window, select-and-scatter, sort and topk shape
// inference. Valid cases follow the StableHLO spec's examples; each invalid
// case breaks one constraint and checks the message names it.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "passes/shape_inference.h"

namespace hlo {
namespace {

constexpr PrimitiveType kF32 = PrimitiveType::kF32;
constexpr PrimitiveType kBF16 = PrimitiveType::kBF16;
constexpr PrimitiveType kS32 = PrimitiveType::kS32;
constexpr PrimitiveType kS64 = PrimitiveType::kS64;
constexpr PrimitiveType kPred = PrimitiveType::kPred;

ShapePool& Pool() {
  static ShapePool pool;
  return pool;
}

const Shape* S(PrimitiveType t, std::vector<int64_t> dims = {}) {
  return Pool().Intern(Shape::Array(t, dims));
}

const Shape* T(std::vector<const Shape*> elements) {
  return Pool().Intern(Shape::Tuple(std::move(elements)));
}

// f32[<=n] style: dimension `i` made dynamic.
const Shape* Dyn(const Shape* s, int64_t i) { return Pool().Intern(s->WithDynamicDim(i, true)); }

ProgramShape Fn(std::vector<const Shape*> params, const Shape* result) {
  return ProgramShape{std::move(params), result};
}

// (T, T) -> T, the usual scalar reducer.
ProgramShape Binary(PrimitiveType t) { return Fn({S(t), S(t)}, S(t)); }

std::string Text(const absl::StatusOr<Shape>& r) {
  REQUIRE(r.ok());
  return r->ToString(false);
}

std::string Err(const absl::StatusOr<Shape>& r) {
  REQUIRE_FALSE(r.ok());
  return std::string(r.status().message());
}

Window Win(std::vector<int64_t> sizes) {
  Window w;
  for (int64_t s : sizes) {
    WindowDim d;
    d.size = s;
    w.push_back(d);
  }
  return w;
}

using Catch::Contains;

// ---- reduce ---------------------------------------------------------------------

TEST_CASE("InferReduceShape: spec example and variadic forms", "[shape_inference]") {
  // stablehlo.reduce: tensor<1x6xi64>, dimensions = [1] -> tensor<1xi64>.
  CHECK(Text(InferReduceShape({S(kS64, {1, 6})}, {S(kS64)}, {1}, Binary(kS64), Pool())) ==
        "s64[1]");
  CHECK(Text(InferReduceShape({S(kF32, {2, 3, 4})}, {S(kF32)}, {0, 2}, Binary(kF32), Pool())) ==
        "f32[3]");
  CHECK(Text(InferReduceShape({S(kF32, {2, 3})}, {S(kF32)}, {}, Binary(kF32), Pool())) ==
        "f32[2,3]");
  // Variadic: (value, index) argmax-style, a tuple of results.
  ProgramShape argmax = Fn({S(kF32), S(kS32), S(kF32), S(kS32)}, T({S(kF32), S(kS32)}));
  CHECK(Text(InferReduceShape({S(kF32, {2, 3}), S(kS32, {2, 3})}, {S(kF32), S(kS32)}, {0}, argmax,
                              Pool())) == "(f32[3], s32[3])");
  // XLA: a bf16 input may be reduced by an f32 computation; the result takes
  // the computation's type.
  CHECK(Text(InferReduceShape({S(kBF16, {4, 2})}, {S(kF32)}, {0}, Binary(kF32), Pool())) ==
        "f32[2]");
  // Dynamic kept dimensions stay dynamic.
  CHECK(Text(InferReduceShape({Dyn(S(kF32, {4, 3}), 0)}, {S(kF32)}, {1}, Binary(kF32), Pool())) ==
        "f32[<=4]");
}

TEST_CASE("InferReduceShape: operand errors", "[shape_inference]") {
  CHECK_THAT(Err(InferReduceShape({}, {}, {}, Binary(kF32), Pool())),
             Contains("at least one input"));
  CHECK_THAT(Err(InferReduceShape({S(kF32, {2})}, {S(kF32), S(kF32)}, {0}, Binary(kF32), Pool())),
             Contains("one init value per input, but has 1 inputs and 2 init values"));
  CHECK_THAT(Err(InferReduceShape({S(kF32, {2})}, {S(kF32, {1})}, {0}, Binary(kF32), Pool())),
             Contains("init value 0 must be a scalar"));
  CHECK_THAT(Err(InferReduceShape({T({S(kF32)})}, {S(kF32)}, {}, Binary(kF32), Pool())),
             Contains("input 0 must be an array"));
  ProgramShape two = Fn({S(kF32), S(kF32), S(kF32), S(kF32)}, T({S(kF32), S(kF32)}));
  CHECK_THAT(Err(InferReduceShape({S(kF32, {2, 3}), S(kF32, {3, 2})}, {S(kF32), S(kF32)}, {0}, two,
                                  Pool())),
             Contains("input 0 f32[2,3] and input 1 f32[3,2] must have the same dimensions"));
  CHECK_THAT(Err(InferReduceShape({S(kF32, {2, 3})}, {S(kF32)}, {2}, Binary(kF32), Pool())),
             Contains("dimensions {2} has dimension 2 out of range for rank 2"));
  CHECK_THAT(Err(InferReduceShape({S(kF32, {2, 3})}, {S(kF32)}, {1, 1}, Binary(kF32), Pool())),
             Contains("repeats dimension 1"));
}

TEST_CASE("InferReduceShape: to_apply errors", "[shape_inference]") {
  const Shape* in = S(kF32, {2, 3});
  CHECK_THAT(
      Err(InferReduceShape({in}, {S(kF32)}, {0}, Fn({S(kF32), S(kF32), S(kF32)}, S(kF32)), Pool())),
      Contains("to_apply must take 2 parameters (an accumulator then an input), but "
               "takes 3"));
  CHECK_THAT(Err(InferReduceShape({in, in}, {S(kF32), S(kF32)}, {0}, Binary(kF32), Pool())),
             Contains("to_apply must take 4 parameters (2 accumulators then 2 inputs), but "
                      "takes 2"));
  ProgramShape scalar_result = Fn({S(kF32), S(kF32), S(kF32), S(kF32)}, S(kF32));
  CHECK_THAT(Err(InferReduceShape({in, in}, {S(kF32), S(kF32)}, {0}, scalar_result, Pool())),
             Contains("must return a tuple of 2 scalars (one per input), but returns f32[]"));
  CHECK_THAT(
      Err(InferReduceShape({in}, {S(kF32)}, {0}, Fn({S(kF32), S(kF32)}, S(kF32, {2})), Pool())),
      Contains("must return scalars, but returns f32[2]"));
  CHECK_THAT(Err(InferReduceShape({in}, {S(kF32)}, {0}, Fn({S(kS32), S(kF32)}, S(kF32)), Pool())),
             Contains("to_apply parameter 0 (accumulator 0) has shape s32[] but result 0 has "
                      "shape f32[]"));
  CHECK_THAT(Err(InferReduceShape({in}, {S(kS32)}, {0}, Binary(kF32), Pool())),
             Contains("init value 0 has shape s32[] but to_apply's accumulator 0 has shape "
                      "f32[]"));
  CHECK_THAT(Err(InferReduceShape({S(kS32, {2})}, {S(kF32)}, {0}, Binary(kF32), Pool())),
             Contains("to_apply parameter 1 (input 0) has shape f32[] but input 0 has element "
                      "type s32"));
  CHECK_THAT(
      Err(InferReduceShape({in}, {S(kF32)}, {0}, Fn({S(kF32), S(kF32, {1})}, S(kF32)), Pool())),
      Contains("to_apply parameter 1 (input 0) has shape f32[1]"));
  CHECK_THAT(Err(InferReduceShape({in}, {S(kF32)}, {0}, Fn({S(kF32), S(kF32)}, nullptr), Pool())),
             Contains("to_apply has no root instruction"));
}

// ---- reduce-window --------------------------------------------------------------

TEST_CASE("InferReduceWindowShape: spec examples", "[shape_inference]") {
  // stablehlo.reduce_window example: tensor<3x2xi64> -> tensor<2x2xi64>.
  Window w = Win({2, 1});
  w[0].stride = 4;
  w[0].base_dilation = 2;
  w[0].window_dilation = 3;
  w[0].padding_low = 2;
  w[0].padding_high = 1;
  CHECK(Text(InferReduceWindowShape({S(kS64, {3, 2})}, {S(kS64)}, w, Binary(kS64), Pool())) ==
        "s64[2,2]");
  // XLA's example: 2x3 windows with 2x3 strides over f32[4,6].
  Window pool2x3 = Win({2, 3});
  pool2x3[0].stride = 2;
  pool2x3[1].stride = 3;
  CHECK(Text(InferReduceWindowShape({S(kF32, {4, 6})}, {S(kF32)}, pool2x3, Binary(kF32), Pool())) ==
        "f32[2,2]");
  // Windows that do not fit give an empty dimension.
  CHECK(Text(InferReduceWindowShape({S(kF32, {2})}, {S(kF32)}, Win({3}), Binary(kF32), Pool())) ==
        "f32[0]");
  // Rank 0: an empty window.
  CHECK(Text(InferReduceWindowShape({S(kF32)}, {S(kF32)}, {}, Binary(kF32), Pool())) == "f32[]");
}

TEST_CASE("InferReduceWindowShape: padding, variadic, dynamic", "[shape_inference]") {
  // Negative padding removes elements (XLA allows it).
  Window trim = Win({1});
  trim[0].padding_low = -1;
  trim[0].padding_high = -1;
  CHECK(Text(InferReduceWindowShape({S(kF32, {5})}, {S(kF32)}, trim, Binary(kF32), Pool())) ==
        "f32[3]");
  // SAME padding of XLA's example: [10000, 1000, 100, 10, 1], size 3 stride 2.
  Window same = Win({3});
  same[0].stride = 2;
  same[0].padding_low = 1;
  same[0].padding_high = 1;
  CHECK(Text(InferReduceWindowShape({S(kF32, {5})}, {S(kF32)}, same, Binary(kF32), Pool())) ==
        "f32[3]");
  ProgramShape two = Fn({S(kF32), S(kS32), S(kF32), S(kS32)}, T({S(kF32), S(kS32)}));
  CHECK(Text(InferReduceWindowShape({S(kF32, {4}), S(kS32, {4})}, {S(kF32), S(kS32)}, Win({2}), two,
                                    Pool())) == "(f32[3], s32[3])");
  Window halve = Win({2});
  halve[0].stride = 2;
  CHECK(Text(InferReduceWindowShape({Dyn(S(kF32, {8}), 0)}, {S(kF32)}, halve, Binary(kF32),
                                    Pool())) == "f32[<=4]");
}

TEST_CASE("InferReduceWindowShape: errors", "[shape_inference]") {
  const Shape* in = S(kF32, {4, 6});
  auto err = [&](const Window& w) {
    return Err(InferReduceWindowShape({in}, {S(kF32)}, w, Binary(kF32), Pool()));
  };
  CHECK_THAT(err(Win({2})), Contains("window has 1 dimension but the input f32[4,6] has rank 2"));
  CHECK_THAT(err(Win({2, 0})), Contains("window dimension 1 has size 0; it must be at least 1"));
  Window w = Win({2, 2});
  w[0].stride = 0;
  CHECK_THAT(err(w), Contains("window dimension 0 has stride 0; it must be at least 1"));
  w = Win({2, 2});
  w[1].base_dilation = 0;
  CHECK_THAT(err(w), Contains("window dimension 1 has base dilation (lhs_dilate) 0"));
  w = Win({2, 2});
  w[1].window_dilation = -1;
  CHECK_THAT(err(w), Contains("window dimension 1 has window dilation (rhs_dilate) -1"));
  w = Win({1, 1});
  w[0].padding_low = -3;
  w[0].padding_high = -2;
  CHECK_THAT(err(w), Contains("window dimension 0 pads the input dimension of size 4"));
  CHECK_THAT(err(w), Contains("to -1, which is negative"));
  CHECK_THAT(
      Err(InferReduceWindowShape({in}, {S(kF32), S(kF32)}, Win({1, 1}), Binary(kF32), Pool())),
      Contains("reduce-window needs one init value per input"));
  CHECK_THAT(Err(InferReduceWindowShape({in}, {S(kS32)}, Win({1, 1}), Binary(kF32), Pool())),
             Contains("init value 0 has shape s32[]"));
}

// ---- select-and-scatter ----------------------------------------------------------

ProgramShape GreaterEqual(PrimitiveType t) { return Fn({S(t), S(t)}, S(kPred)); }

// The spec example's window: 3x1, strides 2x1, padding [[0, 1], [0, 0]].
Window SelectWindow() {
  Window w = Win({3, 1});
  w[0].stride = 2;
  w[0].padding_high = 1;
  return w;
}

TEST_CASE("InferSelectAndScatterShape: spec example", "[shape_inference]") {
  CHECK(Text(InferSelectAndScatterShape(*S(kS64, {4, 2}), GreaterEqual(kS64), SelectWindow(),
                                        *S(kS64, {2, 2}), *S(kS64), Binary(kS64))) == "s64[4,2]");
}

TEST_CASE("InferSelectAndScatterShape: errors", "[shape_inference]") {
  const Shape& op = *S(kS64, {4, 2});
  const Shape& src = *S(kS64, {2, 2});
  const Shape& init = *S(kS64);
  auto err = [&](const ProgramShape& select, const Window& w, const Shape& source,
                 const Shape& init_value, const ProgramShape& scatter) {
    return Err(InferSelectAndScatterShape(op, select, w, source, init_value, scatter));
  };
  const Window w = SelectWindow();
  CHECK_THAT(err(Fn({S(kS64)}, S(kPred)), w, src, init, Binary(kS64)),
             Contains("select must take 2 parameters, but takes 1"));
  CHECK_THAT(err(Binary(kS64), w, src, init, Binary(kS64)),
             Contains("select must return pred[], but returns s64[]"));
  CHECK_THAT(err(GreaterEqual(kS32), w, src, init, Binary(kS64)),
             Contains("select parameter 0 has shape s32[] but the operand has element type s64"));
  CHECK_THAT(err(GreaterEqual(kS64), w, src, init, Fn({S(kS64)}, S(kS64))),
             Contains("scatter must take 2 parameters (an accumulator then an input), but "
                      "takes 1"));
  CHECK_THAT(err(GreaterEqual(kS64), w, src, *S(kF32), Binary(kS64)),
             Contains("init value 0 has shape f32[] but scatter's accumulator 0 has shape s64[]"));
  CHECK_THAT(err(GreaterEqual(kS64), w, src, *S(kS64, {1}), Binary(kS64)),
             Contains("init value must be a scalar"));
  CHECK_THAT(err(GreaterEqual(kS64), w, *S(kS32, {2, 2}), *S(kS32), Binary(kS32)),
             Contains("source has element type s32 but the operand has s64"));
  CHECK_THAT(err(GreaterEqual(kS64), w, *S(kS64, {3, 2}), init, Binary(kS64)),
             Contains("source has shape s64[3,2] but the window over operand s64[4,2] has "
                      "s64[2,2] positions"));
  CHECK_THAT(err(GreaterEqual(kS64), Win({3}), src, init, Binary(kS64)),
             Contains("window has 1 dimension but the operand s64[4,2] has rank 2"));
}

// ---- sort ------------------------------------------------------------------------

TEST_CASE("InferSortShape: spec example and single operand", "[shape_inference]") {
  // stablehlo.sort of two tensor<2x3xi64> along dimension 0.
  ProgramShape cmp = Fn({S(kS64), S(kS64), S(kS64), S(kS64)}, S(kPred));
  CHECK(Text(InferSortShape({S(kS64, {2, 3}), S(kS64, {2, 3})}, 0, cmp, Pool())) ==
        "(s64[2,3], s64[2,3])");
  CHECK(Text(InferSortShape({S(kF32, {5})}, 0, GreaterEqual(kF32), Pool())) == "f32[5]");
  // Keys and values of different types: parameters come in pairs per operand.
  ProgramShape kv = Fn({S(kF32), S(kF32), S(kS32), S(kS32)}, S(kPred));
  CHECK(Text(InferSortShape({S(kF32, {2, 4}), S(kS32, {2, 4})}, 1, kv, Pool())) ==
        "(f32[2,4], s32[2,4])");
}

TEST_CASE("InferSortShape: errors", "[shape_inference]") {
  ProgramShape kv = Fn({S(kF32), S(kF32), S(kS32), S(kS32)}, S(kPred));
  CHECK_THAT(Err(InferSortShape({}, 0, kv, Pool())), Contains("at least one operand"));
  CHECK_THAT(Err(InferSortShape({S(kF32, {3}), S(kS32, {4})}, 0, kv, Pool())),
             Contains("operand 0 f32[3] and operand 1 s32[4] must have the same dimensions"));
  CHECK_THAT(Err(InferSortShape({T({S(kF32)})}, 0, kv, Pool())),
             Contains("operand 0 must be an array"));
  CHECK_THAT(Err(InferSortShape({S(kF32, {3}), S(kS32, {3})}, 1, kv, Pool())),
             Contains("sort dimension 1 is out of range for rank 1"));
  CHECK_THAT(Err(InferSortShape({S(kF32, {3}), S(kS32, {3})}, -1, kv, Pool())),
             Contains("sort dimension -1 is out of range"));
  CHECK_THAT(Err(InferSortShape({S(kF32, {3}), S(kS32, {3})}, 0, GreaterEqual(kF32), Pool())),
             Contains("comparator must take 4 parameters (2 per operand), but takes 2"));
  CHECK_THAT(Err(InferSortShape({S(kF32, {3})}, 0, Binary(kF32), Pool())),
             Contains("comparator must return pred[], but returns f32[]"));
  ProgramShape wrong = Fn({S(kF32), S(kF32), S(kF32), S(kF32)}, S(kPred));
  CHECK_THAT(Err(InferSortShape({S(kF32, {3}), S(kS32, {3})}, 0, wrong, Pool())),
             Contains("comparator parameter 2 has shape f32[] but compares elements of "
                      "operand 1, which are s32[]"));
}

// ---- topk ------------------------------------------------------------------------

TEST_CASE("InferTopKShape", "[shape_inference]") {
  CHECK(Text(InferTopKShape(*S(kF32, {5, 10}), 3, Pool())) == "(f32[5,3], s32[5,3])");
  CHECK(Text(InferTopKShape(*S(kBF16, {10}), 10, Pool())) == "(bf16[10], s32[10])");
  CHECK(Text(InferTopKShape(*S(kF32, {4}), 0, Pool())) == "(f32[0], s32[0])");
  CHECK_THAT(Err(InferTopKShape(*S(kF32, {5, 10}), 11, Pool())),
             Contains("topk k is 11 but the last dimension of f32[5,10] has only 10 elements"));
  CHECK_THAT(Err(InferTopKShape(*S(kF32, {5}), -1, Pool())),
             Contains("topk k is -1; it must not be negative"));
  CHECK_THAT(Err(InferTopKShape(*S(kF32), 1, Pool())), Contains("rank at least 1"));
  CHECK_THAT(Err(InferTopKShape(*T({S(kF32, {3})}), 1, Pool())),
             Contains("operand must be an array"));
}

}  // namespace
}  // namespace hlo

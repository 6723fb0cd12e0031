// Tests for dot, convolution, fft, triangular-solve, cholesky, batch-norm,
// rng and rng-bit-generator shape inference. Valid cases follow the
// StableHLO spec's examples; each invalid case breaks one constraint and
// checks the message names it.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "passes/shape_inference.h"

namespace hlo {
namespace {

constexpr PrimitiveType kF32 = PrimitiveType::kF32;
constexpr PrimitiveType kF64 = PrimitiveType::kF64;
constexpr PrimitiveType kBF16 = PrimitiveType::kBF16;
constexpr PrimitiveType kC64 = PrimitiveType::kC64;
constexpr PrimitiveType kC128 = PrimitiveType::kC128;
constexpr PrimitiveType kS8 = PrimitiveType::kS8;
constexpr PrimitiveType kS32 = PrimitiveType::kS32;
constexpr PrimitiveType kS64 = PrimitiveType::kS64;
constexpr PrimitiveType kU32 = PrimitiveType::kU32;
constexpr PrimitiveType kU64 = PrimitiveType::kU64;
constexpr PrimitiveType kPred = PrimitiveType::kPred;

ShapePool& Pool() {
  static ShapePool pool;
  return pool;
}

const Shape& S(PrimitiveType t, std::vector<int64_t> dims = {}) {
  return *Pool().Intern(Shape::Array(t, dims));
}

const Shape& T(std::vector<const Shape*> elements) {
  return *Pool().Intern(Shape::Tuple(std::move(elements)));
}

const Shape& Dyn(const Shape& s, int64_t i) { return *Pool().Intern(s.WithDynamicDim(i, true)); }

std::string Text(const absl::StatusOr<Shape>& r) {
  REQUIRE(r.ok());
  return r->ToString(false);
}

std::string Err(const absl::StatusOr<Shape>& r) {
  REQUIRE_FALSE(r.ok());
  return std::string(r.status().message());
}

using Catch::Contains;

DotDims Dot(std::vector<int64_t> lb, std::vector<int64_t> lc, std::vector<int64_t> rb,
            std::vector<int64_t> rc) {
  return DotDims{std::move(lb), std::move(lc), std::move(rb), std::move(rc)};
}

// ---- dot ------------------------------------------------------------------------------

TEST_CASE("DotDimsOf reads the four dimension lists", "[shape_inference]") {
  Instruction dot(Opcode::kDot, "dot", &S(kF32, {2, 2}));
  dot.SetAttr(AttrKind::kLhsBatchDims, std::vector<int64_t>{0});
  dot.SetAttr(AttrKind::kLhsContractingDims, std::vector<int64_t>{2});
  dot.SetAttr(AttrKind::kRhsBatchDims, std::vector<int64_t>{0});
  dot.SetAttr(AttrKind::kRhsContractingDims, std::vector<int64_t>{1});
  DotDims d = DotDimsOf(dot);
  CHECK(d.lhs_batch == std::vector<int64_t>{0});
  CHECK(d.lhs_contracting == std::vector<int64_t>{2});
  CHECK(d.rhs_batch == std::vector<int64_t>{0});
  CHECK(d.rhs_contracting == std::vector<int64_t>{1});
  Instruction bare(Opcode::kDot, "outer", &S(kF32, {2, 2}));
  CHECK(DotDimsOf(bare).lhs_contracting.empty());
}

TEST_CASE("InferDotShape: spec example and dimension order", "[shape_inference]") {
  // stablehlo.dot_general: batching [0]x[0], contracting [2]x[1].
  CHECK(Text(InferDotShape(S(kS64, {2, 2, 2}), S(kS64, {2, 2, 2}), Dot({0}, {2}, {0}, {1}),
                           std::nullopt)) == "s64[2,2,2]");
  CHECK(Text(InferDotShape(S(kF32, {2, 3}), S(kF32, {3, 4}), Dot({}, {1}, {}, {0}), kF32)) ==
        "f32[2,4]");
  // Result: batch dims, then lhs free dims, then rhs free dims, in order.
  CHECK(Text(InferDotShape(S(kF32, {3, 7, 2}), S(kF32, {2, 3, 4, 5}), Dot({2}, {0}, {0}, {1}),
                           kF32)) == "f32[2,7,4,5]");
  // No contraction: an outer product.
  CHECK(Text(InferDotShape(S(kF32, {2}), S(kF32, {3}), Dot({}, {}, {}, {}), kF32)) == "f32[2,3]");
  CHECK(Text(InferDotShape(Dyn(S(kF32, {4, 3}), 0), S(kF32, {3, 5}), Dot({}, {1}, {}, {0}),
                           kF32)) == "f32[<=4,5]");
}

TEST_CASE("InferDotShape: element types", "[shape_inference]") {
  const DotDims mm = Dot({}, {1}, {}, {0});
  CHECK(Text(InferDotShape(S(kS8, {2, 3}), S(kS8, {3, 4}), mm, kS32)) == "s32[2,4]");
  CHECK(Text(InferDotShape(S(kBF16, {2, 3}), S(kBF16, {3, 4}), mm, kF32)) == "f32[2,4]");
  // XLA: mixed operand types, the declared type is the result's.
  CHECK(Text(InferDotShape(S(kS8, {2, 3}), S(kBF16, {3, 4}), mm, kBF16)) == "bf16[2,4]");
  // Without a declared type the higher-precision operand type wins.
  CHECK(Text(InferDotShape(S(kS32, {2, 3}), S(kF32, {3, 4}), mm, std::nullopt)) == "f32[2,4]");
  // A float result may be narrower than float operands.
  CHECK(Text(InferDotShape(S(kF32, {2, 3}), S(kF32, {3, 4}), mm, kBF16)) == "bf16[2,4]");
  CHECK_THAT(Err(InferDotShape(S(kS32, {2, 3}), S(kS32, {3, 4}), mm, kS8)),
             Contains("the result element type s8 is narrower than the operand type s32"));
  CHECK_THAT(Err(InferDotShape(S(kPred, {2, 3}), S(kF32, {3, 4}), mm, kF32)),
             Contains("lhs has element type pred but rhs has f32"));
}

TEST_CASE("InferDotShape: dimension errors", "[shape_inference]") {
  const Shape& a = S(kF32, {8, 64});
  const Shape& b = S(kF32, {32, 16});
  CHECK_THAT(Err(InferDotShape(a, b, Dot({}, {1}, {}, {0}), kF32)),
             Contains("lhs contracting dimension 1 has size 64 but rhs contracting dimension 0 "
                      "has size 32"));
  CHECK_THAT(Err(InferDotShape(a, b, Dot({}, {1}, {}, {}), kF32)),
             Contains("lhs has 1 contracting dimension {1} but rhs has 0 {}"));
  CHECK_THAT(
      Err(InferDotShape(S(kF32, {2, 3, 4}), S(kF32, {2, 4, 5}), Dot({0}, {2}, {}, {1}), kF32)),
      Contains("lhs has 1 batch dimension {0} but rhs has 0 {}"));
  CHECK_THAT(
      Err(InferDotShape(S(kF32, {2, 3, 4}), S(kF32, {3, 4, 5}), Dot({0}, {2}, {0}, {1}), kF32)),
      Contains("lhs batch dimension 0 has size 2 but rhs batch dimension 0 has size 3"));
  CHECK_THAT(Err(InferDotShape(a, b, Dot({}, {2}, {}, {0}), kF32)),
             Contains("lhs_contracting_dims {2} has dimension 2 out of range for rank 2"));
  CHECK_THAT(Err(InferDotShape(a, b, Dot({}, {1}, {}, {-1}), kF32)),
             Contains("rhs_contracting_dims {-1} has dimension -1 out of range"));
  CHECK_THAT(Err(InferDotShape(a, S(kF32, {64, 64}), Dot({}, {1}, {}, {0, 0}), kF32)),
             Contains("rhs_contracting_dims {0,0} repeats dimension 0"));
  CHECK_THAT(Err(InferDotShape(S(kF32, {2, 2}), S(kF32, {2, 2}), Dot({0}, {0}, {0}, {1}), kF32)),
             Contains("lhs dimension 0 is in both lhs_batch_dims and lhs_contracting_dims"));
  CHECK_THAT(Err(InferDotShape(T({&a}), b, Dot({}, {}, {}, {}), kF32)),
             Contains("lhs must be an array"));
}

// ---- convolution ------------------------------------------------------------------

// dim_labels from XLA's text form: `b01f`, `01io`, `b01f`.
ConvDims Labels(std::string_view in, std::string_view kernel, std::string_view out) {
  ConvDims d;
  auto spatial = [](std::vector<int64_t>& v, char c, int64_t pos) {
    size_t k = static_cast<size_t>(c - '0');
    if (v.size() <= k) v.resize(k + 1);
    v[k] = pos;
  };
  for (size_t i = 0; i < in.size(); ++i) {
    const auto p = static_cast<int64_t>(i);
    if (in[i] == 'b')
      d.input_batch = p;
    else if (in[i] == 'f')
      d.input_feature = p;
    else
      spatial(d.input_spatial, in[i], p);
  }
  for (size_t i = 0; i < kernel.size(); ++i) {
    const auto p = static_cast<int64_t>(i);
    if (kernel[i] == 'i')
      d.kernel_input_feature = p;
    else if (kernel[i] == 'o')
      d.kernel_output_feature = p;
    else
      spatial(d.kernel_spatial, kernel[i], p);
  }
  for (size_t i = 0; i < out.size(); ++i) {
    const auto p = static_cast<int64_t>(i);
    if (out[i] == 'b')
      d.output_batch = p;
    else if (out[i] == 'f')
      d.output_feature = p;
    else
      spatial(d.output_spatial, out[i], p);
  }
  return d;
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

const ConvDims kNHWC = Labels("b01f", "01io", "b01f");

TEST_CASE("InferConvolutionShape: spec example", "[shape_inference]") {
  // stablehlo.convolution: strides 4x4, lhs_dilation 2x2,
  // (tensor<1x4x4x1xi64>, tensor<3x3x1x1xi64>) -> tensor<1x2x2x1xi64>.
  Window w = Win({3, 3});
  for (WindowDim& d : w) {
    d.stride = 4;
    d.base_dilation = 2;
  }
  CHECK(Text(InferConvolutionShape(S(kS64, {1, 4, 4, 1}), S(kS64, {3, 3, 1, 1}), w, kNHWC, 1, 1,
                                   kS64)) == "s64[1,2,2,1]");
}

TEST_CASE("InferConvolutionShape: layouts, padding, groups", "[shape_inference]") {
  Window same = Win({3, 3});
  for (WindowDim& d : same) d.padding_low = d.padding_high = 1;
  CHECK(Text(InferConvolutionShape(S(kF32, {8, 32, 32, 3}), S(kF32, {3, 3, 3, 16}), same, kNHWC, 1,
                                   1, kF32)) == "f32[8,32,32,16]");
  // NCHW input, OIHW kernel: the labels place each dimension.
  CHECK(Text(InferConvolutionShape(S(kF32, {8, 3, 32, 32}), S(kF32, {16, 3, 5, 5}), Win({5, 5}),
                                   Labels("bf01", "oi01", "bf01"), 1, 1, kF32)) ==
        "f32[8,16,28,28]");
  // Output labels may differ from the input's.
  CHECK(Text(InferConvolutionShape(S(kF32, {8, 3, 32, 32}), S(kF32, {16, 3, 5, 5}), Win({5, 5}),
                                   Labels("bf01", "oi01", "b01f"), 1, 1, kF32)) ==
        "f32[8,28,28,16]");
  // Depthwise: 4 feature groups of one input feature each.
  CHECK(Text(InferConvolutionShape(S(kF32, {1, 10, 10, 4}), S(kF32, {3, 3, 1, 4}), Win({3, 3}),
                                   kNHWC, 4, 1, kF32)) == "f32[1,8,8,4]");
  // Batch groups fold the batch into the output features.
  CHECK(Text(InferConvolutionShape(S(kF32, {4, 5, 5, 2}), S(kF32, {3, 3, 2, 4}), Win({3, 3}), kNHWC,
                                   1, 2, kF32)) == "f32[2,3,3,4]");
  // Window (rhs) dilation: a 3-wide kernel dilated by 2 covers 5.
  Window dilated = Win({3});
  dilated[0].window_dilation = 2;
  CHECK(Text(InferConvolutionShape(S(kF32, {1, 10, 1}), S(kF32, {3, 1, 1}), dilated,
                                   Labels("b0f", "0io", "b0f"), 1, 1, kF32)) == "f32[1,6,1]");
  CHECK(Text(InferConvolutionShape(S(kS8, {1, 4, 4, 1}), S(kS8, {3, 3, 1, 1}), Win({3, 3}), kNHWC,
                                   1, 1, kS32)) == "s32[1,2,2,1]");
  CHECK(Text(InferConvolutionShape(Dyn(S(kF32, {8, 4, 4, 1}), 0), S(kF32, {3, 3, 1, 1}),
                                   Win({3, 3}), kNHWC, 1, 1, kF32)) == "f32[<=8,2,2,1]");
}

TEST_CASE("InferConvolutionShape: feature and group errors", "[shape_inference]") {
  const Window w = Win({1, 1});
  auto err = [&](std::vector<int64_t> lhs, std::vector<int64_t> rhs, int64_t fgc, int64_t bgc) {
    return Err(InferConvolutionShape(S(kF32, lhs), S(kF32, rhs), w, kNHWC, fgc, bgc, kF32));
  };
  CHECK_THAT(err({1, 4, 4, 3}, {1, 1, 4, 8}, 1, 1),
             Contains("the input feature dimension has size 3 but the kernel input feature "
                      "dimension has size 4"));
  CHECK_THAT(err({1, 4, 4, 6}, {1, 1, 1, 8}, 4, 1),
             Contains("the input feature dimension has size 6, which is not divisible by "
                      "feature_group_count 4"));
  CHECK_THAT(err({1, 4, 4, 4}, {1, 1, 2, 3}, 2, 1),
             Contains("the kernel output feature dimension has size 3, which is not divisible "
                      "by feature_group_count 2"));
  CHECK_THAT(err({2, 4, 4, 4}, {1, 1, 4, 3}, 1, 2),
             Contains("the kernel output feature dimension has size 3, which is not divisible "
                      "by batch_group_count 2"));
  CHECK_THAT(err({3, 4, 4, 4}, {1, 1, 4, 4}, 1, 2),
             Contains("the input batch dimension has size 3, which is not divisible by "
                      "batch_group_count 2"));
  CHECK_THAT(err({4, 4, 4, 4}, {1, 1, 2, 4}, 2, 2),
             Contains("feature_group_count 2 and batch_group_count 2 cannot both be greater "
                      "than 1"));
  CHECK_THAT(err({1, 4, 4, 4}, {1, 1, 4, 4}, 0, 1),
             Contains("feature_group_count is 0; it must be at least 1"));
  CHECK_THAT(err({1, 4, 4, 4}, {1, 1, 4, 4}, 1, -1),
             Contains("batch_group_count is -1; it must be at least 1"));
}

TEST_CASE("InferConvolutionShape: layout and window errors", "[shape_inference]") {
  const Shape& lhs = S(kF32, {1, 8, 8, 2});
  const Shape& rhs = S(kF32, {3, 3, 2, 4});
  auto err = [&](const Window& w, const ConvDims& d) {
    return Err(InferConvolutionShape(lhs, rhs, w, d, 1, 1, kF32));
  };
  CHECK_THAT(err(Win({3}), kNHWC),
             Contains("window has 1 dimensions but dim_labels have 2 spatial dimensions"));
  CHECK_THAT(err(Win({2, 3}), kNHWC),
             Contains("window dimension 0 has size 2 but kernel spatial dimension 0 (dimension "
                      "0 of the kernel) has size 3"));
  CHECK_THAT(err(Win({3}), Labels("b0f", "0io", "b0f")),
             Contains("dim_labels describe rank-3 operands, but lhs is f32[1,8,8,2]"));
  ConvDims repeated = kNHWC;
  repeated.input_spatial = {1, 1};
  CHECK_THAT(err(Win({3, 3}), repeated),
             Contains("dim_labels: the input dimensions {0,3,1,1} do not name each of the 4 "
                      "dimensions exactly once"));
  ConvDims short_kernel = kNHWC;
  short_kernel.kernel_spatial = {0};
  CHECK_THAT(err(Win({3, 3}), short_kernel),
             Contains("dim_labels have 2 input, 1 kernel and 2 output spatial dimensions"));
  Window w = Win({3, 3});
  w[1].stride = 0;
  CHECK_THAT(err(w, kNHWC), Contains("window dimension 1 has stride 0; it must be at least 1"));
  w = Win({3, 3});
  w[0].padding_low = -9;
  CHECK_THAT(err(w, kNHWC), Contains("to -1, which is negative"));
  w = Win({3, 3});
  w[0].base_dilation = 0;
  CHECK_THAT(err(w, kNHWC), Contains("dilations must be at least 1"));
  CHECK_THAT(
      Err(InferConvolutionShape(S(kPred, {1, 8, 8, 2}), rhs, Win({3, 3}), kNHWC, 1, 1, kF32)),
      Contains("lhs has element type pred but rhs has f32"));
}

// ---- fft -----------------------------------------------------------------------------

TEST_CASE("InferFftShape: the four types", "[shape_inference]") {
  // stablehlo.fft example: FFT of tensor<4xcomplex<f32>>, fft_length [4].
  CHECK(Text(InferFftShape(S(kC64, {4}), "FFT", {4})) == "c64[4]");
  CHECK(Text(InferFftShape(S(kC128, {2, 8}), "IFFT", {8})) == "c128[2,8]");
  CHECK(Text(InferFftShape(S(kF32, {3, 8}), "RFFT", {8})) == "c64[3,5]");
  CHECK(Text(InferFftShape(S(kF64, {4, 6}), "RFFT", {4, 6})) == "c128[4,4]");
  CHECK(Text(InferFftShape(S(kC64, {3, 5}), "IRFFT", {8})) == "f32[3,8]");
  CHECK(Text(InferFftShape(S(kC128, {4, 5}), "IRFFT", {4, 9})) == "f64[4,9]");
  CHECK(Text(InferFftShape(S(kC64, {2, 3, 4, 5}), "FFT", {3, 4, 5})) == "c64[2,3,4,5]");
  // Zero-sized transforms keep their zero size.
  CHECK(Text(InferFftShape(S(kF32, {0}), "RFFT", {0})) == "c64[0]");
}

TEST_CASE("InferFftShape: errors", "[shape_inference]") {
  CHECK_THAT(Err(InferFftShape(S(kF32, {4}), "FFT", {4})),
             Contains("FFT needs a complex operand, but has f32[4]"));
  CHECK_THAT(Err(InferFftShape(S(kF32, {4}), "IRFFT", {6})),
             Contains("IRFFT needs a complex operand, but has f32[4]"));
  CHECK_THAT(Err(InferFftShape(S(kC64, {4}), "RFFT", {4})),
             Contains("RFFT needs an f32 or f64 operand, but has c64[4]"));
  CHECK_THAT(Err(InferFftShape(S(kBF16, {4}), "RFFT", {4})), Contains("f32 or f64"));
  CHECK_THAT(Err(InferFftShape(S(kC64, {4}), "FFT", {})),
             Contains("fft_length {} has 0 entries; an FFT transforms 1 to 3 dimensions"));
  CHECK_THAT(Err(InferFftShape(S(kC64, {1, 2, 3, 4}), "FFT", {1, 2, 3, 4})),
             Contains("has 4 entries"));
  CHECK_THAT(Err(InferFftShape(S(kC64, {4}), "FFT", {4, 4})),
             Contains("an FFT of 2 dimensions needs an operand of rank at least 2, but has "
                      "c64[4]"));
  CHECK_THAT(Err(InferFftShape(S(kC64, {2, 4}), "IFFT", {8})),
             Contains("dimension 1 must be fft_length[0] = 8, but has size 4"));
  CHECK_THAT(Err(InferFftShape(S(kF32, {4, 8}), "RFFT", {5, 8})),
             Contains("dimension 0 must be fft_length[0] = 5, but has size 4"));
  CHECK_THAT(Err(InferFftShape(S(kC64, {3, 4}), "IRFFT", {8})),
             Contains("IRFFT of length 8 needs the last operand dimension to have size 8/2+1 = "
                      "5, but c64[3,4] has 4"));
  CHECK_THAT(Err(InferFftShape(S(kC64, {3, 5}), "IRFFT", {2, 8})),
             Contains("dimension 0 must be fft_length[0] = 2, but has size 3"));
  CHECK_THAT(Err(InferFftShape(S(kC64, {4}), "DFT", {4})), Contains("unknown fft_type 'DFT'"));
}

// ---- triangular-solve and cholesky --------------------------------------------------

TEST_CASE("InferTriangularSolveShape", "[shape_inference]") {
  // stablehlo.triangular_solve example: tensor<3x3xf32> twice, left_side.
  CHECK(Text(InferTriangularSolveShape(S(kF32, {3, 3}), S(kF32, {3, 3}), true)) == "f32[3,3]");
  CHECK(Text(InferTriangularSolveShape(S(kF32, {2, 3, 3}), S(kF32, {2, 3, 5}), true)) ==
        "f32[2,3,5]");
  CHECK(Text(InferTriangularSolveShape(S(kC64, {2, 3, 3}), S(kC64, {2, 5, 3}), false)) ==
        "c64[2,5,3]");
  CHECK_THAT(Err(InferTriangularSolveShape(S(kS32, {3, 3}), S(kS32, {3, 3}), true)),
             Contains("triangular-solve needs floating-point or complex operands, but a is "
                      "s32[3,3]"));
  CHECK_THAT(Err(InferTriangularSolveShape(S(kF32, {3, 3}), S(kF64, {3, 3}), true)),
             Contains("a has element type f32 but b has f64"));
  CHECK_THAT(Err(InferTriangularSolveShape(S(kF32, {3}), S(kF32, {3}), true)),
             Contains("a must have rank at least 2, but has shape f32[3]"));
  CHECK_THAT(Err(InferTriangularSolveShape(S(kF32, {3, 4}), S(kF32, {3, 4}), true)),
             Contains("a must be square in its last two dimensions, but has shape f32[3,4]"));
  CHECK_THAT(Err(InferTriangularSolveShape(S(kF32, {2, 3, 3}), S(kF32, {3, 3}), true)),
             Contains("a f32[2,3,3] and b f32[3,3] must have the same rank"));
  CHECK_THAT(Err(InferTriangularSolveShape(S(kF32, {2, 3, 3}), S(kF32, {4, 3, 3}), true)),
             Contains("must have the same batch dimensions"));
  CHECK_THAT(Err(InferTriangularSolveShape(S(kF32, {3, 3}), S(kF32, {4, 5}), true)),
             Contains("with left_side=true, dimension 0 of b f32[4,5] must equal the size 3 of "
                      "the matrix a f32[3,3], but is 4"));
  CHECK_THAT(Err(InferTriangularSolveShape(S(kF32, {3, 3}), S(kF32, {3, 5}), false)),
             Contains("with left_side=false, dimension 1 of b f32[3,5]"));
}

TEST_CASE("InferCholeskyShape", "[shape_inference]") {
  // stablehlo.cholesky example: tensor<3x3xf32>.
  CHECK(Text(InferCholeskyShape(S(kF32, {3, 3}))) == "f32[3,3]");
  CHECK(Text(InferCholeskyShape(S(kC128, {2, 4, 4}))) == "c128[2,4,4]");
  CHECK_THAT(Err(InferCholeskyShape(S(kS32, {3, 3}))),
             Contains("cholesky needs floating-point or complex operands, but a is s32[3,3]"));
  CHECK_THAT(Err(InferCholeskyShape(S(kF32, {3}))), Contains("a must have rank at least 2"));
  CHECK_THAT(Err(InferCholeskyShape(S(kF32, {2, 3}))),
             Contains("a must be square in its last two dimensions"));
}

// ---- batch norm ------------------------------------------------------------------------

TEST_CASE("InferBatchNorm*Shape: spec examples", "[shape_inference]") {
  const Shape& x = S(kF64, {2, 2, 2});
  const Shape& v = S(kF64, {2});
  CHECK(Text(InferBatchNormTrainingShape(x, v, v, 2, Pool())) == "(f64[2,2,2], f64[2], f64[2])");
  CHECK(Text(InferBatchNormInferenceShape(x, v, v, v, v, 2)) == "f64[2,2,2]");
  CHECK(Text(InferBatchNormGradShape(x, v, v, v, x, 2, Pool())) == "(f64[2,2,2], f64[2], f64[2])");
  // XLA allows statistics in another float precision; outputs follow the
  // operand.
  CHECK(Text(InferBatchNormTrainingShape(S(kBF16, {4, 3}), S(kF32, {3}), S(kF32, {3}), 1,
                                         Pool())) == "(bf16[4,3], bf16[3], bf16[3])");
}

TEST_CASE("InferBatchNorm*Shape: errors", "[shape_inference]") {
  const Shape& x = S(kF64, {2, 2, 2});
  const Shape& v = S(kF64, {2});
  CHECK_THAT(Err(InferBatchNormTrainingShape(x, v, v, 3, Pool())),
             Contains("feature_index 3 is out of range for operand f64[2,2,2] of rank 3"));
  CHECK_THAT(Err(InferBatchNormInferenceShape(x, v, v, v, v, -1)),
             Contains("feature_index -1 is out of range"));
  CHECK_THAT(Err(InferBatchNormTrainingShape(S(kS32, {2, 2}), v, v, 1, Pool())),
             Contains("batch-norm-training needs a floating-point operand, but has s32[2,2]"));
  CHECK_THAT(Err(InferBatchNormTrainingShape(S(kF32), v, v, 0, Pool())),
             Contains("needs an operand of rank at least 1"));
  CHECK_THAT(Err(InferBatchNormTrainingShape(x, S(kF64, {2, 1}), v, 2, Pool())),
             Contains("scale must have rank 1, but has shape f64[2,1]"));
  CHECK_THAT(Err(InferBatchNormTrainingShape(x, S(kF64, {3}), v, 2, Pool())),
             Contains("scale has 3 elements but feature dimension 2 of the operand f64[2,2,2] "
                      "has size 2"));
  CHECK_THAT(Err(InferBatchNormTrainingShape(x, v, S(kS32, {2}), 2, Pool())),
             Contains("offset has element type s32 but the operand has f64"));
  CHECK_THAT(Err(InferBatchNormInferenceShape(x, v, v, S(kF64, {4}), v, 2)),
             Contains("mean has 4 elements"));
  CHECK_THAT(Err(InferBatchNormGradShape(x, v, v, S(kF64, {1}), x, 2, Pool())),
             Contains("variance has 1 elements"));
  CHECK_THAT(Err(InferBatchNormGradShape(x, v, v, v, S(kF64, {2, 2}), 2, Pool())),
             Contains("operand f64[2,2,2] and grad_output f64[2,2] must have the same "
                      "dimensions"));
  CHECK_THAT(Err(InferBatchNormGradShape(x, v, v, v, S(kS32, {2, 2, 2}), 2, Pool())),
             Contains("grad_output has element type s32"));
}

// ---- rng -------------------------------------------------------------------------------

TEST_CASE("InferRngShape", "[shape_inference]") {
  // stablehlo.rng example: uniform over s32 [0, 2), shape [3, 3].
  CHECK(Text(InferRngShape("rng_uniform", {&S(kS32), &S(kS32)}, S(kS32, {3, 3}))) == "s32[3,3]");
  CHECK(Text(InferRngShape("rng_normal", {&S(kF32), &S(kF32)}, S(kF32, {2}))) == "f32[2]");
  CHECK(Text(InferRngShape("rng_uniform", {&S(kPred), &S(kPred)}, S(kPred, {4}))) == "pred[4]");
  CHECK_THAT(Err(InferRngShape("rng_poisson", {&S(kF32), &S(kF32)}, S(kF32))),
             Contains("unknown distribution 'rng_poisson'"));
  CHECK_THAT(Err(InferRngShape("rng_normal", {&S(kF32)}, S(kF32))),
             Contains("rng_normal takes 2 operands (mu and sigma), but has 1"));
  CHECK_THAT(Err(InferRngShape("rng_uniform", {&S(kF32, {2}), &S(kF32)}, S(kF32))),
             Contains("a must be a scalar"));
  CHECK_THAT(Err(InferRngShape("rng_uniform", {&S(kF32), &S(kF64)}, S(kF32))),
             Contains("a has element type f32 but b has f64"));
  CHECK_THAT(Err(InferRngShape("rng_normal", {&S(kS32), &S(kS32)}, S(kS32))),
             Contains("rng_normal needs floating-point operands, but mu is s32[]"));
  CHECK_THAT(Err(InferRngShape("rng_uniform", {&S(kC64), &S(kC64)}, S(kC64))),
             Contains("rng_uniform needs integer, floating-point or pred operands"));
  CHECK_THAT(Err(InferRngShape("rng_uniform", {&S(kF32), &S(kF32)}, S(kF64, {2}))),
             Contains("the result f64[2] must have the operands' element type f32"));
}

TEST_CASE("InferRngBitGeneratorShape", "[shape_inference]") {
  // stablehlo.rng_bit_generator example: THREE_FRY, tensor<2xui64> state.
  const Shape& s2 = S(kU64, {2});
  const Shape& s3 = S(kU64, {3});
  CHECK(Text(InferRngBitGeneratorShape(s2, "rng_three_fry", T({&s2, &S(kU64, {2, 2})}))) ==
        "(u64[2], u64[2,2])");
  CHECK(Text(InferRngBitGeneratorShape(s3, "rng_philox", T({&s3, &S(kU32, {4})}))) ==
        "(u64[3], u32[4])");
  CHECK(Text(InferRngBitGeneratorShape(s2, "rng_philox", T({&s2, &S(kU32, {4})}))) ==
        "(u64[2], u32[4])");
  CHECK(Text(InferRngBitGeneratorShape(s2, "", T({&s2, &S(kF32, {8})}))) == "(u64[2], f32[8])");
  CHECK(Text(InferRngBitGeneratorShape(s3, "rng_default", T({&s3, &S(kS32, {8})}))) ==
        "(u64[3], s32[8])");
  CHECK_THAT(Err(InferRngBitGeneratorShape(S(kS64, {2}), "rng_default", T({&s2, &s2}))),
             Contains("the rng-bit-generator state must be a u64 vector, but has shape s64[2]"));
  CHECK_THAT(Err(InferRngBitGeneratorShape(s3, "rng_three_fry", T({&s3, &s2}))),
             Contains("rng_three_fry needs a u64[2] state, but has u64[3]"));
  CHECK_THAT(Err(InferRngBitGeneratorShape(S(kU64, {4}), "rng_philox", T({&s2, &s2}))),
             Contains("rng_philox needs a u64[2] or u64[3] state, but has u64[4]"));
  CHECK_THAT(Err(InferRngBitGeneratorShape(s2, "rng_mt", T({&s2, &s2}))),
             Contains("unknown algorithm 'rng_mt'"));
  CHECK_THAT(Err(InferRngBitGeneratorShape(s2, "rng_default", S(kU32, {4}))),
             Contains("the result must be a tuple (new state, random bits), but is u32[4]"));
  CHECK_THAT(Err(InferRngBitGeneratorShape(s2, "rng_default", T({&s3, &s2}))),
             Contains("the result's new state has shape u64[3] but the state operand has shape "
                      "u64[2]"));
  CHECK_THAT(Err(InferRngBitGeneratorShape(s2, "rng_default", T({&s2, &S(kPred, {4})}))),
             Contains("the random bits must be an integer or floating-point array, but have "
                      "shape pred[4]"));
}

}  // namespace
}  // namespace hlo

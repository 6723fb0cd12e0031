// cholesky, triangular-solve, fft and batch-norm kernels called directly:
// worked examples from the spec, and operands or attributes that disagree
// with the instruction (which the verifier normally rejects) giving
// messages, never crashes. The numeric coverage is in testdata/eval
// (scripts/goldens/linalg.py).
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "eval/evaluator.h"
#include "eval/kernels/kernels.h"
#include "ir/computation.h"
#include "ir/literal.h"
#include "ir/strings.h"
#include "parser/parser.h"

namespace hlo {
namespace {

class Runner {
 public:
  explicit Runner(std::string_view text) {
    absl::StatusOr<std::unique_ptr<Module>> m =
        ParseModule(StrCat("HloModule test\n\nENTRY main {\n", text, "\n}\n"));
    INFO((m.ok() ? std::string() : std::string(m.status().message())));
    REQUIRE(m.ok());
    module_ = *std::move(m);
    evaluator_ = std::make_unique<Evaluator>(*module_, EvalOptions{});
  }
  Instruction& Root() { return *module_->entry()->root(); }
  absl::StatusOr<Value> Eval(const std::vector<Value>& operands) {
    std::vector<const Value*> ptrs;
    for (const Value& v : operands) ptrs.push_back(&v);
    Instruction& root = Root();
    switch (root.opcode()) {
      case Opcode::kFft:
        return EvalFft(root, ptrs, *evaluator_);
      case Opcode::kCholesky:
      case Opcode::kTriangularSolve:
        return EvalLinalg(root, ptrs, *evaluator_);
      default:
        return EvalBatchNorm(root, ptrs, *evaluator_);
    }
  }

 private:
  std::unique_ptr<Module> module_;
  std::unique_ptr<Evaluator> evaluator_;
};

Value V(std::string_view text) {
  absl::StatusOr<Literal> lit = ParseLiteral(text);
  INFO(text << ": " << (lit.ok() ? std::string() : std::string(lit.status().message())));
  REQUIRE(lit.ok());
  return Value::FromLiteral(*std::move(lit));
}

std::string Text(const absl::StatusOr<Value>& v) {
  INFO((v.ok() ? std::string() : std::string(v.status().message())));
  REQUIRE(v.ok());
  return LiteralToString(v->ToLiteral(), LiteralStyle::kCompact);
}

void ExpectError(const absl::StatusOr<Value>& got, std::string_view fragment) {
  REQUIRE_FALSE(got.ok());
  std::string message(got.status().message());
  INFO(message);
  CHECK(message.find(fragment) != std::string::npos);
}

TEST_CASE("cholesky: the StableHLO example", "[linalg]") {
  // stablehlo-spec.en.md, cholesky: l = {{1,0,0},{2,4,0},{3,5,6}}.
  Runner r("a = f32[3,3] parameter(0)\nROOT c = f32[3,3] cholesky(a), lower=true");
  CHECK(Text(r.Eval({V("f32[3,3] {{1, 2, 3}, {2, 20, 26}, {3, 26, 70}}")})) ==
        "f32[3,3] {{1, 0, 0}, {2, 4, 0}, {3, 5, 6}}");
}

TEST_CASE("cholesky: upper reads only the upper triangle", "[linalg]") {
  // u = l^T of the example; the lower triangle holds values never read.
  Runner r("a = f64[3,3] parameter(0)\nROOT c = f64[3,3] cholesky(a), lower=false");
  CHECK(Text(r.Eval({V("f64[3,3] {{1, 2, 3}, {-7, 20, 26}, {1e300, -1, 70}}")})) ==
        "f64[3,3] {{1, 2, 3}, {0, 4, 5}, {0, 0, 6}}");
}

TEST_CASE("cholesky: operands that do not fit are errors", "[linalg]") {
  Runner r("a = f32[2,2] parameter(0)\nROOT c = f32[2,2] cholesky(a), lower=true");
  ExpectError(r.Eval({V("f32[2,3] {{1, 0, 0}, {0, 1, 0}}")}), "square");
  ExpectError(r.Eval({V("f32[3] {1, 2, 3}")}), "square");
  ExpectError(r.Eval({V("s32[2,2] {{1, 0}, {0, 1}}")}), "result shape");
  ExpectError(r.Eval({}), "takes 1 operands");
}

TEST_CASE("triangular-solve: the StableHLO example", "[linalg]") {
  // stablehlo-spec.en.md, triangular_solve: left, lower, no transpose.
  Runner r(
      "a = f32[3,3] parameter(0)\nb = f32[3,3] parameter(1)\n"
      "ROOT x = f32[3,3] triangular-solve(a, b), left_side=true, lower=true, "
      "unit_diagonal=false, transpose_a=NO_TRANSPOSE");
  CHECK(Text(r.Eval({V("f32[3,3] {{1, 0, 0}, {2, 4, 0}, {3, 5, 6}}"),
                     V("f32[3,3] {{2, 0, 0}, {4, 8, 0}, {6, 10, 12}}")})) ==
        "f32[3,3] {{2, 0, 0}, {0, 2, 0}, {0, 0, 2}}");
}

TEST_CASE("triangular-solve: bad operands and attributes are errors", "[linalg]") {
  Runner r(
      "a = f32[2,2] parameter(0)\nb = f32[2,3] parameter(1)\n"
      "ROOT x = f32[2,3] triangular-solve(a, b), left_side=true, lower=true, "
      "unit_diagonal=false, transpose_a=NO_TRANSPOSE");
  Value a = V("f32[2,2] {{1, 0}, {2, 4}}");
  ExpectError(r.Eval({V("f32[2,3] {{1, 0, 0}, {0, 1, 0}}"), V("f32[2,3] {{1,2,3},{4,5,6}}")}),
              "square");
  ExpectError(r.Eval({a, V("f32[3,2] {{1, 2}, {3, 4}, {5, 6}}")}), "does not fit");
  ExpectError(r.Eval({a, V("f64[2,3] {{1,2,3},{4,5,6}}")}), "does not fit");
  r.Root().SetAttr(AttrKind::kTransposeA, std::string("SIDEWAYS"));
  ExpectError(r.Eval({a, V("f32[2,3] {{1,2,3},{4,5,6}}")}), "unknown transpose_a");
}

TEST_CASE("fft: the StableHLO example and bad operands", "[fft]") {
  // stablehlo-spec.en.md, fft: FFT of {1, 0, 0, 0} is all ones.
  Runner r("x = c64[4] parameter(0)\nROOT f = c64[4] fft(x), fft_type=FFT, fft_length={4}");
  CHECK(Text(r.Eval({V("c64[4] {(1, 0), (0, 0), (0, 0), (0, 0)}")})) ==
        "c64[4] {(1, 0), (1, 0), (1, 0), (1, 0)}");
  ExpectError(r.Eval({V("c64[5] {(1, 0), (0, 0), (0, 0), (0, 0), (0, 0)}")}), "must be 4");
  ExpectError(r.Eval({V("f32[4] {1, 0, 0, 0}")}), "c64 or c128");
  r.Root().SetAttr(AttrKind::kFftType, std::string("DCT"));
  ExpectError(r.Eval({V("c64[4] {(1, 0), (0, 0), (0, 0), (0, 0)}")}), "unknown fft_type");
  r.Root().SetAttr(AttrKind::kFftType, std::string("FFT"));
  r.Root().SetAttr(AttrKind::kFftLength, std::vector<int64_t>{1, 1, 1, 4});
  ExpectError(r.Eval({V("c64[4] {(1, 0), (0, 0), (0, 0), (0, 0)}")}), "1 to 3 entries");
}

TEST_CASE("fft: IRFFT inverts RFFT", "[fft]") {
  // RFFT of {1, 2, 3, 4, 5} keeps 3 of 5 frequencies; IRFFT of them with
  // length 5 gives the input back (numpy.fft.irfft(numpy.fft.rfft(x), 5)).
  Runner f("x = f64[5] parameter(0)\nROOT f = c128[3] fft(x), fft_type=RFFT, fft_length={5}");
  absl::StatusOr<Value> spectrum = f.Eval({V("f64[5] {1, 2, 3, 4, 5}")});
  REQUIRE(spectrum.ok());
  CHECK(spectrum->array().GetComplex(0) == std::complex<double>(15, 0));
  Runner i("x = c128[3] parameter(0)\nROOT f = f64[5] fft(x), fft_type=IRFFT, fft_length={5}");
  absl::StatusOr<Value> back = i.Eval({*spectrum});
  REQUIRE(back.ok());
  for (int k = 0; k < 5; ++k) CHECK(back->array().GetDouble(k) == Approx(k + 1).epsilon(1e-15));
}

TEST_CASE("batch-norm-training: the StableHLO example", "[batch_norm]") {
  // stablehlo-spec.en.md, batch_norm_training (epsilon 0, feature_index 2).
  Runner r(
      "x = f32[2,2,2] parameter(0)\ns = f32[2] parameter(1)\no = f32[2] parameter(2)\n"
      "ROOT b = (f32[2,2,2], f32[2], f32[2]) batch-norm-training(x, s, o), epsilon=0, "
      "feature_index=2");
  absl::StatusOr<Value> v = r.Eval({V("f32[2,2,2] {{{1, 2}, {3, 4}}, {{3, 4}, {1, 2}}}"),
                                    V("f32[2] {1, 1}"), V("f32[2] {1, 1}")});
  CHECK(Text(v) ==
        "(f32[2,2,2] {{{0, 0}, {2, 2}}, {{2, 2}, {0, 0}}}, f32[2] {2, 3}, f32[2] {1, 1})");
}

TEST_CASE("batch-norm: bad operands and attributes are errors", "[batch_norm]") {
  Runner r(
      "x = f32[2,3] parameter(0)\ns = f32[3] parameter(1)\no = f32[3] parameter(2)\n"
      "m = f32[3] parameter(3)\nv = f32[3] parameter(4)\n"
      "ROOT b = f32[2,3] batch-norm-inference(x, s, o, m, v), epsilon=0.1, feature_index=1");
  Value x = V("f32[2,3] {{1, 2, 3}, {4, 5, 6}}"), f = V("f32[3] {1, 1, 1}");
  ExpectError(r.Eval({x, V("f32[2] {1, 1}"), f, f, f}), "one element per feature");
  ExpectError(r.Eval({x, f, f}), "takes 5 operands");
  ExpectError(r.Eval({V("s32[2,3] {{1, 2, 3}, {4, 5, 6}}"), f, f, f, f}), "floating-point");
  r.Root().SetAttr(AttrKind::kFeatureIndex, int64_t{2});
  ExpectError(r.Eval({x, f, f, f, f}), "out of range");
}

}  // namespace
}  // namespace hlo

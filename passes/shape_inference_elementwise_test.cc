// Tests for shape_inference_elementwise.cc: the StableHLO spec's examples as
// the valid cases, and one invalid case per constraint, checking that the
// message names what is wrong.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "passes/shape_inference.h"

namespace hlo {
namespace {

using PT = PrimitiveType;

Shape A(PT t, std::vector<int64_t> dims) { return Shape::Array(t, dims); }
Shape S(PT t) { return Shape::Array(t, {}); }

std::string Message(const absl::StatusOr<Shape>& r) {
  return r.ok() ? std::string("ok: ") + r->ToString(false) : std::string(r.status().message());
}

// The inferred shape is `want` (dims, dynamism, type) and carries no layout.
void CheckShape(const absl::StatusOr<Shape>& got, const Shape& want) {
  INFO(Message(got) << " vs wanted " << want.ToString(false));
  REQUIRE(got.ok());
  CHECK(got->Compatible(want));
  CHECK_FALSE(got->has_layout());
}

// The inference fails with a message containing every piece of `needles`.
void CheckError(const absl::StatusOr<Shape>& got, std::vector<std::string> needles) {
  REQUIRE_FALSE(got.ok());
  for (const std::string& n : needles) CHECK_THAT(Message(got), Catch::Contains(n));
}

// ---- unary ------------------------------------------------------------------

TEST_CASE("unary: spec examples", "[shape_inference]") {
  CheckShape(InferUnaryShape(Opcode::kAbs, A(PT::kS32, {3})), A(PT::kS32, {3}));
  CheckShape(InferUnaryShape(Opcode::kCeil, A(PT::kF32, {5})), A(PT::kF32, {5}));
  CheckShape(InferUnaryShape(Opcode::kCbrt, A(PT::kF64, {4})), A(PT::kF64, {4}));
  CheckShape(InferUnaryShape(Opcode::kClz, A(PT::kS64, {2, 2})), A(PT::kS64, {2, 2}));
  CheckShape(InferUnaryShape(Opcode::kPopcnt, A(PT::kS64, {4})), A(PT::kS64, {4}));
  CheckShape(InferUnaryShape(Opcode::kIsFinite, A(PT::kF64, {7})), A(PT::kPred, {7}));
  CheckShape(InferUnaryShape(Opcode::kReal, A(PT::kC64, {2})), A(PT::kF32, {2}));
  CheckShape(InferUnaryShape(Opcode::kImag, A(PT::kC64, {2})), A(PT::kF32, {2}));
  CheckShape(InferUnaryShape(Opcode::kNot, A(PT::kS32, {2, 2})), A(PT::kS32, {2, 2}));
  CheckShape(InferUnaryShape(Opcode::kNot, A(PT::kPred, {2})), A(PT::kPred, {2}));
  CheckShape(InferUnaryShape(Opcode::kNegate, A(PT::kS32, {2})), A(PT::kS32, {2}));
  CheckShape(InferUnaryShape(Opcode::kNegate, A(PT::kC64, {1})), A(PT::kC64, {1}));
  CheckShape(InferUnaryShape(Opcode::kSign, A(PT::kF64, {5})), A(PT::kF64, {5}));
  CheckShape(InferUnaryShape(Opcode::kSqrt, A(PT::kF32, {2, 2})), A(PT::kF32, {2, 2}));
  CheckShape(InferUnaryShape(Opcode::kLogistic, A(PT::kF64, {2, 2})), A(PT::kF64, {2, 2}));
}

TEST_CASE("unary: result element types", "[shape_inference]") {
  // abs of complex is the magnitude; real/imag of a float keep the type.
  CheckShape(InferUnaryShape(Opcode::kAbs, A(PT::kC128, {3})), A(PT::kF64, {3}));
  CheckShape(InferUnaryShape(Opcode::kImag, A(PT::kBF16, {3})), A(PT::kBF16, {3}));
  CheckShape(InferUnaryShape(Opcode::kExp, A(PT::kC64, {})), A(PT::kC64, {}));
  CheckShape(InferUnaryShape(Opcode::kSign, A(PT::kC64, {2})), A(PT::kC64, {2}));
  CheckShape(InferUnaryShape(Opcode::kAtanh, A(PT::kF16, {2})), A(PT::kF16, {2}));
  // The spec allows cbrt on complex (unlike erf and the rounding ops).
  CheckShape(InferUnaryShape(Opcode::kCbrt, A(PT::kC64, {2})), A(PT::kC64, {2}));
  // Dynamism and `?` pass through.
  Shape dyn = A(PT::kF32, {4, Shape::kUnboundedSize}).WithDynamicDim(0, true);
  CheckShape(InferUnaryShape(Opcode::kTanh, dyn), dyn);
  // Layouts are dropped.
  Shape laid = A(PT::kF32, {2, 3}).WithDefaultLayout();
  CheckShape(InferUnaryShape(Opcode::kCos, laid), A(PT::kF32, {2, 3}));
}

TEST_CASE("unary: copy takes any shape", "[shape_inference]") {
  ShapePool pool;
  Shape tuple = Shape::Tuple({pool.Intern(A(PT::kF32, {2})), pool.Intern(Shape::Token())});
  CheckShape(InferUnaryShape(Opcode::kCopy, tuple), tuple);
  CheckShape(InferUnaryShape(Opcode::kCopy, A(PT::kU4, {3})), A(PT::kU4, {3}));
}

TEST_CASE("unary: element types each op rejects", "[shape_inference]") {
  struct Case {
    Opcode op;
    PT type;
    const char* words;
  };
  const Case cases[] = {
      {Opcode::kSqrt, PT::kS32, "floating point or complex"},
      {Opcode::kExp, PT::kPred, "floating point or complex"},
      {Opcode::kAbs, PT::kU32, "signed integer, floating point or complex"},
      {Opcode::kSign, PT::kU8, "signed integer, floating point or complex"},
      {Opcode::kNegate, PT::kPred, "integer, floating point or complex"},
      {Opcode::kNot, PT::kF32, "pred or integer"},
      {Opcode::kPopcnt, PT::kF32, "integer"},
      {Opcode::kClz, PT::kPred, "integer"},
      {Opcode::kFloor, PT::kC64, "floating point"},
      {Opcode::kRoundNearestEven, PT::kS32, "floating point"},
      {Opcode::kErf, PT::kC64, "floating point"},
      {Opcode::kIsFinite, PT::kS32, "floating point"},
      {Opcode::kReal, PT::kS32, "floating point or complex"},
      {Opcode::kAcos, PT::kS16, "floating point or complex"},
  };
  for (const Case& c : cases) {
    INFO(OpcodeName(c.op) << " on " << PrimitiveTypeName(c.type));
    CheckError(InferUnaryShape(c.op, A(c.type, {2})),
               {std::string("operand of '") + std::string(OpcodeName(c.op)) + "'", c.words,
                std::string("element type ") + std::string(PrimitiveTypeName(c.type))});
  }
  CheckError(InferUnaryShape(Opcode::kSqrt, A(PT::kS32, {2})),
             {"operand of 'sqrt' must be floating point or complex, but has element type s32"});
}

TEST_CASE("unary: non-array operands and non-unary opcodes", "[shape_inference]") {
  CheckError(InferUnaryShape(Opcode::kExp, Shape::Token()),
             {"operand of 'exponential'", "must be an array"});
  CheckError(InferUnaryShape(Opcode::kAdd, A(PT::kF32, {})), {"'add'", "not a unary"});
  CheckError(InferUnaryShape(Opcode::kConvert, A(PT::kF32, {})), {"'convert'"});
}

// ---- binary -----------------------------------------------------------------

TEST_CASE("binary: spec examples", "[shape_inference]") {
  CheckShape(InferBinaryShape(Opcode::kAdd, A(PT::kS32, {2, 2}), A(PT::kS32, {2, 2})),
             A(PT::kS32, {2, 2}));
  CheckShape(InferBinaryShape(Opcode::kAnd, A(PT::kS32, {2, 2}), A(PT::kS32, {2, 2})),
             A(PT::kS32, {2, 2}));
  CheckShape(InferBinaryShape(Opcode::kAtan2, A(PT::kF64, {3}), A(PT::kF64, {3})),
             A(PT::kF64, {3}));
  CheckShape(InferBinaryShape(Opcode::kShiftLeft, A(PT::kS64, {3}), A(PT::kS64, {3})),
             A(PT::kS64, {3}));
  CheckShape(InferBinaryShape(Opcode::kPower, A(PT::kF64, {6}), A(PT::kF64, {6})),
             A(PT::kF64, {6}));
  CheckShape(InferBinaryShape(Opcode::kRemainder, A(PT::kS64, {4}), A(PT::kS64, {4})),
             A(PT::kS64, {4}));
  CheckShape(InferBinaryShape(Opcode::kSubtract, A(PT::kF32, {2, 2}), A(PT::kF32, {2, 2})),
             A(PT::kF32, {2, 2}));
}

TEST_CASE("binary: logical ops on pred", "[shape_inference]") {
  for (Opcode op : {Opcode::kAdd, Opcode::kMultiply, Opcode::kMaximum, Opcode::kMinimum,
                    Opcode::kAnd, Opcode::kOr, Opcode::kXor}) {
    INFO(OpcodeName(op));
    CheckShape(InferBinaryShape(op, A(PT::kPred, {2}), A(PT::kPred, {2})), A(PT::kPred, {2}));
  }
  CheckShape(InferBinaryShape(Opcode::kMulhi, A(PT::kU32, {2}), A(PT::kU32, {2})),
             A(PT::kU32, {2}));
  CheckShape(InferBinaryShape(Opcode::kAtan2, A(PT::kC64, {}), A(PT::kC64, {})), A(PT::kC64, {}));
}

TEST_CASE("binary: element types each op rejects", "[shape_inference]") {
  struct Case {
    Opcode op;
    PT type;
    const char* words;
  };
  const Case cases[] = {
      {Opcode::kSubtract, PT::kPred, "integer, floating point or complex"},
      {Opcode::kDivide, PT::kPred, "integer, floating point or complex"},
      {Opcode::kRemainder, PT::kPred, "integer, floating point or complex"},
      {Opcode::kPower, PT::kPred, "integer, floating point or complex"},
      {Opcode::kAtan2, PT::kS32, "floating point or complex"},
      {Opcode::kAnd, PT::kF32, "pred or integer"},
      {Opcode::kXor, PT::kC64, "pred or integer"},
      {Opcode::kShiftLeft, PT::kF32, "integer"},
      {Opcode::kShiftRightLogical, PT::kPred, "integer"},
      {Opcode::kMulhi, PT::kF32, "integer"},
  };
  for (const Case& c : cases) {
    INFO(OpcodeName(c.op) << " on " << PrimitiveTypeName(c.type));
    CheckError(InferBinaryShape(c.op, A(c.type, {2}), A(c.type, {2})),
               {std::string("operands of '") + std::string(OpcodeName(c.op)) + "'", c.words,
                std::string("have element type ") + std::string(PrimitiveTypeName(c.type))});
  }
}

TEST_CASE("binary: operands must agree", "[shape_inference]") {
  CheckError(InferBinaryShape(Opcode::kAdd, A(PT::kF32, {2, 3}), A(PT::kF32, {3, 2})),
             {"lhs f32[2,3] and rhs f32[3,2] must have the same dimensions"});
  // No implicit broadcasting, not even of scalars.
  CheckError(InferBinaryShape(Opcode::kAdd, A(PT::kF32, {2}), S(PT::kF32)),
             {"must have the same dimensions"});
  CheckError(InferBinaryShape(Opcode::kAdd, A(PT::kF32, {2}), A(PT::kS32, {2})),
             {"lhs has element type f32 but rhs has s32"});
  CheckError(InferBinaryShape(Opcode::kAdd, Shape::Token(), A(PT::kF32, {2})),
             {"lhs of 'add' must be an array"});
  CheckError(InferBinaryShape(Opcode::kNegate, A(PT::kF32, {2}), A(PT::kF32, {2})),
             {"'negate'", "not a binary"});
}

TEST_CASE("binary: dynamic dimensions merge", "[shape_inference]") {
  // `?` matches any size and takes the other side's; `<=N` wins over N.
  Shape unbounded = A(PT::kF32, {Shape::kUnboundedSize, 3});
  CheckShape(InferBinaryShape(Opcode::kAdd, unbounded, A(PT::kF32, {2, 3})), A(PT::kF32, {2, 3}));
  Shape bounded = A(PT::kF32, {4}).WithDynamicDim(0, true);
  CheckShape(InferBinaryShape(Opcode::kMultiply, A(PT::kF32, {4}), bounded), bounded);
  CheckShape(InferBinaryShape(Opcode::kComplex, A(PT::kF32, {2}), A(PT::kF32, {2})),
             A(PT::kC64, {2}));
}

// ---- compare ----------------------------------------------------------------

TEST_CASE("compare: spec example and comparison types", "[shape_inference]") {
  CheckShape(InferCompareShape(A(PT::kF32, {2}), A(PT::kF32, {2}), "LT", "FLOAT"),
             A(PT::kPred, {2}));
  CheckShape(InferCompareShape(A(PT::kF32, {2}), A(PT::kF32, {2}), "GE", "TOTALORDER"),
             A(PT::kPred, {2}));
  CheckShape(InferCompareShape(A(PT::kS8, {2}), A(PT::kS8, {2}), "GT", "SIGNED"),
             A(PT::kPred, {2}));
  CheckShape(InferCompareShape(A(PT::kU16, {}), A(PT::kU16, {}), "EQ", "UNSIGNED"),
             A(PT::kPred, {}));
  CheckShape(InferCompareShape(A(PT::kPred, {3}), A(PT::kPred, {3}), "NE", "UNSIGNED"),
             A(PT::kPred, {3}));
  // Without a type, the element type's default applies.
  CheckShape(InferCompareShape(A(PT::kBF16, {3}), A(PT::kBF16, {3}), "LE", ""), A(PT::kPred, {3}));
  // Complex compares with FLOAT, in any direction (lexicographic).
  CheckShape(InferCompareShape(A(PT::kC64, {2}), A(PT::kC64, {2}), "EQ", "FLOAT"),
             A(PT::kPred, {2}));
  CheckShape(InferCompareShape(A(PT::kC64, {2}), A(PT::kC64, {2}), "LT", ""), A(PT::kPred, {2}));
}

TEST_CASE("compare: invalid", "[shape_inference]") {
  CheckError(InferCompareShape(A(PT::kF32, {2}), A(PT::kF32, {3}), "LT", ""),
             {"lhs f32[2] and rhs f32[3] must have the same dimensions"});
  CheckError(InferCompareShape(A(PT::kF32, {2}), A(PT::kF64, {2}), "LT", ""),
             {"lhs has element type f32 but rhs has f64"});
  CheckError(InferCompareShape(A(PT::kF32, {2}), A(PT::kF32, {2}), "LESS", ""),
             {"direction 'LESS'"});
  CheckError(InferCompareShape(A(PT::kF32, {2}), A(PT::kF32, {2}), "", ""), {"direction ''"});
  CheckError(InferCompareShape(A(PT::kF32, {2}), A(PT::kF32, {2}), "LT", "PARTIAL"),
             {"compare type 'PARTIAL'"});
  CheckError(InferCompareShape(A(PT::kF32, {2}), A(PT::kF32, {2}), "LT", "SIGNED"),
             {"compare type SIGNED does not suit element type f32", "FLOAT or TOTALORDER"});
  CheckError(InferCompareShape(A(PT::kS32, {2}), A(PT::kS32, {2}), "LT", "UNSIGNED"),
             {"UNSIGNED does not suit element type s32", "(expected SIGNED)"});
  CheckError(InferCompareShape(A(PT::kU32, {2}), A(PT::kU32, {2}), "LT", "FLOAT"),
             {"FLOAT does not suit element type u32"});
  CheckError(InferCompareShape(A(PT::kC64, {2}), A(PT::kC64, {2}), "EQ", "TOTALORDER"),
             {"TOTALORDER does not suit element type c64"});
}

// ---- complex, select, clamp -------------------------------------------------

TEST_CASE("complex", "[shape_inference]") {
  CheckShape(InferComplexShape(A(PT::kF64, {2}), A(PT::kF64, {2})), A(PT::kC128, {2}));
  CheckShape(InferComplexShape(S(PT::kF32), S(PT::kF32)), S(PT::kC64));
  CheckError(InferComplexShape(A(PT::kF16, {2}), A(PT::kF16, {2})),
             {"operands of 'complex' must be f32 or f64", "f16"});
  CheckError(InferComplexShape(A(PT::kF32, {2}), A(PT::kF64, {2})),
             {"real part has element type f32 but imaginary part has f64"});
  CheckError(InferComplexShape(A(PT::kF32, {2}), A(PT::kF32, {1})),
             {"real part f32[2] and imaginary part f32[1] must have the same dimensions"});
}

TEST_CASE("select", "[shape_inference]") {
  CheckShape(InferSelectShape(A(PT::kPred, {2, 2}), A(PT::kS32, {2, 2}), A(PT::kS32, {2, 2})),
             A(PT::kS32, {2, 2}));
  // A scalar pred picks a whole operand.
  CheckShape(InferSelectShape(S(PT::kPred), A(PT::kF32, {3}), A(PT::kF32, {3})), A(PT::kF32, {3}));
  CheckError(InferSelectShape(A(PT::kS32, {2}), A(PT::kF32, {2}), A(PT::kF32, {2})),
             {"pred of 'select' must have element type pred, but has s32"});
  CheckError(InferSelectShape(A(PT::kPred, {3}), A(PT::kF32, {2}), A(PT::kF32, {2})),
             {"pred pred[3] and on_true f32[2] must have the same dimensions"});
  CheckError(InferSelectShape(A(PT::kPred, {2}), A(PT::kF32, {2}), A(PT::kF32, {3})),
             {"on_true f32[2] and on_false f32[3] must have the same dimensions"});
  CheckError(InferSelectShape(A(PT::kPred, {2}), A(PT::kF32, {2}), A(PT::kF64, {2})),
             {"on_true has element type f32 but on_false has f64"});
  CheckError(InferSelectShape(A(PT::kPred, {2}), Shape::Token(), Shape::Token()),
             {"on_true of 'select' must be an array"});
}

TEST_CASE("clamp", "[shape_inference]") {
  CheckShape(InferClampShape(A(PT::kS32, {3}), A(PT::kS32, {3}), A(PT::kS32, {3})),
             A(PT::kS32, {3}));
  CheckShape(InferClampShape(S(PT::kF32), A(PT::kF32, {2, 3}), S(PT::kF32)), A(PT::kF32, {2, 3}));
  CheckShape(InferClampShape(S(PT::kF32), A(PT::kF32, {2}), A(PT::kF32, {2})), A(PT::kF32, {2}));
  CheckError(InferClampShape(A(PT::kF32, {3}), A(PT::kF32, {2}), S(PT::kF32)),
             {"min f32[3] and operand f32[2] must have the same dimensions"});
  CheckError(InferClampShape(S(PT::kF32), A(PT::kF32, {2}), A(PT::kF32, {1})),
             {"max f32[1] and operand f32[2] must have the same dimensions"});
  CheckError(InferClampShape(S(PT::kS32), A(PT::kF32, {2}), S(PT::kF32)),
             {"min has element type s32 but operand has f32"});
  CheckError(InferClampShape(S(PT::kF32), A(PT::kF32, {2}), S(PT::kF64)),
             {"max has element type f64 but operand has f32"});
}

// ---- conversions ------------------------------------------------------------

TEST_CASE("convert", "[shape_inference]") {
  CheckShape(InferConvertShape(A(PT::kS64, {3}), PT::kC128), A(PT::kC128, {3}));
  CheckShape(InferConvertShape(A(PT::kC64, {3}), PT::kF32), A(PT::kF32, {3}));
  CheckShape(InferConvertShape(A(PT::kF32, {2}), PT::kS4), A(PT::kS4, {2}));
  CheckError(InferConvertShape(A(PT::kF32, {2}), PT::kToken),
             {"'convert' cannot produce element type token"});
  CheckError(InferConvertShape(Shape::Token(), PT::kF32), {"operand of 'convert'"});
}

TEST_CASE("bitcast-convert", "[shape_inference]") {
  // Narrower: a new minor dimension holds the pieces of each element.
  CheckShape(InferBitcastConvertShape(S(PT::kF64), PT::kF16), A(PT::kF16, {4}));
  CheckShape(InferBitcastConvertShape(A(PT::kF32, {2}), PT::kS4), A(PT::kS4, {2, 8}));
  // Wider: the minor dimension is joined.
  CheckShape(InferBitcastConvertShape(A(PT::kF16, {4}), PT::kF64), S(PT::kF64));
  CheckShape(InferBitcastConvertShape(A(PT::kU8, {3, 4}), PT::kF32), A(PT::kF32, {3}));
  CheckShape(InferBitcastConvertShape(A(PT::kC64, {2}), PT::kC128), S(PT::kC128));
  // Equal widths keep the dims.
  CheckShape(InferBitcastConvertShape(A(PT::kF32, {2, 3}), PT::kU32), A(PT::kU32, {2, 3}));
  CheckShape(InferBitcastConvertShape(A(PT::kPred, {2}), PT::kS8), A(PT::kS8, {2}));

  CheckError(InferBitcastConvertShape(A(PT::kC64, {2}), PT::kF64),
             {"bitcast-convert from c64 to f64 mixes complex and real types"});
  CheckError(InferBitcastConvertShape(A(PT::kF16, {3}), PT::kF32),
             {"from f16[3] to f32 needs a last dimension of size 2"});
  CheckError(InferBitcastConvertShape(S(PT::kF16), PT::kF32), {"needs a last dimension of size 2"});
  CheckError(InferBitcastConvertShape(A(PT::kF32, {2}), PT::kOpaque),
             {"cannot produce element type opaque"});
}

TEST_CASE("stochastic-convert", "[shape_inference]") {
  CheckShape(InferStochasticConvertShape(A(PT::kF32, {4}), A(PT::kU32, {4}), PT::kS8),
             A(PT::kS8, {4}));
  CheckShape(InferStochasticConvertShape(A(PT::kBF16, {2}), A(PT::kU16, {2}), PT::kF8E4M3FN),
             A(PT::kF8E4M3FN, {2}));
  CheckError(InferStochasticConvertShape(A(PT::kS32, {4}), A(PT::kU32, {4}), PT::kS8),
             {"operand of 'stochastic-convert' must be floating point", "s32"});
  CheckError(InferStochasticConvertShape(A(PT::kF32, {4}), A(PT::kS32, {4}), PT::kS8),
             {"random operand", "unsigned integer", "s32"});
  CheckError(InferStochasticConvertShape(A(PT::kF32, {4}), A(PT::kU16, {4}), PT::kS8),
             {"as many bits", "u16 has 16"});
  CheckError(InferStochasticConvertShape(A(PT::kF32, {4}), A(PT::kU32, {2}), PT::kS8),
             {"operand f32[4] and random operand u32[2] must have the same dimensions"});
  CheckError(InferStochasticConvertShape(A(PT::kF32, {4}), A(PT::kU32, {4}), PT::kC64),
             {"integer or floating point type, not c64"});
}

TEST_CASE("reduce-precision", "[shape_inference]") {
  CheckShape(InferReducePrecisionShape(A(PT::kF64, {6}), 5, 10), A(PT::kF64, {6}));
  CheckShape(InferReducePrecisionShape(A(PT::kBF16, {}), 1, 0), S(PT::kBF16));
  CheckError(InferReducePrecisionShape(A(PT::kF32, {6}), 0, 10),
             {"exponent_bits must be at least 1, but is 0"});
  CheckError(InferReducePrecisionShape(A(PT::kF32, {6}), 5, -1),
             {"mantissa_bits must not be negative, but is -1"});
  CheckError(InferReducePrecisionShape(A(PT::kS32, {6}), 5, 10),
             {"operand of 'reduce-precision' must be floating point", "s32"});
}

// ---- map --------------------------------------------------------------------

// A computation signature from interned shapes.
ProgramShape Program(ShapePool& pool, std::vector<Shape> params, const Shape& result) {
  ProgramShape p;
  for (const Shape& s : params) p.params.push_back(pool.Intern(s));
  p.result = pool.Intern(result);
  return p;
}

TEST_CASE("map: spec example and result types", "[shape_inference]") {
  ShapePool pool;
  Shape x = A(PT::kS64, {2, 2});
  ProgramShape mul = Program(pool, {S(PT::kS64), S(PT::kS64)}, S(PT::kS64));
  std::vector<const Shape*> operands = {&x, &x};
  CheckShape(InferMapShape(operands, mul, {0, 1}), x);
  // The result takes the computation's type; dimensions may be left out.
  Shape y = A(PT::kF32, {2, 2});
  ProgramShape lt = Program(pool, {S(PT::kS64), S(PT::kF32)}, S(PT::kPred));
  std::vector<const Shape*> mixed = {&x, &y};
  CheckShape(InferMapShape(mixed, lt, {}), A(PT::kPred, {2, 2}));
}

TEST_CASE("map: invalid", "[shape_inference]") {
  ShapePool pool;
  Shape x = A(PT::kF32, {2, 3}), z = A(PT::kF32, {3, 2});
  ProgramShape add = Program(pool, {S(PT::kF32), S(PT::kF32)}, S(PT::kF32));
  std::vector<const Shape*> two = {&x, &x};
  CheckError(InferMapShape({}, add, {}), {"map needs at least one operand"});
  std::vector<const Shape*> differ = {&x, &z};
  CheckError(InferMapShape(differ, add, {}),
             {"map operand 0 f32[2,3] and map operand 1 f32[3,2] must have the same"});
  CheckError(InferMapShape(two, add, {1, 0}), {"map dimensions {1,0} must be {0,1}"});
  CheckError(InferMapShape(two, add, {0}), {"map dimensions {0} must be {0,1}"});
  std::vector<const Shape*> one = {&x};
  CheckError(InferMapShape(one, add, {}),
             {"map computation takes 2 parameters, but map has 1 operands"});
  ProgramShape wrong_param = Program(pool, {S(PT::kF32), S(PT::kS32)}, S(PT::kF32));
  CheckError(InferMapShape(two, wrong_param, {}),
             {"map computation parameter 1 must be f32[], but is s32[]"});
  ProgramShape vector_param = Program(pool, {S(PT::kF32), A(PT::kF32, {3})}, S(PT::kF32));
  CheckError(InferMapShape(two, vector_param, {}), {"parameter 1 must be f32[]", "f32[3]"});
  ProgramShape vector_result = Program(pool, {S(PT::kF32), S(PT::kF32)}, A(PT::kF32, {2}));
  CheckError(InferMapShape(two, vector_result, {}),
             {"map computation must return a scalar, but returns f32[2]"});
}

}  // namespace
}  // namespace hlo

// hlo::ParseLiteral / ParseLiteralValue, and print -> parse round trips in
// both literal styles (design.md "Literal text"; FORMAT-NOTES.md §7, §10).
#include <bit>
#include <catch2/catch.hpp>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "ir/float_formats.h"
#include "parser/parser.h"

namespace hlo {
namespace {

using PT = PrimitiveType;
constexpr LiteralStyle kStyles[] = {LiteralStyle::kHloConstant, LiteralStyle::kCompact};

const char* StyleName(LiteralStyle s) {
  return s == LiteralStyle::kHloConstant ? "hlo" : "compact";
}

Literal MustParse(std::string_view text) {
  absl::StatusOr<Literal> lit = ParseLiteral(text);
  INFO(text);
  if (!lit.ok()) FAIL(lit.status().message());
  return *std::move(lit);
}

Literal MustParseValue(std::string_view text, const Shape& shape) {
  absl::StatusOr<Literal> lit = ParseLiteralValue(text, shape);
  INFO(text << " as " << shape.ToString());
  if (!lit.ok()) FAIL(lit.status().message());
  return *std::move(lit);
}

bool Fails(std::string_view text) {
  absl::StatusOr<Literal> lit = ParseLiteral(text);
  INFO(text);
  if (lit.ok()) {
    INFO("parsed as " << LiteralToString(*lit, LiteralStyle::kCompact));
    return false;
  }
  return !lit.status().message().empty();
}

bool FailsValue(std::string_view text, const Shape& shape) {
  absl::StatusOr<Literal> lit = ParseLiteralValue(text, shape);
  INFO(text << " as " << shape.ToString());
  if (lit.ok()) {
    INFO("parsed as " << LiteralToString(*lit, LiteralStyle::kCompact));
    return false;
  }
  return !lit.status().message().empty();
}

std::string Reprint(std::string_view text, LiteralStyle style = LiteralStyle::kCompact) {
  absl::StatusOr<Literal> lit = ParseLiteral(text);
  if (!lit.ok()) return "ERROR: " + std::string(lit.status().message());
  return LiteralToString(*lit, style);
}

Shape Parsed(std::string_view text, ShapePool& pool) {
  absl::StatusOr<Shape> s = ParseShape(text, pool);
  INFO(text);
  REQUIRE(s.ok());
  return *s;
}

// ---------------------------------------------------------------------------
// Reading values

TEST_CASE("parse literal: scalars of every integer type", "[literal_parser]") {
  struct Row {
    const char* text;
    int64_t value;  // GetInt
  };
  const Row rows[] = {
      {"s8[] -128", -128},
      {"s8[] 127", 127},
      {"u8[] 255", 255},
      {"s16[] -32768", -32768},
      {"u16[] 65535", 65535},
      {"s32[] -2147483648", INT32_MIN},
      {"s32[] 2147483647", INT32_MAX},
      {"u32[] 4294967295", UINT32_MAX},
      {"s64[] -9223372036854775808", INT64_MIN},
      {"s64[] 9223372036854775807", INT64_MAX},
      {"u64[] 18446744073709551615", -1},
      // XLA reads a u64 as an int64 and keeps its bits (ConstantUnsignedUnderflow).
      {"u64[] -1", -1},
      {"u64[] -9223372036854775808", INT64_MIN},
      {"u64[] 9223372036854775808", INT64_MIN},
      {"s4[] -8", -8},
      {"s4[] 7", 7},
      {"u4[] 15", 15},
      {"s2[] -2", -2},
      {"s2[] 1", 1},
      {"u2[] 3", 3},
      {"s1[] -1", -1},
      {"s1[] 0", 0},
      {"u1[] 1", 1},
      {"u1[] 0", 0},
      {"s32[] 0", 0},
      {"s32[] -0", 0},
      {"u8[] -0", 0},
  };
  for (const Row& r : rows) {
    INFO(r.text);
    Literal lit = MustParse(r.text);
    CHECK(lit.GetInt(0) == r.value);
    CHECK(lit.shape().rank() == 0);
  }
}

TEST_CASE("parse literal: integer range errors", "[literal_parser]") {
  for (const char* text : {"s8[] 128",
                           "s8[] -129",
                           "u8[] 256",
                           "u8[] -1",
                           "s16[] 32768",
                           "s16[] -32769",
                           "u16[] 65536",
                           "s32[] 2147483648",
                           "s32[] -2147483649",
                           "u32[] 4294967296",
                           "u32[] -1",
                           "s64[] 9223372036854775808",
                           "s64[] -9223372036854775809",
                           "u64[] 18446744073709551616",
                           "u64[] -9223372036854775809",
                           "u64[] 99999999999999999999",
                           "s4[] 8",
                           "s4[] -9",
                           "u4[] 16",
                           "u4[] -1",
                           "s2[] 2",
                           "s2[] -3",
                           "u2[] 4",
                           "s1[] 1",
                           "s1[] -2",
                           "u1[] 2",
                           "u1[] -1",
                           "s32[] 1.5",
                           "s32[] 1e3",
                           "s32[] x",
                           "s32[] inf",
                           "s32[] nan",
                           "s32[] \"1\"",
                           "s32[] 0x10",
                           "s32[] 1_1",
                           "s4[2] {7, 8}",
                           "u2[3] {0, 1, 4}"}) {
    CHECK(Fails(text));
  }
}

TEST_CASE("parse literal: pred", "[literal_parser]") {
  CHECK(MustParse("pred[] true").GetInt(0) == 1);
  CHECK(MustParse("pred[] false").GetInt(0) == 0);
  // Arrays print 1/0 (FORMAT-NOTES §7); both spellings read back.
  Literal a = MustParse("pred[4] {1, 0, true, false}");
  CHECK(a.GetInt(0) == 1);
  CHECK(a.GetInt(1) == 0);
  CHECK(a.GetInt(2) == 1);
  CHECK(a.GetInt(3) == 0);
  CHECK(MustParse("pred[] 1").GetInt(0) == 1);
  for (const char* text :
       {"pred[] 2", "pred[] -1", "pred[] yes", "pred[] TRUE", "pred[] 1.0", "pred[2] {1, 2}"}) {
    CHECK(Fails(text));
  }
}

TEST_CASE("parse literal: floats", "[literal_parser]") {
  CHECK(MustParse("f32[] 1").GetDouble(0) == 1);
  CHECK(MustParse("f32[] -2.5").GetDouble(0) == -2.5);
  CHECK(MustParse("f32[] 0.1").GetBits(0) == std::bit_cast<uint32_t>(0.1f));
  CHECK(MustParse("f64[] 0.1").GetBits(0) == std::bit_cast<uint64_t>(0.1));
  CHECK(MustParse("f32[] 1e10").GetDouble(0) == 1e10f);
  CHECK(MustParse("f32[] 3e+2").GetDouble(0) == 300);
  CHECK(MustParse("f32[] 1e-05").GetDouble(0) == 1e-5f);
  CHECK(MustParse("f64[] 1.").GetDouble(0) == 1);
  CHECK(MustParse("f64[] .5").GetDouble(0) == 0.5);
  CHECK(MustParse("f32[3] {1., -.5, .25e1}").GetDouble(2) == 2.5);
  CHECK(MustParse("f32[] inf").GetDouble(0) == INFINITY);
  CHECK(MustParse("f32[] -inf").GetDouble(0) == -INFINITY);
  CHECK(std::isnan(MustParse("f32[] nan").GetDouble(0)));
  CHECK(MustParse("f32[] nan").GetBits(0) == 0x7FC00000u);
  CHECK(MustParse("f32[] -nan").GetBits(0) == 0xFFC00000u);
  CHECK(MustParse("f64[] -nan").GetBits(0) == 0xFFF8000000000000u);
  // -0 keeps its sign (XLA's lexer loses it; see FORMAT-NOTES §7).
  CHECK(MustParse("f32[] -0").GetBits(0) == 0x80000000u);
  CHECK(MustParse("f64[] -0").GetBits(0) == 0x8000000000000000u);
  CHECK(MustParse("f16[] -0").GetBits(0) == 0x8000u);
  CHECK(MustParse("f32[] -0.0").GetBits(0) == 0x80000000u);
  // f32 rounds once, from the decimal text (not through double):
  // 1.00000005960464477539062500000001 is just above the midpoint between 1
  // and the next float, so it rounds up; through double it would be exactly
  // the midpoint and round to even (1).
  CHECK(MustParse("f32[] 1.00000005960464477539062500000001").GetBits(0) == 0x3F800001u);
  // Narrow types round to nearest even.
  CHECK(MustParse("f16[] 0.1").GetBits(0) == 0x2E66);
  CHECK(MustParse("bf16[] 3.14159").GetBits(0) == 0x4049);
  CHECK(MustParse("f8e4m3fn[] 448").GetBits(0) == 0x7E);
  CHECK(MustParse("f8e5m2[] 57344").GetBits(0) == 0x7B);
  CHECK(MustParse("f4e2m1fn[] -6").GetBits(0) == 0xF);
  CHECK(MustParse("f8e8m0fnu[] 0.5").GetBits(0) == 126);
  CHECK(MustParse("f16[] inf").GetBits(0) == 0x7C00);
  CHECK(MustParse("bf16[] -inf").GetBits(0) == 0xFF80);
  // Integers are fine for floats.
  CHECK(MustParse("f64[3] {1, -2, 3}").GetDouble(1) == -2);
  for (const char* text :
       {"f32[] x", "f32[] true", "f32[] 1x", "f32[] \"1\"", "f32[] 1_1x2_2", "f32[] (1, 2)",
        "f32[] infinity", "f32[] --1", "f32[] 1e", "f32[] ..."}) {
    CHECK(Fails(text));
  }
}

TEST_CASE("parse literal: NaN payloads", "[literal_parser]") {
  CHECK(MustParse("f32[] nan(0x1)").GetBits(0) == 0x7F800001u);
  CHECK(MustParse("f32[] -nan(0x7f)").GetBits(0) == 0xFF80007Fu);
  CHECK(MustParse("f32[] nan(0x400000)").GetBits(0) == 0x7FC00000u);
  CHECK(MustParse("f32[] nan(0x7fffff)").GetBits(0) == 0x7FFFFFFFu);
  CHECK(MustParse("f64[] nan(0x1)").GetBits(0) == 0x7FF0000000000001u);
  CHECK(MustParse("f64[] -nan(0xfffffffffffff)").GetBits(0) == 0xFFFFFFFFFFFFFFFFu);
  CHECK(MustParse("f16[] nan(0x1)").GetBits(0) == 0x7C01);
  CHECK(MustParse("f16[] -nan(0x201)").GetBits(0) == 0xFE01);
  CHECK(MustParse("bf16[] nan(0x7f)").GetBits(0) == 0x7FFF);
  CHECK(MustParse("f32[2] {nan(0x1), -nan(0x2)}").GetBits(1) == 0xFF800002u);
  // Payloads that do not fit the mantissa are errors.
  CHECK(Fails("f32[] nan(0x800000)"));
  CHECK(Fails("f16[] nan(0x400)"));
  CHECK(Fails("bf16[] nan(0x80)"));
  CHECK(Fails("f64[] nan(0x10000000000000)"));
  CHECK(Fails("f32[] nan(1)"));
  CHECK(Fails("f32[] nan(0x1"));
  CHECK(Fails("f32[] nan(0xzz)"));
}

// The printer writes payloads for the 8-bit IEEE-like formats (e5m2, e4m3,
// e3m4; FORMAT-NOTES §7), so the parser reads them there too.
TEST_CASE("parse literal: NaN payloads of 8-bit formats", "[literal_parser]") {
  CHECK(Reprint("f8e5m2[] nan(0x1)") == "f8e5m2[] nan(0x1)");
  CHECK(Reprint("f8e5m2[] -nan(0x3)") == "f8e5m2[] -nan(0x3)");
  CHECK(Reprint("f8e4m3[] nan(0x1)") == "f8e4m3[] nan(0x1)");
  CHECK(Reprint("f8e3m4[] -nan(0x7)") == "f8e3m4[] -nan(0x7)");
  CHECK(Fails("f8e5m2[] nan(0x4)"));
}

TEST_CASE("parse literal: complex", "[literal_parser]") {
  Literal c = MustParse("c64[2] {(1, 2), (-0.5, inf)}");
  CHECK(c.GetComplex(0) == std::complex<double>(1, 2));
  CHECK(c.GetComplex(1) == std::complex<double>(-0.5, INFINITY));
  Literal z = MustParse("c128[] (0.1, -0.2)");
  CHECK(z.GetComplex(0) == std::complex<double>(0.1, -0.2));
  Literal n = MustParse("c64[] (nan, -nan)");
  CHECK(std::isnan(n.GetComplex(0).real()));
  CHECK(std::signbit(n.GetComplex(0).imag()));
  for (const char* text : {"c64[] 1", "c64[] (1)", "c64[] (1, 2, 3)", "c64[] (1 2)", "c64[] (1, 2",
                           "c64[] {1, 2}", "c64[1] {1}"}) {
    CHECK(Fails(text));
  }
}

TEST_CASE("parse literal: arrays", "[literal_parser]") {
  Literal a = MustParse("s32[2,3] {{1, 2, 3}, {4, 5, 6}}");
  CHECK(a.shape().ToString() == "s32[2,3]");
  for (int i = 0; i < 6; ++i) CHECK(a.GetInt(i) == i + 1);
  // XLA's spacing, index comments and line breaks are all just whitespace.
  Literal b =
      MustParse("s32[1,2,1,2] { { /*i0=0*/ { /*i1=0*/ { 1, 2 } }, { /*i1=1*/ { 3, 4 } } } }");
  for (int i = 0; i < 4; ++i) CHECK(b.GetInt(i) == i + 1);
  Literal c = MustParse("f32[2,2] {\n  { 1, 2 },\n  { 3, 4 }\n}");
  CHECK(c.GetDouble(3) == 4);
  CHECK(MustParse("f32[0] {}").element_count() == 0);
  CHECK(MustParse("f32[2,0] {{}, {}}").element_count() == 0);
  CHECK(MustParse("f32[0,2] {}").element_count() == 0);
  CHECK(MustParse("f32[0,2] {  }").element_count() == 0);
  CHECK(MustParse("s32[2,0,3] { {  }, {  } }").element_count() == 0);
  CHECK(MustParse("f32[2,1,1,0] { { /*i0=0*/ { /*i1=0*/ {} } }, { /*i0=1*/ { /*i1=0*/ {} } } }")
            .element_count() == 0);
  CHECK(MustParse("s32[2,0,1,1] { { /*i0=0*/ }, { /*i0=1*/ } }").element_count() == 0);
  // A layout in the literal's shape is accepted and not kept.
  Literal d = MustParse("f32[2,2]{0,1} {{1, 2}, {3, 4}}");
  CHECK(d.GetDouble(1) == 2);  // row-major (logical) order
}

TEST_CASE("parse literal: element count and nesting errors", "[literal_parser]") {
  for (const char* text : {
           "f32[2] {1}",
           "f32[2] {1, 2, 3}",
           "f32[2] {}",
           "f32[0] {1}",
           "f32[2] 1",
           "f32[2] {1,}",
           "f32[2] {,1}",
           "f32[2] {1 2}",
           "f32[2] {1, 2",
           "f32[2] {{1, 2}}",
           "f32[2] {(1, 2)}",
           "f32[2,2] {1, 2, 3, 4}",
           "f32[2,2] {{1, 2}, {3}}",
           "f32[2,2] {{1, 2}, {3, 4, 5}}",
           "f32[2,2] {{1, 2}, {3, 4}, {5, 6}}",
           "f32[2,2] {{1, 2}}",
           "f32[2,2] {{1, 2}, 3}",
           "f32[2,2] {{{1}, 2}, {3, 4}}",
           "f32[1,1] {{1}}}",
           "f32[2,0] {}",
           "f32[2,0] {{}}",
           "f32[0,2] {{}}",
           "f32[] 1 2",
           "f32[] {1}x",
           "f32[]",
           "f32[2]",
           "",
           "1",
           "{1, 2}",
           "f32[2] {1, 2} extra",
           "f32[2] {1, 2}}",
           "f32[?] {1}",
           "f32[1000000000,1000000000] {...}",
           "f32[1000000000000000] {1}",
           "f32[4294967296,4294967296] {}",
           "token[] 1",
           "f32[2] {1, /* unterminated",
           "f32[1] {\"1\"}",
       }) {
    CHECK(Fails(text));
  }
}

TEST_CASE("parse literal: deep nesting is an error, not a crash", "[literal_parser]") {
  std::string deep = "f32[1] " + std::string(100000, '{');
  CHECK(Fails(deep));
  std::string deep_tuple(100000, '(');
  CHECK(Fails(deep_tuple));
  // A rank-64 literal is fine.
  std::string shape = "s32[1";
  for (int i = 1; i < 64; ++i) shape += ",1";
  shape += "] " + std::string(64, '{') + "5" + std::string(64, '}');
  CHECK(MustParse(shape).GetInt(0) == 5);
}

TEST_CASE("parse literal value: known shapes", "[literal_parser]") {
  ShapePool pool;
  Shape f = Parsed("f32[2]", pool);
  CHECK(MustParseValue("{1, 2}", f).GetDouble(1) == 2);
  CHECK(FailsValue("{1}", f));
  Shape s = Parsed("s32[]", pool);
  CHECK(MustParseValue("7", s).GetInt(0) == 7);
  CHECK(FailsValue("7 8", s));
  CHECK(FailsValue("", s));
  // Tuples: element shapes optional; HLO-constant spacing.
  Shape t = Parsed("(s32[2], (f32[], pred[]))", pool);
  Literal a = MustParseValue("( {1, 2}, ( 3, true ) )", t);
  REQUIRE(a.IsTuple());
  CHECK(a.elements()[0].GetInt(1) == 2);
  CHECK(a.elements()[1].elements()[0].GetDouble(0) == 3);
  CHECK(a.elements()[1].elements()[1].GetInt(0) == 1);
  Literal b = MustParseValue("(s32[2] {1, 2}, (f32[] 3, pred[] true))", t);
  CHECK(a == b);
  CHECK(MustParseValue("( s32[2] {1, 2}, ( f32[] 3, pred[] true ) )", t) == a);
  CHECK(FailsValue("({1, 2})", t));
  CHECK(FailsValue("({1, 2}, (3, true), 4)", t));
  CHECK(FailsValue("({1, 2}, (3))", t));
  CHECK(FailsValue("({1, 2}, 3, true)", t));
  CHECK(FailsValue("(s32[3] {1, 2, 3}, (3, true))", t));
  CHECK(FailsValue("(f32[2] {1, 2}, (3, true))", t));
  CHECK(FailsValue("{1, 2}", t));
  Shape empty = Parsed("()", pool);
  CHECK(MustParseValue("()", empty).IsTuple());
  CHECK(MustParseValue("(  )", empty).elements().empty());
  CHECK(FailsValue("(1)", empty));
  Shape tok = Parsed("token[]", pool);
  CHECK(FailsValue("1", tok));
}

// design.md: `(f32[2] {1, 2}, pred[] true)` is literal text, so ParseLiteral
// (shape taken from the text) must read tuples.
TEST_CASE("parse literal: tuples with their shapes in the text", "[literal_parser]") {
  Literal t = MustParse("(f32[2] {1, 2}, pred[] true)");
  REQUIRE(t.IsTuple());
  REQUIRE(t.elements().size() == 2);
  CHECK(t.elements()[1].GetInt(0) == 1);
  CHECK(Reprint("(f32[2] {1, 2}, pred[] true)") == "(f32[2] {1, 2}, pred[] true)");
  CHECK(Reprint("((s32[] 1), (), u8[2] {1, 2})") == "((s32[] 1), (), u8[2] {1, 2})");
  CHECK(Reprint("()") == "()");
  CHECK(Reprint("( f32[2] {1, 2}, s32[] 3 )", LiteralStyle::kHloConstant) ==
        "( f32[2] {1, 2}, s32[] 3 )");
  CHECK(Fails("(f32[2] {1})"));
  CHECK(Fails("(f32[2] {1, 2}"));
  CHECK(Fails("({1, 2})"));
}

// ---------------------------------------------------------------------------
// Round trips of whole literals

TEST_CASE("round trip: design.md examples and printed forms", "[literal_parser]") {
  for (const char* text : {
           "f32[2,3] {{1, 2, 3}, {4, 5, 6}}",
           "s32[] 7",
           "c64[2] {(1, 2), (3, 4)}",
           "f32[3] {nan, inf, -inf}",
           "pred[2,2] {{true, false}, {false, true}}",
           "s4[3] {-8, 0, 7}",
           "u64[2] {0, 18446744073709551615}",
           "bf16[2] {0.1, 3.14}",
           "f8e4m3fn[3] {448, -nan, 0.5}",
           "f32[0] {}",
           "f32[2,0] {{}, {}}",
           "f32[0,3] {}",
       }) {
    INFO(text);
    CHECK(Reprint(text) == text);
  }
  for (const char* text : {
           "f32[2,3] { { 1, 2, 3 }, { 4, 5, 6 } }",
           "pred[2,2] { { 1, 0 }, { 0, 1 } }",
           "s32[2,1] { {1}, {2} }",
           "s32[1,2,1,2] { { /*i0=0*/ { /*i1=0*/ { 1, 2 } }, { /*i1=1*/ { 3, 4 } } } }",
           "s32[2,0,1,1] { { /*i0=0*/ }, { /*i0=1*/ } }",
           "f32[3] {0.1, 0.333333343, 1e+10}",
           "bf16[2] {3.141, 0.1001}",
           "f16[1] {0.099976}",
           "f8e5m2[] 5.7e+04",
           "c128[] (0.33333333333333331, -inf)",
           "f32[] nan(0x1)",
           "f32[0,3] {  }",
       }) {
    INFO(text);
    CHECK(Reprint(text, LiteralStyle::kHloConstant) == text);
  }
}

// All values of the 8-bit and sub-byte integer types, both styles.
TEST_CASE("round trip: every small integer", "[literal_parser]") {
  for (PT type :
       {PT::kS1, PT::kS2, PT::kS4, PT::kS8, PT::kU1, PT::kU2, PT::kU4, PT::kU8, PT::kPred}) {
    const int bits = type == PT::kPred ? 1 : BitWidth(type);
    const int64_t n = int64_t{1} << bits;
    absl::StatusOr<Literal> lit = Literal::Create(Shape::Array(type, {n}));
    REQUIRE(lit.ok());
    for (int64_t i = 0; i < n; ++i) lit->SetInt(i, i);
    for (LiteralStyle style : kStyles) {
      INFO(PrimitiveTypeName(type) << " " << StyleName(style));
      std::string text = LiteralToString(*lit, style);
      Literal back = MustParse(text);
      CHECK(back == *lit);
      for (int64_t i = 0; i < n; ++i) {
        Literal one = *Literal::Create(Shape::Array(type, {}));
        one.SetInt(0, i);
        Literal one_back = MustParse(LiteralToString(one, style));
        CHECK(one_back.GetBits(0) == one.GetBits(0));
      }
    }
  }
}

TEST_CASE("round trip: 16/32/64-bit integer extremes", "[literal_parser]") {
  struct Row {
    PT type;
    std::vector<int64_t> values;
  };
  const Row rows[] = {
      {PT::kS16, {INT16_MIN, -1, 0, 1, INT16_MAX}},
      {PT::kU16, {0, 1, UINT16_MAX}},
      {PT::kS32, {INT32_MIN, -1, 0, INT32_MAX}},
      {PT::kU32, {0, UINT32_MAX}},
      {PT::kS64, {INT64_MIN, INT64_MIN + 1, -1, 0, INT64_MAX}},
      {PT::kU64, {0, 1, INT64_MAX, INT64_MIN, -1}},
  };
  std::mt19937_64 rng(7);
  for (const Row& r : rows) {
    std::vector<int64_t> values = r.values;
    for (int i = 0; i < 1000; ++i) values.push_back(static_cast<int64_t>(rng()));
    absl::StatusOr<Literal> lit =
        Literal::Create(Shape::Array(r.type, {static_cast<int64_t>(values.size())}));
    REQUIRE(lit.ok());
    for (size_t i = 0; i < values.size(); ++i) lit->SetInt(i, values[i]);
    for (LiteralStyle style : kStyles) {
      INFO(PrimitiveTypeName(r.type) << " " << StyleName(style));
      CHECK(MustParse(LiteralToString(*lit, style)) == *lit);
    }
  }
}

// FORMAT-NOTES §7: max_digits10 of each narrow type (ml_dtypes).
int MaxDigits10(PT type) {
  switch (type) {
    case PT::kF16:
      return 5;
    case PT::kBF16:
      return 4;
    case PT::kF8E4M3:
    case PT::kF8E4M3FN:
    case PT::kF8E4M3FNUZ:
    case PT::kF8E4M3B11FNUZ:
    case PT::kF8E3M4:
      return 3;
    case PT::kF8E5M2:
    case PT::kF8E5M2FNUZ:
    case PT::kF4E2M1FN:
    case PT::kF8E8M0FNU:
      return 2;
    default:
      return 17;
  }
}

// Formats whose NaNs carry a payload in XLA's text (FORMAT-NOTES §7).
bool KeepsNanPayload(PT type) {
  switch (type) {
    case PT::kF16:
    case PT::kBF16:
    case PT::kF8E5M2:
    case PT::kF8E4M3:
    case PT::kF8E3M4:
    case PT::kF32:
    case PT::kF64:
      return true;
    default:
      return false;
  }
}

// The default quiet NaN of an IEEE-like format, either sign.
bool IsDefaultNan(PT type, uint32_t bits) {
  const SmallFloatInfo& info = GetSmallFloatInfo(type);
  const uint32_t mag = bits & ((1u << (BitWidth(type) - 1)) - 1);
  const uint32_t quiet =
      (((1u << info.exponent_bits) - 1) << info.mantissa_bits) | (1u << (info.mantissa_bits - 1));
  return mag == quiet;
}

constexpr PT kNarrowTypes[] = {PT::kF8E5M2,        PT::kF8E4M3,     PT::kF8E4M3FN,
                               PT::kF8E4M3B11FNUZ, PT::kF8E5M2FNUZ, PT::kF8E4M3FNUZ,
                               PT::kF8E3M4,        PT::kF4E2M1FN,   PT::kF8E8M0FNU};

// Every bit pattern, as scalars and as one array, in both styles. NaNs keep
// their bits where the format has payloads, else stay NaN.
void CheckEveryPattern(PT type) {
  const uint32_t count = 1u << BitWidth(type);
  std::vector<uint32_t> patterns;
  for (uint32_t b = 0; b < count; ++b) patterns.push_back(b);
  absl::StatusOr<Literal> all =
      Literal::Create(Shape::Array(type, {static_cast<int64_t>(patterns.size())}));
  REQUIRE(all.ok());
  for (size_t i = 0; i < patterns.size(); ++i) all->SetBits(i, patterns[i]);

  auto same = [&](uint32_t want, uint64_t got) {
    if (std::isnan(DecodeSmallFloat(type, want)) && !KeepsNanPayload(type)) {
      return std::isnan(DecodeSmallFloat(type, static_cast<uint32_t>(got)));
    }
    return got == want;
  };

  for (LiteralStyle style : kStyles) {
    INFO(PrimitiveTypeName(type) << " " << StyleName(style));
    // See "f8e8m0fnu 2^-127 in the HLO style" below.
    auto skip = [&](uint32_t b) {
      return type == PT::kF8E8M0FNU && b == 0 && style == LiteralStyle::kHloConstant;
    };
    // One array with every pattern.
    std::string text = LiteralToString(*all, style);
    absl::StatusOr<Literal> back = ParseLiteral(text);
    if (!back.ok()) {
      FAIL_CHECK(back.status().message());
    } else {
      REQUIRE(back->element_count() == static_cast<int64_t>(patterns.size()));
      int mismatches = 0;
      for (size_t i = 0; i < patterns.size(); ++i) {
        if (skip(patterns[i])) continue;
        if (!same(patterns[i], back->GetBits(i)) && ++mismatches <= 5) {
          std::string elem;
          AppendElement(elem, *all, i, style);
          FAIL_CHECK("bits 0x" << std::hex << patterns[i] << " printed as " << elem
                               << " read back as 0x" << back->GetBits(i));
        }
      }
      CHECK(mismatches == 0);
    }
    // Each pattern as a scalar.
    int mismatches = 0;
    for (uint32_t b : patterns) {
      if (skip(b)) continue;
      absl::StatusOr<Literal> one = Literal::Create(Shape::Array(type, {}));
      one->SetBits(0, b);
      std::string s = LiteralToString(*one, style);
      absl::StatusOr<Literal> one_back = ParseLiteral(s);
      if (!one_back.ok() || !same(b, one_back->GetBits(0))) {
        if (++mismatches <= 5) {
          FAIL_CHECK(
              "bits 0x" << std::hex << b << " printed as '" << s << "' "
                        << (one_back.ok() ? "read back differently" : one_back.status().message()));
        }
      }
    }
    CHECK(mismatches == 0);
  }
}

TEST_CASE("round trip: every 8-bit and 4-bit float pattern", "[literal_parser][roundtrip]") {
  for (PT type : kNarrowTypes) CheckEveryPattern(type);
}

TEST_CASE("round trip: every f16 and bf16 pattern", "[literal_parser][roundtrip]") {
  CheckEveryPattern(PT::kF16);
  CheckEveryPattern(PT::kBF16);
}

// The NaN payload syntax of every IEEE-like narrow format, pattern by
// pattern: the default quiet NaN prints bare, every other NaN with its
// mantissa, and reads back to the same bits.
TEST_CASE("round trip: NaN payload texts", "[literal_parser][roundtrip]") {
  for (PT type : {PT::kF16, PT::kBF16, PT::kF8E5M2, PT::kF8E4M3, PT::kF8E3M4}) {
    INFO(PrimitiveTypeName(type));
    const SmallFloatInfo& info = GetSmallFloatInfo(type);
    const uint32_t sign = 1u << (BitWidth(type) - 1);
    const uint32_t exp = ((1u << info.exponent_bits) - 1) << info.mantissa_bits;
    int nans = 0;
    for (uint32_t mant = 1; mant < (1u << info.mantissa_bits); ++mant) {
      for (uint32_t s : {0u, sign}) {
        const uint32_t bits = s | exp | mant;
        ++nans;
        char want[32];
        if (IsDefaultNan(type, bits)) {
          std::snprintf(want, sizeof(want), "%snan", s ? "-" : "");
        } else {
          std::snprintf(want, sizeof(want), "%snan(0x%x)", s ? "-" : "", mant);
        }
        absl::StatusOr<Literal> one = Literal::Create(Shape::Array(type, {}));
        one->SetBits(0, bits);
        for (LiteralStyle style : kStyles) {
          std::string text;
          AppendLiteralValue(text, *one, style);
          CHECK(text == want);
          CHECK(MustParseValue(text, one->shape()).GetBits(0) == bits);
        }
      }
    }
    CHECK(nans == 2 * ((1 << info.mantissa_bits) - 1));
  }
}

// FORMAT-NOTES §7 prints f8e8m0fnu with %.2g, so its smallest value 2^-127
// (5.877e-39, pattern 0x00) prints as 5.9e-39; reading that rounds like a
// conversion (ml_dtypes: everything in (2^-127, 2^-126) goes up to 2^-126),
// which gives 0x01. XLA's format and its rounding disagree on this one
// pattern; the compact style is not affected.
TEST_CASE("round trip: f8e8m0fnu 2^-127 in the HLO style",
          "[literal_parser][roundtrip][known-bug][!mayfail]") {
  absl::StatusOr<Literal> one = Literal::Create(Shape::Array(PT::kF8E8M0FNU, {}));
  one->SetBits(0, 0);
  std::string text = LiteralToString(*one, LiteralStyle::kHloConstant);
  CHECK(text == "f8e8m0fnu[] 5.9e-39");
  CHECK(MustParse(text).GetBits(0) == 0);
  CHECK(MustParse(LiteralToString(*one, LiteralStyle::kCompact)).GetBits(0) == 0);
}

// The exact text of the HLO style for narrow types: `%.{max_digits10}g` of
// the value (FORMAT-NOTES §7), for every pattern that is not a NaN.
TEST_CASE("hlo style text of every narrow pattern", "[literal_parser][roundtrip]") {
  std::vector<PT> types(std::begin(kNarrowTypes), std::end(kNarrowTypes));
  types.push_back(PT::kF16);
  types.push_back(PT::kBF16);
  for (PT type : types) {
    INFO(PrimitiveTypeName(type));
    const uint32_t count = 1u << BitWidth(type);
    int mismatches = 0;
    for (uint32_t b = 0; b < count; ++b) {
      const double v = DecodeSmallFloat(type, b);
      if (std::isnan(v)) continue;
      char want[64];
      if (std::isinf(v)) {
        std::snprintf(want, sizeof(want), "%s", v < 0 ? "-inf" : "inf");
      } else {
        std::snprintf(want, sizeof(want), "%.*g", MaxDigits10(type), v);
      }
      absl::StatusOr<Literal> one = Literal::Create(Shape::Array(type, {}));
      one->SetBits(0, b);
      std::string got;
      AppendLiteralValue(got, *one, LiteralStyle::kHloConstant);
      if (got != want && ++mismatches <= 5) {
        FAIL_CHECK("bits 0x" << std::hex << b << ": '" << got << "' != '" << want << "'");
      }
    }
    CHECK(mismatches == 0);
  }
}

// f32: `%.6g` if it reads back exactly (as a float), else `%.9g`; f64:
// `%.15g` else `%.17g` (FORMAT-NOTES §7, XLA's RoundTripFpToString).
std::string XlaF32(float v) {
  if (std::isnan(v)) return "";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  int n = std::snprintf(buf, sizeof(buf), "%.6g", v);
  float back;
  auto r = std::from_chars(buf, buf + n, back);
  if (r.ec == std::errc() && back == v) return buf;
  std::snprintf(buf, sizeof(buf), "%.9g", v);
  return buf;
}

std::string XlaF64(double v) {
  if (std::isnan(v)) return "";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  int n = std::snprintf(buf, sizeof(buf), "%.15g", v);
  double back;
  auto r = std::from_chars(buf, buf + n, back);
  if (r.ec == std::errc() && back == v) return buf;
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  return buf;
}

// Bit patterns to try: uniform random bits, plus values with few decimal
// digits (where %.6g / %.15g suffice), plus specials.
template <typename U, typename F>
std::vector<U> Patterns(int random_count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<U> out;
  for (int i = 0; i < random_count; ++i) out.push_back(static_cast<U>(rng()));
  for (int i = 0; i < random_count / 4; ++i) {
    const double mant = static_cast<double>(rng() % 2000001) - 1000000;
    const int exp10 = static_cast<int>(rng() % 61) - 30;
    out.push_back(std::bit_cast<U>(static_cast<F>(mant * std::pow(10.0, exp10))));
  }
  using L = std::numeric_limits<F>;
  for (F f : {F(0),
              F(1),
              F(-1),
              F(0.1),
              F(0.5),
              F(1) / F(3),
              L::max(),
              L::lowest(),
              L::min(),
              L::denorm_min(),
              L::epsilon(),
              L::infinity(),
              -L::infinity(),
              L::quiet_NaN(),
              -L::quiet_NaN(),
              L::signaling_NaN(),
              F(16777216),
              F(123456789),
              F(1e10),
              F(1e-5),
              F(9007199254740993.0)}) {
    out.push_back(std::bit_cast<U>(f));
  }
  const U sign = U{1} << (sizeof(U) * 8 - 1);
  const U exp_mask = std::bit_cast<U>(L::infinity());
  for (U v : {U{0}, U{1}, U{2}, exp_mask - 1, exp_mask, exp_mask + 1, exp_mask | 1, ~U{0} >> 1,
              ~U{0}, sign, sign | 1, sign | exp_mask, sign | (exp_mask + 1),
              exp_mask | (exp_mask >> 1), (exp_mask >> 1) + 1}) {
    out.push_back(v);
    out.push_back(v ^ sign);
  }
  // Neighbours of powers of ten.
  for (int e = -40; e <= 40; ++e) {
    const U p = std::bit_cast<U>(static_cast<F>(std::pow(10.0, e)));
    for (U d : {U{0}, U{1}, U{2}}) {
      out.push_back(p + d);
      out.push_back(p - d);
    }
  }
  return out;
}

template <typename U, typename F>
void CheckWideFloat(PT type, int random_count) {
  std::vector<U> patterns = Patterns<U, F>(random_count, type == PT::kF32 ? 32 : 64);
  absl::StatusOr<Literal> lit =
      Literal::Create(Shape::Array(type, {static_cast<int64_t>(patterns.size())}));
  REQUIRE(lit.ok());
  for (size_t i = 0; i < patterns.size(); ++i) lit->SetBits(i, patterns[i]);

  // The HLO style's text is XLA's, element by element.
  int text_mismatches = 0;
  for (size_t i = 0; i < patterns.size(); ++i) {
    const F v = std::bit_cast<F>(patterns[i]);
    if (std::isnan(v)) continue;
    std::string got;
    AppendElement(got, *lit, i, LiteralStyle::kHloConstant);
    const std::string want = type == PT::kF32 ? XlaF32(v) : XlaF64(v);
    if (got != want && ++text_mismatches <= 5) {
      FAIL_CHECK("bits 0x" << std::hex << patterns[i] << ": '" << got << "' != '" << want << "'");
    }
  }
  CHECK(text_mismatches == 0);

  // Compact style: the shortest round-trip text, as std::to_chars gives it.
  int shortest_mismatches = 0;
  for (size_t i = 0; i < patterns.size(); ++i) {
    const F v = std::bit_cast<F>(patterns[i]);
    if (std::isnan(v) || std::isinf(v)) continue;
    std::string got;
    AppendElement(got, *lit, i, LiteralStyle::kCompact);
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof(buf), v);
    if (got != std::string(buf, r.ptr) && ++shortest_mismatches <= 5) {
      FAIL_CHECK("bits 0x" << std::hex << patterns[i] << ": '" << got << "' != '"
                           << std::string(buf, r.ptr) << "'");
    }
  }
  CHECK(shortest_mismatches == 0);

  // Both styles read back bit-exactly, NaN payloads included.
  for (LiteralStyle style : kStyles) {
    INFO(PrimitiveTypeName(type) << " " << StyleName(style));
    absl::StatusOr<Literal> back = ParseLiteral(LiteralToString(*lit, style));
    if (!back.ok()) {
      FAIL_CHECK(back.status().message().substr(0, 500));
      continue;
    }
    int mismatches = 0;
    for (size_t i = 0; i < patterns.size(); ++i) {
      if (back->GetBits(i) != patterns[i] && ++mismatches <= 5) {
        std::string elem;
        AppendElement(elem, *lit, i, style);
        FAIL_CHECK("bits 0x" << std::hex << patterns[i] << " printed as " << elem
                             << " read back as 0x" << back->GetBits(i));
      }
    }
    CHECK(mismatches == 0);
  }
  // Scalars of the special patterns (the tail of the list).
  for (size_t i = random_count + random_count / 4; i < patterns.size(); ++i) {
    absl::StatusOr<Literal> one = Literal::Create(Shape::Array(type, {}));
    one->SetBits(0, patterns[i]);
    for (LiteralStyle style : kStyles) {
      std::string s = LiteralToString(*one, style);
      INFO(s);
      absl::StatusOr<Literal> b = ParseLiteral(s);
      REQUIRE(b.ok());
      CHECK(b->GetBits(0) == patterns[i]);
    }
  }
}

TEST_CASE("round trip: f32 random and special patterns", "[literal_parser][roundtrip]") {
  CheckWideFloat<uint32_t, float>(PT::kF32, 300000);
}

TEST_CASE("round trip: f64 random and special patterns", "[literal_parser][roundtrip]") {
  CheckWideFloat<uint64_t, double>(PT::kF64, 300000);
}

TEST_CASE("round trip: complex", "[literal_parser][roundtrip]") {
  std::mt19937_64 rng(99);
  for (PT type : {PT::kC64, PT::kC128}) {
    const int64_t n = 20000;
    absl::StatusOr<Literal> lit = Literal::Create(Shape::Array(type, {n}));
    REQUIRE(lit.ok());
    for (int64_t i = 0; i < n; ++i) {
      double re, im;
      if (type == PT::kC64) {
        re = std::bit_cast<float>(static_cast<uint32_t>(rng()));
        im = std::bit_cast<float>(static_cast<uint32_t>(rng()));
      } else {
        re = std::bit_cast<double>(rng());
        im = std::bit_cast<double>(rng());
      }
      // Default NaNs only: complex parts carry no payload in the text.
      if (std::isnan(re)) re = std::signbit(re) ? -NAN : NAN;
      if (std::isnan(im)) im = std::signbit(im) ? -NAN : NAN;
      lit->SetComplex(i, {re, im});
    }
    for (LiteralStyle style : kStyles) {
      INFO(PrimitiveTypeName(type) << " " << StyleName(style));
      absl::StatusOr<Literal> back = ParseLiteral(LiteralToString(*lit, style));
      REQUIRE(back.ok());
      CHECK(back->size_bytes() == lit->size_bytes());
      CHECK(std::memcmp(back->data(), lit->data(), lit->size_bytes()) == 0);
    }
  }
}

TEST_CASE("round trip: shapes of many ranks, both styles", "[literal_parser][roundtrip]") {
  const std::vector<std::vector<int64_t>> shapes = {
      {},           {0},          {1},          {5},          {2, 3},          {3, 1},
      {1, 3},       {0, 2},       {2, 0},       {2, 2, 2},    {1, 1, 1},       {2, 0, 3},
      {2, 3, 1, 2}, {1, 1, 1, 1}, {2, 0, 1, 1}, {1, 2, 0, 1}, {2, 1, 2, 1, 2}, {1, 2, 1, 2, 1, 2}};
  for (PT type : {PT::kS32, PT::kF32, PT::kPred, PT::kBF16, PT::kC64, PT::kU4}) {
    for (const auto& dims : shapes) {
      absl::StatusOr<Literal> lit = Literal::Create(Shape::Array(type, dims));
      REQUIRE(lit.ok());
      for (int64_t i = 0; i < lit->element_count(); ++i) {
        lit->SetInt(i, (i * 7 + 3) % (type == PT::kPred ? 2 : 13));
      }
      for (LiteralStyle style : kStyles) {
        std::string text = LiteralToString(*lit, style);
        INFO(text);
        absl::StatusOr<Literal> back = ParseLiteral(text);
        REQUIRE(back.ok());
        CHECK(*back == *lit);
        // And through ParseLiteralValue with the value alone.
        std::string value;
        AppendLiteralValue(value, *lit, style);
        absl::StatusOr<Literal> back2 = ParseLiteralValue(value, lit->shape());
        REQUIRE(back2.ok());
        CHECK(*back2 == *lit);
      }
    }
  }
}

TEST_CASE("round trip: tuples through ParseLiteralValue", "[literal_parser][roundtrip]") {
  std::vector<Literal> inner;
  inner.push_back(*ParseLiteral("f16[2] {0.1, -inf}"));
  inner.push_back(*ParseLiteral("pred[] true"));
  std::vector<Literal> outer;
  outer.push_back(Literal::Tuple(std::move(inner)));
  outer.push_back(*ParseLiteral("s32[2,2] {{1, 2}, {3, 4}}"));
  outer.push_back(Literal::Tuple({}));
  outer.push_back(*ParseLiteral("c64[1] {(1, -2)}"));
  outer.push_back(*ParseLiteral("c64[] (1, -2)"));
  Literal t = Literal::Tuple(std::move(outer));
  for (LiteralStyle style : kStyles) {
    std::string value;
    AppendLiteralValue(value, t, style);
    INFO(value);
    absl::StatusOr<Literal> back = ParseLiteralValue(value, t.shape());
    REQUIRE(back.ok());
    CHECK(*back == t);
    std::string with_shapes = LiteralToString(t, style);
    INFO(with_shapes);
    absl::StatusOr<Literal> back2 = ParseLiteralValue(with_shapes, t.shape());
    REQUIRE(back2.ok());
    CHECK(*back2 == t);
    // And with the shape taken from the text.
    absl::StatusOr<Literal> back3 = ParseLiteral(with_shapes);
    REQUIRE(back3.ok());
    CHECK(*back3 == t);
  }
}

// In a tuple, an element starting with '(' is a complex scalar unless the
// element's shape is a tuple: `((1, -2), 3)` for (c64[], s32[]).
TEST_CASE("parse literal value: complex scalars inside tuples", "[literal_parser]") {
  ShapePool pool;
  Shape t = Parsed("(c64[], s32[])", pool);
  CHECK(MustParseValue("((1, -2), 3)", t).elements()[0].GetComplex(0) ==
        std::complex<double>(1, -2));
  CHECK(MustParseValue("( (1, -2), 3 )", t).elements()[1].GetInt(0) == 3);
  CHECK(MustParseValue("(c64[] (1, -2), s32[] 3)", t).elements()[1].GetInt(0) == 3);
}

TEST_CASE("parse literal: error positions", "[literal_parser]") {
  absl::StatusOr<Literal> lit = ParseLiteral("f32[2,2] {{1, 2},\n  {3, x}}");
  REQUIRE_FALSE(lit.ok());
  std::string msg(lit.status().message());
  CHECK(msg.find(":2:7: error: ") != std::string::npos);
  CHECK(msg.find("\n  {3, x}}\n      ^") != std::string::npos);
  lit = ParseLiteral("s8[] 300");
  REQUIRE_FALSE(lit.ok());
  msg = std::string(lit.status().message());
  CHECK(msg.find(":1:6: error: ") != std::string::npos);
  ParseOptions opts;
  opts.filename = "lit.txt";
  lit = ParseLiteral("f32[2] {1}", opts);
  REQUIRE_FALSE(lit.ok());
  CHECK(std::string(lit.status().message()).rfind("lit.txt:1:", 0) == 0);
}

}  // namespace
}  // namespace hlo

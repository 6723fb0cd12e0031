// hlo::ParseShape and the printed form it must read back (FORMAT-NOTES.md §4,
// §10; design.md "Layouts").
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "parser/parser.h"

namespace hlo {
namespace {

// Parses and prints with layout; "ERROR: message" on failure.
std::string Reprint(std::string_view text) {
  ShapePool pool;
  absl::StatusOr<Shape> s = ParseShape(text, pool);
  if (!s.ok()) return "ERROR: " + std::string(s.status().message());
  return s->ToString();
}

Shape MustParse(std::string_view text, ShapePool& pool) {
  absl::StatusOr<Shape> s = ParseShape(text, pool);
  INFO(text);
  if (!s.ok()) FAIL(s.status().message());
  return *s;
}

bool Fails(std::string_view text) {
  ShapePool pool;
  absl::StatusOr<Shape> s = ParseShape(text, pool);
  INFO(text);
  if (s.ok()) {
    INFO("parsed as " << s->ToString());
    return false;
  }
  return !s.status().message().empty();
}

std::string ErrorOf(std::string_view text) {
  ShapePool pool;
  absl::StatusOr<Shape> s = ParseShape(text, pool);
  return s.ok() ? "" : std::string(s.status().message());
}

TEST_CASE("parse shape: canonical texts read back unchanged", "[shape_parser]") {
  for (const char* text : {
           "f32[2,3]{1,0}",
           "f32[2,3]{0,1}",
           "f32[]",
           "pred[]",
           "s32[7]{0}",
           "bf16[2,3,4]{2,1,0}",
           "bf16[2,3,4]{0,2,1}",
           "f32[0]{0}",
           "f32[0,5]{1,0}",
           "u8[1,1,1,1,1]{4,3,2,1,0}",
           "token[]",
           "opaque[]",
           "()",
           "(())",
           "((), ())",
           "(f32[2]{0}, s32[])",
           "(f32[2]{0}, (s32[], token[]), ())",
           "((((f32[]))))",
           "f32[<=8,?]{1,0}",
           "f32[?]{0}",
           "s32[3,<=4]{1,0}",
           "(f32[<=2]{0}, f32[?,?]{0,1})",
           "u32[]{:S(2)}",
           "u32[]{:T(128)}",
           "f32[8,128]{1,0:T(8,128)}",
           "f32[8,128]{1,0:T(8,128)(2,1)}",
           "f32[8,128]{1,0:T(8,128)(2,1)E(4)S(1)}",
           "f32[8,128]{0,1:T(*,128)(2,*)}",
           "bf16[16,128]{1,0:T(8,128)(2,1)(1,*)}",
           "s4[64]{0:E(4)}",
           "f32[2]{0:S(1)}",
           "f32[2]{0:L(4)}",
           "f32[2]{0:#(s32)}",
           "f32[2]{0:*(s32)}",
           "f32[2]{0:#(u16)*(s64)}",
           "f32[2,4]{1,0:SC(0:1)}",
           "f32[2,4]{1,0:SC(0:1,3)(1:2)}",
           "f32[2]{0:D(C)P(s8[8]{0})}",
           "f32[2,2]{1,0:D(D,C)P(f32[4]{0:T(128)})}",
           "f32[2]{0:M(8)}",
           "f32[2]{0:D(D)}",
           "f32[2,3]{1,0:D(D,C)}",
           "f32[2,3,4,5]{3,2,1,0:D(D,C,S,H)}",
           "s4[8,128]{1,0:D(D,C)T(8,128)(2,1)L(2)#(s32)*(s64)E(4)S(1)SC(1:64)P(u8[512]{0})M(16)}",
           "(f32[8,128]{1,0:T(8,128)}, u32[]{:S(2)})",
       }) {
    INFO(text);
    CHECK(Reprint(text) == text);
  }
}

TEST_CASE("parse shape: every element type", "[shape_parser]") {
  for (const char* t :
       {"pred",          "s1",         "s2",         "s4",     "s8",       "s16",
        "s32",           "s64",        "u1",         "u2",     "u4",       "u8",
        "u16",           "u32",        "u64",        "f16",    "bf16",     "f32",
        "f64",           "c64",        "c128",       "f8e5m2", "f8e4m3",   "f8e4m3fn",
        "f8e4m3b11fnuz", "f8e5m2fnuz", "f8e4m3fnuz", "f8e3m4", "f4e2m1fn", "f8e8m0fnu"}) {
    std::string text = std::string(t) + "[3,1]{1,0}";
    INFO(text);
    CHECK(Reprint(text) == text);
    CHECK(Reprint(std::string(t) + "[]") == std::string(t) + "[]");
  }
}

TEST_CASE("parse shape: missing layouts get the descending default", "[shape_parser]") {
  CHECK(Reprint("f32[2,3]") == "f32[2,3]{1,0}");
  CHECK(Reprint("f32[5]") == "f32[5]{0}");
  CHECK(Reprint("f32[2,3,4,5]") == "f32[2,3,4,5]{3,2,1,0}");
  CHECK(Reprint("f32[]") == "f32[]");
  CHECK(Reprint("f32[<=4,?]") == "f32[<=4,?]{1,0}");
  CHECK(Reprint("(f32[2], (s32[1,2], pred[]))") == "(f32[2]{0}, (s32[1,2]{1,0}, pred[]))");
  ShapePool pool;
  Shape s = MustParse("f32[2,3]", pool);
  REQUIRE(s.has_layout());
  CHECK(s.layout() == DefaultLayout(2));
  Shape scalar = MustParse("f32[]", pool);
  REQUIRE(scalar.has_layout());
  CHECK(scalar.layout().minor_to_major.empty());
  // An explicit empty scalar layout is the same.
  CHECK(Reprint("f32[]{}") == "f32[]");
  CHECK(MustParse("f32[]{}", pool) == scalar);
}

TEST_CASE("parse shape: layout fields in any order print in XLA's order", "[shape_parser]") {
  CHECK(Reprint("f32[2]{0:S(1)E(4)}") == "f32[2]{0:E(4)S(1)}");
  CHECK(Reprint("f32[2]{0:M(8)S(1)T(128)}") == "f32[2]{0:T(128)S(1)M(8)}");
  CHECK(Reprint("f32[2]{0:*(s64)#(s32)L(2)}") == "f32[2]{0:L(2)#(s32)*(s64)}");
  CHECK(Reprint("f32[2]{0:D(C)P(u8[8]{0})SC(0:1)}") == "f32[2]{0:D(C)SC(0:1)P(u8[8]{0})}");
  CHECK(Reprint("f32[8,128]{1,0:S(1)E(4)T(8,128)(2,1)}") ==
        "f32[8,128]{1,0:T(8,128)(2,1)E(4)S(1)}");
  // Default values are accepted and not printed.
  CHECK(Reprint("f32[2]{0:S(0)}") == "f32[2]{0}");
  CHECK(Reprint("f32[2]{0:E(0)L(1)M(0)}") == "f32[2]{0}");
  CHECK(Reprint("f32[2]{0:}") == "f32[2]{0}");
}

TEST_CASE("parse shape: layout field values", "[shape_parser]") {
  ShapePool pool;
  Shape s = MustParse(
      "s4[8,128]{1,0:D(D,C)T(8,128)(2,*)L(2)#(s32)*(u64)E(4)S(3)SC(1:64,96)(0:4)P(u8[512]{0})M(16)"
      "}",
      pool);
  REQUIRE(s.has_layout());
  const Layout& l = s.layout();
  CHECK(std::vector<int64_t>(l.minor_to_major.begin(), l.minor_to_major.end()) ==
        std::vector<int64_t>{1, 0});
  REQUIRE(l.dim_levels.size() == 2);
  CHECK(l.dim_levels[0].type == Layout::kDense);
  CHECK(l.dim_levels[1].type == Layout::kCompressed);
  REQUIRE(l.tiles.size() == 2);
  CHECK(l.tiles[0].dims.size() == 2);
  CHECK(l.tiles[0].dims[0] == 8);
  CHECK(l.tiles[0].dims[1] == 128);
  CHECK(l.tiles[1].dims[0] == 2);
  CHECK(l.tiles[1].dims[1] == Tile::kCombineDimension);
  CHECK(l.tail_padding_alignment_in_elements == 2);
  CHECK(l.index_primitive_type == PrimitiveType::kS32);
  CHECK(l.pointer_primitive_type == PrimitiveType::kU64);
  CHECK(l.element_size_in_bits == 4);
  CHECK(l.memory_space == 3);
  REQUIRE(l.split_configs.size() == 2);
  CHECK(l.split_configs[0].dimension == 1);
  CHECK(l.split_configs[0].split_indices == std::vector<int64_t>{64, 96});
  CHECK(l.split_configs[1].dimension == 0);
  CHECK(l.split_configs[1].split_indices == std::vector<int64_t>{4});
  REQUIRE(l.physical_shape != nullptr);
  CHECK(l.physical_shape->ToString() == "u8[512]{0}");
  CHECK(l.dynamic_shape_metadata_prefix_bytes == 16);
}

// The printer writes `+` (not unique) and `~` (not ordered) after a
// dimension level, as XLA does; they must read back.
TEST_CASE("parse shape: D(...) level attributes read back", "[shape_parser]") {
  CHECK(Reprint("f32[2,3]{1,0:D(C+,S~)}") == "f32[2,3]{1,0:D(C+,S~)}");
  CHECK(Reprint("f32[2,3]{1,0:D(D,C+~)}") == "f32[2,3]{1,0:D(D,C+~)}");
}

TEST_CASE("parse shape: dynamic dimensions", "[shape_parser]") {
  ShapePool pool;
  Shape s = MustParse("f32[<=8,?,3]", pool);
  CHECK(s.is_dynamic_dim(0));
  CHECK_FALSE(s.is_unbounded_dim(0));
  CHECK(s.dim(0) == 8);
  CHECK(s.is_dynamic_dim(1));
  CHECK(s.is_unbounded_dim(1));
  CHECK(s.dim(1) == Shape::kUnboundedSize);
  CHECK_FALSE(s.is_dynamic_dim(2));
  CHECK_FALSE(s.IsStatic());
  CHECK(s.ElementCount() == -1);
  CHECK(MustParse("f32[<=8,3]", pool).ElementCount() == 24);
  CHECK(MustParse("f32[8,3]", pool).IsStatic());
  // Whitespace and comments between tokens are allowed.
  CHECK(Reprint("f32[ <= 8 , ? ]") == "f32[<=8,?]{1,0}");
}

TEST_CASE("parse shape: tuples with /*index=N*/ comments", "[shape_parser]") {
  const char* six = "(f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[])";
  CHECK(Reprint(six) == six);
  const char* eleven =
      "(s32[1]{0}, s32[1]{0}, s32[1]{0}, s32[1]{0}, s32[1]{0}, "
      "/*index=5*/s32[1]{0}, s32[1]{0}, s32[1]{0}, s32[1]{0}, s32[1]{0}, "
      "/*index=10*/s32[1]{0})";
  CHECK(Reprint(eleven) == eleven);
  // Written without the comments, printed with them.
  CHECK(Reprint("(f32[], f32[], f32[], f32[], f32[], f32[])") == six);
  // Nested.
  std::string nested = std::string("(") + six + ", f32[])";
  CHECK(Reprint(nested) == nested);
}

TEST_CASE("parse shape: pool uniquing", "[shape_parser][pool]") {
  ShapePool pool;
  Shape t = MustParse("(f32[2], f32[2]{0}, (f32[2], s32[]), f32[2]{0:S(1)})", pool);
  REQUIRE(t.tuple_size() == 4);
  // Equal element shapes are one pointer; so is an interned separate parse.
  CHECK(&t.tuple_shape(0) == &t.tuple_shape(1));
  CHECK(&t.tuple_shape(2).tuple_shape(0) == &t.tuple_shape(0));
  CHECK(&t.tuple_shape(3) != &t.tuple_shape(0));
  const Shape* f2 = pool.Intern(MustParse("f32[2]{0}", pool));
  CHECK(f2 == &t.tuple_shape(0));
  const Shape* whole1 = pool.Intern(t);
  const Shape* whole2 =
      pool.Intern(MustParse("(f32[2]{0}, f32[2], (f32[2]{0}, s32[]), f32[2]{0:S(1)})", pool));
  CHECK(whole1 == whole2);
  const Shape* inner = pool.Intern(MustParse("(f32[2], s32[])", pool));
  CHECK(inner == &whole1->tuple_shape(2));
  // Different layout, different pointer.
  CHECK(pool.Intern(MustParse("f32[2,3]{0,1}", pool)) != pool.Intern(MustParse("f32[2,3]", pool)));
  CHECK(pool.Intern(MustParse("f32[2,3]{1,0}", pool)) == pool.Intern(MustParse("f32[2,3]", pool)));
}

TEST_CASE("parse shape: Compatible versus ==", "[shape_parser]") {
  ShapePool pool;
  Shape a = MustParse("f32[2,3]{1,0}", pool);
  Shape b = MustParse("f32[2,3]{0,1}", pool);
  Shape c = MustParse("f32[2,3]{1,0:T(2,128)}", pool);
  CHECK(a.Compatible(b));
  CHECK(a.Compatible(c));
  CHECK_FALSE(a == b);
  CHECK_FALSE(a == c);
  CHECK(a == MustParse("f32[2,3]", pool));
  CHECK_FALSE(a.Compatible(MustParse("f32[3,2]", pool)));
  CHECK_FALSE(a.Compatible(MustParse("s32[2,3]", pool)));
  CHECK_FALSE(a.Compatible(MustParse("f32[2,<=3]", pool)));
  Shape t1 = MustParse("(f32[2,3]{1,0}, s32[])", pool);
  Shape t2 = MustParse("(f32[2,3]{0,1}, s32[])", pool);
  CHECK(t1.Compatible(t2));
  CHECK_FALSE(t1 == t2);
}

TEST_CASE("parse shape: sizes", "[shape_parser]") {
  ShapePool pool;
  CHECK(MustParse("f32[9223372036854775807]", pool).ElementCount() == INT64_MAX);
  CHECK(MustParse("f32[4294967296,4294967296]", pool).ElementCount() == -1);
  CHECK(MustParse("f32[1000000,1000000,1000000,1000000]", pool).ElementCount() == -1);
  CHECK(MustParse("f32[0,1000000,1000000,1000000,1000000]", pool).ElementCount() == 0);
  CHECK(Fails("f32[9223372036854775808]"));
  CHECK(Fails("f32[99999999999999999999]"));
}

TEST_CASE("parse shape: errors", "[shape_parser]") {
  for (const char* text : {
           "",
           "f32",
           "f32[",
           "f32[2",
           "f32[2,",
           "f32[2,]x",
           "f32[,2]",
           "f33[2]",
           "F32[2]",
           "float[2]",
           "x",
           "2",
           "[2]",
           "f32[-1]",
           "f32[a]",
           "f32[1.5]",
           "f32[2]{",
           "f32[2]{0",
           "f32[2]{0,1}",
           "f32[2,3]{0}",
           "f32[2,3]{0,0}",
           "f32[2,3]{1,2}",
           "f32[2,3]{-1,0}",
           "f32[2]{}",
           "f32[]{0}",
           "f32[2]{0:X(1)}",
           "f32[2]{0:T}",
           "f32[2]{0:T(}",
           "f32[2]{0:E}",
           "f32[2]{0:E(x)}",
           "f32[2]{0:#(f33)}",
           "f32[2]{0:P(}",
           "f32[2]{0:D(X)}",
           "f32[2]{0:SC(0)}",
           "f32[<2]",
           "f32[<=]",
           "f32[<=?]",
           "token[2]",
           "opaque[1]",
           "(",
           "(f32[]",
           "(f32[],",
           "(f32[] f32[])",
           "f32[2] extra",
           "f32[2]{0} {0}",
           "f32[2])",
           "\"f32[2]\"",
           "f32[2]{0} /* unterminated",
       }) {
    CHECK(Fails(text));
  }
}

TEST_CASE("parse shape: error messages point at the problem", "[shape_parser]") {
  std::string e = ErrorOf("f32[2,3]{0}");
  CHECK(e.rfind("<shape>:1:9: error: ", 0) == 0);
  CHECK(e.find("rank") != std::string::npos);
  e = ErrorOf("f33[2]");
  CHECK(e.rfind("<shape>:1:1: error: ", 0) == 0);
  e = ErrorOf("f32[2,x]");
  CHECK(e.rfind("<shape>:1:7: error: ", 0) == 0);
  e = ErrorOf("(f32[2],\n  f32[3]{0:Q(1)})");
  CHECK(e.rfind("<shape>:2:", 0) == 0);
  // The source line and a caret follow the message.
  e = ErrorOf("f32[2]{0,1}");
  CHECK(e.find("\nf32[2]{0,1}\n") != std::string::npos);
  CHECK(e.find("\n      ^") != std::string::npos);
}

TEST_CASE("parse shape: deep nesting is an error, not a crash", "[shape_parser]") {
  std::string deep(100000, '(');
  deep += std::string(100000, ')');
  CHECK(Fails(deep));
  std::string deep2(5000, '(');
  CHECK(Fails(deep2));
}

}  // namespace
}  // namespace hlo

namespace hlo {
namespace {

// The parser compares a shape's text with the shape read just before it;
// a text that is a prefix of the next shape (`f32[2]` of `f32[2]{0}`) or
// extends it must still give the shape written.
TEST_CASE("parse shape: consecutive shapes that prefix each other", "[shape_parser]") {
  auto m = ParseModule(R"(ENTRY e {
  a = f32[2]{0} parameter(0)
  b = f32[2] negate(f32[2]{0} a)
  c = f32[2,3]{0,1} broadcast(f32[2] b), dimensions={0}
  d = f32[2,3]{1,0} copy(f32[2,3]{0,1} c)
  ROOT r = f32[2,3] copy(f32[2,3]{1,0} d)
})");
  REQUIRE(m.ok());
  std::vector<std::string> shapes;
  for (const auto& inst : (*m)->entry()->instructions()) {
    shapes.push_back(inst->shape().ToString(/*print_layout=*/true));
  }
  CHECK(shapes == std::vector<std::string>{"f32[2]{0}", "f32[2]{0}", "f32[2,3]{0,1}",
                                           "f32[2,3]{1,0}", "f32[2,3]{1,0}"});
  // An operand written with another layout than the one just read is still
  // checked against its instruction.
  auto bad = ParseModule(R"(ENTRY e {
  a = f32[2,3]{1,0} parameter(0)
  ROOT b = f32[2,3]{1,0} copy(f32[3,2]{1,0} a)
})");
  REQUIRE_FALSE(bad.ok());
  CHECK(std::string(bad.status().message()).find("f32[3,2]") != std::string::npos);
}

}  // namespace
}  // namespace hlo

// Shape, Layout and ShapePool, built through the IR API (no parser). Expected
// texts follow XLA's printer (FORMAT-NOTES.md §4: shape_util.cc, layout.cc).
#include "ir/shape.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace hlo {
namespace {

using PT = PrimitiveType;

Shape Arr(PT type, std::vector<int64_t> dims) { return Shape::Array(type, dims); }

Layout LayoutOf(std::vector<int64_t> minor_to_major) {
  Layout l;
  l.minor_to_major.assign(minor_to_major.begin(), minor_to_major.end());
  return l;
}

TEST_CASE("shape: arrays and scalars print like XLA", "[shape]") {
  CHECK(Arr(PT::kF32, {2, 3}).ToString() == "f32[2,3]");  // no layout set
  CHECK(Arr(PT::kF32, {2, 3}).WithDefaultLayout().ToString() == "f32[2,3]{1,0}");
  CHECK(Arr(PT::kF32, {2, 3}).WithDefaultLayout().ToString(false) == "f32[2,3]");
  CHECK(Arr(PT::kS8, {4}).WithDefaultLayout().ToString() == "s8[4]{0}");
  CHECK(Arr(PT::kBF16, {2, 3, 4}).WithDefaultLayout().ToString() == "bf16[2,3,4]{2,1,0}");
  CHECK(Arr(PT::kF32, {2, 3}).WithLayout(LayoutOf({0, 1})).ToString() == "f32[2,3]{0,1}");
  CHECK(Arr(PT::kF32, {0}).WithDefaultLayout().ToString() == "f32[0]{0}");
  CHECK(Arr(PT::kF32, {1, 0, 7}).WithDefaultLayout().ToString() == "f32[1,0,7]{2,1,0}");
  // Scalars: the empty layout is not printed.
  CHECK(Arr(PT::kF32, {}).ToString() == "f32[]");
  CHECK(Arr(PT::kF32, {}).WithDefaultLayout().ToString() == "f32[]");
  CHECK(Arr(PT::kPred, {}).WithDefaultLayout().ToString() == "pred[]");
  // ... but a non-trivial scalar layout is.
  Layout s2;
  s2.memory_space = 2;
  CHECK(Arr(PT::kU32, {}).WithLayout(s2).ToString() == "u32[]{:S(2)}");
  CHECK(Arr(PT::kU32, {}).WithLayout(s2).ToString(false) == "u32[]");
  Layout t128;
  t128.tiles.push_back(Tile{{128}});
  CHECK(Arr(PT::kU32, {}).WithLayout(t128).ToString() == "u32[]{:T(128)}");
  // Big dimensions print in full.
  CHECK(Arr(PT::kF32, {INT64_MAX}).ToString() == "f32[9223372036854775807]");
}

TEST_CASE("shape: every element type prints lowercase", "[shape]") {
  const std::pair<PT, const char*> rows[] = {
      {PT::kPred, "pred"},
      {PT::kS1, "s1"},
      {PT::kS2, "s2"},
      {PT::kS4, "s4"},
      {PT::kS8, "s8"},
      {PT::kS16, "s16"},
      {PT::kS32, "s32"},
      {PT::kS64, "s64"},
      {PT::kU1, "u1"},
      {PT::kU2, "u2"},
      {PT::kU4, "u4"},
      {PT::kU8, "u8"},
      {PT::kU16, "u16"},
      {PT::kU32, "u32"},
      {PT::kU64, "u64"},
      {PT::kF16, "f16"},
      {PT::kBF16, "bf16"},
      {PT::kF32, "f32"},
      {PT::kF64, "f64"},
      {PT::kC64, "c64"},
      {PT::kC128, "c128"},
      {PT::kF8E5M2, "f8e5m2"},
      {PT::kF8E4M3, "f8e4m3"},
      {PT::kF8E4M3FN, "f8e4m3fn"},
      {PT::kF8E4M3B11FNUZ, "f8e4m3b11fnuz"},
      {PT::kF8E5M2FNUZ, "f8e5m2fnuz"},
      {PT::kF8E4M3FNUZ, "f8e4m3fnuz"},
      {PT::kF8E3M4, "f8e3m4"},
      {PT::kF4E2M1FN, "f4e2m1fn"},
      {PT::kF8E8M0FNU, "f8e8m0fnu"},
  };
  for (const auto& [type, name] : rows) {
    INFO(name);
    CHECK(Arr(type, {3}).WithDefaultLayout().ToString() == std::string(name) + "[3]{0}");
    CHECK(PrimitiveTypeName(type) == name);
    CHECK(ParsePrimitiveType(name) == type);
  }
  CHECK(Shape::Token().ToString() == "token[]");
  CHECK(Shape::Opaque().ToString() == "opaque[]");
  CHECK(Shape::Token().IsToken());
  CHECK(Shape::Opaque().IsOpaque());
}

TEST_CASE("shape: tuples", "[shape]") {
  ShapePool pool;
  const Shape* f2 = pool.Intern(Arr(PT::kF32, {2}).WithDefaultLayout());
  const Shape* s = pool.Intern(Arr(PT::kS32, {}).WithDefaultLayout());
  const Shape* tok = pool.Intern(Shape::Token());
  Shape t = Shape::Tuple({f2, s, tok});
  CHECK(t.IsTuple());
  CHECK(t.tuple_size() == 3);
  CHECK(t.ToString() == "(f32[2]{0}, s32[], token[])");
  CHECK(t.ToString(false) == "(f32[2], s32[], token[])");
  // Nested and empty.
  const Shape* inner = pool.Intern(t);
  const Shape* empty = pool.Intern(Shape::Tuple({}));
  CHECK(empty->ToString() == "()");
  CHECK(Shape::Tuple({inner, empty}).ToString() == "((f32[2]{0}, s32[], token[]), ())");
  CHECK(Shape::Tuple({empty}).ToString() == "(())");
  CHECK(Shape::Tuple({pool.Intern(Shape::Tuple({empty}))}).ToString() == "((()))");
}

TEST_CASE("shape: /*index=N*/ before tuple elements 5, 10, ...", "[shape]") {
  ShapePool pool;
  const Shape* f = pool.Intern(Arr(PT::kF32, {}).WithDefaultLayout());
  auto tuple_of = [&](int n) { return Shape::Tuple(std::vector<const Shape*>(n, f)); };
  CHECK(tuple_of(5).ToString() == "(f32[], f32[], f32[], f32[], f32[])");
  CHECK(tuple_of(6).ToString() == "(f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[])");
  CHECK(tuple_of(11).ToString() ==
        "(f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[], f32[], f32[], "
        "f32[], f32[], /*index=10*/f32[])");
  CHECK(tuple_of(6).ToString(false) == "(f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[])");
  // Only the tuple's own element positions count, at every nesting level.
  const Shape* t6 = pool.Intern(tuple_of(6));
  CHECK(Shape::Tuple({t6, f}).ToString() ==
        "((f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[]), f32[])");
}

TEST_CASE("shape: dynamic dimensions", "[shape]") {
  Shape s = Arr(PT::kF32, {8, Shape::kUnboundedSize}).WithDynamicDim(0, true);
  CHECK(s.ToString() == "f32[<=8,?]");
  CHECK(s.WithDefaultLayout().ToString() == "f32[<=8,?]{1,0}");
  CHECK(s.is_dynamic_dim(0));
  CHECK(s.dim(0) == 8);
  CHECK_FALSE(s.is_unbounded_dim(0));
  CHECK(s.is_dynamic_dim(1));
  CHECK(s.is_unbounded_dim(1));
  CHECK_FALSE(s.IsStatic());
  Shape bounded = Arr(PT::kS32, {3, 4}).WithDynamicDim(1, true);
  CHECK(bounded.ToString() == "s32[3,<=4]");
  CHECK_FALSE(bounded.IsStatic());
  CHECK(bounded.WithDynamicDim(1, false).IsStatic());
  CHECK(bounded.WithDynamicDim(1, false).ToString() == "s32[3,4]");
  CHECK(bounded.WithDynamicDim(1, false) == Arr(PT::kS32, {3, 4}));
  CHECK(Arr(PT::kF32, {Shape::kUnboundedSize}).ToString() == "f32[?]");
  CHECK(Arr(PT::kF32, {2}).IsStatic());
  // Tuples are static when every element is.
  ShapePool pool;
  const Shape* dyn = pool.Intern(bounded);
  const Shape* stat = pool.Intern(Arr(PT::kF32, {2}));
  CHECK_FALSE(Shape::Tuple({stat, dyn}).IsStatic());
  CHECK(Shape::Tuple({stat, stat}).IsStatic());
  CHECK(Shape::Tuple({}).IsStatic());
}

TEST_CASE("layout: each field prints in XLA's syntax", "[shape][layout]") {
  auto text = [](const Layout& l) {
    std::string out;
    AppendLayout(out, l);
    return out;
  };
  Layout base = LayoutOf({1, 0});
  CHECK(text(base) == "{1,0}");
  CHECK(base.IsPlain());
  CHECK(text(LayoutOf({})) == "{}");
  CHECK(text(LayoutOf({0, 2, 1})) == "{0,2,1}");

  Layout tiles = base;
  tiles.tiles = {Tile{{8, 128}}, Tile{{2, 1}}};
  CHECK(text(tiles) == "{1,0:T(8,128)(2,1)}");
  CHECK_FALSE(tiles.IsPlain());

  Layout combine = base;
  combine.tiles = {Tile{{Tile::kCombineDimension, 128}}, Tile{{2, Tile::kCombineDimension}}};
  CHECK(text(combine) == "{1,0:T(*,128)(2,*)}");

  Layout one_tile = base;
  one_tile.tiles = {Tile{{128}}};
  CHECK(text(one_tile) == "{1,0:T(128)}");

  Layout l = base;
  l.tail_padding_alignment_in_elements = 4;
  CHECK(text(l) == "{1,0:L(4)}");

  Layout idx = base;
  idx.index_primitive_type = PT::kS32;
  CHECK(text(idx) == "{1,0:#(s32)}");

  Layout ptr = base;
  ptr.pointer_primitive_type = PT::kU64;
  CHECK(text(ptr) == "{1,0:*(u64)}");

  Layout e = base;
  e.element_size_in_bits = 4;
  CHECK(text(e) == "{1,0:E(4)}");

  Layout s = base;
  s.memory_space = 1;
  CHECK(text(s) == "{1,0:S(1)}");

  Layout sc = base;
  sc.split_configs = {SplitConfig{0, {1, 3}}, SplitConfig{1, {2}}};
  CHECK(text(sc) == "{1,0:SC(0:1,3)(1:2)}");

  ShapePool pool;
  Layout p = base;
  p.physical_shape = pool.Intern(Arr(PT::kS8, {16, 128}).WithDefaultLayout());
  CHECK(text(p) == "{1,0:P(s8[16,128]{1,0})}");

  Layout m = base;
  m.dynamic_shape_metadata_prefix_bytes = 8;
  CHECK(text(m) == "{1,0:M(8)}");

  Layout d = base;
  d.dim_levels = {Layout::DimLevel{Layout::kDense, true, true},
                  Layout::DimLevel{Layout::kCompressed, true, true}};
  CHECK(text(d) == "{1,0:D(D,C)}");
  Layout d2 = LayoutOf({3, 2, 1, 0});
  d2.dim_levels = {Layout::DimLevel{Layout::kSingleton, false, true},
                   Layout::DimLevel{Layout::kLooseCompressed, true, false},
                   Layout::DimLevel{Layout::kCompressed, false, false}, Layout::DimLevel{}};
  CHECK(text(d2) == "{3,2,1,0:D(S+,H~,C+~,D)}");

  // Default-valued fields are not printed.
  Layout defaults = base;
  defaults.tail_padding_alignment_in_elements = 1;
  defaults.element_size_in_bits = 0;
  defaults.memory_space = 0;
  CHECK(text(defaults) == "{1,0}");
  CHECK(defaults.IsPlain());
}

TEST_CASE("layout: all fields together, in XLA's order", "[shape][layout]") {
  ShapePool pool;
  // Set in the reverse of the print order.
  Layout l;
  l.dynamic_shape_metadata_prefix_bytes = 16;
  l.physical_shape = pool.Intern(Arr(PT::kU8, {4096}).WithDefaultLayout());
  l.split_configs = {SplitConfig{1, {1024}}};
  l.memory_space = 1;
  l.element_size_in_bits = 4;
  l.pointer_primitive_type = PT::kS64;
  l.index_primitive_type = PT::kS32;
  l.tail_padding_alignment_in_elements = 2;
  l.tiles = {Tile{{8, 128}}, Tile{{2, 1}}};
  l.dim_levels = {Layout::DimLevel{}, Layout::DimLevel{Layout::kCompressed, true, true}};
  l.minor_to_major = {1, 0};
  std::string out;
  AppendLayout(out, l);
  CHECK(out == "{1,0:D(D,C)T(8,128)(2,1)L(2)#(s32)*(s64)E(4)S(1)SC(1:1024)P(u8[4096]{0})M(16)}");
  Shape s = Arr(PT::kS4, {64, 128}).WithLayout(l);
  CHECK(s.ToString() ==
        "s4[64,128]{1,0:D(D,C)T(8,128)(2,1)L(2)#(s32)*(s64)E(4)S(1)SC(1:1024)P(u8[4096]{0})M(16)}");
  CHECK(s.ToString(false) == "s4[64,128]");
  // The example of FORMAT-NOTES §4.
  Layout ex = LayoutOf({1, 0});
  ex.tiles = {Tile{{8, 128}}, Tile{{2, 1}}};
  ex.element_size_in_bits = 4;
  ex.memory_space = 1;
  std::string ex_text;
  AppendLayout(ex_text, ex);
  CHECK(ex_text == "{1,0:T(8,128)(2,1)E(4)S(1)}");
  // Layouts inside tuples print with their elements.
  const Shape* a = pool.Intern(Arr(PT::kF32, {8, 128}).WithLayout(ex));
  const Shape* b = pool.Intern(Arr(PT::kF32, {}).WithDefaultLayout());
  CHECK(Shape::Tuple({a, b}).ToString() == "(f32[8,128]{1,0:T(8,128)(2,1)E(4)S(1)}, f32[])");
  CHECK(Shape::Tuple({a, b}).ToString(false) == "(f32[8,128], f32[])");
}

TEST_CASE("layout: DefaultLayout", "[shape][layout]") {
  CHECK(DefaultLayout(0).minor_to_major.empty());
  CHECK(DefaultLayout(0).IsPlain());
  Layout l1 = DefaultLayout(1);
  CHECK(std::vector<int64_t>(l1.minor_to_major.begin(), l1.minor_to_major.end()) ==
        std::vector<int64_t>{0});
  Layout l4 = DefaultLayout(4);
  CHECK(std::vector<int64_t>(l4.minor_to_major.begin(), l4.minor_to_major.end()) ==
        std::vector<int64_t>{3, 2, 1, 0});
  CHECK(l4.IsPlain());
  // WithDefaultLayout leaves tuples and tokens alone.
  CHECK_FALSE(Shape::Token().WithDefaultLayout().has_layout());
  CHECK_FALSE(Shape::Tuple({}).WithDefaultLayout().has_layout());
  CHECK(Arr(PT::kF32, {2}).WithDefaultLayout().has_layout());
  CHECK_FALSE(Arr(PT::kF32, {2}).WithDefaultLayout().WithoutLayout().has_layout());
}

TEST_CASE("shape: ElementCount", "[shape]") {
  CHECK(Arr(PT::kF32, {}).ElementCount() == 1);
  CHECK(Arr(PT::kF32, {7}).ElementCount() == 7);
  CHECK(Arr(PT::kF32, {2, 3, 4}).ElementCount() == 24);
  CHECK(Arr(PT::kF32, {0}).ElementCount() == 0);
  CHECK(Arr(PT::kF32, {5, 0, 3}).ElementCount() == 0);
  // A bounded dynamic dimension counts with its bound.
  CHECK(Arr(PT::kF32, {2, 8}).WithDynamicDim(1, true).ElementCount() == 16);
  // Unbounded: -1.
  CHECK(Arr(PT::kF32, {Shape::kUnboundedSize}).ElementCount() == -1);
  CHECK(Arr(PT::kF32, {3, Shape::kUnboundedSize}).ElementCount() == -1);
  CHECK(Arr(PT::kF32, {0, Shape::kUnboundedSize}).ElementCount() == -1);
  // Largest products that fit, and the first that do not.
  CHECK(Arr(PT::kF32, {INT64_MAX}).ElementCount() == INT64_MAX);
  CHECK(Arr(PT::kF32, {int64_t{1} << 31, int64_t{1} << 31}).ElementCount() == int64_t{1} << 62);
  CHECK(Arr(PT::kF32, {int64_t{1} << 32, int64_t{1} << 31}).ElementCount() == -1);  // 2^63
  CHECK(Arr(PT::kF32, {int64_t{1} << 32, int64_t{1} << 32}).ElementCount() == -1);
  CHECK(Arr(PT::kF32, {3037000499, 3037000499}).ElementCount() == int64_t{3037000499} * 3037000499);
  CHECK(Arr(PT::kF32, {3037000500, 3037000500}).ElementCount() == -1);
  CHECK(Arr(PT::kF32, {INT64_MAX, 2}).ElementCount() == -1);
  CHECK(Arr(PT::kF32, {1000000, 1000000, 1000000, 1000000}).ElementCount() == -1);
  CHECK(Arr(PT::kF32, {INT64_MAX, 1, 1}).ElementCount() == INT64_MAX);
  // The product is 0 whatever the other dimensions are; it does not overflow.
  CHECK(Arr(PT::kF32, {INT64_MAX, INT64_MAX, 0}).ElementCount() == 0);
  CHECK(Arr(PT::kF32, {0, INT64_MAX, INT64_MAX}).ElementCount() == 0);
}

TEST_CASE("shape: Compatible ignores layouts, == does not", "[shape]") {
  Shape plain = Arr(PT::kF32, {2, 3});
  Shape def = plain.WithDefaultLayout();
  Shape col = plain.WithLayout(LayoutOf({0, 1}));
  Layout tiled_l = LayoutOf({1, 0});
  tiled_l.tiles = {Tile{{8, 128}}};
  Shape tiled = plain.WithLayout(tiled_l);
  Layout ms = LayoutOf({1, 0});
  ms.memory_space = 1;
  Shape in_s1 = plain.WithLayout(ms);

  for (const Shape* a : {&plain, &def, &col, &tiled, &in_s1}) {
    for (const Shape* b : {&plain, &def, &col, &tiled, &in_s1}) {
      INFO(a->ToString() << " vs " << b->ToString());
      CHECK(a->Compatible(*b));
      CHECK((*a == *b) == (a == b));
    }
  }
  // Element type, dimensions, rank and dynamism matter to both.
  const Shape others[] = {Arr(PT::kS32, {2, 3}),
                          Arr(PT::kF32, {3, 2}),
                          Arr(PT::kF32, {6}),
                          Arr(PT::kF32, {2, 3, 1}),
                          Arr(PT::kF32, {2, 3}).WithDynamicDim(1, true),
                          Arr(PT::kF32, {}),
                          Shape::Token(),
                          Shape::Tuple({})};
  for (const Shape& o : others) {
    INFO(o.ToString());
    CHECK_FALSE(plain.Compatible(o));
    CHECK_FALSE(o.Compatible(plain));
    CHECK_FALSE(plain == o);
    CHECK_FALSE(def == o.WithDefaultLayout());
  }
  // Dynamic shapes: same dynamism is compatible.
  Shape dyn = Arr(PT::kF32, {2, 3}).WithDynamicDim(1, true);
  CHECK(dyn.Compatible(dyn.WithDefaultLayout()));
  CHECK_FALSE(dyn.Compatible(Arr(PT::kF32, {2, 3}).WithDynamicDim(0, true)));
  CHECK_FALSE(dyn == dyn.WithDefaultLayout());
  // Tokens, opaque.
  CHECK(Shape::Token().Compatible(Shape::Token()));
  CHECK(Shape::Token() == Shape::Token());
  CHECK_FALSE(Shape::Token().Compatible(Shape::Opaque()));
  CHECK_FALSE(Shape::Token() == Shape::Opaque());
  // Tuples recurse.
  ShapePool pool;
  const Shape* e1 = pool.Intern(def);
  const Shape* e2 = pool.Intern(col);
  const Shape* e3 = pool.Intern(Arr(PT::kS32, {}));
  CHECK(Shape::Tuple({e1, e3}).Compatible(Shape::Tuple({e2, e3})));
  CHECK_FALSE(Shape::Tuple({e1, e3}) == Shape::Tuple({e2, e3}));
  CHECK(Shape::Tuple({e1, e3}) == Shape::Tuple({e1, e3}));
  CHECK_FALSE(Shape::Tuple({e1, e3}).Compatible(Shape::Tuple({e3, e1})));
  CHECK_FALSE(Shape::Tuple({e1}).Compatible(Shape::Tuple({e1, e1})));
  CHECK(Shape::Tuple({}).Compatible(Shape::Tuple({})));
  // == on tuples compares element values, not just pointers.
  Shape copy_of_def = def;
  CHECK(Shape::Tuple({e1}) == Shape::Tuple({&copy_of_def}));
}

TEST_CASE("shape: equal shapes hash equally", "[shape]") {
  ShapePool pool;
  const Shape* e = pool.Intern(Arr(PT::kF32, {2}).WithDefaultLayout());
  Shape e_copy = *e;
  const Shape pairs[][2] = {
      {Arr(PT::kF32, {2, 3}), Arr(PT::kF32, {2, 3})},
      {Arr(PT::kF32, {2, 3}).WithDefaultLayout(), Arr(PT::kF32, {2, 3}).WithDefaultLayout()},
      {Shape::Tuple({e}), Shape::Tuple({&e_copy})},
      {Shape::Token(), Shape::Token()},
  };
  for (const auto& p : pairs) {
    REQUIRE(p[0] == p[1]);
    CHECK(p[0].Hash() == p[1].Hash());
  }
}

TEST_CASE("shape pool: equal shapes are the same pointer", "[shape][pool]") {
  ShapePool pool;
  Shape a = Arr(PT::kF32, {2, 3}).WithDefaultLayout();
  const Shape* p1 = pool.Intern(a);
  const Shape* p2 = pool.Intern(Arr(PT::kF32, {2, 3}).WithDefaultLayout());
  CHECK(p1 == p2);
  CHECK(*p1 == a);
  CHECK(pool.size() == 1);
  // Different layouts, types or dims are different shapes.
  const Shape* p3 = pool.Intern(Arr(PT::kF32, {2, 3}).WithLayout(LayoutOf({0, 1})));
  const Shape* p4 = pool.Intern(Arr(PT::kF32, {2, 3}));
  const Shape* p5 = pool.Intern(Arr(PT::kS32, {2, 3}).WithDefaultLayout());
  Layout tiled = LayoutOf({1, 0});
  tiled.tiles = {Tile{{8, 128}}};
  const Shape* p6 = pool.Intern(Arr(PT::kF32, {2, 3}).WithLayout(tiled));
  Layout tiled2 = tiled;
  tiled2.tiles = {Tile{{8, 64}}};
  const Shape* p7 = pool.Intern(Arr(PT::kF32, {2, 3}).WithLayout(tiled2));
  Layout sc = LayoutOf({1, 0});
  sc.split_configs = {SplitConfig{0, {1}}};
  const Shape* p8 = pool.Intern(Arr(PT::kF32, {2, 3}).WithLayout(sc));
  std::vector<const Shape*> all = {p1, p3, p4, p5, p6, p7, p8};
  for (size_t i = 0; i < all.size(); ++i) {
    for (size_t j = i + 1; j < all.size(); ++j) CHECK(all[i] != all[j]);
  }
  CHECK(pool.size() == all.size());
  CHECK(pool.Intern(Arr(PT::kF32, {2, 3}).WithLayout(tiled)) == p6);
  CHECK(pool.Intern(Arr(PT::kF32, {2, 3}).WithLayout(sc)) == p8);
  // Text() is the printed shape.
  CHECK(pool.Text(p1) == "f32[2,3]{1,0}");
  CHECK(pool.Text(p3) == "f32[2,3]{0,1}");
  CHECK(pool.Text(p4) == "f32[2,3]");
  CHECK(pool.Text(p6) == "f32[2,3]{1,0:T(8,128)}");
  CHECK(pool.Text(p1) == "f32[2,3]{1,0}");  // cached, same again
}

TEST_CASE("shape pool: tuples share their elements", "[shape][pool]") {
  ShapePool pool;
  const Shape* f = pool.Intern(Arr(PT::kF32, {4}).WithDefaultLayout());
  const Shape* s = pool.Intern(Arr(PT::kS32, {}).WithDefaultLayout());
  const Shape* t1 = pool.Intern(Shape::Tuple({f, s, f}));
  // Equal element shapes given as different objects still find the tuple.
  Shape f_copy = Arr(PT::kF32, {4}).WithDefaultLayout();
  Shape s_copy = Arr(PT::kS32, {}).WithDefaultLayout();
  const Shape* t2 = pool.Intern(Shape::Tuple({&f_copy, &s_copy, &f_copy}));
  CHECK(t1 == t2);
  CHECK(&t1->tuple_shape(0) == f);
  CHECK(&t1->tuple_shape(2) == f);
  CHECK(&t1->tuple_shape(1) == s);
  CHECK(pool.Text(t1) == "(f32[4]{0}, s32[], f32[4]{0})");
  // A tuple of a tuple.
  const Shape* nested = pool.Intern(Shape::Tuple({t1, t1}));
  CHECK(&nested->tuple_shape(0) == t1);
  CHECK(&nested->tuple_shape(1) == t1);
  CHECK(pool.Text(nested) == "((f32[4]{0}, s32[], f32[4]{0}), (f32[4]{0}, s32[], f32[4]{0}))");
  // Pointers stay valid as the pool grows.
  std::vector<const Shape*> many;
  for (int64_t i = 1; i <= 2000; ++i) {
    many.push_back(pool.Intern(Arr(PT::kF32, {i}).WithDefaultLayout()));
  }
  for (int64_t i = 1; i <= 2000; ++i) {
    CHECK(many[i - 1]->dim(0) == i);
    if (i % 97 == 0) {
      CHECK(pool.Intern(Arr(PT::kF32, {i}).WithDefaultLayout()) == many[i - 1]);
    }
  }
  CHECK(f->ToString() == "f32[4]{0}");
  CHECK(pool.Intern(Arr(PT::kF32, {4}).WithDefaultLayout()) == f);
}

TEST_CASE("shape pool: WithoutLayout", "[shape][pool]") {
  ShapePool pool;
  const Shape* f = pool.Intern(Arr(PT::kF32, {2, 3}).WithLayout(LayoutOf({0, 1})));
  const Shape* bare = pool.WithoutLayout(f);
  CHECK_FALSE(bare->has_layout());
  CHECK(bare == pool.Intern(Arr(PT::kF32, {2, 3})));
  CHECK(pool.Text(bare) == "f32[2,3]");
  CHECK(pool.WithoutLayout(bare) == bare);
  const Shape* s = pool.Intern(Arr(PT::kS32, {}).WithDefaultLayout());
  const Shape* t = pool.Intern(Shape::Tuple({f, s}));
  const Shape* tb = pool.WithoutLayout(t);
  CHECK(pool.Text(tb) == "(f32[2,3], s32[])");
  CHECK(&tb->tuple_shape(0) == bare);
  CHECK(tb == pool.WithoutLayout(tb));
  const Shape* tok = pool.Intern(Shape::Token());
  CHECK(pool.WithoutLayout(tok) == tok);
}

TEST_CASE("shape: builders", "[shape]") {
  Shape s = Arr(PT::kF32, {2, 3}).WithDefaultLayout();
  CHECK(s.WithElementType(PT::kBF16).ToString() == "bf16[2,3]{1,0}");
  CHECK(s.WithoutLayout().ToString() == "f32[2,3]");
  CHECK(s.rank() == 2);
  CHECK(s.dim(1) == 3);
  CHECK(s.element_type() == PT::kF32);
  CHECK(s.IsArray());
  CHECK_FALSE(s.IsTuple());
  CHECK(s.has_layout());
  CHECK(Arr(PT::kF32, {}).rank() == 0);
}

}  // namespace
}  // namespace hlo

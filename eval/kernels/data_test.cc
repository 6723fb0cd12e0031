// Data-movement kernels (eval/kernels/data*.cc), one instruction at a time:
// instructions come from small parsed modules, operands from parsed literals.
//
// Expected values come from the specification in ../shared/spec: the
// examples of operation-semantics.en.txt (XLA, "XLA:") and of the
// per-op "Examples" sections of stablehlo-spec.en.md ("StableHLO:"), or are
// worked by hand from the definitions there (stated next to each case). Large
// cases are checked element by element against the defining formula.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "eval/evaluator.h"
#include "eval/io/random_fill.h"
#include "eval/kernels/kernels.h"
#include "ir/computation.h"
#include "ir/literal.h"
#include "ir/strings.h"
#include "parser/parser.h"

namespace hlo {
namespace {

// A parsed module and an evaluator for it; Eval runs one named instruction.
class Runner {
 public:
  explicit Runner(std::string_view text, EvalOptions options = {}) {
    std::string module_text = StrCat("HloModule test\n\n", text);
    absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(module_text);
    INFO((m.ok() ? std::string() : std::string(m.status().message())));
    REQUIRE(m.ok());
    module_ = *std::move(m);
    evaluator_ = std::make_unique<Evaluator>(*module_, options);
  }

  const Instruction& Find(std::string_view name) const {
    for (const auto& inst : module_->entry()->instructions()) {
      if (inst->name() == name) return *inst;
    }
    FAIL("no instruction " << name);
    return *module_->entry()->root();
  }

  absl::StatusOr<Value> Eval(std::string_view name, const std::vector<Value>& operands) {
    std::vector<const Value*> ptrs;
    for (const Value& v : operands) ptrs.push_back(&v);
    return EvalDataMovement(Find(name), ptrs, *evaluator_);
  }
  absl::StatusOr<Value> Root(const std::vector<Value>& operands) {
    return Eval(module_->entry()->root()->name(), operands);
  }

 private:
  std::unique_ptr<Module> module_;
  std::unique_ptr<Evaluator> evaluator_;
};

Literal Lit(std::string_view text) {
  absl::StatusOr<Literal> lit = ParseLiteral(text);
  INFO(text << ": " << (lit.ok() ? std::string() : std::string(lit.status().message())));
  REQUIRE(lit.ok());
  return *std::move(lit);
}

Value V(std::string_view text) { return Value::FromLiteral(Lit(text)); }

std::string Text(const Literal& lit) { return LiteralToString(lit, LiteralStyle::kCompact); }

// The result equals the literal `want` (element type, dims and bytes).
void Expect(const absl::StatusOr<Value>& got, std::string_view want) {
  INFO((got.ok() ? std::string() : std::string(got.status().message())));
  REQUIRE(got.ok());
  Literal expected = Lit(want);
  Literal actual = got->ToLiteral();
  INFO("got  " << Text(actual) << "\nwant " << Text(expected));
  CHECK(actual == expected);
}

void ExpectError(const absl::StatusOr<Value>& got, std::string_view fragment) {
  REQUIRE_FALSE(got.ok());
  INFO(got.status().message());
  CHECK(std::string_view(got.status().message().data(), got.status().message().size())
            .find(fragment) != std::string_view::npos);
}

// An array value of `type` and `dims` whose element i (row-major) is f(i).
template <typename F>
Value Make(PrimitiveType type, std::vector<int64_t> dims, F f) {
  absl::StatusOr<Literal> lit = Literal::Create(Shape::Array(type, dims));
  REQUIRE(lit.ok());
  for (int64_t i = 0; i < lit->element_count(); ++i) lit->SetBits(i, f(i));
  return Value::FromLiteral(*std::move(lit));
}

// Row-major linear index of `idx` in `dims`.
int64_t Linear(const std::vector<int64_t>& dims, const std::vector<int64_t>& idx) {
  int64_t n = 0;
  for (size_t i = 0; i < dims.size(); ++i) n = n * dims[i] + idx[i];
  return n;
}

// Calls f(index) for every index of `dims` in row-major order.
template <typename F>
void ForEachIndex(const std::vector<int64_t>& dims, F f) {
  std::vector<int64_t> idx(dims.size(), 0);
  for (int64_t d : dims) {
    if (d == 0) return;
  }
  while (true) {
    f(idx);
    int64_t k = static_cast<int64_t>(dims.size()) - 1;
    while (k >= 0 && ++idx[k] == dims[k]) idx[k--] = 0;
    if (k < 0) return;
  }
}

// ---- broadcast ----------------------------------------------------------

TEST_CASE("broadcast: StableHLO example (size-1 operand dimension)", "[eval]") {
  // StableHLO broadcast_in_dim example: [[1,2,3]] with
  // broadcast_dimensions = [2, 1] into 2x3x2.
  Runner r(R"(ENTRY e {
    p = s32[1,3] parameter(0)
    ROOT b = s32[2,3,2] broadcast(p), dimensions={2,1}
  })");
  Expect(r.Root({V("s32[1,3] {{1, 2, 3}}")}),
         "s32[2,3,2] {{{1, 1}, {2, 2}, {3, 3}}, {{1, 1}, {2, 2}, {3, 3}}}");
}

TEST_CASE("broadcast: XLA scalar example and rank-1 placements", "[eval]") {
  // XLA Broadcast: scalar 2.0f with sizes {2, 3} gives all 2.0f.
  Runner r(R"(ENTRY e {
    s = f32[] parameter(0)
    v = f32[3] parameter(1)
    w = f32[2] parameter(2)
    b0 = f32[2,3] broadcast(s), dimensions={}
    b1 = f32[2,3] broadcast(v), dimensions={1}
    b2 = f32[2,3] broadcast(w), dimensions={0}
    ROOT t = (f32[2,3], f32[2,3], f32[2,3]) tuple(b0, b1, b2)
  })");
  Expect(r.Eval("b0", {V("f32[] 2")}), "f32[2,3] {{2, 2, 2}, {2, 2, 2}}");
  // output[i, j] = operand[j] (operand dim 0 -> result dim 1).
  Expect(r.Eval("b1", {V("f32[3] {1, 2, 3}")}), "f32[2,3] {{1, 2, 3}, {1, 2, 3}}");
  // output[i, j] = operand[i].
  Expect(r.Eval("b2", {V("f32[2] {1, 2}")}), "f32[2,3] {{1, 1, 1}, {2, 2, 2}}");
}

TEST_CASE("broadcast: rank 0 to rank 0, rank 4, and empty dims", "[eval]") {
  Runner r(R"(ENTRY e {
    s = s16[] parameter(0)
    m = s32[2,3] parameter(1)
    z = f32[0] parameter(2)
    b0 = s16[] broadcast(s), dimensions={}
    b4 = s32[3,2,4,3] broadcast(m), dimensions={1,3}
    be = f32[2,0] broadcast(z), dimensions={1}
    bz = f32[0,3] broadcast(s), dimensions={}
    ROOT t = (s16[]) tuple(b0)
  })");
  Expect(r.Eval("b0", {V("s16[] -7")}), "s16[] -7");
  // output[a, b, c, d] = operand[b, d].
  Value m = V("s32[2,3] {{1, 2, 3}, {4, 5, 6}}");
  absl::StatusOr<Value> b4 = r.Eval("b4", {m});
  REQUIRE(b4.ok());
  const std::vector<int64_t> dims = {3, 2, 4, 3};
  ForEachIndex(dims, [&](const std::vector<int64_t>& i) {
    CHECK(b4->array().GetInt(Linear(dims, i)) == 1 + i[1] * 3 + i[3]);
  });
  Expect(r.Eval("be", {V("f32[0] {}")}), "f32[2,0] {{}, {}}");
  Expect(r.Eval("bz", {V("f32[] 1")}), "f32[0,3] {}");
}

TEST_CASE("broadcast: complex and sub-byte elements", "[eval]") {
  Runner r(R"(ENTRY e {
    c = c128[2] parameter(0)
    s = s4[2] parameter(1)
    bc = c128[2,2] broadcast(c), dimensions={0}
    bs = s4[3,2] broadcast(s), dimensions={1}
    ROOT t = (c128[2,2]) tuple(bc)
  })");
  Expect(r.Eval("bc", {V("c128[2] {(1, -2), (3.5, 4)}")}),
         "c128[2,2] {{(1, -2), (1, -2)}, {(3.5, 4), (3.5, 4)}}");
  Expect(r.Eval("bs", {V("s4[2] {-8, 7}")}), "s4[3,2] {{-8, 7}, {-8, 7}, {-8, 7}}");
}

// A value per row repeated along the minor dimension: runs of up to 64
// copies are made a line at a time (data_copy.cc's kShortRun), longer ones
// a run at a time; every element width, with an outer dimension and with
// the operand's dimensions swapped (its line strided).
TEST_CASE("broadcast: short and long minor repeats for every element width", "[eval]") {
  Runner r(R"(ENTRY e {
    p8 = u8[3,5] parameter(0)
    p16 = f16[3,5] parameter(1)
    p32 = f32[3,5] parameter(2)
    p64 = f64[3,5] parameter(3)
    p128 = c128[3,5] parameter(4)
    a8 = u8[3,5,16] broadcast(p8), dimensions={0,1}
    a16 = f16[3,5,64] broadcast(p16), dimensions={0,1}
    a32 = f32[3,5,65] broadcast(p32), dimensions={0,1}
    a64 = f64[3,5,3] broadcast(p64), dimensions={0,1}
    a128 = c128[3,5,2] broadcast(p128), dimensions={0,1}
    s32 = f32[5,3,7] broadcast(p32), dimensions={1,0}
    ROOT t = (u8[3,5,16]) tuple(a8)
  })");
  // output[i, j, k] = operand[i, j] (swapped: output[j, i, k]), bytes compared.
  auto check = [&](const char* name, PrimitiveType t, int64_t reps, bool swapped) {
    INFO(name);
    const Value arg =
        Make(t, {3, 5}, [](int64_t i) { return static_cast<uint64_t>(i * 2654435761u + 5); });
    absl::StatusOr<Value> got = r.Eval(name, {arg});
    REQUIRE(got.ok());
    const uint8_t* in = static_cast<const uint8_t*>(arg.array().data());
    const uint8_t* out = static_cast<const uint8_t*>(got->array().data());
    const int64_t width = ByteWidth(t);
    int64_t bad = 0;
    for (int64_t i = 0; i < 3; ++i) {
      for (int64_t j = 0; j < 5; ++j) {
        for (int64_t k = 0; k < reps; ++k) {
          const int64_t at = swapped ? (j * 3 + i) * reps + k : (i * 5 + j) * reps + k;
          bad += std::memcmp(out + at * width, in + (i * 5 + j) * width, width) != 0;
        }
      }
    }
    CHECK(bad == 0);
  };
  check("a8", PrimitiveType::kU8, 16, false);
  check("a16", PrimitiveType::kF16, 64, false);
  check("a32", PrimitiveType::kF32, 65, false);
  check("a64", PrimitiveType::kF64, 3, false);
  check("a128", PrimitiveType::kC128, 2, false);
  check("s32", PrimitiveType::kF32, 7, true);
}

TEST_CASE("broadcast: a dimension size mismatch is an error", "[eval]") {
  Runner r(R"(ENTRY e {
    p = f32[3] parameter(0)
    ROOT b = f32[2,4] broadcast(p), dimensions={1}
  })");
  ExpectError(r.Root({V("f32[3] {1, 2, 3}")}), "broadcast maps operand dimension 0");
}

// ---- reshape --------------------------------------------------------------

TEST_CASE("reshape: StableHLO and XLA examples", "[eval]") {
  Runner r(R"(ENTRY e {
    p = s32[2,3] parameter(0)
    v = f32[4,2,3] parameter(1)
    a = s32[3,2] reshape(p)
    b = f32[24] reshape(v)
    c = f32[8,3] reshape(v)
    ROOT t = (s32[3,2]) tuple(a)
  })");
  // StableHLO: [[1,2,3],[4,5,6]] -> [[1,2],[3,4],[5,6]].
  Expect(r.Eval("a", {V("s32[2,3] {{1, 2, 3}, {4, 5, 6}}")}), "s32[3,2] {{1, 2}, {3, 4}, {5, 6}}");
  // XLA: in-order collapse of v (v012_24 and v012_83).
  Value v =
      V("f32[4,2,3] {{{10, 11, 12}, {15, 16, 17}}, {{20, 21, 22}, {25, 26, 27}},"
        " {{30, 31, 32}, {35, 36, 37}}, {{40, 41, 42}, {45, 46, 47}}}");
  Expect(r.Eval("b", {v}),
         "f32[24] {10, 11, 12, 15, 16, 17, 20, 21, 22, 25, 26, 27, 30, 31, 32, 35, 36, 37,"
         " 40, 41, 42, 45, 46, 47}");
  Expect(r.Eval("c", {v}),
         "f32[8,3] {{10, 11, 12}, {15, 16, 17}, {20, 21, 22}, {25, 26, 27},"
         " {30, 31, 32}, {35, 36, 37}, {40, 41, 42}, {45, 46, 47}}");
}

TEST_CASE("reshape: scalars, rank 4 and empty arrays", "[eval]") {
  Runner r(R"(ENTRY e {
    p = f32[1,1] parameter(0)
    s = f32[] parameter(1)
    q = u8[2,3,4] parameter(2)
    z = f32[0,3] parameter(3)
    a = f32[] reshape(p)
    b = f32[1,1] reshape(s)
    c = u8[2,2,3,2] reshape(q)
    d = f32[3,0] reshape(z)
    ROOT t = (f32[]) tuple(a)
  })");
  // XLA: Reshape(f32[1x1] {{5}}, {0,1}, {}) == 5 and back.
  Expect(r.Eval("a", {V("f32[1,1] {{5}}")}), "f32[] 5");
  Expect(r.Eval("b", {V("f32[] 5")}), "f32[1,1] {{5}}");
  // Row-major order is kept: element i stays element i.
  absl::StatusOr<Value> c = r.Eval("c", {Make(PrimitiveType::kU8, {2, 3, 4},
                                              [](int64_t i) { return static_cast<uint64_t>(i); })});
  REQUIRE(c.ok());
  for (int64_t i = 0; i < 24; ++i) CHECK(c->array().GetInt(i) == i);
  Expect(r.Eval("d", {V("f32[0,3] {}")}), "f32[3,0] {{}, {}, {}}");
}

TEST_CASE("reshape: element count mismatch is an error", "[eval]") {
  Runner r(R"(ENTRY e {
    p = f32[2,3] parameter(0)
    ROOT a = f32[5] reshape(p)
  })");
  ExpectError(r.Root({V("f32[2,3] {{1, 2, 3}, {4, 5, 6}}")}), "changes the number of elements");
}

// ---- transpose ------------------------------------------------------------

TEST_CASE("transpose: StableHLO example", "[eval]") {
  Runner r(R"(ENTRY e {
    p = s32[2,3,2] parameter(0)
    ROOT t = s32[2,3,2] transpose(p), dimensions={2,1,0}
  })");
  Expect(r.Root({V("s32[2,3,2] {{{1, 2}, {3, 4}, {5, 6}}, {{7, 8}, {9, 10}, {11, 12}}}")}),
         "s32[2,3,2] {{{1, 7}, {3, 9}, {5, 11}}, {{2, 8}, {4, 10}, {6, 12}}}");
}

TEST_CASE("transpose: 2-D, rank 0 and empty", "[eval]") {
  Runner r(R"(ENTRY e {
    p = f32[2,3] parameter(0)
    s = f32[] parameter(1)
    z = f32[0,2] parameter(2)
    a = f32[3,2] transpose(p), dimensions={1,0}
    b = f32[] transpose(s), dimensions={}
    c = f32[2,0] transpose(z), dimensions={1,0}
    ROOT t = (f32[3,2]) tuple(a)
  })");
  // result[i, j] = operand[j, i].
  Expect(r.Eval("a", {V("f32[2,3] {{1, 2, 3}, {4, 5, 6}}")}), "f32[3,2] {{1, 4}, {2, 5}, {3, 6}}");
  Expect(r.Eval("b", {V("f32[] 3.5")}), "f32[] 3.5");
  Expect(r.Eval("c", {V("f32[0,2] {}")}), "f32[2,0] {{}, {}}");
}

// Checks result[i] = operand[j] with j[perm[k]] = i[k] for every index.
void CheckTranspose(const Value& operand, const Value& result, const std::vector<int64_t>& in_dims,
                    const std::vector<int64_t>& perm) {
  std::vector<int64_t> out_dims;
  for (int64_t p : perm) out_dims.push_back(in_dims[p]);
  int64_t bad = 0;
  ForEachIndex(out_dims, [&](const std::vector<int64_t>& i) {
    std::vector<int64_t> j(in_dims.size());
    for (size_t k = 0; k < perm.size(); ++k) j[perm[k]] = i[k];
    const Literal& a = result.array();
    const Literal& b = operand.array();
    const int w = ByteWidth(a.element_type());
    if (std::memcmp(a.data() + Linear(out_dims, i) * w, b.data() + Linear(in_dims, j) * w, w) !=
        0) {
      ++bad;
    }
  });
  CHECK(bad == 0);
}

TEST_CASE("transpose: rank 3 and 4 permutations against the definition", "[eval]") {
  Runner r(R"(ENTRY e {
    p = s32[5,7,3,4] parameter(0)
    q = s32[6,5,9] parameter(1)
    a = s32[4,7,5,3] transpose(p), dimensions={3,1,0,2}
    b = s32[5,3,4,7] transpose(p), dimensions={0,2,3,1}
    c = s32[7,5,3,4] transpose(p), dimensions={1,0,2,3}
    d = s32[9,6,5] transpose(q), dimensions={2,0,1}
    e = s32[5,9,6] transpose(q), dimensions={1,2,0}
    ROOT t = (s32[4,7,5,3]) tuple(a)
  })");
  auto id = [](int64_t i) { return static_cast<uint64_t>(i * 3 + 1); };
  Value p = Make(PrimitiveType::kS32, {5, 7, 3, 4}, id);
  Value q = Make(PrimitiveType::kS32, {6, 5, 9}, id);
  for (auto [name, perm] : std::vector<std::pair<std::string, std::vector<int64_t>>>{
           {"a", {3, 1, 0, 2}}, {"b", {0, 2, 3, 1}}, {"c", {1, 0, 2, 3}}}) {
    INFO(name);
    absl::StatusOr<Value> t = r.Eval(name, {p});
    REQUIRE(t.ok());
    CheckTranspose(p, *t, {5, 7, 3, 4}, perm);
  }
  for (auto [name, perm] : std::vector<std::pair<std::string, std::vector<int64_t>>>{
           {"d", {2, 0, 1}}, {"e", {1, 2, 0}}}) {
    INFO(name);
    absl::StatusOr<Value> t = r.Eval(name, {q});
    REQUIRE(t.ok());
    CheckTranspose(q, *t, {6, 5, 9}, perm);
  }
}

// Batch and channels swapped (a convolution's weight gradient in NHWC):
// tiles of 4x3 go by strided lines along the longest axis, tiles of 20x16
// through the blocked transpose, per outer position.
TEST_CASE("transpose: tiny and small tiles under a long outer axis", "[eval]") {
  Runner r(R"(ENTRY e {
    p = s32[4,32,32,3] parameter(0)
    q = s32[20,6,6,16] parameter(1)
    a = s32[3,32,32,4] transpose(p), dimensions={3,1,2,0}
    b = s32[16,6,6,20] transpose(q), dimensions={3,1,2,0}
    ROOT t = (s32[3,32,32,4]) tuple(a)
  })");
  auto id = [](int64_t i) { return static_cast<uint64_t>(i * 3 + 1); };
  Value p = Make(PrimitiveType::kS32, {4, 32, 32, 3}, id);
  Value q = Make(PrimitiveType::kS32, {20, 6, 6, 16}, id);
  absl::StatusOr<Value> a = r.Eval("a", {p});
  REQUIRE(a.ok());
  CheckTranspose(p, *a, {4, 32, 32, 3}, {3, 1, 2, 0});
  absl::StatusOr<Value> b = r.Eval("b", {q});
  REQUIRE(b.ok());
  CheckTranspose(q, *b, {20, 6, 6, 16}, {3, 1, 2, 0});
}

// NCHW to NHWC and back: a short minor axis of 2 to 9 (AVX-512's
// interleaving permutes up to 8), minor lengths with and without a
// 16-column tail, with a batch axis and without one, 4-byte elements as
// integers and floats.
TEST_CASE("transpose: to and from a short minor axis, with and without a batch", "[eval]") {
  auto id = [](int64_t i) { return static_cast<uint64_t>(i * 7 + 3); };
  for (std::string_view type : {"s32", "f32"}) {
    const PrimitiveType pt = type == "s32" ? PrimitiveType::kS32 : PrimitiveType::kF32;
    for (int64_t nb = 2; nb <= 9; ++nb) {
      for (int64_t na : {128, 1001, 1037}) {
        const std::string text =
            StrCat("ENTRY e {\n  p = ", type, "[2,", nb, ",", na, "] parameter(0)\n  q = ", type,
                   "[", nb, ",", na, "] parameter(1)\n  a = ", type, "[2,", na, ",", nb,
                   "] transpose(p), dimensions={0,2,1}\n  b = ", type, "[", na, ",", nb,
                   "] transpose(q), dimensions={1,0}\n  c = ", type, "[2,", nb, ",", na,
                   "] transpose(a), dimensions={0,2,1}\n  d = ", type, "[", nb, ",", na,
                   "] transpose(b), dimensions={1,0}\n  ROOT t = (", type, "[2,", nb, ",", na,
                   "]) tuple(c)\n}\n");
        INFO(text);
        Runner r(text);
        const Value p = Make(pt, {2, nb, na}, id);
        const Value q = Make(pt, {nb, na}, id);
        absl::StatusOr<Value> a = r.Eval("a", {p});
        REQUIRE(a.ok());
        CheckTranspose(p, *a, {2, nb, na}, {0, 2, 1});
        absl::StatusOr<Value> b = r.Eval("b", {q});
        REQUIRE(b.ok());
        CheckTranspose(q, *b, {nb, na}, {1, 0});
        // and back (NHWC to NCHW)
        absl::StatusOr<Value> c = r.Eval("c", {*a});
        REQUIRE(c.ok());
        CheckTranspose(*a, *c, {2, na, nb}, {0, 2, 1});
        absl::StatusOr<Value> d = r.Eval("d", {*b});
        REQUIRE(d.ok());
        CheckTranspose(*b, *d, {na, nb}, {1, 0});
      }
    }
  }
}

TEST_CASE("transpose: large 2-D blocks for every element width", "[eval]") {
  // Sizes that are not multiples of the blocks, so partial blocks run too;
  // odd batch sizes start blocks at every alignment. The h* cases put
  // source rows either side of the 512 bytes up to which they are read
  // where they lie and past which they are staged (data_copy.cc's
  // kDirectRowBytes), for 1-, 4- and 8-byte elements.
  Runner r(R"(ENTRY e {
    a = u8[1037,301] parameter(0)
    b = f16[301,1037] parameter(1)
    c = f32[301,1037] parameter(2)
    d = f64[301,257] parameter(3)
    e = c128[67,131] parameter(4)
    f = f32[3,130,67] parameter(5)
    ta = u8[301,1037] transpose(a), dimensions={1,0}
    tb = f16[1037,301] transpose(b), dimensions={1,0}
    tc = f32[1037,301] transpose(c), dimensions={1,0}
    td = f64[257,301] transpose(d), dimensions={1,0}
    te = c128[131,67] transpose(e), dimensions={1,0}
    tf = f32[67,3,130] transpose(f), dimensions={2,0,1}
    g8 = u8[3,37,41] parameter(6)
    g16 = f16[3,37,41] parameter(7)
    g32 = f32[3,37,41] parameter(8)
    g64 = f64[3,37,41] parameter(9)
    ga = u8[3,41,37] transpose(g8), dimensions={0,2,1}
    gb = f16[3,41,37] transpose(g16), dimensions={0,2,1}
    gc = f32[3,41,37] transpose(g32), dimensions={0,2,1}
    gd = f64[3,41,37] transpose(g64), dimensions={0,2,1}
    h8 = u8[45,512] parameter(10)
    h8b = u8[45,513] parameter(11)
    h32 = f32[37,128] parameter(12)
    h32b = f32[37,129] parameter(13)
    h64 = f64[70,64] parameter(14)
    h64b = f64[70,65] parameter(15)
    ha = u8[512,45] transpose(h8), dimensions={1,0}
    hb = u8[513,45] transpose(h8b), dimensions={1,0}
    hc = f32[128,37] transpose(h32), dimensions={1,0}
    hd = f32[129,37] transpose(h32b), dimensions={1,0}
    he = f64[64,70] transpose(h64), dimensions={1,0}
    hf = f64[65,70] transpose(h64b), dimensions={1,0}
    ROOT t = (u8[301,1037]) tuple(ta)
  })");
  struct Case {
    const char* name;
    PrimitiveType type;
    std::vector<int64_t> dims, perm;
  };
  for (const Case& c : std::vector<Case>{{"ta", PrimitiveType::kU8, {1037, 301}, {1, 0}},
                                         {"tb", PrimitiveType::kF16, {301, 1037}, {1, 0}},
                                         {"tc", PrimitiveType::kF32, {301, 1037}, {1, 0}},
                                         {"td", PrimitiveType::kF64, {301, 257}, {1, 0}},
                                         {"tf", PrimitiveType::kF32, {3, 130, 67}, {2, 0, 1}},
                                         {"ga", PrimitiveType::kU8, {3, 37, 41}, {0, 2, 1}},
                                         {"gb", PrimitiveType::kF16, {3, 37, 41}, {0, 2, 1}},
                                         {"gc", PrimitiveType::kF32, {3, 37, 41}, {0, 2, 1}},
                                         {"gd", PrimitiveType::kF64, {3, 37, 41}, {0, 2, 1}},
                                         {"ha", PrimitiveType::kU8, {45, 512}, {1, 0}},
                                         {"hb", PrimitiveType::kU8, {45, 513}, {1, 0}},
                                         {"hc", PrimitiveType::kF32, {37, 128}, {1, 0}},
                                         {"hd", PrimitiveType::kF32, {37, 129}, {1, 0}},
                                         {"he", PrimitiveType::kF64, {70, 64}, {1, 0}},
                                         {"hf", PrimitiveType::kF64, {70, 65}, {1, 0}}}) {
    INFO(c.name);
    Value in =
        Make(c.type, c.dims, [](int64_t i) { return static_cast<uint64_t>(i * 2654435761u); });
    absl::StatusOr<Value> t = r.Eval(c.name, {in});
    REQUIRE(t.ok());
    CheckTranspose(in, *t, c.dims, c.perm);
  }
  // c128: 16-byte elements, both halves distinct.
  absl::StatusOr<Literal> lit = Literal::Create(Shape::Array(PrimitiveType::kC128, {67, 131}));
  REQUIRE(lit.ok());
  for (int64_t i = 0; i < lit->element_count(); ++i)
    lit->SetComplex(i, {double(i), -double(i) - 0.5});
  Value in = Value::FromLiteral(*std::move(lit));
  absl::StatusOr<Value> t = r.Eval("te", {in});
  REQUIRE(t.ok());
  CheckTranspose(in, *t, {67, 131}, {1, 0});
  CHECK(t->array().GetComplex(1) == std::complex<double>(131, -131.5));
}

TEST_CASE("transpose: results larger than the caches", "[eval]") {
  // Over 32 MiB of f32 (the blocked transpose then writes past the caches),
  // with destination rows of a multiple of 4 elements and not.
  Runner r(R"(ENTRY e {
    a = f32[2900,2900] parameter(0)
    b = f32[2,2049,2048] parameter(1)
    c = f32[2,2048,2049] parameter(2)
    ta = f32[2900,2900] transpose(a), dimensions={1,0}
    tb = f32[2,2048,2049] transpose(b), dimensions={0,2,1}
    tc = f32[2,2049,2048] transpose(c), dimensions={0,2,1}
    ROOT t = (f32[2900,2900]) tuple(ta)
  })");
  struct Case {
    const char* name;
    int64_t batch, rows, cols;
  };
  for (const Case& c :
       std::vector<Case>{{"ta", 1, 2900, 2900}, {"tb", 2, 2049, 2048}, {"tc", 2, 2048, 2049}}) {
    INFO(c.name);
    std::vector<int64_t> dims = {c.batch, c.rows, c.cols};
    if (c.batch == 1) dims.erase(dims.begin());
    Value in = Make(PrimitiveType::kF32, dims, [](int64_t i) { return static_cast<uint64_t>(i); });
    absl::StatusOr<Value> t = r.Eval(c.name, {in});
    REQUIRE(t.ok());
    // result[b, j, i] = operand[b, i, j]; elements hold their operand index.
    const uint32_t* out = t->array().typed<uint32_t>();
    int64_t bad = 0;
    for (int64_t b = 0; b < c.batch; ++b) {
      for (int64_t j = 0; j < c.cols; ++j) {
        for (int64_t i = 0; i < c.rows; ++i) {
          const int64_t want = (b * c.rows + i) * c.cols + j;
          bad += out[(b * c.cols + j) * c.rows + i] != static_cast<uint32_t>(want);
        }
      }
    }
    CHECK(bad == 0);
  }
}

TEST_CASE("transpose: a non-permutation is an error", "[eval]") {
  Runner r(R"(ENTRY e {
    p = f32[2,2] parameter(0)
    ROOT t = f32[2,2] transpose(p), dimensions={0,0}
  })");
  ExpectError(r.Root({V("f32[2,2] {{1, 2}, {3, 4}}")}), "not a permutation");
}

// ---- slice ----------------------------------------------------------------

TEST_CASE("slice: StableHLO example", "[eval]") {
  Runner r(R"(ENTRY e {
    p = s64[3,4] parameter(0)
    ROOT s = s64[2,2] slice(p), slice={[1:3], [2:4]}
  })");
  Expect(r.Root({V("s64[3,4] {{0, 0, 0, 0}, {0, 0, 1, 1}, {0, 0, 1, 1}}")}),
         "s64[2,2] {{1, 1}, {1, 1}}");
}

TEST_CASE("slice: strides, rank 0, rank 3 and empty results", "[eval]") {
  Runner r(R"(ENTRY e {
    v = f32[10] parameter(0)
    m = s32[3,5] parameter(1)
    s = f32[] parameter(2)
    c = s32[2,3,4] parameter(3)
    a = f32[3] slice(v), slice={[1:8:3]}
    b = s32[2,2] slice(m), slice={[0:3:2], [1:5:2]}
    d = f32[] slice(s), slice={}
    e = f32[0] slice(v), slice={[4:4]}
    f = s32[1,2,2] slice(c), slice={[1:2], [0:3:2], [1:3]}
    g = f32[2] slice(v), slice={[7:10:2]}
    h = f32[1] slice(v), slice={[2:10:9223372036854775807]}
    ROOT t = (f32[3]) tuple(a)
  })");
  Value v = V("f32[10] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}");
  // Elements start, start+stride, ... below limit: 1, 4, 7.
  Expect(r.Eval("a", {v}), "f32[3] {1, 4, 7}");
  // Rows 0, 2; columns 1, 3.
  Expect(r.Eval("b", {V("s32[3,5] {{0, 1, 2, 3, 4}, {5, 6, 7, 8, 9}, {10, 11, 12, 13, 14}}")}),
         "s32[2,2] {{1, 3}, {11, 13}}");
  Expect(r.Eval("d", {V("f32[] 4")}), "f32[] 4");
  Expect(r.Eval("e", {v}), "f32[0] {}");
  // c[i,j,k] = 12i + 4j + k: i=1, j in {0,2}, k in {1,2}.
  Value c =
      Make(PrimitiveType::kS32, {2, 3, 4}, [](int64_t i) { return static_cast<uint64_t>(i); });
  Expect(r.Eval("f", {c}), "s32[1,2,2] {{{13, 14}, {21, 22}}}");
  // ceil((10 - 7) / 2) = 2 elements: 7, 9.
  Expect(r.Eval("g", {v}), "f32[2] {7, 9}");
  // A stride past the end takes only the start element.
  Expect(r.Eval("h", {v}), "f32[1] {2}");
}

TEST_CASE("slice: out-of-range bounds are an error", "[eval]") {
  Runner r(R"(ENTRY e {
    p = f32[4] parameter(0)
    ROOT s = f32[2] slice(p), slice={[3:5]}
  })");
  ExpectError(r.Root({V("f32[4] {1, 2, 3, 4}")}), "out of range");
}

// ---- dynamic-slice ----------------------------------------------------------

TEST_CASE("dynamic-slice: XLA examples", "[eval]") {
  Runner r(R"(ENTRY e {
    a = f32[5] parameter(0)
    b = f32[4,3] parameter(1)
    i = s32[] parameter(2)
    j = s32[] parameter(3)
    s1 = f32[2] dynamic-slice(a, i), dynamic_slice_sizes={2}
    s2 = f32[2,2] dynamic-slice(b, i, j), dynamic_slice_sizes={2,2}
    ROOT t = (f32[2]) tuple(s1)
  })");
  Expect(r.Eval("s1", {V("f32[5] {0, 1, 2, 3, 4}"), V("s32[] 2")}), "f32[2] {2, 3}");
  Value b = V("f32[4,3] {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}}");
  Expect(r.Eval("s2", {b, V("s32[] 2"), V("s32[] 1")}), "f32[2,2] {{7, 8}, {10, 11}}");
}

TEST_CASE("dynamic-slice: StableHLO example clamps negative and large starts", "[eval]") {
  Runner r(R"(ENTRY e {
    p = s32[4,4] parameter(0)
    i = s64[] parameter(1)
    j = s64[] parameter(2)
    ROOT s = s32[2,2] dynamic-slice(p, i, j), dynamic_slice_sizes={2,2}
  })");
  // start -1 clamps to 0, start 3 clamps to 4 - 2 = 2.
  Expect(r.Root({V("s32[4,4] {{0, 0, 1, 1}, {0, 0, 1, 1}, {0, 0, 0, 0}, {0, 0, 0, 0}}"),
                 V("s64[] -1"), V("s64[] 3")}),
         "s32[2,2] {{1, 1}, {1, 1}}");
}

TEST_CASE("dynamic-slice: index types, extreme values and the vector form", "[eval]") {
  Runner r(R"(ENTRY e {
    a = f32[5] parameter(0)
    x1 = s8[] parameter(1)
    x2 = u32[] parameter(2)
    x3 = u64[] parameter(3)
    x4 = s64[] parameter(4)
    vec = s32[2] parameter(5)
    m = f32[3,3] parameter(6)
    x7 = u4[] parameter(7)
    d1 = f32[2] dynamic-slice(a, x1), dynamic_slice_sizes={2}
    d2 = f32[2] dynamic-slice(a, x2), dynamic_slice_sizes={2}
    d3 = f32[2] dynamic-slice(a, x3), dynamic_slice_sizes={2}
    d4 = f32[2] dynamic-slice(a, x4), dynamic_slice_sizes={2}
    d5 = f32[2,1] dynamic-slice(m, vec), dynamic_slice_sizes={2,1}
    d6 = f32[0] dynamic-slice(a, x4), dynamic_slice_sizes={0}
    d7 = f32[2] dynamic-slice(a, x7), dynamic_slice_sizes={2}
    ROOT t = (f32[2]) tuple(d1)
  })");
  Value a = V("f32[5] {0, 1, 2, 3, 4}");
  // clamp(start, 0, 5 - 2 = 3).
  Expect(r.Eval("d1", {a, V("s8[] -128")}), "f32[2] {0, 1}");
  Expect(r.Eval("d1", {a, V("s8[] 1")}), "f32[2] {1, 2}");
  Expect(r.Eval("d2", {a, V("u32[] 4294967295")}), "f32[2] {3, 4}");
  // Unsigned indices are unsigned: 2^64 - 1 is large, not -1.
  Expect(r.Eval("d3", {a, V("u64[] 18446744073709551615")}), "f32[2] {3, 4}");
  Expect(r.Eval("d4", {a, V("s64[] -9223372036854775808")}), "f32[2] {0, 1}");
  Expect(r.Eval("d4", {a, V("s64[] 9223372036854775807")}), "f32[2] {3, 4}");
  Expect(r.Eval("d7", {a, V("u4[] 15")}), "f32[2] {3, 4}");
  // Old form: one index vector {row, column}; row 2 clamps to 3 - 2 = 1.
  Value m = V("f32[3,3] {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}}");
  Expect(r.Eval("d5", {m, V("s32[2] {2, 2}")}), "f32[2,1] {{5}, {8}}");
  Expect(r.Eval("d6", {a, V("s64[] 9")}), "f32[0] {}");
  ExpectError(r.Eval("d1", {a, V("f32[] 1")}), "must be integers");
}

// ---- dynamic-update-slice ---------------------------------------------------

TEST_CASE("dynamic-update-slice: XLA examples", "[eval]") {
  Runner r(R"(ENTRY e {
    a = f32[5] parameter(0)
    u = f32[2] parameter(1)
    b = f32[4,3] parameter(2)
    w = f32[3,2] parameter(3)
    i = s32[] parameter(4)
    j = s32[] parameter(5)
    d1 = f32[5] dynamic-update-slice(a, u, i)
    d2 = f32[4,3] dynamic-update-slice(b, w, i, j)
    ROOT t = (f32[5]) tuple(d1)
  })");
  Expect(r.Eval("d1", {V("f32[5] {0, 1, 2, 3, 4}"), V("f32[2] {5, 6}"), V("s32[] 2")}),
         "f32[5] {0, 1, 5, 6, 4}");
  Expect(r.Eval("d2", {V("f32[4,3] {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}}"),
                       V("f32[3,2] {{12, 13}, {14, 15}, {16, 17}}"), V("s32[] 1"), V("s32[] 1")}),
         "f32[4,3] {{0, 1, 2}, {3, 12, 13}, {6, 14, 15}, {9, 16, 17}}");
}

TEST_CASE("dynamic-update-slice: StableHLO example clamps the start", "[eval]") {
  Runner r(R"(ENTRY e {
    p = s32[4,4] parameter(0)
    u = s32[2,2] parameter(1)
    i = s64[] parameter(2)
    j = s64[] parameter(3)
    ROOT d = s32[4,4] dynamic-update-slice(p, u, i, j)
  })");
  Expect(r.Root({V("s32[4,4] {{1, 1, 0, 0}, {1, 1, 0, 0}, {1, 1, 1, 1}, {1, 1, 1, 1}}"),
                 V("s32[2,2] {{1, 1}, {1, 1}}"), V("s64[] -1"), V("s64[] 3")}),
         "s32[4,4] {{1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}}");
}

TEST_CASE("dynamic-update-slice: large starts, empty and rank-0 updates, types", "[eval]") {
  Runner r(R"(ENTRY e {
    a = s8[5] parameter(0)
    u = s8[2] parameter(1)
    z = s8[0] parameter(2)
    i = u16[] parameter(3)
    s = c64[] parameter(4)
    t = c64[] parameter(5)
    d1 = s8[5] dynamic-update-slice(a, u, i)
    d2 = s8[5] dynamic-update-slice(a, z, i)
    d3 = c64[] dynamic-update-slice(s, t)
    ROOT r = (s8[5]) tuple(d1)
  })");
  // 65535 clamps to 5 - 2 = 3.
  Expect(r.Eval("d1", {V("s8[5] {1, 2, 3, 4, 5}"), V("s8[2] {-1, -2}"), V("u16[] 65535")}),
         "s8[5] {1, 2, 3, -1, -2}");
  Expect(r.Eval("d2", {V("s8[5] {1, 2, 3, 4, 5}"), V("s8[0] {}"), V("u16[] 1")}),
         "s8[5] {1, 2, 3, 4, 5}");
  // A rank-0 update replaces the whole rank-0 operand.
  Expect(r.Eval("d3", {V("c64[] (1, 2)"), V("c64[] (3, -4)")}), "c64[] (3, -4)");
}

TEST_CASE("dynamic-update-slice: updates in place only when no one else sees the operand",
          "[eval]") {
  Runner r(R"(ENTRY e {
    a = f32[4] parameter(0)
    b = f32[4] parameter(1)
    u = f32[1] parameter(2)
    i = s32[] parameter(3)
    d1 = f32[4] dynamic-update-slice(a, u, i)
    d2 = f32[4] dynamic-update-slice(b, u, i)
    n = f32[4] negate(b)
    ROOT t = (f32[4], f32[4], f32[4]) tuple(d1, d2, n)
  })");
  // a's only user is d1 and the value is unique: its buffer is reused.
  // (The operand vector is built by moving, so the test holds no reference.)
  std::vector<Value> ops;
  ops.push_back(V("f32[4] {1, 2, 3, 4}"));
  const Literal* a_buffer = ops[0].array_ptr().get();
  ops.push_back(V("f32[1] {9}"));
  ops.push_back(V("s32[] 1"));
  absl::StatusOr<Value> d1 = r.Eval("d1", ops);
  Expect(d1, "f32[4] {1, 9, 3, 4}");
  CHECK(d1->array_ptr().get() == a_buffer);
  // b is also read by n: d2 writes a copy and leaves b alone.
  Value b = V("f32[4] {1, 2, 3, 4}");
  absl::StatusOr<Value> d2 = r.Eval("d2", {b, V("f32[1] {9}"), V("s32[] 1")});
  Expect(d2, "f32[4] {1, 9, 3, 4}");
  CHECK(d2->array_ptr().get() != b.array_ptr().get());
  Expect(b, "f32[4] {1, 2, 3, 4}");
  // A shared operand value (not unique) is copied too.
  Value shared = V("f32[4] {1, 2, 3, 4}");
  Value alias = shared;
  absl::StatusOr<Value> d3 = r.Eval("d1", {alias, V("f32[1] {7}"), V("s32[] 0")});
  Expect(d3, "f32[4] {7, 2, 3, 4}");
  Expect(shared, "f32[4] {1, 2, 3, 4}");
}

// ---- concatenate ------------------------------------------------------------

TEST_CASE("concatenate: XLA and StableHLO examples", "[eval]") {
  Runner r(R"(ENTRY e {
    a = s32[2] parameter(0)
    b = s32[2] parameter(1)
    c = s32[2] parameter(2)
    x = s64[3,2] parameter(3)
    y = s64[1,2] parameter(4)
    c1 = s32[6] concatenate(a, b, c), dimensions={0}
    c2 = s64[4,2] concatenate(x, y), dimensions={0}
    ROOT t = (s32[6]) tuple(c1)
  })");
  // XLA: Concat({{2, 3}, {4, 5}, {6, 7}}, 0).
  Expect(r.Eval("c1", {V("s32[2] {2, 3}"), V("s32[2] {4, 5}"), V("s32[2] {6, 7}")}),
         "s32[6] {2, 3, 4, 5, 6, 7}");
  // StableHLO example (also XLA's 2-D example).
  Expect(r.Eval("c2", {V("s64[3,2] {{1, 2}, {3, 4}, {5, 6}}"), V("s64[1,2] {{7, 8}}")}),
         "s64[4,2] {{1, 2}, {3, 4}, {5, 6}, {7, 8}}");
}

TEST_CASE("concatenate: inner dimensions, empty operands, rank 3, sub-byte", "[eval]") {
  Runner r(R"(ENTRY e {
    x = f32[2,1] parameter(0)
    y = f32[2,2] parameter(1)
    z = f32[2,0] parameter(2)
    p = u2[1,2,2] parameter(3)
    q = u2[1,2,1] parameter(4)
    c1 = f32[2,3] concatenate(x, z, y), dimensions={1}
    c2 = u2[1,2,3] concatenate(p, q), dimensions={2}
    c3 = f32[2,0] concatenate(z, z), dimensions={1}
    ROOT t = (f32[2,3]) tuple(c1)
  })");
  // Along dimension 1, rows are joined: row i = x[i] ++ z[i] ++ y[i].
  Expect(r.Eval("c1",
                {V("f32[2,1] {{1}, {2}}"), V("f32[2,0] {{}, {}}"), V("f32[2,2] {{3, 4}, {5, 6}}")}),
         "f32[2,3] {{1, 3, 4}, {2, 5, 6}}");
  Expect(r.Eval("c2", {V("u2[1,2,2] {{{0, 1}, {2, 3}}}"), V("u2[1,2,1] {{{3}, {0}}}")}),
         "u2[1,2,3] {{{0, 1, 3}, {2, 3, 0}}}");
  Expect(r.Eval("c3", {V("f32[2,0] {{}, {}}"), V("f32[2,0] {{}, {}}")}), "f32[2,0] {{}, {}}");
}

// Pieces of extent 1 side by side (XLA's index vectors): 2 and 4 4-byte
// operands interleave four rows at a time (6 rows: a tail of 2), other
// counts and widths and a piece of extent 2 take the strided copies; a
// trailing dimension of extent 1; NaN payloads kept.
TEST_CASE("concatenate: pieces of extent 1 along the minor dimension", "[eval]") {
  Runner r(R"(ENTRY e {
    a = s32[6,1] parameter(0)
    b = s32[6,1] parameter(1)
    c = s32[6,1] parameter(2)
    d = s32[6,1] parameter(3)
    h = f16[2,1,1] parameter(4)
    g = f16[2,1,1] parameter(5)
    p = pred[2,1] parameter(6)
    q = pred[2,1] parameter(7)
    w = s64[2,1] parameter(8)
    x = s64[2,2] parameter(9)
    f = f32[5,1,1] parameter(10)
    two = s32[6,2] concatenate(a, b), dimensions={1}
    three = s32[6,3] concatenate(a, b, c), dimensions={1}
    four = s32[6,4] concatenate(a, b, c, d), dimensions={1}
    five = s32[6,5] concatenate(d, c, b, a, d), dimensions={1}
    halves = f16[2,2,1] concatenate(h, g), dimensions={1}
    preds = pred[2,3] concatenate(p, q, p), dimensions={1}
    mixed = s64[2,3] concatenate(w, x), dimensions={1}
    floats = f32[5,2,1] concatenate(f, f), dimensions={1}
    ROOT t = (s32[6,2]) tuple(two)
  })");
  const Value a = V("s32[6,1] {{1}, {2}, {3}, {4}, {5}, {6}}");
  const Value b = V("s32[6,1] {{10}, {20}, {30}, {40}, {50}, {60}}");
  const Value c = V("s32[6,1] {{-1}, {-2}, {-3}, {-4}, {-5}, {-6}}");
  const Value d = V("s32[6,1] {{7}, {8}, {9}, {10}, {11}, {12}}");
  Expect(r.Eval("two", {a, b}), "s32[6,2] {{1, 10}, {2, 20}, {3, 30}, {4, 40}, {5, 50}, {6, 60}}");
  Expect(r.Eval("three", {a, b, c}),
         "s32[6,3] {{1, 10, -1}, {2, 20, -2}, {3, 30, -3}, {4, 40, -4}, {5, 50, -5}, "
         "{6, 60, -6}}");
  Expect(r.Eval("four", {a, b, c, d}),
         "s32[6,4] {{1, 10, -1, 7}, {2, 20, -2, 8}, {3, 30, -3, 9}, {4, 40, -4, 10}, "
         "{5, 50, -5, 11}, {6, 60, -6, 12}}");
  Expect(r.Eval("five", {d, c, b, a, d}),
         "s32[6,5] {{7, -1, 10, 1, 7}, {8, -2, 20, 2, 8}, {9, -3, 30, 3, 9}, "
         "{10, -4, 40, 4, 10}, {11, -5, 50, 5, 11}, {12, -6, 60, 6, 12}}");
  Expect(r.Eval("halves", {V("f16[2,1,1] {{{0.5}}, {{1.5}}}"), V("f16[2,1,1] {{{-2}}, {{4}}}")}),
         "f16[2,2,1] {{{0.5}, {-2}}, {{1.5}, {4}}}");
  const Value p = V("pred[2,1] {{1}, {0}}");
  Expect(r.Eval("preds", {p, V("pred[2,1] {{0}, {0}}"), p}), "pred[2,3] {{1, 0, 1}, {0, 0, 0}}");
  Expect(r.Eval("mixed", {V("s64[2,1] {{5}, {6}}"), V("s64[2,2] {{1, 2}, {3, 4}}")}),
         "s64[2,3] {{5, 1, 2}, {6, 3, 4}}");
  // A signalling NaN's bits (0x7f800001) and -0 go through unchanged.
  absl::StatusOr<Literal> fl = Literal::Create(Shape::Array(PrimitiveType::kF32, {5, 1, 1}));
  REQUIRE(fl.ok());
  const uint32_t bits[5] = {0x7f800001u, 0x80000000u, 0x3f800000u, 0xffc00001u, 0x00000001u};
  std::memcpy(fl->data(), bits, sizeof(bits));
  const Value f = Value::FromLiteral(*std::move(fl));
  absl::StatusOr<Value> joined = r.Eval("floats", {f, f});
  REQUIRE(joined.ok());
  uint32_t got[10];
  std::memcpy(got, joined->array().data(), sizeof(got));
  for (int i = 0; i < 10; ++i) CHECK(got[i] == bits[i / 2]);
}

// ---- pad --------------------------------------------------------------------

TEST_CASE("pad: StableHLO example", "[eval]") {
  Runner r(R"(ENTRY e {
    p = s32[2,3] parameter(0)
    v = s32[] parameter(1)
    ROOT d = s32[5,9] pad(p, v), padding=0_2_1x1_1_2
  })");
  Expect(r.Root({V("s32[2,3] {{1, 2, 3}, {4, 5, 6}}"), V("s32[] 0")}),
         "s32[5,9] {{0, 1, 0, 0, 2, 0, 0, 3, 0}, {0, 0, 0, 0, 0, 0, 0, 0, 0},"
         " {0, 4, 0, 0, 5, 0, 0, 6, 0}, {0, 0, 0, 0, 0, 0, 0, 0, 0},"
         " {0, 0, 0, 0, 0, 0, 0, 0, 0}}");
}

TEST_CASE("pad: negative edges crop, after interior padding", "[eval]") {
  Runner r(R"(ENTRY e {
    a = f32[5] parameter(0)
    v = f32[] parameter(1)
    b = f32[3] parameter(2)
    m = f32[2,2] parameter(3)
    p1 = f32[2] pad(a, v), padding=-1_-2
    p2 = f32[3] pad(b, v), padding=-2_0_1
    p3 = f32[0] pad(a, v), padding=-3_-2
    p4 = f32[3,3] pad(m, v), padding=-1_2x1_-1_1
    p5 = f32[6] pad(b, v), padding=-4_5_1
    p6 = f32[4] pad(b, v), padding=-1_0_1
    p7 = f32[2] pad(b, v), padding=-3_0_1
    p8 = f32[2] pad(b, v), padding=0_-3_1
    one = f32[1] parameter(4)
    p9 = f32[3] pad(one, v), padding=1_1_9223372036854775807
    ROOT t = (f32[2]) tuple(p1)
  })");
  Value v = V("f32[] -1");
  // {1,2,3,4,5} minus one element low and two high.
  Expect(r.Eval("p1", {V("f32[5] {1, 2, 3, 4, 5}"), v}), "f32[2] {2, 3}");
  // Interior first: {1,p,2,p,3}; then drop two low: {2,p,3}.
  Expect(r.Eval("p2", {V("f32[3] {1, 2, 3}"), v}), "f32[3] {2, -1, 3}");
  Expect(r.Eval("p3", {V("f32[5] {1, 2, 3, 4, 5}"), v}), "f32[0] {}");
  // Rows: drop row 0, add two rows of padding: {m[1], p, p}.
  // Columns of each row {a, b}: interior {a,p,b}, low 1 {p,a,p,b}, high -1
  // {p,a,p}: 2 + 1 - 1 + 1 = 3 columns.
  Expect(r.Eval("p4", {V("f32[2,2] {{1, 2}, {3, 4}}"), v}),
         "f32[3,3] {{-1, 3, -1}, {-1, -1, -1}, {-1, -1, -1}}");
  // {1,p,2,p,3} minus four low is {3}, then five high: {3,p,p,p,p,p}.
  Expect(r.Eval("p5", {V("f32[3] {1, 2, 3}"), v}), "f32[6] {3, -1, -1, -1, -1, -1}");
  // {1,p,2,p,3} minus one low: {p,2,p,3}; minus three low: {p,3}; minus three
  // high: {1,p}.
  Expect(r.Eval("p6", {V("f32[3] {1, 2, 3}"), v}), "f32[4] {-1, 2, -1, 3}");
  Expect(r.Eval("p7", {V("f32[3] {1, 2, 3}"), v}), "f32[2] {-1, 3}");
  Expect(r.Eval("p8", {V("f32[3] {1, 2, 3}"), v}), "f32[2] {1, -1}");
  // One element has no interior: 1 + 1 + 1 + 0 * interior = 3.
  Expect(r.Eval("p9", {V("f32[1] {5}"), v}), "f32[3] {-1, 5, -1}");
}

TEST_CASE("pad: rank 4, complex and sub-byte padding values", "[eval]") {
  Runner r(R"(ENTRY e {
    a = c64[1,1,1,2] parameter(0)
    v = c64[] parameter(1)
    s = s2[2] parameter(2)
    w = s2[] parameter(3)
    p1 = c64[1,1,2,3] pad(a, v), padding=0_0x0_0x1_0x0_0_1
    p2 = s2[4] pad(s, w), padding=1_1
    ROOT t = (c64[1,1,2,3]) tuple(p1)
  })");
  Expect(r.Eval("p1", {V("c64[1,1,1,2] {{{{(1, 1), (2, 2)}}}}"), V("c64[] (0, -1)")}),
         "c64[1,1,2,3] {{{{(0, -1), (0, -1), (0, -1)}, {(1, 1), (0, -1), (2, 2)}}}}");
  Expect(r.Eval("p2", {V("s2[2] {1, -2}"), V("s2[] -1")}), "s2[4] {-1, 1, -2, -1}");
}

// ---- reverse ----------------------------------------------------------------

TEST_CASE("reverse: StableHLO example and more dimensions", "[eval]") {
  Runner r(R"(ENTRY e {
    p = s32[3,2] parameter(0)
    q = s32[2,2,3] parameter(1)
    s = f32[] parameter(2)
    z = f32[0,3] parameter(3)
    a = s32[3,2] reverse(p), dimensions={1}
    b = s32[3,2] reverse(p), dimensions={0,1}
    c = s32[2,2,3] reverse(q), dimensions={0,2}
    d = f32[] reverse(s), dimensions={}
    e = f32[0,3] reverse(z), dimensions={1}
    f = s32[3,2] reverse(p), dimensions={}
    ROOT t = (s32[3,2]) tuple(a)
  })");
  Value p = V("s32[3,2] {{1, 2}, {3, 4}, {5, 6}}");
  Expect(r.Eval("a", {p}), "s32[3,2] {{2, 1}, {4, 3}, {6, 5}}");
  // Both dimensions: element (i, j) <- (2 - i, 1 - j).
  Expect(r.Eval("b", {p}), "s32[3,2] {{6, 5}, {4, 3}, {2, 1}}");
  // (i, j, k) <- (1 - i, j, 2 - k).
  Expect(r.Eval("c", {V("s32[2,2,3] {{{1, 2, 3}, {4, 5, 6}}, {{7, 8, 9}, {10, 11, 12}}}")}),
         "s32[2,2,3] {{{9, 8, 7}, {12, 11, 10}}, {{3, 2, 1}, {6, 5, 4}}}");
  Expect(r.Eval("d", {V("f32[] 2")}), "f32[] 2");
  Expect(r.Eval("e", {V("f32[0,3] {}")}), "f32[0,3] {}");
  Expect(r.Eval("f", {p}), "s32[3,2] {{1, 2}, {3, 4}, {5, 6}}");
}

// ---- iota -------------------------------------------------------------------

TEST_CASE("iota: StableHLO and XLA examples", "[eval]") {
  Runner r(R"(ENTRY e {
    a = s32[4,5] iota(), iota_dimension=0
    b = s32[4,5] iota(), iota_dimension=1
    c = s32[4,8] iota(), iota_dimension=1
    ROOT t = (s32[4,5]) tuple(a)
  })");
  Expect(r.Eval("a", {}),
         "s32[4,5] {{0, 0, 0, 0, 0}, {1, 1, 1, 1, 1}, {2, 2, 2, 2, 2}, {3, 3, 3, 3, 3}}");
  Expect(r.Eval("b", {}),
         "s32[4,5] {{0, 1, 2, 3, 4}, {0, 1, 2, 3, 4}, {0, 1, 2, 3, 4}, {0, 1, 2, 3, 4}}");
  Expect(r.Eval("c", {}),
         "s32[4,8] {{0, 1, 2, 3, 4, 5, 6, 7}, {0, 1, 2, 3, 4, 5, 6, 7},"
         " {0, 1, 2, 3, 4, 5, 6, 7}, {0, 1, 2, 3, 4, 5, 6, 7}}");
}

TEST_CASE("iota: float, small float, complex, sub-byte types; rank 3; empty", "[eval]") {
  Runner r(R"(ENTRY e {
    f = f32[2,3] iota(), iota_dimension=1
    d = f64[3] iota(), iota_dimension=0
    c = c64[3] iota(), iota_dimension=0
    h = f16[2,2] iota(), iota_dimension=0
    b = bf16[300] iota(), iota_dimension=0
    e = f8e4m3fn[20] iota(), iota_dimension=0
    s = s4[8] iota(), iota_dimension=0
    u = u2[4] iota(), iota_dimension=0
    g = s64[2,3,2] iota(), iota_dimension=1
    z = f32[0,4] iota(), iota_dimension=1
    ROOT t = (f32[2,3]) tuple(f)
  })");
  Expect(r.Eval("f", {}), "f32[2,3] {{0, 1, 2}, {0, 1, 2}}");
  Expect(r.Eval("d", {}), "f64[3] {0, 1, 2}");
  Expect(r.Eval("c", {}), "c64[3] {(0, 0), (1, 0), (2, 0)}");
  Expect(r.Eval("h", {}), "f16[2,2] {{0, 0}, {1, 1}}");
  Expect(r.Eval("s", {}), "s4[8] {0, 1, 2, 3, 4, 5, 6, 7}");
  Expect(r.Eval("u", {}), "u2[4] {0, 1, 2, 3}");
  Expect(r.Eval("g", {}), "s64[2,3,2] {{{0, 0}, {1, 1}, {2, 2}}, {{0, 0}, {1, 1}, {2, 2}}}");
  Expect(r.Eval("z", {}), "f32[0,4] {}");
  // Floats are the conversion of an integer iota, rounded to nearest even:
  // bf16 has 8 significant bits, so in [256, 512) it steps by 2; 257 is a
  // tie that rounds to 256 (even significand), 259 to 260.
  absl::StatusOr<Value> b = r.Eval("b", {});
  REQUIRE(b.ok());
  CHECK(b->array().GetDouble(255) == 255);
  CHECK(b->array().GetDouble(257) == 256);
  CHECK(b->array().GetDouble(258) == 258);
  CHECK(b->array().GetDouble(259) == 260);
  // f8e4m3fn has 4 significant bits: in [16, 32) it steps by 2; 17 -> 16,
  // 19 -> 20 (ties to even).
  absl::StatusOr<Value> e = r.Eval("e", {});
  REQUIRE(e.ok());
  CHECK(e->array().GetDouble(15) == 15);
  CHECK(e->array().GetDouble(17) == 16);
  CHECK(e->array().GetDouble(19) == 20);
}

// A one-dimensional iota is its line, written typed for the common types:
// threefry's u64[500] counter among them.
TEST_CASE("iota: one-dimensional lines of the typed element types", "[eval]") {
  Runner r(R"(ENTRY e {
    a = u64[500] iota(), iota_dimension=0
    b = u32[37] iota(), iota_dimension=0
    c = s64[37] iota(), iota_dimension=0
    d = s32[37] iota(), iota_dimension=0
    f = f32[37] iota(), iota_dimension=0
    g = f64[37] iota(), iota_dimension=0
    h = u16[37] iota(), iota_dimension=0
    w = s8[300] iota(), iota_dimension=0
    ROOT t = (u64[500]) tuple(a)
  })");
  for (const char* name : {"a", "b", "c", "d", "f", "g", "h"}) {
    absl::StatusOr<Value> v = r.Eval(name, {});
    REQUIRE(v.ok());
    const Literal& x = v->array();
    int64_t mismatches = 0;
    for (int64_t i = 0; i < x.element_count(); ++i) mismatches += x.GetDouble(i) != i;
    INFO(name);
    CHECK(mismatches == 0);
  }
  // s8 wraps, as the conversion of a wider integer iota would: 200 -> -56.
  absl::StatusOr<Value> w = r.Eval("w", {});
  REQUIRE(w.ok());
  CHECK(w->array().GetDouble(127) == 127);
  CHECK(w->array().GetDouble(128) == -128);
  CHECK(w->array().GetDouble(200) == -56);
  CHECK(w->array().GetDouble(299) == 43);
}

// The result is one period of runs copied forward, doubling: odd extents
// (partial last copies) on every dimension, checked against each element's
// coordinate, and 16-byte elements.
TEST_CASE("iota: every dimension of odd extents, element by element", "[eval]") {
  Runner r(R"(ENTRY e {
    a = s32[3,5,7,2] iota(), iota_dimension=0
    b = s32[3,5,7,2] iota(), iota_dimension=1
    c = s32[3,5,7,2] iota(), iota_dimension=2
    d = s32[3,5,7,2] iota(), iota_dimension=3
    z = c128[3,5,3] iota(), iota_dimension=1
    ROOT t = (s32[3,5,7,2]) tuple(a)
  })");
  const int64_t dims[4] = {3, 5, 7, 2};
  const char* names[4] = {"a", "b", "c", "d"};
  for (int k = 0; k < 4; ++k) {
    absl::StatusOr<Value> v = r.Eval(names[k], {});
    REQUIRE(v.ok());
    const int32_t* x = v->array().typed<int32_t>();
    int64_t i = 0, mismatches = 0;
    for (int64_t i0 = 0; i0 < dims[0]; ++i0) {
      for (int64_t i1 = 0; i1 < dims[1]; ++i1) {
        for (int64_t i2 = 0; i2 < dims[2]; ++i2) {
          for (int64_t i3 = 0; i3 < dims[3]; ++i3, ++i) {
            const int64_t want[4] = {i0, i1, i2, i3};
            mismatches += x[i] != want[k];
          }
        }
      }
    }
    CHECK(mismatches == 0);
  }
  Expect(r.Eval("z", {}),
         "c128[3,5,3] {{{(0, 0), (0, 0), (0, 0)}, {(1, 0), (1, 0), (1, 0)}, {(2, 0), (2, 0), "
         "(2, 0)}, {(3, 0), (3, 0), (3, 0)}, {(4, 0), (4, 0), (4, 0)}}, {{(0, 0), (0, 0), (0, "
         "0)}, {(1, 0), (1, 0), (1, 0)}, {(2, 0), (2, 0), (2, 0)}, {(3, 0), (3, 0), (3, 0)}, {(4, "
         "0), (4, 0), (4, 0)}}, {{(0, 0), (0, 0), (0, 0)}, {(1, 0), (1, 0), (1, 0)}, {(2, 0), (2, "
         "0), (2, 0)}, {(3, 0), (3, 0), (3, 0)}, {(4, 0), (4, 0), (4, 0)}}}");
}

// ---- copy, tuple, get-tuple-element ------------------------------------------

TEST_CASE("copy: same values, shared buffers, tuples deep-share", "[eval]") {
  Runner r(R"(ENTRY e {
    p = f32[2,3]{1,0} parameter(0)
    t = (f32[2], s32[]) parameter(1)
    a = f32[2,3]{0,1} copy(p)
    b = (f32[2], s32[]) copy(t)
    ROOT r = (f32[2,3]{0,1}) tuple(a)
  })");
  Value p = V("f32[2,3] {{1, 2, 3}, {4, 5, 6}}");
  absl::StatusOr<Value> a = r.Eval("a", {p});
  // A layout change does not change values (storage is logical row-major).
  Expect(a, "f32[2,3] {{1, 2, 3}, {4, 5, 6}}");
  CHECK(a->array_ptr() == p.array_ptr());
  Value t = V("(f32[2] {1, 2}, s32[] 3)");
  absl::StatusOr<Value> b = r.Eval("b", {t});
  REQUIRE(b.ok());
  REQUIRE(b->is_tuple());
  CHECK(b->element(0).array_ptr() == t.element(0).array_ptr());
  CHECK(b->element(1).array_ptr() == t.element(1).array_ptr());
  Expect(b, "(f32[2] {1, 2}, s32[] 3)");
}

// f32[32,64] holding 1, 2, 3, ... in row-major order.
Value Counting3264() {
  absl::StatusOr<Literal> lit = Literal::Create(Shape::Array(PrimitiveType::kF32, {32, 64}));
  REQUIRE(lit.ok());
  for (int64_t i = 0; i < 2048; ++i) lit->SetDouble(i, static_cast<double>(i + 1));
  return Value::FromLiteral(*std::move(lit));
}

TEST_CASE("views: bitcasts reshapes and one-run slices of a shared buffer read it in place",
          "[eval]") {
  Runner r(R"(ENTRY e {
    p = f32[32,64] parameter(0)
    b = f32[64,32] bitcast(p)
    re = f32[2048] reshape(p)
    rows = f32[16,64] slice(p), slice={[8:24], [0:64]}
    row = f32[1,64] slice(p), slice={[3:4], [0:64]}
    cols = f32[32,32] slice(p), slice={[0:32], [0:32]}
    i = s32[] parameter(1)
    z = s32[] parameter(2)
    ds = f32[16,64] dynamic-slice(p, i, z), dynamic_slice_sizes={16,64}
    ROOT t = (f32[64,32]) tuple(b)
  })");
  // p is held here too, so no result may take its buffer over: the
  // reshapes and the slices of whole rows (a quarter of p or more, 4 KiB
  // or more) read it in place; the others copy.
  Value p = Counting3264();
  const uint8_t* base = p.array().data();
  auto view_at = [&](const absl::StatusOr<Value>& v, int64_t offset_bytes) {
    REQUIRE(v.ok());
    CHECK(v->array().is_view());
    CHECK_FALSE(v->unique());
    CHECK(v->array().data() == base + offset_bytes);
  };
  absl::StatusOr<Value> b = r.Eval("b", {p});
  view_at(b, 0);
  CHECK(b->array().shape().dims() == std::vector<int64_t>{64, 32});
  CHECK_FALSE(p.unique());  // the view holds it
  view_at(r.Eval("re", {p}), 0);
  absl::StatusOr<Value> rows = r.Eval("rows", {p});
  view_at(rows, 8 * 64 * 4);
  CHECK(rows->array().GetDouble(0) == 8 * 64 + 1);
  CHECK(rows->array().GetDouble(16 * 64 - 1) == 24 * 64);
  view_at(r.Eval("ds", {p, V("s32[] 8"), V("s32[] 0")}), 8 * 64 * 4);
  // Clamped as dynamic-slice clamps: rows 16 .. 31.
  view_at(r.Eval("ds", {p, V("s32[] 30"), V("s32[] 0")}), 16 * 64 * 4);
  for (const char* copied : {"row", "cols"}) {
    absl::StatusOr<Value> c = r.Eval(copied, {p});
    REQUIRE(c.ok());
    CHECK_FALSE(c->array().is_view());
    CHECK(c->unique());
  }
  absl::StatusOr<Value> cols = r.Eval("cols", {p});
  CHECK(cols->array().GetDouble(33) == 64 + 2);
}

TEST_CASE("views: a view's buffer is never written and its readers write results elsewhere",
          "[eval]") {
  // sqrt and dynamic-update-slice take a buffer over when they alone hold
  // it; a view of p is held alone, yet its bytes are p's, which the tuple
  // returns as they came in.
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(R"(HloModule views

ENTRY e {
  p = f32[32,64] parameter(0)
  b = f32[64,32] bitcast(p)
  rows = f32[16,64] slice(p), slice={[8:24], [0:64]}
  sq = f32[64,32] sqrt(b)
  u = f32[1,64] constant({{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}})
  zero = s32[] constant(0)
  d = f32[16,64] dynamic-update-slice(rows, u, zero, zero)
  ROOT t = (f32[32,64], f32[64,32], f32[16,64]) tuple(p, sq, d)
})");
  REQUIRE(m.ok());
  Evaluator ev(**m, {});
  absl::StatusOr<Value> out = ev.Run({Counting3264()});
  REQUIRE(out.ok());
  REQUIRE(out->is_tuple());
  const Literal& p = out->element(0).array();
  const Literal& sq = out->element(1).array();
  const Literal& d = out->element(2).array();
  for (int64_t i = 0; i < 2048; ++i) {
    INFO("element " << i);
    REQUIRE(p.GetDouble(i) == static_cast<double>(i + 1));
    REQUIRE(sq.GetDouble(i) == static_cast<double>(std::sqrt(static_cast<float>(i + 1))));
  }
  for (int64_t i = 0; i < 16 * 64; ++i) {
    INFO("element " << i);
    REQUIRE(d.GetDouble(i) == (i < 64 ? 0.0 : static_cast<double>(8 * 64 + i + 1)));
  }
}

TEST_CASE("tuple and get-tuple-element share the element buffers", "[eval]") {
  Runner r(R"(ENTRY e {
    a = f32[2] parameter(0)
    b = s32[] parameter(1)
    t = (f32[2], s32[]) tuple(a, b)
    g0 = f32[2] get-tuple-element(t), index=0
    g1 = s32[] get-tuple-element(t), index=1
    n = ((f32[2], s32[]), s32[]) tuple(t, b)
    gn = (f32[2], s32[]) get-tuple-element(n), index=0
    e = () tuple()
    ROOT r = (f32[2]) tuple(g0)
  })");
  Value a = V("f32[2] {1, 2}");
  Value b = V("s32[] 7");
  absl::StatusOr<Value> t = r.Eval("t", {a, b});
  Expect(t, "(f32[2] {1, 2}, s32[] 7)");
  CHECK(t->element(0).array_ptr() == a.array_ptr());
  absl::StatusOr<Value> g0 = r.Eval("g0", {*t});
  Expect(g0, "f32[2] {1, 2}");
  CHECK(g0->array_ptr() == a.array_ptr());
  Expect(r.Eval("g1", {*t}), "s32[] 7");
  absl::StatusOr<Value> n = r.Eval("n", {*t, b});
  Expect(n, "((f32[2] {1, 2}, s32[] 7), s32[] 7)");
  absl::StatusOr<Value> gn = r.Eval("gn", {*n});
  Expect(gn, "(f32[2] {1, 2}, s32[] 7)");
  CHECK(gn->element(0).array_ptr() == a.array_ptr());
  absl::StatusOr<Value> e = r.Eval("e", {});
  REQUIRE(e.ok());
  CHECK(e->is_tuple());
  CHECK(e->elements().empty());
  ExpectError(r.Eval("g0", {a}), "not a tuple");
}

EvalOptions SeedOptions(uint64_t seed) {
  EvalOptions options;
  options.seed = seed;
  return options;
}

// ---- constant -------------------------------------------------------------------

TEST_CASE("constant: the literal, and elided constants filled deterministically", "[eval]") {
  Runner r(R"(ENTRY e {
    c = f32[2,2] constant({{1, 2}, {3, 4}})
    t = (s32[], pred[2]) constant((1, {true, false}))
    big = f32[3,4] constant({...})
    other = f32[3,4] constant({...})
    ints = s32[8] constant({...})
    ROOT r = (f32[2,2]) tuple(c)
  })",
           SeedOptions(42));
  Expect(r.Eval("c", {}), "f32[2,2] {{1, 2}, {3, 4}}");
  Expect(r.Eval("t", {}), "(s32[] 1, pred[2] {true, false})");
  // Elided constants are RandomLiteral(shape, seed, StreamId(name)).
  absl::StatusOr<Value> big = r.Eval("big", {});
  REQUIRE(big.ok());
  absl::StatusOr<Literal> want =
      RandomLiteral(Shape::Array(PrimitiveType::kF32, {3, 4}), 42, StreamId("big"));
  REQUIRE(want.ok());
  CHECK(big->ToLiteral() == *want);
  for (int64_t i = 0; i < 12; ++i) {
    CHECK(big->array().GetDouble(i) >= -1.0);
    CHECK(big->array().GetDouble(i) < 1.0);
  }
  // The same again on a second run; another name gives other values.
  absl::StatusOr<Value> again = r.Eval("big", {});
  REQUIRE(again.ok());
  CHECK(again->ToLiteral() == big->ToLiteral());
  absl::StatusOr<Value> other = r.Eval("other", {});
  REQUIRE(other.ok());
  CHECK_FALSE(other->ToLiteral() == big->ToLiteral());
  absl::StatusOr<Value> ints = r.Eval("ints", {});
  REQUIRE(ints.ok());
  for (int64_t i = 0; i < 8; ++i) {
    CHECK(ints->array().GetInt(i) >= -10);
    CHECK(ints->array().GetInt(i) < 10);
  }
}

// ---- bitcast ----------------------------------------------------------------------

TEST_CASE("bitcast: layouts decide the element order", "[eval]") {
  Runner r(R"(ENTRY e {
    p = f32[2,3]{0,1} parameter(0)
    q = f32[6]{0} parameter(1)
    d = f32[2,3]{1,0} parameter(2)
    a = f32[6]{0} bitcast(p)
    b = f32[2,3]{0,1} bitcast(q)
    c = f32[3,2]{1,0} bitcast(d)
    e = f32[3,2]{0,1} bitcast(p)
    ROOT t = (f32[6]{0}) tuple(a)
  })");
  // shapes-and-layout: with minor_to_major {0,1} the 2x3 array
  // {{a,b,c},{d,e,f}} is a d b e c f in memory.
  Value p = V("f32[2,3] {{1, 2, 3}, {4, 5, 6}}");
  Expect(r.Eval("a", {p}), "f32[6] {1, 4, 2, 5, 3, 6}");
  // Memory 1..6 read as a {0,1} 2x3 array: column by column.
  Expect(r.Eval("b", {V("f32[6] {1, 2, 3, 4, 5, 6}")}), "f32[2,3] {{1, 3, 5}, {2, 4, 6}}");
  // Default layouts both sides: a reshape.
  Expect(r.Eval("c", {p}), "f32[3,2] {{1, 2}, {3, 4}, {5, 6}}");
  // f32[2,3]{0,1} and f32[3,2]{0,1}: memory 1 4 2 5 3 6 read column-major
  // into 3x2: column 0 = 1 4 2, column 1 = 5 3 6. (XLA: transpose-as-bitcast
  // would need {1,0} here; this is the plain memory reinterpretation.)
  Expect(r.Eval("e", {p}), "f32[3,2] {{1, 5}, {4, 3}, {2, 6}}");
}

TEST_CASE("bitcast: a reshape-like bitcast takes over a buffer no one else sees", "[eval]") {
  Runner r(R"(ENTRY e {
    a = f32[2,3]{1,0} parameter(0)
    b = f32[2,3]{1,0} parameter(1)
    ba = f32[3,2]{1,0} bitcast(a)
    bb = f32[6]{0} bitcast(b)
    n = f32[2,3]{1,0} negate(b)
    c = f32[2,3]{1,0} parameter(2)
    bc = f32[3,2]{0,1} bitcast(c)
    ROOT t = (f32[3,2]{1,0}, f32[6]{0}, f32[2,3]{1,0}, f32[3,2]{0,1}) tuple(ba, bb, n, bc)
  })");
  // a's only reader is ba and the value is unique: the result is a's buffer.
  std::vector<Value> ops;
  ops.push_back(V("f32[2,3] {{1, 2, 3}, {4, 5, 6}}"));
  const Literal* a_buffer = ops[0].array_ptr().get();
  absl::StatusOr<Value> ba = r.Eval("ba", ops);
  Expect(ba, "f32[3,2] {{1, 2}, {3, 4}, {5, 6}}");
  CHECK(ba->array_ptr().get() == a_buffer);
  // b is also read by n: bb is a copy and b keeps its shape and values.
  Value b = V("f32[2,3] {{1, 2, 3}, {4, 5, 6}}");
  absl::StatusOr<Value> bb = r.Eval("bb", {b});
  Expect(bb, "f32[6] {1, 2, 3, 4, 5, 6}");
  CHECK(bb->array_ptr().get() != b.array_ptr().get());
  Expect(b, "f32[2,3] {{1, 2, 3}, {4, 5, 6}}");
  // A shared value is copied even where its producer has one reader.
  Value shared = V("f32[2,3] {{1, 2, 3}, {4, 5, 6}}");
  Value alias = shared;
  absl::StatusOr<Value> bs = r.Eval("ba", {alias});
  Expect(bs, "f32[3,2] {{1, 2}, {3, 4}, {5, 6}}");
  Expect(shared, "f32[2,3] {{1, 2, 3}, {4, 5, 6}}");
  // A bitcast to another layout moves the elements: never c's buffer.
  std::vector<Value> cs;
  cs.push_back(V("f32[2,3] {{1, 2, 3}, {4, 5, 6}}"));
  const Literal* c_buffer = cs[0].array_ptr().get();
  absl::StatusOr<Value> bc = r.Eval("bc", cs);
  Expect(bc, "f32[3,2] {{1, 4}, {2, 5}, {3, 6}}");
  CHECK(bc->array_ptr().get() != c_buffer);
}

TEST_CASE("bitcast: rank 3 and 4 layouts", "[eval]") {
  Runner r(R"(ENTRY e {
    p = s32[2,3,4]{0,2,1} parameter(0)
    a = s32[24]{0} bitcast(p)
    q = s16[2,2,2,2]{3,2,1,0} parameter(1)
    b = s16[2,2,2,2]{0,1,2,3} bitcast(q)
    s = f32[]{} parameter(2)
    c = f32[1,1]{0,1} bitcast(s)
    ROOT t = (s32[24]{0}) tuple(a)
  })");
  // {0,2,1}: dimension 0 fastest, then 2, then 1. Memory order is
  // for j (dim 1) { for k (dim 2) { for i (dim 0) } }; p[i,j,k] = 12i+4j+k.
  Value p =
      Make(PrimitiveType::kS32, {2, 3, 4}, [](int64_t i) { return static_cast<uint64_t>(i); });
  absl::StatusOr<Value> a = r.Eval("a", {p});
  REQUIRE(a.ok());
  int64_t n = 0;
  for (int64_t j = 0; j < 3; ++j) {
    for (int64_t k = 0; k < 4; ++k) {
      for (int64_t i = 0; i < 2; ++i) CHECK(a->array().GetInt(n++) == 12 * i + 4 * j + k);
    }
  }
  // Same dims, reversed minor_to_major: the result is the full transpose of
  // the indices, b[i,j,k,l] = q[l,k,j,i].
  Value q =
      Make(PrimitiveType::kS16, {2, 2, 2, 2}, [](int64_t i) { return static_cast<uint64_t>(i); });
  absl::StatusOr<Value> b = r.Eval("b", {q});
  REQUIRE(b.ok());
  CheckTranspose(q, *b, {2, 2, 2, 2}, {3, 2, 1, 0});
  Expect(r.Eval("c", {V("f32[] 3")}), "f32[1,1] {{3}}");
}

TEST_CASE("bitcast: element types reinterpret bytes", "[eval]") {
  Runner r(R"(ENTRY e {
    f = f32[2] parameter(0)
    a = s32[2] bitcast(f)
    s = f32[] parameter(1)
    b = u8[4] bitcast(s)
    c = c64[] parameter(2)
    d = f32[2] bitcast(c)
    x = s4[2] parameter(3)
    e = u4[2] bitcast(x)
    y = u8[2] parameter(4)
    g = pred[2] bitcast(y)
    m = f32[2,2]{0,1} parameter(5)
    h = u32[4]{0} bitcast(m)
    ROOT t = (s32[2]) tuple(a)
  })");
  // 1.0f is 0x3F800000 = 1065353216, -2.0f is 0xC0000000 = -1073741824.
  Expect(r.Eval("a", {V("f32[2] {1, -2}")}), "s32[2] {1065353216, -1073741824}");
  // Little-endian bytes of 0x3F800000.
  Expect(r.Eval("b", {V("f32[] 1")}), "u8[4] {0, 0, 128, 63}");
  // A complex number is (real, imag) in memory.
  Expect(r.Eval("d", {V("c64[] (1.5, -2)")}), "f32[2] {1.5, -2}");
  // s4 -1 is 0b1111 = u4 15.
  Expect(r.Eval("e", {V("s4[2] {-1, 7}")}), "u4[2] {15, 7}");
  // Any non-zero byte is true.
  Expect(r.Eval("g", {V("u8[2] {0, 2}")}), "pred[2] {false, true}");
  // Memory of m{0,1} is 1 3 2 4 (column-major); 2.0f = 0x40000000, 3.0f =
  // 0x40400000, 4.0f = 0x40800000.
  Expect(r.Eval("h", {V("f32[2,2] {{1, 2}, {3, 4}}")}),
         "u32[4] {1065353216, 1077936128, 1073741824, 1082130432}");
}

TEST_CASE("bitcast: packed sub-byte elements with E(4)", "[eval]") {
  Runner r(R"(ENTRY e {
    x = s4[4]{0:E(4)} parameter(0)
    a = u8[2]{0} bitcast(x)
    y = u8[2]{0} parameter(1)
    b = s4[4]{0:E(4)} bitcast(y)
    ROOT t = (u8[2]{0}) tuple(a)
  })");
  // Packed from the low bits up: byte 0 = 1 | 2 << 4 = 0x21, byte 1 =
  // 0xF | 0x8 << 4 = 0x8F.
  Expect(r.Eval("a", {V("s4[4] {1, 2, -1, -8}")}), "u8[2] {33, 143}");
  Expect(r.Eval("b", {V("u8[2] {33, 143}")}), "s4[4] {1, 2, -1, -8}");
}

TEST_CASE("bitcast: packed s4 to and from c128 (elements wider than 64 bits)", "[eval]") {
  Runner r(R"(ENTRY e {
    x = s4[32]{0:E(4)} parameter(0)
    a = c128[1]{0} bitcast(x)
    y = c128[1]{0} parameter(1)
    b = s4[32]{0:E(4)} bitcast(y)
    ROOT t = (c128[1]{0}) tuple(a)
  })");
  // (1, 2) is the doubles 0x3FF0000000000000 and 0x4000000000000000,
  // little-endian: nibbles 0..12 zero, then F, F, 3 (byte 6 = 0xF0, byte 7
  // = 0x3F), nibbles 16..30 zero, then 4 (byte 15 = 0x40). s4's F is -1.
  const char* nibbles =
      "s4[32] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, -1, 3, "
      "0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4}";
  Expect(r.Eval("a", {V(nibbles)}), "c128[1] {(1, 2)}");
  Expect(r.Eval("b", {V("c128[1] {(1, 2)}")}), nibbles);
}

TEST_CASE("bitcast: a size change is an error", "[eval]") {
  Runner r(R"(ENTRY e {
    p = f32[2] parameter(0)
    ROOT a = f32[3] bitcast(p)
  })");
  ExpectError(r.Root({V("f32[2] {1, 2}")}), "changes the size");
}

// ---- get-dimension-size / set-dimension-size ----------------------------------------

TEST_CASE("get-dimension-size and set-dimension-size", "[eval]") {
  Runner r(R"(ENTRY e {
    p = s64[2,3] parameter(0)
    g = s32[] get-dimension-size(p), dimensions={1}
    q = f32[<=4] parameter(1)
    h = s32[] get-dimension-size(q), dimensions={0}
    n = s32[] parameter(2)
    v = f32[10] parameter(3)
    s = f32[<=10] set-dimension-size(v, n), dimensions={0}
    ROOT t = (s32[]) tuple(g)
  })");
  // StableHLO example: dimension 1 of a 2x3 array is 3.
  Expect(r.Eval("g", {V("s64[2,3] {{1, 2, 3}, {4, 5, 6}}")}), "s32[] 3");
  // A bounded dynamic dimension is held at its bound.
  Expect(r.Eval("h", {V("f32[4] {1, 2, 3, 4}")}), "s32[] 4");
  // XLA: set-dimension-size passes the operand through.
  Value v = V("f32[10] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}");
  absl::StatusOr<Value> s = r.Eval("s", {v, V("s32[] 5")});
  Expect(s, "f32[10] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}");
  CHECK(s->array_ptr() == v.array_ptr());
}

// ---- randomized shapes against the definitions ------------------------------------

// A small deterministic generator (splitmix64).
struct Rng {
  uint64_t state;
  uint64_t Next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  int64_t Uniform(int64_t lo, int64_t hi) {  // [lo, hi]
    return lo + static_cast<int64_t>(Next() % static_cast<uint64_t>(hi - lo + 1));
  }
};

std::string ShapeText(std::string_view type, const std::vector<int64_t>& dims) {
  std::string s(type);
  s += "[";
  for (size_t i = 0; i < dims.size(); ++i) StrAppend(&s, i ? "," : "", dims[i]);
  return s + "]";
}

std::string ListText(const std::vector<int64_t>& v) {
  std::string s = "{";
  for (size_t i = 0; i < v.size(); ++i) StrAppend(&s, i ? "," : "", v[i]);
  return s + "}";
}

// Checks every element of `result` (dims `out_dims`): source(index) gives the
// row-major element of `operand` it must hold, or -1 for `pad`'s element 0.
template <typename F>
void CheckElements(const Value& result, const std::vector<int64_t>& out_dims, const Value& operand,
                   const Value* pad, F source) {
  const Literal& out = result.array();
  const int w = ByteWidth(out.element_type());
  int64_t bad = 0;
  ForEachIndex(out_dims, [&](const std::vector<int64_t>& i) {
    int64_t s = source(i);
    const uint8_t* want = s < 0 ? pad->array().data() : operand.array().data() + s * w;
    if (std::memcmp(out.data() + Linear(out_dims, i) * w, want, w) != 0) ++bad;
  });
  CHECK(bad == 0);
}

TEST_CASE("data movement: random shapes of rank 0..4 against the definitions", "[eval]") {
  Rng rng{12345};
  const std::vector<std::pair<std::string, PrimitiveType>> types = {{"u8", PrimitiveType::kU8},
                                                                    {"s16", PrimitiveType::kS16},
                                                                    {"f32", PrimitiveType::kF32},
                                                                    {"s64", PrimitiveType::kS64},
                                                                    {"c128", PrimitiveType::kC128}};
  for (int iter = 0; iter < 60; ++iter) {
    const auto& [tname, type] = types[rng.Uniform(0, types.size() - 1)];
    const int64_t rank = rng.Uniform(0, 4);
    std::vector<int64_t> dims(rank);
    for (int64_t& d : dims) d = rng.Uniform(0, 9) == 0 ? 0 : rng.Uniform(1, 6);
    const std::string in = ShapeText(tname, dims);
    Value operand = Make(type, dims, [](int64_t i) { return static_cast<uint64_t>(i + 1); });
    if (type == PrimitiveType::kC128) {
      Literal lit = operand.ToLiteral();
      for (int64_t i = 0; i < lit.element_count(); ++i) lit.SetComplex(i, {double(i), -double(i)});
      operand = Value::FromLiteral(std::move(lit));
    }
    Value pad = Make(type, {}, [](int64_t) { return uint64_t{0xA5}; });
    INFO("iteration " << iter << ": " << in);

    // transpose: result[i] = operand[j] with j[perm[k]] = i[k].
    std::vector<int64_t> perm(rank);
    for (int64_t i = 0; i < rank; ++i) perm[i] = i;
    for (int64_t i = rank - 1; i > 0; --i) std::swap(perm[i], perm[rng.Uniform(0, i)]);
    std::vector<int64_t> tdims;
    for (int64_t p : perm) tdims.push_back(dims[p]);
    // broadcast into a rank+1 result with a new dimension at `at`.
    const int64_t at = rng.Uniform(0, rank);
    std::vector<int64_t> bdims = dims, bmap;
    bdims.insert(bdims.begin() + at, 3);
    for (int64_t i = 0; i < rank; ++i) bmap.push_back(i < at ? i : i + 1);
    // slice, pad, reverse, dynamic-slice parameters per dimension.
    std::string slice = "{", padding;
    std::vector<int64_t> sdims, starts, strides, pdims, lows, interiors, rev, ddims, dstarts;
    for (int64_t i = 0; i < rank; ++i) {
      int64_t start = rng.Uniform(0, dims[i]), limit = rng.Uniform(start, dims[i]);
      int64_t stride = rng.Uniform(1, 3);
      slice += StrCat(i ? ", " : "", "[", start, ":", limit, ":", stride, "]");
      starts.push_back(start);
      strides.push_back(stride);
      sdims.push_back((limit - start + stride - 1) / stride);
      int64_t interior = rng.Uniform(0, 2);
      int64_t full = dims[i] + std::max<int64_t>(dims[i] - 1, 0) * interior;
      int64_t low = rng.Uniform(-full, 3);
      int64_t high = rng.Uniform(-(full + low), 3);
      padding += StrCat(i ? "x" : "", low, "_", high, "_", interior);
      lows.push_back(low);
      interiors.push_back(interior);
      pdims.push_back(full + low + high);
      if (rng.Uniform(0, 1)) rev.push_back(i);
      ddims.push_back(rng.Uniform(0, dims[i]));
      dstarts.push_back(rng.Uniform(-3, 8));
    }
    slice += "}";
    if (padding.empty()) padding = "{}";
    std::string dyn_params, dyn_operands;
    for (int64_t i = 0; i < rank; ++i) {
      dyn_params += StrCat("    i", i, " = s32[] parameter(", i + 2, ")\n");
      dyn_operands += StrCat(", i", i);
    }
    std::string text =
        StrCat("ENTRY e {\n    p = ", in, " parameter(0)\n    v = ", tname, "[] parameter(1)\n",
               dyn_params, "    t = ", ShapeText(tname, tdims),
               " transpose(p), dimensions=", ListText(perm), "\n    b = ", ShapeText(tname, bdims),
               " broadcast(p), dimensions=", ListText(bmap), "\n    s = ", ShapeText(tname, sdims),
               " slice(p), slice=", slice, "\n    r = ", in,
               " reverse(p), dimensions=", ListText(rev), "\n    d = ", ShapeText(tname, ddims),
               " dynamic-slice(p", dyn_operands, "), dynamic_slice_sizes=", ListText(ddims));
    if (rank > 0) {
      text += StrCat("\n    q = ", ShapeText(tname, pdims), " pad(p, v), padding=", padding);
    }
    text += "\n    ROOT z = () tuple()\n  }";
    INFO(text);
    Runner r(text);
    std::vector<Value> dyn_ops = {operand};
    for (int64_t i = 0; i < rank; ++i) {
      dyn_ops.push_back(V(StrCat("s32[] ", dstarts[i])));
    }
    {
      absl::StatusOr<Value> t = r.Eval("t", {operand});
      REQUIRE(t.ok());
      CheckElements(*t, tdims, operand, nullptr, [&](const std::vector<int64_t>& i) {
        std::vector<int64_t> j(rank);
        for (int64_t k = 0; k < rank; ++k) j[perm[k]] = i[k];
        return Linear(dims, j);
      });
    }
    {
      absl::StatusOr<Value> b = r.Eval("b", {operand});
      REQUIRE(b.ok());
      CheckElements(*b, bdims, operand, nullptr, [&](const std::vector<int64_t>& i) {
        std::vector<int64_t> j(rank);
        for (int64_t k = 0; k < rank; ++k) j[k] = i[bmap[k]];
        return Linear(dims, j);
      });
    }
    {
      absl::StatusOr<Value> sl = r.Eval("s", {operand});
      REQUIRE(sl.ok());
      CheckElements(*sl, sdims, operand, nullptr, [&](const std::vector<int64_t>& i) {
        std::vector<int64_t> j(rank);
        for (int64_t k = 0; k < rank; ++k) j[k] = starts[k] + i[k] * strides[k];
        return Linear(dims, j);
      });
    }
    {
      absl::StatusOr<Value> rv = r.Eval("r", {operand});
      REQUIRE(rv.ok());
      CheckElements(*rv, dims, operand, nullptr, [&](const std::vector<int64_t>& i) {
        std::vector<int64_t> j = i;
        for (int64_t k : rev) j[k] = dims[k] - 1 - i[k];
        return Linear(dims, j);
      });
    }
    {
      absl::StatusOr<Value> d = r.Eval("d", dyn_ops);
      REQUIRE(d.ok());
      CheckElements(*d, ddims, operand, nullptr, [&](const std::vector<int64_t>& i) {
        std::vector<int64_t> j(rank);
        for (int64_t k = 0; k < rank; ++k) {
          j[k] = std::clamp<int64_t>(dstarts[k], 0, dims[k] - ddims[k]) + i[k];
        }
        return Linear(dims, j);
      });
    }
    if (rank > 0) {
      absl::StatusOr<Value> q = r.Eval("q", {operand, pad});
      REQUIRE(q.ok());
      // Output position o holds operand element (o - low) / (interior + 1)
      // when that divides evenly and is in range, else the padding value.
      CheckElements(*q, pdims, operand, &pad, [&](const std::vector<int64_t>& i) -> int64_t {
        std::vector<int64_t> j(rank);
        for (int64_t k = 0; k < rank; ++k) {
          int64_t o = i[k] - lows[k];
          if (o < 0 || o % (interiors[k] + 1) != 0 || o / (interiors[k] + 1) >= dims[k]) {
            return -1;
          }
          j[k] = o / (interiors[k] + 1);
        }
        return Linear(dims, j);
      });
    }
  }
}

// ---- sizes are checked before allocating ------------------------------------------------

TEST_CASE("data movement: huge results are errors, not allocations", "[eval]") {
  Runner r(R"(ENTRY e {
    s = f32[] parameter(0)
    b = f32[1000000000,1000000] broadcast(s), dimensions={}
    i = s32[1000000000,1000000] iota(), iota_dimension=0
    ROOT t = (f32[]) tuple(s)
  })");
  CHECK_FALSE(r.Eval("b", {V("f32[] 1")}).ok());
  CHECK_FALSE(r.Eval("i", {}).ok());
}

}  // namespace
}  // namespace hlo

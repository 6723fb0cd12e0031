// sort, topk and the custom-call registry (eval/kernels/sort*.cc, custom_call.cc):
// comparators that are no strict weak order never crash and still give a
// permutation; comparator failures and malformed instructions are errors;
// the merge sort agrees with std::stable_sort; large typed sorts agree with
// std::stable_sort of the same keys (the definition of a stable sort).
// Value cases live in testdata/eval/ (goldens).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "eval/evaluator.h"
#include "eval/kernels/sort_internal.h"
#include "ir/literal.h"
#include "ir/strings.h"
#include "parser/parser.h"

namespace hlo {
namespace {

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

struct Lcg {
  uint64_t s = 987654321;
  int64_t Next(int64_t n) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int64_t>((s >> 33) % static_cast<uint64_t>(n));
  }
};

Value S32Array(const std::vector<int64_t>& vals) {
  auto l = Literal::Create(Shape::Array(PrimitiveType::kS32, {static_cast<int64_t>(vals.size())}));
  REQUIRE(l.ok());
  for (size_t i = 0; i < vals.size(); ++i) l->SetInt(static_cast<int64_t>(i), vals[i]);
  return Value::FromLiteral(*std::move(l));
}

std::vector<int64_t> Ints(const Literal& l) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < l.element_count(); ++i) v.push_back(l.GetInt(i));
  return v;
}

TEST_CASE("MergeSort: equals std::stable_sort, and stays in bounds for any comparator", "[sort]") {
  Lcg rng;
  for (int64_t n : {0, 1, 2, 15, 16, 17, 33, 100, 1000, 4097}) {
    std::vector<std::pair<int, int>> a(n), buf(n);
    for (int64_t i = 0; i < n; ++i) a[i] = {static_cast<int>(rng.Next(20)), static_cast<int>(i)};
    auto want = a;
    auto by_first = [](const auto& x, const auto& y) { return x.first < y.first; };
    std::stable_sort(want.begin(), want.end(), by_first);
    sort_internal::MergeSort(a.data(), n, buf.data(), by_first);
    CHECK(a == want);
    // Inconsistent comparators (always true, random): a permutation.
    auto sorted_ids = [](std::vector<std::pair<int, int>> v) {
      std::vector<int> ids;
      for (auto& p : v) ids.push_back(p.second);
      std::sort(ids.begin(), ids.end());
      return ids;
    };
    std::vector<int> all = sorted_ids(a);
    sort_internal::MergeSort(a.data(), n, buf.data(),
                             [](const auto&, const auto&) { return true; });
    CHECK(sorted_ids(a) == all);
    sort_internal::MergeSort(a.data(), n, buf.data(),
                             [&](const auto&, const auto&) { return rng.Next(2) == 0; });
    CHECK(sorted_ids(a) == all);
  }
}

TEST_CASE("sort: a comparator that is no strict weak order gives a permutation", "[sort]") {
  // LE (reflexive) and NE (neither) through the typed and generic paths;
  // 2000 elements so that std::sort's unguarded partition would have run.
  Lcg rng;
  std::vector<int64_t> vals;
  for (int i = 0; i < 2000; ++i) vals.push_back(rng.Next(50));
  std::vector<int64_t> want = vals;
  std::sort(want.begin(), want.end());
  for (std::string_view dir : {"LE", "NE", "GE", "LT"}) {
    auto r = RunModule(StrCat(R"(
cmp {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=)",
                              dir, R"(
}

ENTRY main {
  p = s32[2000] parameter(0)
  ROOT s = s32[2000] sort(p), dimensions={0}, to_apply=cmp
}
)"),
                       {S32Array(vals)});
    REQUIRE(r.ok());
    std::vector<int64_t> got = Ints(r->array());
    if (dir == "LT") CHECK(got == want);
    std::sort(got.begin(), got.end());
    CHECK(got == want);
  }
}

TEST_CASE("sort: a large typed sort along dimension 0 equals std::stable_sort", "[sort]") {
  // s32[300,3] keys with many ties and an iota payload, sorted along dim 0
  // by GT (descending): each column's payload is the stable permutation.
  Lcg rng;
  std::vector<int64_t> keys;
  for (int i = 0; i < 900; ++i) keys.push_back(rng.Next(7) - 3);
  auto lit = Literal::Create(Shape::Array(PrimitiveType::kS32, {300, 3}));
  REQUIRE(lit.ok());
  for (int i = 0; i < 900; ++i) lit->SetInt(i, keys[i]);
  auto r = RunModule(R"(
gt {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT r = pred[] compare(a, b), direction=GT
}

ENTRY main {
  k = s32[300,3] parameter(0)
  i = s32[300,3] iota(), iota_dimension=0
  ROOT s = (s32[300,3], s32[300,3]) sort(k, i), dimensions={0}, is_stable=true, to_apply=gt
}
)",
                     {Value::FromLiteral(*std::move(lit))});
  REQUIRE(r.ok());
  const Literal& sk = r->element(0).array();
  const Literal& si = r->element(1).array();
  for (int c = 0; c < 3; ++c) {
    std::vector<int64_t> order(300);
    for (int j = 0; j < 300; ++j) order[j] = j;
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return keys[a * 3 + c] > keys[b * 3 + c]; });
    for (int j = 0; j < 300; ++j) {
      CHECK(si.GetInt(j * 3 + c) == order[j]);
      CHECK(sk.GetInt(j * 3 + c) == keys[order[j] * 3 + c]);
    }
  }
}

TEST_CASE("sort: one integer operand by its own value, long slices (radix path) and short",
          "[sort]") {
  // [rows, 3] arrays sorted along dim 0 by LT and by GT, each column against
  // std::sort of its values: every integer type, each type's range ends,
  // -1, 0 and 1 among random values (the top bits vary: no radix pass is
  // skipped); 700 rows (radix) and 40 rows (std::sort).
  for (const char* type : {"s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64"}) {
    for (int64_t rows : {700, 40}) {
      for (const char* dir : {"LT", "GT"}) {
        INFO(type << " rows " << rows << " " << dir);
        const PrimitiveType t = *ParsePrimitiveType(type);
        auto lit = Literal::Create(Shape::Array(t, {rows, 3}));
        REQUIRE(lit.ok());
        Lcg rng;
        const int bits = BitWidth(t);
        const bool is_signed = IsSignedInt(t);
        const int64_t lowest =
            is_signed ? (bits == 64 ? INT64_MIN : -(int64_t{1} << (bits - 1))) : 0;
        const int64_t highest = bits == 64 ? (is_signed ? INT64_MAX : -1)
                                           : (int64_t{1} << (bits - (is_signed ? 1 : 0))) - 1;
        const int64_t special[] = {lowest, highest, -1, 0, 1};
        for (int64_t i = 0; i < rows * 3; ++i) {
          const uint64_t r = (static_cast<uint64_t>(rng.Next(1 << 30)) << 34) ^
                             static_cast<uint64_t>(rng.Next(1 << 30));
          lit->SetInt(i, i % 7 < 5 ? special[i % 7] : static_cast<int64_t>(r));
        }
        std::vector<int64_t> before = Ints(*lit);
        auto r =
            RunModule(StrCat("cmp {\n  a = ", type, "[] parameter(0)\n  b = ", type,
                             "[] parameter(1)\n  ROOT r = pred[] compare(a, b), direction=", dir,
                             "\n}\n\nENTRY main {\n  k = ", type, "[", rows,
                             ",3] parameter(0)\n  ROOT s = ", type, "[", rows,
                             ",3] sort(k), dimensions={0}, to_apply=cmp\n}\n"),
                      {Value::FromLiteral(*std::move(lit))});
        REQUIRE(r.ok());
        const std::vector<int64_t> got = Ints(r->array());
        for (int c = 0; c < 3; ++c) {
          std::vector<int64_t> column;
          for (int64_t j = 0; j < rows; ++j) column.push_back(before[j * 3 + c]);
          // (GetInt gives u64 reinterpreted: compare u64 values as unsigned.)
          auto less = [&](int64_t a, int64_t b) {
            return t == PrimitiveType::kU64 ? static_cast<uint64_t>(a) < static_cast<uint64_t>(b)
                                            : a < b;
          };
          std::sort(column.begin(), column.end(), less);
          if (std::string_view(dir) == "GT") std::reverse(column.begin(), column.end());
          for (int64_t j = 0; j < rows; ++j) CHECK(got[j * 3 + c] == column[j]);
        }
      }
    }
  }
}

TEST_CASE("sort: long slices (radix path) equal std::stable_sort, -0/+0 and NaN included",
          "[sort]") {
  // f32 keys from a small set with both zeros (IEEE LT: -0 == +0, so they
  // keep their order) ascending, and s64 keys descending; then the same f32
  // keys with a NaN (the merge sort path).
  Lcg rng;
  const int n = 3000;
  const float pool[] = {-0.0f, 0.0f, 1.5f, -2.0f, 1e30f, -1e-30f, 7.0f};
  std::vector<float> fk(n);
  std::vector<int64_t> sk(n);
  for (int i = 0; i < n; ++i) {
    fk[i] = pool[rng.Next(7)];
    sk[i] = (rng.Next(2) ? -1 : 1) * (rng.Next(1000) << 40);
  }
  auto run = [&](const std::vector<float>& keys) {
    auto f = Literal::Create(Shape::Array(PrimitiveType::kF32, {n}));
    auto k = Literal::Create(Shape::Array(PrimitiveType::kS64, {n}));
    REQUIRE(f.ok());
    REQUIRE(k.ok());
    std::memcpy(f->data(), keys.data(), n * 4);
    for (int i = 0; i < n; ++i) k->SetInt(i, sk[i]);
    auto r = RunModule(R"(
ltf {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT r = pred[] compare(a, b), direction=LT
}

gts {
  a = s64[] parameter(0)
  b = s64[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT r = pred[] compare(a, b), direction=GT
}

ENTRY main {
  f = f32[3000] parameter(0)
  k = s64[3000] parameter(1)
  i = s32[3000] iota(), iota_dimension=0
  a = (f32[3000], s32[3000]) sort(f, i), dimensions={0}, is_stable=true, to_apply=ltf
  b = (s64[3000], s32[3000]) sort(k, i), dimensions={0}, is_stable=true, to_apply=gts
  ROOT t = ((f32[3000], s32[3000]), (s64[3000], s32[3000])) tuple(a, b)
}
)",
                       {Value::FromLiteral(*std::move(f)), Value::FromLiteral(*std::move(k))});
    REQUIRE(r.ok());
    return *std::move(r);
  };
  std::vector<int64_t> by_f(n), by_s(n);
  for (int i = 0; i < n; ++i) by_f[i] = by_s[i] = i;
  std::stable_sort(by_f.begin(), by_f.end(), [&](int64_t a, int64_t b) { return fk[a] < fk[b]; });
  std::stable_sort(by_s.begin(), by_s.end(), [&](int64_t a, int64_t b) { return sk[a] > sk[b]; });
  Value r = run(fk);
  CHECK(Ints(r.element(0).element(1).array()) == by_f);
  CHECK(Ints(r.element(1).element(1).array()) == by_s);
  // With a NaN the keys are no strict weak order: still a permutation.
  std::vector<float> with_nan = fk;
  with_nan[n / 2] = std::nanf("");
  std::vector<int64_t> perm = Ints(run(with_nan).element(0).element(1).array());
  std::sort(perm.begin(), perm.end());
  std::vector<int64_t> all(n);
  for (int i = 0; i < n; ++i) all[i] = i;
  CHECK(perm == all);
}

// JAX's jnp.sort comparator: NaN -> the constant NaN, -0 -> +0, then
// compare(order=TOTAL). Expected from that definition: a stable sort by
// the canonical value's total-order bits (sign-magnitude turned into two's
// complement order).
template <typename T, typename Bits>
void CheckCanonicalTotalSort(const char* type, int64_t rows, int64_t cols) {
  Lcg rng;
  const T specials[] = {std::numeric_limits<T>::quiet_NaN(),
                        -std::numeric_limits<T>::quiet_NaN(),
                        T(0),
                        T(-0.0),
                        std::numeric_limits<T>::infinity(),
                        -std::numeric_limits<T>::infinity(),
                        std::numeric_limits<T>::denorm_min(),
                        T(1.5),
                        T(-1.5)};
  std::vector<T> x(rows * cols);
  for (T& v : x) {
    v = rng.Next(3) == 0 ? specials[rng.Next(9)] : static_cast<T>(rng.Next(2001) - 1000) / T(7);
  }
  for (int k = 0; k < 20; ++k) {                     // NaNs with payloads and either sign
    Bits b = std::numeric_limits<Bits>::max() >> 1;  // all exponent and mantissa bits
    b ^= static_cast<Bits>(rng.Next(1 << 16));
    if (rng.Next(2)) b |= Bits(1) << (sizeof(Bits) * 8 - 1);
    std::memcpy(&x[rng.Next(rows * cols)], &b, sizeof(Bits));
  }
  auto key = [](T v) {
    if (v != v) v = std::numeric_limits<T>::quiet_NaN();
    if (v == T(0)) v = T(0);
    using S = std::make_signed_t<Bits>;
    S b;
    std::memcpy(&b, &v, sizeof(S));
    return b < 0 ? static_cast<S>(b ^ std::numeric_limits<S>::max()) : b;
  };
  auto lit = Literal::Create(
      Shape::Array(sizeof(T) == 4 ? PrimitiveType::kF32 : PrimitiveType::kF64, {rows, cols}));
  REQUIRE(lit.ok());
  std::memcpy(lit->data(), x.data(), x.size() * sizeof(T));
  // The module with $T for the element type and $D for the dimensions.
  std::string text = R"(
cmp {
  a = $T[] parameter(0)
  b = $T[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  nan = $T[] constant(nan)
  zero = $T[] constant(0)
  na = pred[] compare(a, a), direction=NE
  za = pred[] compare(a, zero), direction=EQ
  a0 = $T[] select(za, zero, a)
  a1 = $T[] select(na, nan, a0)
  nb = pred[] compare(b, b), direction=NE
  zb = pred[] compare(b, zero), direction=EQ
  b0 = $T[] select(zb, zero, b)
  b1 = $T[] select(nb, nan, b0)
  ROOT lt = pred[] compare(a1, b1), direction=LT, type=TOTALORDER
}

ENTRY main {
  x = $T[$D] parameter(0)
  i = s32[$D] iota(), iota_dimension=1
  ROOT s = ($T[$D], s32[$D]) sort(x, i), dimensions={1}, is_stable=true, to_apply=cmp
}
)";
  const std::string dims = StrCat(rows, ",", cols);
  for (auto [token, with] : {std::pair<std::string, std::string>{"$T", type}, {"$D", dims}}) {
    for (size_t at = text.find(token); at != std::string::npos; at = text.find(token, at)) {
      text.replace(at, token.size(), with);
    }
  }
  auto r = RunModule(text, {Value::FromLiteral(*std::move(lit))});
  REQUIRE(r.ok());
  const std::vector<int64_t> got = Ints(r->element(1).array());
  std::vector<int64_t> want;
  for (int64_t row = 0; row < rows; ++row) {
    std::vector<int64_t> perm(cols);
    for (int64_t j = 0; j < cols; ++j) perm[j] = j;
    const T* line = x.data() + row * cols;
    std::stable_sort(perm.begin(), perm.end(),
                     [&](int64_t a, int64_t b) { return key(line[a]) < key(line[b]); });
    want.insert(want.end(), perm.begin(), perm.end());
  }
  CHECK(got == want);
}

TEST_CASE("sort: JAX's canonicalising total-order comparator, f32 and f64, short and long rows",
          "[sort]") {
  CheckCanonicalTotalSort<float, uint32_t>("f32", 50, 40);   // std::sort of typed keys
  CheckCanonicalTotalSort<float, uint32_t>("f32", 2, 1500);  // radix
  CheckCanonicalTotalSort<double, uint64_t>("f64", 50, 40);
  CheckCanonicalTotalSort<double, uint64_t>("f64", 2, 1500);
}

TEST_CASE("sort: comparator failures and malformed sorts are errors", "[sort]") {
  ExpectError(RunModule(R"(
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] custom-call(a, b), custom_call_target="my_less"
}

ENTRY main {
  p = f32[3] constant({3, 1, 2})
  ROOT s = f32[3] sort(p), dimensions={0}, to_apply=cmp
}
)"),
              "custom-call target 'my_less'");
  ExpectError(RunModule(R"(
cmp {
  a = f32[] parameter(0)
  ROOT b = f32[] parameter(1)
}

ENTRY main {
  p = f32[3] constant({3, 1, 2})
  ROOT s = f32[3] sort(p), dimensions={0}, to_apply=cmp
}
)"),
              "must return a pred scalar");
  ExpectError(RunModule(R"(
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT
}

ENTRY main {
  p = f32[3] constant({3, 1, 2})
  ROOT s = f32[3] sort(p), dimensions={1}, to_apply=cmp
}
)"),
              "sort needs dimensions={d}");
  ExpectError(RunModule(R"(
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=LT
}

ENTRY main {
  p = f32[3] constant({3, 1, 2})
  q = s32[4] constant({3, 1, 2, 0})
  ROOT s = (f32[3], s32[4]) sort(p, q), dimensions={0}, to_apply=cmp
}
)"),
              "sort operand 1 s32[4] does not match");
}

TEST_CASE("topk and custom-call: errors", "[sort]") {
  ExpectError(RunModule(R"(
ENTRY main {
  x = f32[4] constant({1, 2, 3, 4})
  ROOT t = (f32[5], s32[5]) topk(x), k=5, largest=true
}
)"),
              "topk k=5 is not in [0, 4]");
  ExpectError(RunModule(R"(
ENTRY main {
  x = c64[2] constant({(1, 0), (2, 0)})
  ROOT t = (c64[1], s32[1]) topk(x), k=1, largest=true
}
)"),
              "topk cannot order c64[2]");
  ExpectError(RunModule(R"(
ENTRY main {
  x = f32[4] constant({1, 2, 3, 4})
  ROOT t = (f32[2], s32[3]) custom-call(x), custom_call_target="TopK"
}
)"),
              "cannot give (f32[2], s32[3])");
  ExpectError(RunModule(R"(
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = f32[] parameter(2)
  ROOT r = pred[] compare(a, b), direction=GT
}

ENTRY main {
  x = f32[4] constant({1, 2, 3, 4})
  ROOT t = (f32[2], s32[2]) custom-call(x), custom_call_target="TopK", to_apply=cmp
}
)"),
              "takes 3 parameters, not 2 or 4");
  ExpectError(RunModule(R"(
ENTRY main {
  x = f32[4] constant({1, 2, 3, 4})
  ROOT y = f32[4] custom-call(x), custom_call_target="cudnn$conv"
}
)"),
              "hlo-run has no implementation of custom-call target 'cudnn$conv'");
}

TEST_CASE("custom-call: single-device sharding annotations are the identity", "[sort]") {
  auto r = RunModule(R"(
ENTRY main {
  x = f32[2] constant({1.5, -2})
  ROOT y = f32[2] custom-call(x), custom_call_target="Sharding", sharding={replicated}
}
)");
  REQUIRE(r.ok());
  CHECK(LiteralToString(r->ToLiteral(), LiteralStyle::kCompact) == "f32[2] {1.5, -2}");
}

}  // namespace
}  // namespace hlo

namespace hlo {
namespace {

// The comparator `cmp` of a module text, recognised for n operands.
std::optional<sort_internal::KeyComparator> Recognize(std::string_view comparator, int64_t n) {
  auto m = ParseModule(StrCat("HloModule test\n\n", comparator,
                              "\nENTRY main {\n  ROOT c = s32[] constant(0)\n}\n"));
  INFO((m.ok() ? std::string() : std::string(m.status().message())));
  REQUIRE(m.ok());
  const Computation* cmp = nullptr;
  for (const auto& c : (*m)->computations()) {
    if (c->name() == "cmp") cmp = c.get();
  }
  REQUIRE(cmp != nullptr);
  return sort_internal::RecognizeComparator(*cmp, n);
}

// The total-order integer of parameter p as XLA's ComparisonExpander writes
// it, named k<p>.
std::string TotalBits(int p) {
  return StrCat("  b", p, " = s32[] bitcast(p", p, ")\n  x", p, " = s32[] xor(imax, b", p, ")\n  n",
                p, " = pred[] compare(b", p, ", izero), direction=LT\n  k", p, " = s32[] select(n",
                p, ", x", p, ", b", p, ")\n");
}

constexpr std::string_view kTwoF32 =
    "  p0 = f32[] parameter(0)\n  p1 = f32[] parameter(1)\n"
    "  izero = s32[] constant(0)\n  imax = s32[] constant(2147483647)\n";

TEST_CASE("RecognizeComparator: XLA's and JAX's comparators order by keys", "[sort]") {
  SECTION("total order as integers, GT, 4 parameters (after.hlo's TopK comparator)") {
    auto r = Recognize(
        StrCat("cmp {\n", kTwoF32, "  p2 = s32[] parameter(2)\n", "  p3 = s32[] parameter(3)\n",
               TotalBits(0), TotalBits(1), "  ROOT r = pred[] compare(k0, k1), direction=GT\n}\n"),
        2);
    REQUIRE(r);
    REQUIRE(r->keys.size() == 1);
    CHECK(r->keys[0].operand == 0);
    CHECK(r->keys[0].descending);
    CHECK(r->keys[0].total_order);
    CHECK(r->keys[0].rules.empty());
  }
  SECTION("JAX's canonicalising selects under the integers, LT with sides swapped") {
    auto r = Recognize(StrCat("cmp {\n", kTwoF32,
                              "  q = f32[] constant(nan)\n  z = f32[] constant(0)\n"
                              "  e0 = pred[] compare(p0, z), direction=EQ\n"
                              "  s0 = f32[] select(e0, z, p0)\n"
                              "  m0 = pred[] compare(p0, p0), direction=NE\n"
                              "  c0 = f32[] select(m0, q, s0)\n"
                              "  e1 = pred[] compare(p1, z), direction=EQ\n"
                              "  s1 = f32[] select(e1, z, p1)\n"
                              "  m1 = pred[] compare(p1, p1), direction=NE\n"
                              "  c1 = f32[] select(m1, q, s1)\n"
                              "  b0 = s32[] bitcast(c0)\n  x0 = s32[] xor(imax, b0)\n"
                              "  n0 = pred[] compare(b0, izero), direction=LT\n"
                              "  k0 = s32[] select(n0, x0, b0)\n"
                              "  b1 = s32[] bitcast(c1)\n  x1 = s32[] xor(imax, b1)\n"
                              "  n1 = pred[] compare(b1, izero), direction=LT\n"
                              "  k1 = s32[] select(n1, x1, b1)\n"
                              "  ROOT r = pred[] compare(k1, k0), direction=LT\n}\n"),
                       1);
    REQUIRE(r);
    REQUIRE(r->keys.size() == 1);
    CHECK(r->keys[0].descending);
    CHECK(r->keys[0].total_order);
    REQUIRE(r->keys[0].rules.size() == 2);
    CHECK(r->keys[0].rules[0].kind == sort_internal::KeyRule::kNaN);
    CHECK(r->keys[0].rules[1].kind == sort_internal::KeyRule::kEqual);
  }
  SECTION("JAX's two keys: or(lt(k0), and(eq(k0), lt(p2, p3)))") {
    auto r = Recognize(StrCat("cmp {\n", kTwoF32, "  p2 = s32[] parameter(2)\n",
                              "  p3 = s32[] parameter(3)\n", TotalBits(0), TotalBits(1),
                              "  lt = pred[] compare(k0, k1), direction=LT\n"
                              "  eq = pred[] compare(k0, k1), direction=EQ\n"
                              "  lt2 = pred[] compare(p2, p3), direction=LT\n"
                              "  a = pred[] and(eq, lt2)\n"
                              "  ROOT r = pred[] or(lt, a)\n}\n"),
                       2);
    REQUIRE(r);
    REQUIRE(r->keys.size() == 2);
    CHECK((r->keys[0].operand == 0 && r->keys[0].total_order && !r->keys[0].descending));
    CHECK((r->keys[1].operand == 1 && !r->keys[1].total_order && !r->keys[1].descending));
  }
  SECTION("XLA's three keys: select(and(eq0, eq1), lt2, select(eq0, gt1, lt0))") {
    auto r = Recognize(
        "cmp {\n  p0 = u8[] parameter(0)\n  p1 = u8[] parameter(1)\n"
        "  p2 = s64[] parameter(2)\n  p3 = s64[] parameter(3)\n"
        "  p4 = bf16[] parameter(4)\n  p5 = bf16[] parameter(5)\n"
        "  lt0 = pred[] compare(p0, p1), direction=LT\n"
        "  eq0 = pred[] compare(p0, p1), direction=EQ\n"
        "  gt1 = pred[] compare(p2, p3), direction=GT\n"
        "  eq1 = pred[] compare(p3, p2), direction=EQ\n"
        "  lt2 = pred[] compare(p4, p5), direction=LT, type=TOTALORDER\n"
        "  s1 = pred[] select(eq0, gt1, lt0)\n  both = pred[] and(eq0, eq1)\n"
        "  ROOT s2 = pred[] select(both, lt2, s1)\n}\n",
        3);
    REQUIRE(r);
    REQUIRE(r->keys.size() == 3);
    CHECK((r->keys[0].operand == 0 && !r->keys[0].descending));
    CHECK((r->keys[1].operand == 1 && r->keys[1].descending));
    CHECK((r->keys[2].operand == 2 && r->keys[2].total_order));
  }
  SECTION("TopkRewriter's bitcast-convert(MAX - u) form and a select on a constant true") {
    auto r = Recognize(
        "cmp {\n  p0 = f32[] parameter(0)\n  p1 = f32[] parameter(1)\n"
        "  izero = s32[] constant(0)\n  m = s32[] constant(2147483647)\n"
        "  umax = u32[] convert(m)\n"
        "  s0 = s32[] bitcast-convert(p0)\n  u0 = u32[] bitcast-convert(p0)\n"
        "  d0 = u32[] subtract(umax, u0)\n  f0 = s32[] bitcast-convert(d0)\n"
        "  n0 = pred[] compare(s0, izero), direction=LT\n  k0 = s32[] select(n0, f0, s0)\n"
        "  s1 = s32[] bitcast-convert(p1)\n  u1 = u32[] bitcast-convert(p1)\n"
        "  d1 = u32[] subtract(umax, u1)\n  f1 = s32[] bitcast-convert(d1)\n"
        "  n1 = pred[] compare(s1, izero), direction=LT\n  k1 = s32[] select(n1, f1, s1)\n"
        "  gt = pred[] compare(k0, k1), direction=GT\n"
        "  t = pred[] constant(true)\n  tb = pred[] broadcast(t), dimensions={}\n"
        "  ROOT r = pred[] select(tb, gt, tb)\n}\n",
        1);
    REQUIRE(r);
    REQUIRE(r->keys.size() == 1);
    CHECK((r->keys[0].descending && r->keys[0].total_order));
  }
  SECTION("XLA:GPU's StableSortExpander: select(eq(c, c swapped), lt(p2, p3), c)") {
    const std::string keys = StrCat(kTwoF32, "  p2 = s32[] parameter(2)\n",
                                    "  p3 = s32[] parameter(3)\n", TotalBits(0), TotalBits(1),
                                    "  c = pred[] compare(k0, k1), direction=GT\n"
                                    "  cs = pred[] compare(k1, k0), direction=GT\n"
                                    "  idx = pred[] compare(p2, p3), direction=LT\n");
    for (std::string_view root : {"  e = pred[] compare(c, cs), direction=EQ\n"
                                  "  ROOT r = pred[] select(e, idx, c)\n",
                                  "  e = pred[] compare(cs, c), direction=NE\n"
                                  "  ROOT r = pred[] select(e, c, idx)\n"}) {
      auto r = Recognize(StrCat("cmp {\n", keys, root, "}\n"), 2);
      REQUIRE(r);
      REQUIRE(r->keys.size() == 2);
      CHECK((r->keys[0].operand == 0 && r->keys[0].descending && r->keys[0].total_order));
      CHECK((r->keys[1].operand == 1 && !r->keys[1].descending && !r->keys[1].total_order));
    }
  }
  SECTION("a bf16 widened to f32 before its total-order integer") {
    auto r = Recognize(
        "cmp {\n  p0 = bf16[] parameter(0)\n  p1 = bf16[] parameter(1)\n"
        "  w0 = f32[] convert(p0)\n  w1 = f32[] convert(p1)\n"
        "  izero = s32[] constant(0)\n  imax = s32[] constant(2147483647)\n"
        "  b0 = s32[] bitcast-convert(w0)\n  x0 = s32[] xor(b0, imax)\n"
        "  n0 = pred[] compare(izero, b0), direction=GT\n  k0 = s32[] select(n0, x0, b0)\n"
        "  b1 = s32[] bitcast-convert(w1)\n  x1 = s32[] xor(imax, b1)\n"
        "  n1 = pred[] compare(b1, izero), direction=LT\n  k1 = s32[] select(n1, x1, b1)\n"
        "  ROOT r = pred[] compare(k0, k1), direction=LT\n}\n",
        1);
    REQUIRE(r);
    REQUIRE(r->keys.size() == 1);
    CHECK((r->keys[0].widened && r->keys[0].total_order && !r->keys[0].descending));
  }
}

TEST_CASE("RecognizeComparator: what is no order by keys stays with the comparator", "[sort]") {
  auto two = [](std::string_view body) {
    return StrCat(
        "cmp {\n  p0 = f32[] parameter(0)\n  p1 = f32[] parameter(1)\n"
        "  p2 = s32[] parameter(2)\n  p3 = s32[] parameter(3)\n",
        body, "}\n");
  };
  // A function of the values (|x|), LE, one parameter on both sides.
  CHECK_FALSE(Recognize(two("  a0 = f32[] abs(p0)\n  a1 = f32[] abs(p1)\n"
                            "  ROOT r = pred[] compare(a0, a1), direction=LT\n"),
                        2));
  CHECK_FALSE(Recognize(two("  ROOT r = pred[] compare(p0, p1), direction=LE\n"), 2));
  CHECK_FALSE(Recognize(two("  ROOT r = pred[] compare(p0, p0), direction=LT\n"), 2));
  // The tie tested on another key, or in another order (IEEE EQ beside a
  // total-order LT: -0 and +0 tie under one, not the other).
  CHECK_FALSE(Recognize(two("  lt = pred[] compare(p0, p1), direction=LT\n"
                            "  eq = pred[] compare(p2, p3), direction=EQ\n"
                            "  lt2 = pred[] compare(p2, p3), direction=LT\n"
                            "  ROOT r = pred[] select(eq, lt2, lt)\n"),
                        2));
  CHECK_FALSE(Recognize(two("  lt = pred[] compare(p0, p1), direction=LT, type=TOTALORDER\n"
                            "  eq = pred[] compare(p0, p1), direction=EQ\n"
                            "  lt2 = pred[] compare(p2, p3), direction=LT\n"
                            "  ROOT r = pred[] select(eq, lt2, lt)\n"),
                        2));
  // StableSortExpander's form with the mirror not swapped (c == c is
  // always true), on another key, or the select's arms exchanged.
  for (std::string_view mirror : {"  cs = pred[] compare(p0, p1), direction=LT\n",
                                  "  cs = pred[] compare(p3, p2), direction=LT\n"}) {
    CHECK_FALSE(Recognize(two(StrCat("  c = pred[] compare(p0, p1), direction=LT\n", mirror,
                                     "  idx = pred[] compare(p2, p3), direction=LT\n"
                                     "  e = pred[] compare(c, cs), direction=EQ\n"
                                     "  ROOT r = pred[] select(e, idx, c)\n")),
                          2));
  }
  CHECK_FALSE(Recognize(two("  c = pred[] compare(p0, p1), direction=LT\n"
                            "  cs = pred[] compare(p1, p0), direction=LT\n"
                            "  idx = pred[] compare(p2, p3), direction=LT\n"
                            "  e = pred[] compare(c, cs), direction=EQ\n"
                            "  ROOT r = pred[] select(e, c, idx)\n"),
                        2));
  // xor with a constant other than MAX is no total order.
  CHECK_FALSE(Recognize(
      StrCat("cmp {\n",
             "  p0 = f32[] parameter(0)\n  p1 = f32[] parameter(1)\n"
             "  izero = s32[] constant(0)\n  imax = s32[] constant(2147483646)\n",
             TotalBits(0), TotalBits(1), "  ROOT r = pred[] compare(k0, k1), direction=LT\n}\n"),
      1));
}

// XLA:GPU's stable sort: the StableSortExpander's comparator around IEEE `<`
// (or total order), ties broken by an iota (or by a key that decreases
// along the row: the sort by both keys). Without NaNs it is the stable sort
// by value (-0 and +0 tie under IEEE `<`); every path gives the evaluator's
// bytes (--no-fast-paths), NaNs under IEEE `<` included.
TEST_CASE("sort: XLA's stable-sort expansion sorts by key, then index", "[sort]") {
  struct Variant {
    bool total, nans, iota;
  };
  for (Variant v : {Variant{false, false, true}, Variant{false, true, true},
                    Variant{true, true, true}, Variant{false, false, false}}) {
    const bool total = v.total;
    for (int64_t cols : {40, 1500}) {
      Lcg rng;
      const int64_t rows = 3;
      std::vector<float> x(rows * cols);
      const float specials[] = {0.0f, -0.0f, 1.5f, -1.5f, INFINITY, -INFINITY, NAN};
      for (float& e : x) {
        e = rng.Next(3) == 0 ? specials[rng.Next(v.nans ? 7 : 6)]
                             : static_cast<float>(static_cast<int64_t>(rng.Next(41)) - 20) / 4;
      }
      auto lit = Literal::Create(Shape::Array(PrimitiveType::kF32, {rows, cols}));
      REQUIRE(lit.ok());
      std::memcpy(lit->data(), x.data(), x.size() * sizeof(float));
      const std::string type = total ? ", type=TOTALORDER" : "";
      const std::string dims = StrCat("[", rows, ",", cols, "]");
      const std::string text = StrCat(
          "HloModule t\n\ncmp {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
          "  i = s32[] parameter(2)\n  j = s32[] parameter(3)\n"
          "  c = pred[] compare(a, b), direction=LT",
          type, "\n  cs = pred[] compare(b, a), direction=LT", type,
          "\n  idx = pred[] compare(i, j), direction=LT\n"
          "  e = pred[] compare(c, cs), direction=EQ\n  ROOT r = pred[] select(e, idx, c)\n}\n\n"
          "ENTRY main {\n  x = f32",
          dims, " parameter(0)\n  up = s32", dims, " iota(), iota_dimension=1\n",
          v.iota ? StrCat("  k = s32", dims, " copy(up)\n")
                 : StrCat("  k = s32", dims, " negate(up)\n"),
          "  ROOT s = (f32", dims, ", s32", dims,
          ") sort(x, k), dimensions={1}, to_apply=cmp\n}\n");
      auto m = ParseModule(text);
      REQUIRE(m.ok());
      const Value arg = Value::FromLiteral(*std::move(lit));
      Evaluator fast(**m, {});
      EvalOptions slow_options;
      slow_options.fast_paths = false;
      Evaluator slow(**m, slow_options);
      auto got = fast.Run({arg});
      auto want = slow.Run({arg});
      REQUIRE(got.ok());
      REQUIRE(want.ok());
      INFO("total order " << total << ", NaNs " << v.nans << ", iota " << v.iota << ", " << cols
                          << " columns");
      CHECK(Ints(got->element(1).array()) == Ints(want->element(1).array()));
      CHECK(std::memcmp(got->element(0).array().data(), want->element(0).array().data(),
                        x.size() * sizeof(float)) == 0);
      if (!v.nans && v.iota) {
        std::vector<int64_t> order;
        for (int64_t row = 0; row < rows; ++row) {
          std::vector<int64_t> perm(cols);
          for (int64_t j = 0; j < cols; ++j) perm[j] = j;
          const float* line = x.data() + row * cols;
          std::stable_sort(perm.begin(), perm.end(),
                           [&](int64_t a, int64_t b) { return line[a] < line[b]; });
          order.insert(order.end(), perm.begin(), perm.end());
        }
        CHECK(Ints(got->element(1).array()) == order);
      }
    }
  }
}

TEST_CASE("sort: any comparator (batched sorting network) equals std::stable_sort", "[sort]") {
  // |k| < |l| on s32 keys with many ties and an iota payload, for every
  // length up to 70 (networks padded to powers of two) and a long row.
  Lcg rng;
  std::vector<int64_t> lengths;
  for (int64_t n = 0; n <= 70; ++n) lengths.push_back(n);
  lengths.push_back(1000);
  for (int64_t n : lengths) {
    std::vector<int64_t> keys;
    for (int64_t i = 0; i < n; ++i) keys.push_back(rng.Next(9) - 4);
    auto r = RunModule(StrCat(R"(
abs_lt {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  x = s32[] abs(a)
  y = s32[] abs(b)
  ROOT r = pred[] compare(x, y), direction=LT
}

ENTRY main {
  k = s32[)",
                              n, R"(] parameter(0)
  i = s32[)",
                              n, R"(] iota(), iota_dimension=0
  ROOT s = (s32[)",
                              n, "], s32[", n, R"(]) sort(k, i), dimensions={0}, to_apply=abs_lt
}
)"),
                       {S32Array(keys)});
    REQUIRE(r.ok());
    std::vector<int64_t> order(n);
    for (int64_t j = 0; j < n; ++j) order[j] = j;
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return std::abs(keys[a]) < std::abs(keys[b]); });
    INFO("n = " << n);
    CHECK(Ints(r->element(1).array()) == order);
  }
  // The comparator does go through the batched interpreter.
  auto m = ParseModule(
      "HloModule t\n\nabs_lt {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n"
      "  x = s32[] abs(a)\n  y = s32[] abs(b)\n"
      "  ROOT r = pred[] compare(x, y), direction=LT\n}\n\n"
      "ENTRY main {\n  ROOT c = s32[] constant(0)\n}\n");
  REQUIRE(m.ok());
  Evaluator ev(**m, {});
  CHECK(ev.BatchProgramFor(*(*m)->computations().front()) != nullptr);
}

}  // namespace
}  // namespace hlo

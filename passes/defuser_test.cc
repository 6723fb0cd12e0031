// Tests for defuser's options as hlo-run's fused mode runs it
// (DefuserOptions): only loop fusions over more than the threshold's
// elements that reduce fusions alone read are defused, with those reduce
// fusions, and only when every op in them is one the executor's fused groups
// run. The registry's pass is covered by testdata/passes/defuser.hlo.
#include <catch2/catch.hpp>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "parser/parse_test_util.h"
#include "passes/passes.h"

namespace hlo {
namespace {

// Runs the defuser as hlo-run does, `runs_as_one_loop` standing for the
// executor's answer (none: the rule that asks it is off).
bool Defuse(Module& m, std::function<bool(const Instruction&)> runs_as_one_loop = nullptr) {
  DefuserOptions options;
  options.reduce_producers_over = int64_t{1} << 14;
  options.keep_names = true;
  options.runs_as_one_loop = std::move(runs_as_one_loop);
  absl::StatusOr<bool> changed = CreateDefuser(options)->Run(m);
  REQUIRE(changed.ok());
  return *changed;
}

int64_t EntryFusions(const Module& m) {
  int64_t n = 0;
  for (const auto& inst : m.entry()->instructions()) n += inst->opcode() == Opcode::kFusion;
  return n;
}

std::set<std::string> EntryNames(const Module& m) {
  std::set<std::string> names;
  for (const auto& inst : m.entry()->instructions()) names.emplace(inst->name());
  return names;
}

// A batch norm's variance as XLA:CPU fuses it: centred values (a loop
// fusion) read by a reduce fusion of their squares. `dims` is the array's
// shape, `n` its last dimension; `extra_user`, when not empty, is the
// opcode of a second reader of the centred values; `producer_op` makes the
// subtract's left operand from the parameter p (default: a reverse, which
// the fused groups do not run).
std::string BatchNormVariance(const std::string& dims, const std::string& n,
                              const std::string& extra_user = "",
                              const std::string& producer_op = "p") {
  const std::string a = "f32[" + dims + "]";
  const std::string v = "f32[" + n + "]";
  return "HloModule m\n\n"
         "add {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
         "  ROOT s = f32[] add(x, y)\n}\n\n"
         "centre {\n  p = " +
         a + " parameter(0)\n  m = " + v +
         " parameter(1)\n"
         "  b = " +
         a +
         " broadcast(m), dimensions={1}\n"
         "  src = " +
         a + " " + (producer_op == "p" ? "reverse(p), dimensions={0}" : producer_op) +
         "\n"
         "  ROOT d = " +
         a +
         " subtract(src, b)\n}\n\n"
         "squares {\n  q = " +
         a +
         " parameter(0)\n  z = f32[] parameter(1)\n"
         "  sq = " +
         a +
         " multiply(q, q)\n"
         "  ROOT r = " +
         v +
         " reduce(sq, z), dimensions={0}, to_apply=add\n}\n\n"
         "ENTRY main {\n  x = " +
         a + " parameter(0)\n  mean = " + v +
         " parameter(1)\n"
         "  zero = f32[] constant(0)\n"
         "  c = " +
         a +
         " fusion(x, mean), kind=kLoop, calls=centre\n"
         "  var = " +
         v + " fusion(c, zero), kind=kInput, calls=squares\n" +
         (extra_user.empty() ? "  ROOT t = (" + v + ") tuple(var)\n"
                             : "  e = " + a + " " + extra_user + "(c)\n  ROOT t = (" + v + ", " +
                                   a + ") tuple(var, e)\n") +
         "}\n";
}

TEST_CASE("defuser, hlo-run's options: a large producer and its reduce fusion are defused",
          "[defuser]") {
  auto m = ParseTestModule(BatchNormVariance("64,512", "512", "", "negate(p)"));
  REQUIRE(Defuse(*m));
  CHECK(EntryFusions(*m) == 0);
  const std::set<std::string> names = EntryNames(*m);
  // The fused instructions keep their names; the computations go.
  for (const char* name : {"b", "src", "d", "sq", "r"}) CHECK(names.count(name) == 1);
  CHECK(m->FindComputation("centre") == nullptr);
  CHECK(m->FindComputation("squares") == nullptr);
  CHECK(m->FindComputation("add") != nullptr);
}

TEST_CASE("defuser, hlo-run's options: what stays fused", "[defuser]") {
  SECTION("an array of 2^14 elements") {
    auto m = ParseTestModule(BatchNormVariance("32,512", "512", "", "negate(p)"));
    CHECK_FALSE(Defuse(*m));
    CHECK(EntryFusions(*m) == 2);
  }
  SECTION("a producer read by an instruction that is not a reduce fusion") {
    auto m = ParseTestModule(BatchNormVariance("64,512", "512", "negate", "negate(p)"));
    CHECK_FALSE(Defuse(*m));
  }
  SECTION("a producer holding an op the fused groups do not run") {
    auto m = ParseTestModule(BatchNormVariance("64,512", "512"));
    CHECK_FALSE(Defuse(*m));
  }
}

// Two loop fusions each add the bias over all of qkv and keep a third of
// it (XLA's GPT-2 attention), a one-op fusion and one holding an elided
// constant.
const char kSiblings[] =
    "HloModule m\n\n"
    "third {\n  p0 = f32[4,6] parameter(0)\n  p1 = f32[6] parameter(1)\n"
    "  b = f32[4,6] broadcast(p1), dimensions={1}\n  a = f32[4,6] add(p0, b)\n"
    "  ROOT s = f32[4,2] slice(a), slice={[0:4], [0:2]}\n}\n\n"
    "third1 {\n  p0 = f32[4,6] parameter(0)\n  p1 = f32[6] parameter(1)\n"
    "  b = f32[4,6] broadcast(p1), dimensions={1}\n  a = f32[4,6] add(p0, b)\n"
    "  ROOT s = f32[4,2] slice(a), slice={[0:4], [2:4]}\n}\n\n"
    "one {\n  p0 = f32[4,2] parameter(0)\n  ROOT n = f32[4,2] negate(p0)\n}\n\n"
    "elided {\n  p0 = f32[4,2] parameter(0)\n  c = f32[4,2] constant({...})\n"
    "  a = f32[4,2] add(p0, c)\n  ROOT n = f32[4,2] negate(a)\n}\n\n"
    "ENTRY main {\n  x = f32[4,6] parameter(0)\n  bias = f32[6] parameter(1)\n"
    "  q = f32[4,2] fusion(x, bias), kind=kLoop, calls=third\n"
    "  k = f32[4,2] fusion(x, bias), kind=kLoop, calls=third1\n"
    "  n = f32[4,2] fusion(q), kind=kLoop, calls=one\n"
    "  e = f32[4,2] fusion(k), kind=kLoop, calls=elided\n"
    "  ROOT t = (f32[4,2], f32[4,2], f32[4,2], f32[4,2]) tuple(q, k, n, e)\n}\n";

TEST_CASE("defuser, hlo-run's options: loop fusions that would run op by op", "[defuser]") {
  auto m = ParseTestModule(kSiblings);
  std::vector<std::string> asked;
  CHECK(Defuse(*m, [&](const Instruction& fusion) {
    asked.emplace_back(fusion.name());
    return fusion.name() == "k";
  }));
  // q is defused; k runs as one loop and stays; n has one op and e an
  // elided constant (its copy might take another name, and hlo-run makes
  // such a constant's values from its name): neither is asked.
  CHECK(asked == std::vector<std::string>{"q", "k"});
  CHECK(EntryFusions(*m) == 3);
  const std::set<std::string> names = EntryNames(*m);
  CHECK(names.count("q") == 0);
  CHECK(names.count("s") == 1);
  CHECK(m->FindComputation("third") == nullptr);
  CHECK(m->FindComputation("third1") != nullptr);
}

// XLA:CPU's attention: a loop fusion transposes k into a copy of the
// default layout, and a fusion of one dot reads it; another one-dot fusion
// reads parameters only.
const char kDots[] =
    "HloModule m\n\n"
    "tk {\n  p0 = f32[2,4,3] parameter(0)\n  n = f32[2,4,3] negate(p0)\n"
    "  t = f32[2,3,4]{1,2,0} transpose(n), dimensions={0,2,1}\n"
    "  ROOT c = f32[2,3,4]{2,1,0} copy(t)\n}\n\n"
    "qk {\n  a = f32[2,5,3] parameter(0)\n  b = f32[2,3,4] parameter(1)\n"
    "  ROOT d = f32[2,5,4] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, "
    "rhs_batch_dims={0}, rhs_contracting_dims={1}\n}\n\n"
    "qk1 {\n  a = f32[2,5,3] parameter(0)\n  b = f32[2,3,4] parameter(1)\n"
    "  ROOT d = f32[2,5,4] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, "
    "rhs_batch_dims={0}, rhs_contracting_dims={1}\n}\n\n"
    "ENTRY main {\n  q = f32[2,5,3] parameter(0)\n  k = f32[2,4,3] parameter(1)\n"
    "  v = f32[2,3,4] parameter(2)\n"
    "  kt = f32[2,3,4] fusion(k), kind=kLoop, calls=tk\n"
    "  s = f32[2,5,4] fusion(q, kt), kind=kCustom, calls=qk\n"
    "  u = f32[2,5,4] fusion(q, v), kind=kCustom, calls=qk1\n"
    "  ROOT r = (f32[2,5,4], f32[2,5,4]) tuple(s, u)\n}\n";

TEST_CASE("defuser, hlo-run's options: a one-dot fusion reading a transpose", "[defuser]") {
  auto m = ParseTestModule(kDots);
  CHECK(Defuse(*m, [](const Instruction&) { return false; }));
  // kt (op by op) and s (one dot of its copy of a transpose) are defused;
  // u's dot reads parameters and stays fused.
  CHECK(EntryFusions(*m) == 1);
  const std::set<std::string> names = EntryNames(*m);
  CHECK(names.count("u") == 1);
  CHECK(names.count("d") == 1);
  CHECK(names.count("c") == 1);
  CHECK(m->FindComputation("qk") == nullptr);
  CHECK(m->FindComputation("qk1") != nullptr);
}

// XLA's threefry loop body: two sibling fusions compute the same rounds
// (x + y, its rotation, the xor) before their own last ops; a third reads
// the same operands but computes nothing the others do. `small` is the
// same pair over u32[4,2] (below kMinSharedElements).
std::string SharingSiblings(const std::string& dims) {
  const std::string t = "u32[" + dims + "]";
  std::string rounds =
      "  a = " + t + " add(p0, p1)\n  k = u32[] constant(13)\n  kb = " + t +
      " broadcast(k), dimensions={}\n  l = " + t + " shift-left(p1, kb)\n  j = u32[] " +
      "constant(19)\n  jb = " + t + " broadcast(j), dimensions={}\n  r = " + t +
      " shift-right-logical(p1, jb)\n  o = " + t + " or(l, r)\n  x = " + t + " xor(a, o)\n";
  return "HloModule m\n\nfirst {\n  p0 = " + t + " parameter(0)\n  p1 = " + t + " parameter(1)\n" +
         rounds + "  ROOT s = " + t + " add(a, x)\n}\n\nsecond {\n  p0 = " + t +
         " parameter(0)\n  p1 = " + t + " parameter(1)\n" + rounds + "  ROOT m = " + t +
         " multiply(x, p0)\n}\n\nthird {\n  p0 = " + t + " parameter(0)\n  p1 = " + t +
         " parameter(1)\n  d = " + t + " subtract(p0, p1)\n  ROOT e = " + t +
         " multiply(d, d)\n}\n\nENTRY main {\n  x0 = " + t + " parameter(0)\n  x1 = " + t +
         " parameter(1)\n  f = " + t + " fusion(x0, x1), kind=kLoop, calls=first\n  g = " + t +
         " fusion(x0, x1), kind=kLoop, calls=second\n  h = " + t +
         " fusion(x0, x1), kind=kLoop, calls=third\n  ROOT t = (" + t + ", " + t + ", " + t +
         ") tuple(f, g, h)\n}\n";
}

TEST_CASE("defuser, hlo-run's options: sibling fusions that compute the same rounds", "[defuser]") {
  auto defuse = [](Module& m) {
    DefuserOptions options;
    options.reduce_producers_over = int64_t{1} << 14;
    options.keep_names = true;
    options.runs_as_one_loop = [](const Instruction&) { return true; };
    options.defuse_sharing_siblings = true;
    absl::StatusOr<bool> changed = CreateDefuser(options)->Run(m);
    REQUIRE(changed.ok());
    return *changed;
  };
  auto large = ParseTestModule(SharingSiblings("64,64"));
  CHECK(defuse(*large));
  // f and g are defused (cse then makes the rounds once), h stays.
  CHECK(EntryFusions(*large) == 1);
  const std::set<std::string> names = EntryNames(*large);
  CHECK(names.count("h") == 1);
  CHECK(names.count("s") == 1);
  CHECK(names.count("m") == 1);
  // Over u32[4,2] the rounds cost less than the defused instructions would.
  auto small = ParseTestModule(SharingSiblings("4,2"));
  CHECK_FALSE(defuse(*small));
  CHECK(EntryFusions(*small) == 3);
}

TEST_CASE("defuser, the registry's pass: every fusion, under fresh names", "[defuser]") {
  auto m = ParseTestModule(BatchNormVariance("64,512", "512"));
  absl::StatusOr<bool> changed = CreateDefuser()->Run(*m);
  REQUIRE(changed.ok());
  CHECK(*changed);
  CHECK(EntryFusions(*m) == 0);
  CHECK(EntryNames(*m).count("src") == 0);  // fresh names
  CHECK(m->FindComputation("centre") == nullptr);
}

}  // namespace
}  // namespace hlo

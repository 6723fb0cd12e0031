// Tests for call-inliner's options as hlo-run's fused mode runs it
// (CallInlinerOptions): names kept where a callee has one caller and the
// caller has no instruction of that name, and the calls whose copies could
// compute something else in hlo-run left alone. The registry's pass is
// covered by testdata/passes/call_inliner.hlo.
#include <catch2/catch.hpp>
#include <memory>
#include <set>
#include <string>

#include "parser/parse_test_util.h"
#include "passes/passes.h"

namespace hlo {
namespace {

CallInlinerOptions RunOptions() {
  CallInlinerOptions options;
  options.keep_names = true;
  options.same_results_only = true;
  return options;
}

bool Inline(Module& m, CallInlinerOptions options) {
  absl::StatusOr<bool> changed = CreateCallInliner(options)->Run(m);
  REQUIRE(changed.ok());
  return *changed;
}

std::set<std::string> EntryNames(const Module& m) {
  std::set<std::string> names;
  for (const auto& inst : m.entry()->instructions()) names.emplace(inst->name());
  return names;
}

bool EntryNamesUnique(const Module& m) {
  return EntryNames(m).size() == m.entry()->instructions().size();
}

int64_t EntryCalls(const Module& m) { return m.entry()->CountOf(Opcode::kCall); }

// %f is called once, %g twice; main already has an instruction named `s`.
const char kCalls[] =
    "HloModule m\n\n"
    "f {\n  x = f32[3] parameter(0)\n  m = f32[3] multiply(x, x)\n"
    "  ROOT s = f32[3] add(m, x)\n}\n\n"
    "g {\n  x = f32[3] parameter(0)\n  ROOT n = f32[3] negate(x)\n}\n\n"
    "ENTRY main {\n  p = f32[3] parameter(0)\n  s = f32[3] abs(p)\n"
    "  a = f32[3] call(s), to_apply=f\n  b = f32[3] call(a), to_apply=g\n"
    "  c = f32[3] call(b), to_apply=g\n  ROOT t = (f32[3], f32[3]) tuple(a, c)\n}\n";

TEST_CASE("call-inliner, hlo-run's options: a callee with one caller keeps its names",
          "[call_inliner]") {
  auto m = ParseTestModule(kCalls);
  REQUIRE(Inline(*m, RunOptions()));
  CHECK(EntryCalls(*m) == 0);
  CHECK(m->FindComputation("f") == nullptr);
  CHECK(m->FindComputation("g") == nullptr);
  const std::set<std::string> names = EntryNames(*m);
  // f's `m` keeps its name; its `s` cannot (main has one); g's `n`, copied
  // twice, takes fresh names both times.
  CHECK(names.count("m") == 1);
  CHECK(names.count("s") == 1);
  CHECK(names.count("n") == 0);
  CHECK(EntryNamesUnique(*m));
}

TEST_CASE("call-inliner, registry's options: every copy takes a fresh name", "[call_inliner]") {
  auto m = ParseTestModule(kCalls);
  REQUIRE(Inline(*m, CallInlinerOptions{}));
  CHECK(EntryCalls(*m) == 0);
  CHECK(EntryNames(*m).count("m") == 0);
  CHECK(EntryNamesUnique(*m));
}

TEST_CASE("call-inliner, hlo-run's options: names kept through nested calls", "[call_inliner]") {
  auto m = ParseTestModule(
      "HloModule m\n\n"
      "inner {\n  x = f32[] parameter(0)\n  ROOT e = f32[] exponential(x)\n}\n\n"
      "outer {\n  x = f32[] parameter(0)\n  c = f32[] call(x), to_apply=inner\n"
      "  ROOT l = f32[] log(c)\n}\n\n"
      "ENTRY main {\n  p = f32[] parameter(0)\n  ROOT r = f32[] call(p), to_apply=outer\n}\n");
  REQUIRE(Inline(*m, RunOptions()));
  CHECK(EntryCalls(*m) == 0);
  CHECK(EntryNames(*m) == std::set<std::string>{"p", "e", "l"});
  CHECK(m->entry()->root()->name() == "l");
}

TEST_CASE("call-inliner, hlo-run's options: calls that could compute otherwise stay",
          "[call_inliner]") {
  // rng reads and advances the run's state in evaluation order; an elided
  // constant's values come from its name, which a second copy cannot keep.
  const std::string text =
      "HloModule m\n\n"
      "noise {\n  lo = f32[] parameter(0)\n  hi = f32[] constant(1)\n"
      "  ROOT r = f32[3] rng(lo, hi), distribution=rng_uniform\n}\n\n"
      "weights {\n  x = f32[3] parameter(0)\n  w = f32[3] constant({...})\n"
      "  ROOT y = f32[3] multiply(x, w)\n}\n\n"
      "once {\n  x = f32[3] parameter(0)\n  k = f32[3] constant({...})\n"
      "  ROOT z = f32[3] add(x, k)\n}\n\n"
      "clash {\n  x = f32[3] parameter(0)\n  n = f32[3] constant({...})\n"
      "  ROOT z = f32[3] add(x, n)\n}\n\n"
      "ENTRY main {\n  p = f32[] parameter(0)\n  n = f32[3] call(p), to_apply=noise\n"
      "  a = f32[3] call(n), to_apply=weights\n  b = f32[3] call(a), to_apply=weights\n"
      "  c = f32[3] call(b), to_apply=once\n"
      "  ROOT d = f32[3] call(c), to_apply=clash\n}\n";
  auto m = ParseTestModule(text);
  REQUIRE(Inline(*m, RunOptions()));
  // noise and weights stay called, and clash (main has an `n`, so its
  // constant could not keep its name); once goes, its constant keeping `k`.
  CHECK(EntryCalls(*m) == 4);
  CHECK(m->FindComputation("clash") != nullptr);
  CHECK(m->FindComputation("once") == nullptr);
  CHECK(EntryNames(*m).count("k") == 1);
  // The registry's pass inlines them all.
  auto all = ParseTestModule(text);
  REQUIRE(Inline(*all, CallInlinerOptions{}));
  CHECK(EntryCalls(*all) == 0);
}

TEST_CASE("call-inliner: shard_map bodies and calls with a backend_config stay, as XLA keeps them",
          "[call_inliner]") {
  for (CallInlinerOptions options : {CallInlinerOptions{}, RunOptions()}) {
    auto m = ParseTestModule(
        "HloModule m\n\n"
        "xla.sdy.manual_computation_body.1 {\n  x = f32[2] parameter(0)\n"
        "  ROOT n = f32[2] negate(x)\n}\n\n"
        "shmap_body.2 {\n  x = f32[2] parameter(0)\n  ROOT n = f32[2] abs(x)\n}\n\n"
        "plain {\n  x = f32[2] parameter(0)\n  ROOT n = f32[2] sine(x)\n}\n\n"
        "ENTRY main {\n  p = f32[2] parameter(0)\n"
        "  a = f32[2] call(p), to_apply=xla.sdy.manual_computation_body.1\n"
        "  b = f32[2] call(a), to_apply=shmap_body.2\n"
        "  ROOT c = f32[2] call(b), to_apply=plain, backend_config=\"x\"\n}\n");
    CHECK_FALSE(Inline(*m, options));
    CHECK(EntryCalls(*m) == 3);
  }
}

}  // namespace
}  // namespace hlo

// Tests for the pass pipeline: the --passes syntax, fixed-point groups and
// their bound, and the linear dead-code removal on long chains.
#include "passes/pipeline.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>

#include "ir/strings.h"
#include "parser/parser.h"
#include "passes/dead_code.h"

namespace hlo {
namespace {

std::string ErrorOf(std::string_view spec) {
  auto p = BuildPipeline(spec);
  return p.ok() ? std::string() : std::string(p.status().message());
}

TEST_CASE("pass registry: each name once, the pass's own, listed in the README", "[pipeline]") {
  std::ifstream in(std::string(HLO_SOURCE_DIR) + "/README.md");
  std::stringstream readme;
  readme << in.rdbuf();
  REQUIRE(readme.str().size() > 1000);
  std::set<std::string> seen;
  for (const PassInfo& info : AllPasses()) {
    INFO(info.name);
    CHECK(seen.insert(info.name).second);
    std::unique_ptr<Pass> pass = CreatePass(info.name);
    REQUIRE(pass != nullptr);
    CHECK(pass->name() == info.name);
    CHECK(!pass->description().empty());
    // README's pass list: "| `name` | description |".
    CHECK(readme.str().find("| `" + info.name + "` | " + std::string(pass->description()) + " |") !=
          std::string::npos);
  }
  CHECK(seen.size() == 17);
}

TEST_CASE("pipeline spec: lists, groups and errors", "[pipeline]") {
  CHECK(BuildPipeline("").ok());
  CHECK(BuildPipeline("dce,cse").ok());
  CHECK(BuildPipeline(" dce , fixed-point( cse , fixed-point(dce) ), tuple-simplifier").ok());
  CHECK(BuildPipeline(kDefaultPipeline).ok());
  CHECK(ErrorOf("dce,nope").find("unknown pass 'nope'") != std::string::npos);
  CHECK(ErrorOf("fixed-point(dce").find("missing ')'") != std::string::npos);
  CHECK(ErrorOf("dce)").find("unexpected ')'") != std::string::npos);
  CHECK(ErrorOf("fixed-point()").find("empty") != std::string::npos);
  CHECK(ErrorOf("dce(cse)").find("only fixed-point") != std::string::npos);
}

// Says "changed" for its first `changes` runs.
class CountingPass : public Pass {
 public:
  CountingPass(int changes, int* runs) : changes_(changes), runs_(runs) {}
  std::string_view name() const override { return "counting"; }
  std::string_view description() const override { return "counts its runs"; }
  absl::StatusOr<bool> Run(Module&) override { return ++*runs_ <= changes_; }

 private:
  int changes_;
  int* runs_;
};

int RunsOfFixedPoint(int changes) {
  int runs = 0;
  Pipeline group;
  group.Add(std::make_unique<CountingPass>(changes, &runs));
  Pipeline pipeline;
  pipeline.AddFixedPoint(std::move(group));
  Module module("m");
  REQUIRE(pipeline.Run(module).ok());
  return runs;
}

TEST_CASE("fixed-point groups repeat until nothing changes, within the bound", "[pipeline]") {
  CHECK(RunsOfFixedPoint(0) == 1);
  CHECK(RunsOfFixedPoint(3) == 4);  // three changes, then one quiet round
  CHECK(RunsOfFixedPoint(1000) == kFixedPointBound);
}

// Runs of two counting passes in one fixed-point group.
std::pair<int, int> RunsOfGroup(int changes_a, int changes_b) {
  int runs_a = 0, runs_b = 0;
  Pipeline group;
  group.Add(std::make_unique<CountingPass>(changes_a, &runs_a));
  group.Add(std::make_unique<CountingPass>(changes_b, &runs_b));
  Pipeline pipeline;
  pipeline.AddFixedPoint(std::move(group));
  Module module("m");
  REQUIRE(pipeline.Run(module).ok());
  return {runs_a, runs_b};
}

TEST_CASE("a fixed-point group stops once every pass has run on the unchanged module",
          "[pipeline]") {
  // Nothing changes: one round.
  CHECK(RunsOfGroup(0, 0) == std::pair(1, 1));
  // a changes in round 1; b runs after it unchanged; a's quiet run in round
  // 2 completes the proof, b (which saw this module already) is skipped.
  CHECK(RunsOfGroup(1, 0) == std::pair(2, 1));
  // b changes in round 1: a and b both run again in round 2.
  CHECK(RunsOfGroup(0, 1) == std::pair(2, 2));
  // a changes in rounds 1 and 2; b's quiet round-2 run comes after a's last
  // change, so a's quiet round-3 run ends the group.
  CHECK(RunsOfGroup(2, 0) == std::pair(3, 2));
}

TEST_CASE("dead code: a long dead chain goes in one linear sweep", "[pipeline]") {
  // 20000 chained negates nothing uses, beside a live root.
  std::string text = "HloModule m\n\nENTRY %e (p: f32[]) -> f32[] {\n  %p = f32[] parameter(0)\n";
  std::string prev = "p";
  for (int i = 0; i < 20000; ++i) {
    std::string name = StrCat("n", i);
    StrAppend(&text, "  %", name, " = f32[] negate(%", prev, ")\n");
    prev = name;
  }
  text += "  ROOT %r = f32[] abs(%p)\n}\n";
  auto module = ParseModule(text, ParseOptions{"chain"});
  REQUIRE(module.ok());
  Computation& entry = *(*module)->entry();
  CHECK(RemoveAllDead(entry) == 20000);
  CHECK(entry.instruction_count() == 2);
  CHECK(RemoveAllDead(entry) == 0);
}

}  // namespace
}  // namespace hlo

namespace hlo {
namespace {

// Users and operands mirror each other: U is among O's users exactly once
// when O is among U's operands.
void CheckUseLists(const Computation& comp) {
  for (const auto& inst : comp.instructions()) {
    for (const Instruction* op : inst->operands()) {
      auto users = op->users();
      CHECK(std::count(users.begin(), users.end(), inst.get()) == 1);
    }
    for (const Instruction* user : inst->users()) {
      auto ops = user->operands();
      CHECK(std::find(ops.begin(), ops.end(), inst.get()) != ops.end());
    }
  }
}

TEST_CASE("cse on a wide fan-out keeps the use lists exact", "[pipeline]") {
  // 3000 identical broadcasts of one constant, each added to a chain.
  std::string text =
      "HloModule m\n\nENTRY %e (p: f32[4]) -> f32[4] {\n  %p = f32[4]{0} parameter(0)\n"
      "  %c = f32[] constant(1)\n";
  std::string prev = "p";
  for (int i = 0; i < 3000; ++i) {
    StrAppend(&text, "  %b", i, " = f32[4]{0} broadcast(%c), dimensions={}\n");
    StrAppend(&text, "  %a", i, " = f32[4]{0} add(%", prev, ", %b", i, ")\n");
    prev = StrCat("a", i);
  }
  StrAppend(&text, "  ROOT %r = f32[4]{0} add(%", prev, ", %", prev, ")\n}\n");
  auto module = ParseModule(text, ParseOptions{"fan"});
  REQUIRE(module.ok());
  Computation& entry = *(*module)->entry();
  CheckUseLists(entry);
  auto pipeline = BuildPipeline("cse");
  REQUIRE(pipeline.ok());
  REQUIRE(pipeline->Run(**module).ok());
  // p, c, one broadcast, 3000 adds, the root.
  CHECK(entry.instruction_count() == 3004);
  CHECK(entry.root()->operand(0) == entry.root()->operand(1));
  CheckUseLists(entry);
}

}  // namespace
}  // namespace hlo

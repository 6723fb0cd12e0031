// Unit tests of hlo-reduce's parts: target numbering, candidates (clean-up,
// parameters renumbered, verification), the tester's order and cache, the
// subprocess deadline, and argument splitting.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <string>

#include "ir/interrupt.h"
#include "reduce/candidate.h"
#include "reduce/delta.h"
#include "reduce/oracle.h"
#include "reduce/subprocess.h"
#include "reduce/tester.h"

namespace hlo::reduce {
namespace {

constexpr const char* kModule = R"(HloModule m

ENTRY main {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  c = f32[4] parameter(2)
  ROOT l = f32[4] log(b)
}
)";

const DeltaInfo& Find(std::string_view name) {
  for (const DeltaInfo& d : AllDeltas()) {
    if (d.name == name) return d;
  }
  FAIL("no reduction " << name);
  return AllDeltas().front();
}

TEST_CASE("TargetSelector numbers targets and picks a range", "[reduce]") {
  TargetSelector s(1, 3);
  CHECK_FALSE(s.Pick());
  CHECK(s.Pick());
  CHECK(s.Pick());
  CHECK_FALSE(s.Pick());
  CHECK(s.count() == 4);
}

TEST_CASE("Every reduction is named once", "[reduce]") {
  std::vector<std::string_view> names;
  for (const DeltaInfo& d : AllDeltas()) {
    CHECK(std::find(names.begin(), names.end(), d.name) == names.end());
    names.push_back(d.name);
    CHECK(d.create() != nullptr);
  }
  CHECK(names.size() == 20);
}

TEST_CASE("Removing parameters renumbers the rest and the entry layout", "[reduce]") {
  auto delta = Find("unused-parameters").create();
  CHECK(CountTargets(kModule, *delta) == 2);
  auto module = ReadModule(kModule, "m");
  REQUIRE(module.ok());
  PrintStyle style = (*module)->style();
  // Only the second unused parameter (c).
  auto c = MakeCandidate(kModule, *delta, 1, 2, style);
  REQUIRE(c.has_value());
  CHECK(c->text.find("entry_computation_layout={(f32[4]{0}, f32[4]{0})->f32[4]{0}}") !=
        std::string::npos);
  CHECK(c->text.find("b = f32[4]{0} parameter(1)") != std::string::npos);
  CHECK(c->text.find("c = ") == std::string::npos);
  CHECK(c->size.instructions == 3);
  // Both: b is parameter 0.
  auto both = MakeCandidate(kModule, *delta, 0, 2, style);
  REQUIRE(both.has_value());
  CHECK(both->text.find("b = f32[4]{0} parameter(0)") != std::string::npos);
  // Nothing picked: no candidate (the text is the canonical one already).
  const std::string canonical = Canonical(**module, style).text;
  CHECK_FALSE(MakeCandidate(canonical, *delta, 5, 6, style).has_value());
}

TEST_CASE("A changed signature drops the header attributes that number it", "[reduce]") {
  constexpr const char* text =
      R"(HloModule h, input_output_alias={ {}: (1, {}, may-alias) }, allow_spmd_sharding_propagation_to_parameters={true,true}

ENTRY main {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  ROOT l = f32[4] log(b)
}
)";
  auto module = ReadModule(text, "h");
  REQUIRE(module.ok());
  const std::string canonical = Canonical(**module, (*module)->style()).text;
  REQUIRE(canonical.find("input_output_alias") != std::string::npos);
  auto delta = Find("unused-parameters").create();
  auto c = MakeCandidate(canonical, *delta, 0, 1, (*module)->style());
  REQUIRE(c.has_value());
  CHECK(c->text.find("input_output_alias") == std::string::npos);
  CHECK(c->text.find("allow_spmd") == std::string::npos);
  // The log replaced by its operand keeps the signature and the attributes.
  auto keep = Find("operands").create();
  CHECK(CountTargets(canonical, *keep) == 1);
  auto k = MakeCandidate(canonical, *keep, 0, 1, (*module)->style());
  REQUIRE(k.has_value());
  CHECK(k->text.find("input_output_alias") != std::string::npos);
}

TEST_CASE("A candidate that does not verify is dropped", "[reduce]") {
  // The root tuple's elements are targets; a tuple of another computation's
  // root is not (its signature), so nothing here can break verification
  // except through a bug: check the valid one reads back.
  constexpr const char* text = R"(HloModule t

ENTRY main {
  p = f32[2] parameter(0)
  ROOT t = (f32[2], f32[2]) tuple(p, p)
}
)";
  auto delta = Find("tuple-elements").create();
  auto module = ReadModule(text, "t");
  REQUIRE(module.ok());
  auto c = MakeCandidate(text, *delta, 0, 1, (*module)->style());
  REQUIRE(c.has_value());
  CHECK(ReadModule(c->text, "again").ok());
  CHECK(c->text.find("->(f32[2]{0})}") != std::string::npos);
}

class CountingOracle : public Oracle {
 public:
  bool Interesting(const std::string& path, const std::string&) override {
    ++calls;
    FILE* f = std::fopen(path.c_str(), "r");
    char buf[64] = {};
    size_t n = f ? std::fread(buf, 1, sizeof(buf) - 1, f) : 0;
    if (f) std::fclose(f);
    return n > 0 && buf[0] == 'y';
  }
  std::atomic<int> calls{0};
};

TEST_CASE("The tester returns the first interesting candidate and caches", "[reduce]") {
  CountingOracle oracle;
  auto tester = Tester::Create(oracle, 3);
  REQUIRE(tester.ok());
  const std::vector<std::string> texts = {"n0", "n1", "y2", "n3", "y4", "y5"};
  auto make = [&](int64_t i) -> std::optional<Candidate> { return Candidate{texts[i], Size{}}; };
  auto hit = (*tester)->FirstInteresting(6, make);
  REQUIRE(hit.has_value());
  CHECK(hit->first == 2);
  CHECK(hit->second.text == "y2");
  int before = oracle.calls;
  CHECK((*tester)->Test("n0") == false);
  CHECK((*tester)->Test("y2") == true);
  CHECK(oracle.calls == before);  // both from the cache
  auto none = (*tester)->FirstInteresting(2, make);
  CHECK_FALSE(none.has_value());
}

TEST_CASE("A test of a later candidate stops once an earlier one is interesting", "[reduce]") {
  // Candidate 0 is interesting at once; candidate 1's test would sleep for
  // 30 s (below the deadline): it is killed, not waited for.
  auto oracle = MakeScriptOracle("grep -q yes {} || sleep 30", 60);
  auto tester = Tester::Create(*oracle, 2);
  REQUIRE(tester.ok());
  const std::vector<std::string> texts = {"yes", "no"};
  auto make = [&](int64_t i) -> std::optional<Candidate> { return Candidate{texts[i], Size{}}; };
  auto start = std::chrono::steady_clock::now();
  auto hit = (*tester)->FirstInteresting(2, make);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE(hit.has_value());
  CHECK(hit->first == 0);
  CHECK(s < 10);
}

TEST_CASE("A command past its deadline is killed with its group", "[reduce]") {
  auto start = std::chrono::steady_clock::now();
  ProcessResult r =
      RunProcess({"/bin/sh", "-c", "sleep 30 & sleep 30"}, "/tmp/hlo-reduce-test.log", 0.3);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(r.started);
  CHECK(r.timed_out);
  CHECK(s < 5);
  ProcessResult k =
      RunProcess({"/bin/sh", "-c", "echo hi; kill -SEGV $$"}, "/tmp/hlo-reduce-test.log", 10);
  CHECK(k.signal == 11);
  CHECK(k.output == "hi\n");
  ProcessResult e = RunProcess({"/bin/sh", "-c", "exit 3"}, "/tmp/hlo-reduce-test.log", 10);
  CHECK(e.exit_code == 3);
  ProcessResult missing = RunProcess({"/no/such/tool"}, "/tmp/hlo-reduce-test.log", 10);
  CHECK(missing.exit_code == 127);
  std::remove("/tmp/hlo-reduce-test.log");
}

// A stand-in hlo-run in a folder of its own: dies by SIGSEGV on a module
// holding "crash", reports an internal error on "internal", writes a NaN
// into -o's JSON on "nan", and else fails with "bad thing" on "error".
std::string FakeTools() {
  char dir[] = "/tmp/hlo-reduce-fake.XXXXXX";
  REQUIRE(mkdtemp(dir) != nullptr);
  std::string path = std::string(dir) + "/hlo-run";
  FILE* f = std::fopen(path.c_str(), "w");
  REQUIRE(f != nullptr);
  std::fputs(R"(#!/bin/sh
m="$1"; out=""
while [ $# -gt 0 ]; do [ "$1" = -o ] && out="$2"; shift; done
grep -q crash "$m" && kill -SEGV $$
grep -q internal "$m" && { echo "hlo-run: INTERNAL: oops" >&2; exit 1; }
grep -q error "$m" && { echo "hlo-run: error: bad thing" >&2; exit 1; }
if grep -q nan "$m"; then echo '{"data": ["nan"]}' > "$out"; else echo '{"data": [1]}' > "$out"; fi
exit 0
)",
             f);
  std::fclose(f);
  chmod(path.c_str(), 0755);
  return dir;
}

bool Verdict(BuiltinTest test, const std::string& module_text) {
  auto oracle = MakeBuiltinOracle(test, 10);
  REQUIRE(oracle.ok());
  auto tester = Tester::Create(**oracle, 1);
  REQUIRE(tester.ok());
  return (*tester)->Test(module_text);
}

TEST_CASE("The built-in tests read hlo-run's outcome", "[reduce]") {
  BuiltinTest t;
  t.bin_dir = FakeTools();
  t.kind = BuiltinTest::Kind::kCrash;
  CHECK(Verdict(t, "crash"));
  CHECK(Verdict(t, "internal"));
  CHECK_FALSE(Verdict(t, "error"));
  CHECK_FALSE(Verdict(t, "fine"));
  t.kind = BuiltinTest::Kind::kErrorMatches;
  t.pattern = "bad th.ng";
  CHECK(Verdict(t, "error"));
  CHECK_FALSE(Verdict(t, "fine"));
  t.pattern = "other";
  CHECK_FALSE(Verdict(t, "error"));
  t.kind = BuiltinTest::Kind::kNonfinite;
  CHECK(Verdict(t, "nan"));
  CHECK_FALSE(Verdict(t, "fine"));
  CHECK_FALSE(Verdict(t, "crash"));
  t.pattern.assign(1, '(');  // an unbalanced group
  CHECK_FALSE(MakeBuiltinOracle(t, 10).ok());
  interrupt::RemoveTree(t.bin_dir.c_str());
}

TEST_CASE("SplitArgs splits as sh does for words and quotes", "[reduce]") {
  auto a = SplitArgs("--random-inputs  --seed 1 'a b' \"c d\" e\\ f");
  REQUIRE(a.ok());
  CHECK(*a == std::vector<std::string>{"--random-inputs", "--seed", "1", "a b", "c d", "e f"});
  CHECK_FALSE(SplitArgs("'open").ok());
}

}  // namespace
}  // namespace hlo::reduce

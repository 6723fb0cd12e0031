// select-and-scatter-rebuild: XLA's expansion of a max pool's gradient
// becomes one select-and-scatter where the windows are disjoint and
// unpadded, and stays where the expansion is anything else. The module is
// testdata/eval/select_and_scatter_expanded.hlo (whose results the golden
// test checks both ways); here what the pass rewrites, and what it leaves.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>

#include "parser/parse_test_util.h"
#include "passes/passes.h"
#include "passes/verifier.h"

namespace hlo {
namespace {

std::string ExpandedModule() {
  std::ifstream in(HLO_SOURCE_DIR "/testdata/eval/select_and_scatter_expanded.hlo");
  std::stringstream text;
  text << in.rdbuf();
  REQUIRE(!text.str().empty());
  return text.str();
}

std::string Replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

// Runs the pass; the entry's select-and-scatters after it (the module
// verified), and in `direction` the first one's select compare direction.
int64_t Rebuilt(const std::string& text, std::string* direction = nullptr) {
  std::unique_ptr<Module> m = ParseTestModule(text);
  REQUIRE(m != nullptr);
  absl::StatusOr<bool> changed = CreateSelectAndScatterRebuild()->Run(*m);
  REQUIRE(changed.ok());
  REQUIRE(VerifyModule(*m).ok());
  int64_t n = 0;
  for (const auto& inst : m->entry()->instructions()) {
    if (inst->opcode() != Opcode::kSelectAndScatter || inst->users().empty()) continue;
    if (n++ == 0 && direction != nullptr) {
      const Instruction* select = nullptr;
      for (const Attribute& a : inst->attributes()) {
        if (a.kind == AttrKind::kSelect) {
          select = std::get<std::vector<Computation*>>(a.value)[0]->root();
        }
      }
      REQUIRE(select != nullptr);
      *direction = std::string(select->GetString(AttrKind::kDirection));
    }
  }
  REQUIRE(*changed == (n > 0));
  return n;
}

TEST_CASE("XLA's expanded max pool gradient becomes select-and-scatter", "[select_and_scatter]") {
  const std::string text = ExpandedModule();
  std::string direction;
  // The disjoint pool only; the overlapping windows (stride 1) stay.
  CHECK(Rebuilt(text, &direction) == 1);
  CHECK(direction == "GE");
  // The reducer's compare, whichever it is, is the select.
  CHECK(Rebuilt(Replaced(text, "direction=GE", "direction=GT"), &direction) == 1);
  CHECK(direction == "GT");
}

TEST_CASE("Expansions that select-and-scatter would not compute stay", "[select_and_scatter]") {
  const std::string text = ExpandedModule();
  // Another sentinel: the first element is no longer taken unconditionally.
  CHECK(Rebuilt(Replaced(text, "%minus_one = s32[] constant(-1)",
                         "%minus_one = s32[] constant(-2)")) == 0);
  // The index columns not in dimension order (iotas 1 and 2 swapped).
  const std::string swapped =
      Replaced(Replaced(Replaced(text, "iota_dimension=1", "iota_dimension=X"), "iota_dimension=2",
                        "iota_dimension=1"),
               "iota_dimension=X", "iota_dimension=2");
  CHECK(Rebuilt(swapped) == 0);
  // The accumulator's and the candidate's sentinel tests the other way round.
  CHECK(Rebuilt(Replaced(text, "and(%ge.0, %compare.1)", "and(%ge.0, %compare.2)")) == 0);
}

}  // namespace
}  // namespace hlo

// The custom-call registry (eval/custom_call.cc) against README's table of
// the targets hlo-run implements: each name once, each with a handler and a
// description, and the table's rows exactly the registry's.
#include "eval/custom_call.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ir/strings.h"

namespace hlo {
namespace {

// The concrete names of an entry: each form with '?' replaced by each letter.
std::vector<std::string> Expand(const CustomCallTargetInfo& info) {
  std::vector<std::string> out;
  for (const std::string& form : info.names) {
    const size_t q = form.find('?');
    if (q == std::string::npos) {
      out.push_back(form);
      continue;
    }
    for (char letter : info.types) {
      std::string name = form;
      name[q] = letter;
      out.push_back(name);
    }
  }
  return out;
}

// README's row for an entry: "| `a`, `b` | types | description |".
std::string Row(const CustomCallTargetInfo& info) {
  std::string names;
  for (const std::string& n : info.names) StrAppend(&names, names.empty() ? "" : ", ", "`", n, "`");
  return StrCat("| ", names, " | ", info.types, " | ", info.description, " |");
}

// The rows of README's custom-call table, without header and separator.
std::vector<std::string> ReadmeRows() {
  std::ifstream in(std::string(HLO_SOURCE_DIR) + "/README.md");
  std::vector<std::string> rows;
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    const size_t start = line.find_first_not_of(' ');
    const std::string text = start == std::string::npos ? "" : line.substr(start);
    if (text.starts_with("| custom-call target |")) {
      inside = true;
      continue;
    }
    if (!inside) continue;
    if (!text.starts_with("|")) break;
    if (!text.starts_with("| ---")) rows.push_back(text);
  }
  return rows;
}

TEST_CASE("custom-call registry: each name once, with a handler and a line", "[custom_call]") {
  std::set<std::string> seen;
  for (const CustomCallTargetInfo& info : ListCustomCallTargets()) {
    INFO(Row(info));
    REQUIRE(!info.names.empty());
    CHECK(!info.description.empty());
    for (const std::string& form : info.names) {
      // A '?' exactly when there are letters for it.
      CHECK((form.find('?') != std::string::npos) == !info.types.empty());
    }
    for (const std::string& name : Expand(info)) {
      INFO(name);
      CHECK(seen.insert(name).second);
      CHECK(HasCustomCallHandler(name));
    }
  }
  CHECK(seen.size() > 100);
  // Names outside the list have no handler: other letters, forms and targets.
  for (const char* name :
       {"lapack_corgqr_ffi", "lapack_sungqr_ffi", "lapack_sgeqp3", "lapack_strsm", "blas_strsm_ffi",
        "lapack_xpotrf_ffi", "topk", "xla.sdy.Unknown", ""}) {
    INFO(name);
    CHECK(!seen.contains(name));
    CHECK(!HasCustomCallHandler(name));
  }
}

TEST_CASE("custom-call registry: README's table lists exactly the registry", "[custom_call]") {
  const std::vector<std::string> readme = ReadmeRows();
  std::vector<std::string> registry;
  for (const CustomCallTargetInfo& info : ListCustomCallTargets()) registry.push_back(Row(info));
  CHECK(readme == registry);
}

}  // namespace
}  // namespace hlo

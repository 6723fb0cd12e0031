// The format registry (tools/formats.h) against README: its table of
// formats and the tools' synopses list exactly the registry's names, each
// once; the lookups by name and by extension agree with the tables.
#include "tools/formats.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ir/hlo_graphviz.h"
#include "ir/strings.h"
#include "parser/parser.h"

namespace hlo {
namespace {

std::string Readme() {
  std::ifstream in(std::string(HLO_SOURCE_DIR) + "/README.md");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The rows of README's format table, without header and separator.
std::vector<std::string> ReadmeRows(const std::string& readme) {
  std::istringstream in(readme);
  std::vector<std::string> rows;
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    const size_t start = line.find_first_not_of(' ');
    const std::string text = start == std::string::npos ? "" : line.substr(start);
    if (text.starts_with("| format | flags |")) {
      inside = true;
      continue;
    }
    if (!inside) continue;
    if (!text.starts_with("|")) break;
    if (!text.starts_with("| ---")) rows.push_back(text);
  }
  return rows;
}

std::string Row(std::string_view name, std::string_view flags, std::string_view extension,
                std::string_view description) {
  return StrCat("| `", name, "` | ", flags, " | ",
                extension.empty() ? std::string() : StrCat("`", extension, "`"), " | ", description,
                " |");
}

std::vector<std::string> RegistryRows() {
  std::vector<std::string> rows;
  for (const ModuleFormat& f : ModuleFormats()) {
    std::string flags = f.read ? "`--input-format`" : "";
    if (f.write) StrAppend(&flags, flags.empty() ? "" : ", ", "`--emit`");
    rows.push_back(Row(f.name, flags, f.extension, f.description));
  }
  for (const ResultFormat& f : ResultFormats()) {
    rows.push_back(Row(f.name, "`--output-format`", f.extension, f.description));
  }
  return rows;
}

TEST_CASE("formats: each name once, described, found by name", "[formats]") {
  std::set<std::string_view> modules, results;
  for (const ModuleFormat& f : ModuleFormats()) {
    INFO(f.name);
    CHECK(modules.insert(f.name).second);
    CHECK(!f.description.empty());
    CHECK((f.read != nullptr || f.write != nullptr));
    CHECK(FindModuleFormat(f.name) == &f);
  }
  for (const ResultFormat& f : ResultFormats()) {
    INFO(f.name);
    CHECK(results.insert(f.name).second);
    CHECK(!f.description.empty());
    CHECK(f.write != nullptr);
    CHECK(FindResultFormat(f.name) == &f);
  }
  CHECK(FindModuleFormat("HLO") == nullptr);
  CHECK(FindResultFormat("") == nullptr);
}

TEST_CASE("formats: the format of a file's name", "[formats]") {
  // hlo-opt: a .json input is module JSON, anything else HLO text.
  CHECK(ModuleFormatOfFile("m.json").name == "json");
  CHECK(ModuleFormatOfFile("m.hlo").name == "hlo");
  CHECK(ModuleFormatOfFile("-").name == "hlo");
  CHECK(ModuleFormatOfFile("json").name == "hlo");
  // hlo-run's -o: .npy, .json and .txt name their formats; others none.
  CHECK(ResultFormatOfPath("r.npy")->name == "npy");
  CHECK(ResultFormatOfPath("r.json")->name == "json");
  CHECK(ResultFormatOfPath("r.txt")->name == "text");
  CHECK(ResultFormatOfPath("out") == nullptr);
  CHECK(ResultFormatOfPath("-") == nullptr);
}

// A reader and a writer of the shapes a new format brings (formats.h).
absl::StatusOr<std::unique_ptr<Module>> ReadOne(std::string_view text, std::string_view filename) {
  return ParseModule(text, ParseOptions{std::string(filename)});
}

TEST_CASE("formats: a whole-input reader and a module writer join through the adapters",
          "[formats]") {
  constexpr ModuleFormat kNew{
      "new", "a format", ".new", &ReadWhole<&ReadOne>, &WriteWith<&PrintGraphviz>, "\n"};
  const std::string text = "HloModule m\nENTRY e {\n  ROOT c = f32[] constant(1)\n}\n";
  auto parsers = kNew.read(ModuleSource{text, "in.new", "tool"});
  REQUIRE(parsers.ok());
  REQUIRE(parsers->size() == 1);
  auto m = (*parsers)[0]();
  REQUIRE(m.ok());
  CHECK((*m)->name() == "m");
  auto written = kNew.write(**m, ModuleWriteOptions{});
  REQUIRE(written.ok());
  CHECK(written->starts_with("digraph"));
  auto bad = kNew.read(ModuleSource{"HloModule", "in.new", "tool"});
  REQUIRE(bad.ok());
  auto failed = (*bad)[0]();
  REQUIRE(!failed.ok());
  CHECK(std::string(failed.status().message()).find("in.new:") != std::string::npos);
}

TEST_CASE("formats: README's table and synopses list exactly the registry", "[formats]") {
  const std::string readme = Readme();
  REQUIRE(readme.size() > 1000);
  CHECK(ReadmeRows(readme) == RegistryRows());
  for (const std::string& flag :
       {StrCat("[--emit=", StrJoin(ModuleFormatNames(true), "|"), "]"),
        StrCat("[--input-format=", StrJoin(ModuleFormatNames(false), "|"), "]"),
        StrCat("[--output-format=", StrJoin(ResultFormatNames(), "|"), "]")}) {
    INFO(flag);
    CHECK(readme.find(flag) != std::string::npos);
  }
}

}  // namespace
}  // namespace hlo

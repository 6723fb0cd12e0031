#include "ir/module_json.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "ir/hlo_printer.h"
#include "parser/parser.h"
#include "passes/shape_inference.h"

namespace hlo {
namespace {

using J = nlohmann::ordered_json;

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::filesystem::path> ParserCorpus() {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(HLO_SOURCE_DIR) /
                                                           "testdata" / "parser")) {
    std::string name = e.path().filename().string();
    bool hlo = name.size() > 4 && name.substr(name.size() - 4) == ".hlo";
    bool expected = name.find(".expected.hlo") != std::string::npos;
    if (hlo && !expected) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Print, JSON round trip, print again: the same text, and the JSON of the
// re-read module is the same JSON (a fixed point).
void CheckRoundTrip(Module& m, const std::string& where) {
  INFO(where);
  std::string printed = PrintModule(m);
  std::string json = ModuleToJson(m);
  auto back = ModuleFromJson(json, "test.json");
  REQUIRE(back.ok());
  CHECK(PrintModule(**back) == printed);
  CHECK(ModuleToJson(**back) == json);
}

TEST_CASE("module JSON round trip keeps every parser corpus file", "[module_json]") {
  std::vector<std::filesystem::path> files = ParserCorpus();
  REQUIRE(files.size() > 50);
  for (const auto& path : files) {
    auto modules = ParseModules(ReadFile(path), ParseOptions{path.string(), &InferShape});
    INFO(path.string());
    REQUIRE(modules.ok());
    std::string stream;
    for (auto& m : *modules) {
      CheckRoundTrip(*m, path.filename().string());
      stream += ModuleToJson(*m) + "\n\n";
    }
    // What hlo-opt writes for a multi-module file reads back module by
    // module, and so does a JSON array of the modules.
    std::string array = "[" + stream + "]";
    for (size_t p = array.find("}\n\n{"); p != std::string::npos; p = array.find("}\n\n{", p)) {
      array[p + 1] = ',';
    }
    for (const std::string& input : {stream, array}) {
      auto all = ModulesFromJson(input, "test.json");
      REQUIRE(all.ok());
      REQUIRE(all->size() == modules->size());
      for (size_t i = 0; i < all->size(); ++i) {
        CHECK(PrintModule(*(*all)[i]) == PrintModule(*(*modules)[i]));
      }
    }
  }
}

TEST_CASE("module JSON keeps bytes, NaN payloads and exact values", "[module_json]") {
  const char* text = R"(HloModule m, replica_count=2

ENTRY %main (x: c128[2]) -> c128[2] {
  %x = c128[2]{0} parameter(0), metadata={op_name="a\377b" source_line=3}
  %c = c128[2]{0} constant({(-nan, 1), (0.1, -0)})
  %f = f16[3]{0} constant({-nan, 0.1, 65504})
  %u = u64[2]{0} constant({18446744073709551615, 0})
  %s = s64[2]{0} constant({-9223372036854775808, 9223372036854775807})
  %b = bf16[2]{0} constant({nan, -inf})
  %t = (f32[], pred[]) custom-call(), custom_call_target="t", literal=( f32[] -nan, pred[] true )
  ROOT %out = c128[2]{0} add(c128[2]{0} %x, c128[2]{0} %c)
}
)";
  auto m = ParseModule(text);
  REQUIRE(m.ok());
  CheckRoundTrip(**m, "inline");
  J j = J::parse(ModuleToJson(**m));
  const J& insts = j["computations"][0]["instructions"];
  CHECK(insts[0]["attributes"][0]["value"][0]["value"] == J{{"hex", "61ff62"}});
  CHECK(insts[1]["literal"]["values"][0] == J::array({"nan", 1.0}));
  CHECK(insts[1]["literal"].contains("bits"));
  CHECK(insts[3]["literal"]["values"][0].get<uint64_t>() == UINT64_MAX);
  CHECK(insts[4]["literal"]["values"][0].get<int64_t>() == INT64_MIN);
  CHECK(!insts[5]["literal"].contains("bits"));  // default NaN: no bits needed
  CHECK(j["replica_count"] == 2);
}

// Malformed documents: a clean error naming the place, never a crash.
std::string ErrorOf(const std::string& json) {
  auto m = ModuleFromJson(json, "bad.json");
  if (m.ok()) return "OK";
  return std::string(m.status().message());
}

J Valid() {
  auto m = ParseModule(R"(HloModule m

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  p = f32[4]{0} parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add
}
)");
  REQUIRE(m.ok());
  return J::parse(ModuleToJson(**m));
}

TEST_CASE("module JSON rejects malformed input cleanly", "[module_json]") {
  std::string prefix = "bad.json: error: module JSON: ";
  auto expect = [&](const std::string& json, const std::string& where, const std::string& what) {
    std::string err = ErrorOf(json);
    INFO(err);
    CHECK(err.rfind(prefix + where + ": ", 0) == 0);
    CHECK(err.find(what) != std::string::npos);
  };
  expect("", "/", "no module");
  expect("[]", "/", "no module");
  expect("{\"format\":", "line 1, column 11", "syntax error");
  expect("[1, 2]", "/0", "expected an object");
  expect(std::string(200000, '[') + std::string(200000, ']'), "/0", "expected an object");
  J ok = Valid();
  CHECK(ErrorOf(ok.dump()) == "OK");

  auto mutate = [&](auto f) {
    J j = Valid();
    f(j);
    return j.dump();
  };
  const std::string entry = "/computations/1/instructions/";
  expect(mutate([](J& j) { j["format"] = "x"; }), "/format", "hlo-module-json");
  expect(mutate([](J& j) { j["extra"] = 1; }), "/", "unknown field 'extra'");
  expect(mutate([](J& j) { j["computations"][1]["instructions"][2]["opcode"] = "reduce-it"; }),
         entry + "2/opcode", "does not match");
  expect(mutate([](J& j) {
           J& i = j["computations"][1]["instructions"][2];
           i.erase("base_opcode");
           i["opcode"] = "frobnicate";
         }),
         entry + "2/opcode", "unknown opcode 'frobnicate'");
  expect(mutate([](J& j) {
           j["computations"][1]["instructions"][2]["attributes"][0]["name"] = "dims";
         }),
         entry + "2/attributes/0/name", "unknown attribute 'dims'");
  expect(
      mutate([](J& j) { j["computations"][1]["instructions"][2]["attributes"][0]["value"] = "0"; }),
      entry + "2/attributes/0/value", "expected an array");
  expect(mutate([](J& j) { j["computations"][1]["instructions"][2]["operands"][0] = "q"; }),
         entry + "2/operands/0", "no instruction of this computation is named 'q'");
  expect(mutate([](J& j) {
           j["computations"][1]["instructions"][2]["attributes"][1]["value"] = "mul";
         }),
         entry + "2/attributes/1/value", "no computation is named 'mul'");
  expect(mutate([](J& j) { j["computations"][1]["instructions"][1]["name"] = "p"; }),
         entry + "1/name", "duplicate instruction name 'p'");
  expect(mutate([](J& j) { j["computations"][1]["root"] = "nothing"; }), "/computations/1/root",
         "no instruction");
  expect(mutate([](J& j) { j["computations"][0]["is_entry"] = true; }), "/computations/1/is_entry",
         "more than one entry");
  expect(mutate([](J& j) {
           J& s = j["computations"][0]["instructions"][0]["shape_structure"];
           s["dims"] = {2};
           s["dynamic"] = {false};
           s.erase("layout");
         }),
         "/computations/0/instructions/0/shape", "does not match");
  expect(mutate([](J& j) {
           J& s = j["computations"][1]["instructions"][0]["shape_structure"];
           s["layout"]["minor_to_major"] = {1};
         }),
         entry + "0/shape_structure/layout/minor_to_major", "not a permutation");
  expect(mutate([](J& j) {
           J& c = j["computations"][1]["instructions"][1];
           c["shape"] = "f32[1000000000000]{0}";
           c["shape_structure"] = {{"element_type", "f32"}, {"dims", {1000000000000}}};
         }),
         entry + "1/shape", "does not match");
  expect(mutate([](J& j) {
           J& c = j["computations"][1]["instructions"][1];
           c.erase("shape");
           c["shape_structure"] = {{"element_type", "f32"}, {"dims", {1000000000000}}};
         }),
         entry + "1/literal/values", "has 1 values but shape f32[1000000000000] has");
  expect(mutate([](J& j) {
           J& c = j["computations"][1]["instructions"][1];
           c.erase("shape");
           c["shape_structure"] = {{"element_type", "s8"}, {"dims", J::array()}};
           c["literal"]["values"] = {300};
         }),
         entry + "1/literal/values/0", "out of range for s8");
  expect(mutate([](J& j) {
           j["computations"][1]["instructions"][2]["operands"][1] = "r";  // r uses itself
         }),
         entry + "2", "depends on itself");
  expect(mutate([](J& j) { j["computations"][1]["instructions"][0]["parameter_number"] = 1; }),
         "/computations/1/instructions", "has no parameter(0)");
  expect(mutate([](J& j) { j["computations"][1]["instructions"][2]["attributes"].erase(1); }),
         entry + "2", "needs the attribute 'to_apply'");
  expect(mutate([](J& j) { j["name"] = {{"hex", "4"}}; }), "/name/hex", "even number");
  expect(mutate([](J& j) { j["version"] = "1"; }), "/version", "expected a 64-bit integer");
  expect(ok.dump() + " " + ok.dump(), "/", "holds 2 modules");

  // Deep nesting is refused, not a stack overflow.
  J deep = Valid();
  deep["computations"][0]["instructions"][0].erase("shape");
  deep["computations"][0]["instructions"][0]["shape_structure"] = "DEEP";
  std::string tuple;
  for (int i = 0; i < 100000; ++i) tuple += R"({"tuple":[)";
  tuple += R"({"element_type":"f32","dims":[]})";
  for (int i = 0; i < 100000; ++i) tuple += "]}";
  std::string text = deep.dump();
  text.replace(text.find("\"DEEP\""), 6, tuple);
  std::string err = ErrorOf(text);
  CHECK(err.rfind(prefix + "/computations/0/instructions/0/shape_structure/tuple/0/", 0) == 0);
  CHECK(err.find(": shape is nested too deeply") != std::string::npos);

  // In a stream of modules, errors say which module.
  auto two = ModulesFromJson(ok.dump() + "\n\n" + mutate([](J& j) { j.erase("name"); }), "s.json");
  REQUIRE(!two.ok());
  CHECK(std::string(two.status().message()) ==
        "s.json: error: module JSON: document 2: /: missing field 'name'");
}

}  // namespace
}  // namespace hlo

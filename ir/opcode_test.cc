// The opcode table (ir/opcode.h) against XLA's list: testdata/xla-opcodes.txt,
// written from XLA's xla/hlo/ir/hlo_opcode.h by scripts/xla_opcodes.py.
#include "ir/opcode.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

namespace hlo {
namespace {

// XLA's opcodes: text name -> operand count ("variadic" or a number).
std::map<std::string, std::string> XlaOpcodes() {
  std::map<std::string, std::string> rows;
  std::ifstream in(HLO_SOURCE_DIR "/testdata/xla-opcodes.txt");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string name, arity;
    fields >> name >> arity;
    rows[name] = arity;
  }
  return rows;
}

std::string ArityText(Opcode op) {
  int arity = OpcodeArity(op);
  return arity == kVariadic ? "variadic" : std::to_string(arity);
}

TEST_CASE("opcode table: each name once, and it parses back", "[opcode]") {
  std::set<std::string_view> names;
  for (int i = 0; i < kNumOpcodes; ++i) {
    Opcode op = static_cast<Opcode>(i);
    CHECK(names.insert(OpcodeName(op)).second);
    CHECK(ParseOpcode(OpcodeName(op)) == op);
  }
  CHECK_FALSE(ParseOpcode("not-an-opcode").has_value());
}

TEST_CASE("opcode table: XLA's opcodes, with their operand counts", "[opcode]") {
  std::map<std::string, std::string> xla = XlaOpcodes();
  REQUIRE(xla.size() > 100);
  for (const auto& [name, arity] : xla) {
    INFO(name);
    std::optional<Opcode> op = ParseOpcode(name);
    REQUIRE(op.has_value());
    CHECK(ArityText(*op) == arity);
  }
  // Beyond XLA's list: only those scripts/xla_opcodes.py names with a reason.
  const std::set<std::string> extras = {"atan", "collective-reduce"};
  for (int i = 0; i < kNumOpcodes; ++i) {
    std::string name(OpcodeName(static_cast<Opcode>(i)));
    INFO(name);
    CHECK((xla.count(name) == 1) != (extras.count(name) == 1));
  }
  CHECK(kNumOpcodes == static_cast<int>(xla.size() + extras.size()));
}

}  // namespace
}  // namespace hlo

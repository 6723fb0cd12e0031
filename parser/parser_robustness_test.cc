// The parser never crashes, hangs or overflows its stack, whatever the bytes:
// deep nesting (50,000 levels of every kind of bracket), garbage, truncation
// and mutation all give `FILE:LINE:COL: error: message`, the source line and a
// caret (design.md "Errors"). Run under -DHLO_SANITIZE=ON to catch memory
// errors as well.
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/hlo_printer.h"
#include "parser/diagnostic.h"
#include "parser/parser.h"
#include "passes/shape_inference.h"

namespace hlo {
namespace {

constexpr int kDeep = 50000;

std::string Repeat(std::string_view s, int n) {
  std::string out;
  out.reserve(s.size() * n);
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

// True when `message` is one well-formed diagnostic: the location line, the
// source line and a caret line.
bool IsDiagnostic(std::string_view message, std::string_view file = "<input>") {
  size_t nl1 = message.find('\n');
  if (nl1 == std::string_view::npos) return false;
  size_t nl2 = message.find('\n', nl1 + 1);
  if (nl2 == std::string_view::npos) return false;
  // The head is FILE:LINE:COL: error: MESSAGE with LINE, COL >= 1.
  std::string_view head = message.substr(0, nl1);
  std::string prefix = std::string(file) + ":";
  if (head.substr(0, prefix.size()) != prefix) return false;
  head.remove_prefix(prefix.size());
  for (int field = 0; field < 2; ++field) {
    size_t digits = 0;
    while (digits < head.size() && head[digits] >= '0' && head[digits] <= '9') ++digits;
    if (digits == 0 || digits >= head.size() || head[digits] != ':') return false;
    if (std::stoul(std::string(head.substr(0, digits))) < 1) return false;
    head.remove_prefix(digits + 1);
  }
  if (head.substr(0, 8) != " error: " || head.size() <= 8) return false;
  std::string_view caret = message.substr(nl2 + 1);
  if (caret.empty() || caret.back() != '^') return false;
  for (char c : caret.substr(0, caret.size() - 1)) {
    if (c != ' ' && c != '\t') return false;
  }
  return true;
}

// Parses a module that must fail; returns its message after checking its form.
std::string ModuleError(std::string_view text, const ParseOptions& options = {}) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text, options);
  if (m.ok()) {
    FAIL_CHECK("parsed, but an error was expected");
    return "";
  }
  std::string message(m.status().message());
  INFO(message.substr(0, 600));
  CHECK(IsDiagnostic(message));
  return message;
}

// Parses anything: success, or a well-formed diagnostic.
void ParsesOrDiagnoses(std::string_view text) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text);
  if (m.ok()) return;
  std::string message(m.status().message());
  INFO(message.substr(0, 600));
  CHECK(IsDiagnostic(message));
}

bool Contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

TEST_CASE("robustness: 50,000-deep tuple shapes are an error", "[parser][robustness]") {
  std::string text = "ENTRY e {\n  ROOT p = " + Repeat("(", kDeep) + "f32[]" + Repeat(")", kDeep) +
                     " parameter(0)\n}\n";
  std::string e = ModuleError(text);
  CHECK(Contains(e, "<input>:2:"));
  CHECK(Contains(e, "nested more than"));
  // The same through the shape entry point, and unclosed.
  ShapePool pool;
  CHECK_FALSE(ParseShape(Repeat("(", kDeep) + "f32[]" + Repeat(")", kDeep), pool).ok());
  CHECK_FALSE(ParseShape(Repeat("(", kDeep), pool).ok());
}

TEST_CASE("robustness: 50,000-deep layouts with physical shapes", "[parser][robustness]") {
  std::string text = "ENTRY e {\n  ROOT p = " + Repeat("f32[1]{0:P(", kDeep) + "f32[1]" +
                     Repeat(")}", kDeep) + " parameter(0)\n}\n";
  CHECK(Contains(ModuleError(text), "nested more than"));
}

TEST_CASE("robustness: 50,000-deep literal braces", "[parser][robustness]") {
  // More braces than the rank: an error at the second one.
  std::string text = "ENTRY e {\n  ROOT c = f32[1] constant(" + Repeat("{", kDeep) + "1" +
                     Repeat("}", kDeep) + ")\n}\n";
  CHECK(Contains(ModuleError(text), "<input>:2:29: error:"));
  // Braces that are never closed.
  ModuleError("ENTRY e {\n  ROOT c = f32[1] constant(" + Repeat("{", kDeep));
  // As many braces as the rank: the rank itself is limited (code that walks
  // dimensions may recurse per dimension).
  std::string dims;
  for (int i = 0; i < kDeep; ++i) dims += i ? ",1" : "1";
  std::string deep = "ENTRY e {\n  ROOT c = f32[" + dims + "] constant(" + Repeat("{", kDeep) +
                     "7" + Repeat("}", kDeep) + ")\n}\n";
  CHECK(Contains(ModuleError(deep), "more than 500 dimensions"));
  // A rank of 100 is fine.
  std::string dims100;
  for (int i = 0; i < 100; ++i) dims100 += i ? ",1" : "1";
  absl::StatusOr<std::unique_ptr<Module>> m =
      ParseModule("ENTRY e {\n  ROOT c = f32[" + dims100 + "] constant(" + Repeat("{", 100) + "7" +
                  Repeat("}", 100) + ")\n}\n");
  CHECK(m.ok());
}

TEST_CASE("robustness: 50,000-deep tuple literals", "[parser][robustness]") {
  // A custom call's literal= is a shaped literal; tuples nest with '('.
  std::string text =
      "ENTRY e {\n  ROOT c = f32[] custom-call(), custom_call_target=\"x\", literal=" +
      Repeat("(", kDeep) + "f32[] 1" + Repeat(")", kDeep) + "\n}\n";
  CHECK(Contains(ModuleError(text), "nested more than"));
  // A constant of a deeply nested tuple shape stops at the shape.
  std::string text2 = "ENTRY e {\n  ROOT c = " + Repeat("(", kDeep) + "s32[]" + Repeat(")", kDeep) +
                      " constant(" + Repeat("(", kDeep) + "1" + Repeat(")", kDeep) + ")\n}\n";
  CHECK(Contains(ModuleError(text2), "nested more than"));
  // The literal entry point.
  absl::StatusOr<Literal> lit = ParseLiteral(Repeat("(", kDeep) + "s32[] 1" + Repeat(")", kDeep));
  REQUIRE_FALSE(lit.ok());
  CHECK(IsDiagnostic(std::string(lit.status().message())));
}

TEST_CASE("robustness: 50,000-deep shardings", "[parser][robustness]") {
  std::string text = "ENTRY e {\n  ROOT p = f32[] parameter(0), sharding=" + Repeat("{", kDeep) +
                     "replicated" + Repeat("}", kDeep) + "\n}\n";
  CHECK(Contains(ModuleError(text), "nested more than"));
  ModuleError("ENTRY e {\n  ROOT p = f32[] parameter(0), sharding=" + Repeat("{", kDeep));
}

TEST_CASE("robustness: 50,000-deep operands", "[parser][robustness]") {
  std::string text = "ENTRY e {\n  p = f32[] parameter(0)\n  ROOT a = f32[] add(" +
                     Repeat("add(", kDeep) + "p" + Repeat(")", kDeep) + ")\n}\n";
  // Nested operand instructions: without shape inference the first needs a
  // shape; with it, the depth limit stops them (no stack overflow).
  CHECK(
      Contains(ModuleError(text), "<input>:3:22: error: expected a shape before the opcode 'add'"));
  CHECK(Contains(ModuleError(text, ParseOptions{"<input>", &InferShape}),
                 "nested instructions more than 500 deep"));
}

TEST_CASE("robustness: 50,000-deep raw attribute values", "[parser][robustness]") {
  // backend_config and frontend attribute values are kept as raw text:
  // balanced, they are fine at any depth; unbalanced, they are an error.
  std::string balanced = Repeat("{\"a\":", kDeep) + "1" + Repeat("}", kDeep);
  ParsesOrDiagnoses("ENTRY e {\n  ROOT p = f32[] parameter(0), backend_config=" + balanced +
                    "\n}\n");
  ParsesOrDiagnoses("ENTRY e {\n  ROOT p = f32[] parameter(0), frontend_attributes={a=" +
                    Repeat("[", kDeep) + Repeat("]", kDeep) + "}\n}\n");
  std::string e = ModuleError(
      "ENTRY e {\n  ROOT p = f32[] parameter(0), backend_config=" + Repeat("{[", kDeep) + "\n}\n");
  CHECK(Contains(e, "expected ']'"));
  ModuleError("HloModule m, foo=" + Repeat("(", kDeep) +
              "\nENTRY e {\n  ROOT p = f32[] "
              "parameter(0)\n}\n");
  ModuleError("HloModule m, entry_computation_layout={(" + Repeat("(", kDeep) + "f32[]" +
              Repeat(")", kDeep) +
              ")->f32[]}\nENTRY e {\n  ROOT p = f32[] "
              "parameter(0)\n}\n");
}

TEST_CASE("robustness: empty and blank input", "[parser][robustness]") {
  for (std::string_view text : {"", " ", "\n\n\n", "// just a comment\n", "/* x */", "\r\n\r\n"}) {
    INFO(text);
    std::string e = ModuleError(text);
    CHECK(Contains(e, "<input>:1:1: error:"));
  }
}

TEST_CASE("robustness: columns are right with CRLF line ends", "[parser][robustness]") {
  std::string e = ModuleError(
      "ENTRY e {\r\n  p = f32[2] parameter(0)\r\n"
      "  ROOT n = f32[2] negate(q)\r\n}\r\n");
  CHECK(e.rfind("<input>:3:26: error: use of undefined instruction 'q'", 0) == 0);
  CHECK_FALSE(Contains(e, "\r"));
  // Something missing at the end of a CRLF line: just after the last token.
  e = ModuleError("ENTRY e {\r\n  p = f32[2] parameter(0)\r\n  ROOT n = f32[2] negate(p\r\n}\r\n");
  CHECK(e.rfind("<input>:3:27: error:", 0) == 0);
}

TEST_CASE("robustness: a file of several modules keeps whole-file lines", "[parser][robustness]") {
  std::string text =
      "ENTRY a {\n  ROOT p = f32[] parameter(0)\n}\n"
      "// -----\n"
      "ENTRY b {\n  ROOT p = f32[] parameter(0)\n}\n"
      "// -----\n"
      "ENTRY c {\n  ROOT p = f32[2]{1} parameter(0)\n}\n";
  absl::StatusOr<std::vector<std::unique_ptr<Module>>> ms = ParseModules(text);
  REQUIRE_FALSE(ms.ok());
  CHECK(std::string(ms.status().message()).rfind("<input>:10:", 0) == 0);
  std::vector<TextPiece> pieces = SplitModules(text);
  REQUIRE(pieces.size() == 3);
  absl::StatusOr<std::unique_ptr<Module>> third =
      ParseModulePiece(pieces[2].text, pieces[2].first_line, ParseOptions{});
  REQUIRE_FALSE(third.ok());
  CHECK(std::string(third.status().message()).rfind("<input>:10:18: error:", 0) == 0);
  // Only separators: no module at all is an error too.
  CHECK_FALSE(ParseModules("// -----\n// -----\n").ok());
}

TEST_CASE("robustness: huge sizes are errors before any allocation", "[parser][robustness]") {
  // 10^15 elements; a tuple adding up to too many; a parameter number that
  // would make the parameter table huge.
  for (std::string_view text :
       {"ENTRY e {\n  ROOT c = f32[1000000,1000000,1000] constant(1)\n}\n",
        "ENTRY e {\n  ROOT c = (f32[100000000], f32[100000000]) constant(({1}, {2}))\n}\n",
        "ENTRY e {\n  ROOT c = f32[100000,1000000] constant({...})\n  x = f32[100000,1000000] "
        "constant(0)\n}\n",
        "ENTRY e {\n  ROOT p = f32[] parameter(4294967296)\n}\n",
        "ENTRY e {\n  ROOT p = f32[] parameter(9223372036854775807)\n}\n"}) {
    INFO(text);
    ModuleError(text);
  }
  // Products of sharding and iota dimensions do not overflow.
  ModuleError(
      "ENTRY e {\n  ROOT p = f32[8] parameter(0), sharding={devices=[4294967296,"
      "4294967296,4294967296]0,1}\n}\n");
  ModuleError(
      "HloModule m, replica_count=8\nadd {\n  x = f32[] parameter(0)\n  y = f32[] "
      "parameter(1)\n  ROOT s = f32[] add(x, y)\n}\nENTRY e {\n  p = f32[4] "
      "parameter(0)\n  ROOT r = f32[4] all-reduce(p), replica_groups=[4294967296,"
      "4294967296,4294967296]<=[8], to_apply=add\n}\n");
}

TEST_CASE("robustness: the source line and caret of a diagnostic", "[parser][robustness]") {
  // Tabs are kept so the caret lines up; a UTF-8 character is one column of
  // the display; bytes that are not UTF-8 and control characters show as
  // U+FFFD; the message stays on one line.
  CHECK(FormatDiagnostic("f", 1, 3, "m", "\tab") == "f:1:3: error: m\n\tab\n\t ^");
  CHECK(FormatDiagnostic("f", 2, 4, "m", "\xC3\xA9t\xC3\xA9") ==
        "f:2:4: error: m\n\xC3\xA9t\xC3\xA9\n  ^");
  CHECK(FormatDiagnostic("f", 1, 3, "m", std::string("a\0b", 3)) ==
        "f:1:3: error: m\na\xEF\xBF\xBD"
        "b\n  ^");
  CHECK(FormatDiagnostic("f", 1, 1, "two\nlines\x01", "x") ==
        "f:1:1: error: two\\nlines\\x01\nx\n^");
  // A caret past the end of the line (something missing at its end).
  CHECK(FormatDiagnostic("f", 1, 4, "m", "abc") == "f:1:4: error: m\nabc\n   ^");
  // A long line shows a window around the column.
  std::string line(1000, 'x');
  line[700] = '@';
  std::string d = FormatDiagnostic("f", 1, 701, "m", line);
  std::string shown = d.substr(d.find('\n') + 1);
  std::string text = shown.substr(0, shown.find('\n'));
  std::string caret = shown.substr(shown.find('\n') + 1);
  CHECK(text.size() < 140);
  CHECK(text.rfind("...", 0) == 0);
  REQUIRE(caret.size() <= text.size());
  CHECK(text[caret.size() - 1] == '@');
}

// A small deterministic generator (the test must not depend on the platform's
// std::uniform_int_distribution).
struct Rng {
  uint64_t state;
  uint64_t Next() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  }
  size_t Below(size_t n) { return n == 0 ? 0 : static_cast<size_t>(Next() % n); }
};

constexpr std::string_view kSample =
    "HloModule sample, entry_computation_layout={(f32[2,3]{1,0}, s32[])->(f32[3,2]{1,0}, "
    "s32[])}\n"
    "\n"
    "%add (x: f32[], y: f32[]) -> f32[] {\n"
    "  %x = f32[] parameter(0)\n"
    "  %y = f32[] parameter(1)\n"
    "  ROOT %s = f32[] add(f32[] %x, f32[] %y)\n"
    "}\n"
    "\n"
    "ENTRY %main (p: f32[2,3], i: s32[]) -> (f32[3,2], s32[]) {\n"
    "  %p = f32[2,3]{1,0} parameter(0), sharding={devices=[2,1]<=[2]}, "
    "metadata={op_name=\"a\\\"b\" source_line=3}\n"
    "  %i = s32[] parameter(1)\n"
    "  %c = f32[2]{0} constant({1.5, nan(0x12)})\n"
    "  %z = f32[] constant(0)\n"
    "  %r = f32[2]{0} reduce(f32[2,3]{1,0} %p, f32[] %z), dimensions={1}, to_apply=%add\n"
    "  %t = f32[3,2]{1,0} transpose(f32[2,3]{1,0} %p), dimensions={1,0}, "
    "frontend_attributes={k=\"v\"}, backend_config={\"x\":[1,{\"y\":2}]}\n"
    "  %w = f32[1,4,4,1]{3,2,1,0:T(2,2)} parameter(2)\n"
    "  %k = f32[2,2,1,1]{3,2,1,0} constant({{{{1}},{{2}}},{{{3}},{{4}}}})\n"
    "  %v = f32[1,3,3,1]{3,2,1,0} convolution(%w, %k), window={size=2x2 pad=0_0x0_0}, "
    "dim_labels=b01f_01io->b01f\n"
    "  %s = f32[1]{0} slice(f32[2]{0} %c), slice={[0:1:1]}\n"
    "  ROOT %o = (f32[3,2]{1,0}, s32[]) tuple(%t, %i), control-predecessors={%r}\n"
    "}\n";

TEST_CASE("robustness: every truncation of a module", "[parser][robustness]") {
  for (size_t n = 0; n <= kSample.size(); ++n) {
    INFO("prefix of " << n << " bytes");
    ParsesOrDiagnoses(kSample.substr(0, n));
  }
}

TEST_CASE("robustness: mutated modules", "[parser][robustness]") {
  static constexpr std::string_view kInserts[] = {"{",           "}",
                                                  "(",           ")",
                                                  "[",           "]",
                                                  ",",           "=",
                                                  "->",          "<=",
                                                  "...",         "\"",
                                                  "/*",          "//",
                                                  "\\",          "\n",
                                                  "\r",          "\t",
                                                  "%",           "-",
                                                  "nan(0x",      "T(",
                                                  ":",           "ROOT ",
                                                  "ENTRY ",      "-1",
                                                  "?",           "9223372036854775808",
                                                  "1e400",       std::string_view("\0", 1),
                                                  "\xff",        "\xc3",
                                                  "#(",          "{...}",
                                                  "\n// -----\n"};
  Rng rng{0x9E3779B97F4A7C15ull};
  for (int round = 0; round < 3000; ++round) {
    std::string text(kSample);
    int edits = 1 + static_cast<int>(rng.Below(4));
    for (int k = 0; k < edits && !text.empty(); ++k) {
      size_t i = rng.Below(text.size());
      switch (rng.Below(5)) {
        case 0:
          text[i] = static_cast<char>(text[i] ^ (1 << rng.Below(8)));
          break;
        case 1:
          text[i] = static_cast<char>(rng.Below(256));
          break;
        case 2:
          text.insert(i, kInserts[rng.Below(std::size(kInserts))]);
          break;
        case 3:
          text.erase(i, 1 + rng.Below(12));
          break;
        default: {
          size_t len = 1 + rng.Below(30);
          std::string span = text.substr(i, len);
          text.insert(rng.Below(text.size() + 1), span);
        }
      }
    }
    INFO("round " << round << ": " << text);
    ParsesOrDiagnoses(text);
    // The literal and shape entry points see the same bytes.
    absl::StatusOr<Literal> lit = ParseLiteral(text.substr(0, 200));
    if (!lit.ok()) CHECK(IsDiagnostic(std::string(lit.status().message())));
  }
}

TEST_CASE("robustness: random bytes", "[parser][robustness]") {
  Rng rng{12345};
  for (int round = 0; round < 2000; ++round) {
    std::string text(rng.Below(200), '\0');
    // Mostly bytes of HLO text, some anything.
    static constexpr std::string_view kAlphabet =
        "{}()[],=:<>*#?\"%-+./ \n\t0123456789abcfnprsuxTEST_";
    for (char& c : text) {
      c = rng.Below(4) == 0 ? static_cast<char>(rng.Below(256))
                            : kAlphabet[rng.Below(kAlphabet.size())];
    }
    INFO("round " << round);
    ParsesOrDiagnoses(text);
    ShapePool pool;
    absl::StatusOr<Shape> s = ParseShape(text, pool);
    if (!s.ok()) CHECK(IsDiagnostic(std::string(s.status().message()), "<shape>"));
  }
}

}  // namespace
}  // namespace hlo

namespace hlo {
namespace {

// Found by the parser fuzz target (print -> parse -> print): a parameter
// named with a leading digit (`%8`, `%0x`) printed bare in the signature,
// `(8: f32[2])`, which does not lex as a name. It now prints `(%8: f32[2])`
// and the text is a fixed point.
TEST_CASE("robustness: digit-led parameter names survive the signature", "[parser][robustness]") {
  for (const char* name : {"8", "0x", "1.5"}) {
    const std::string text = std::string("HloModule m\n\nENTRY %main (") + "%" + name +
                             ": f32[2]) -> f32[2] {\n  ROOT %" + name +
                             " = f32[2]{0} parameter(0)\n}\n\n";
    auto first = ParseModule(text, ParseOptions{"first.hlo", &InferShape});
    INFO(name << ": " << (first.ok() ? std::string() : std::string(first.status().message())));
    REQUIRE(first.ok());
    const std::string printed = PrintModule(**first);
    CHECK(printed.find(std::string("(%") + name + ": f32[2])") != std::string::npos);
    auto again = ParseModule(printed, ParseOptions{"again.hlo", &InferShape});
    INFO(printed);
    REQUIRE(again.ok());
    CHECK(PrintModule(**again) == printed);
  }
}

// The same in the body of a module printed in the bare style (found by the
// fuzz target the next session): `ROOT 1x = ...` and `add(1x, ...)` do not
// lex, so a digit-led instruction or computation name keeps its '%' there.
TEST_CASE("robustness: digit-led names keep their '%' in the bare style", "[parser][robustness]") {
  for (const char* name : {"8", "1x", "0.5"}) {
    const std::string n = name;
    const std::string text =
        "HloModule m\n\nENTRY main (x: f32[2]) -> f32[2] {\n"
        "  x = f32[2]{0} parameter(0)\n  %" +
        n +
        " = f32[2]{0} negate(x)\n"
        "  ROOT r = f32[2]{0} call(%" +
        n + "), to_apply=%" + n + "c\n}\n\n%" + n + "c (%" + n + ": f32[2]) -> f32[2] {\n  ROOT %" +
        n + " = f32[2]{0} parameter(0)\n}\n\n";
    auto first = ParseModule(text, ParseOptions{"first.hlo", &InferShape});
    INFO(name << ": " << (first.ok() ? std::string() : std::string(first.status().message())));
    REQUIRE(first.ok());
    const std::string printed = PrintModule(**first);
    INFO(printed);
    CHECK(printed.find("ENTRY main") != std::string::npos);  // the bare style
    CHECK(printed.find("  %" + n + " = f32[2]{0} negate(x)") != std::string::npos);
    CHECK(printed.find("call(%" + n + "), to_apply=%" + n + "c") != std::string::npos);
    auto again = ParseModule(printed, ParseOptions{"again.hlo", &InferShape});
    REQUIRE(again.ok());
    CHECK(PrintModule(**again) == printed);
  }
}

}  // namespace
}  // namespace hlo

// Lexer tests, written from the HLO text syntax (design.md, FORMAT-NOTES.md
// §9-§10) and the token contract in parser/lexer.h.
#include "parser/lexer.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace hlo {
namespace {

struct Lexed {
  Tok kind;
  std::string text;
  uint32_t line;
  uint32_t col;
};

// Every token up to and including the end (or the first error, then the end).
std::vector<Lexed> LexAll(std::string_view text, uint32_t first_line = 1) {
  Lexer lexer(text, first_line);
  std::vector<Lexed> out;
  for (int guard = 0; guard < 10000; ++guard) {
    Token t = lexer.Next();
    out.push_back({t.kind, std::string(t.text), t.line, t.col});
    if (t.kind == Tok::kEof) break;
  }
  return out;
}

std::vector<Tok> Kinds(std::string_view text) {
  std::vector<Tok> kinds;
  for (const Lexed& t : LexAll(text)) kinds.push_back(t.kind);
  return kinds;
}

std::vector<std::string> Texts(std::string_view text) {
  std::vector<std::string> texts;
  for (const Lexed& t : LexAll(text)) {
    if (t.kind != Tok::kEof) texts.push_back(t.text);
  }
  return texts;
}

// The single token of `text` (followed by the end).
Lexed One(std::string_view text) {
  std::vector<Lexed> all = LexAll(text);
  INFO("input: " << text);
  REQUIRE(all.size() == 2);
  CHECK(all[1].kind == Tok::kEof);
  return all[0];
}

using V = std::vector<std::string>;

TEST_CASE("lexer: every punctuation token kind", "[lexer]") {
  struct Row {
    const char* text;
    Tok kind;
  };
  const Row rows[] = {
      {"=", Tok::kEqual},   {",", Tok::kComma},  {":", Tok::kColon},    {"(", Tok::kLParen},
      {")", Tok::kRParen},  {"{", Tok::kLBrace}, {"}", Tok::kRBrace},   {"[", Tok::kLSquare},
      {"]", Tok::kRSquare}, {"<", Tok::kLess},   {">", Tok::kGreater},  {"->", Tok::kArrow},
      {"*", Tok::kStar},    {"#", Tok::kHash},   {"?", Tok::kQuestion}, {"...", Tok::kElided},
  };
  for (const Row& r : rows) {
    Lexed t = One(r.text);
    INFO(r.text);
    CHECK(t.kind == r.kind);
    CHECK(t.text == r.text);
    CHECK(t.line == 1);
    CHECK(t.col == 1);
  }
  // All of them in a row, with and without spaces.
  CHECK(Kinds("=,:(){}[]<>->*#?...") ==
        std::vector<Tok>{Tok::kEqual, Tok::kComma, Tok::kColon, Tok::kLParen, Tok::kRParen,
                         Tok::kLBrace, Tok::kRBrace, Tok::kLSquare, Tok::kRSquare, Tok::kLess,
                         Tok::kGreater, Tok::kArrow, Tok::kStar, Tok::kHash, Tok::kQuestion,
                         Tok::kElided, Tok::kEof});
  // `{...}` is the elided constant.
  CHECK(Kinds("{...}") == std::vector<Tok>{Tok::kLBrace, Tok::kElided, Tok::kRBrace, Tok::kEof});
  CHECK(Texts("{...}") == V{"{", "...", "}"});
}

TEST_CASE("lexer: end of input", "[lexer]") {
  CHECK(Kinds("") == std::vector<Tok>{Tok::kEof});
  CHECK(Kinds("   \t\n  \r\n") == std::vector<Tok>{Tok::kEof});
  CHECK(Kinds("// only a comment") == std::vector<Tok>{Tok::kEof});
  CHECK(Kinds("/* only a comment */") == std::vector<Tok>{Tok::kEof});
  // Asking again after the end keeps giving the end.
  Lexer lexer("x");
  CHECK(lexer.Next().kind == Tok::kName);
  CHECK(lexer.Next().kind == Tok::kEof);
  CHECK(lexer.Next().kind == Tok::kEof);
  CHECK(lexer.Next().kind == Tok::kEof);
}

TEST_CASE("lexer: names", "[lexer]") {
  // Instruction and computation names, keywords, types, attribute names,
  // dim labels: one name token each.
  for (const char* name : {"add",
                           "add.1",
                           "%add.1",
                           "%p",
                           "f32",
                           "s4",
                           "pred",
                           "ENTRY",
                           "ROOT",
                           "HloModule",
                           "get-tuple-element.3",
                           "%get-tuple-element.3",
                           "all-reduce-start",
                           "b01f_01io",
                           "_x",
                           "x_",
                           "fused_computation.12",
                           "%a.b.c-d_e",
                           "T",
                           "SC",
                           "kLoop",
                           "true",
                           "false",
                           "inf",
                           "nan",
                           "maximal",
                           "replicated",
                           "x1.2.3",
                           "dot.0"}) {
    INFO(name);
    Lexed t = One(name);
    CHECK(t.kind == Tok::kName);
    CHECK(t.text == name);
    CHECK(t.col == 1);
  }
  // A % name keeps its %; the name ends at anything that is not [A-Za-z0-9_.-].
  CHECK(Texts("%x.1=%y") == V{"%x.1", "=", "%y"});
  CHECK(Texts("f32[2,3]{1,0}") == V{"f32", "[", "2", ",", "3", "]", "{", "1", ",", "0", "}"});
  CHECK(Texts("(p0: f32[])") == V{"(", "p0", ":", "f32", "[", "]", ")"});
  CHECK(Texts("a,b") == V{"a", ",", "b"});
  CHECK(Texts("%a(%b)") == V{"%a", "(", "%b", ")"});
  CHECK(Texts("x{y}") == V{"x", "{", "y", "}"});
  CHECK(Texts("a b\tc\nd") == V{"a", "b", "c", "d"});
  // Names may contain digits after the first character and dots anywhere
  // after it.
  CHECK(Texts("a1 a.1. a-1-") == V{"a1", "a.1.", "a-1-"});
}

TEST_CASE("lexer: '->' versus names ending in '-'", "[lexer]") {
  // dim_labels: `b01f_01io->b01f` is name, arrow, name.
  CHECK(Kinds("b01f_01io->b01f") ==
        std::vector<Tok>{Tok::kName, Tok::kArrow, Tok::kName, Tok::kEof});
  CHECK(Texts("b01f_01io->b01f") == V{"b01f_01io", "->", "b01f"});
  // Signature result: `) -> f32[]` and `)->f32[]` (entry_computation_layout).
  CHECK(Texts(")->f32[]") == V{")", "->", "f32", "[", "]"});
  CHECK(Texts(") -> f32[]") == V{")", "->", "f32", "[", "]"});
  // A name may end in '-'; the '-' before '>' belongs to the arrow.
  CHECK(Texts("x- y") == V{"x-", "y"});
  CHECK(Texts("x-->y") == V{"x-", "->", "y"});
  CHECK(Texts("x->y") == V{"x", "->", "y"});
  CHECK(Texts("x-y->z") == V{"x-y", "->", "z"});
  CHECK(Texts("x- >y") == V{"x-", ">", "y"});
  CHECK(Texts("%a.1->%b") == V{"%a.1", "->", "%b"});
  // After a number too.
  CHECK(Texts("1->2") == V{"1", "->", "2"});
  CHECK(Texts("]->(") == V{"]", "->", "("});
  // A lone '-' is not an arrow.
  CHECK(LexAll("- >")[0].kind == Tok::kError);
}

TEST_CASE("lexer: long names (scanned in 16-byte blocks) end where short ones do", "[lexer]") {
  // Every name byte class, past 16 bytes, then each kind of end.
  const std::string long_name = "aZ09_$.bC18_$.cD27_$.eF";  // 23 bytes
  CHECK(Texts(long_name + "(x)") == V{long_name, "(", "x", ")"});
  CHECK(Texts(long_name + " ") == V{long_name});
  CHECK(Texts(long_name) == V{long_name});  // at the end of the buffer
  CHECK(Texts("%" + long_name + ",") == V{"%" + long_name, ","});
  // '-' inside a long name, before and after byte 16, and '->' after it.
  CHECK(Texts("get-tuple-element.12345678 x") == V{"get-tuple-element.12345678", "x"});
  CHECK(Texts("b01f_01io_abcdefgh->b01f") == V{"b01f_01io_abcdefgh", "->", "b01f"});
  CHECK(Texts("abcdefghijklmnopqrst->y") == V{"abcdefghijklmnopqrst", "->", "y"});
  CHECK(Texts("abcdefghijklmnopqrstuvwxyz0123456789-") ==
        V{"abcdefghijklmnopqrstuvwxyz0123456789-"});
  // A non-name byte at each position of the first block.
  for (size_t i = 1; i < 20; ++i) {
    std::string text = long_name.substr(0, i) + "]" + long_name;
    CHECK(Texts(text) == V{long_name.substr(0, i), "]", long_name});
  }
  // Bytes with the high bit set are not name bytes (0xC1 | 0x20 is not a-z):
  // the name stops there and the byte is reported at its own column.
  Lexed bad = LexAll("abcdefghijklmnopq\xc1rst")[0];
  CHECK(bad.kind == Tok::kError);
  CHECK(bad.col == 18);
  CHECK(bad.text.find("0xC1") != std::string::npos);
}

TEST_CASE("lexer: -inf and -nan are names with their sign", "[lexer]") {
  for (const char* text : {"-inf", "-nan", "inf", "nan"}) {
    INFO(text);
    Lexed t = One(text);
    CHECK(t.kind == Tok::kName);
    CHECK(t.text == text);
  }
  CHECK(Texts("{-inf, -nan, inf}") == V{"{", "-inf", ",", "-nan", ",", "inf", "}"});
  // NaN payloads: `nan(0x7f)`, `-nan(0x7f)`.
  CHECK(Texts("-nan(0x7f)") == V{"-nan", "(", "0x7f", ")"});
  std::vector<Lexed> all = LexAll("nan(0x7f)");
  REQUIRE(all.size() == 5);
  CHECK(all[0].kind == Tok::kName);
  CHECK(all[1].kind == Tok::kLParen);
  CHECK(all[2].kind == Tok::kNumber);
  CHECK(all[2].text == "0x7f");
  CHECK(all[3].kind == Tok::kRParen);
}

TEST_CASE("lexer: numbers", "[lexer]") {
  for (const char* text :
       {"0", "12", "-1", "-0", "1.5", "-1.5e3", "1e-05", "1e+10", "3e+2", "6.02E23", "1.", "0.25",
        "-2147483648", "18446744073709551615", "-9223372036854775808", "1_1x2_2", "3x3", "0_1x2_3",
        "-1_-2x0_0", "0_0_0x2_2_1", "0x7f", "3.40282347e+38",
        // FORMAT-NOTES §10: `1.` and `.5` are numbers too.
        ".5", "-.5", ".5e3", "1.", "-1."}) {
    INFO(text);
    Lexed t = One(text);
    CHECK(t.kind == Tok::kNumber);
    CHECK(t.text == text);
  }
  // Numbers end at punctuation.
  CHECK(Texts("{1, -2, 3.5}") == V{"{", "1", ",", "-2", ",", "3.5", "}"});
  CHECK(Texts("[0:2]") == V{"[", "0", ":", "2", "]"});
  CHECK(Texts("[0:2:1]") == V{"[", "0", ":", "2", ":", "1", "]"});
  CHECK(Texts("f32[<=8,?]") == V{"f32", "[", "<", "=", "8", ",", "?", "]"});
  CHECK(Texts("(1,2)") == V{"(", "1", ",", "2", ")"});
  CHECK(Texts("size=3x3 stride=2x2") == V{"size", "=", "3x3", "stride", "=", "2x2"});
  CHECK(Texts("padding=0_1x2_3") == V{"padding", "=", "0_1x2_3"});
  CHECK(Texts("[2,4]<=[8]") == V{"[", "2", ",", "4", "]", "<", "=", "[", "8", "]"});
  // A negative number is one token; a '-' before a name is part of the name.
  std::vector<Lexed> neg = LexAll("-7");
  REQUIRE(neg.size() == 2);
  CHECK(neg[0].kind == Tok::kNumber);
  CHECK(neg[0].text == "-7");
}

TEST_CASE("lexer: strings", "[lexer]") {
  Lexed t = One("\"hello\"");
  CHECK(t.kind == Tok::kString);
  CHECK(t.text == "hello");  // the body, without quotes
  CHECK(t.col == 1);
  CHECK(One("\"\"").text == "");
  CHECK(One("\"\"").kind == Tok::kString);
  // Escapes stay undecoded in the token; an escaped quote does not end it.
  CHECK(One(R"("a\"b")").text == R"(a\"b)");
  CHECK(One(R"("a\\")").text == R"(a\\)");
  CHECK(One(R"("\n\t\303")").text == R"(\n\t\303)");
  // Punctuation and comment markers inside strings are just characters.
  CHECK(One(R"("{a=1, b->c} // not a comment /* nor this */")").text ==
        "{a=1, b->c} // not a comment /* nor this */");
  // Strings in attribute position.
  CHECK(Texts(R"(custom_call_target="foo", x="")") ==
        V{"custom_call_target", "=", "foo", ",", "x", "=", ""});
  std::vector<Lexed> all = LexAll(R"(op_name="a" source_line=3)");
  REQUIRE(all.size() == 7);
  CHECK(all[2].kind == Tok::kString);
  CHECK(all[2].col == 9);
  CHECK(all[3].col == 13);
  CHECK(all[5].kind == Tok::kNumber);
}

TEST_CASE("lexer: single-quoted strings (FORMAT-NOTES §10)", "[lexer]") {
  // XLA accepts '...' strings as well as "...".
  Lexed t = One("'abc'");
  CHECK(t.kind == Tok::kString);
  CHECK(t.text == "abc");
}

// (Was a bug: the token got the line of its end and a column computed from
// that line's start, which underflowed.)
TEST_CASE("lexer: a string spanning lines reports where it starts", "[lexer]") {
  std::vector<Lexed> all = LexAll("x \"a\nb\" y");
  REQUIRE(all.size() == 4);
  CHECK(all[1].kind == Tok::kString);
  CHECK(all[1].text == "a\nb");
  CHECK(all[1].line == 1);
  CHECK(all[1].col == 3);
  // The token after it is on line 2, column 4.
  CHECK(all[2].text == "y");
  CHECK(all[2].line == 2);
  CHECK(all[2].col == 4);
  // The same for an unterminated one.
  std::vector<Lexed> bad = LexAll("x \"a\nb");
  REQUIRE(bad.size() >= 2);
  CHECK(bad[1].kind == Tok::kError);
  CHECK(bad[1].line == 1);
  CHECK(bad[1].col == 3);
}

TEST_CASE("lexer: comments are skipped", "[lexer]") {
  CHECK(Texts("a // comment , = {\nb") == V{"a", "b"});
  CHECK(Texts("a /* c */ b") == V{"a", "b"});
  CHECK(Texts("a/*c*/b") == V{"a", "b"});
  CHECK(Texts("a /* multi\nline\ncomment */ b") == V{"a", "b"});
  CHECK(Texts("/**/a/***/b/* * / */c") == V{"a", "b", "c"});
  // A `//` comment ends at the end of the line only.
  CHECK(Texts("a // x /* y\nb") == V{"a", "b"});
  // `/*index=5*/` in tuple shapes and operand lists.
  CHECK(Texts("(f32[], /*index=5*/f32[])") == V{"(", "f32", "[", "]", ",", "f32", "[", "]", ")"});
  CHECK(Texts("{ { /*i0=0*/ {1} } }") == V{"{", "{", "{", "1", "}", "}", "}"});
  // Comment at end of input without a newline.
  CHECK(Texts("a //") == V{"a"});
  CHECK(Texts("a /* */") == V{"a"});
  // `// -----` separator lines are comments to the lexer.
  CHECK(Texts("a\n// -----\nb") == V{"a", "b"});
}

TEST_CASE("lexer: line and column tracking", "[lexer]") {
  std::vector<Lexed> all = LexAll("HloModule m\n\nENTRY %e {\n  ROOT %c = f32[] constant(1)\n}\n");
  REQUIRE(all.size() >= 14);
  CHECK(all[0].text == "HloModule");
  CHECK((all[0].line == 1 && all[0].col == 1));
  CHECK((all[1].line == 1 && all[1].col == 11));
  CHECK(all[2].text == "ENTRY");
  CHECK((all[2].line == 3 && all[2].col == 1));
  CHECK(all[3].text == "%e");
  CHECK((all[3].line == 3 && all[3].col == 7));
  CHECK(all[4].text == "{");
  CHECK((all[4].line == 3 && all[4].col == 10));
  CHECK(all[5].text == "ROOT");
  CHECK((all[5].line == 4 && all[5].col == 3));
  CHECK(all[6].text == "%c");
  CHECK((all[6].line == 4 && all[6].col == 8));
  CHECK(all[8].text == "f32");
  CHECK((all[8].line == 4 && all[8].col == 13));
  CHECK(all[11].text == "constant");
  CHECK((all[11].line == 4 && all[11].col == 19));
  CHECK(all[13].text == "1");
  CHECK((all[13].line == 4 && all[13].col == 28));
  const Lexed& close = all[all.size() - 2];
  CHECK(close.text == "}");
  CHECK((close.line == 5 && close.col == 1));
  CHECK(all.back().kind == Tok::kEof);
  CHECK(all.back().line == 6);

  // A tab is one column.
  std::vector<Lexed> tab = LexAll("\tx");
  CHECK(tab[0].col == 2);

  // The first line number can be given (pieces of a split file).
  std::vector<Lexed> split = LexAll("a\n b", 41);
  CHECK((split[0].line == 41 && split[0].col == 1));
  CHECK((split[1].line == 42 && split[1].col == 2));
}

TEST_CASE("lexer: positions after comments", "[lexer]") {
  std::vector<Lexed> all = LexAll("a // one\n  b /* two\nthree */ c\n/**/d");
  REQUIRE(all.size() == 5);
  CHECK((all[0].line == 1 && all[0].col == 1));
  CHECK((all[1].line == 2 && all[1].col == 3));
  CHECK(all[2].text == "c");
  CHECK((all[2].line == 3 && all[2].col == 10));
  CHECK(all[3].text == "d");
  CHECK((all[3].line == 4 && all[3].col == 5));
  // Several multi-line comments in a row.
  std::vector<Lexed> many = LexAll("/*\n\n*//*\n*/ x");
  REQUIRE(many.size() == 2);
  CHECK((many[0].line == 4 && many[0].col == 4));
}

TEST_CASE("lexer: CRLF line ends", "[lexer]") {
  std::vector<Lexed> all = LexAll("a\r\n  b\r\n\r\nc // x\r\nd /* \r\n */ e\r\n");
  REQUIRE(all.size() == 6);
  CHECK((all[0].line == 1 && all[0].col == 1));
  CHECK(all[1].text == "b");
  CHECK((all[1].line == 2 && all[1].col == 3));
  CHECK(all[2].text == "c");
  CHECK((all[2].line == 4 && all[2].col == 1));
  CHECK(all[3].text == "d");
  CHECK((all[3].line == 5 && all[3].col == 1));
  CHECK(all[4].text == "e");
  CHECK((all[4].line == 6 && all[4].col == 5));
  // The '\r' is never part of a token.
  CHECK(Texts("x\r\ny\r\n") == V{"x", "y"});
  CHECK(Texts("1\r\n2") == V{"1", "2"});
  // LineText drops the '\r'.
  Lexer lexer("ab\r\ncd\r\n");
  CHECK(lexer.LineText(1) == "ab");
  CHECK(lexer.LineText(2) == "cd");
}

TEST_CASE("lexer: error tokens", "[lexer]") {
  SECTION("unterminated string, reported at the opening quote") {
    std::vector<Lexed> all = LexAll("a = \"abc");
    REQUIRE(all.size() >= 3);
    CHECK(all[2].kind == Tok::kError);
    CHECK(all[2].line == 1);
    CHECK(all[2].col == 5);
    CHECK(all[2].text.find("unterminated") != std::string::npos);
    CHECK(all.back().kind == Tok::kEof);
  }
  SECTION("unterminated string ending in a backslash") {
    std::vector<Lexed> all = LexAll("\"abc\\");
    REQUIRE(!all.empty());
    CHECK(all[0].kind == Tok::kError);
    CHECK(all[0].col == 1);
    CHECK(all.back().kind == Tok::kEof);
  }
  SECTION("unterminated /* comment, reported at its start") {
    std::vector<Lexed> all = LexAll("x\n  y /* never\nclosed");
    REQUIRE(all.size() == 4);
    CHECK(all[0].text == "x");
    CHECK(all[1].text == "y");
    CHECK(all[2].kind == Tok::kError);
    CHECK(all[2].line == 2);
    CHECK(all[2].col == 5);
    CHECK(all[2].text.find("unterminated") != std::string::npos);
    CHECK(all[3].kind == Tok::kEof);
    // Just "/*" and "/*/".
    CHECK(LexAll("/*")[0].kind == Tok::kError);
    CHECK(LexAll("/*/")[0].kind == Tok::kError);
  }
  SECTION("stray characters") {
    for (const char* text :
         {"@", "!", "^", "&", "|", ";", "\\", "`", "~", "+", ".", "..", "/", "-"}) {
      INFO(text);
      std::vector<Lexed> all = LexAll(std::string("ok ") + text);
      REQUIRE(all.size() >= 2);
      CHECK(all[0].text == "ok");
      CHECK(all[1].kind == Tok::kError);
      CHECK(all[1].line == 1);
      CHECK(all[1].col == 4);
      CHECK(!all[1].text.empty());
    }
    // An error on a later line reports that line.
    std::vector<Lexed> all = LexAll("a\n\n   @ b");
    REQUIRE(all.size() >= 2);
    CHECK(all[1].kind == Tok::kError);
    CHECK(all[1].line == 3);
    CHECK(all[1].col == 4);
    // The lexer moves on after a stray character.
    CHECK(all[2].text == "b");
  }
  SECTION("a lone %") {
    std::vector<Lexed> all = LexAll("% x");
    CHECK(all[0].kind == Tok::kError);
    CHECK(all[0].col == 1);
  }
  SECTION("non-ASCII bytes") {
    std::vector<Lexed> all = LexAll("a \xC3\xA9");
    REQUIRE(all.size() >= 2);
    CHECK(all[1].kind == Tok::kError);
    CHECK(all[1].col == 3);
  }
}

TEST_CASE("lexer: Reset re-reads a token", "[lexer]") {
  Lexer lexer("a\n  bb cc");
  Token a = lexer.Next();
  Token b = lexer.Next();
  Token c = lexer.Next();
  CHECK(c.text == "cc");
  lexer.Reset(b);
  Token again = lexer.Next();
  CHECK(again.text == "bb");
  CHECK(again.line == 2);
  CHECK(again.col == 3);
  CHECK(lexer.Next().text == "cc");
  lexer.Reset(a);
  CHECK(lexer.Next().text == "a");
}

TEST_CASE("lexer: ScanBalanced", "[lexer]") {
  Lexer lexer("x={a={b}, s=\"}\"}\nnext");
  CHECK(lexer.Next().text == "x");
  CHECK(lexer.Next().kind == Tok::kEqual);
  Token open = lexer.Next();
  REQUIRE(open.kind == Tok::kLBrace);
  std::string error;
  CHECK(lexer.ScanBalanced(open, &error) == "{a={b}, s=\"}\"}");
  Token next = lexer.Next();
  CHECK(next.text == "next");
  CHECK(next.line == 2);
  CHECK(next.col == 1);

  Lexer bad("{(]");
  Token o = bad.Next();
  std::string err2;
  CHECK(bad.ScanBalanced(o, &err2).empty());
  CHECK(!err2.empty());
}

TEST_CASE("lexer: LineText", "[lexer]") {
  Lexer lexer("one\ntwo\n\nfour", 10);
  CHECK(lexer.LineText(10) == "one");
  CHECK(lexer.LineText(11) == "two");
  CHECK(lexer.LineText(12) == "");
  CHECK(lexer.LineText(13) == "four");
  CHECK(lexer.LineText(99) == "");
}

std::string Unescaped(std::string_view body) {
  std::string out, error;
  INFO(body);
  REQUIRE(Lexer::Unescape(body, &out, &error));
  return out;
}

bool UnescapeFails(std::string_view body) {
  std::string out, error;
  bool ok = Lexer::Unescape(body, &out, &error);
  if (!ok) CHECK(!error.empty());
  return !ok;
}

TEST_CASE("lexer: Unescape decodes CEscape output", "[lexer]") {
  CHECK(Unescaped("") == "");
  CHECK(Unescaped("plain text") == "plain text");
  // Everything absl::CEscape produces (FORMAT-NOTES §9).
  CHECK(Unescaped(R"(\n)") == "\n");
  CHECK(Unescaped(R"(\r)") == "\r");
  CHECK(Unescaped(R"(\t)") == "\t");
  CHECK(Unescaped(R"(\")") == "\"");
  CHECK(Unescaped(R"(\')") == "'");
  CHECK(Unescaped(R"(\\)") == "\\");
  CHECK(Unescaped(R"(\303\251)") == "\xC3\xA9");
  CHECK(Unescaped(R"(\000)") == std::string(1, '\0'));
  CHECK(Unescaped(R"(\001x)") == "\x01x");
  CHECK(Unescaped(R"(\177)") == "\x7F");
  CHECK(Unescaped(R"(\377)") == "\xFF");
  CHECK(Unescaped(R"(a\"b\\c\nd)") == "a\"b\\c\nd");
  // Octal takes at most three digits.
  CHECK(Unescaped(R"(\1011)") == "A1");
  // Shorter octal escapes.
  CHECK(Unescaped(R"(\0)") == std::string(1, '\0'));
  CHECK(Unescaped(R"(\12)") == "\n");
  // Hex escapes.
  CHECK(Unescaped(R"(\x41)") == "A");
  CHECK(Unescaped(R"(\x7a!)") == "z!");
  CHECK(Unescaped(R"(\xff)") == "\xFF");
  // Every byte survives a CEscape-style round trip.
  std::string all, escaped;
  for (int c = 0; c < 256; ++c) {
    all += static_cast<char>(c);
    switch (c) {
      case '\n':
        escaped += "\\n";
        break;
      case '\r':
        escaped += "\\r";
        break;
      case '\t':
        escaped += "\\t";
        break;
      case '"':
        escaped += "\\\"";
        break;
      case '\'':
        escaped += "\\'";
        break;
      case '\\':
        escaped += "\\\\";
        break;
      default:
        if (c < 0x20 || c >= 0x7F) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\%03o", c);
          escaped += buf;
        } else {
          escaped += static_cast<char>(c);
        }
    }
  }
  CHECK(Unescaped(escaped) == all);
}

TEST_CASE("lexer: Unescape errors", "[lexer]") {
  CHECK(UnescapeFails("\\"));
  CHECK(UnescapeFails("abc\\"));
  CHECK(UnescapeFails(R"(\q)"));
  CHECK(UnescapeFails(R"(\x)"));
  CHECK(UnescapeFails(R"(\xg)"));
}

bool UnescapesTo(std::string_view body, std::string_view expected) {
  std::string out, error;
  return Lexer::Unescape(body, &out, &error) && out == expected;
}

// absl::CUnescape (what XLA uses for strings) also knows \a \b \f \v \?,
// and rejects escapes whose value does not fit a byte.
TEST_CASE("lexer: Unescape of the rest of C's escapes and range checks", "[lexer]") {
  CHECK(UnescapesTo(R"(\a)", "\a"));
  CHECK(UnescapesTo(R"(\b)", "\b"));
  CHECK(UnescapesTo(R"(\f)", "\f"));
  CHECK(UnescapesTo(R"(\v)", "\v"));
  CHECK(UnescapesTo(R"(\?)", "?"));
  // and rejects escapes whose value does not fit a byte.
  CHECK(UnescapeFails(R"(\400)"));
  CHECK(UnescapeFails(R"(\x100)"));
  CHECK(UnescapeFails(R"(\x123456789abcdef0123)"));
}

TEST_CASE("lexer: a whole instruction", "[lexer]") {
  std::vector<Lexed> all = LexAll(
      "  %dot.1 = f32[2,2]{1,0} dot(f32[2,3]{1,0} %a, f32[3,2]{1,0} %b), "
      "lhs_contracting_dims={1}, rhs_contracting_dims={0}, "
      "metadata={op_name=\"x\\\"y\"}");
  std::vector<Tok> kinds;
  for (const Lexed& t : all) kinds.push_back(t.kind);
  CHECK(std::count(kinds.begin(), kinds.end(), Tok::kError) == 0);
  CHECK(all[0].text == "%dot.1");
  CHECK(all[0].col == 3);
  CHECK(all.back().kind == Tok::kEof);
  const Lexed& str = all[all.size() - 3];
  CHECK(str.kind == Tok::kString);
  CHECK(str.text == "x\\\"y");
  CHECK(Unescaped(str.text) == "x\"y");
}

}  // namespace
}  // namespace hlo

// The direct reader against the general path: wherever it reads a text, the
// module must be the one the general path gives, to every name, attribute,
// literal and source place; where the general path fails it must give up.
// The texts: every .mlir file in testdata/ and third_party/, StableHLO's
// text of every testdata .hlo module (as --emit=stablehlo writes it) and,
// where ../shared is present, JAX's text of the shared cases.
#include "stablehlo/direct_reader.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "catch2/catch.hpp"
#include "ir/hlo_printer.h"
#include "ir/literal.h"
#include "ir/strings.h"
#include "parser/parser.h"
#include "stablehlo/stablehlo.h"
#include "stablehlo/writer.h"

namespace hlo {
namespace {

namespace fs = std::filesystem;

std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<fs::path> FilesUnder(const fs::path& root, std::string_view extension) {
  std::vector<fs::path> out;
  if (!fs::exists(root)) return out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.is_regular_file() && e.path().extension() == extension) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Everything a module holds that the printed text does not show: places,
// print style, parameter numbers, users, the attribute values' kinds.
std::string Describe(Module& m) {
  std::string out = PrintModule(m);
  const PrintStyle& st = m.style();
  StrAppend(&out, "style ", int{st.percent_names}, int{st.signatures}, int{st.operand_shapes},
            int{st.print_metadata}, int{st.print_layouts}, int{st.compact_gte}, " replicas ",
            m.replica_count(), " partitions ", m.num_partitions(), " entry ", m.entry()->name(),
            "\n");
  for (const ModuleAttr& a : m.header_attrs())
    StrAppend(&out, "header ", a.name, "=", a.value, "\n");
  for (const auto& c : m.computations()) {
    StrAppend(&out, "computation ", c->name(), " at ", c->loc().line, ":", c->loc().col,
              " signature ", int{c->printed_signature()}, " fusion ",
              int{c->is_fusion_computation()}, " params ", c->parameter_count(), " root ",
              c->root()->name(), "\n");
    for (const auto& inst : c->instructions()) {
      StrAppend(&out, "  ", inst->name(), " at ", inst->loc().line, ":", inst->loc().col, " ",
                inst->shape().ToString(true), " param ", inst->parameter_number(), " users");
      for (const Instruction* u : inst->users()) StrAppend(&out, " ", u->name());
      for (const Attribute& a : inst->attributes()) {
        StrAppend(&out, " ", AttrName(a.kind), "#", a.value.index(), "=");
        AppendAttrValue(out, a, false);
      }
      if (inst->literal() != nullptr) {
        StrAppend(&out, " literal ", inst->literal()->shape().ToString(true), " ",
                  LiteralToString(*inst->literal(), LiteralStyle::kCompact));
      }
      out += "\n";
    }
  }
  return out;
}

struct Tally {
  int pieces = 0, direct = 0;
};

// Holds the two paths to one result on every piece of `text`.
void CheckText(std::string_view text, const std::string& where, Tally* tally) {
  ParseOptions general;
  general.filename = where;
  general.stablehlo_direct = false;
  for (const TextPiece& piece : SplitStableHlo(text)) {
    std::unique_ptr<Module> direct = stablehlo::ReadDirect(piece.text, piece.first_line);
    ++tally->pieces;
    if (direct == nullptr) continue;
    ++tally->direct;
    auto expected = ParseStableHloPiece(piece.text, piece.first_line, general);
    INFO(where << " (the piece from line " << piece.first_line << ")");
    REQUIRE(expected.ok());
    CHECK(Describe(*direct) == Describe(**expected));
  }
}

TEST_CASE("the direct reader gives the general path's module on the .mlir files") {
  Tally tally;
  for (const char* dir : {"testdata", "third_party"}) {
    for (const fs::path& p : FilesUnder(fs::path(HLO_SOURCE_DIR) / dir, ".mlir")) {
      CheckText(ReadText(p), p.string(), &tally);
    }
  }
  // StableHLO text in testdata's .hlo files (testdata/stablehlo/).
  for (const fs::path& p : FilesUnder(fs::path(HLO_SOURCE_DIR) / "testdata", ".hlo")) {
    const std::string text = ReadText(p);
    if (LooksLikeStableHlo(text)) CheckText(text, p.string(), &tally);
  }
  for (const fs::path& p :
       FilesUnder(fs::path(HLO_SOURCE_DIR) / "../shared/xla-jax/cases", ".mlir")) {
    CheckText(ReadText(p), p.string(), &tally);
  }
  INFO(tally.direct << " of " << tally.pieces << " pieces read directly");
  CHECK(tally.direct >= 28);  // testdata/ and third_party/ alone: 28 (with ../shared: 43)
}

TEST_CASE("the direct reader gives the general path's module on --emit=stablehlo's text") {
  Tally tally;
  int written = 0;
  for (const fs::path& p : FilesUnder(fs::path(HLO_SOURCE_DIR) / "testdata", ".hlo")) {
    auto modules = ParseModules(ReadText(p));
    if (!modules.ok()) continue;  // the files of parser errors
    for (auto& m : *modules) {
      auto text = stablehlo::PrintStableHlo(*m);
      if (!text.ok()) continue;
      ++written;
      CheckText(*text, StrCat(p.string(), " as StableHLO"), &tally);
    }
  }
  INFO(tally.direct << " of " << written << " modules read directly");
  CHECK(tally.direct >= 1120);  // of 1194: 1126
}

TEST_CASE("the direct reader gives up where the general path fails") {
  const char* texts[] = {
      // An undefined value, a type that disagrees, a missing terminator,
      // an unknown callee, a call of the wrong type.
      "func.func @main(%arg0: tensor<f32>) -> tensor<f32> {\n"
      "  %0 = stablehlo.add %arg0, %x : tensor<f32>\n  return %0 : tensor<f32>\n}\n",
      "func.func @main(%arg0: tensor<f32>) -> tensor<f32> {\n"
      "  %0 = stablehlo.add %arg0, %arg0 : tensor<2xf32>\n  return %0 : tensor<f32>\n}\n",
      "func.func @main(%arg0: tensor<f32>) -> tensor<f32> {\n"
      "  %0 = stablehlo.add %arg0, %arg0 : tensor<f32>\n}\n",
      "func.func @main(%arg0: tensor<f32>) -> tensor<f32> {\n"
      "  %0 = call @g(%arg0) : (tensor<f32>) -> tensor<f32>\n  return %0 : tensor<f32>\n}\n",
      "func.func @main(%arg0: tensor<f32>) -> tensor<f32> {\n"
      "  %0 = call @g(%arg0) : (tensor<f32>) -> tensor<f32>\n  return %0 : tensor<f32>\n}\n"
      "func.func private @g(%arg0: tensor<i32>) -> tensor<f32> {\n"
      "  %0 = stablehlo.convert %arg0 : (tensor<i32>) -> tensor<f32>\n"
      "  return %0 : tensor<f32>\n}\n",
      // A return of the wrong type, a truncated text, a broadcast that
      // cannot be.
      "func.func @main(%arg0: tensor<f32>) -> tensor<i32> {\n  return %arg0 : tensor<f32>\n}\n",
      "module @m {\n  func.func @main(%arg0: tensor<f32>) -> tensor<f32> {\n"
      "    return %arg0 : tensor<f32>\n",
      "func.func @main(%arg0: tensor<3xf32>) -> tensor<2x4xf32> {\n"
      "  %0 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<3xf32>) -> tensor<2x4xf32>\n"
      "  return %0 : tensor<2x4xf32>\n}\n",
      // A delegated op whose result type contradicts its operand (found by the
      // fuzz target): the translation's instruction has the operand's shape,
      // the value the declared type, and the return is checked against that.
      "func.func @main(%arg0: tensor<3xf32>) -> tensor<3xi1> {\n"
      "  %0 = chlo.is_neg_inf %arg0 : tensor<3xf32> -> tensor<6xi1>\n"
      "  return %0 : tensor<3xi1>\n}\n",
      // A function named as the translation names a region's computation.
      "func.func @main(%arg0: tensor<2xf32>, %arg1: tensor<f32>) -> tensor<f32> {\n"
      "  %0 = stablehlo.reduce(%arg0 init: %arg1) applies stablehlo.add across dimensions = [0]"
      " : (tensor<2xf32>, tensor<f32>) -> tensor<f32>\n"
      "  %1 = call @region.3(%0) : (tensor<f32>) -> tensor<f32>\n"
      "  return %1 : tensor<f32>\n}\n"
      "func.func private @region.3(%arg0: tensor<f32>) -> tensor<f32> {\n"
      "  return %arg0 : tensor<f32>\n}\n",
      // A module attribute whose header value the HLO parser rejects (found
      // by the fuzz target: an unbalanced bracket in a bare `{...}` value).
      "module @m attributes {mhlo.frontend_attributes = {xla.sdy.meshes = "
      "\"{mesh = #sdy.mesh<[\\\"x\\\"=2?>}\"}} {\n"
      "  func.func public @main(%arg0: tensor<3xf32>) -> tensor<3xf32> {\n"
      "    return %arg0 : tensor<3xf32>\n  }\n}\n",
  };
  ParseOptions general;
  general.stablehlo_direct = false;
  for (const char* text : texts) {
    INFO(text);
    CHECK_FALSE(ParseStableHloPiece(text, 1, general).ok());
    CHECK(stablehlo::ReadDirect(text, 1) == nullptr);
  }
}

TEST_CASE("the direct reader's location aliases are the ones the text defines") {
  // A `#name = loc(...)` line inside a string of another alias (found by
  // the fuzz target: the scan took it for a definition, the parse does
  // not), and a name defined twice: the general path's module either way.
  const char* body =
      "func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {\n"
      "  %0 = stablehlo.negate %arg0 : tensor<2xf32> loc(#loc3)\n"
      "  return %0 : tensor<2xf32>\n}\n"
      "#loc2 = loc(\"/home/u/model.py\":12:9)\n";
  const std::string in_string =
      std::string(body) +
      "#loc3 = loc(\"jit(f)/first\"(#loc2))\n"
      "#loc4 = loc(\"a\n#loc3 = loc(\"jit(f)/second\"(#loc2))\n\"(#loc2))\n";
  const std::string twice = std::string(body) +
                            "#loc3 = loc(\"jit(f)/first\"(#loc2))\n"
                            "#loc3 = loc(\"jit(f)/second\"(#loc2))\n";
  Tally tally;
  CheckText(in_string, "an alias line inside a string", &tally);
  CheckText(twice, "an alias defined twice", &tally);
  CHECK(tally.direct == 0);  // both given up to the general path
}

TEST_CASE("the direct reader reads what JAX prints") {
  // A module of JAX's kind: the direct reader must take it (else the speed
  // of the common case is lost without a failing test).
  const char* text =
      "module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {\n"
      "  func.func public @main(%arg0: tensor<4x8xf32>, %arg1: tensor<8x8xf32>) -> "
      "(tensor<4xf32> {jax.result_info = \"result\"}) {\n"
      "    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>\n"
      "    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], "
      "precision = [DEFAULT, DEFAULT] : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>\n"
      "    %1 = call @relu(%0) : (tensor<4x8xf32>) -> tensor<4x8xf32>\n"
      "    %2 = stablehlo.reduce(%1 init: %cst) applies stablehlo.add across dimensions = [1] : "
      "(tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>\n"
      "    return %2 : tensor<4xf32>\n"
      "  }\n"
      "  func.func private @relu(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {\n"
      "    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>\n"
      "    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x8xf32>\n"
      "    %1 = stablehlo.maximum %arg0, %0 : tensor<4x8xf32>\n"
      "    return %1 : tensor<4x8xf32>\n"
      "  }\n"
      "}\n";
  Tally tally;
  CheckText(text, "jax", &tally);
  CHECK(tally.direct == 1);
}

}  // namespace
}  // namespace hlo

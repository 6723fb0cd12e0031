#include "stablehlo/stablehlo.h"

#include <algorithm>
#include <charconv>

#include "ir/located_status.h"
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "parser/diagnostic.h"
#include "stablehlo/direct_reader.h"
#include "stablehlo/reader.h"
#include "stablehlo/translator.h"

namespace hlo {

namespace {

constexpr std::string_view kGenerated = "<stablehlo-translation>";

// The translated module's text and where each of its lines came from.
struct Translation {
  std::string hlo;
  std::vector<stablehlo::Pos> line_pos;
};

absl::StatusOr<Translation> Translate(std::string_view text, std::string_view filename,
                                      uint32_t first_line) {
  stablehlo::Lexer lex(text, filename, first_line);
  stablehlo::MlirModule module;
  stablehlo::Reader reader(lex);
  HLO_RETURN_IF_ERROR(reader.ReadFile(&module));
  stablehlo::Translator translator(lex, module);
  HLO_RETURN_IF_ERROR(translator.Translate());
  return Translation{translator.TakeText(), translator.TakeLinePos()};
}

// An error of the HLO parser on the translation, moved to the StableHLO op
// the offending line came from.
absl::Status MoveError(const absl::Status& status, const Translation& tr, std::string_view text,
                       uint32_t first_line, std::string_view filename) {
  std::string_view msg(status.message().data(), status.message().size());
  std::string prefix = StrCat(kGenerated, ":");
  if (!msg.starts_with(prefix)) return status;
  std::string_view rest = msg.substr(prefix.size());
  uint32_t line = 0;
  auto r = std::from_chars(rest.data(), rest.data() + rest.size(), line);
  size_t err = rest.find("error: ");
  if (r.ec != std::errc() || err == std::string_view::npos || line == 0 ||
      line > tr.line_pos.size()) {
    return status;
  }
  std::string_view what = rest.substr(err + 7);
  what = what.substr(0, what.find('\n'));
  stablehlo::Pos pos = tr.line_pos[line - 1];
  std::string hlo_line(StripWhitespace(SourceLineAt(tr.hlo, line)));
  if (hlo_line.size() > 160) hlo_line = hlo_line.substr(0, 160) + "...";
  return MarkLocated(absl::InvalidArgumentError(FormatDiagnostic(
      filename, pos.line, pos.col, StrCat(what, " (in its HLO translation: ", hlo_line, ")"),
      SourceLineAt(text, pos.line - first_line + 1))));
}

// True when the text holds nothing but blanks and `//` comments.
bool IsBlank(std::string_view t) {
  while (true) {
    size_t start = t.find_first_not_of(" \t\r\n");
    if (start == std::string_view::npos) return true;
    t = t.substr(start);
    if (!t.starts_with("//")) return false;
    size_t end = t.find('\n');
    if (end == std::string_view::npos) return true;
    t = t.substr(end);
  }
}

}  // namespace

bool LooksLikeStableHlo(std::string_view t) {
  while (true) {
    size_t start = t.find_first_not_of(" \t\r\n");
    if (start == std::string_view::npos) return false;
    t = t.substr(start);
    if (!t.starts_with("//")) break;
    size_t end = t.find('\n');
    if (end == std::string_view::npos) return false;
    t = t.substr(end);
  }
  return t.starts_with("module @") || t.starts_with("module {") ||
         t.starts_with("module attributes") || t.starts_with("func.func") || t.starts_with("#") ||
         t.starts_with("\"builtin.module\"");
}

absl::StatusOr<std::string> StableHloToHloText(std::string_view text, std::string_view filename) {
  HLO_ASSIGN_OR_RETURN(Translation tr, Translate(text, filename, 1));
  return tr.hlo;
}

std::vector<TextPiece> SplitStableHlo(std::string_view text) {
  constexpr std::string_view kMarker = "// -----";
  std::vector<TextPiece> pieces;
  size_t start = 0;
  uint32_t start_line = 1;
  for (size_t at = text.find(kMarker); at != std::string_view::npos;
       at = text.find(kMarker, start)) {
    pieces.push_back({text.substr(start, at - start), start_line});
    start_line += static_cast<uint32_t>(std::count(text.begin() + start, text.begin() + at, '\n'));
    size_t eol = text.find('\n', at);
    if (eol == std::string_view::npos) {
      start = text.size();
      break;
    }
    start = eol + 1;
    ++start_line;
  }
  pieces.push_back({text.substr(start), start_line});
  return pieces;
}

absl::StatusOr<std::unique_ptr<Module>> ParseStableHloPiece(std::string_view text,
                                                            uint32_t first_line,
                                                            const ParseOptions& options) {
  if (IsBlank(text)) {
    return MarkLocated(absl::NotFoundError(FormatDiagnostic(
        options.filename, first_line, 1,
        "expected 'module' or 'func.func', found the end of the text (the input has no module)",
        SourceLineAt(text, 1))));
  }
  if (options.stablehlo_direct) {
    if (std::unique_ptr<Module> m = stablehlo::ReadDirect(text, first_line)) return m;
  }
  HLO_ASSIGN_OR_RETURN(Translation tr, Translate(text, options.filename, first_line));
  ParseOptions hlo_options = options;
  hlo_options.filename = std::string(kGenerated);
  auto module = ParseModule(tr.hlo, hlo_options);
  if (!module.ok()) return MoveError(module.status(), tr, text, first_line, options.filename);
  // Places refer to the StableHLO text from here on.
  auto moved = [&](SourceLoc loc) {
    if (loc.line == 0 || loc.line > tr.line_pos.size()) return SourceLoc{};
    const stablehlo::Pos& p = tr.line_pos[loc.line - 1];
    return SourceLoc{p.line, p.col};
  };
  for (const auto& comp : (*module)->computations()) {
    comp->set_loc(moved(comp->loc()));
    for (const auto& inst : comp->instructions()) inst->set_loc(moved(inst->loc()));
  }
  return module;
}

absl::StatusOr<std::vector<std::unique_ptr<Module>>> ParseStableHlo(std::string_view text,
                                                                    const ParseOptions& options) {
  std::vector<std::unique_ptr<Module>> out;
  absl::Status first_empty;
  for (const TextPiece& piece : SplitStableHlo(text)) {
    auto m = ParseStableHloPiece(piece.text, piece.first_line, options);
    if (absl::IsNotFound(m.status())) {
      if (first_empty.ok()) {
        first_empty = MarkLocated(absl::InvalidArgumentError(m.status().message()));
      }
      continue;
    }
    if (!m.ok()) return m.status();
    out.push_back(*std::move(m));
  }
  // Empty pieces are skipped, but a file needs at least one module.
  if (out.empty()) return first_empty;
  return out;
}

}  // namespace hlo

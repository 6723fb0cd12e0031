// The direct reader's locations: `loc(...)` after an op becomes the
// metadata of the instructions it made, through the text's `#name = loc(...)`
// aliases, as the general path's reader and translator make it
// (locations.h).
#include "ir/strings.h"
#include "stablehlo/attributes.h"
#include "stablehlo/direct_reader_impl.h"
#include "stablehlo/locations.h"

namespace hlo::stablehlo::direct {

// loc ::= 'loc' '(' body ')'   (after 'loc'): the body.
bool DirectReader::LocationBody(std::string_view* body) {
  std::string_view group;
  if (lex_.PeekChar() != '(' || !lex_.SkipBalanced(&group).ok()) return false;
  *body = group.substr(1, group.size() - 2);
  return true;
}

// The metadata a location gives (op_name, source_file and source_line, as
// MetadataText writes them and the HLO parser reads them back): null when it
// says nothing. Names the HLO text would have to escape are left to the
// general path (false).
bool DirectReader::Metadata(std::string_view loc, std::shared_ptr<const KeyValues>* out) {
  if (auto it = metadata_.find(loc); it != metadata_.end()) {
    *out = it->second;
    return true;
  }
  Location l;
  ResolveLocation(loc, aliases_, &l);
  for (const std::string* text : {&l.op_name, &l.file}) {
    for (char c : *text) {
      if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) return false;
    }
  }
  std::shared_ptr<KeyValues> kv;
  if (!l.op_name.empty() || !l.file.empty()) {
    kv = std::make_shared<KeyValues>();
    if (!l.op_name.empty()) {
      kv->push_back({InternedString("op_name"), InternedString(l.op_name), true});
    }
    if (!l.file.empty()) {
      kv->push_back({InternedString("source_file"), InternedString(l.file), true});
      kv->push_back({InternedString("source_line"), InternedString(StrCat(l.line)), false});
    }
  }
  *out = kv;
  metadata_.emplace(loc, *out);
  return true;
}

// The location's metadata on the instructions an op made (those of `comp`
// from index `first`), last among their attributes as the translation
// writes it.
bool DirectReader::SetMetadata(std::string_view loc, Computation* comp, int64_t first) {
  std::shared_ptr<const KeyValues> kv;
  if (!Metadata(loc, &kv)) return false;
  if (kv == nullptr) return true;
  for (int64_t i = first; i < comp->instruction_count(); ++i) {
    comp->instructions()[i]->SetAttr(AttrKind::kMetadata, kv);
  }
  return true;
}

// alias-def ::= '#' name '=' (loc | attr), before or after the module.
bool DirectReader::AliasDef() {
  const std::string_view name = lex_.EatSigilView('#');
  if (name.empty() || !lex_.Eat("=")) return false;
  std::string_view body;
  if (lex_.Eat("loc")) {
    // The ops read so far took their locations from the scan: give up
    // where it saw another definition (a `#name = loc` line inside a
    // string, a name defined twice).
    auto it = aliases_.find(std::string(name));
    if (!LocationBody(&body) || it == aliases_.end() || it->second != body) return false;
    ++defined_aliases_;
    return true;
  }
  Attr ignored;
  return ParseAttr(lex_, &ignored).ok();
}

// The `#name = loc(...)` aliases of the text, wherever they stand (JAX
// writes most after the module), so that an op's location resolves where
// the op is read.
void DirectReader::ScanLocationAliases() {
  const std::string_view text = lex_.text();
  if (text.find("loc(") == std::string_view::npos) return;
  for (size_t at = text[0] == '#' ? 0 : text.find("\n#"); at != std::string_view::npos;
       at = text.find("\n#", at + 1)) {
    Lexer line(text.substr(at), "", 1);
    std::string_view name = line.EatSigilView('#');
    std::string_view group;
    if (name.empty() || !line.Eat("=") || !line.Eat("loc") || line.PeekChar() != '(' ||
        !line.SkipBalanced(&group).ok()) {
      continue;
    }
    aliases_[std::string(name)] = group.substr(1, group.size() - 2);
  }
}

}  // namespace hlo::stablehlo::direct

// The stack-frame index between the HloModule line and the computations
// (see ir/stack_frames.h).
#include <cstdint>

#include "ir/strings.h"
#include "parser/parser_impl.h"

namespace hlo {

namespace {

constexpr std::string_view kLocationFields[] = {"file_name_id", "function_name_id", "line",
                                                "end_line",     "column",           "end_column"};
constexpr std::string_view kFrameFields[] = {"file_location_id", "parent_frame_id"};

}  // namespace

// sub_attrs ::= '{' (','? name '=' int)* '}', each of `names` exactly once
// (32-bit integers, as XLA reads them).
bool Parser::ParseIntSubAttributes(absl::Span<const std::string_view> names, std::string_view what,
                                   int32_t* values) {
  Token open = tok_;
  if (!Expect(Tok::kLBrace, StrCat("'{' to open the ", what))) return false;
  std::vector<bool> seen(names.size(), false);
  while (!At(Tok::kRBrace)) {
    Consume(Tok::kComma);
    if (!At(Tok::kName)) return ErrorExpected(StrCat("a field of the ", what, " or '}'"));
    size_t i = 0;
    while (i < names.size() && names[i] != tok_.text) ++i;
    if (i == names.size()) {
      return ErrorHere(StrCat("unknown field '", tok_.text, "' in the ", what, "; expected ",
                              StrJoin(names, ", ")));
    }
    if (seen[i]) return ErrorHere(StrCat("field '", names[i], "' is given twice"));
    seen[i] = true;
    Advance();
    if (!Expect(Tok::kEqual, StrCat("'=' after '", names[i], "'"))) return false;
    Token at = tok_;
    int64_t v = 0;
    if (!ParseInt(&v)) return false;
    if (v < INT32_MIN || v > INT32_MAX) {
      return ErrorAt(at, StrCat(names[i], "=", v, " is out of range (32-bit signed)"));
    }
    values[i] = static_cast<int32_t>(v);
  }
  for (size_t i = 0; i < names.size(); ++i) {
    if (!seen[i]) {
      return ErrorAt(open, StrCat("the ", what, " has no '", names[i], "' field"));
    }
  }
  Advance();
  return true;
}

// stack_frame_index ::= 'FileNames' (int string)* 'FunctionNames' (int string)*
//                       'FileLocations' (int location)* 'StackFrames' (int frame)*
// location ::= '{' file_name_id= function_name_id= line= end_line= column= end_column= '}'
// frame ::= '{' file_location_id= parent_frame_id= '}'
// As in XLA, the number before each entry is not read: entries are numbered
// by their position.
bool Parser::ParseStackFrameIndex(StackFrameIndex* out) {
  Advance();  // FileNames
  auto names = [&](std::vector<std::string>* list) {
    while (At(Tok::kNumber)) {
      int64_t ignored = 0;
      if (!ParseInt(&ignored)) return false;
      std::string name;
      if (!At(Tok::kString)) return ErrorExpected("a quoted name after its number");
      if (!UnescapeString(tok_, &name)) return false;
      Advance();
      list->push_back(std::move(name));
    }
    return true;
  };
  auto section = [&](std::string_view keyword) {
    if (AtName(keyword)) {
      Advance();
      return true;
    }
    return ErrorExpected(StrCat("'", keyword,
                                "' (the stack-frame index has the sections "
                                "FileNames, FunctionNames, FileLocations, StackFrames)"));
  };
  if (!names(&out->file_names) || !section("FunctionNames") || !names(&out->function_names) ||
      !section("FileLocations")) {
    return false;
  }
  while (At(Tok::kNumber)) {
    int64_t ignored = 0;
    int32_t v[6] = {};
    if (!ParseInt(&ignored) || !ParseIntSubAttributes(kLocationFields, "file location", v)) {
      return false;
    }
    out->file_locations.push_back({v[0], v[1], v[2], v[3], v[4], v[5]});
  }
  if (!section("StackFrames")) return false;
  while (At(Tok::kNumber)) {
    int64_t ignored = 0;
    int32_t v[2] = {};
    if (!ParseInt(&ignored) || !ParseIntSubAttributes(kFrameFields, "stack frame", v)) {
      return false;
    }
    // The text's parent_frame_id is one more than the parent's id.
    out->frames.push_back({v[0], static_cast<int32_t>(int64_t{v[1]} - 1)});
  }
  return true;
}

}  // namespace hlo

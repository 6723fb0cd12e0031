#include "eval/io/run_io.h"

#include <sys/stat.h>

#include <vector>

#include "ir/literal_json.h"
#include "ir/located_status.h"
#include "ir/npy.h"
#include "ir/output_dir.h"
#include "ir/read_file.h"
#include "ir/strings.h"
#include "parser/parser.h"

namespace hlo {
namespace {

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Whether stripped text starts with an array shape: an element type name
// followed by '[' (values like `true`, `nan` or `inf` start with letters too).
bool StartsWithArrayShape(std::string_view t) {
  size_t word = 0;
  while (word < t.size() &&
         ((t[word] >= 'a' && t[word] <= 'z') || (t[word] >= '0' && t[word] <= '9'))) {
    ++word;
  }
  return word < t.size() && t[word] == '[' && ParsePrimitiveType(t.substr(0, word));
}

// Literal text with or without its shape.
absl::StatusOr<Literal> ParseText(const std::string& text, const std::string& path,
                                  const Shape& shape) {
  // A shape prefix is an array shape, or '(' for a tuple.
  std::string_view t = StripWhitespace(text);
  bool has_shape = (!t.empty() && t[0] == '(' && shape.IsTuple()) || StartsWithArrayShape(t);
  if (has_shape) {
    auto lit = ParseLiteral(text, ParseOptions{path});
    if (!lit.ok()) return lit.status();
    return lit;
  }
  return ParseLiteralValue(text, shape.WithoutLayout(), ParseOptions{path});
}

// Writes the tree's arrays as PREFIX.npy, PREFIX_0.npy, PREFIX_1_0.npy, ...
absl::Status WriteNpyTree(const Literal& lit, OutputDir& out, const std::string& prefix) {
  if (lit.IsTuple()) {
    for (size_t i = 0; i < lit.elements().size(); ++i) {
      absl::Status st = WriteNpyTree(lit.elements()[i], out, StrCat(prefix, "_", i));
      if (!st.ok()) return st;
    }
    return absl::OkStatus();
  }
  return out.Write(StrCat(prefix, ".npy"), [&](ByteSink sink) { return StreamNpy(lit, sink); });
}

absl::Status NpzError(const std::string& path) {
  return MarkLocated(absl::InvalidArgumentError(
      StrCat(path,
             ": error: an .npz archive (numpy.savez) is not read: give each array as an "
             ".npy file (numpy.save)")));
}

}  // namespace

absl::StatusOr<Literal> LoadLiteralFile(const std::string& path, const Shape& shape) {
  if (EndsWith(path, ".npz")) return NpzError(path);
  if (EndsWith(path, ".npy")) return ReadNpyFile(path, shape);
  auto data = ReadWholeFile(path);
  if (!data.ok()) return data.status();
  // A zip archive (np.savez) under another name is no text either.
  if (data->starts_with("PK\x03\x04")) return NpzError(path);
  if (EndsWith(path, ".json")) return LiteralFromJson(*data, path);
  return ParseText(*data, path, shape);
}

bool LooksLikeLiteral(std::string_view text) {
  std::string_view t = StripWhitespace(text);
  // A path (`1.npy`, `data/x`) is a file, missing or not.
  if (t.empty() || t.find('/') != std::string_view::npos) return false;
  for (std::string_view ext : {".npy", ".npz", ".json", ".txt"}) {
    if (t.ends_with(ext)) return false;
  }
  char c = t[0];
  if (c == '{' || c == '(' || c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9')) {
    return true;
  }
  for (std::string_view word : {"true", "false", "nan", "inf"}) {
    if (t == word) return true;
  }
  return StartsWithArrayShape(t);
}

absl::StatusOr<Literal> LoadInputArgument(const std::string& arg, const Shape& shape) {
  struct stat st {};
  if (stat(arg.c_str(), &st) == 0 || !LooksLikeLiteral(arg)) return LoadLiteralFile(arg, shape);
  return ParseText(arg, "<--input>", shape);
}

absl::StatusOr<Literal> LoadExpected(const std::string& path, const Shape& result_shape) {
  return LoadLiteralFile(path, result_shape);
}

std::string ResultToText(const Literal& result) {
  std::string out = LiteralToString(result, LiteralStyle::kCompact);
  out += '\n';
  return out;
}

absl::Status WriteResultNpy(const std::vector<Literal>& results,
                            const std::vector<std::string>& subdirs, const std::string& dir) {
  if (!subdirs.empty() && subdirs.size() != results.size()) {
    return absl::InternalError("WriteResultNpy: one subdirectory per result expected");
  }
  auto out = OutputDir::Open(dir, /*make_parents=*/false);
  if (!out.ok()) return out.status();
  for (size_t d = 0; d < results.size(); ++d) {
    std::string prefix = !subdirs.empty() ? StrCat(subdirs[d], "/result") : "result";
    // On failure the OutputDir removes what was written.
    if (absl::Status st = WriteNpyTree(results[d], **out, prefix); !st.ok()) return st;
  }
  return (*out)->Commit();
}

}  // namespace hlo

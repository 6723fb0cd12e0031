#include "eval/io/feed_io.h"

#include <nlohmann/json.hpp>

#include "ir/literal_json.h"
#include "ir/located_status.h"
#include "ir/npy.h"
#include "ir/read_file.h"
#include "ir/strings.h"
#include "parser/parser.h"

namespace hlo {
namespace {

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Literals with shapes, each starting on a new line: lines are gathered
// until they read as one literal.
absl::StatusOr<std::vector<FeedItem>> TextFeed(const std::string& text, const std::string& path) {
  std::vector<FeedItem> items;
  std::string pending;
  int first_line = 0, line_no = 0;
  for (std::string_view line : StrSplit(text, '\n')) {
    ++line_no;
    std::string_view t = StripWhitespace(line);
    if (pending.empty() && (t.empty() || t.substr(0, 2) == "//")) continue;
    if (pending.empty()) first_line = line_no;
    StrAppend(&pending, line, "\n");
    auto lit = ParseLiteral(pending, ParseOptions{path});
    if (!lit.ok()) continue;
    items.push_back(FeedItem{*std::move(lit), "", path});
    pending.clear();
  }
  if (!StripWhitespace(pending).empty()) {
    auto lit = ParseLiteral(pending, ParseOptions{path});
    return MarkLocated(
        absl::InvalidArgumentError(StrCat(path, ":", first_line,
                                          ": error: cannot read an infeed value (literal text with "
                                          "its shape, e.g. f32[2] {1, 2}): ",
                                          std::string(lit.status().message()))));
  }
  return items;
}

absl::StatusOr<std::vector<FeedItem>> JsonFeed(const std::string& text, const std::string& path) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded())
    return MarkLocated(absl::InvalidArgumentError(StrCat(path, ": error: not valid JSON")));
  std::vector<FeedItem> items;
  std::vector<std::string> parts;
  if (j.is_array()) {
    for (const nlohmann::json& e : j) parts.push_back(e.dump());
  } else {
    parts.push_back(text);
  }
  for (size_t i = 0; i < parts.size(); ++i) {
    auto lit = LiteralFromJson(parts[i], StrCat(path, " value ", i));
    if (!lit.ok()) return lit.status();
    items.push_back(FeedItem{*std::move(lit), "", path});
  }
  return items;
}

}  // namespace

absl::StatusOr<std::vector<FeedItem>> LoadFeedFile(const std::string& path) {
  absl::StatusOr<std::string> read = ReadWholeFile(path);
  if (!read.ok()) return read.status();
  std::string& data = *read;
  if (EndsWith(path, ".npy")) return std::vector<FeedItem>{FeedItem{std::nullopt, data, path}};
  if (EndsWith(path, ".json")) return JsonFeed(data, path);
  return TextFeed(data, path);
}

absl::StatusOr<Literal> FeedLiteral(const FeedItem& item, const Shape& shape) {
  if (item.literal) return *item.literal;
  return ReadNpy(item.npy, shape, item.source);
}

}  // namespace hlo

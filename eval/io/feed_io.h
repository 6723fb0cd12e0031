// hlo-run's infeed and outfeed files. An infeed file holds the values the
// infeed ops read, in order: literal text (one or more literals with their
// shapes, each starting on a new line), design.md's JSON (one result object,
// or a JSON list of them) or one .npy array (read with the shape the infeed
// declares). The outfeed is written as literal text, one value per line,
// under a `replica R:` header per device when there are several.
#ifndef HLO_EVAL_IO_FEED_IO_H_
#define HLO_EVAL_IO_FEED_IO_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/literal.h"

namespace hlo {

// One value of an infeed: a literal, or an .npy image read with the shape
// the infeed declares when it runs.
struct FeedItem {
  std::optional<Literal> literal;
  std::string npy;
  std::string source;  // the file, for errors
};

absl::StatusOr<std::vector<FeedItem>> LoadFeedFile(const std::string& path);
// The literal of a feed item for an infeed of data shape `shape`.
absl::StatusOr<Literal> FeedLiteral(const FeedItem& item, const Shape& shape);

}  // namespace hlo

#endif  // HLO_EVAL_IO_FEED_IO_H_

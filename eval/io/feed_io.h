// hlo-run's infeed and outfeed files. An infeed file holds the values the
// infeed ops read, in order: literal text (one or more literals with their
// shapes, each starting on a new line), design.md's JSON (one result object,
// or a JSON list of them) or one .npy array (read with the shape the infeed
// declares). The outfeed is written as literal text, one value per line,
// under a `replica R:` header per device when there are several.
#ifndef HLO_EVAL_IO_FEED_IO_H_
#define HLO_EVAL_IO_FEED_IO_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "eval/collectives/replica_context.h"

namespace hlo {

absl::StatusOr<std::vector<FeedItem>> LoadFeedFile(const std::string& path);
// The literal of a feed item for an infeed of data shape `shape`.
absl::StatusOr<Literal> FeedLiteral(const FeedItem& item, const Shape& shape);

}  // namespace hlo

#endif  // HLO_EVAL_IO_FEED_IO_H_

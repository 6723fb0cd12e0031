// Small helpers the op translators share: attribute lookup under the
// pretty and the generic names, HLO list texts, enum words.
#ifndef HLO_STABLEHLO_OP_UTIL_H_
#define HLO_STABLEHLO_OP_UTIL_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "stablehlo/ast.h"
#include "stablehlo/translator.h"

namespace hlo::stablehlo {

// The attribute under the first of `names` present, or null.
const Attr* FindAny(const Op& op, std::initializer_list<std::string_view> names);
// The same, an error naming the first name when absent.
absl::Status Require(const Translator& t, const Op& op,
                     std::initializer_list<std::string_view> names, const Attr** out);
absl::Status RequireInts(const Translator& t, const Op& op,
                         std::initializer_list<std::string_view> names, std::vector<int64_t>* out);
// Absent: `fallback`.
absl::Status OptionalInts(const Translator& t, const Op& op,
                          std::initializer_list<std::string_view> names, std::vector<int64_t>* out);
absl::Status OptionalInt(const Translator& t, const Op& op,
                         std::initializer_list<std::string_view> names, int64_t fallback,
                         int64_t* out);
bool OptionalBool(const Op& op, std::string_view name);

// `"text"` as HLO text quotes a string (\" \\ and \n escaped).
std::string HloQuoted(std::string_view s);
// `k="v"` for each entry of the op's mhlo.frontend_attributes (string
// values: XLA's translation takes no others).
std::vector<std::string> FrontendAttributeEntries(const Op& op);
// `{1,2,3}`
std::string IntList(const std::vector<int64_t>& v);
// `a, b, c` of the values' names.
std::string Names(const std::vector<Value>& values);

// broadcast_in_dim of `v` to `target` with operand dimension i at map[i];
// size-1 dimensions that expand are reshaped away first (HLO's broadcast
// keeps sizes), as XLA's translation does. Returns the instruction's name.
absl::StatusOr<std::string> BroadcastTo(Translator& t, Scope& s, const Op& op, const Value& v,
                                        const Type& target, const std::vector<int64_t>& map,
                                        Pos pos);

// A convolution's dimension numbers `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`
// as HLO's dim_labels `b01f_01io->b01f`, and the kernel's spatial dimensions.
absl::Status ConvLabels(const Translator& t, const Attr& a, std::string* out,
                        std::vector<int64_t>* kernel_spatial);

// The number of results an op must have.
absl::Status ExpectResults(const Translator& t, const Op& op, size_t n);
absl::Status ExpectOperands(const Translator& t, const Op& op, size_t n);

// Registration of op translators (each ops_*.cc has a table).
struct OpEntry {
  std::string_view name;
  OpTranslator fn;
};
std::vector<OpEntry> ElementwiseOps();
std::vector<OpEntry> DataOps();
std::vector<OpEntry> StructureOps();
std::vector<OpEntry> CollectiveOps();
std::vector<OpEntry> ChloOps();
std::vector<OpEntry> MiscOps();
std::vector<OpEntry> FeedOps();      // ops_feeds.cc: infeed, outfeed, send, recv
std::vector<OpEntry> CheckOps();     // ops_check.cc: the interpreter tests' check.*
std::vector<OpEntry> ParallelOps();  // ops_parallel.cc: interpreter.run_parallel

// custom_call @check.eq (StableHLO's testdata) and @check.expect_* as the
// check ops (ops_check.cc).
absl::Status CheckCustomCall(Translator& t, const Op& op, Scope& s);
// custom_call @ragged_all_to_all (XLA's import of ragged-all-to-all: the
// replica groups and channel in its dictionary config) as the HLO op.
absl::Status RaggedAllToAllCall(Translator& t, const Op& op, Scope& s);

}  // namespace hlo::stablehlo

#endif  // HLO_STABLEHLO_OP_UTIL_H_

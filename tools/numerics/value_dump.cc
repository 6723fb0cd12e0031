#include "tools/numerics/value_dump.h"

#include "ir/npy.h"
#include "ir/status_macros.h"
#include "ir/strings.h"

namespace hlo {

ValueDumper::ValueDumper(const Module& module, const std::string& pattern,
                         std::unique_ptr<OutputDir> dir)
    : module_(module), pattern_(pattern, RE2::Quiet), dir_(std::move(dir)) {}

absl::Status ValueDumper::Finished(const Instruction& inst, absl::Span<const Value* const>,
                                   const Value& result) {
  const std::string_view name = inst.name();
  if (!RE2::PartialMatch(re2::StringPiece(name.data(), name.size()), pattern_)) {
    return absl::OkStatus();
  }
  const std::vector<int64_t> trips = Trips();
  std::string base(name);
  for (int64_t t : trips) StrAppend(&base, ".iter", t);
  int64_t& runs = runs_[base];
  if (runs > 0) StrAppend(&base, ".call", runs);
  ++runs;
  return WriteLeaves(inst, result, base, "", trips);
}

absl::Status ValueDumper::WriteLeaves(const Instruction& inst, const Value& value,
                                      const std::string& base, const std::string& suffix,
                                      const std::vector<int64_t>& trips) {
  if (value.is_tuple()) {
    for (size_t i = 0; i < value.elements().size(); ++i) {
      std::string inner = suffix.empty() ? StrCat(".elem", i) : StrCat(suffix, "_", i);
      HLO_RETURN_IF_ERROR(
          WriteLeaves(inst, value.element(static_cast<int64_t>(i)), base, inner, trips));
    }
    return absl::OkStatus();
  }
  if (!value.is_array()) return absl::OkStatus();  // a token
  const std::string file = StrCat(base, suffix, ".npy");
  absl::StatusOr<std::string> bytes = WriteNpy(value.array());
  if (!bytes.ok()) return bytes.status();
  HLO_RETURN_IF_ERROR(dir_->Write(file, *bytes));
  nlohmann::json entry = {{"file", file},
                          {"instruction", std::string(inst.name())},
                          {"computation", inst.parent() != nullptr ? inst.parent()->name() : ""},
                          {"opcode", inst.OpcodeText()},
                          {"iterations", trips},
                          {"shape", value.array().shape().ToString(false)}};
  if (std::string source = SourceOf(module_, inst); !source.empty()) entry["source"] = source;
  index_.push_back(std::move(entry));
  return absl::OkStatus();
}

absl::Status ValueDumper::Finish(bool complete) {
  nlohmann::json doc = {{"module", module_.name()}, {"complete", complete}, {"values", index_}};
  HLO_RETURN_IF_ERROR(dir_->Write("index.json", doc.dump(1) + "\n"));
  return dir_->Commit();
}

}  // namespace hlo

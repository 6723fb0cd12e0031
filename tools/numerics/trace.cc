#include "tools/numerics/trace.h"

#include <cmath>
#include <complex>
#include <limits>
#include <variant>

#include "ir/attribute.h"
#include "ir/strings.h"

namespace hlo {

absl::Status TracingObserver::After(const Instruction& inst,
                                    absl::Span<const Value* const> operands, const Value* result) {
  if (!running_.empty()) running_.pop_back();
  if (result == nullptr) return absl::OkStatus();
  return Finished(inst, operands, *result);
}

bool IsLoop(const Instruction& inst) {
  return inst.opcode() == Opcode::kWhile || inst.opcode() == Opcode::kScan;
}

std::vector<int64_t> TracingObserver::Trips() const {
  std::vector<int64_t> trips;
  for (const Running& r : running_) {
    if (IsLoop(*r.inst)) trips.push_back(r.trip);
  }
  return trips;
}

std::string DescribeRunning(const std::vector<TracingObserver::Running>& running) {
  std::string out;
  for (const TracingObserver::Running& r : running) {
    StrAppend(&out, out.empty() ? "" : " > ", "%", r.inst->name());
    if (IsLoop(*r.inst)) StrAppend(&out, " iteration ", r.trip);
  }
  return out;
}

namespace {

// Metadata's value for `key`, or empty.
std::string MetadataValue(const Instruction& inst, std::string_view key) {
  const Attribute* a = inst.FindAttr(AttrKind::kMetadata);
  if (a == nullptr) return "";
  const auto* kvs = std::get_if<std::shared_ptr<const KeyValues>>(&a->value);
  if (kvs == nullptr || *kvs == nullptr) return "";
  for (const KeyValue& kv : **kvs) {
    if (kv.key == key) return kv.value.str();
  }
  return "";
}

}  // namespace

std::string OpNameOf(const Instruction& inst) { return MetadataValue(inst, "op_name"); }

std::string SourceOf(const Module& module, const Instruction& inst) {
  const StackFrameIndex& index = module.stack_frames();
  int64_t id = 0;
  std::string out;
  if (ParseInt64(MetadataValue(inst, "stack_frame_id"), &id)) {
    // Innermost first; a bad id or a cycle ends the walk (at most one step
    // per frame).
    for (size_t steps = 0;
         id > 0 && id <= static_cast<int64_t>(index.frames.size()) && steps < index.frames.size();
         ++steps) {
      const StackFrameIndex::Frame& frame = index.frames[id - 1];
      const int32_t loc_id = frame.file_location_id;
      if (loc_id <= 0 || loc_id > static_cast<int32_t>(index.file_locations.size())) break;
      const StackFrameIndex::FileLocation& loc = index.file_locations[loc_id - 1];
      auto name = [](const std::vector<std::string>& names, int32_t i) {
        return i > 0 && i <= static_cast<int32_t>(names.size()) ? names[i - 1] : std::string("?");
      };
      StrAppend(&out, out.empty() ? "" : " <- ", name(index.file_names, loc.file_name_id), ":",
                loc.line, " (", name(index.function_names, loc.function_name_id), ")");
      id = frame.parent;
    }
  }
  if (!out.empty()) return out;
  std::string file = MetadataValue(inst, "source_file");
  std::string line = MetadataValue(inst, "source_line");
  if (file.empty()) return "";
  return line.empty() ? file : StrCat(file, ":", line);
}

std::string TextLocationOf(const Module& module, const Instruction& inst) {
  if (inst.loc().line == 0) return "";
  return StrCat(module.source_name().empty() ? "<module>" : module.source_name(), ":",
                inst.loc().line, ":", inst.loc().col);
}

namespace {

void Count(ArrayStats& s, double v, int64_t i) {
  if (std::isfinite(v)) {
    if (!s.has_finite || v < s.min) s.min = v;
    if (!s.has_finite || v > s.max) s.max = v;
    s.has_finite = true;
    return;
  }
  if (std::isnan(v)) {
    ++s.nan;
  } else if (v > 0) {
    ++s.pos_inf;
  } else {
    ++s.neg_inf;
  }
  if (s.first_nonfinite < 0) s.first_nonfinite = i;
}

// The typed loop for f32 and f64 (most values); others through GetDouble.
template <typename T>
void CountTyped(ArrayStats& s, const T* data, int64_t n) {
  for (int64_t i = 0; i < n; ++i) Count(s, static_cast<double>(data[i]), i);
}

}  // namespace

ArrayStats StatsOf(const Literal& array) {
  ArrayStats s;
  const int64_t n = array.element_count();
  s.count = n;
  const PrimitiveType t = array.element_type();
  if (t == PrimitiveType::kF32) {
    CountTyped(s, array.typed<float>(), n);
  } else if (t == PrimitiveType::kF64) {
    CountTyped(s, array.typed<double>(), n);
  } else if (IsComplex(t)) {
    for (int64_t i = 0; i < n; ++i) {
      std::complex<double> c = array.GetComplex(i);
      Count(s, c.real(), i);
      if (!std::isfinite(c.imag())) Count(s, c.imag(), i);
    }
  } else if (IsFloat(t)) {
    for (int64_t i = 0; i < n; ++i) Count(s, array.GetDouble(i), i);
  } else {
    for (int64_t i = 0; i < n; ++i) Count(s, static_cast<double>(array.GetInt(i)), i);
  }
  return s;
}

std::string DescribeArray(const Literal& array) {
  ArrayStats s = StatsOf(array);
  std::string out = array.shape().ToString(false);
  if (s.has_finite) {
    StrAppend(&out, ": min ", s.min, " max ", s.max);
  } else {
    out += s.count == 0 ? ": empty" : ": no finite element";
  }
  const PrimitiveType t = array.element_type();
  if (IsFloat(t) || IsComplex(t)) {
    StrAppend(&out, ", ", s.nan, " NaN, ", s.pos_inf, " +Inf, ", s.neg_inf, " -Inf of ", s.count);
  }
  return out;
}

std::string IndexText(const Shape& shape, int64_t i) {
  std::vector<int64_t> index(shape.rank());
  for (int64_t d = shape.rank(); d-- > 0;) {
    const int64_t size = std::max<int64_t>(1, shape.dim(d));
    index[d] = i % size;
    i /= size;
  }
  return StrCat("{", StrJoin(index, ","), "}");
}

}  // namespace hlo

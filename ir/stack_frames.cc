#include "ir/stack_frames.h"

#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ir/attribute.h"
#include "ir/computation.h"
#include "ir/module.h"
#include "ir/strings.h"

namespace hlo {

void AppendStackFrameIndex(std::string& out, const StackFrameIndex& index) {
  if (index.empty()) return;
  out += "\n\nFileNames\n";
  for (size_t i = 0; i < index.file_names.size(); ++i) {
    StrAppend(&out, i + 1, " ");
    AppendQuoted(out, index.file_names[i]);
    out += '\n';
  }
  out += "\nFunctionNames\n";
  for (size_t i = 0; i < index.function_names.size(); ++i) {
    StrAppend(&out, i + 1, " ");
    AppendQuoted(out, index.function_names[i]);
    out += '\n';
  }
  out += "\nFileLocations\n";
  for (size_t i = 0; i < index.file_locations.size(); ++i) {
    const StackFrameIndex::FileLocation& l = index.file_locations[i];
    StrAppend(&out, i + 1, " {file_name_id=", l.file_name_id,
              " function_name_id=", l.function_name_id, " line=", l.line, " end_line=", l.end_line,
              " column=", l.column, " end_column=", l.end_column, "}\n");
  }
  out += "\nStackFrames\n";
  for (size_t i = 0; i < index.frames.size(); ++i) {
    const StackFrameIndex::Frame& f = index.frames[i];
    // The text's parent_frame_id is one more than the parent's id.
    StrAppend(&out, i + 1, " {file_location_id=", f.file_location_id,
              " parent_frame_id=", int64_t{f.parent} + 1, "}\n");
  }
}

namespace {

// Builds the canonical index frame by frame, merging equal names, locations
// and frames (XLA's StackFrames::AddStackFrame).
class FrameInterner {
 public:
  // The new id of `old_id`'s frame in `in` with its parent already interned
  // as `parent`, or 0 when its location or names are out of range.
  // Whether `old_id`'s location and names are in range in `in`.
  static bool Valid(const StackFrameIndex& in, int32_t old_id) {
    int32_t loc_id = in.frames[old_id - 1].file_location_id;
    if (loc_id <= 0 || loc_id > static_cast<int64_t>(in.file_locations.size())) return false;
    const StackFrameIndex::FileLocation& loc = in.file_locations[loc_id - 1];
    return loc.file_name_id > 0 && loc.file_name_id <= static_cast<int64_t>(in.file_names.size()) &&
           loc.function_name_id > 0 &&
           loc.function_name_id <= static_cast<int64_t>(in.function_names.size());
  }

  // The new id of `old_id`'s frame (Valid) in `in` with its parent already
  // interned as `parent`.
  int32_t Intern(const StackFrameIndex& in, int32_t old_id, int32_t parent) {
    const StackFrameIndex::FileLocation& loc =
        in.file_locations[in.frames[old_id - 1].file_location_id - 1];
    StackFrameIndex::FileLocation l = loc;
    l.file_name_id = Id(files_, out_.file_names, in.file_names[loc.file_name_id - 1]);
    l.function_name_id =
        Id(functions_, out_.function_names, in.function_names[loc.function_name_id - 1]);
    auto key = std::make_tuple(l.file_name_id, l.function_name_id, l.line, l.column, l.end_line,
                               l.end_column);
    auto [lit, new_loc] = locations_.try_emplace(key, out_.file_locations.size() + 1);
    if (new_loc) out_.file_locations.push_back(l);
    auto [fit, new_frame] =
        frames_.try_emplace(std::make_pair(lit->second, parent), out_.frames.size() + 1);
    if (new_frame) out_.frames.push_back({lit->second, parent});
    return fit->second;
  }
  StackFrameIndex Take() { return std::move(out_); }

 private:
  static int32_t Id(absl::flat_hash_map<std::string, int32_t>& ids, std::vector<std::string>& names,
                    const std::string& name) {
    auto [it, inserted] = ids.try_emplace(name, names.size() + 1);
    if (inserted) names.push_back(name);
    return it->second;
  }

  StackFrameIndex out_;
  absl::flat_hash_map<std::string, int32_t> files_, functions_;
  absl::flat_hash_map<std::tuple<int32_t, int32_t, int32_t, int32_t, int32_t, int32_t>, int32_t>
      locations_;
  absl::flat_hash_map<std::pair<int32_t, int32_t>, int32_t> frames_;
};

constexpr std::string_view kStackFrameId = "stack_frame_id";

// The metadata's stack_frame_id entry, or null.
const KeyValue* FindStackFrameId(const Instruction& inst) {
  const Attribute* a = inst.FindAttr(AttrKind::kMetadata);
  if (a == nullptr) return nullptr;
  for (const KeyValue& kv : *std::get<std::shared_ptr<const KeyValues>>(a->value)) {
    if (kv.key == kStackFrameId) return &kv;
  }
  return nullptr;
}

bool ParseFrameId(std::string_view text, int32_t* out) {
  int64_t v = 0;
  if (!ParseInt64(text, &v) || v < INT32_MIN || v > INT32_MAX) return false;
  *out = static_cast<int32_t>(v);
  return true;
}

// Sets the metadata's stack_frame_id to `id`, or drops it for 0 (and the
// metadata with it when nothing else is left).
void SetStackFrameId(Instruction& inst, int32_t id) {
  const Attribute* a = inst.FindAttr(AttrKind::kMetadata);
  KeyValues kvs;
  for (const KeyValue& kv : *std::get<std::shared_ptr<const KeyValues>>(a->value)) {
    if (kv.key != kStackFrameId) {
      kvs.push_back(kv);
    } else if (id != 0) {
      kvs.push_back({kv.key, InternedString(StrCat(id)), false});
    }
  }
  if (kvs.empty()) {
    inst.RemoveAttr(AttrKind::kMetadata);
  } else {
    inst.SetAttr(AttrKind::kMetadata, std::make_shared<const KeyValues>(std::move(kvs)));
  }
}

}  // namespace

const Instruction* CanonicalizeStackFrameIds(Module& module, const StackFrameIndex& in) {
  for (const auto& comp : module.computations()) {
    for (const auto& inst : comp->instructions()) {
      const KeyValue* kv = FindStackFrameId(*inst);
      int32_t id = 0;
      if (kv != nullptr && !ParseFrameId(kv->value, &id)) return inst.get();
    }
  }
  FrameInterner interner;
  absl::flat_hash_map<int32_t, int32_t> mapping;  // old frame id -> new
  const int64_t frame_count = static_cast<int64_t>(in.frames.size());
  for (const auto& comp : module.computations()) {
    for (const auto& inst : comp->instructions()) {
      const KeyValue* kv = FindStackFrameId(*inst);
      if (kv == nullptr) continue;
      int32_t old_id = 0;
      ParseFrameId(kv->value, &old_id);
      // The frames from old_id up to the first one already interned (or the
      // root), youngest first.
      std::vector<int32_t> path;
      absl::flat_hash_set<int32_t> visited;
      int32_t current = old_id;
      bool valid = true;
      while (current != 0) {
        // A path that reaches an invalid frame interns nothing: frames kept
        // for it would be unused, and dropped (renumbering the rest) when
        // the printed text is read again.
        if (current < 0 || current > frame_count || !visited.insert(current).second ||
            !FrameInterner::Valid(in, current)) {
          valid = false;
          break;
        }
        if (mapping.contains(current)) break;
        path.push_back(current);
        current = in.frames[current - 1].parent;
      }
      int32_t new_id = 0;
      if (valid) {
        new_id = current == 0 ? 0 : mapping[current];
        for (auto it = path.rbegin(); it != path.rend(); ++it) {
          new_id = interner.Intern(in, *it, new_id);
          mapping[*it] = new_id;
        }
      }
      if (new_id == 0 || !(kv->value == StrCat(new_id))) SetStackFrameId(*inst, new_id);
    }
  }
  module.stack_frames() = interner.Take();
  return nullptr;
}

}  // namespace hlo

#include "ir/attribute.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <iterator>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "ir/bare_name.h"
#include "ir/computation.h"
#include "ir/instruction.h"
#include "ir/literal.h"
#include "ir/strings.h"

namespace hlo {
namespace {

// absl's string hash: Debian's Abseil would hash std::string_view with
// std::hash, which is slower on these short names.
struct NameHash {
  size_t operator()(std::string_view s) const {
    return absl::Hash<absl::string_view>{}(absl::string_view(s.data(), s.size()));
  }
};

struct AttrInfo {
  std::string_view name;
  AttrType type;
};

constexpr std::array<AttrInfo, kNumAttrKinds> kAttrs = {{
#define HLO_ATTR_INFO(e, name, type) {name, AttrType::type},
    HLO_ATTRIBUTES(HLO_ATTR_INFO)
#undef HLO_ATTR_INFO
}};

void AppendInts(std::string& out, const std::vector<int64_t>& v, const char* sep = ",") {
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += sep;
    StrAppend(&out, v[i]);
  }
}

void AppendIntBraces(std::string& out, const std::vector<int64_t>& v) {
  out += '{';
  AppendInts(out, v);
  out += '}';
}

// `3x3` style lists of one window field.
template <typename F>
void AppendWindowField(std::string& out, const char* name, const Window& w, F field) {
  out += name;
  for (size_t i = 0; i < w.size(); ++i) {
    if (i) out += 'x';
    field(out, w[i]);
  }
}

}  // namespace

std::string_view AttrName(AttrKind kind) { return kAttrs[static_cast<int>(kind)].name; }

AttrType AttrValueType(AttrKind kind) { return kAttrs[static_cast<int>(kind)].type; }

std::optional<AttrKind> ParseAttrName(std::string_view name) {
  static const auto* index = [] {
    auto* m = new absl::flat_hash_map<std::string_view, AttrKind, NameHash>();
    for (int i = 0; i < kNumAttrKinds; ++i) {
      m->emplace(kAttrs[i].name, static_cast<AttrKind>(i));
    }
    return m;
  }();
  auto it = index->find(name);
  if (it == index->end()) return std::nullopt;
  return it->second;
}

std::vector<std::string_view> AllAttrNames() {
  std::vector<std::string_view> names;
  for (const AttrInfo& a : kAttrs) names.push_back(a.name);
  return names;
}

std::vector<int64_t> IotaTileAssignment::Expand() const {
  if (transpose_perm.empty()) {
    int64_t n = 1;
    for (int64_t d : reshape_dims) n *= d;
    return TransposedIota({n}, {0});
  }
  return TransposedIota(reshape_dims, transpose_perm);
}

std::vector<std::vector<int64_t>> ReplicaGroups::Groups() const {
  if (mesh) return ExpandMeshReplicaGroups(*mesh).value_or(std::vector<std::vector<int64_t>>());
  if (!iota) return groups;
  std::vector<int64_t> ids = iota->Expand();
  std::vector<std::vector<int64_t>> out;
  if (iota->dims.size() != 2) return out;
  int64_t per = iota->dims[1];
  for (int64_t g = 0; g < iota->dims[0]; ++g) {
    out.emplace_back(ids.begin() + g * per, ids.begin() + (g + 1) * per);
  }
  return out;
}

// As absl::CEscape, which XLA uses: \n \r \t \" \' \\ and every other
// byte outside printable ASCII as three octal digits.
void AppendQuoted(std::string& out, std::string_view text) {
  out += '"';
  for (char ch : text) {
    unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\'':
        out += "\\'";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20 || c >= 0x7f) {
          out += '\\';
          out += static_cast<char>('0' + (c >> 6));
          out += static_cast<char>('0' + ((c >> 3) & 7));
          out += static_cast<char>('0' + (c & 7));
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

void AppendWindow(std::string& out, const Window& w) {
  out += '{';
  bool any = false;
  auto sep = [&] {
    if (any) out += ' ';
    any = true;
  };
  auto has = [&](auto pred) {
    for (const WindowDim& d : w) {
      if (pred(d)) return true;
    }
    return false;
  };
  if (!w.empty()) {
    sep();
    AppendWindowField(out, "size=", w,
                      [](std::string& o, const WindowDim& d) { StrAppend(&o, d.size); });
  }
  if (has([](const WindowDim& d) { return d.stride != 1; })) {
    sep();
    AppendWindowField(out, "stride=", w,
                      [](std::string& o, const WindowDim& d) { StrAppend(&o, d.stride); });
  }
  if (has([](const WindowDim& d) { return d.padding_low != 0 || d.padding_high != 0; })) {
    sep();
    AppendWindowField(out, "pad=", w, [](std::string& o, const WindowDim& d) {
      StrAppend(&o, d.padding_low, "_", d.padding_high);
    });
  }
  if (has([](const WindowDim& d) { return d.base_dilation != 1; })) {
    sep();
    AppendWindowField(out, "lhs_dilate=", w,
                      [](std::string& o, const WindowDim& d) { StrAppend(&o, d.base_dilation); });
  }
  if (has([](const WindowDim& d) { return d.window_dilation != 1; })) {
    sep();
    AppendWindowField(out, "rhs_dilate=", w,
                      [](std::string& o, const WindowDim& d) { StrAppend(&o, d.window_dilation); });
  }
  if (has([](const WindowDim& d) { return d.window_reversal; })) {
    sep();
    AppendWindowField(out, "rhs_reversal=", w, [](std::string& o, const WindowDim& d) {
      o += d.window_reversal ? '1' : '0';
    });
  }
  out += '}';
}

namespace {
// Writes one side of dim labels: `b01f`. `special` maps dim -> letter.
void AppendLabels(std::string& out, size_t rank,
                  std::initializer_list<std::pair<int64_t, char>> special,
                  const std::vector<int64_t>& spatial) {
  std::string s(rank, '?');
  for (auto [dim, c] : special) {
    if (dim >= 0 && static_cast<size_t>(dim) < rank) s[dim] = c;
  }
  for (size_t i = 0; i < spatial.size(); ++i) {
    int64_t d = spatial[i];
    if (d >= 0 && static_cast<size_t>(d) < rank) {
      s[d] = static_cast<char>('0' + i);
    }
  }
  out += s;
}

// A side's rank: past its highest labelled dimension (dimensions without a
// role, XLA's '?', may sit anywhere), at least spatial + 2.
size_t SideRank(int64_t a, int64_t b, const std::vector<int64_t>& spatial) {
  int64_t top = std::max<int64_t>(a, b);
  for (int64_t d : spatial) top = std::max(top, d);
  return std::max<size_t>(static_cast<size_t>(top + 1), spatial.size() + 2);
}
}  // namespace

void AppendConvDims(std::string& out, const ConvDims& d) {
  AppendLabels(out, SideRank(d.input_batch, d.input_feature, d.input_spatial),
               {{d.input_batch, 'b'}, {d.input_feature, 'f'}}, d.input_spatial);
  out += '_';
  AppendLabels(out, SideRank(d.kernel_input_feature, d.kernel_output_feature, d.kernel_spatial),
               {{d.kernel_input_feature, 'i'}, {d.kernel_output_feature, 'o'}}, d.kernel_spatial);
  out += "->";
  AppendLabels(out, SideRank(d.output_batch, d.output_feature, d.output_spatial),
               {{d.output_batch, 'b'}, {d.output_feature, 'f'}}, d.output_spatial);
}

// As XLA's PaddingConfigToString: every dimension gets its interior
// padding when any has one.
void AppendPadding(std::string& out, const PaddingConfig& p) {
  bool interior = false;
  for (const PaddingDim& d : p) interior |= d.interior != 0;
  for (size_t i = 0; i < p.size(); ++i) {
    if (i) out += 'x';
    StrAppend(&out, p[i].low, "_", p[i].high);
    if (interior) StrAppend(&out, "_", p[i].interior);
  }
}

namespace {
// XLA's order of metadata fields; unknown fields go last, as read.
int MetadataRank(std::string_view key) {
  static constexpr std::string_view kOrder[] = {
      "op_type",           "op_name",         "source_file",       "source_line",
      "source_end_line",   "source_column",   "source_end_column", "profile_type",
      "deduplicated_name", "preserve_layout", "scheduling_name",   "stack_frame_id"};
  for (size_t i = 0; i < std::size(kOrder); ++i) {
    if (kOrder[i] == key) return static_cast<int>(i);
  }
  return 100;
}

// A value XLA prints without quotes: one {...} group that the parser's
// Lexer::ScanBalanced reads back whole (all three kinds of brackets nested,
// strings in either quote with backslash escapes, nothing after the last
// brace). Anything else is printed quoted: `{"k"s16[4:1}`, whose '[' never
// closes, printed bare did not parse again (fuzz_short).
bool LooksLikeDict(std::string_view v) {
  if (v.size() < 2 || v.front() != '{' || v.back() != '}') return false;
  std::string openers;  // unclosed brackets, innermost last
  for (size_t i = 0; i < v.size(); ++i) {
    const char c = v[i];
    if (c == '"' || c == '\'') {
      for (++i; i < v.size() && v[i] != c; ++i) {
        if (v[i] == '\\') ++i;
      }
      if (i >= v.size()) return false;
    } else if (c == '{' || c == '(' || c == '[') {
      openers += c;
    } else if (c == '}' || c == ')' || c == ']') {
      if (openers.empty()) return false;
      const char o = openers.back();
      if (c != (o == '{' ? '}' : o == '(' ? ')' : ']')) return false;
      openers.pop_back();
      if (openers.empty() && i + 1 != v.size()) return false;
    }
  }
  return openers.empty();
}
}  // namespace

void AppendKeyValues(std::string& out, const KeyValues& kv, char separator) {
  // Metadata (space-separated) in XLA's field order; frontend attributes
  // (comma-separated) sorted by key, as XLA keeps them in a map.
  std::vector<const KeyValue*> items;
  for (const KeyValue& e : kv) items.push_back(&e);
  if (separator == ' ') {
    std::stable_sort(items.begin(), items.end(), [](const KeyValue* a, const KeyValue* b) {
      return MetadataRank(a->key) < MetadataRank(b->key);
    });
  } else {
    std::stable_sort(items.begin(), items.end(),
                     [](const KeyValue* a, const KeyValue* b) { return a->key < b->key; });
  }
  out += '{';
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += separator;
    out += items[i]->key;
    out += '=';
    if (items[i]->quoted && !(separator == ',' && LooksLikeDict(items[i]->value))) {
      AppendQuoted(out, items[i]->value);
    } else {
      out += items[i]->value;
    }
  }
  out += '}';
}

namespace {
void AppendIota(std::string& out, const IotaTileAssignment& iota) {
  out += '[';
  AppendInts(out, iota.dims);
  out += "]<=[";
  AppendInts(out, iota.reshape_dims);
  out += ']';
  if (!iota.transpose_perm.empty()) {
    out += "T(";
    AppendInts(out, iota.transpose_perm);
    out += ')';
  }
}

void AppendShardingBody(std::string& out, const Sharding& s) {
  using T = Sharding::Type;
  switch (s.type) {
    case T::kReplicated:
      out += "replicated";
      break;
    case T::kManual:
      out += "manual";
      break;
    case T::kUnknown:
      out += "unknown";
      break;
    case T::kUnreduced:
      out += "unreduced";
      break;
    case T::kMaximal:
      StrAppend(&out, "maximal device=", s.device);
      break;
    case T::kTiled:
      if (s.iota) {
        out += "devices=";
        AppendIota(out, *s.iota);
      } else {
        out += "devices=[";
        AppendInts(out, s.tile_dims);
        out += ']';
        AppendInts(out, s.devices);
      }
      if (s.last_tile_dim_replicate) out += " last_tile_dim_replicate";
      if (!s.last_tile_dims.empty()) {
        out += " last_tile_dims={";
        for (size_t i = 0; i < s.last_tile_dims.size(); ++i) {
          if (i) out += ", ";
          out += s.last_tile_dims[i];
        }
        out += '}';
      }
      break;
    case T::kTuple:
    case T::kNamed:
      break;
  }
  if (!s.shard_group.empty()) StrAppend(&out, " ", s.shard_group);
  if (!s.metadata.empty()) {
    out += " metadata=";
    if (s.metadata.size() == 1) {
      AppendKeyValues(out, s.metadata[0], ' ');
    } else {
      out += '{';
      for (size_t i = 0; i < s.metadata.size(); ++i) {
        if (i) out += ", ";
        AppendKeyValues(out, s.metadata[i], ' ');
      }
      out += '}';
    }
  }
}
}  // namespace

void AppendSharding(std::string& out, const Sharding& s) {
  out += '{';
  if (s.type == Sharding::Type::kNamed && s.named) {
    // XLA's NamedSharding::ToString: metadata always as a list.
    AppendNamedSharding(out, *s.named);
    if (!s.metadata.empty()) {
      out += ", metadata={";
      for (size_t i = 0; i < s.metadata.size(); ++i) {
        if (i) out += ", ";
        AppendKeyValues(out, s.metadata[i], ' ');
      }
      out += '}';
    }
  } else if (s.type == Sharding::Type::kTuple) {
    for (size_t i = 0; i < s.tuple_elements.size(); ++i) {
      if (i) out += ", ";
      if (i && i % 5 == 0) StrAppend(&out, "/*index=", i, "*/");
      AppendSharding(out, s.tuple_elements[i]);
    }
  } else {
    AppendShardingBody(out, s);
  }
  out += '}';
}

namespace {

void AppendName(std::string& out, std::string_view name, bool percent) {
  if (percent || !LexesBare(name)) out += '%';
  out += name;
}

struct ValuePrinter {
  std::string& out;
  AttrKind kind;
  bool percent;

  void operator()(int64_t v) { StrAppend(&out, v); }
  void operator()(double v) { StrAppend(&out, v); }
  void operator()(bool v) { out += v ? "true" : "false"; }
  void operator()(const InternedString& v) {
    AttrType t = AttrValueType(kind);
    if (t == AttrType::kString) {
      AppendQuoted(out, v);
    } else {
      out += v;  // identifiers and raw text
    }
  }
  void operator()(const std::vector<int64_t>& v) { AppendIntBraces(out, v); }
  void operator()(const std::shared_ptr<const std::vector<bool>>& flags) {
    const std::vector<bool>& v = *flags;
    out += '{';
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) out += ',';
      out += v[i] ? "true" : "false";
    }
    out += '}';
  }
  void operator()(const std::vector<std::string>& v) {
    out += '{';
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) out += ',';
      out += v[i];
    }
    out += '}';
  }
  void operator()(const std::vector<std::vector<int64_t>>& v) {
    out += '{';
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) out += ',';
      AppendIntBraces(out, v[i]);
    }
    out += '}';
  }
  void operator()(const Shape* s) { s->AppendTo(out, true); }
  void operator()(const std::vector<const Shape*>& v) {
    out += '{';
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) out += ", ";
      v[i]->AppendTo(out, true);
    }
    out += '}';
  }
  void operator()(const std::vector<Computation*>& v) {
    if (AttrValueType(kind) == AttrType::kComputation ||
        (kind == AttrKind::kCalls && v.size() == 1)) {
      if (!v.empty()) AppendName(out, v[0]->name(), percent);
      return;
    }
    out += '{';
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) out += ", ";
      AppendName(out, v[i]->name(), percent);
    }
    out += '}';
  }
  void operator()(const std::vector<Instruction*>& v) {
    out += '{';
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) out += ", ";
      AppendName(out, v[i]->name(), percent);
    }
    out += '}';
  }
  void operator()(const std::shared_ptr<const Window>& w) { AppendWindow(out, *w); }
  void operator()(const std::shared_ptr<const ConvDims>& d) { AppendConvDims(out, *d); }
  void operator()(const std::shared_ptr<const PaddingConfig>& p) { AppendPadding(out, *p); }
  void operator()(const std::shared_ptr<const SliceSpec>& s) {
    // With any stride other than 1, every range prints its stride.
    bool strided = false;
    for (const SliceDim& d : *s) strided |= d.stride != 1;
    out += '{';
    for (size_t i = 0; i < s->size(); ++i) {
      if (i) out += ", ";
      const SliceDim& d = (*s)[i];
      StrAppend(&out, "[", d.start, ":", d.limit);
      if (strided) StrAppend(&out, ":", d.stride);
      out += ']';
    }
    out += '}';
  }
  void operator()(const std::shared_ptr<const ReplicaGroups>& g) {
    if (g->mesh) {
      AppendMeshReplicaGroups(out, *g->mesh);
      return;
    }
    if (g->iota) {
      AppendIota(out, *g->iota);
      return;
    }
    (*this)(g->groups);
  }
  void operator()(const std::shared_ptr<const Sharding>& s) { AppendSharding(out, *s); }
  void operator()(const std::shared_ptr<const KeyValues>& kv) {
    AppendKeyValues(out, *kv, kind == AttrKind::kMetadata ? ' ' : ',');
  }
  void operator()(const std::shared_ptr<const BackendConfig>& b) {
    if (b->is_json_object || LooksLikeDict(b->text)) {
      out += b->text;
    } else {
      AppendQuoted(out, b->text);
    }
  }
  void operator()(const std::shared_ptr<const Aliasing>& a) {
    out += '{';
    for (size_t i = 0; i < a->size(); ++i) {
      if (i) out += ", ";
      const AliasEntry& e = (*a)[i];
      AppendIntBraces(out, e.output_index);
      StrAppend(&out, ": (", e.operand, ", ");
      AppendIntBraces(out, e.operand_index);
      out += ')';
    }
    out += '}';
  }
  // custom-call's literal: shape with layout, then the value; tuples as
  // `( s32[1]{0} {4}, pred[] true )`.
  void AppendLiteralWithShape(const Literal& lit) {
    if (lit.IsTuple()) {
      out += "( ";
      for (size_t i = 0; i < lit.elements().size(); ++i) {
        if (i) out += ", ";
        AppendLiteralWithShape(lit.elements()[i]);
      }
      out += " )";
      return;
    }
    lit.shape().WithDefaultLayout().AppendTo(out, true);
    out += ' ';
    AppendLiteralValue(out, lit, LiteralStyle::kHloConstant);
  }
  void operator()(const std::shared_ptr<const Literal>& lit) { AppendLiteralWithShape(*lit); }
};

}  // namespace

void AppendAttrValue(std::string& out, const Attribute& attr, bool percent) {
  std::visit(ValuePrinter{out, attr.kind, percent}, attr.value);
}

}  // namespace hlo

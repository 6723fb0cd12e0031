#include "stablehlo/op_util.h"

#include "absl/container/flat_hash_map.h"
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "stablehlo/attributes.h"

namespace hlo::stablehlo {

const Attr* FindAny(const Op& op, std::initializer_list<std::string_view> names) {
  for (std::string_view n : names) {
    if (const Attr* a = op.FindAttr(n)) return a;
  }
  return nullptr;
}

absl::Status Require(const Translator& t, const Op& op,
                     std::initializer_list<std::string_view> names, const Attr** out) {
  *out = FindAny(op, names);
  if (*out != nullptr) return absl::OkStatus();
  return t.Error(op.name_pos, StrCat(op.name, " needs the attribute '", *names.begin(), "'"));
}

absl::Status RequireInts(const Translator& t, const Op& op,
                         std::initializer_list<std::string_view> names, std::vector<int64_t>* out) {
  const Attr* a = nullptr;
  HLO_RETURN_IF_ERROR(Require(t, op, names, &a));
  return AttrInts(t.lex(), *a, *names.begin(), out);
}

absl::Status OptionalInts(const Translator& t, const Op& op,
                          std::initializer_list<std::string_view> names,
                          std::vector<int64_t>* out) {
  const Attr* a = FindAny(op, names);
  if (a == nullptr) return absl::OkStatus();
  return AttrInts(t.lex(), *a, *names.begin(), out);
}

absl::Status OptionalInt(const Translator& t, const Op& op,
                         std::initializer_list<std::string_view> names, int64_t fallback,
                         int64_t* out) {
  const Attr* a = FindAny(op, names);
  *out = fallback;
  if (a == nullptr) return absl::OkStatus();
  return AttrInt(t.lex(), *a, *names.begin(), out);
}

bool OptionalBool(const Op& op, std::string_view name) {
  const Attr* a = op.FindAttr(name);
  return a != nullptr && (a->kind == Attr::Kind::kUnit || a->i != 0);
}

std::string HloQuoted(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out.push_back(c);
  }
  return out + "\"";
}

std::vector<std::string> FrontendAttributeEntries(const Op& op) {
  std::vector<std::string> entries;
  const Attr* fa = op.attrs.empty() ? nullptr : op.FindAttr("mhlo.frontend_attributes");
  if (fa == nullptr || fa->kind != Attr::Kind::kDict) return entries;
  for (const NamedAttr& e : fa->dict) {
    if (e.second.kind == Attr::Kind::kString) {
      entries.push_back(StrCat(e.first, "=", HloQuoted(e.second.s)));
    }
  }
  return entries;
}

std::string IntList(const std::vector<int64_t>& v) { return StrCat("{", StrJoin(v, ","), "}"); }

std::string Names(const std::vector<Value>& values) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) StrAppend(&out, i ? ", " : "", values[i].name);
  return out;
}

absl::Status ExpectResults(const Translator& t, const Op& op, size_t n) {
  if (op.result_types.size() == n) return absl::OkStatus();
  return t.Error(op.name_pos,
                 StrCat(op.name, " has ", n, " result(s), not ", op.result_types.size()));
}

absl::Status ExpectOperands(const Translator& t, const Op& op, size_t n) {
  if (op.operands.size() == n) return absl::OkStatus();
  return t.Error(op.name_pos,
                 StrCat(op.name, " takes ", n, " operand(s), not ", op.operands.size()));
}

absl::StatusOr<std::string> BroadcastTo(Translator& t, Scope& s, const Op& op, const Value& v,
                                        const Type& target, const std::vector<int64_t>& map,
                                        Pos pos) {
  const size_t rank = v.type.dims.size();
  if (map.size() != rank) {
    return t.Error(pos, StrCat(map.size(), " broadcast dimensions for an operand of rank ", rank));
  }
  Type squeezed = v.type;
  squeezed.dims.clear();
  std::vector<int64_t> kept;
  for (size_t d = 0; d < rank; ++d) {
    if (map[d] < 0 || map[d] >= static_cast<int64_t>(target.dims.size())) {
      return t.Error(
          pos, StrCat("broadcast dimension ", map[d], " is out of range for ", target.Mlir()));
    }
    if (v.type.dims[d] == target.dims[map[d]]) {
      squeezed.dims.push_back(v.type.dims[d]);
      kept.push_back(map[d]);
    } else if (v.type.dims[d] != 1) {
      return t.Error(pos, StrCat("cannot broadcast ", v.type.Mlir(), " to ", target.Mlir(),
                                 ": dimension ", d, " has size ", v.type.dims[d]));
    }
  }
  std::string name = v.name;
  if (!(squeezed == v.type)) {
    name = t.Emit(s, op, "reshape", squeezed, StrCat("reshape(", name, ")"));
  }
  return t.Emit(s, op, "broadcast", target,
                StrCat("broadcast(", name, "), dimensions=", IntList(kept)));
}

OpTranslator FindOpTranslator(std::string_view name) {
  static const auto* table = [] {
    auto* t = new absl::flat_hash_map<std::string_view, OpTranslator>;
    for (auto* group : {&ElementwiseOps, &DataOps, &StructureOps, &CollectiveOps, &ChloOps,
                        &MiscOps, &FeedOps, &CheckOps, &ParallelOps}) {
      for (const OpEntry& e : (*group)()) t->emplace(e.name, e.fn);
    }
    return t;
  }();
  auto it = table->find(name);
  return it == table->end() ? nullptr : it->second;
}

}  // namespace hlo::stablehlo

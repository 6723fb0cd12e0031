// XLA:GPU's backend_config JSON (eval/gpu/gpu_config.h).
#include "eval/gpu/gpu_config.h"

#include <charconv>
#include <cstdlib>

#include "ir/attribute.h"
#include "ir/strings.h"

namespace hlo::gpu {
namespace {

absl::Status FieldError(std::string_view name, const Json& v, std::string_view want) {
  return absl::InvalidArgumentError(
      StrCat("backend_config field '", name, "' must be ", want, ", not ", v.dump()));
}

const Json* Find(const Json& m, std::string_view name) {
  if (!m.is_object()) return nullptr;
  auto it = m.find(std::string(name));
  return it == m.end() || it->is_null() ? nullptr : &*it;
}

bool ParseInt(std::string_view s, int64_t* v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
  return ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

absl::StatusOr<Json> ConfigMessage(const Instruction& inst, std::string_view field) {
  std::string_view text;
  if (const Attribute* a = inst.FindAttr(AttrKind::kBackendConfig)) {
    if (const auto* c = std::get_if<std::shared_ptr<const BackendConfig>>(&a->value)) {
      if (*c) text = (*c)->text;
    }
  }
  if (text.empty()) return Json::object();
  Json j = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return absl::InvalidArgumentError(
        StrCat("custom-call ", TargetOf(inst), " needs a JSON object as backend_config"));
  }
  if (const Json* sub = Find(j, field)) {
    if (!sub->is_object()) return FieldError(field, *sub, "a message");
    return *sub;
  }
  return j;
}

absl::StatusOr<double> DoubleField(const Json& m, std::string_view name, double def) {
  const Json* v = Find(m, name);
  if (v == nullptr) return def;
  if (v->is_number()) return v->get<double>();
  if (v->is_string()) {
    const std::string& s = v->get_ref<const std::string&>();
    if (s == "NaN") return std::nan("");
    if (s == "Infinity") return HUGE_VAL;
    if (s == "-Infinity") return -HUGE_VAL;
    char* end = nullptr;
    double d = std::strtod(s.c_str(), &end);
    if (!s.empty() && end == s.c_str() + s.size()) return d;
  }
  return FieldError(name, *v, "a number");
}

absl::StatusOr<int64_t> IntField(const Json& m, std::string_view name, int64_t def) {
  const Json* v = Find(m, name);
  if (v == nullptr) return def;
  if (v->is_number_integer()) return v->get<int64_t>();
  int64_t i = 0;
  if (v->is_string() && ParseInt(v->get_ref<const std::string&>(), &i)) return i;
  return FieldError(name, *v, "an integer");
}

absl::StatusOr<bool> BoolField(const Json& m, std::string_view name, bool def) {
  const Json* v = Find(m, name);
  if (v == nullptr) return def;
  if (v->is_boolean()) return v->get<bool>();
  return FieldError(name, *v, "true or false");
}

absl::StatusOr<std::string> EnumField(const Json& m, std::string_view name, std::string_view def) {
  const Json* v = Find(m, name);
  if (v == nullptr) return std::string(def);
  if (v->is_string()) return v->get<std::string>();
  if (v->is_number_integer()) return StrCat(v->get<int64_t>());
  return FieldError(name, *v, "an enum name");
}

absl::StatusOr<std::vector<int64_t>> IntListField(const Json& m, std::string_view name) {
  std::vector<int64_t> out;
  const Json* v = Find(m, name);
  if (v == nullptr) return out;
  if (!v->is_array()) return FieldError(name, *v, "a list of integers");
  for (const Json& e : *v) {
    int64_t i = 0;
    if (e.is_number_integer()) {
      i = e.get<int64_t>();
    } else if (!e.is_string() || !ParseInt(e.get_ref<const std::string&>(), &i)) {
      return FieldError(name, *v, "a list of integers");
    }
    out.push_back(i);
  }
  return out;
}

std::string TargetOf(const Instruction& inst) {
  return std::string(inst.GetString(AttrKind::kCustomCallTarget));
}

absl::StatusOr<Value> Workspace(const Shape& shape) {
  if (!shape.IsArray() || shape.rank() != 1 ||
      (shape.element_type() != PrimitiveType::kU8 && shape.element_type() != PrimitiveType::kS8)) {
    return absl::InvalidArgumentError(
        StrCat("a library call's workspace is u8[N] or s8[N], not ", shape.ToString(false)));
  }
  return NewArray(shape);
}

absl::StatusOr<Value> WithWorkspaces(const Instruction& inst, std::vector<Value> results) {
  const Shape& s = inst.shape();
  if (!s.IsTuple()) {
    if (results.size() == 1) return std::move(results[0]);
    return absl::InvalidArgumentError(StrCat("custom-call ", TargetOf(inst), " returns ",
                                             results.size(), " arrays, not ", s.ToString(false)));
  }
  if (s.tuple_size() < static_cast<int64_t>(results.size())) {
    return absl::InvalidArgumentError(StrCat("custom-call ", TargetOf(inst), " returns ",
                                             results.size(), " arrays and workspaces, not ",
                                             s.ToString(false)));
  }
  for (int64_t i = static_cast<int64_t>(results.size()); i < s.tuple_size(); ++i) {
    absl::StatusOr<Value> w = Workspace(s.tuple_shape(i));
    if (!w.ok()) return w.status();
    results.push_back(*std::move(w));
  }
  return Value::Tuple(std::move(results));
}

}  // namespace hlo::gpu

#include "ir/literal_json.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>

#include "ir/located_status.h"
#include "ir/plain_numbers.h"
#include "ir/strings.h"

namespace hlo {
namespace {

void AppendJsonFloat(std::string& out, double v, PrimitiveType type) {
  if (std::isnan(v)) {
    out += "\"nan\"";
  } else if (std::isinf(v)) {
    out += v < 0 ? "\"-inf\"" : "\"inf\"";
  } else {
    size_t start = out.size();
    AppendShortestFloat(out, v, type);
    // JSON numbers need a digit form; make integral floats read as floats.
    std::string_view t(out.data() + start, out.size() - start);
    if (t.find_first_of(".eE") == std::string_view::npos) out += ".0";
  }
}

// Called after each block of elements with the text so far (it may empty
// `out`); null when the whole text is wanted at once.
using Drain = std::function<void(std::string&)>;

// The array's "data" elements a block at a time where its type has a typed
// path (ir/plain_numbers.h); false otherwise.
bool AppendJsonDataFast(std::string& out, const Literal& lit, const Drain* drain) {
  return VisitPlainNumberType(lit.element_type(), [&](auto zero) {
    using T = decltype(zero);
    const T* data = lit.typed<T>();
    // JSON numbers need a digit form; make integral floats read as floats.
    auto point_zero = [](char* start, char* end) {
      if (std::find_if(start, end, [](char c) { return c == '.' || c == 'e'; }) == end) {
        *end++ = '.', *end++ = '0';
      }
      return end;
    };
    auto slow = [&](std::string& text, int64_t k) {
      AppendJsonFloat(text, static_cast<double>(data[k]), lit.element_type());
    };
    AppendPlainNumbers(out, data, lit.element_count(), point_zero, slow, drain);
  });
}

void AppendJsonElement(std::string& out, const Literal& lit, int64_t i) {
  const PrimitiveType t = lit.element_type();
  if (t == PrimitiveType::kPred) {
    out += lit.GetInt(i) ? "true" : "false";
  } else if (IsUnsignedInt(t)) {
    StrAppend(&out, static_cast<uint64_t>(lit.GetInt(i)));
  } else if (IsSignedInt(t)) {
    StrAppend(&out, lit.GetInt(i));
  } else if (IsComplex(t)) {
    std::complex<double> c = lit.GetComplex(i);
    out += '[';
    AppendJsonFloat(out, c.real(), ComplexComponentType(t));
    out += ", ";
    AppendJsonFloat(out, c.imag(), ComplexComponentType(t));
    out += ']';
  } else {
    AppendJsonFloat(out, lit.GetDouble(i), t);
  }
}

void AppendArrayJson(std::string& out, const Literal& lit, const Shape* shape, const Drain* drain) {
  PrimitiveType t = lit.element_type();
  out += "{\"shape\": \"";
  (shape ? *shape : lit.shape()).AppendTo(out, true);
  StrAppend(&out, "\", \"dtype\": \"", PrimitiveTypeName(t), "\", \"dims\": [");
  for (int64_t i = 0; i < lit.shape().rank(); ++i) {
    if (i) out += ", ";
    StrAppend(&out, lit.shape().dim(i));
  }
  out += "], \"data\": [";
  if (!AppendJsonDataFast(out, lit, drain)) {
    for (int64_t i = 0; i < lit.element_count(); ++i) {
      if (i) out += ", ";
      AppendJsonElement(out, lit, i);
      if (drain != nullptr && i % 512 == 511) (*drain)(out);
    }
  }
  out += "]}";
}

void AppendJson(std::string& out, const Literal& lit, const Shape* shape, const Drain* drain) {
  if (!lit.IsTuple()) {
    AppendArrayJson(out, lit, shape, drain);
    return;
  }
  out += "{\"shape\": \"";
  (shape ? *shape : lit.shape()).AppendTo(out, true);
  out += "\", \"elements\": [";
  for (size_t i = 0; i < lit.elements().size(); ++i) {
    if (i) out += ", ";
    const Shape* es = shape && shape->IsTuple() ? &shape->tuple_shape(i) : nullptr;
    AppendJson(out, lit.elements()[i], es, drain);
  }
  out += "]}";
}

absl::Status JsonError(std::string_view what, std::string_view path, std::string_view msg) {
  return MarkLocated(absl::InvalidArgumentError(StrCat(what, ": error: ", path, ": ", msg)));
}

double JsonNumber(const nlohmann::json& v, bool* ok) {
  *ok = true;
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    if (s == "nan" || s == "-nan") return s[0] == '-' ? -NAN : NAN;
    if (s == "inf") return INFINITY;
    if (s == "-inf") return -INFINITY;
  }
  *ok = false;
  return 0;
}

absl::StatusOr<Literal> FromJson(const nlohmann::json& j, std::string_view what,
                                 const std::string& path) {
  if (!j.is_object()) return JsonError(what, path, "expected an object");
  if (j.contains("elements")) {
    const auto& elems = j["elements"];
    if (!elems.is_array()) return JsonError(what, path, "\"elements\" must be a list");
    std::vector<Literal> out;
    for (size_t i = 0; i < elems.size(); ++i) {
      auto e = FromJson(elems[i], what, StrCat(path, ".elements[", i, "]"));
      if (!e.ok()) return e.status();
      out.push_back(*std::move(e));
    }
    return Literal::Tuple(std::move(out));
  }
  if (!j.contains("dtype") || !j["dtype"].is_string() || !j.contains("dims") ||
      !j["dims"].is_array() || !j.contains("data") || !j["data"].is_array()) {
    return JsonError(what, path, "expected \"dtype\", \"dims\" and \"data\"");
  }
  auto type = ParsePrimitiveType(j["dtype"].get<std::string>());
  if (!type || !IsArrayType(*type)) return JsonError(what, path, "unknown \"dtype\"");
  std::vector<int64_t> dims;
  for (const auto& d : j["dims"]) {
    if (!d.is_number_integer() || d.get<int64_t>() < 0) {
      return JsonError(what, path, "\"dims\" must be non-negative integers");
    }
    dims.push_back(d.get<int64_t>());
  }
  auto lit = Literal::Create(Shape::Array(*type, dims));
  if (!lit.ok()) return JsonError(what, path, std::string(lit.status().message()));
  const auto& data = j["data"];
  if (static_cast<int64_t>(data.size()) != lit->element_count()) {
    return JsonError(
        what, path,
        StrCat("\"data\" has ", data.size(), " elements but dims give ", lit->element_count()));
  }
  for (int64_t i = 0; i < lit->element_count(); ++i) {
    const auto& v = data[i];
    std::string at = StrCat(path, ".data[", i, "]");
    if (*type == PrimitiveType::kPred) {
      if (!v.is_boolean()) return JsonError(what, at, "expected true or false");
      lit->SetInt(i, v.get<bool>());
    } else if (IsInteger(*type)) {
      if (!v.is_number_integer()) return JsonError(what, at, "expected an integer");
      lit->SetInt(
          i, v.is_number_unsigned() ? static_cast<int64_t>(v.get<uint64_t>()) : v.get<int64_t>());
    } else if (IsComplex(*type)) {
      bool ok1 = false, ok2 = false;
      if (!v.is_array() || v.size() != 2) return JsonError(what, at, "expected [re, im]");
      double re = JsonNumber(v[0], &ok1), im = JsonNumber(v[1], &ok2);
      if (!ok1 || !ok2) return JsonError(what, at, "expected [re, im] numbers");
      lit->SetComplex(i, {re, im});
    } else {
      bool ok = false;
      double d = JsonNumber(v, &ok);
      if (!ok) return JsonError(what, at, "expected a number, \"nan\", \"inf\" or \"-inf\"");
      lit->SetDouble(i, d);
    }
  }
  return lit;
}

}  // namespace

std::string LiteralToJson(const Literal& literal, const Shape* shape) {
  std::string out;
  AppendJson(out, literal, shape, nullptr);
  return out;
}

absl::Status StreamLiteralJson(const Literal& literal, const Shape* shape,
                               absl::FunctionRef<absl::Status(std::string_view)> sink,
                               size_t chunk) {
  std::string buf;
  absl::Status status;
  const Drain drain = [&](std::string& out) {
    if (out.size() < chunk || !status.ok()) return;
    status = sink(out);
    out.clear();
  };
  AppendJson(buf, literal, shape, &drain);
  if (status.ok() && !buf.empty()) status = sink(buf);
  return status;
}

absl::StatusOr<Literal> LiteralFromJson(std::string_view json, std::string_view what) {
  nlohmann::json j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return JsonError(what, "$", "not valid JSON");
  return FromJson(j, what, "$");
}

}  // namespace hlo

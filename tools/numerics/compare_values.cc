#include "tools/numerics/compare_values.h"

#include <cmath>
#include <complex>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "ir/npy.h"
#include "ir/read_file.h"
#include "ir/status_macros.h"
#include "ir/strings.h"
#include "parser/parser.h"
#include "tools/numerics/trace.h"

namespace hlo {
namespace {

struct Entry {
  std::string file, instruction, shape;
  std::vector<int64_t> iterations;
};

// DIR/index.json's values, in order.
absl::StatusOr<std::vector<Entry>> ReadIndex(const std::string& dir) {
  const std::string path = StrCat(dir, "/index.json");
  absl::StatusOr<std::string> text = ReadWholeFile(path);
  if (!text.ok()) {
    return absl::InvalidArgumentError(StrCat(std::string(text.status().message()), " (", dir,
                                             " should be a folder --dump-values wrote)"));
  }
  std::vector<Entry> entries;
  try {
    nlohmann::json doc = nlohmann::json::parse(*text);
    for (const nlohmann::json& v : doc.at("values")) {
      Entry e{v.at("file").get<std::string>(), v.at("instruction").get<std::string>(),
              v.at("shape").get<std::string>(), v.at("iterations").get<std::vector<int64_t>>()};
      if (e.file.find('/') != std::string::npos || e.file.starts_with(".")) {
        return absl::InvalidArgumentError(StrCat(path, ": error: bad file name '", e.file, "'"));
      }
      entries.push_back(std::move(e));
    }
  } catch (const nlohmann::json::exception& ex) {
    return absl::InvalidArgumentError(
        StrCat(path, ": error: not an index of --dump-values: ", ex.what()));
  }
  return entries;
}

absl::StatusOr<Literal> ReadValue(const std::string& dir, const Entry& e, ShapePool& pool) {
  const std::string path = StrCat(dir, "/", e.file);
  absl::StatusOr<Shape> shape = ParseShape(e.shape, pool);
  if (!shape.ok()) {
    return absl::InvalidArgumentError(
        StrCat(dir, "/index.json: error: ", e.file, ": bad shape '", e.shape, "'"));
  }
  return ReadNpyFile(path, *shape);
}

struct Difference {
  bool same_shape = true;
  double max_abs = 0, max_rel = 0;
  int64_t first = -1;  // the first differing element
  std::complex<double> a, b;
};

bool IsReal(PrimitiveType t) { return IsFloat(t) || IsComplex(t); }

Difference Compare(const Literal& a, const Literal& b) {
  Difference d;
  if (!a.shape().Compatible(b.shape())) {
    d.same_shape = false;
    return d;
  }
  const bool real = IsReal(a.element_type());
  for (int64_t i = 0; i < a.element_count(); ++i) {
    std::complex<double> x, y;
    if (real) {
      x = a.GetComplex(i);
      y = b.GetComplex(i);
    } else {
      x = static_cast<double>(a.GetInt(i));
      y = static_cast<double>(b.GetInt(i));
      if (a.GetInt(i) == b.GetInt(i)) continue;
    }
    auto nan = [](std::complex<double> c) { return std::isnan(c.real()) || std::isnan(c.imag()); };
    if (x == y || (nan(x) && nan(y))) continue;
    double abs = nan(x) || nan(y) ? std::numeric_limits<double>::infinity() : std::abs(x - y);
    if (std::isnan(abs)) abs = std::numeric_limits<double>::infinity();  // inf - inf
    const double mag = std::abs(y);
    const double rel =
        mag > 0 && std::isfinite(mag) ? abs / mag : std::numeric_limits<double>::infinity();
    d.max_abs = std::max(d.max_abs, abs);
    d.max_rel = std::max(d.max_rel, rel);
    if (d.first < 0) {
      d.first = i;
      d.a = x;
      d.b = y;
    }
  }
  return d;
}

nlohmann::json Number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

std::string Text(std::complex<double> c, bool complex) {
  if (!complex) return StrCat(c.real());
  return StrCat("(", c.real(), ", ", c.imag(), ")");
}

std::string Iterations(const std::vector<int64_t>& its) {
  if (its.empty()) return "";
  return StrCat(" at iteration", its.size() > 1 ? "s " : " ", StrJoin(its, ","));
}

}  // namespace

absl::StatusOr<ValueComparison> CompareValueDirs(const std::string& dir1, const std::string& dir2,
                                                 bool json) {
  HLO_ASSIGN_OR_RETURN(std::vector<Entry> first, ReadIndex(dir1));
  HLO_ASSIGN_OR_RETURN(std::vector<Entry> second, ReadIndex(dir2));
  absl::flat_hash_map<std::string, const Entry*> in_second;
  for (const Entry& e : second) in_second[e.file] = &e;
  absl::flat_hash_map<std::string, bool> in_first;
  ShapePool pool;
  std::string text;
  nlohmann::json values = nlohmann::json::array(), only1 = nlohmann::json::array(),
                 only2 = nlohmann::json::array(), first_differing = nullptr;
  std::string first_text;
  int64_t both = 0, differ = 0;
  for (const Entry& e : first) {
    in_first[e.file] = true;
    auto it = in_second.find(e.file);
    if (it == in_second.end()) {
      only1.push_back(e.file);
      continue;
    }
    ++both;
    HLO_ASSIGN_OR_RETURN(Literal a, ReadValue(dir1, e, pool));
    HLO_ASSIGN_OR_RETURN(Literal b, ReadValue(dir2, *it->second, pool));
    const Difference d = Compare(a, b);
    const bool same = d.same_shape && d.first < 0;
    const bool complex = IsComplex(a.element_type());
    nlohmann::json v = {{"file", e.file},
                        {"instruction", e.instruction},
                        {"iterations", e.iterations},
                        {"shape", e.shape},
                        {"identical", same}};
    std::string line =
        StrCat("  %", e.instruction, Iterations(e.iterations), " (", e.file, ") ", e.shape, ": ");
    if (!d.same_shape) {
      v["shape2"] = it->second->shape;
      StrAppend(&line, "shapes differ: ", e.shape, " vs ", it->second->shape);
    } else if (same) {
      line += "identical";
    } else {
      v["max_abs"] = Number(d.max_abs);
      v["max_rel"] = Number(d.max_rel);
      v["first_difference"] = {{"index", IndexText(a.shape(), d.first)},
                               {"a", Text(d.a, complex)},
                               {"b", Text(d.b, complex)}};
      StrAppend(&line, "max abs ", d.max_abs, ", max rel ", d.max_rel, ", first differs at ",
                IndexText(a.shape(), d.first), ": ", Text(d.a, complex), " vs ",
                Text(d.b, complex));
    }
    if (!same) {
      ++differ;
      if (first_differing.is_null()) {
        first_differing = {
            {"file", e.file}, {"instruction", e.instruction}, {"iterations", e.iterations}};
        first_text = StrCat("%", e.instruction, Iterations(e.iterations), " (", e.file, ")");
      }
    }
    values.push_back(std::move(v));
    StrAppend(&text, line, "\n");
  }
  for (const Entry& e : second) {
    if (!in_first.contains(e.file)) only2.push_back(e.file);
  }
  ValueComparison out;
  out.differ = differ > 0 || !only1.empty() || !only2.empty();
  if (json) {
    nlohmann::json doc = {{"dir1", dir1},          {"dir2", dir2},
                          {"compared", both},      {"differ", differ},
                          {"values", values},      {"only_in_dir1", only1},
                          {"only_in_dir2", only2}, {"first_differing", first_differing}};
    out.text = doc.dump(1) + "\n";
    return out;
  }
  std::string head = StrCat("compare-values: ", dir1, " vs ", dir2, ": ", both, " values in both, ",
                            differ, " differ");
  if (!only1.empty() || !only2.empty()) {
    StrAppend(&head, ", ", only1.size(), " only in the first, ", only2.size(),
              " only in the second");
  }
  out.text = head + "\n" + text;
  for (const auto& f : only1)
    StrAppend(&out.text, "  only in ", dir1, ": ", f.get<std::string>(), "\n");
  for (const auto& f : only2)
    StrAppend(&out.text, "  only in ", dir2, ": ", f.get<std::string>(), "\n");
  StrAppend(&out.text,
            "first differing instruction: ", first_text.empty() ? std::string("none") : first_text,
            "\n");
  return out;
}

}  // namespace hlo

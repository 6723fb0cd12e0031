// The LAPACK custom-call context: target names, the backend_config
// attribute dictionary, shape checks and the memory order of operands and
// results (see eval/linalg/lapack_call.h).
#include "eval/linalg/lapack_call.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstring>
#include <memory>
#include <string_view>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_join.h"
#include "eval/blas_api.h"
#include "eval/kernels/strided_axes.h"
#include "eval/runtime/parallel.h"
#include "ir/attribute.h"
#include "ir/strings.h"

namespace hlo::lapack {
namespace {

std::string ShapeText(PrimitiveType type, const std::vector<int64_t>& dims) {
  std::vector<std::string> parts;
  for (int64_t d : dims) parts.push_back(d == kAnySize ? "*" : StrCat(d));
  return StrCat(PrimitiveTypeName(type), "[", absl::StrJoin(parts, ","), "]");
}

std::string SpecsText(const std::vector<ResultSpec>& specs, bool tuple) {
  std::vector<std::string> parts;
  for (const ResultSpec& s : specs) parts.push_back(ShapeText(s.type, s.dims));
  return tuple ? StrCat("(", absl::StrJoin(parts, ", "), ")") : parts[0];
}

bool SameArray(const Shape& s, const ResultSpec& spec) {
  return s.IsArray() && s.element_type() == spec.type &&
         std::equal(s.dims().begin(), s.dims().end(), spec.dims.begin(), spec.dims.end(),
                    [](int64_t got, int64_t want) { return want == kAnySize || got == want; });
}

// Each logical dimension's stride in memory laid out by `layout_of`'s
// minor_to_major (row-major when it has none or it does not fit).
// Small per-call index vectors (a solver's loop makes many small calls;
// their heap vectors were a fifth of a 5x5 trsm's time).
using SmallDims = absl::InlinedVector<int64_t, 6>;

SmallDims MemoryStrides(const Shape& layout_of, absl::Span<const int64_t> dims) {
  const size_t rank = dims.size();
  SmallDims m2m;
  if (layout_of.IsArray() && layout_of.has_layout()) {
    m2m.assign(layout_of.layout().minor_to_major.begin(), layout_of.layout().minor_to_major.end());
  }
  SmallDims seen(rank, 0);
  bool ok = m2m.size() == rank;
  for (int64_t d : m2m) {
    ok = ok && d >= 0 && static_cast<size_t>(d) < rank && !seen[d];
    if (ok) seen[d] = 1;
  }
  if (!ok) {
    m2m.clear();
    for (size_t i = rank; i-- > 0;) m2m.push_back(static_cast<int64_t>(i));
  }
  SmallDims strides(rank);
  int64_t stride = 1;
  for (int64_t d : m2m) {
    strides[d] = stride;
    stride *= dims[d];
  }
  return strides;
}

// Copies between row-major order and memory order (`strides`), by the
// strided copy every data movement uses (memcpy runs, tiled transposes).
template <bool kToMemory>
void Reorder(const uint8_t* src, uint8_t* dst, int width, absl::Span<const int64_t> dims,
             absl::Span<const int64_t> strides) {
  StridedAxes axes(dims.size());
  int64_t row_major = 1;
  for (size_t d = dims.size(); d-- > 0;) {
    axes[d] = {dims[d], kToMemory ? strides[d] : row_major, kToMemory ? row_major : strides[d]};
    row_major *= dims[d];
  }
  data_internal::StridedCopy(width, dst, src, std::move(axes));
}

bool ParseInt(std::string_view text, int64_t* v) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *v);
  return ec == std::errc() && ptr == end;
}

// `{a = 1 : ui8, b = true}` (MLIR's dictionary attribute, as XLA prints the
// FFI attributes) into name -> (integer value, text). Only integers and
// booleans occur in jaxlib's LAPACK attributes; other values keep value 0
// and their text.
//   dict  ::= '{' [entry (',' entry)*] '}'
//   entry ::= name '=' value [':' type]
absl::StatusOr<absl::flat_hash_map<std::string, std::pair<int64_t, std::string>>> ParseDict(
    std::string_view text) {
  absl::flat_hash_map<std::string, std::pair<int64_t, std::string>> out;
  auto trim = [](std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
  };
  text = trim(text);
  if (text.empty()) return out;
  if (text.front() != '{' || text.back() != '}') {
    return absl::InvalidArgumentError(
        StrCat("backend_config '", text, "' is not an attribute dictionary {name = value, ...}"));
  }
  text = trim(text.substr(1, text.size() - 2));
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view entry = trim(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view() : trim(text.substr(comma + 1));
    size_t eq = entry.find('=');
    if (eq == std::string_view::npos) {
      return absl::InvalidArgumentError(
          StrCat("backend_config entry '", entry, "' is not `name = value`"));
    }
    std::string name(trim(entry.substr(0, eq)));
    if (name.size() >= 2 && name.front() == '"' && name.back() == '"') {
      name = name.substr(1, name.size() - 2);
    }
    std::string_view value = trim(entry.substr(eq + 1));
    if (size_t colon = value.find(':'); colon != std::string_view::npos) {
      value = trim(value.substr(0, colon));
    }
    int64_t v = 0;
    if (value == "true") {
      v = 1;
    } else if (value == "false") {
      v = 0;
    } else if (!ParseInt(value, &v)) {
      v = 0;
    }
    out[name] = {v, std::string(value)};
  }
  return out;
}

}  // namespace

std::optional<Target> ParseTarget(std::string_view name) {
  Target t{};
  if (name.size() > 4 && name.substr(name.size() - 4) == "_ffi") {
    t.ffi = true;
    name.remove_suffix(4);
  }
  std::string_view prefix =
      t.ffi ? "lapack_" : (name.substr(0, 5) == "blas_" ? "blas_" : "lapack_");
  if (name.substr(0, prefix.size()) != prefix || name.size() < prefix.size() + 2) {
    return std::nullopt;
  }
  name.remove_prefix(prefix.size());
  switch (name[0]) {
    case 's':
      t.type = PrimitiveType::kF32;
      break;
    case 'd':
      t.type = PrimitiveType::kF64;
      break;
    case 'c':
      t.type = PrimitiveType::kC64;
      break;
    case 'z':
      t.type = PrimitiveType::kC128;
      break;
    default:
      return std::nullopt;
  }
  t.routine = name.substr(1);
  // BLAS names only trsm, in the legacy form only.
  if ((prefix == "blas_") != (!t.ffi && t.routine == "trsm")) return std::nullopt;
  return t;
}

char TypeLetter(PrimitiveType type) {
  switch (type) {
    case PrimitiveType::kF32:
      return 's';
    case PrimitiveType::kF64:
      return 'd';
    case PrimitiveType::kC64:
      return 'c';
    default:
      return 'z';
  }
}

std::vector<int64_t> Append(std::vector<int64_t> dims, std::initializer_list<int64_t> more) {
  dims.insert(dims.end(), more.begin(), more.end());
  return dims;
}

std::string Call::TargetName() const {
  return std::string(inst_.GetString(AttrKind::kCustomCallTarget));
}

absl::Status Call::ParseAttributes() {
  if (attrs_ != nullptr) return absl::OkStatus();
  // Parses of backend_config texts, per thread (entries never move: each
  // is held by pointer while its call runs).
  thread_local absl::flat_hash_map<std::string, std::unique_ptr<const Dict>> parsed_texts;
  const std::string_view text = inst_.GetString(AttrKind::kBackendConfig);
  auto it = parsed_texts.find(absl::string_view(text.data(), text.size()));
  if (it == parsed_texts.end()) {
    auto parsed = ParseDict(text);
    if (!parsed.ok()) return parsed.status();
    it = parsed_texts.emplace(std::string(text), std::make_unique<const Dict>(*std::move(parsed)))
             .first;
  }
  attrs_ = it->second.get();
  return absl::OkStatus();
}

absl::StatusOr<const std::pair<int64_t, std::string>*> Call::Attr(std::string_view name) {
  HLO_RETURN_IF_ERROR(ParseAttributes());
  auto it = attrs_->find(absl::string_view(name.data(), name.size()));
  if (it == attrs_->end()) {
    return absl::InvalidArgumentError(StrCat("custom-call ", TargetName(), " needs the attribute '",
                                             name, "' in backend_config"));
  }
  return &it->second;
}

absl::StatusOr<char> Call::CharAttr(std::string_view name, std::string_view allowed) {
  HLO_ASSIGN_OR_RETURN(const auto* a, Attr(name));
  const int64_t v = a->first;
  if (v > 0 && v < 128 && allowed.find(static_cast<char>(v)) != std::string_view::npos) {
    return static_cast<char>(v);
  }
  std::vector<std::string> codes;
  for (char c : allowed)
    codes.push_back(StrCat(static_cast<int>(c), " ('", std::string(1, c), "')"));
  return absl::InvalidArgumentError(StrCat("attribute ", name, " = ", a->second, " of ",
                                           TargetName(), " must be one of ",
                                           absl::StrJoin(codes, ", ")));
}

absl::Status Call::SetAttr(std::string_view name, int64_t value) {
  HLO_RETURN_IF_ERROR(ParseAttributes());
  if (!own_) own_ = *attrs_;
  (*own_)[std::string(name)] = {value, StrCat(value)};
  attrs_ = &*own_;
  return absl::OkStatus();
}

absl::StatusOr<bool> Call::BoolAttr(std::string_view name) {
  HLO_ASSIGN_OR_RETURN(const auto* a, Attr(name));
  if (a->second == "true" || a->second == "false") return a->second == "true";
  return absl::InvalidArgumentError(
      StrCat("attribute ", name, " = ", a->second, " of ", TargetName(), " must be true or false"));
}

absl::StatusOr<int64_t> Call::IntAttr(std::string_view name) {
  HLO_ASSIGN_OR_RETURN(const auto* a, Attr(name));
  int64_t v = 0;
  if (!ParseInt(a->second, &v)) {
    return absl::InvalidArgumentError(
        StrCat("attribute ", name, " = ", a->second, " of ", TargetName(), " must be an integer"));
  }
  return v;
}

absl::Status Call::ExpectOperandCount(int64_t n) const {
  if (static_cast<int64_t>(ops_.size()) != n) {
    return absl::InvalidArgumentError(
        StrCat("custom-call ", TargetName(), " takes ", n, " operands, not ", ops_.size()));
  }
  for (const Value* v : ops_) {
    if (!v->is_array()) {
      return absl::InvalidArgumentError(
          StrCat("custom-call ", TargetName(), " takes array operands"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Matrices> Call::MatrixOperand(int64_t i, PrimitiveType type) const {
  const Shape& s = ops_[i]->array().shape();
  if (s.element_type() != type || s.rank() < 2) {
    return absl::InvalidArgumentError(StrCat("operand ", i, " of ", TargetName(),
                                             " must be a batch of ", PrimitiveTypeName(type),
                                             " matrices, not ", s.ToString(false)));
  }
  Matrices m;
  m.batch_dims.assign(s.dims().begin(), s.dims().end() - 2);
  for (int64_t d : m.batch_dims) m.batch *= d;
  const int64_t rows = s.dim(s.rank() - 2), cols = s.dim(s.rank() - 1);
  if (rows > INT_MAX || cols > INT_MAX) {
    return absl::InvalidArgumentError(
        StrCat("a ", rows, "x", cols, " matrix is too large for LAPACK's 32-bit sizes"));
  }
  m.rows = static_cast<int>(rows);
  m.cols = static_cast<int>(cols);
  return m;
}

absl::Status Call::ExpectOperand(int64_t i, PrimitiveType type, const std::vector<int64_t>& dims,
                                 std::string_view what) const {
  if (!SameArray(ops_[i]->array().shape(), ResultSpec{type, dims})) {
    return absl::InvalidArgumentError(StrCat("operand ", i, " (", what, ") of ", TargetName(),
                                             " must be ", ShapeText(type, dims), ", not ",
                                             ops_[i]->array().shape().ToString(false)));
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> Call::ScalarOperand(int64_t i, PrimitiveType type,
                                            std::string_view what) const {
  HLO_RETURN_IF_ERROR(ExpectOperand(i, type, {}, what));
  return ops_[i]->array().GetInt(0);
}

absl::Status Call::ExpectSizes(std::initializer_list<Size> sizes) const {
  for (const Size& s : sizes) {
    HLO_ASSIGN_OR_RETURN(const int64_t got, ScalarOperand(s.index, PrimitiveType::kS32, s.name));
    if (got != s.value) {
      return absl::InvalidArgumentError(StrCat("scalar operand ", s.index, " (", s.name, ") of ",
                                               TargetName(), " is ", got,
                                               ", but the array operands say ", s.value));
    }
  }
  return absl::OkStatus();
}

absl::Status Call::ExpectResults(const std::vector<ResultSpec>& specs, bool tuple) {
  const Shape& s = inst_.shape();
  bool ok = tuple ? s.IsTuple() && s.tuple_size() == static_cast<int64_t>(specs.size())
                  : specs.size() == 1 && SameArray(s, specs[0]);
  for (size_t i = 0; ok && tuple && i < specs.size(); ++i) {
    ok = SameArray(s.tuple_shape(static_cast<int64_t>(i)), specs[i]);
  }
  if (!ok) {
    return absl::InvalidArgumentError(StrCat("custom-call ", TargetName(), " returns ",
                                             SpecsText(specs, tuple), " here, but its shape is ",
                                             s.ToString(false)));
  }
  tuple_ = tuple;
  results_.clear();
  for (size_t i = 0; i < specs.size(); ++i) {
    const Shape& rs = tuple ? s.tuple_shape(static_cast<int64_t>(i)) : s;
    absl::StatusOr<Value> v = NewArray(rs);
    if (!v.ok()) return v.status();
    results_.push_back(v->array_ptr());
  }
  return absl::OkStatus();
}

Value Call::Finish() {
  if (!tuple_) return Value::Array(results_[0]);
  std::vector<Value> elements;
  for (auto& r : results_) elements.push_back(Value::Array(r));
  return Value::Tuple(std::move(elements));
}

std::vector<int64_t> Call::ResultDims(int64_t i) const {
  const Shape& s = results_[i]->shape();
  return {s.dims().begin(), s.dims().end()};
}

const Shape& Call::OperandLayout(int64_t i) const {
  if (const Attribute* a = inst_.FindAttr(AttrKind::kOperandLayoutConstraints)) {
    if (const auto* shapes = std::get_if<std::vector<const Shape*>>(&a->value)) {
      if (static_cast<int64_t>(shapes->size()) == inst_.operand_count() && (*shapes)[i] &&
          (*shapes)[i]->IsArray() && (*shapes)[i]->has_layout()) {
        return *(*shapes)[i];
      }
    }
  }
  return inst_.operand(i)->shape();
}

const Shape& Call::ResultLayout(int64_t i) const {
  return tuple_ ? inst_.shape().tuple_shape(i) : inst_.shape();
}

void Call::ToMemoryOrder(const Literal& lit, const Shape& layout_of, void* out) {
  const SmallDims strides = MemoryStrides(layout_of, lit.shape().dims());
  Reorder<true>(lit.data(), static_cast<uint8_t*>(out), ByteWidth(lit.element_type()),
                lit.shape().dims(), strides);
}

void Call::FromMemoryOrder(const void* in, const Shape& layout_of, Literal& lit) {
  const SmallDims strides = MemoryStrides(layout_of, lit.shape().dims());
  Reorder<false>(static_cast<const uint8_t*>(in), lit.data(), ByteWidth(lit.element_type()),
                 lit.shape().dims(), strides);
}

bool WidenedCall(const Call& call) {
  if (call.type() != PrimitiveType::kF32 && call.type() != PrimitiveType::kC64) return false;
  for (int64_t i = 0; i < call.OperandCount(); ++i) {
    const Shape& shape = call.OperandShape(i);
    if (shape.element_type() != call.type()) continue;
    for (int64_t d = std::max<int64_t>(0, shape.rank() - 2); d < shape.rank(); ++d) {
      if (shape.dim(d) > kWidenedMaxDim) return false;
    }
  }
  return true;
}

void ParallelProblems(int64_t count, int64_t max_dim,
                      const std::function<void(int64_t, int64_t)>& run) {
  if (count >= 2 && max_dim <= kParallelMaxDim) {
    // OpenBLAS opens on this thread, on the process's start mask, not on a
    // pinned worker (eval/blas_api.h).
    static const bool open = blas::Symbol("openblas_get_num_threads") != nullptr;
    (void)open;
    ParallelRows(count, 1, run);
  } else {
    run(0, count);
  }
}

absl::StatusOr<int> WorkspaceSize(double queried, std::string_view what) {
  if (!(queried >= 1)) return 1;
  if (queried > INT_MAX) {
    return absl::InvalidArgumentError(
        StrCat("LAPACK's ", what, " workspace (", queried, " elements) exceeds its 32-bit sizes"));
  }
  return static_cast<int>(std::ceil(queried));
}

absl::StatusOr<int> LapackInt(int64_t v, std::string_view what) {
  if (v < 0 || v > INT_MAX) {
    return absl::InvalidArgumentError(
        StrCat(what, " (", v, ") does not fit LAPACK's 32-bit sizes"));
  }
  return static_cast<int>(v);
}

}  // namespace hlo::lapack

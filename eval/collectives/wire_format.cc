#include "eval/collectives/wire_format.h"

#include <cstring>
#include <memory>

#include "ir/status_macros.h"
#include "ir/strings.h"

namespace hlo {
namespace {

enum Kind : int64_t { kArrayKind = 0, kTupleKind = 1, kTokenKind = 2, kArrayApartKind = 3 };

absl::Status Damaged(std::string_view what) {
  return absl::DataLossError(StrCat("a message from another rank is damaged: ", what));
}

// Deeper nesting than any module's tuples: a damaged message.
constexpr int kMaxDepth = 64;

}  // namespace

int64_t WireBytes(const Value& v) {
  if (v.is_array()) return static_cast<int64_t>(v.array().size_bytes());
  int64_t n = 0;
  for (const Value& e : v.elements()) n += WireBytes(e);
  return n;
}

void WireWriter::Val(const Value& v, std::vector<Value>* apart) {
  if (v.is_token()) {
    Int(kTokenKind);
    return;
  }
  if (v.is_tuple()) {
    Int(kTupleKind);
    Int(static_cast<int64_t>(v.elements().size()));
    for (const Value& e : v.elements()) Val(e, apart);
    return;
  }
  const Literal& lit = v.array();
  const Shape& s = lit.shape();
  const bool away = apart != nullptr && static_cast<int64_t>(lit.size_bytes()) >= kApartBytes;
  Int(away ? kArrayApartKind : kArrayKind);
  Int(static_cast<int64_t>(s.element_type()));
  Int(s.rank());
  for (int64_t i = 0; i < s.rank(); ++i) {
    Int(s.dim(i));
    Int(s.is_dynamic_dim(i) ? 1 : 0);
  }
  Int(s.has_layout() ? 1 : 0);
  if (s.has_layout()) {
    for (int64_t d : s.layout().minor_to_major) Int(d);
  }
  Int(static_cast<int64_t>(lit.size_bytes()));
  if (away) {
    apart->push_back(v);
  } else {
    Raw(lit.data(), lit.size_bytes());
  }
}

absl::Status WireReader::Raw(void* p, size_t n) {
  if (n > in_.size()) return Damaged("it ends early");
  if (n > 0) std::memcpy(p, in_.data(), n);
  in_.remove_prefix(n);
  return absl::OkStatus();
}

absl::StatusOr<int64_t> WireReader::Int() {
  int64_t v = 0;
  if (absl::Status st = Raw(&v, sizeof(v)); !st.ok()) return st;
  return v;
}

absl::StatusOr<std::string> WireReader::Str() {
  auto n = Int();
  if (!n.ok()) return n.status();
  if (*n < 0 || static_cast<uint64_t>(*n) > in_.size()) return Damaged("a string's length");
  std::string s(in_.substr(0, static_cast<size_t>(*n)));
  in_.remove_prefix(static_cast<size_t>(*n));
  return s;
}

absl::StatusOr<std::vector<int64_t>> WireReader::Ints() {
  auto n = Int();
  if (!n.ok()) return n.status();
  if (*n < 0 || static_cast<uint64_t>(*n) > in_.size() / sizeof(int64_t)) {
    return Damaged("a list's length");
  }
  std::vector<int64_t> v(static_cast<size_t>(*n));
  if (absl::Status st = Raw(v.data(), v.size() * sizeof(int64_t)); !st.ok()) return st;
  return v;
}

absl::StatusOr<Value> WireReader::Val() { return ValAt(0); }

absl::StatusOr<Value> WireReader::ValAt(int depth) {
  if (depth > kMaxDepth) return Damaged("tuples nested too deep");
  HLO_ASSIGN_OR_RETURN(int64_t kind, Int());
  if (kind == kTokenKind) return Value::Token();
  if (kind == kTupleKind) {
    HLO_ASSIGN_OR_RETURN(int64_t n, Int());
    if (n < 0 || static_cast<uint64_t>(n) > in_.size()) return Damaged("a tuple's size");
    std::vector<Value> elements;
    for (int64_t i = 0; i < n; ++i) {
      HLO_ASSIGN_OR_RETURN(Value e, ValAt(depth + 1));
      elements.push_back(std::move(e));
    }
    return Value::Tuple(std::move(elements));
  }
  if (kind != kArrayKind && kind != kArrayApartKind) return Damaged("a value's kind");
  HLO_ASSIGN_OR_RETURN(Literal lit, ArrayAt(kind == kArrayApartKind));
  return Value::Array(std::make_shared<Literal>(std::move(lit)));
}

absl::StatusOr<Literal> WireReader::ArrayAt(bool apart) {
  HLO_ASSIGN_OR_RETURN(int64_t type, Int());
  HLO_ASSIGN_OR_RETURN(int64_t rank, Int());
  if (type < 0 || type >= kNumPrimitiveTypes || rank < 0 || rank > 64) {
    return Damaged("an array's type or rank");
  }
  std::vector<int64_t> dims(static_cast<size_t>(rank));
  std::vector<bool> dynamic(static_cast<size_t>(rank));
  for (int64_t i = 0; i < rank; ++i) {
    HLO_ASSIGN_OR_RETURN(dims[i], Int());
    HLO_ASSIGN_OR_RETURN(int64_t dyn, Int());
    if (dims[i] < 0) return Damaged("an array's dimension");
    dynamic[i] = dyn != 0;
  }
  Shape shape = Shape::Array(static_cast<PrimitiveType>(type), dims);
  for (int64_t i = 0; i < rank; ++i) {
    if (dynamic[i]) shape = shape.WithDynamicDim(i, true);
  }
  HLO_ASSIGN_OR_RETURN(int64_t has_layout, Int());
  if (has_layout != 0) {
    Layout layout;
    for (int64_t i = 0; i < rank; ++i) {
      HLO_ASSIGN_OR_RETURN(int64_t d, Int());
      layout.minor_to_major.push_back(d);
    }
    shape = shape.WithLayout(std::move(layout));
  }
  HLO_ASSIGN_OR_RETURN(int64_t bytes, Int());
  // Bytes here must be here; bytes apart come in a message of their own,
  // checked against this size when they arrive.
  if (bytes < 0 || (!apart && static_cast<uint64_t>(bytes) > in_.size())) {
    return Damaged("an array's size");
  }
  HLO_ASSIGN_OR_RETURN(Literal lit, Literal::CreateUninitialized(shape));
  if (static_cast<int64_t>(lit.size_bytes()) != bytes) return Damaged("an array's size");
  if (apart) {
    apart_.push_back(Apart{reinterpret_cast<char*>(lit.data()), lit.size_bytes()});
  } else if (absl::Status st = Raw(lit.data(), lit.size_bytes()); !st.ok()) {
    return st;
  }
  return lit;
}

}  // namespace hlo

#include "eval/collectives/wire_format.h"

#include <atomic>
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

namespace {

// A collective key's hash, the same in every process: FNV-1a's step on
// eight bytes at a time (a gather hashes a key per instance; byte by byte
// was a chain of one multiply per character), then a final mix.
uint64_t KeyHash(std::string_view key) {
  uint64_t hash = kFnvOffset ^ key.size();
  size_t at = 0;
  for (; at + 8 <= key.size(); at += 8) {
    uint64_t word;
    std::memcpy(&word, key.data() + at, 8);
    hash = (hash ^ word) * 0x100000001b3ULL;
    hash ^= hash >> 29;
  }
  uint64_t tail = 0;
  std::memcpy(&tail, key.data() + at, key.size() - at);
  hash = (hash ^ tail) * 0x100000001b3ULL;
  hash ^= hash >> 32;
  return hash * 0x9e3779b97f4a7c15ULL;
}

}  // namespace

std::optional<GatherBlocks> GatherBlocks::For(std::string_view key, const Value& like) {
  GatherBlocks b;
  b.key_hash_ = KeyHash(key);
  b.tuple_ = like.is_tuple();
  if (like.is_array()) {
    b.leaves_.push_back(like.array().shape());
  } else if (like.is_tuple()) {
    for (const Value& e : like.elements()) {
      if (!e.is_array()) return std::nullopt;
      b.leaves_.push_back(e.array().shape());
    }
  } else {
    return std::nullopt;
  }
  b.member_bytes_ = WireBytes(like);
  return b;
}

bool GatherBlocks::Fits(const Value& like) const {
  if (like.is_array()) return !tuple_ && leaves_.size() == 1 && leaves_[0] == like.array().shape();
  if (!like.is_tuple() || !tuple_ || like.elements().size() != leaves_.size()) return false;
  for (size_t i = 0; i < leaves_.size(); ++i) {
    const Value& e = like.elements()[i];
    if (!e.is_array() || !(leaves_[i] == e.array().shape())) return false;
  }
  return true;
}

void GatherBlocks::Rekey(std::string_view key) { key_hash_ = KeyHash(key); }

void GatherBlocks::Header(std::string_view key, int64_t member_bytes, char* out) {
  const int64_t header[2] = {static_cast<int64_t>(KeyHash(key)), member_bytes};
  std::memcpy(out, header, sizeof(header));
}

bool GatherBlocks::Write(absl::Span<const Value* const> members, std::string* out) const {
  const int64_t header[2] = {static_cast<int64_t>(key_hash_), member_bytes_};
  out->append(reinterpret_cast<const char*>(header), sizeof(header));
  for (const Value* m : members) {
    if (WireBytes(*m) != member_bytes_) return false;
    if (m->is_array()) {
      out->append(reinterpret_cast<const char*>(m->array().data()), m->array().size_bytes());
      continue;
    }
    for (const Value& e : m->elements()) {
      if (!e.is_array()) return false;
      out->append(reinterpret_cast<const char*>(e.array().data()), e.array().size_bytes());
    }
  }
  return true;
}

absl::Status GatherBlocks::ReadEach(std::string_view block, size_t members,
                                    absl::FunctionRef<void(size_t, Value)> take,
                                    std::vector<std::shared_ptr<Literal>>* kept) const {
  int64_t header[2];
  if (block.size() != BlockBytes(members)) return Damaged("a gather's block has the wrong size");
  std::memcpy(header, block.data(), sizeof(header));
  if (header[0] != static_cast<int64_t>(key_hash_) || header[1] != member_bytes_) {
    return absl::FailedPreconditionError("another rank's gather is of another collective");
  }
  block.remove_prefix(sizeof(header));
  size_t leaves = 0;  // read so far: the index into kept
  auto leaf = [&](const Shape& shape) -> absl::StatusOr<Value> {
    std::shared_ptr<Literal> lit;
    const size_t at = leaves++;
    if (kept != nullptr && at < kept->size() && (*kept)[at].use_count() == 1 &&
        (*kept)[at]->shape() == shape) {
      // Pairs with the taker's release of its reference.
      std::atomic_thread_fence(std::memory_order_acquire);
      lit = (*kept)[at];
    } else {
      HLO_ASSIGN_OR_RETURN(Literal made, Literal::CreateUninitialized(shape));
      lit = std::make_shared<Literal>(std::move(made));
      if (kept != nullptr) {
        if (kept->size() <= at) kept->resize(at + 1);
        (*kept)[at] = lit;
      }
    }
    if (lit->size_bytes() > block.size()) return Damaged("a gather's block ends early");
    std::memcpy(lit->data(), block.data(), lit->size_bytes());
    block.remove_prefix(lit->size_bytes());
    return Value::Array(std::move(lit));
  };
  for (size_t m = 0; m < members; ++m) {
    if (!tuple_) {
      HLO_ASSIGN_OR_RETURN(Value v, leaf(leaves_.front()));
      take(m, std::move(v));
      continue;
    }
    std::vector<Value> arrays;
    for (const Shape& shape : leaves_) {
      HLO_ASSIGN_OR_RETURN(Value v, leaf(shape));
      arrays.push_back(std::move(v));
    }
    take(m, Value::Tuple(std::move(arrays)));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Value>> GatherBlocks::Read(std::string_view block,
                                                      size_t members) const {
  std::vector<Value> out;
  out.reserve(members);
  HLO_RETURN_IF_ERROR(
      ReadEach(block, members, [&](size_t, Value v) { out.push_back(std::move(v)); }));
  return out;
}

}  // namespace hlo

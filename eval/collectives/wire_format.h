// The bytes a transport between processes carries: Values (arrays with
// their shapes, tuples, tokens) and the few fields of each message, written
// with a Writer and read back with a Reader that checks every length, so a
// damaged message is an error, never a read past its end.
#ifndef HLO_EVAL_COLLECTIVES_WIRE_FORMAT_H_
#define HLO_EVAL_COLLECTIVES_WIRE_FORMAT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "eval/value.h"

namespace hlo {

class WireWriter {
 public:
  void Int(int64_t v) { Raw(&v, sizeof(v)); }
  void Str(std::string_view s) {
    Int(static_cast<int64_t>(s.size()));
    Raw(s.data(), s.size());
  }
  void Ints(const std::vector<int64_t>& v) {
    Int(static_cast<int64_t>(v.size()));
    Raw(v.data(), v.size() * sizeof(int64_t));
  }
  // An array's shape (type, dims, dynamism, minor_to_major) and bytes. With
  // `apart`, an array of at least kApartBytes leaves its bytes out: its
  // Value goes to *apart, for the transport to send as a message of its
  // own (from where it is, no copy) right after this one, and the reader
  // lists where its bytes must go (WireReader::apart).
  void Val(const Value& v, std::vector<Value>* apart = nullptr);
  static constexpr int64_t kApartBytes = int64_t{64} << 10;
  // Room for `bytes` more, so that one large array is copied once.
  void Reserve(size_t bytes) { out_.reserve(out_.size() + bytes); }
  std::string Take() { return std::move(out_); }

 private:
  void Raw(const void* p, size_t n) { out_.append(static_cast<const char*>(p), n); }
  std::string out_;
};

class WireReader {
 public:
  explicit WireReader(std::string_view in) : in_(in) {}
  absl::StatusOr<int64_t> Int();
  absl::StatusOr<std::string> Str();
  absl::StatusOr<std::vector<int64_t>> Ints();
  absl::StatusOr<Value> Val();
  bool done() const { return in_.empty(); }
  // The arrays read so far whose bytes travel apart, in order: where each
  // one's bytes go, and how many.
  struct Apart {
    char* data;
    size_t bytes;
  };
  const std::vector<Apart>& apart() const { return apart_; }

 private:
  absl::Status Raw(void* p, size_t n);
  absl::StatusOr<Value> ValAt(int depth);
  absl::StatusOr<Literal> ArrayAt(bool apart);
  std::string_view in_;
  std::vector<Apart> apart_;
};

// Bytes of the arrays in `v` (tuples summed): what Val will copy.
int64_t WireBytes(const Value& v);

// A small collective's gather (Transport::StartGather) carries one block
// per process: a header (a hash of the collective's key, the bytes of one
// member's contribution), then its members' contributions in group order,
// each the bytes of its arrays one after another. No shapes travel: every
// member's contribution has the shapes of this process's (one instruction
// on every device), and the header tells a process that disagrees.
class GatherBlocks {
 public:
  // The blocks of contributions shaped like `like`; nullopt when it is not
  // an array or a tuple of arrays.
  static std::optional<GatherBlocks> For(std::string_view key, const Value& like);
  static constexpr size_t kHeaderBytes = 16;
  // The header Write puts before the members of the collective `key`, of
  // `member_bytes` each (for a block written in place).
  static void Header(std::string_view key, int64_t member_bytes, char* out);
  // Whether contributions shaped like `like` have these blocks (then
  // Rekey makes them another collective's).
  bool Fits(const Value& like) const;
  void Rekey(std::string_view key);
  int64_t member_bytes() const { return member_bytes_; }
  size_t BlockBytes(size_t members) const {
    return kHeaderBytes + members * static_cast<size_t>(member_bytes_);
  }
  // This process's block; false when a member's bytes differ.
  bool Write(absl::Span<const Value* const> members, std::string* out) const;
  // Another process's block of `members` contributions, each given to
  // `take` (its index in the block, its value) in order; an error when its
  // header or size is not this collective's. `kept`, where given, holds the
  // arrays of the last read of this block: each that its taker let go (the
  // only reference left is kept's) is written again instead of a new one.
  absl::Status ReadEach(std::string_view block, size_t members,
                        absl::FunctionRef<void(size_t, Value)> take,
                        std::vector<std::shared_ptr<Literal>>* kept = nullptr) const;
  absl::StatusOr<std::vector<Value>> Read(std::string_view block, size_t members) const;

 private:
  uint64_t key_hash_ = 0;
  int64_t member_bytes_ = 0;
  bool tuple_ = false;
  std::vector<Shape> leaves_;  // the arrays of a contribution
};

}  // namespace hlo

#endif  // HLO_EVAL_COLLECTIVES_WIRE_FORMAT_H_

// Literal: a value of any shape in typed contiguous storage.
//
// Array elements are stored densely in row-major (logical) order, one element
// per ByteWidth(type) bytes: pred as one byte (0/1), sub-byte integers
// sign- or zero-extended into one byte, f16/bf16/f8/f4 as their raw bits,
// complex as (real, imag) pairs. A tuple literal holds its elements.
#ifndef HLO_IR_LITERAL_H_
#define HLO_IR_LITERAL_H_

#include <complex>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ir/buffer_pool.h"
#include "ir/shape.h"

namespace hlo {

class Literal {
 public:
  Literal() = default;
  Literal(const Literal& o);
  Literal(Literal&& o) noexcept;
  Literal& operator=(const Literal& o);
  Literal& operator=(Literal&& o) noexcept;
  // Zero-filled literal of `shape` (layout ignored; storage is row-major).
  // Fails when the shape is not static or too large.
  static absl::StatusOr<Literal> Create(const Shape& shape);
  // Like Create for an array shape, but the elements are left uninitialised:
  // only for callers that write every element before anyone reads it.
  static absl::StatusOr<Literal> CreateUninitialized(const Shape& shape);
  static Literal Tuple(std::vector<Literal> elements);
  // Gives this array literal `shape`, of the same element type and count,
  // keeping its bytes (storage is row-major, so that is a reshape). False,
  // nothing changed, when the shape does not fit.
  bool ReshapeInPlace(const Shape& shape);
  // An array literal of `shape` whose elements are `source`'s bytes from
  // `offset` on, not a copy: a bitcast, reshape or slice of a buffer that
  // others hold too. The view keeps the source alive and is read-only (the
  // evaluator writes only into buffers it holds alone, and a view never is:
  // Value::unique()); copying it copies the bytes. A view of a view views
  // the first source. Fails, as CreateUninitialized, for a shape that is
  // not static; `source` must hold offset + the shape's bytes.
  static absl::StatusOr<Literal> ViewOf(std::shared_ptr<const Literal> source, const Shape& shape,
                                        size_t offset = 0);
  bool is_view() const { return view_source_ != nullptr; }

  const Shape& shape() const { return shape_; }
  bool IsTuple() const { return shape_.IsTuple(); }
  PrimitiveType element_type() const { return shape_.element_type(); }
  int64_t element_count() const { return element_count_; }

  // Raw storage of an array literal.
  uint8_t* data() { return view_data_ != nullptr ? view_data_ : bytes_.data(); }
  const uint8_t* data() const { return view_data_ != nullptr ? view_data_ : bytes_.data(); }
  size_t size_bytes() const { return view_data_ != nullptr ? view_size_ : bytes_.size(); }
  template <typename T>
  T* typed() {
    return reinterpret_cast<T*>(data());
  }
  template <typename T>
  const T* typed() const {
    return reinterpret_cast<const T*>(data());
  }

  std::vector<Literal>& elements() { return elements_; }
  const std::vector<Literal>& elements() const { return elements_; }

  // Element i (row-major) converted to double / set from double, using the
  // element type's rounding (round to nearest even for floats, wrap for
  // integers). Complex literals use the real part; see Get/SetComplex.
  double GetDouble(int64_t i) const;
  void SetDouble(int64_t i, double v);
  std::complex<double> GetComplex(int64_t i) const;
  void SetComplex(int64_t i, std::complex<double> v);
  // Integer element i as int64 (u64 reinterpreted), pred as 0/1.
  int64_t GetInt(int64_t i) const;
  void SetInt(int64_t i, int64_t v);
  // Raw bits of element i, zero-extended (floats' encodings).
  uint64_t GetBits(int64_t i) const;
  void SetBits(int64_t i, uint64_t bits);

  bool operator==(const Literal& o) const;

 private:
  // A tuple's shape points at its elements' shapes; re-point after copies.
  void RebindTupleShape();

  // Grows without value-initialising, so CreateUninitialized skips the
  // zero-fill (Create still fills explicitly). Large blocks come from the
  // buffer pool (ir/buffer_pool.h), which keeps their pages mapped.
  template <typename T>
  struct DefaultInitAllocator : std::allocator<T> {
    T* allocate(size_t n) {
      if (buffer_pool::Enabled() && n * sizeof(T) >= buffer_pool::kMinPooledBytes) {
        return static_cast<T*>(buffer_pool::Allocate(n * sizeof(T)));
      }
      return std::allocator<T>::allocate(n);
    }
    void deallocate(T* p, size_t n) {
      if (buffer_pool::Enabled() && n * sizeof(T) >= buffer_pool::kMinPooledBytes) {
        buffer_pool::Free(p, n * sizeof(T));
        return;
      }
      std::allocator<T>::deallocate(p, n);
    }
    template <typename U>
    struct rebind {
      using other = DefaultInitAllocator<U>;
    };
    DefaultInitAllocator() = default;
    template <typename U>
    DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}
    template <typename U>
    void construct(U* p) noexcept {
      ::new (static_cast<void*>(p)) U;
    }
    template <typename U, typename... Args>
    void construct(U* p, Args&&... args) {
      ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
  };
  static absl::StatusOr<Literal> CreateImpl(const Shape& shape, bool zero);

  Shape shape_;
  int64_t element_count_ = 0;
  std::vector<uint8_t, DefaultInitAllocator<uint8_t>> bytes_;
  std::vector<Literal> elements_;
  // A view's source and its bytes (ViewOf); null for a literal that owns
  // its bytes.
  std::shared_ptr<const Literal> view_source_;
  uint8_t* view_data_ = nullptr;
  size_t view_size_ = 0;
};

// Largest number of bytes one literal may hold (sizes are checked before any
// allocation).
inline constexpr int64_t kMaxLiteralBytes = int64_t{1} << 40;
// Largest rank of a literal (the parser allows no more dimensions either).
inline constexpr int64_t kMaxLiteralRank = 500;

// How literals print.
enum class LiteralStyle {
  // XLA's HLO constant operand: `{1, 2}`, `{ { 1, 2 }, { 3, 4 } }`, floats as
  // RoundTripFpToString (%.Ng, falling back to max_digits10).
  kHloConstant,
  // design.md's literal text: `{{1, 2}, {3, 4}}`, floats shortest round-trip.
  kCompact,
};

// Appends the elements (no shape): `{1, 2}` or a scalar `7`, tuples as
// `(a, b)`.
void AppendLiteralValue(std::string& out, const Literal& literal, LiteralStyle style);
// `f32[2] {1, 2}`, `(f32[] 1, s32[] 2)`.
std::string LiteralToString(const Literal& literal, LiteralStyle style);
// One element as text in the style.
void AppendElement(std::string& out, const Literal& literal, int64_t i, LiteralStyle style);
// Float text as XLA prints it in HLO: `%.{digits10}g`, else max_digits10;
// nan, -nan, inf, -inf.
void AppendXlaFloat(std::string& out, double value, PrimitiveType type);
// Shortest text that reads back to the same value of `type`.
void AppendShortestFloat(std::string& out, double value, PrimitiveType type);

}  // namespace hlo

#endif  // HLO_IR_LITERAL_H_

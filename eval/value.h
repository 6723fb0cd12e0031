// Runtime values: an array in a shared typed buffer, a tuple of values (the
// element list shared too), or a token. Copying a Value shares its buffers,
// so tuple/get-tuple-element and loop state cost no array copies.
#ifndef HLO_EVAL_VALUE_H_
#define HLO_EVAL_VALUE_H_

#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "ir/literal.h"
#include "ir/shape.h"

namespace hlo {

class Value {
 public:
  Value() = default;
  static Value Array(std::shared_ptr<Literal> literal) {
    Value v;
    v.array_ = std::move(literal);
    return v;
  }
  static Value Tuple(std::vector<Value> elements) {
    Value v;
    v.is_tuple_ = true;
    if (!elements.empty()) {
      v.elements_ = std::make_shared<std::vector<Value>>(std::move(elements));
    }
    return v;
  }
  static Value Token() {
    Value v;
    v.is_token_ = true;
    return v;
  }
  // A value holding a copy of a literal (tuples become tuples of values).
  static Value FromLiteral(Literal literal);

  bool is_tuple() const { return is_tuple_; }
  bool is_token() const { return is_token_; }
  bool is_array() const { return array_ != nullptr; }

  const Literal& array() const { return *array_; }
  // The buffer for writing: only for values this kernel just created or
  // holds the only reference to (see unique()).
  Literal& mutable_array() { return *array_; }
  const std::shared_ptr<Literal>& array_ptr() const { return array_; }
  // Whether this value alone holds its array's buffer: no other reference
  // to the literal, and the literal is no view of another's bytes.
  bool unique() const { return array_ && array_.use_count() == 1 && !array_->is_view(); }
  // Moves the array's reference out, leaving no array here.
  std::shared_ptr<Literal> TakeArray() { return std::move(array_); }

  const std::vector<Value>& elements() const { return elements_ ? *elements_ : NoElements(); }
  const Value& element(int64_t i) const { return (*elements_)[i]; }
  // The elements for taking apart, when this value alone holds them (a
  // copied tuple shares them); null otherwise.
  std::vector<Value>* unique_elements() {
    return elements_ != nullptr && elements_.use_count() == 1 ? elements_.get() : nullptr;
  }

  // Deep copy into a Literal (tokens become empty tuples).
  Literal ToLiteral() const;
  // The same, moving the buffers out where this value is their only owner
  // (the value is left empty); shared ones are copied.
  Literal TakeLiteral() &&;
  // Bytes of array storage reachable from this value (shared buffers
  // counted each time).
  int64_t ByteSize() const;

 private:
  static const std::vector<Value>& NoElements();

  std::shared_ptr<Literal> array_;
  // Shared by copies: copying a tuple costs one count, not one per element.
  std::shared_ptr<std::vector<Value>> elements_;
  bool is_tuple_ = false;
  bool is_token_ = false;
};

// Bytes of the arrays in a shape (tuples summed); -1 past 2^63.
int64_t ShapeBytes(const Shape& shape);

// Checks that `value` fits `shape` (element types, dims; tuples recurse).
absl::Status CheckValueShape(const Value& value, const Shape& shape, std::string_view what);
// CheckValueShape's test alone, with no message to make (hot paths).
bool ValueMatchesShape(const Value& value, const Shape& shape);

}  // namespace hlo

#endif  // HLO_EVAL_VALUE_H_

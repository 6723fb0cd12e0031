#include "eval/value.h"

#include <cstdint>
#include <string>

#include "ir/strings.h"

namespace hlo {

Value Value::FromLiteral(Literal literal) {
  if (literal.IsTuple()) {
    std::vector<Value> elems;
    elems.reserve(literal.elements().size());
    for (Literal& e : literal.elements()) elems.push_back(FromLiteral(std::move(e)));
    return Tuple(std::move(elems));
  }
  if (literal.shape().IsToken()) return Token();
  return Array(std::make_shared<Literal>(std::move(literal)));
}

const std::vector<Value>& Value::NoElements() {
  static const std::vector<Value>* none = new std::vector<Value>();
  return *none;
}

Literal Value::ToLiteral() const {
  if (is_tuple_) {
    std::vector<Literal> elems;
    elems.reserve(elements().size());
    for (const Value& e : elements()) elems.push_back(e.ToLiteral());
    return Literal::Tuple(std::move(elems));
  }
  if (array_) return *array_;
  return Literal::Tuple({});
}

Literal Value::TakeLiteral() && {
  if (is_tuple_) {
    if (elements_ == nullptr || elements_.use_count() != 1) return ToLiteral();
    std::vector<Literal> elems;
    elems.reserve(elements_->size());
    for (Value& e : *elements_) elems.push_back(std::move(e).TakeLiteral());
    elements_.reset();
    return Literal::Tuple(std::move(elems));
  }
  if (unique()) {
    Literal out = std::move(*array_);
    array_.reset();
    return out;
  }
  return ToLiteral();
}

int64_t Value::ByteSize() const {
  if (array_) return static_cast<int64_t>(array_->size_bytes());
  int64_t n = 0;
  for (const Value& e : elements()) n += e.ByteSize();
  return n;
}

int64_t ShapeBytes(const Shape& shape) {
  if (shape.IsTuple()) {
    int64_t n = 0;
    for (const Shape* e : shape.tuple_shapes()) {
      int64_t b = ShapeBytes(*e);
      if (b < 0 || n > INT64_MAX - b) return -1;
      n += b;
    }
    return n;
  }
  if (!shape.IsArray()) return 0;
  int64_t count = shape.ElementCount();
  int64_t width = ByteWidth(shape.element_type());
  if (count < 0 || (width > 0 && count > INT64_MAX / width)) return -1;
  return count * width;
}

bool ValueMatchesShape(const Value& value, const Shape& shape) {
  if (shape.IsTuple()) {
    if (!value.is_tuple() || static_cast<int64_t>(value.elements().size()) != shape.tuple_size()) {
      return false;
    }
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      if (!ValueMatchesShape(value.element(i), shape.tuple_shape(i))) return false;
    }
    return true;
  }
  if (shape.IsToken()) return value.is_token();
  return value.is_array() && value.array().shape().Compatible(shape);
}

absl::Status CheckValueShape(const Value& value, const Shape& shape, std::string_view what) {
  if (shape.IsTuple()) {
    if (!value.is_tuple() || static_cast<int64_t>(value.elements().size()) != shape.tuple_size()) {
      return absl::InvalidArgumentError(
          StrCat(what, " should be a tuple of ", shape.tuple_size(), " elements"));
    }
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      absl::Status st =
          CheckValueShape(value.element(i), shape.tuple_shape(i), StrCat(what, " element ", i));
      if (!st.ok()) return st;
    }
    return absl::OkStatus();
  }
  if (shape.IsToken()) {
    if (value.is_token()) return absl::OkStatus();
    return absl::InvalidArgumentError(StrCat(what, " should be a token"));
  }
  if (!value.is_array() || !value.array().shape().Compatible(shape)) {
    std::string got = value.is_array()   ? value.array().shape().ToString(false)
                      : value.is_tuple() ? std::string("a tuple")
                                         : std::string("a token");
    return absl::InvalidArgumentError(
        StrCat(what, " has shape ", got, " but ", shape.ToString(false), " is expected"));
  }
  return absl::OkStatus();
}

}  // namespace hlo

#include "eval/value.h"

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

int64_t Value::ByteSize() const {
  if (array_) return static_cast<int64_t>(array_->size_bytes());
  int64_t n = 0;
  for (const Value& e : elements()) n += e.ByteSize();
  return n;
}

}  // namespace hlo

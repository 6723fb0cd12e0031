#include "ir/literal.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <new>

#include "absl/status/status.h"
#include "ir/float_formats.h"
#include "ir/strings.h"

namespace hlo {

void Literal::RebindTupleShape() {
  if (!shape_.IsTuple()) return;
  std::vector<const Shape*> ptrs;
  ptrs.reserve(elements_.size());
  for (const Literal& e : elements_) ptrs.push_back(&e.shape_);
  shape_ = Shape::Tuple(std::move(ptrs));
}

// (A copy owns its bytes: a view's are copied out of its source.)
Literal::Literal(const Literal& o)
    : shape_(o.shape_),
      element_count_(o.element_count_),
      bytes_(o.data(), o.data() + o.size_bytes()),
      elements_(o.elements_) {
  RebindTupleShape();
}

Literal::Literal(Literal&& o) noexcept
    : shape_(std::move(o.shape_)),
      element_count_(o.element_count_),
      bytes_(std::move(o.bytes_)),
      elements_(std::move(o.elements_)),
      view_source_(std::move(o.view_source_)),
      view_data_(std::exchange(o.view_data_, nullptr)),
      view_size_(std::exchange(o.view_size_, 0)) {
  RebindTupleShape();
}

Literal& Literal::operator=(const Literal& o) {
  if (this == &o) return *this;
  // (A view's bytes may be this literal's own: copied out first.)
  if (o.is_view()) return *this = Literal(o);
  shape_ = o.shape_;
  element_count_ = o.element_count_;
  bytes_ = o.bytes_;  // (keeps this literal's capacity)
  elements_ = o.elements_;
  view_source_.reset();
  view_data_ = nullptr;
  view_size_ = 0;
  RebindTupleShape();
  return *this;
}

Literal& Literal::operator=(Literal&& o) noexcept {
  shape_ = std::move(o.shape_);
  element_count_ = o.element_count_;
  bytes_ = std::move(o.bytes_);
  elements_ = std::move(o.elements_);
  view_source_ = std::move(o.view_source_);
  view_data_ = std::exchange(o.view_data_, nullptr);
  view_size_ = std::exchange(o.view_size_, 0);
  RebindTupleShape();
  return *this;
}

absl::StatusOr<Literal> Literal::Create(const Shape& shape) {
  return CreateImpl(shape, /*zero=*/true);
}

absl::StatusOr<Literal> Literal::CreateUninitialized(const Shape& shape) {
  return CreateImpl(shape, /*zero=*/false);
}

bool Literal::ReshapeInPlace(const Shape& shape) {
  if (!shape_.IsArray() || !shape.IsArray() || !shape.IsStatic() ||
      shape.element_type() != shape_.element_type() || shape.ElementCount() != element_count_) {
    return false;
  }
  shape_ = shape.WithoutLayout();
  return true;
}

absl::StatusOr<Literal> Literal::ViewOf(std::shared_ptr<const Literal> source, const Shape& shape,
                                        size_t offset) {
  const int64_t n = shape.IsArray() && shape.IsStatic() ? shape.ElementCount() : -1;
  const int64_t width = shape.IsArray() ? ByteWidth(shape.element_type()) : 0;
  if (source == nullptr || n < 0 || !source->shape_.IsArray() ||
      n > static_cast<int64_t>(source->size_bytes()) / std::max<int64_t>(width, 1) ||
      offset > source->size_bytes() - static_cast<size_t>(n * width)) {
    return absl::InvalidArgumentError(
        StrCat("a view of ", shape.ToString(false), " does not fit in its source"));
  }
  Literal lit;
  lit.shape_ = shape.WithoutLayout();
  lit.element_count_ = n;
  lit.view_size_ = static_cast<size_t>(n * width);
  // (const_cast: data() of a non-const literal is writable, but no one
  // writes through a view; see ViewOf's comment.)
  lit.view_data_ = const_cast<uint8_t*>(source->data()) + offset;
  lit.view_source_ = source->is_view() ? source->view_source_ : std::move(source);
  return lit;
}

absl::StatusOr<Literal> Literal::CreateImpl(const Shape& shape, bool zero) {
  Literal lit;
  if (shape.IsTuple()) {
    std::vector<Literal> elems;
    for (const Shape* e : shape.tuple_shapes()) {
      auto el = CreateImpl(*e, zero);
      if (!el.ok()) return el.status();
      elems.push_back(*std::move(el));
    }
    return Tuple(std::move(elems));
  }
  lit.shape_ = shape.WithoutLayout();
  if (!shape.IsArray()) return lit;
  // Printing and indexing walk one level per dimension.
  if (shape.rank() > kMaxLiteralRank) {
    return absl::InvalidArgumentError(StrCat("rank ", shape.rank(), " is more than the ",
                                             kMaxLiteralRank, " dimensions a literal may have"));
  }
  int64_t n = shape.ElementCount();
  if (n < 0) {
    return absl::InvalidArgumentError(StrCat("shape ", shape.ToString(false),
                                             " has no static size (dynamic or too many elements)"));
  }
  int64_t width = ByteWidth(shape.element_type());
  if (n > kMaxLiteralBytes / std::max<int64_t>(width, 1)) {
    return absl::ResourceExhaustedError(
        StrCat("shape ", shape.ToString(false), " needs ", n, " elements of ", width,
               " bytes, more than the limit of ", kMaxLiteralBytes, " bytes"));
  }
  lit.element_count_ = n;
  try {
    if (zero) {
      lit.bytes_.assign(static_cast<size_t>(n * width), 0);
    } else {
      lit.bytes_.resize(static_cast<size_t>(n * width));
    }
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(
        StrCat("cannot allocate ", n * width, " bytes for ", shape.ToString(false)));
  }
  return lit;
}

Literal Literal::Tuple(std::vector<Literal> elements) {
  Literal lit;
  lit.elements_ = std::move(elements);
  lit.shape_ = Shape::Tuple({});
  lit.RebindTupleShape();
  return lit;
}

uint64_t Literal::GetBits(int64_t i) const {
  int w = ByteWidth(element_type());
  uint64_t bits = 0;
  std::memcpy(&bits, data() + i * w, std::min(w, 8));
  if (BitWidth(element_type()) < 8 && element_type() != PrimitiveType::kPred) {
    bits &= (uint64_t{1} << BitWidth(element_type())) - 1;
  }
  return bits;
}

void Literal::SetBits(int64_t i, uint64_t bits) {
  int w = ByteWidth(element_type());
  // Sub-byte integers are stored one per byte, sign- or zero-extended (the
  // form GetInt reads); `bits` holds only the low BitWidth bits.
  const int width = BitWidth(element_type());
  if (width < 8 && element_type() != PrimitiveType::kPred && IsInteger(element_type())) {
    const uint64_t mask = (uint64_t{1} << width) - 1;
    bits &= mask;
    if (IsSignedInt(element_type()) && (bits >> (width - 1)) != 0) bits |= ~mask;
  }
  std::memcpy(data() + i * w, &bits, std::min(w, 8));
}

int64_t Literal::GetInt(int64_t i) const {
  const uint8_t* p = data();
  switch (element_type()) {
    case PrimitiveType::kPred:
      return p[i] != 0;
    case PrimitiveType::kS1:
    case PrimitiveType::kS2:
    case PrimitiveType::kS4:
    case PrimitiveType::kS8:
      return reinterpret_cast<const int8_t*>(p)[i];
    case PrimitiveType::kS16:
      return reinterpret_cast<const int16_t*>(p)[i];
    case PrimitiveType::kS32:
      return reinterpret_cast<const int32_t*>(p)[i];
    case PrimitiveType::kS64:
      return reinterpret_cast<const int64_t*>(p)[i];
    case PrimitiveType::kU1:
    case PrimitiveType::kU2:
    case PrimitiveType::kU4:
    case PrimitiveType::kU8:
      return p[i];
    case PrimitiveType::kU16:
      return reinterpret_cast<const uint16_t*>(p)[i];
    case PrimitiveType::kU32:
      return reinterpret_cast<const uint32_t*>(p)[i];
    case PrimitiveType::kU64:
      return static_cast<int64_t>(reinterpret_cast<const uint64_t*>(p)[i]);
    default:
      return static_cast<int64_t>(GetDouble(i));
  }
}

namespace {
// Wraps v into a `bits`-wide integer, sign-extended when `is_signed`.
int64_t WrapInt(int64_t v, int bits, bool is_signed) {
  if (bits >= 64) return v;
  uint64_t mask = (uint64_t{1} << bits) - 1;
  uint64_t u = static_cast<uint64_t>(v) & mask;
  if (is_signed && (u >> (bits - 1)) & 1) u |= ~mask;
  return static_cast<int64_t>(u);
}
}  // namespace

void Literal::SetInt(int64_t i, int64_t v) {
  uint8_t* p = data();
  PrimitiveType t = element_type();
  switch (t) {
    case PrimitiveType::kPred:
      p[i] = v != 0;
      return;
    case PrimitiveType::kS1:
    case PrimitiveType::kS2:
    case PrimitiveType::kS4:
    case PrimitiveType::kS8:
      reinterpret_cast<int8_t*>(p)[i] = static_cast<int8_t>(WrapInt(v, BitWidth(t), true));
      return;
    case PrimitiveType::kS16:
      reinterpret_cast<int16_t*>(p)[i] = static_cast<int16_t>(v);
      return;
    case PrimitiveType::kS32:
      reinterpret_cast<int32_t*>(p)[i] = static_cast<int32_t>(v);
      return;
    case PrimitiveType::kS64:
      reinterpret_cast<int64_t*>(p)[i] = v;
      return;
    case PrimitiveType::kU1:
    case PrimitiveType::kU2:
    case PrimitiveType::kU4:
    case PrimitiveType::kU8:
      p[i] = static_cast<uint8_t>(WrapInt(v, BitWidth(t), false));
      return;
    case PrimitiveType::kU16:
      reinterpret_cast<uint16_t*>(p)[i] = static_cast<uint16_t>(v);
      return;
    case PrimitiveType::kU32:
      reinterpret_cast<uint32_t*>(p)[i] = static_cast<uint32_t>(v);
      return;
    case PrimitiveType::kU64:
      reinterpret_cast<uint64_t*>(p)[i] = static_cast<uint64_t>(v);
      return;
    default:
      SetDouble(i, static_cast<double>(v));
      return;
  }
}

double Literal::GetDouble(int64_t i) const {
  PrimitiveType t = element_type();
  switch (t) {
    case PrimitiveType::kF32:
      return typed<float>()[i];
    case PrimitiveType::kF64:
      return typed<double>()[i];
    case PrimitiveType::kC64:
      return typed<float>()[2 * i];
    case PrimitiveType::kC128:
      return typed<double>()[2 * i];
    case PrimitiveType::kU64:
      return static_cast<double>(typed<uint64_t>()[i]);
    default:
      if (IsFloat(t)) return DecodeSmallFloat(t, static_cast<uint32_t>(GetBits(i)));
      return static_cast<double>(GetInt(i));
  }
}

void Literal::SetDouble(int64_t i, double v) {
  PrimitiveType t = element_type();
  switch (t) {
    case PrimitiveType::kF32:
      typed<float>()[i] = static_cast<float>(v);
      return;
    case PrimitiveType::kF64:
      typed<double>()[i] = v;
      return;
    case PrimitiveType::kC64:
      SetComplex(i, {v, 0});
      return;
    case PrimitiveType::kC128:
      SetComplex(i, {v, 0});
      return;
    case PrimitiveType::kPred:
      data()[i] = v != 0;
      return;
    default:
      if (IsFloat(t)) {
        SetBits(i, EncodeSmallFloat(t, v));
        return;
      }
      // Integers: NaN to 0, saturate at the type's range.
      if (std::isnan(v)) {
        SetInt(i, 0);
      } else if (IsUnsignedInt(t)) {
        double max = std::ldexp(1.0, BitWidth(t)) - 1;
        if (v <= 0) {
          SetInt(i, 0);
        } else if (v >= max) {
          SetBits(i, t == PrimitiveType::kU64 ? ~uint64_t{0} : static_cast<uint64_t>(max));
        } else {
          SetBits(i, static_cast<uint64_t>(v));
        }
      } else {
        double lim = std::ldexp(1.0, BitWidth(t) - 1);
        if (v >= lim) {
          SetInt(i, t == PrimitiveType::kS64 ? INT64_MAX : static_cast<int64_t>(lim) - 1);
        } else if (v < -lim) {
          SetInt(i, t == PrimitiveType::kS64 ? INT64_MIN : -static_cast<int64_t>(lim));
        } else {
          SetInt(i, static_cast<int64_t>(v));
        }
      }
  }
}

std::complex<double> Literal::GetComplex(int64_t i) const {
  if (element_type() == PrimitiveType::kC64) {
    return {typed<float>()[2 * i], typed<float>()[2 * i + 1]};
  }
  if (element_type() == PrimitiveType::kC128) {
    return {typed<double>()[2 * i], typed<double>()[2 * i + 1]};
  }
  return {GetDouble(i), 0};
}

void Literal::SetComplex(int64_t i, std::complex<double> v) {
  if (element_type() == PrimitiveType::kC64) {
    typed<float>()[2 * i] = static_cast<float>(v.real());
    typed<float>()[2 * i + 1] = static_cast<float>(v.imag());
  } else if (element_type() == PrimitiveType::kC128) {
    typed<double>()[2 * i] = v.real();
    typed<double>()[2 * i + 1] = v.imag();
  } else {
    SetDouble(i, v.real());
  }
}

bool Literal::operator==(const Literal& o) const {
  if (IsTuple() != o.IsTuple()) return false;
  if (IsTuple()) return elements_ == o.elements_;
  return shape_.Compatible(o.shape_) && size_bytes() == o.size_bytes() &&
         (size_bytes() == 0 || std::memcmp(data(), o.data(), size_bytes()) == 0);
}

}  // namespace hlo

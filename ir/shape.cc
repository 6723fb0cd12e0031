#include "ir/shape.h"

#include "absl/hash/hash.h"
#include "ir/strings.h"

namespace hlo {

bool Layout::operator==(const Layout& o) const {
  auto same_shape = [](const Shape* a, const Shape* b) { return a == b || (a && b && *a == *b); };
  return minor_to_major == o.minor_to_major && dim_levels == o.dim_levels && tiles == o.tiles &&
         tail_padding_alignment_in_elements == o.tail_padding_alignment_in_elements &&
         index_primitive_type == o.index_primitive_type &&
         pointer_primitive_type == o.pointer_primitive_type &&
         element_size_in_bits == o.element_size_in_bits && memory_space == o.memory_space &&
         split_configs == o.split_configs && same_shape(physical_shape, o.physical_shape) &&
         dynamic_shape_metadata_prefix_bytes == o.dynamic_shape_metadata_prefix_bytes;
}

bool Layout::IsPlain() const {
  return dim_levels.empty() && tiles.empty() && tail_padding_alignment_in_elements == 1 &&
         !index_primitive_type && !pointer_primitive_type && element_size_in_bits == 0 &&
         memory_space == 0 && split_configs.empty() && !physical_shape &&
         dynamic_shape_metadata_prefix_bytes == 0;
}

Layout DefaultLayout(int64_t rank) {
  Layout layout;
  for (int64_t i = rank - 1; i >= 0; --i) layout.minor_to_major.push_back(i);
  return layout;
}

Shape Shape::Array(PrimitiveType type, absl::Span<const int64_t> dims) {
  Shape s;
  s.kind_ = Kind::kArray;
  s.element_type_ = type;
  s.dims_.assign(dims.begin(), dims.end());
  for (int64_t i = 0; i < s.rank(); ++i) {
    if (dims[i] == kUnboundedSize) {
      if (s.dynamic_.empty()) s.dynamic_.assign(dims.size(), false);
      s.dynamic_[i] = true;
    }
  }
  return s;
}

Shape Shape::Tuple(std::vector<const Shape*> elements) {
  Shape s;
  s.kind_ = Kind::kTuple;
  s.element_type_ = PrimitiveType::kOpaque;
  s.tuple_ = std::move(elements);
  return s;
}

Shape Shape::Token() {
  Shape s;
  s.kind_ = Kind::kToken;
  s.element_type_ = PrimitiveType::kToken;
  return s;
}

Shape Shape::Opaque() {
  Shape s;
  s.kind_ = Kind::kOpaque;
  s.element_type_ = PrimitiveType::kOpaque;
  return s;
}

bool Shape::IsStatic() const {
  if (IsTuple()) {
    for (const Shape* e : tuple_) {
      if (!e->IsStatic()) return false;
    }
    return true;
  }
  for (bool d : dynamic_) {
    if (d) return false;
  }
  return true;
}

int64_t Shape::ElementCount() const {
  // A zero dimension makes the product 0 whatever the others are (it does
  // not overflow), unless some dimension is unbounded.
  bool zero = false;
  for (int64_t d : dims_) {
    if (d < 0) return -1;
    zero |= d == 0;
  }
  if (zero) return 0;
  int64_t n = 1;
  for (int64_t d : dims_) {
    if (n > INT64_MAX / d) return -1;
    n *= d;
  }
  return n;
}

Shape Shape::WithLayout(Layout layout) const {
  Shape s = *this;
  s.layout_ = std::make_shared<const Layout>(std::move(layout));
  return s;
}

Shape Shape::WithoutLayout() const {
  // Field by field: copying layout_ only to drop it cost two atomic count
  // updates per literal made (7% of a small program's run).
  Shape s;
  s.kind_ = kind_;
  s.element_type_ = element_type_;
  s.dims_ = dims_;
  s.dynamic_ = dynamic_;
  s.tuple_ = tuple_;
  return s;
}

Shape Shape::WithDynamicDim(int64_t i, bool dynamic) const {
  Shape s = *this;
  if (s.dynamic_.empty()) {
    if (!dynamic) return s;
    s.dynamic_.assign(dims_.size(), false);
  }
  s.dynamic_[i] = dynamic;
  bool any = false;
  for (bool d : s.dynamic_) any |= d;
  if (!any) s.dynamic_.clear();
  return s;
}

Shape Shape::WithElementType(PrimitiveType type) const {
  Shape s = *this;
  s.element_type_ = type;
  return s;
}

Shape Shape::WithDefaultLayout() const {
  if (!IsArray()) return *this;
  return WithLayout(DefaultLayout(rank()));
}

bool Shape::Compatible(const Shape& other) const {
  if (kind_ != other.kind_) return false;
  if (IsTuple()) {
    if (tuple_.size() != other.tuple_.size()) return false;
    for (size_t i = 0; i < tuple_.size(); ++i) {
      if (!tuple_[i]->Compatible(*other.tuple_[i])) return false;
    }
    return true;
  }
  return element_type_ == other.element_type_ && dims_ == other.dims_ &&
         IsStatic() == other.IsStatic() && (dynamic_.empty() || dynamic_ == other.dynamic_);
}

bool Shape::operator==(const Shape& other) const {
  if (kind_ != other.kind_ || element_type_ != other.element_type_ || dims_ != other.dims_ ||
      dynamic_ != other.dynamic_ ||
      (layout_ != other.layout_ && (!layout_ || !other.layout_ || !(*layout_ == *other.layout_))) ||
      tuple_.size() != other.tuple_.size()) {
    return false;
  }
  for (size_t i = 0; i < tuple_.size(); ++i) {
    if (tuple_[i] != other.tuple_[i] && !(*tuple_[i] == *other.tuple_[i])) {
      return false;
    }
  }
  return true;
}

size_t Shape::Hash() const {
  size_t h = absl::HashOf(static_cast<int>(kind_), static_cast<int>(element_type_), dims_, dynamic_,
                          layout_ != nullptr);
  if (layout_) {
    h = absl::HashOf(h, layout_->minor_to_major, layout_->tiles.size(), layout_->memory_space,
                     layout_->element_size_in_bits);
  }
  for (const Shape* e : tuple_) h = absl::HashOf(h, e->Hash());
  return h;
}

namespace {

void AppendInts(std::string& out, absl::Span<const int64_t> v) {
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ',';
    StrAppend(&out, v[i]);
  }
}

void AppendTile(std::string& out, const Tile& tile) {
  out += '(';
  for (size_t i = 0; i < tile.dims.size(); ++i) {
    if (i) out += ',';
    if (tile.dims[i] == Tile::kCombineDimension) {
      out += '*';
    } else {
      StrAppend(&out, tile.dims[i]);
    }
  }
  out += ')';
}

void AppendDimLevel(std::string& out, const Layout::DimLevel& level) {
  static constexpr const char* kNames[] = {"D", "C", "S", "H"};
  out += kNames[level.type];
  if (!level.unique) out += '+';
  if (!level.ordered) out += '~';
}

}  // namespace

void AppendLayout(std::string& out, const Layout& layout) {
  out += '{';
  AppendInts(out, layout.minor_to_major);
  if (!layout.IsPlain()) {
    out += ':';
    if (!layout.dim_levels.empty()) {
      out += "D(";
      for (size_t i = 0; i < layout.dim_levels.size(); ++i) {
        if (i) out += ',';
        AppendDimLevel(out, layout.dim_levels[i]);
      }
      out += ')';
    }
    if (!layout.tiles.empty()) {
      out += 'T';
      for (const Tile& t : layout.tiles) AppendTile(out, t);
    }
    if (layout.tail_padding_alignment_in_elements != 1) {
      StrAppend(&out, "L(", layout.tail_padding_alignment_in_elements, ")");
    }
    if (layout.index_primitive_type) {
      StrAppend(&out, "#(", PrimitiveTypeName(*layout.index_primitive_type), ")");
    }
    if (layout.pointer_primitive_type) {
      StrAppend(&out, "*(", PrimitiveTypeName(*layout.pointer_primitive_type), ")");
    }
    if (layout.element_size_in_bits != 0) {
      StrAppend(&out, "E(", layout.element_size_in_bits, ")");
    }
    if (layout.memory_space != 0) {
      StrAppend(&out, "S(", layout.memory_space, ")");
    }
    if (!layout.split_configs.empty()) {
      out += "SC";
      for (const SplitConfig& sc : layout.split_configs) {
        StrAppend(&out, "(", sc.dimension, ":");
        AppendInts(out, sc.split_indices);
        out += ')';
      }
    }
    if (layout.physical_shape) {
      out += "P(";
      layout.physical_shape->AppendTo(out, true);
      out += ')';
    }
    if (layout.dynamic_shape_metadata_prefix_bytes != 0) {
      StrAppend(&out, "M(", layout.dynamic_shape_metadata_prefix_bytes, ")");
    }
  }
  out += '}';
}

void Shape::AppendTo(std::string& out, bool print_layout) const {
  switch (kind_) {
    case Kind::kToken:
      out += "token[]";
      return;
    case Kind::kOpaque:
      out += "opaque[]";
      return;
    case Kind::kTuple:
      out += '(';
      for (size_t i = 0; i < tuple_.size(); ++i) {
        if (i) out += ", ";
        // XLA marks every fifth element of long tuples.
        if (i && i % 5 == 0) StrAppend(&out, "/*index=", i, "*/");
        tuple_[i]->AppendTo(out, print_layout);
      }
      out += ')';
      return;
    case Kind::kArray:
      break;
  }
  out += PrimitiveTypeName(element_type_);
  out += '[';
  for (int64_t i = 0; i < rank(); ++i) {
    if (i) out += ',';
    if (dims_[i] == kUnboundedSize) {
      out += '?';
      continue;
    }
    if (is_dynamic_dim(i)) out += "<=";
    StrAppend(&out, dims_[i]);
  }
  out += ']';
  // XLA does not print a scalar's empty layout.
  if (print_layout && layout_ && (rank() > 0 || !layout_->IsPlain())) {
    AppendLayout(out, *layout_);
  }
}

std::string Shape::ToString(bool print_layout) const {
  std::string out;
  AppendTo(out, print_layout);
  return out;
}

const Shape* ShapePool::Intern(const Shape& shape) {
  auto it = index_.find(&shape);
  if (it != index_.end()) return it->second;
  Entry& e = shapes_.emplace_back(shape);
  index_.emplace(&e, &e);
  return &e;
}

std::string_view ShapePool::Text(const Shape* shape) {
  Entry* e = static_cast<Entry*>(const_cast<Shape*>(shape));
  if (e->text.empty()) e->text = shape->ToString(true);
  return e->text;
}

const Shape* ShapePool::WithoutLayout(const Shape* shape) {
  if (!shape->has_layout() && !shape->IsTuple()) return shape;
  if (shape->IsTuple()) {
    std::vector<const Shape*> elems;
    for (const Shape* e : shape->tuple_shapes()) elems.push_back(WithoutLayout(e));
    return Intern(Shape::Tuple(std::move(elems)));
  }
  return Intern(shape->WithoutLayout());
}

}  // namespace hlo

// Layout and Shape, and the pool that uniques shapes within a module.
//
// Shapes are immutable values uniqued in a ShapePool: an instruction holds a
// `const Shape*`, so equal shapes (layout included) are equal pointers, a
// tuple's element shapes cost one pointer each, and every shape's text is
// computed once (the printer copies it).
#ifndef HLO_IR_SHAPE_H_
#define HLO_IR_SHAPE_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "ir/primitive_type.h"

namespace hlo {

class Shape;

// A tile of a tiled layout: `T(8,128)`. A dimension of kCombineDimension
// prints as `*`.
struct Tile {
  static constexpr int64_t kCombineDimension = INT64_MIN;
  absl::InlinedVector<int64_t, 2> dims;
  bool operator==(const Tile& o) const { return dims == o.dims; }
};

// `SC(dim:idx,idx)`: a split of one dimension across memory.
struct SplitConfig {
  int64_t dimension = 0;
  std::vector<int64_t> split_indices;
  bool operator==(const SplitConfig& o) const {
    return dimension == o.dimension && split_indices == o.split_indices;
  }
};

// Layout fields in the order XLA prints them:
//   '{' minor_to_major [':' D(..) T(..).. L(n) #(type) *(type) E(n) S(n)
//   SC(..) P(shape) M(n)] '}'
struct Layout {
  enum DimLevelType : uint8_t { kDense, kCompressed, kSingleton, kLooseCompressed };
  struct DimLevel {
    DimLevelType type = kDense;
    bool unique = true;
    bool ordered = true;
    bool operator==(const DimLevel&) const = default;
  };
  absl::InlinedVector<int64_t, 4> minor_to_major;
  std::vector<DimLevel> dim_levels;  // D(...); empty means all dense
  std::vector<Tile> tiles;
  int64_t tail_padding_alignment_in_elements = 1;       // L(n)
  std::optional<PrimitiveType> index_primitive_type;    // #(s32)
  std::optional<PrimitiveType> pointer_primitive_type;  // *(s32)
  int64_t element_size_in_bits = 0;                     // E(n)
  int64_t memory_space = 0;                             // S(n)
  std::vector<SplitConfig> split_configs;               // SC(..)
  const Shape* physical_shape = nullptr;                // P(shape)
  int64_t dynamic_shape_metadata_prefix_bytes = 0;      // M(n)

  bool operator==(const Layout& o) const;
  // True when only minor_to_major is set (no ':' part).
  bool IsPlain() const;
};

class Shape {
 public:
  static constexpr int64_t kUnboundedSize = -1;  // printed '?'

  enum class Kind : uint8_t { kArray, kTuple, kToken, kOpaque };

  static Shape Array(PrimitiveType type, absl::Span<const int64_t> dims);
  static Shape Tuple(std::vector<const Shape*> elements);
  static Shape Token();
  static Shape Opaque();

  Kind kind() const { return kind_; }
  bool IsArray() const { return kind_ == Kind::kArray; }
  bool IsTuple() const { return kind_ == Kind::kTuple; }
  bool IsToken() const { return kind_ == Kind::kToken; }
  bool IsOpaque() const { return kind_ == Kind::kOpaque; }

  PrimitiveType element_type() const { return element_type_; }
  int64_t rank() const { return static_cast<int64_t>(dims_.size()); }
  absl::Span<const int64_t> dims() const { return dims_; }
  int64_t dim(int64_t i) const { return dims_[i]; }
  // A dynamic dimension: `<=N` (bounded, dim(i) == N) or `?` (unbounded).
  bool is_dynamic_dim(int64_t i) const { return !dynamic_.empty() && dynamic_[i]; }
  bool is_unbounded_dim(int64_t i) const { return dims_[i] == kUnboundedSize; }
  bool IsStatic() const;  // no dynamic dimension anywhere (tuples recurse)

  const std::vector<const Shape*>& tuple_shapes() const { return tuple_; }
  const Shape& tuple_shape(int64_t i) const { return *tuple_[i]; }
  int64_t tuple_size() const { return static_cast<int64_t>(tuple_.size()); }

  bool has_layout() const { return layout_ != nullptr; }
  const Layout& layout() const { return *layout_; }

  // Number of elements of an array shape (1 for a scalar); -1 when a
  // dimension is unbounded or the product overflows int64.
  int64_t ElementCount() const;

  // Builders returning modified copies.
  Shape WithLayout(Layout layout) const;
  Shape WithoutLayout() const;
  Shape WithDynamicDim(int64_t i, bool dynamic) const;
  Shape WithElementType(PrimitiveType type) const;
  Shape WithDefaultLayout() const;  // {rank-1,...,0}; tuples unchanged

  // Same element type, dims and dynamism, ignoring layouts (tuples recurse).
  bool Compatible(const Shape& other) const;
  bool operator==(const Shape& other) const;
  size_t Hash() const;

  // `f32[2,3]{1,0}`, `(f32[], s32[4]{0})`, `token[]`.
  std::string ToString(bool print_layout = true) const;
  void AppendTo(std::string& out, bool print_layout = true) const;

 private:
  Kind kind_ = Kind::kArray;
  PrimitiveType element_type_ = PrimitiveType::kF32;
  absl::InlinedVector<int64_t, 4> dims_;
  absl::InlinedVector<bool, 4> dynamic_;  // empty when every dim is static
  // Shared and immutable: shapes are copied often (literals, builders) and
  // a Layout is large.
  std::shared_ptr<const Layout> layout_;
  std::vector<const Shape*> tuple_;
};

// Default layout for a rank: minor_to_major = {rank-1, ..., 0}.
Layout DefaultLayout(int64_t rank);
void AppendLayout(std::string& out, const Layout& layout);

// Owns and uniques the shapes of one module. Pointers stay valid for the
// pool's life. Also caches each shape's printed text.
class ShapePool {
 public:
  ShapePool() = default;
  ShapePool(const ShapePool&) = delete;
  ShapePool& operator=(const ShapePool&) = delete;

  const Shape* Intern(const Shape& shape);
  // The cached `ToString(true)` of an interned shape.
  std::string_view Text(const Shape* shape);
  // Same shape with its layout removed (interned).
  const Shape* WithoutLayout(const Shape* shape);
  size_t size() const { return shapes_.size(); }

 private:
  // Interned shapes are Entries, so Text() can downcast a pool's pointer.
  struct Entry : Shape {
    explicit Entry(const Shape& s) : Shape(s) {}
    std::string text;  // filled lazily
  };
  struct PtrHash {
    size_t operator()(const Shape* s) const { return s->Hash(); }
  };
  struct PtrEq {
    bool operator()(const Shape* a, const Shape* b) const { return *a == *b; }
  };
  std::deque<Entry> shapes_;
  absl::flat_hash_map<const Shape*, Entry*, PtrHash, PtrEq> index_;
};

}  // namespace hlo

#endif  // HLO_IR_SHAPE_H_

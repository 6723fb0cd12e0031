#include "passes/layout_assignment_util.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>

namespace hlo {

MinorToMajor MinorToMajorOf(const Shape& shape) {
  if (shape.has_layout() &&
      static_cast<int64_t>(shape.layout().minor_to_major.size()) == shape.rank()) {
    return MinorToMajor(shape.layout().minor_to_major.begin(), shape.layout().minor_to_major.end());
  }
  MinorToMajor m2m;
  for (int64_t i = shape.rank() - 1; i >= 0; --i) m2m.push_back(i);
  return m2m;
}

bool IsDefaultMinorToMajor(absl::Span<const int64_t> m2m) {
  const int64_t n = static_cast<int64_t>(m2m.size());
  for (int64_t k = 0; k < n; ++k) {
    if (m2m[k] != n - 1 - k) return false;
  }
  return true;
}

bool SameLayouts(const Shape& a, const Shape& b) {
  if (a.IsTuple() && b.IsTuple()) {
    if (a.tuple_size() != b.tuple_size()) return false;
    for (int64_t i = 0; i < a.tuple_size(); ++i) {
      if (!SameLayouts(a.tuple_shape(i), b.tuple_shape(i))) return false;
    }
    return true;
  }
  if (!a.IsArray() || !b.IsArray()) return a.kind() == b.kind();
  return MinorToMajorOf(a) == MinorToMajorOf(b);
}

bool HasNonDefaultLayout(const Shape& shape) {
  if (shape.IsTuple()) {
    for (const Shape* e : shape.tuple_shapes()) {
      if (HasNonDefaultLayout(*e)) return true;
    }
    return false;
  }
  return shape.IsArray() && !IsDefaultMinorToMajor(MinorToMajorOf(shape));
}

const Shape* WithMinorToMajor(Module& module, const Shape& shape, absl::Span<const int64_t> m2m) {
  Layout layout;
  layout.minor_to_major.assign(m2m.begin(), m2m.end());
  return module.Intern(shape.WithLayout(std::move(layout)));
}

namespace {

// Rebuilds `shape` with `leaf` applied to every array leaf; returns the
// interned result (the same pointer's value when nothing changes).
template <typename F>
const Shape* MapLeaves(Module& module, const Shape& shape, const F& leaf) {
  if (shape.IsTuple()) {
    std::vector<const Shape*> elements;
    elements.reserve(shape.tuple_size());
    for (const Shape* e : shape.tuple_shapes()) elements.push_back(MapLeaves(module, *e, leaf));
    return module.Intern(Shape::Tuple(std::move(elements)));
  }
  if (!shape.IsArray()) return module.Intern(shape);
  return leaf(shape);
}

}  // namespace

namespace {
bool AllLaidOut(const Shape& s) {
  if (s.IsTuple()) {
    for (const Shape* e : s.tuple_shapes()) {
      if (!AllLaidOut(*e)) return false;
    }
    return true;
  }
  return !s.IsArray() || s.has_layout();
}
}  // namespace

const Shape* WithLayoutsFilled(Module& module, const Shape& shape) {
  if (AllLaidOut(shape)) return &shape;  // interned already: no lookup
  return MapLeaves(module, shape, [&](const Shape& s) {
    return s.has_layout() ? module.Intern(s) : module.Intern(s.WithDefaultLayout());
  });
}

const Shape* WithDefaultLayouts(Module& module, const Shape& shape) {
  return MapLeaves(module, shape,
                   [&](const Shape& s) { return module.Intern(s.WithDefaultLayout()); });
}

std::vector<int64_t> InversePermutation(absl::Span<const int64_t> perm) {
  std::vector<int64_t> inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inv[perm[i]] = static_cast<int64_t>(i);
  return inv;
}

bool IsIdentityPermutation(absl::Span<const int64_t> perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

std::vector<int64_t> PermuteDims(absl::Span<const int64_t> dims, absl::Span<const int64_t> perm) {
  std::vector<int64_t> out(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) out[i] = dims[perm[i]];
  return out;
}

MinorToMajor TransposeResultLayout(absl::Span<const int64_t> operand_m2m,
                                   absl::Span<const int64_t> perm) {
  std::vector<int64_t> inv = InversePermutation(perm);
  MinorToMajor out;
  for (int64_t d : operand_m2m) out.push_back(inv[d]);
  return out;
}

MinorToMajor TransposeOperandLayout(absl::Span<const int64_t> result_m2m,
                                    absl::Span<const int64_t> perm) {
  MinorToMajor out;
  for (int64_t d : result_m2m) out.push_back(perm[d]);
  return out;
}

namespace {

// Dimensions of size other than 1 (size-1 dimensions never change where an
// element lives).
std::vector<int64_t> NonUnitDims(absl::Span<const int64_t> dims) {
  std::vector<int64_t> out;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] != 1) out.push_back(static_cast<int64_t>(i));
  }
  return out;
}

// A run of `from` dims [a0, a1) and `to` dims [b0, b1) (indices into the
// non-unit lists) with equal element counts: row-major reshape maps each
// run onto the other.
struct Group {
  size_t a0, a1, b0, b1;
};

std::optional<std::vector<Group>> ReshapeGroups(absl::Span<const int64_t> from_dims,
                                                const std::vector<int64_t>& a,
                                                absl::Span<const int64_t> to_dims,
                                                const std::vector<int64_t>& b) {
  std::vector<Group> groups;
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (i == a.size() || j == b.size()) return std::nullopt;
    Group g{i, i + 1, j, j + 1};
    int64_t pa = from_dims[a[i]], pb = to_dims[b[j]];
    while (pa != pb) {
      if (pa < pb) {
        if (g.a1 == a.size()) return std::nullopt;
        pa *= from_dims[a[g.a1++]];
      } else {
        if (g.b1 == b.size()) return std::nullopt;
        pb *= to_dims[b[g.b1++]];
      }
    }
    groups.push_back(g);
    i = g.a1;
    j = g.b1;
  }
  return groups;
}

}  // namespace

std::optional<MinorToMajor> ReshapeBitcastLayout(const Shape& from, absl::Span<const int64_t> to) {
  absl::Span<const int64_t> fd = from.dims();
  for (int64_t d : fd) {
    if (d <= 0) return std::nullopt;  // empty or unbounded: nothing to keep
  }
  for (int64_t d : to) {
    if (d <= 0) return std::nullopt;
  }
  std::vector<int64_t> a = NonUnitDims(fd), b = NonUnitDims(to);
  auto groups = ReshapeGroups(fd, a, to, b);
  if (!groups) return std::nullopt;
  // Physical position (major first) of each non-unit `from` dimension.
  std::vector<int64_t> pos(fd.size(), -1);
  MinorToMajor m2m = MinorToMajorOf(from);
  int64_t next = 0;
  for (auto it = m2m.rbegin(); it != m2m.rend(); ++it) {
    if (fd[*it] != 1) pos[*it] = next++;
  }
  // Each group must be contiguous and row-major in memory; groups then keep
  // their physical order on the other side.
  std::vector<std::pair<int64_t, size_t>> order;  // (position, group)
  for (size_t g = 0; g < groups->size(); ++g) {
    const Group& gr = (*groups)[g];
    for (size_t k = gr.a0; k < gr.a1; ++k) {
      if (pos[a[k]] != pos[a[gr.a0]] + static_cast<int64_t>(k - gr.a0)) return std::nullopt;
    }
    order.push_back({pos[a[gr.a0]], g});
  }
  std::sort(order.begin(), order.end());
  const int64_t rank = static_cast<int64_t>(to.size());
  // Each size-1 `to` dim goes just major of the next non-unit dim after it.
  std::vector<int64_t> major_to_minor;
  major_to_minor.reserve(rank);
  auto emit_units_before = [&](int64_t limit) {
    for (int64_t d = limit - 1; d >= 0 && to[d] == 1; --d) {
    }
    int64_t start = limit;
    while (start > 0 && to[start - 1] == 1) --start;
    for (int64_t d = start; d < limit; ++d) major_to_minor.push_back(d);
  };
  for (const auto& [p, g] : order) {
    const Group& gr = (*groups)[g];
    for (size_t k = gr.b0; k < gr.b1; ++k) {
      emit_units_before(b[k]);
      major_to_minor.push_back(b[k]);
    }
  }
  emit_units_before(rank);
  MinorToMajor out(major_to_minor.rbegin(), major_to_minor.rend());
  return out;
}

Instruction* AddInstruction(Computation& comp, Opcode opcode, const Shape* shape,
                            absl::Span<Instruction* const> operands, std::string_view prefix) {
  auto inst = std::make_unique<Instruction>(opcode, comp.parent()->UniqueName(prefix), shape);
  for (Instruction* op : operands) inst->AppendOperand(op);
  return comp.AddInstruction(std::move(inst));
}

Instruction* AddTranspose(Computation& comp, Instruction* operand, absl::Span<const int64_t> perm,
                          const Shape* shape) {
  Instruction* t = AddInstruction(comp, Opcode::kTranspose, shape, {operand}, "transpose");
  t->SetAttr(AttrKind::kDimensions, std::vector<int64_t>(perm.begin(), perm.end()));
  return t;
}

Instruction* AddGetTupleElement(Computation& comp, Instruction* tuple, int64_t index) {
  Instruction* g = AddInstruction(comp, Opcode::kGetTupleElement,
                                  &tuple->shape().tuple_shape(index), {tuple}, "get-tuple-element");
  g->SetAttr(AttrKind::kIndex, index);
  return g;
}

bool IsElementwiseInstruction(const Instruction& inst) {
  if (!IsElementwise(inst.opcode())) return false;
  if (inst.opcode() != Opcode::kBitcastConvert) return true;
  return inst.operand_count() == 1 && inst.shape().IsArray() &&
         inst.operand(0)->shape().IsArray() &&
         BitWidth(inst.shape().element_type()) == BitWidth(inst.operand(0)->shape().element_type());
}

}  // namespace hlo

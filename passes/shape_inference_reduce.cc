// Shape inference for reductions and windows: reduce, reduce-window,
// select-and-scatter, sort and topk.
//
// Follows XLA's ShapeInference (VerifyReducerShape, InferWindowOutputShape)
// with the StableHLO constraints as the checklist. Where XLA is laxer than
// StableHLO it wins: reducer parameters may differ from the inputs in
// floating-point precision (a bf16 input reduced by an f32 computation).
#include <cstdint>
#include <string>
#include <vector>

#include "passes/shape_inference.h"
#include "passes/shape_inference_util.h"

namespace hlo {
namespace {

// XLA's CompatibleIgnoringFpPrecision on element types: equal, or both real
// floating-point types.
bool SameTypeIgnoringFp(PrimitiveType a, PrimitiveType b) {
  return a == b || (IsFloat(a) && IsFloat(b));
}

std::string ScalarText(PrimitiveType t) { return StrCat(PrimitiveTypeName(t), "[]"); }

// Every computation-valued attribute should have a root; a missing one is
// reported instead of dereferenced.
absl::Status ExpectResult(const ProgramShape& f, std::string_view name) {
  if (f.result != nullptr) return absl::OkStatus();
  return ShapeError(name, " has no root instruction");
}

// The N scalars a reducer returns: the result itself when it is an array,
// else the elements of its tuple. (XLA accepts a 1-tuple for N = 1 too; the
// op then returns a 1-tuple.)
absl::StatusOr<std::vector<const Shape*>> ReducerResults(const ProgramShape& f,
                                                         std::string_view name, int64_t n) {
  if (auto s = ExpectResult(f, name); !s.ok()) return s;
  const Shape& r = *f.result;
  std::vector<const Shape*> out;
  if (r.IsArray()) {
    if (n != 1) {
      return ShapeError(name, " must return a tuple of ", n,
                        " scalars (one per input), but "
                        "returns ",
                        ShapeText(r));
    }
    out.push_back(&r);
  } else if (r.IsTuple()) {
    if (r.tuple_size() != n) {
      return ShapeError(name, " must return ", n, " scalar", n == 1 ? "" : "s",
                        " (one per input), but returns ", ShapeText(r));
    }
    out = r.tuple_shapes();
  } else {
    return ShapeError(name, " must return scalars, but returns ", ShapeText(r));
  }
  for (const Shape* e : out) {
    if (!e->IsArray() || e->rank() != 0) {
      return ShapeError(name, " must return scalars, but returns ", ShapeText(r));
    }
  }
  return out;
}

// XLA's VerifyReducerShape: `f` takes N accumulators then N inputs and
// returns N scalars; accumulator i has the type of result i and (up to fp
// precision) of init i; input parameter i takes input element type i.
absl::Status CheckReducer(const ProgramShape& f, std::string_view name, Shapes inits,
                          absl::Span<const PrimitiveType> input_types) {
  const int64_t n = static_cast<int64_t>(inits.size());
  const int64_t params = static_cast<int64_t>(f.params.size());
  if (params != 2 * n) {
    if (n == 1) {
      return ShapeError(name,
                        " must take 2 parameters (an accumulator then an input), "
                        "but takes ",
                        params);
    }
    return ShapeError(name, " must take ", 2 * n, " parameters (", n, " accumulators then ", n,
                      " inputs), but takes ", params);
  }
  auto results = ReducerResults(f, name, n);
  if (!results.ok()) return results.status();
  for (int64_t i = 0; i < n; ++i) {
    const Shape& acc = *(*results)[i];
    const Shape& acc_param = *f.params[i];
    const Shape& in_param = *f.params[n + i];
    if (!acc_param.Compatible(acc)) {
      return ShapeError(name, " parameter ", i, " (accumulator ", i, ") has shape ",
                        ShapeText(acc_param), " but result ", i, " has shape ", ShapeText(acc));
    }
    if (!SameTypeIgnoringFp(inits[i]->element_type(), acc.element_type())) {
      return ShapeError("init value ", i, " has shape ", ShapeText(*inits[i]), " but ", name,
                        "'s accumulator ", i, " has shape ", ShapeText(acc));
    }
    if (!in_param.IsArray() || in_param.rank() != 0 ||
        !SameTypeIgnoringFp(in_param.element_type(), input_types[i])) {
      return ShapeError(name, " parameter ", n + i, " (input ", i, ") has shape ",
                        ShapeText(in_param), " but input ", i, " has element type ",
                        PrimitiveTypeName(input_types[i]));
    }
    if (!SameTypeIgnoringFp(in_param.element_type(), acc.element_type())) {
      return ShapeError(name, " parameter ", n + i, " (input ", i, ") has shape ",
                        ShapeText(in_param), " but accumulator ", i, " has shape ", ShapeText(acc));
    }
  }
  return absl::OkStatus();
}

// The shared checks of reduce and reduce-window: N >= 1 inputs of equal
// dims, N scalar inits, and a reducer fitting them.
absl::Status CheckReduceOperands(std::string_view op, Shapes inputs, Shapes inits,
                                 const ProgramShape& to_apply) {
  if (inputs.empty()) return ShapeError(op, " needs at least one input");
  if (inits.size() != inputs.size()) {
    return ShapeError(op, " needs one init value per input, but has ", inputs.size(),
                      " inputs and ", inits.size(), " init values");
  }
  std::vector<PrimitiveType> types;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string name = StrCat("input ", i);
    if (auto s = ExpectArray(*inputs[i], name); !s.ok()) return s;
    if (auto s = ExpectScalar(*inits[i], StrCat("init value ", i)); !s.ok()) return s;
    if (i > 0) {
      if (auto s = ExpectSameDims(*inputs[0], "input 0", *inputs[i], name); !s.ok()) return s;
    }
    types.push_back(inputs[i]->element_type());
  }
  return CheckReducer(to_apply, "to_apply", inits, types);
}

// N arrays sharing dims and dynamism, each with its own element type; one
// array for a single type unless `force_tuple`.
Shape ArraysOfTypes(const Shape& dims_like, absl::Span<const PrimitiveType> types, bool force_tuple,
                    ShapePool& pool) {
  if (types.size() == 1 && !force_tuple) return WithType(dims_like, types[0]);
  std::vector<const Shape*> elements;
  for (PrimitiveType t : types) elements.push_back(pool.Intern(WithType(dims_like, t)));
  return Shape::Tuple(std::move(elements));
}

// a * b and a + b with an error instead of overflow (window sizes come from
// user text).
bool MulOverflows(int64_t a, int64_t b, int64_t* out) { return __builtin_mul_overflow(a, b, out); }
bool AddOverflows(int64_t a, int64_t b, int64_t* out) { return __builtin_add_overflow(a, b, out); }

// The number of positions of one window dimension over an input dimension
// of size `base`: floor((padded dilated base - dilated window) / stride) + 1,
// or 0 when the window does not fit (XLA's StridedBound of DilatedBounds).
absl::StatusOr<int64_t> WindowCount(int64_t base, const WindowDim& w, int64_t i) {
  if (w.size < 1)
    return ShapeError("window dimension ", i, " has size ", w.size, "; it must be at least 1");
  if (w.stride < 1)
    return ShapeError("window dimension ", i, " has stride ", w.stride, "; it must be at least 1");
  if (w.base_dilation < 1) {
    return ShapeError("window dimension ", i, " has base dilation (lhs_dilate) ", w.base_dilation,
                      "; it must be at least 1");
  }
  if (w.window_dilation < 1) {
    return ShapeError("window dimension ", i, " has window dilation (rhs_dilate) ",
                      w.window_dilation, "; it must be at least 1");
  }
  int64_t dilated_base = 0, padded = 0, dilated_window = 0;
  bool overflow = base > 0 && MulOverflows(base - 1, w.base_dilation, &dilated_base);
  if (base > 0) dilated_base += 1;
  overflow = overflow || AddOverflows(dilated_base, w.padding_low, &padded) ||
             AddOverflows(padded, w.padding_high, &padded) ||
             MulOverflows(w.size - 1, w.window_dilation, &dilated_window);
  if (overflow) return ShapeError("window dimension ", i, " overflows 64-bit sizes");
  dilated_window += 1;
  if (padded < 0) {
    // Negative padding removes elements, but not more than there are.
    return ShapeError("window dimension ", i, " pads the input dimension of size ", dilated_base,
                      " (after base dilation) by ", w.padding_low, " and ", w.padding_high, " to ",
                      padded, ", which is negative");
  }
  if (dilated_window > padded) return 0;
  return (padded - dilated_window) / w.stride + 1;
}

// The shape of the window positions over `base` (reduce-window's result,
// select-and-scatter's source), with element type `type`. Dynamic input
// dims give dynamic output dims; unbounded ones stay unbounded.
absl::StatusOr<Shape> WindowOutputShape(const Shape& base, const Window& window, PrimitiveType type,
                                        std::string_view base_name) {
  if (static_cast<int64_t>(window.size()) != base.rank()) {
    return ShapeError("window has ", window.size(), " dimension", window.size() == 1 ? "" : "s",
                      " but ", base_name, " ", ShapeText(base), " has rank ", base.rank());
  }
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < base.rank(); ++i) {
    auto n = WindowCount(base.is_unbounded_dim(i) ? 0 : base.dim(i), window[i], i);
    if (!n.ok()) return n.status();
    dims.push_back(base.is_unbounded_dim(i) ? Shape::kUnboundedSize : *n);
  }
  Shape out = Shape::Array(type, dims);
  for (int64_t i = 0; i < base.rank(); ++i) {
    if (base.is_dynamic_dim(i)) out = out.WithDynamicDim(i, true);
  }
  return out;
}

// The comparator sees each operand's pair of elements in turn:
// (lhs 0, rhs 0, lhs 1, rhs 1, ...) -> pred[].
absl::Status CheckComparator(const ProgramShape& comparator, Shapes operands) {
  const size_t n = operands.size();
  if (comparator.params.size() != 2 * n) {
    return ShapeError("comparator must take ", 2 * n, " parameters (2 per operand), but takes ",
                      comparator.params.size());
  }
  if (auto s = ExpectResult(comparator, "comparator"); !s.ok()) return s;
  if (!comparator.result->Compatible(Shape::Array(PrimitiveType::kPred, {}))) {
    return ShapeError("comparator must return pred[], but returns ", ShapeText(*comparator.result));
  }
  for (size_t p = 0; p < 2 * n; ++p) {
    const Shape& param = *comparator.params[p];
    PrimitiveType t = operands[p / 2]->element_type();
    if (!param.IsArray() || param.rank() != 0 || !SameTypeIgnoringFp(param.element_type(), t)) {
      return ShapeError("comparator parameter ", p, " has shape ", ShapeText(param),
                        " but compares elements of operand ", p / 2, ", which are ", ScalarText(t));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> InferReduceShape(Shapes inputs, Shapes inits,
                                       absl::Span<const int64_t> dimensions,
                                       const ProgramShape& to_apply, ShapePool& pool) {
  if (auto s = CheckReduceOperands("reduce", inputs, inits, to_apply); !s.ok()) return s;
  const Shape& in = *inputs[0];
  if (auto s = ExpectDimensions(dimensions, in.rank(), "dimensions"); !s.ok()) return s;
  std::vector<bool> reduced(in.rank(), false);
  for (int64_t d : dimensions) reduced[d] = true;
  std::vector<int64_t> kept_dims;
  std::vector<bool> kept_dynamic;
  for (int64_t i = 0; i < in.rank(); ++i) {
    if (reduced[i]) continue;
    kept_dims.push_back(in.dim(i));
    kept_dynamic.push_back(in.is_dynamic_dim(i));
  }
  Shape kept = Shape::Array(in.element_type(), kept_dims);
  for (size_t i = 0; i < kept_dynamic.size(); ++i) {
    if (kept_dynamic[i]) kept = kept.WithDynamicDim(static_cast<int64_t>(i), true);
  }
  // As XLA: the result types are the reducer's (its accumulators may be
  // wider than the inputs).
  std::vector<PrimitiveType> types;
  auto results = ReducerResults(to_apply, "to_apply", static_cast<int64_t>(inputs.size()));
  if (!results.ok()) return results.status();
  for (const Shape* r : *results) types.push_back(r->element_type());
  return ArraysOfTypes(kept, types, to_apply.result->IsTuple(), pool);
}

absl::StatusOr<Shape> InferReduceWindowShape(Shapes inputs, Shapes inits, const Window& window,
                                             const ProgramShape& to_apply, ShapePool& pool) {
  if (auto s = CheckReduceOperands("reduce-window", inputs, inits, to_apply); !s.ok()) {
    return s;
  }
  auto out = WindowOutputShape(*inputs[0], window, inputs[0]->element_type(), "the input");
  if (!out.ok()) return out.status();
  // As XLA: each result takes its init value's element type.
  std::vector<PrimitiveType> types;
  for (const Shape* init : inits) types.push_back(init->element_type());
  return ArraysOfTypes(*out, types, to_apply.result->IsTuple(), pool);
}

absl::StatusOr<Shape> InferSelectAndScatterShape(const Shape& operand, const ProgramShape& select,
                                                 const Window& window, const Shape& source,
                                                 const Shape& init, const ProgramShape& scatter) {
  if (auto s = ExpectArray(operand, "operand"); !s.ok()) return s;
  if (auto s = ExpectArray(source, "source"); !s.ok()) return s;
  if (auto s = ExpectScalar(init, "init value"); !s.ok()) return s;
  // select: (T, T) -> pred[], T the operand's element type.
  if (select.params.size() != 2) {
    return ShapeError("select must take 2 parameters, but takes ", select.params.size());
  }
  if (auto s = ExpectResult(select, "select"); !s.ok()) return s;
  if (!select.result->Compatible(Shape::Array(PrimitiveType::kPred, {}))) {
    return ShapeError("select must return pred[], but returns ", ShapeText(*select.result));
  }
  for (int i = 0; i < 2; ++i) {
    const Shape& p = *select.params[i];
    if (!p.IsArray() || p.rank() != 0 ||
        !SameTypeIgnoringFp(p.element_type(), operand.element_type())) {
      return ShapeError("select parameter ", i, " has shape ", ShapeText(p),
                        " but the operand has element type ",
                        PrimitiveTypeName(operand.element_type()));
    }
  }
  // scatter is a reducer over the source with the init value.
  const Shape* inits[] = {&init};
  const PrimitiveType source_type[] = {source.element_type()};
  if (auto s = CheckReducer(scatter, "scatter", inits, source_type); !s.ok()) return s;
  if (!SameTypeIgnoringFp(source.element_type(), operand.element_type())) {
    return ShapeError("source has element type ", PrimitiveTypeName(source.element_type()),
                      " but the operand has ", PrimitiveTypeName(operand.element_type()));
  }
  // The source holds one value per window position.
  auto positions = WindowOutputShape(operand, window, source.element_type(), "the operand");
  if (!positions.ok()) return positions.status();
  if (!positions->Compatible(source.WithoutLayout())) {
    return ShapeError("source has shape ", ShapeText(source), " but the window over operand ",
                      ShapeText(operand), " has ", ShapeText(*positions), " positions");
  }
  return operand.WithoutLayout();
}

absl::StatusOr<Shape> InferSortShape(Shapes operands, int64_t dimension,
                                     const ProgramShape& comparator, ShapePool& pool) {
  if (operands.empty()) return ShapeError("sort needs at least one operand");
  for (size_t i = 0; i < operands.size(); ++i) {
    const std::string name = StrCat("operand ", i);
    if (auto s = ExpectArray(*operands[i], name); !s.ok()) return s;
    if (i > 0) {
      if (auto s = ExpectSameDims(*operands[0], "operand 0", *operands[i], name); !s.ok()) {
        return s;
      }
    }
  }
  const int64_t rank = operands[0]->rank();
  if (dimension < 0 || dimension >= rank) {
    return ShapeError("sort dimension ", dimension, " is out of range for rank ", rank);
  }
  if (auto s = CheckComparator(comparator, operands); !s.ok()) return s;
  if (operands.size() == 1) return operands[0]->WithoutLayout();
  std::vector<const Shape*> elements;
  for (const Shape* s : operands) elements.push_back(pool.Intern(s->WithoutLayout()));
  return Shape::Tuple(std::move(elements));
}

absl::StatusOr<Shape> InferTopKShape(const Shape& operand, int64_t k, ShapePool& pool) {
  if (auto s = ExpectArray(operand, "operand"); !s.ok()) return s;
  if (operand.rank() < 1) {
    return ShapeError("topk needs an operand of rank at least 1, but has ", ShapeText(operand));
  }
  const int64_t last = operand.rank() - 1;
  if (k < 0) return ShapeError("topk k is ", k, "; it must not be negative");
  if (!operand.is_unbounded_dim(last) && k > operand.dim(last)) {
    return ShapeError("topk k is ", k, " but the last dimension of ", ShapeText(operand),
                      " has only ", operand.dim(last), " elements");
  }
  // The k largest (or smallest) along the last dimension, and their s32
  // positions.
  std::vector<int64_t> dims(operand.dims().begin(), operand.dims().end());
  dims[last] = k;
  Shape values = Shape::Array(operand.element_type(), dims);
  for (int64_t i = 0; i < last; ++i) {
    if (operand.is_dynamic_dim(i)) values = values.WithDynamicDim(i, true);
  }
  Shape indices = values.WithElementType(PrimitiveType::kS32);
  return Shape::Tuple({pool.Intern(values), pool.Intern(indices)});
}

}  // namespace hlo

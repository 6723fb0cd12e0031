// Shape inference for control flow: call (and fusion), while, conditional,
// after-all and add-dependency; and the signature of a called computation.
//
// As in XLA, shapes passed between computations are compared with
// Shape::Compatible (layouts ignored, element types exact).
#include <string>
#include <vector>

#include "ir/computation.h"
#include "passes/shape_inference.h"
#include "passes/shape_inference_util.h"

namespace hlo {
namespace {

// Stands in for a parameter number the text skipped, so that callers can
// index params without null checks (and the message shows `opaque[]`).
const Shape* MissingParameter() {
  static const Shape kMissing = Shape::Opaque();
  return &kMissing;
}

absl::Status ExpectResult(const ProgramShape& f, std::string_view name) {
  if (f.result != nullptr) return absl::OkStatus();
  return ShapeError(name, " has no root instruction");
}

// `(f32[2], s32[]) -> f32[]` for messages.
std::string SignatureText(const ProgramShape& f) {
  std::vector<std::string> params;
  for (const Shape* p : f.params) params.push_back(ShapeText(*p));
  return StrCat("(", StrJoin(params, ", "), ") -> ",
                f.result ? ShapeText(*f.result) : std::string("?"));
}

// A branch index selects between two branches when pred[], any number when
// s32[] (out-of-range values run the last branch).
absl::Status CheckBranchCount(const Shape& branch_index, size_t branches) {
  if (auto s = ExpectScalar(branch_index, "the branch index"); !s.ok()) return s;
  PrimitiveType t = branch_index.element_type();
  if (t == PrimitiveType::kPred) {
    if (branches == 2) return absl::OkStatus();
    return ShapeError("a pred[] branch index selects between exactly 2 branches, but there ",
                      branches == 1 ? "is " : "are ", branches);
  }
  if (t == PrimitiveType::kS32) {
    if (branches >= 1) return absl::OkStatus();
    return ShapeError("an s32[] branch index needs at least one branch");
  }
  return ShapeError("the branch index must be pred[] or s32[], but has shape ",
                    ShapeText(branch_index));
}

}  // namespace

ProgramShape ProgramShapeOf(const Computation& computation) {
  ProgramShape out;
  for (const Instruction* p : computation.parameters()) {
    out.params.push_back(p != nullptr ? p->shape_ptr() : MissingParameter());
  }
  if (computation.root() != nullptr) out.result = computation.root()->shape_ptr();
  return out;
}

absl::StatusOr<Shape> InferCallShape(Shapes operands, const ProgramShape& to_apply) {
  if (operands.size() != to_apply.params.size()) {
    return ShapeError("the called computation takes ", to_apply.params.size(), " parameter",
                      to_apply.params.size() == 1 ? "" : "s", " but there ",
                      operands.size() == 1 ? "is " : "are ", operands.size(), " operand",
                      operands.size() == 1 ? "" : "s", "; its signature is ",
                      SignatureText(to_apply));
  }
  for (size_t i = 0; i < operands.size(); ++i) {
    if (!operands[i]->Compatible(*to_apply.params[i])) {
      return ShapeError("operand ", i, " has shape ", ShapeText(*operands[i]),
                        " but the called computation's parameter ", i, " is ",
                        ShapeText(*to_apply.params[i]));
    }
  }
  if (auto s = ExpectResult(to_apply, "the called computation"); !s.ok()) return s;
  return to_apply.result->WithoutLayout();
}

absl::StatusOr<Shape> InferWhileShape(const ProgramShape& condition, const ProgramShape& body,
                                      const Shape& init) {
  if (condition.params.size() != 1) {
    return ShapeError("the while condition must take 1 parameter (the loop state), but takes ",
                      condition.params.size());
  }
  if (body.params.size() != 1) {
    return ShapeError("the while body must take 1 parameter (the loop state), but takes ",
                      body.params.size());
  }
  if (auto s = ExpectResult(condition, "the while condition"); !s.ok()) return s;
  if (auto s = ExpectResult(body, "the while body"); !s.ok()) return s;
  if (!condition.result->Compatible(Shape::Array(PrimitiveType::kPred, {}))) {
    return ShapeError("the while condition must return pred[], but returns ",
                      ShapeText(*condition.result));
  }
  // The loop state keeps one shape: init, the body's parameter and result,
  // and the condition's parameter.
  const Shape& state = *body.result;
  if (!body.params[0]->Compatible(state)) {
    return ShapeError("while body returns ", ShapeText(state), " but takes ",
                      ShapeText(*body.params[0]));
  }
  if (!condition.params[0]->Compatible(state)) {
    return ShapeError("while body returns ", ShapeText(state), " but the condition takes ",
                      ShapeText(*condition.params[0]));
  }
  if (!init.Compatible(state)) {
    return ShapeError("while init has shape ", ShapeText(init),
                      " but the body takes and "
                      "returns ",
                      ShapeText(state));
  }
  return init.WithoutLayout();
}

namespace {

Shape WithoutDimension(const Shape& s, int64_t d) {
  std::vector<int64_t> dims(s.dims().begin(), s.dims().end());
  dims.erase(dims.begin() + d);
  return Shape::Array(s.element_type(), dims);
}

Shape WithDimension(const Shape& s, int64_t d, int64_t size) {
  std::vector<int64_t> dims(s.dims().begin(), s.dims().end());
  dims.insert(dims.begin() + d, size);
  return Shape::Array(s.element_type(), dims);
}

// The scan's length: its first input's size along `d`, else (no inputs) its
// first output's in the declared shape.
absl::StatusOr<int64_t> ScanLength(Shapes inputs, const Shape& declared, int64_t d,
                                   int64_t num_outputs) {
  const Shape* first = nullptr;
  if (!inputs.empty()) {
    first = inputs[0];
  } else if (num_outputs > 0) {
    first = declared.IsTuple() ? (declared.tuple_size() > 0 ? &declared.tuple_shape(0) : nullptr)
                               : &declared;
  }
  if (first == nullptr || !first->IsArray()) {
    return ShapeError("scan has no input and no output array to take its length from");
  }
  if (d >= first->rank()) {
    return ShapeError("scan dimension ", d, " is out of range for ", ShapeText(*first));
  }
  return first->dim(d);
}

}  // namespace

absl::StatusOr<Shape> InferScanShape(Shapes operands, const ProgramShape& to_apply,
                                     int64_t dimension, int64_t num_carries, const Shape& declared,
                                     ShapePool& pool) {
  const int64_t n = static_cast<int64_t>(operands.size());
  if (num_carries < 0 || num_carries > n) {
    return ShapeError("scan has ", num_carries, num_carries == 1 ? " carry" : " carries", " but ",
                      n, n == 1 ? " operand" : " operands");
  }
  if (dimension < 0) return ShapeError("scan dimension ", dimension, " is negative");
  if (auto s = ExpectResult(to_apply, "scan's to_apply"); !s.ok()) return s;
  if (static_cast<int64_t>(to_apply.params.size()) != n) {
    return ShapeError("scan has ", n, n == 1 ? " operand" : " operands", ", but to_apply takes ",
                      to_apply.params.size(),
                      to_apply.params.size() == 1 ? " parameter" : " parameters");
  }
  const Shape& root = *to_apply.result;
  std::vector<const Shape*> roots;
  if (root.IsTuple()) {
    roots = root.tuple_shapes();
  } else {
    roots.push_back(&root);
  }
  const int64_t results = static_cast<int64_t>(roots.size());
  if (results < num_carries) {
    return ShapeError("scan has ", num_carries, " carries, but to_apply returns only ", results,
                      " values");
  }
  const int64_t inputs = n - num_carries, outputs = results - num_carries;
  if (inputs == 0 && outputs == 0) return ShapeError("scan has no inputs and no outputs");
  auto length = ScanLength(operands.subspan(0, inputs), declared, dimension, outputs);
  if (!length.ok()) return length.status();
  for (int64_t i = 0; i < n; ++i) {
    const Shape& op = *operands[i];
    if (auto s = ExpectArray(op, StrCat("scan operand ", i)); !s.ok()) return s;
    Shape want = op.WithoutLayout();
    if (i < inputs) {
      if (dimension >= op.rank() || op.dim(dimension) != *length) {
        return ShapeError("scan input ", i, " ", ShapeText(op), " must have ", *length,
                          " elements along dimension ", dimension);
      }
      want = WithoutDimension(op, dimension);
    }
    if (!to_apply.params[i]->Compatible(want)) {
      return ShapeError("scan operand ", i, " gives to_apply ", ShapeText(want),
                        ", but its parameter ", i, " is ", ShapeText(*to_apply.params[i]));
    }
  }
  for (int64_t j = 0; j < num_carries; ++j) {
    if (!roots[outputs + j]->Compatible(*to_apply.params[inputs + j])) {
      return ShapeError("scan carry ", j, ": to_apply takes ",
                        ShapeText(*to_apply.params[inputs + j]), " but returns ",
                        ShapeText(*roots[outputs + j]));
    }
  }
  std::vector<const Shape*> result;
  for (int64_t k = 0; k < results; ++k) {
    const Shape& r = *roots[k];
    if (k >= outputs) {
      result.push_back(pool.Intern(r.WithoutLayout()));
      continue;
    }
    if (auto s = ExpectArray(r, StrCat("scan output ", k)); !s.ok()) return s;
    if (dimension > r.rank()) {
      return ShapeError("scan dimension ", dimension, " is out of range for output ", k, " ",
                        ShapeText(WithDimension(r, r.rank(), *length)));
    }
    result.push_back(pool.Intern(WithDimension(r, dimension, *length)));
  }
  if (!root.IsTuple()) return *result[0];
  return Shape::Tuple(std::move(result));
}

absl::StatusOr<Shape> InferConditionalShape(const Shape& branch_index,
                                            const std::vector<ProgramShape>& branches,
                                            Shapes branch_operands) {
  if (auto s = CheckBranchCount(branch_index, branches.size()); !s.ok()) return s;
  if (branch_operands.size() != branches.size()) {
    return ShapeError("conditional has ", branches.size(), " branches but ", branch_operands.size(),
                      " branch operands; each branch takes one");
  }
  for (size_t i = 0; i < branches.size(); ++i) {
    const ProgramShape& b = branches[i];
    if (b.params.size() != 1) {
      return ShapeError("branch ", i, " must take 1 parameter (its branch operand), but takes ",
                        b.params.size());
    }
    if (!branch_operands[i]->Compatible(*b.params[0])) {
      return ShapeError("branch ", i, " takes ", ShapeText(*b.params[0]),
                        " but its operand has shape ", ShapeText(*branch_operands[i]));
    }
    if (auto s = ExpectResult(b, StrCat("branch ", i)); !s.ok()) return s;
    if (i > 0 && !b.result->Compatible(*branches[0].result)) {
      return ShapeError("branch ", i, " returns ", ShapeText(*b.result), " but branch 0 returns ",
                        ShapeText(*branches[0].result));
    }
  }
  return branches[0].result->WithoutLayout();
}

absl::StatusOr<Shape> InferAfterAllShape(Shapes /*operands*/) {
  // StableHLO joins only tokens, but XLA's verifier accepts any operands
  // (after-all orders after values too) and HLO text follows XLA.
  return Shape::Token();
}

absl::StatusOr<Shape> InferAddDependencyShape(const Shape& operand, const Shape& token) {
  if (!token.IsToken()) {
    return ShapeError("add-dependency's second operand must be a token, but has shape ",
                      ShapeText(token));
  }
  // The value passes through unchanged; only the ordering changes.
  return operand.WithoutLayout();
}

}  // namespace hlo

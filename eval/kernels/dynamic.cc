// dynamic-reshape, copy-start and copy-done.
//
// Values are held static (a bounded dynamic dimension at its bound), so
// dynamic-reshape is a reshape whose sizes are checked: the StableHLO spec
// makes it "functionally identical to reshape" with size(operand) =
// size(result), and as the verifier also asks the bounds to hold the
// operand's element count, every size must equal its dimension's bound.
#include "eval/kernels/dynamic.h"

#include <cstring>
#include <vector>

#include "ir/strings.h"

namespace hlo {
namespace {

absl::Status Invalid(std::string message) { return absl::InvalidArgumentError(std::move(message)); }

}  // namespace

absl::StatusOr<Value> EvalDynamicReshape(const Instruction& inst, Operands ops) {
  const Shape& shape = inst.shape();
  if (ops.empty() || !ops[0]->is_array() || !shape.IsArray()) {
    return Invalid("dynamic-reshape takes an array operand and gives an array");
  }
  const Literal& in = ops[0]->array();
  if (static_cast<int64_t>(ops.size()) != shape.rank() + 1) {
    return Invalid(StrCat("dynamic-reshape needs one size per result dimension (", shape.rank(),
                          ") but has ", ops.size() - 1));
  }
  if (in.element_type() != shape.element_type()) {
    return Invalid("dynamic-reshape must keep the element type");
  }
  std::vector<int64_t> dims(shape.dims().begin(), shape.dims().end());
  int64_t count = 1;
  for (int64_t i = 0; i < shape.rank(); ++i) {
    const Value& s = *ops[i + 1];
    if (!s.is_array() || s.array().element_count() != 1 || !IsInteger(s.array().element_type())) {
      return Invalid(StrCat("dynamic-reshape size ", i, " must be an integer scalar"));
    }
    const int64_t size = s.array().GetInt(0);
    if (shape.is_unbounded_dim(i)) {
      return Invalid(
          StrCat("dynamic-reshape result dimension ", i, " is unbounded; hlo-run needs a bound"));
    }
    if (size != dims[i]) {
      return Invalid(StrCat("dynamic-reshape size ", i, " is ", size, " but must be ", dims[i],
                            ": the result must hold the operand's ", in.element_count(),
                            " elements, as many as the bounds of ", shape.ToString(false)));
    }
    count *= dims[i];
  }
  if (count != in.element_count()) {
    return Invalid(StrCat("dynamic-reshape of ", in.element_count(), " elements into ", count));
  }
  auto out = NewArray(Shape::Array(shape.element_type(), dims));
  if (!out.ok()) return out;
  std::memcpy(out->mutable_array().data(), in.data(), in.size_bytes());
  return out;
}

absl::StatusOr<Value> EvalCopyStart(const Instruction& inst, Operands ops) {
  if (ops.size() != 1) return Invalid("copy-start takes one operand");
  (void)inst;
  // (destination, source, context): the copy shares the immutable buffer;
  // the context is an opaque u32, 0 here.
  auto context = NewArray(Shape::Array(PrimitiveType::kU32, {}));
  if (!context.ok()) return context;
  return Value::Tuple({*ops[0], *ops[0], *std::move(context)});
}

absl::StatusOr<Value> EvalCopyDone(const Instruction&, Operands ops) {
  if (ops.size() != 1 || !ops[0]->is_tuple() || ops[0]->elements().empty()) {
    return Invalid("copy-done takes the tuple of a copy-start");
  }
  return ops[0]->element(0);  // the destination
}

}  // namespace hlo

// scan, as XLA's ScanExpander (xla/service/scan_expander.cc) rewrites it
// into a while loop: operands are inputs then num_carries initial
// carries; for each index i along the scan dimension (from the last when
// is_reverse), to_apply gets element i of every input (that dimension
// removed) and the carries, and returns (outputs..., new carries...)
// (or one array: the output, or the carry when num_carries is 1). Output
// k's element i is stored at index i of result k; the result is the
// outputs then the final carries. is_associative only permits other
// evaluation orders (XLA:GPU's parallel scan); this one is sequential.
#include <cstring>
#include <string>
#include <vector>

#include "eval/interp/kernel_context.h"
#include "eval/kernels/dynamic.h"
#include "eval/runtime/eval_observer.h"
#include "ir/computation.h"
#include "ir/strings.h"

namespace hlo {
namespace {

absl::Status Invalid(std::string message) { return absl::InvalidArgumentError(std::move(message)); }

// An array viewed as [outer][length][inner] around the scan dimension.
struct Split {
  int64_t outer = 1, length = 0, inner = 1, width = 0;
};

Split SplitAt(const Shape& s, int64_t d) {
  Split p;
  for (int64_t k = 0; k < d; ++k) p.outer *= s.dim(k);
  p.length = s.dim(d);
  for (int64_t k = d + 1; k < s.rank(); ++k) p.inner *= s.dim(k);
  p.width = ByteWidth(s.element_type());
  return p;
}

// Element i of `whole` (split p) into `slice`.
void Take(const Split& p, int64_t i, const Literal& whole, Literal& slice) {
  const int64_t row = p.inner * p.width;
  for (int64_t o = 0; o < p.outer; ++o) {
    std::memcpy(slice.data() + o * row, whole.data() + (o * p.length + i) * row, row);
  }
}

// `slice` into element i of `whole`.
void Put(const Split& p, int64_t i, const Literal& slice, Literal& whole) {
  const int64_t row = p.inner * p.width;
  for (int64_t o = 0; o < p.outer; ++o) {
    std::memcpy(whole.data() + (o * p.length + i) * row, slice.data() + o * row, row);
  }
}

// A scan's arrays: per input its split and the slice to_apply takes, per
// output its split and array, and the carries.
struct ScanState {
  int64_t length = -1;
  std::vector<Split> in_split, out_split;
  std::vector<Value> slices, outs, carry;
  std::vector<const Value*> args;  // to_apply's, reused step after step
};

// The inputs' splits along dimension d (one length for all) and a slice
// array for each of to_apply's parameters.
absl::Status PrepareInputs(const Computation& body, Operands ops, int64_t d, int64_t inputs,
                           ScanState& st) {
  st.in_split.resize(inputs);
  st.slices.resize(inputs);
  for (int64_t i = 0; i < inputs; ++i) {
    if (!ops[i]->is_array() || d >= ops[i]->array().shape().rank()) {
      return Invalid("scan inputs must be arrays with its dimension");
    }
    const Shape& in = ops[i]->array().shape();
    st.in_split[i] = SplitAt(in, d);
    if (st.length >= 0 && st.in_split[i].length != st.length) {
      return Invalid("scan inputs differ in length along the scan dimension");
    }
    st.length = st.in_split[i].length;
    if (body.parameter(i) == nullptr) return Invalid(StrCat("scan's to_apply lacks parameter ", i));
    absl::StatusOr<Value> v = NewArrayUninitialized(body.parameter(i)->shape());
    if (!v.ok()) return v.status();
    if (v->array().element_count() * ByteWidth(in.element_type()) !=
        st.in_split[i].outer * st.in_split[i].inner * st.in_split[i].width) {
      return Invalid(StrCat("scan input ", i, " does not slice to to_apply's parameter ",
                            body.parameter(i)->shape().ToString(false)));
    }
    st.slices[i] = *std::move(v);
  }
  return absl::OkStatus();
}

// The output arrays, each the scan's length along dimension d.
absl::Status PrepareOutputs(const Shape& s, int64_t d, int64_t outputs, ScanState& st) {
  st.out_split.resize(outputs);
  st.outs.resize(outputs);
  for (int64_t k = 0; k < outputs; ++k) {
    const Shape& r = s.IsTuple() ? s.tuple_shape(k) : s;
    if (!r.IsArray() || d >= r.rank() || (st.length >= 0 && r.dim(d) != st.length)) {
      return Invalid(StrCat("scan output ", k, " ", r.ToString(false), " must have the scan's ",
                            "length along dimension ", d));
    }
    st.out_split[k] = SplitAt(r, d);
    st.length = r.dim(d);
    absl::StatusOr<Value> v = NewArray(r);
    if (!v.ok()) return v.status();
    st.outs[k] = *std::move(v);
  }
  return absl::OkStatus();
}

// One step at position i: to_apply on the inputs' slices and the carries,
// its outputs put at i, its carries kept.
absl::Status ScanStep(const Shape& root, ComputationPlan& plan, Operands ops, int64_t i,
                      int64_t inputs, KernelContext& ev, ScanState& st) {
  const int64_t carries = static_cast<int64_t>(st.carry.size());
  const int64_t outputs = static_cast<int64_t>(st.outs.size());
  std::vector<const Value*>& args = st.args;
  args.resize(inputs + carries);
  for (int64_t k = 0; k < inputs; ++k) {
    // A fresh slice when to_apply kept the last one (returned it).
    if (st.slices[k].array_ptr().use_count() > 1) {
      absl::StatusOr<Value> v = NewArrayUninitialized(st.slices[k].array().shape());
      if (!v.ok()) return v.status();
      st.slices[k] = *std::move(v);
    }
    Take(st.in_split[k], i, ops[k]->array(), st.slices[k].mutable_array());
    args[k] = &st.slices[k];
  }
  for (int64_t j = 0; j < carries; ++j) args[inputs + j] = &st.carry[j];
  absl::StatusOr<Value> r = ev.Call(plan, args);
  if (!r.ok()) return r.status();
  const int64_t results = outputs + carries;
  if (root.IsTuple() && (!r->is_tuple() || static_cast<int64_t>(r->elements().size()) != results)) {
    return Invalid("scan's to_apply returned a value of another shape than its root's");
  }
  for (int64_t k = 0; k < results; ++k) {
    const Value& v = root.IsTuple() ? r->elements()[k] : *r;
    if (k >= outputs) {
      st.carry[k - outputs] = v;
      continue;
    }
    const Split& p = st.out_split[k];
    if (!v.is_array() || v.array().element_count() * p.width != p.outer * p.inner * p.width) {
      return Invalid(StrCat("scan's to_apply returned a wrong shape for output ", k));
    }
    Put(p, i, v.array(), st.outs[k].mutable_array());
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Value> EvalScan(const Instruction& inst, Operands ops, KernelContext& ev) {
  const Computation* body = inst.to_apply();
  absl::Span<const int64_t> dims = inst.GetInts(AttrKind::kDimensions);
  const int64_t n = static_cast<int64_t>(ops.size());
  const int64_t carries = inst.GetInt(AttrKind::kNumCarries, 0);
  if (body == nullptr || body->root() == nullptr || dims.size() != 1 || carries < 0 ||
      carries > n || body->parameter_count() != n) {
    return Invalid(
        "scan needs to_apply with one parameter per operand, one dimension and "
        "0 <= num_carries <= the operands");
  }
  const int64_t d = dims[0], inputs = n - carries;
  const Shape& root = body->root()->shape();
  const int64_t results = root.IsTuple() ? root.tuple_size() : 1;
  const int64_t outputs = results - carries;
  const Shape& s = inst.shape();
  if (outputs < 0 || (s.IsTuple() ? s.tuple_size() : 1) != results) {
    return Invalid(StrCat("scan's to_apply returns ", results, " values for ", carries,
                          " carries, but the scan's shape is ", s.ToString(false)));
  }
  ScanState st;
  for (int64_t j = inputs; j < n; ++j) st.carry.push_back(*ops[j]);
  if (absl::Status e = PrepareInputs(*body, ops, d, inputs, st); !e.ok()) return e;
  if (absl::Status e = PrepareOutputs(s, d, outputs, st); !e.ok()) return e;
  // The body runs once per step, as a while body does: observed (and
  // profiled) even when its parameters are scalars.
  ComputationPlan& plan = ev.LoopBodyPlanFor(*body);
  EvalObserver* observer = ev.options().observer;
  const bool reverse = inst.GetBool(AttrKind::kIsReverse, false);
  for (int64_t step = 0; step < st.length; ++step) {
    if (observer != nullptr) observer->LoopTrip(step);  // --find-nonfinite names the step
    const int64_t i = reverse ? st.length - 1 - step : step;
    if (absl::Status e = ScanStep(root, plan, ops, i, inputs, ev, st); !e.ok()) return e;
  }
  if (!s.IsTuple()) return outputs == 1 ? st.outs[0] : st.carry[0];
  std::vector<Value> all = std::move(st.outs);
  all.insert(all.end(), st.carry.begin(), st.carry.end());
  return Value::Tuple(std::move(all));
}

}  // namespace hlo

// topk along the last dimension: the k largest (or smallest) elements of
// each row with their indices, ties resolved to the lower index (what XLA's
// TopK decomposition, a stable sort of (value, iota) pairs, gives).
//
// Floats are ordered by XLA's total order, so every row has one answer:
// (key, index) with the index as tie-breaker is a strict total order, which
// std::partial_sort may rely on.
#include <algorithm>
#include <vector>

#include "eval/kernels/scalar_apply.h"
#include "eval/kernels/sort_internal.h"
#include "ir/strings.h"

namespace hlo {
namespace sort_internal {
namespace {

absl::Status Invalid(std::string message) { return absl::InvalidArgumentError(std::move(message)); }

// Checks the (values, indices) result shape against the operand and k.
absl::Status CheckTopKShape(const Shape& operand, int64_t k, const Shape& result) {
  const int64_t rank = operand.rank();
  if (rank < 1) return Invalid(StrCat("topk needs an operand of rank at least 1"));
  const int64_t n = operand.dim(rank - 1);
  if (k < 0 || k > n) {
    return Invalid(StrCat("topk k=", k, " is not in [0, ", n, "] for ", operand.ToString(false)));
  }
  bool ok = result.IsTuple() && result.tuple_size() == 2;
  for (int64_t e = 0; ok && e < 2; ++e) {
    const Shape& s = result.tuple_shape(e);
    ok = s.IsArray() && s.rank() == rank && s.dim(rank - 1) == k &&
         (e == 0 ? s.element_type() == operand.element_type() : IsInteger(s.element_type()));
    for (int64_t d = 0; ok && d + 1 < rank; ++d) ok = s.dim(d) == operand.dim(d);
  }
  if (!ok) {
    return Invalid(StrCat("topk of ", operand.ToString(false), " with k=", k, " cannot give ",
                          result.ToString(false)));
  }
  return absl::OkStatus();
}

// Writes row r's chosen elements (indices[0, k) of the row) to the results.
void EmitRow(const Literal& operand, int64_t r, int64_t n, const std::vector<int64_t>& chosen,
             int64_t k, Literal& values, Literal& indices) {
  const int w = ByteWidth(operand.element_type());
  for (int64_t j = 0; j < k; ++j) {
    std::memcpy(values.data() + (r * k + j) * w, operand.data() + (r * n + chosen[j]) * w, w);
    indices.SetInt(r * k + j, chosen[j]);
  }
}

absl::StatusOr<std::vector<Value>> NewResults(const Shape& result) {
  std::vector<Value> outs;
  for (int64_t e = 0; e < 2; ++e) {
    auto v = NewArray(result.tuple_shape(e));
    if (!v.ok()) return v.status();
    outs.push_back(*std::move(v));
  }
  return outs;
}

}  // namespace

absl::StatusOr<Value> TopK(const Literal& operand, int64_t k, bool largest, const Shape& result) {
  if (auto st = CheckTopKShape(operand.shape(), k, result); !st.ok()) return st;
  if (IsComplex(operand.element_type())) {
    return Invalid(StrCat("topk cannot order ", operand.shape().ToString(false)));
  }
  auto outs = NewResults(result);
  if (!outs.ok()) return outs.status();
  Literal& values = (*outs)[0].mutable_array();
  Literal& indices = (*outs)[1].mutable_array();
  const int64_t n = operand.shape().dim(operand.shape().rank() - 1);
  const int64_t rows = n == 0 ? 0 : operand.element_count() / n;
  if (k > 0) {
    DispatchKey(operand.element_type(), /*total=*/true, [&](auto key) {
      using K = decltype(key(operand.data(), 0));
      std::vector<K> keys(n);
      std::vector<int64_t> order(n);
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t j = 0; j < n; ++j) {
          keys[j] = key(operand.data(), r * n + j);
          order[j] = j;
        }
        auto before = [&](int64_t a, int64_t b) {
          if (keys[a] != keys[b]) return largest ? keys[b] < keys[a] : keys[a] < keys[b];
          return a < b;
        };
        std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
        EmitRow(operand, r, n, order, k, values, indices);
      }
    });
  }
  return Value::Tuple(*std::move(outs));
}

namespace {

// Any comparator of 2 (values) or 4 (values, s32 indices) parameters,
// called through the evaluator: a stable merge sort of each row by it,
// first k kept.
absl::StatusOr<Value> TopKWithComparator(const Literal& operand, int64_t k,
                                         const Computation& comparator, const Shape& result,
                                         KernelContext& ev) {
  if (auto st = CheckTopKShape(operand.shape(), k, result); !st.ok()) return st;
  const int64_t params = comparator.parameter_count();
  if (params != 2 && params != 4) {
    return Invalid(StrCat("TopK's comparator takes ", params, " parameters, not 2 or 4"));
  }
  auto outs = NewResults(result);
  if (!outs.ok()) return outs.status();
  Literal& values = (*outs)[0].mutable_array();
  Literal& indices = (*outs)[1].mutable_array();
  const int64_t n = operand.shape().dim(operand.shape().rank() - 1);
  const int64_t rows = n == 0 ? 0 : operand.element_count() / n;
  std::vector<Value> scalars(n), iota(params == 4 ? n : 0);
  for (int64_t j = 0; j < static_cast<int64_t>(iota.size()); ++j) {
    auto lit = Literal::Create(Shape::Array(PrimitiveType::kS32, {}));
    if (!lit.ok()) return lit.status();
    lit->SetInt(0, j);
    iota[j] = Value::Array(std::make_shared<Literal>(*std::move(lit)));
  }
  std::vector<int64_t> order(n), buf(n);
  const Value* args[4];
  absl::Status failure;
  auto less = [&](int64_t a, int64_t b) {
    if (!failure.ok()) return false;
    args[0] = &scalars[a];
    args[1] = &scalars[b];
    if (params == 4) {
      args[2] = &iota[a];
      args[3] = &iota[b];
    }
    auto r = ev.Call(comparator, absl::MakeConstSpan(args, params));
    if (!r.ok()) {
      failure = r.status();
      return false;
    }
    if (!r->is_array() || r->array().element_type() != PrimitiveType::kPred ||
        r->array().element_count() != 1) {
      failure = Invalid("TopK's comparator must return a pred scalar");
      return false;
    }
    return r->array().GetInt(0) != 0;
  };
  for (int64_t r = 0; r < rows && k > 0; ++r) {
    for (int64_t j = 0; j < n; ++j) {
      scalars[j] = ScalarAt(operand, r * n + j);
      order[j] = j;
    }
    MergeSort(order.data(), n, buf.data(), less);
    if (!failure.ok()) return failure;
    EmitRow(operand, r, n, order, k, values, indices);
  }
  return Value::Tuple(*std::move(outs));
}

// s32 indices along the last dimension of `shape` (the comparator's
// second operand).
absl::StatusOr<Literal> RowIota(const Shape& shape) {
  auto iota = Literal::CreateUninitialized(Shape::Array(PrimitiveType::kS32, shape.dims()));
  if (!iota.ok()) return iota.status();
  const int64_t n = shape.dim(shape.rank() - 1);
  int32_t* d = iota->typed<int32_t>();
  for (int64_t i = 0; i < iota->element_count(); ++i) d[i] = static_cast<int32_t>(i % n);
  return iota;
}

// The first k of each row under a recognised comparator: partial selection
// by (order keys, index). nullopt when the keys have no typed order (NaNs
// under IEEE `<`).
std::optional<absl::StatusOr<Value>> TopKByKeys(const Literal& operand, int64_t k,
                                                const KeyComparator& cmp, const Shape& result) {
  using Out = std::optional<absl::StatusOr<Value>>;
  const SortKey& first = cmp.keys[0];
  if (cmp.keys.size() == 1 && first.operand == 0 && first.rules.empty() && !first.widened &&
      (first.total_order || !IsFloat(operand.element_type()))) {
    return Out(TopK(operand, k, first.descending, result));
  }
  std::optional<Literal> iota;
  std::vector<std::vector<uint64_t>> order_keys(cmp.keys.size());
  for (size_t i = 0; i < cmp.keys.size(); ++i) {
    const Literal* source = &operand;
    if (cmp.keys[i].operand == 1) {
      if (!iota) {
        auto made = RowIota(operand.shape());
        if (!made.ok()) return Out(made.status());
        iota.emplace(*std::move(made));
      }
      source = &*iota;
    }
    std::optional<Literal> widened;
    if (!OrderKeys(KeySource(*source, cmp.keys[i], &widened), cmp.keys[i], order_keys[i])) {
      return std::nullopt;
    }
  }
  auto outs = NewResults(result);
  if (!outs.ok()) return Out(outs.status());
  const int64_t n = operand.shape().dim(operand.shape().rank() - 1);
  const int64_t rows = n == 0 ? 0 : operand.element_count() / n;
  std::vector<int64_t> order(n);
  for (int64_t r = 0; r < rows && k > 0; ++r) {
    for (int64_t j = 0; j < n; ++j) order[j] = j;
    auto before = [&](int64_t a, int64_t b) {
      for (const std::vector<uint64_t>& key : order_keys) {
        if (key[r * n + a] != key[r * n + b]) return key[r * n + a] < key[r * n + b];
      }
      return a < b;
    };
    std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
    EmitRow(operand, r, n, order, k, (*outs)[0].mutable_array(), (*outs)[1].mutable_array());
  }
  return Out(Value::Tuple(*std::move(outs)));
}

// Any comparator the batched interpreter compiles: each row sorted by a
// sorting network (eval/kernels/sort_network.cc), first k kept. nullopt when
// the program does not fit the operands.
std::optional<absl::StatusOr<Value>> TopKBatched(const Literal& operand, int64_t k,
                                                 BatchProgram& program, const Shape& result) {
  using Out = std::optional<absl::StatusOr<Value>>;
  std::optional<Literal> iota;
  std::vector<const Literal*> arrays = {&operand};
  if (program.parameter_count() == 4) {
    auto made = RowIota(operand.shape());
    if (!made.ok()) return Out(made.status());
    iota.emplace(*std::move(made));
    arrays.push_back(&*iota);
  }
  if (!BatchedComparatorFits(program, arrays)) return std::nullopt;
  auto outs = NewResults(result);
  if (!outs.ok()) return Out(outs.status());
  Slices s;
  s.n = operand.shape().dim(operand.shape().rank() - 1);
  s.outer = s.n == 0 ? 0 : operand.element_count() / s.n;
  if (k > 0) {
    auto st =
        SortSlicesBatched(s, program, arrays, [&](int64_t base, const std::vector<int64_t>& perm) {
          EmitRow(operand, base / s.n, s.n, perm, k, (*outs)[0].mutable_array(),
                  (*outs)[1].mutable_array());
        });
    if (!st.ok()) return Out(st);
  }
  return Out(Value::Tuple(*std::move(outs)));
}

}  // namespace

absl::StatusOr<Value> EvalTopKCustomCall(const Instruction& inst, Operands ops, KernelContext& ev) {
  const Shape& result = inst.shape();
  if (ops.size() != 1 || !ops[0]->is_array()) {
    return Invalid("custom-call TopK takes one array operand");
  }
  if (!result.IsTuple() || result.tuple_size() != 2 || !result.tuple_shape(0).IsArray() ||
      result.tuple_shape(0).rank() < 1) {
    return Invalid(
        StrCat("custom-call TopK must return (values, indices), not ", result.ToString(false)));
  }
  const Shape& values = result.tuple_shape(0);
  const int64_t k = values.dim(values.rank() - 1);
  const Literal& operand = ops[0]->array();
  // XLA's TopkRewriter names the comparator in called_computations.
  const Computation* comparator = inst.to_apply();
  if (!comparator) {
    std::vector<Computation*> called = inst.called_computations();
    if (called.size() > 1) return Invalid("custom-call TopK takes one comparator");
    if (called.size() == 1) comparator = called[0];
  }
  if (!comparator) return TopK(operand, k, /*largest=*/true, result);
  if (auto st = CheckTopKShape(operand.shape(), k, result); !st.ok()) return st;
  const int64_t params = comparator->parameter_count();
  if (params != 2 && params != 4) {
    return Invalid(StrCat("TopK's comparator takes ", params, " parameters, not 2 or 4"));
  }
  if (ev.options().fast_paths) {
    if (auto keys = RecognizeComparator(*comparator, params / 2)) {
      if (auto out = TopKByKeys(operand, k, *keys, result)) return *std::move(out);
    }
    if (BatchProgram* program = ev.BatchProgramFor(*comparator)) {
      if (auto out = TopKBatched(operand, k, *program, result)) return *std::move(out);
    }
  }
  return TopKWithComparator(operand, k, *comparator, result, ev);
}

}  // namespace sort_internal
}  // namespace hlo

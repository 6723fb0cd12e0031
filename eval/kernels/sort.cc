// sort (one or several operands, any comparator, along any dimension) and
// topk (eval/kernels/sort_topk.cc).
//
// Each 1-D slice along the sort dimension is sorted as a permutation, which
// then reorders every operand. Three ways, fastest first:
//  * a comparator that orders by keys (one LT/GT compare of a pair of
//    parameters, or a lexicographic one; eval/kernels/sort_keys.cc) sorts typed
//    (key, index) pairs, by radix when long (eval/kernels/sort_lex.cc for
//    several keys);
//  * any other comparator the batched interpreter compiles runs as a
//    sorting network, every stage's comparisons in one batch
//    (eval/kernels/sort_network.cc);
//  * the rest (and everything under --no-fast-paths) calls the comparator
//    through the evaluator with 2*N scalars in a stable merge sort
//    (eval/kernels/sort_internal.h).
// All give the stable sort's answer for a strict weak order, so
// is_stable=false gets a stable sort too; a comparator that is not one
// (NaNs under `<`, a user computation) cannot crash the sort.
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "eval/kernels/kernels.h"
#include "eval/kernels/scalar_apply.h"
#include "eval/kernels/sort_internal.h"
#include "eval/kernels/sort_radix.h"
#include "eval/runtime/scratch_buffer.h"
#include "ir/strings.h"

namespace hlo {
namespace sort_internal {

namespace {

absl::Status Invalid(std::string message) { return absl::InvalidArgumentError(std::move(message)); }

struct Word128 {
  uint64_t lo, hi;
};

// out[base + j * inner] = in[base + perm[j] * inner] for one slice.
template <typename E>
void PermuteTyped(const uint8_t* in_bytes, uint8_t* out_bytes, int64_t base, int64_t inner,
                  absl::Span<const int64_t> perm) {
  const E* in = reinterpret_cast<const E*>(in_bytes);
  E* out = reinterpret_cast<E*>(out_bytes);
  for (size_t j = 0; j < perm.size(); ++j) {
    out[base + static_cast<int64_t>(j) * inner] = in[base + perm[j] * inner];
  }
}

}  // namespace

void Permute(const Literal& in, Literal& out, int64_t base, int64_t inner,
             absl::Span<const int64_t> perm) {
  switch (ByteWidth(in.element_type())) {
    case 1:
      PermuteTyped<uint8_t>(in.data(), out.data(), base, inner, perm);
      break;
    case 2:
      PermuteTyped<uint16_t>(in.data(), out.data(), base, inner, perm);
      break;
    case 4:
      PermuteTyped<uint32_t>(in.data(), out.data(), base, inner, perm);
      break;
    case 8:
      PermuteTyped<uint64_t>(in.data(), out.data(), base, inner, perm);
      break;
    default:
      PermuteTyped<Word128>(in.data(), out.data(), base, inner, perm);
      break;
  }
}

namespace {

// Slices at least this long sort by radix (below it std::sort is faster).
constexpr int64_t kRadixMinimum = 512;

// Sorts (key, index) pairs of each slice by operand `key_op`'s keys. When
// the keys are strictly weakly ordered (always, but for float keys holding
// a NaN under IEEE `<`), ordering by (key, index) is a strict total order
// whose answer is the stable sort's, which a radix sort (long slices) or
// std::sort finds fastest; otherwise the merge sort decides, as the generic
// path would.
// False, the outputs to be written by another path, where the scratch
// cannot be had.
template <typename Key>
bool SortByKey(const Slices& s, Key key, const Literal& keys, bool descending, Operands ops,
               std::vector<Value>& outs) {
  using K = decltype(key(keys.data(), 0));
  struct Entry {
    K key;
    uint32_t index;  // slices are shorter than 2^32 (checked by the caller)
  };
  // Scratch from the buffer pool, each only where its path needs it: a
  // 1M-element sort's five value-initialised vectors of 8 MB were fresh
  // pages at every call (page faults were a third of its time).
  using U = decltype(RadixKey(K{}));
  const bool radix = s.n >= kRadixMinimum;
  ScratchBuffer<Entry> entries, buf;
  ScratchBuffer<RadixEntry<U>> rentries, rbuf;
  ScratchBuffer<int64_t> perm_buffer;
  if (!perm_buffer.Reset(s.n).ok() || !entries.Reset(s.n).ok() ||
      (radix && (!rentries.Reset(s.n).ok() || !rbuf.Reset(s.n).ok()))) {
    return false;
  }
  const absl::Span<int64_t> perm(perm_buffer.data(), static_cast<size_t>(s.n));
  auto before = [descending](const Entry& a, const Entry& b) {
    return descending ? b.key < a.key : a.key < b.key;
  };
  auto before_or_lower = [descending](const Entry& a, const Entry& b) {
    if (descending ? b.key < a.key : a.key < b.key) return true;
    if (descending ? a.key < b.key : b.key < a.key) return false;
    return a.index < b.index;
  };
  bool sorted = true;
  s.ForEach([&](int64_t base) {
    bool weak = true;
    for (int64_t j = 0; j < s.n; ++j) {
      K k = key(keys.data(), base + j * s.inner);
      if constexpr (std::is_floating_point_v<K>) weak &= k == k;
      entries[j] = {k, static_cast<uint32_t>(j)};
    }
    if (weak && radix) {
      for (int64_t j = 0; j < s.n; ++j) {
        U u = RadixKey(entries[j].key);
        rentries[j] = {descending ? static_cast<U>(~u) : u, static_cast<uint32_t>(j)};
      }
      RadixSort(rentries.data(), rbuf.data(), s.n);
      for (int64_t j = 0; j < s.n; ++j) perm[j] = rentries[j].index;
    } else {
      if (weak) {
        std::sort(entries.data(), entries.data() + s.n, before_or_lower);
      } else {
        if (buf.data() == nullptr && !buf.Reset(s.n).ok()) return sorted = false;
        MergeSort(entries.data(), s.n, buf.data(), before);
      }
      for (int64_t j = 0; j < s.n; ++j) perm[j] = entries[j].index;
    }
    for (size_t k = 0; k < ops.size(); ++k) {
      Permute(ops[k]->array(), outs[k].mutable_array(), base, s.inner, perm);
    }
    return true;
  });
  return sorted;
}

// T's value from its RadixKey.
template <typename T, typename U>
T FromRadixKey(U u) {
  if constexpr (std::is_signed_v<T>) {
    using S = std::make_signed_t<U>;
    return static_cast<T>(static_cast<S>(u ^ (U{1} << (8 * sizeof(U) - 1))));
  } else {
    return static_cast<T>(u);
  }
}

// One integer or pred operand sorted by its own value: equal keys are equal
// elements, so any sort gives the stable answer; the values sort in place,
// long integer slices by radix on the bare keys (1M s32: std::sort took
// 22 ms).
template <typename T>
bool SortValues(const Slices& s, bool descending, Literal& out) {
  T* data = out.typed<T>();
  using U = decltype(RadixKey(T{}));
  const bool radix = !std::is_same_v<T, bool> && s.n >= kRadixMinimum;
  ScratchBuffer<T> row;
  ScratchBuffer<U> keys, buf;
  if (radix ? !keys.Reset(s.n).ok() || !buf.Reset(s.n).ok() : !row.Reset(s.n).ok()) {
    return false;
  }
  const U flip = descending ? static_cast<U>(~U{0}) : U{0};
  s.ForEach([&](int64_t base) {
    if (radix) {
      for (int64_t j = 0; j < s.n; ++j) keys[j] = RadixKey(data[base + j * s.inner]) ^ flip;
      RadixSort(keys.data(), buf.data(), s.n);
      for (int64_t j = 0; j < s.n; ++j) data[base + j * s.inner] = FromRadixKey<T>(keys[j] ^ flip);
      return true;
    }
    for (int64_t j = 0; j < s.n; ++j) row[j] = data[base + j * s.inner];
    if (descending) {
      std::sort(row.data(), row.data() + s.n, [](T a, T b) { return b < a; });
    } else {
      std::sort(row.data(), row.data() + s.n);
    }
    for (int64_t j = 0; j < s.n; ++j) data[base + j * s.inner] = row[j];
    return true;
  });
  return true;
}

// Any comparator: the evaluator decides each comparison.
absl::Status SortGeneric(const Slices& s, const Computation& comparator, Operands ops,
                         std::vector<Value>& outs, KernelContext& ev) {
  const size_t n_ops = ops.size();
  std::vector<std::vector<Value>> scalars(n_ops, std::vector<Value>(s.n));
  std::vector<const Value*> args(2 * n_ops);
  std::vector<int64_t> perm(s.n), buf(s.n);
  absl::Status failure;
  auto less = [&](int64_t a, int64_t b) {
    if (!failure.ok()) return false;
    for (size_t k = 0; k < n_ops; ++k) {
      args[2 * k] = &scalars[k][a];
      args[2 * k + 1] = &scalars[k][b];
    }
    auto r = ev.Call(comparator, args);
    if (!r.ok()) {
      failure = r.status();
      return false;
    }
    if (!r->is_array() || r->array().element_type() != PrimitiveType::kPred ||
        r->array().element_count() != 1) {
      failure = Invalid("sort's comparator must return a pred scalar");
      return false;
    }
    return r->array().GetInt(0) != 0;
  };
  s.ForEach([&](int64_t base) {
    for (size_t k = 0; k < n_ops; ++k) {
      for (int64_t j = 0; j < s.n; ++j)
        scalars[k][j] = ScalarAt(ops[k]->array(), base + j * s.inner);
    }
    for (int64_t j = 0; j < s.n; ++j) perm[j] = j;
    MergeSort(perm.data(), s.n, buf.data(), less);
    if (!failure.ok()) return false;
    for (size_t k = 0; k < n_ops; ++k) {
      Permute(ops[k]->array(), outs[k].mutable_array(), base, s.inner, perm);
    }
    return true;
  });
  return failure;
}

// Whether integer key `key` strictly increases in its order (its direction
// included) along every slice: XLA's iota tie-break.
bool IncreasesAlongSlices(const Slices& s, const SortKey& key, Operands ops) {
  const Literal& keys = ops[key.operand]->array();
  const PrimitiveType t = keys.element_type();
  if (!IsInteger(t) || key.widened || key.total_order || !key.rules.empty()) return false;
  bool increasing = true;
  DispatchType(t, [&](auto tag) {
    using T = typename decltype(tag)::T;
    if constexpr (std::is_integral_v<T>) {
      const T* v = keys.typed<T>();
      s.ForEach([&](int64_t base) {
        for (int64_t j = 1; increasing && j < s.n; ++j) {
          const T a = v[base + (j - 1) * s.inner], b = v[base + j * s.inner];
          increasing = key.descending ? b < a : a < b;
        }
        return increasing;
      });
    }
  });
  return increasing;
}

// A comparator by keys (eval/kernels/sort_keys.cc) on typed keys; false when
// the keys cannot be read so (complex, or NaNs under IEEE `<` in a sort by
// several keys): the caller then asks the comparator.
//
// A last key that increases along every slice (the iota XLA's
// StableSortExpander adds) orders ties of the keys before it by index, as
// the stable sort by those keys alone does: it is dropped. (Where those
// keys are no strict weak order, NaNs under IEEE `<`, the stable merge sort
// compares a later element with earlier ones only, where the index test is
// false, so the merge sort by them alone is the full comparator's.)
bool SortRecognized(const Slices& s, const KeyComparator& full, Operands ops,
                    std::vector<Value>& outs) {
  KeyComparator trimmed;
  const bool trim = full.keys.size() > 1 && IncreasesAlongSlices(s, full.keys.back(), ops);
  if (trim) trimmed.keys.assign(full.keys.begin(), full.keys.end() - 1);
  const KeyComparator& cmp = trim ? trimmed : full;
  if (cmp.keys.size() == 1 && !cmp.keys[0].widened) {
    const SortKey& key = cmp.keys[0];
    const Literal& keys = ops[key.operand]->array();
    const PrimitiveType t = keys.element_type();
    if (ops.size() == 1 && (IsInteger(t) || IsPred(t))) {
      bool sorted = false;
      DispatchType(t, [&](auto tag) {
        using T = typename decltype(tag)::T;
        if constexpr (std::is_integral_v<T>) {
          sorted = SortValues<T>(s, key.descending, outs[0].mutable_array());
        }
      });
      return sorted;
    }
    bool sorted = true;
    auto sort = [&](auto k) { sorted = SortByKey(s, k, keys, key.descending, ops, outs); };
    return (key.rules.empty() ? DispatchKey(t, key.total_order, sort)
                              : DispatchRuleKey(t, key.rules, sort)) &&
           sorted;
  }
  std::vector<std::vector<uint64_t>> order_keys(cmp.keys.size());
  for (size_t k = 0; k < cmp.keys.size(); ++k) {
    std::optional<Literal> widened;
    const Literal& source = KeySource(ops[cmp.keys[k].operand]->array(), cmp.keys[k], &widened);
    if (!OrderKeys(source, cmp.keys[k], order_keys[k])) return false;
  }
  SortSlicesByOrderKeys(s, order_keys, [&](int64_t base, const std::vector<int64_t>& perm) {
    for (size_t k = 0; k < ops.size(); ++k) {
      Permute(ops[k]->array(), outs[k].mutable_array(), base, s.inner, perm);
    }
  });
  return true;
}

// A comparator's keys, recognised once per comparator and evaluator (the
// match walked the comparator at every call: a twentieth of a program of
// four sorts of 16 rows of 40).
struct RecognizedKeys : KernelContext::DerivedData {
  KeyComparator comparator;
};

std::unique_ptr<KernelContext::DerivedData> RecognizeKeys(const Computation& comparator,
                                                          size_t n_ops) {
  std::optional<KeyComparator> keys = RecognizeComparator(comparator, static_cast<int64_t>(n_ops));
  if (!keys) return nullptr;
  auto known = std::make_unique<RecognizedKeys>();
  known->comparator = *std::move(keys);
  return known;
}

absl::StatusOr<Value> EvalSortOp(const Instruction& inst, Operands ops, KernelContext& ev) {
  if (ops.empty()) return Invalid("sort needs at least one operand");
  const size_t n_ops = ops.size();
  for (const Value* v : ops) {
    if (!v->is_array()) return Invalid("sort operands must be arrays");
  }
  const Shape& first = ops[0]->array().shape();
  const Shape& result = inst.shape();
  if ((n_ops > 1) != result.IsTuple() ||
      (n_ops > 1 && result.tuple_size() != static_cast<int64_t>(n_ops))) {
    return Invalid(StrCat("sort of ", n_ops, " operands cannot give ", result.ToString(false)));
  }
  for (size_t k = 0; k < n_ops; ++k) {
    const Shape& in = ops[k]->array().shape();
    const Shape& out = n_ops > 1 ? result.tuple_shape(static_cast<int64_t>(k)) : result;
    if (in.dims() != first.dims() || !out.IsArray() || out.dims() != in.dims() ||
        out.element_type() != in.element_type()) {
      return Invalid(StrCat("sort operand ", k, " ", in.ToString(false),
                            " does not match operand 0 ", first.ToString(false), " and the result ",
                            result.ToString(false)));
    }
  }
  absl::Span<const int64_t> dims = inst.GetInts(AttrKind::kDimensions);
  const int64_t rank = first.rank();
  if (dims.size() != 1 || dims[0] < -rank || dims[0] >= std::max<int64_t>(rank, 1)) {
    return Invalid(
        StrCat("sort needs dimensions={d} with one dimension of ", first.ToString(false)));
  }
  Computation* comparator = inst.to_apply();
  if (!comparator) return Invalid("sort needs a comparator (to_apply)");
  if (comparator->parameter_count() != static_cast<int64_t>(2 * n_ops)) {
    return Invalid(StrCat("sort's comparator takes ", comparator->parameter_count(),
                          " parameters, not ", 2 * n_ops));
  }
  std::vector<Value> outs;
  for (size_t k = 0; k < n_ops; ++k) {
    // A copy (the copy constructor skips the zero fill of a new array).
    outs.push_back(Value::Array(std::make_shared<Literal>(ops[k]->array())));
  }
  auto done = [&]() { return n_ops == 1 ? std::move(outs[0]) : Value::Tuple(std::move(outs)); };
  if (rank == 0 || first.ElementCount() == 0) return done();
  const int64_t d = dims[0] < 0 ? dims[0] + rank : dims[0];
  Slices s;
  for (int64_t i = 0; i < rank; ++i) {
    if (i < d) s.outer *= first.dim(i);
    if (i > d) s.inner *= first.dim(i);
  }
  s.n = first.dim(d);
  if (s.n <= 1) return done();
  if (s.n > static_cast<int64_t>(UINT32_MAX)) {
    return Invalid(StrCat("sort dimension of ", first.ToString(false), " is too long"));
  }
  if (ev.options().fast_paths) {
    static const char kKind = 0;
    const auto* known = static_cast<const RecognizedKeys*>(
        ev.DerivedDataFor(&kKind, *comparator, [&] { return RecognizeKeys(*comparator, n_ops); }));
    if (known != nullptr && SortRecognized(s, known->comparator, ops, outs)) return done();
    std::vector<const Literal*> arrays;
    for (const Value* v : ops) arrays.push_back(&v->array());
    BatchProgram* program = ev.BatchProgramFor(*comparator);
    if (program && BatchedComparatorFits(*program, arrays)) {
      auto st = SortSlicesBatched(
          s, *program, arrays, [&](int64_t base, const std::vector<int64_t>& perm) {
            for (size_t k = 0; k < n_ops; ++k) {
              Permute(ops[k]->array(), outs[k].mutable_array(), base, s.inner, perm);
            }
          });
      if (!st.ok()) return st;
      return done();
    }
  }
  if (auto st = SortGeneric(s, *comparator, ops, outs, ev); !st.ok()) return st;
  return done();
}

absl::StatusOr<Value> EvalTopKOp(const Instruction& inst, Operands ops) {
  if (ops.size() != 1 || !ops[0]->is_array()) return Invalid("topk takes one array operand");
  if (!inst.HasAttr(AttrKind::kK)) return Invalid("topk needs k");
  return TopK(ops[0]->array(), inst.GetInt(AttrKind::kK), inst.GetBool(AttrKind::kLargest, true),
              inst.shape());
}

}  // namespace
}  // namespace sort_internal

absl::StatusOr<Value> EvalSort(const Instruction& inst, Operands ops, KernelContext& ev) {
  switch (inst.opcode()) {
    case Opcode::kSort:
      return sort_internal::EvalSortOp(inst, ops, ev);
    case Opcode::kTopK:
      return sort_internal::EvalTopKOp(inst, ops);
    default:
      return absl::InternalError(StrCat("no sort kernel for ", inst.OpcodeText()));
  }
}

}  // namespace hlo

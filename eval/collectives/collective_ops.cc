#include "eval/collectives/collective_ops.h"

#include <cstring>
#include <type_traits>

#include "absl/container/inlined_vector.h"
#include "eval/collectives/collective_groups.h"
#include "eval/kernels/scalar_apply.h"
#include "eval/type_dispatch.h"
#include "ir/computation.h"
#include "ir/strings.h"

namespace hlo {
namespace {

absl::Status Invalid(std::string msg) { return absl::InvalidArgumentError(std::move(msg)); }

// ---- moving blocks along one dimension ---------------------------------------

// Row-major split of `dims` around dimension d: outer blocks, bytes per
// index of d.
struct Along {
  int64_t outer = 1;
  int64_t inner = 1;  // bytes of one step along d
};
Along AlongDim(const Shape& s, int64_t d) {
  Along a;
  for (int64_t i = 0; i < d; ++i) a.outer *= s.dim(i);
  for (int64_t i = d + 1; i < s.rank(); ++i) a.inner *= s.dim(i);
  a.inner *= ByteWidth(s.element_type());
  return a;
}

// dst[..., off:off+n, ...] = src along d (src has n there).
void PlaceAlong(const Literal& src, Literal& dst, int64_t d, int64_t off) {
  Along a = AlongDim(dst.shape(), d);
  int64_t n = src.shape().dim(d), big = dst.shape().dim(d);
  for (int64_t o = 0; o < a.outer; ++o) {
    std::memcpy(dst.data() + (o * big + off) * a.inner, src.data() + o * n * a.inner, n * a.inner);
  }
}

// dst = src[..., off:off+n, ...] along d (dst has n there).
void TakeAlong(const Literal& src, int64_t d, int64_t off, Literal& dst) {
  Along a = AlongDim(src.shape(), d);
  int64_t n = dst.shape().dim(d), big = src.shape().dim(d);
  for (int64_t o = 0; o < a.outer; ++o) {
    std::memcpy(dst.data() + o * n * a.inner, src.data() + (o * big + off) * a.inner, n * a.inner);
  }
}

Shape WithDim(const Shape& s, int64_t d, int64_t size) {
  std::vector<int64_t> dims(s.dims().begin(), s.dims().end());
  dims[d] = size;
  return Shape::Array(s.element_type(), dims);
}

absl::StatusOr<Value> SliceAlong(const Literal& src, int64_t d, int64_t off, int64_t n) {
  auto out = NewArray(WithDim(src.shape(), d, n));
  if (!out.ok()) return out.status();
  TakeAlong(src, d, off, out->mutable_array());
  return out;
}

absl::StatusOr<Value> CopyArray(const Literal& src) {
  // A small array freed on this thread where there is one (storage is
  // row-major whatever the layout): no allocation per collective.
  absl::StatusOr<Value> out = NewArrayUninitialized(src.shape());
  if (!out.ok()) return out;
  if (src.size_bytes() > 0) std::memcpy(out->mutable_array().data(), src.data(), src.size_bytes());
  return out;
}

// ---- reductions ---------------------------------------------------------------

template <typename T>
constexpr bool kNative = std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;

// acc = op(acc, x) in a native loop for the ops and types where that is
// exactly the computation (integers wrap; float max/min are left to the
// computation for their NaN rules), over n elements of type t in memory
// order. False when not covered (n = 0 only asks).
bool FoldNative(Opcode op, PrimitiveType t, void* acc, const void* x, int64_t n) {
  if (BitWidth(t) < 8 && t != PrimitiveType::kPred) return false;
  bool done = false;
  DispatchType(t, [&](auto tag) {
    using T = typename decltype(tag)::T;
    if constexpr (kNative<T>) {
      T* a = static_cast<T*>(acc);
      const T* b = static_cast<const T*>(x);
      using U = typename std::conditional_t<std::is_integral_v<T>, std::make_unsigned<T>,
                                            std::type_identity<T>>::type;
      auto run = [&](auto f) {
        for (int64_t i = 0; i < n; ++i) a[i] = f(a[i], b[i]);
        done = true;
      };
      switch (op) {
        case Opcode::kAdd:
          run([](T p, T q) { return static_cast<T>(static_cast<U>(p) + static_cast<U>(q)); });
          break;
        case Opcode::kMultiply:
          run([](T p, T q) { return static_cast<T>(static_cast<U>(p) * static_cast<U>(q)); });
          break;
        default:
          if constexpr (std::is_integral_v<T>) {
            if (op == Opcode::kMaximum) run([](T p, T q) { return p > q ? p : q; });
            if (op == Opcode::kMinimum) run([](T p, T q) { return p < q ? p : q; });
            if (op == Opcode::kAnd) run([](T p, T q) { return static_cast<T>(p & q); });
            if (op == Opcode::kOr) run([](T p, T q) { return static_cast<T>(p | q); });
            if (op == Opcode::kXor) run([](T p, T q) { return static_cast<T>(p ^ q); });
          }
      }
    } else if constexpr (std::is_same_v<T, bool>) {
      bool* a = static_cast<bool*>(acc);
      const bool* b = static_cast<const bool*>(x);
      if (op == Opcode::kAnd || op == Opcode::kMinimum || op == Opcode::kMultiply) {
        for (int64_t i = 0; i < n; ++i) a[i] = a[i] && b[i];
        done = true;
      } else if (op == Opcode::kOr || op == Opcode::kMaximum) {
        for (int64_t i = 0; i < n; ++i) a[i] = a[i] || b[i];
        done = true;
      }
    }
  });
  return done;
}

// Folds the arrays in order with to_apply: ((x0 op x1) op x2) ...
absl::StatusOr<Value> FoldArrays(const Computation& f, absl::Span<const Literal* const> parts,
                                 KernelContext& ev) {
  auto acc = CopyArray(*parts[0]);
  if (!acc.ok()) return acc.status();
  std::optional<Opcode> simple = SimpleBinaryReducer(f);
  for (size_t k = 1; k < parts.size(); ++k) {
    Literal& a = acc->mutable_array();
    if (simple &&
        FoldNative(*simple, a.element_type(), a.data(), parts[k]->data(), a.element_count())) {
      continue;
    }
    Value x = Value::Array(std::make_shared<Literal>(*parts[k]));
    const Value* args[2] = {&*acc, &x};
    auto next = MapScalarComputation(f, args, acc->array().shape(), ev);
    if (!next.ok()) return next.status();
    acc = *std::move(next);
  }
  return acc;
}

// ---- the values exchanged --------------------------------------------------------

Value Bundle(Operands ops) {
  if (ops.size() == 1) return *ops[0];
  std::vector<Value> v;
  for (const Value* o : ops) v.push_back(*o);
  return Value::Tuple(std::move(v));
}

// Operand i of a contribution made by Bundle.
const Literal& Part(const Value& bundle, size_t count, size_t i) {
  return count == 1 ? bundle.array() : bundle.element(static_cast<int64_t>(i)).array();
}

Value Unbundle(std::vector<Value> results) {
  if (results.size() == 1) return std::move(results[0]);
  return Value::Tuple(std::move(results));
}

absl::Status ExpectArrays(Operands ops, std::string_view name) {
  if (ops.empty()) return Invalid(StrCat(name, " needs an operand"));
  for (const Value* o : ops) {
    if (!o->is_array()) return Invalid(StrCat(name, " operands must be arrays"));
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> OneDim(const Instruction& inst, int64_t rank) {
  absl::Span<const int64_t> d = inst.GetInts(AttrKind::kDimensions);
  if (d.size() != 1 || d[0] < 0 || d[0] >= rank) {
    return Invalid(StrCat("needs dimensions={d} with d in [0, ", rank, ")"));
  }
  return d[0];
}

// ---- the ops ---------------------------------------------------------------------

// The key of one instance of a collective: names, not addresses, so that
// every process of an MPI run makes the same one; and the collective's name
// in errors. Their fixed parts are made once per device.
DeviceContext::CollectiveSite& NamedSite(const Instruction& inst, const std::vector<int64_t>& group,
                                         DeviceContext& dev,
                                         DeviceContext::CollectiveSite* found = nullptr) {
  DeviceContext::CollectiveSite& site = found != nullptr ? *found : dev.Site(&inst);
  if (site.where.empty()) {
    site.key_head = StrCat(inst.parent() != nullptr ? inst.parent()->name() : std::string_view(),
                           "/", inst.name(), "#");
    site.key_tail = StrCat("/", StrJoin(group, ","));
    site.where = StrCat("%", inst.name(), " (", inst.OpcodeText(), ")");
  }
  return site;
}

// The next instance's key, in the site's own buffer (valid until the
// instruction runs again on this device).
const std::string& CollectiveKey(DeviceContext::CollectiveSite& site) {
  site.key.assign(site.key_head);
  StrAppend(&site.key, site.instances++, site.key_tail);
  return site.key;
}

struct Ctx {
  const Instruction& inst;
  Operands ops;
  KernelContext& ev;
  DeviceContext& dev;
  DeviceContext* shared;  // null: one device
  // The device's cached group (DeviceContext::CollectiveSite), or
  // own_group where the instance makes its own (collective-permute).
  const std::vector<int64_t>* group_of = nullptr;
  std::vector<int64_t> own_group;
  int64_t rank = 0;  // this device's place in the group
  // The device's site of `inst`, where EvalGroupCollective found it.
  DeviceContext::CollectiveSite* site = nullptr;
  const std::vector<int64_t>& group() const { return *group_of; }
};

// Runs one instance of a collective of `inst` among `group` (device
// numbers), at the device's site of `inst` (`found`, or looked up): with
// one device `combine` just runs on this device's value.
absl::StatusOr<Value> ExchangeAt(const Instruction& inst, const std::vector<int64_t>& group,
                                 DeviceContext* dev, DeviceContext::CollectiveSite* found,
                                 Value contribution, const Rendezvous::Combine& combine,
                                 const Rendezvous::Wants* wants, const Rendezvous::Cut* cut) {
  if (dev == nullptr || dev->rendezvous == nullptr || group.size() <= 1) {
    return combine(absl::MakeConstSpan(&contribution, 1));
  }
  DeviceContext::CollectiveSite& site = NamedSite(inst, group, *dev, found);
  return dev->rendezvous->Collective(CollectiveKey(site), group, dev->device(),
                                     std::move(contribution), combine, site.where, wants, cut);
}

absl::StatusOr<Value> Exchange(Ctx& c, const Rendezvous::Combine& combine,
                               const Rendezvous::Wants* wants = nullptr,
                               const Rendezvous::Cut* cut = nullptr) {
  return ExchangeAt(c.inst, c.group(), c.shared, c.site, Bundle(c.ops), combine, wants, cut);
}

// Whether the group has devices on other MPI ranks.
bool Spans(const Ctx& c) {
  return c.shared != nullptr && c.shared->rendezvous != nullptr &&
         c.shared->rendezvous->SpansProcesses(c.group());
}

// Elements [part * E / parts, (part + 1) * E / parts) of an array, flat.
absl::StatusOr<Value> FlatPart(const Literal& a, int64_t part, int64_t parts) {
  const int64_t e = a.element_count(), begin = e * part / parts, end = e * (part + 1) / parts;
  const int64_t width = ByteWidth(a.element_type());
  auto out = NewArrayUninitialized(Shape::Array(a.element_type(), {end - begin}));
  if (!out.ok()) return out.status();
  std::memcpy(out->mutable_array().data(), a.data() + begin * width, (end - begin) * width);
  return out;
}

// An all-reduce whose group spans MPI ranks: each rank reduces a slice of
// the elements over every member's slice, in group order (the fold is
// element by element, so the bits are those of the whole fold).
absl::StatusOr<Value> AllReduceSliced(Ctx& c, const Computation& f) {
  const size_t n = c.ops.size();
  Rendezvous::Sliced sliced;
  sliced.slice = [n](const Value& v, int64_t part, int64_t parts) -> absl::StatusOr<Value> {
    std::vector<Value> cut;
    for (size_t i = 0; i < n; ++i) {
      auto s = FlatPart(Part(v, n, i), part, parts);
      if (!s.ok()) return s.status();
      cut.push_back(*std::move(s));
    }
    return Unbundle(std::move(cut));
  };
  sliced.reduce = [&](absl::Span<const Value> all) -> absl::StatusOr<Value> {
    std::vector<Value> results;
    for (size_t i = 0; i < n; ++i) {
      std::vector<const Literal*> parts;
      for (const Value& v : all) parts.push_back(&Part(v, n, i));
      auto r = FoldArrays(f, parts, c.ev);
      if (!r.ok()) return r.status();
      results.push_back(*std::move(r));
    }
    return Unbundle(std::move(results));
  };
  sliced.assemble = [&](absl::Span<const Value> parts) -> absl::StatusOr<Value> {
    std::vector<Value> results;
    for (size_t i = 0; i < n; ++i) {
      auto out = NewArrayUninitialized(c.ops[i]->array().shape());
      if (!out.ok()) return out.status();
      Literal& dst = out->mutable_array();
      size_t at = 0;
      for (const Value& p : parts) {
        const Literal& piece = Part(p, n, i);
        if (at + piece.size_bytes() > dst.size_bytes()) return Invalid("a reduced slice too large");
        std::memcpy(dst.data() + at, piece.data(), piece.size_bytes());
        at += piece.size_bytes();
      }
      if (at != dst.size_bytes()) return Invalid("the reduced slices do not make the result");
      results.push_back(*std::move(out));
    }
    return Unbundle(std::move(results));
  };
  DeviceContext::CollectiveSite& site = NamedSite(c.inst, c.group(), *c.shared, c.site);
  return c.shared->rendezvous->ReduceSliced(CollectiveKey(site), c.group(), c.shared->device(),
                                            Bundle(c.ops), sliced, site.where);
}

// A one-array all-reduce of a native fold (FoldArrays' bits) whose group
// has this device alone on this process: folded from the members' bytes
// where the transport's quick gather leaves them, no values made but the
// result. Nullopt: not such an all-reduce.
std::optional<absl::StatusOr<Value>> QuickAllReduce(Ctx& c, const Computation& f,
                                                    const Rendezvous::Combine& combine) {
  if (c.ops.size() != 1 || !Spans(c)) return std::nullopt;
  const Literal& mine = c.ops[0]->array();
  const PrimitiveType type = mine.element_type();
  std::optional<Opcode> op = SimpleBinaryReducer(f);
  if (!op || !FoldNative(*op, type, nullptr, nullptr, 0)) return std::nullopt;
  absl::StatusOr<Value> out = NewArrayUninitialized(mine.shape());
  if (!out.ok()) return out;
  uint8_t* acc = out->mutable_array().data();
  const int64_t n = mine.element_count();
  const size_t bytes = mine.size_bytes();
  auto fold = [&](absl::Span<const char* const> blocks) {
    if (bytes > 0) std::memcpy(acc, blocks[0], bytes);
    for (size_t k = 1; k < blocks.size(); ++k) FoldNative(*op, type, acc, blocks[k], n);
  };
  DeviceContext::CollectiveSite& site = NamedSite(c.inst, c.group(), *c.shared, c.site);
  const std::string& key = CollectiveKey(site);
  Rendezvous& rendezvous = *c.shared->rendezvous;
  std::optional<absl::Status> quick =
      rendezvous.QuickCollective(key, c.group(), c.shared->device(), *c.ops[0], fold, site.where);
  if (!quick) {  // the instance's key is taken: the general path under it
    return rendezvous.Collective(key, c.group(), c.shared->device(), *c.ops[0], combine,
                                 site.where);
  }
  if (!quick->ok()) return *quick;
  return out;
}

absl::StatusOr<Value> AllReduce(Ctx& c) {
  const Computation* f = c.inst.to_apply();
  if (f == nullptr) return Invalid("needs a to_apply computation");
  // Slices pay for a second round of messages only when they are large.
  constexpr int64_t kSliceBytes = 64 << 10;
  int64_t bytes = 0;
  for (const Value* o : c.ops) bytes += static_cast<int64_t>(o->array().size_bytes());
  if (bytes > kSliceBytes && c.shared != nullptr && c.shared->rendezvous != nullptr &&
      c.shared->rendezvous->SpansProcesses(c.group())) {
    return AllReduceSliced(c, *f);
  }
  // Captures two pointers: std::function keeps them without an allocation.
  const Rendezvous::Combine combine = [&c,
                                       f](absl::Span<const Value> all) -> absl::StatusOr<Value> {
    const size_t n = c.ops.size();
    absl::InlinedVector<const Literal*, 8> parts(all.size());
    auto fold = [&](size_t i) {  // operand i over the members, in group order
      for (size_t k = 0; k < all.size(); ++k) parts[k] = &Part(all[k], n, i);
      return FoldArrays(*f, parts, c.ev);
    };
    if (n == 1) return fold(0);  // no results vector to unbundle
    std::vector<Value> results;
    for (size_t i = 0; i < n; ++i) {
      auto r = fold(i);
      if (!r.ok()) return r.status();
      results.push_back(*std::move(r));
    }
    return Unbundle(std::move(results));
  };
  if (std::optional<absl::StatusOr<Value>> quick = QuickAllReduce(c, *f, combine)) {
    return *std::move(quick);
  }
  return Exchange(c, combine);
}

absl::StatusOr<Value> AllGather(Ctx& c) {
  size_t n = c.ops.size();
  auto d = OneDim(c.inst, c.ops[0]->array().shape().rank());
  if (!d.ok()) return d.status();
  return Exchange(c, [&](absl::Span<const Value> all) -> absl::StatusOr<Value> {
    std::vector<Value> results;
    for (size_t i = 0; i < n; ++i) {
      const Shape& in = c.ops[i]->array().shape();
      auto out = NewArray(WithDim(in, *d, in.dim(*d) * static_cast<int64_t>(all.size())));
      if (!out.ok()) return out.status();
      for (size_t k = 0; k < all.size(); ++k) {
        const Literal& part = Part(all[k], n, i);
        if (!part.shape().Compatible(in)) return Invalid("the devices' operands differ in shape");
        PlaceAlong(part, out->mutable_array(), *d, in.dim(*d) * static_cast<int64_t>(k));
      }
      results.push_back(*std::move(out));
    }
    return Unbundle(std::move(results));
  });
}

absl::StatusOr<Value> ReduceScatter(Ctx& c) {
  const Computation* f = c.inst.to_apply();
  if (f == nullptr) return Invalid("needs a to_apply computation");
  size_t n = c.ops.size();
  auto d = OneDim(c.inst, c.ops[0]->array().shape().rank());
  if (!d.ok()) return d.status();
  int64_t parts = static_cast<int64_t>(c.group().size());
  for (const Value* o : c.ops) {
    if (o->array().shape().dim(*d) % parts != 0) {
      return Invalid(StrCat("operand dimension ", *d, " (", o->array().shape().dim(*d),
                            ") is not divisible by the group size ", parts));
    }
  }
  if (Spans(c)) {
    // Across ranks only each member's shard of every contribution moves;
    // the combine folds the shards, in group order, as below.
    const Rendezvous::Cut cut = [&](const Value& v, int64_t r) -> absl::StatusOr<Value> {
      std::vector<Value> shards;
      for (size_t i = 0; i < n; ++i) {
        int64_t size = c.ops[i]->array().shape().dim(*d) / parts;
        auto s = SliceAlong(Part(v, n, i), *d, r * size, size);
        if (!s.ok()) return s.status();
        shards.push_back(*std::move(s));
      }
      return Unbundle(std::move(shards));
    };
    return Exchange(
        c,
        [&](absl::Span<const Value> shards) -> absl::StatusOr<Value> {
          std::vector<Value> results;
          for (size_t i = 0; i < n; ++i) {
            std::vector<const Literal*> ptrs;
            for (const Value& s : shards) ptrs.push_back(&Part(s, n, i));
            auto r = FoldArrays(*f, ptrs, c.ev);
            if (!r.ok()) return r.status();
            results.push_back(*std::move(r));
          }
          return Unbundle(std::move(results));
        },
        nullptr, &cut);
  }
  return Exchange(c, [&](absl::Span<const Value> all) -> absl::StatusOr<Value> {
    std::vector<Value> results;
    for (size_t i = 0; i < n; ++i) {
      int64_t size = c.ops[i]->array().shape().dim(*d) / parts;
      std::vector<Value> mine;  // this device's shard of every operand
      std::vector<const Literal*> ptrs;
      for (const Value& v : all) {
        auto s = SliceAlong(Part(v, n, i), *d, c.rank * size, size);
        if (!s.ok()) return s.status();
        mine.push_back(*std::move(s));
      }
      for (const Value& m : mine) ptrs.push_back(&m.array());
      auto r = FoldArrays(*f, ptrs, c.ev);
      if (!r.ok()) return r.status();
      results.push_back(*std::move(r));
    }
    return Unbundle(std::move(results));
  });
}

absl::StatusOr<Value> AllToAll(Ctx& c) {
  int64_t parts = static_cast<int64_t>(c.group().size());
  if (!c.inst.HasAttr(AttrKind::kDimensions)) {
    // Tuple form: operand j goes to member j; element k of the result
    // comes from member k.
    if (static_cast<int64_t>(c.ops.size()) != parts) {
      return Invalid(StrCat("all-to-all without dimensions needs one operand per group member (",
                            parts, "), but has ", c.ops.size()));
    }
    size_t n = c.ops.size();
    if (Spans(c)) {
      // Across ranks only operand r of each member goes to member r.
      const Rendezvous::Cut cut = [&](const Value& v, int64_t r) -> absl::StatusOr<Value> {
        return CopyArray(Part(v, n, static_cast<size_t>(r)));
      };
      return Exchange(
          c,
          [&](absl::Span<const Value> mine) {
            return Value::Tuple({mine.begin(), mine.end()});
          },
          nullptr, &cut);
    }
    return Exchange(c, [&](absl::Span<const Value> all) -> absl::StatusOr<Value> {
      std::vector<Value> results;
      for (const Value& v : all) {
        auto r = CopyArray(Part(v, n, static_cast<size_t>(c.rank)));
        if (!r.ok()) return r.status();
        results.push_back(*std::move(r));
      }
      return Value::Tuple(std::move(results));
    });
  }
  if (c.ops.size() != 1) return Invalid("all-to-all with dimensions takes one operand");
  const Shape& in = c.ops[0]->array().shape();
  auto d = OneDim(c.inst, in.rank());
  if (!d.ok()) return d.status();
  if (in.dim(*d) % parts != 0) {
    return Invalid(StrCat("operand dimension ", *d, " (", in.dim(*d),
                          ") is not divisible by the group size ", parts));
  }
  int64_t size = in.dim(*d) / parts;
  if (Spans(c)) {
    // Across ranks only chunk r of each member goes to member r.
    const Rendezvous::Cut cut = [&](const Value& v, int64_t r) -> absl::StatusOr<Value> {
      return SliceAlong(v.array(), *d, r * size, size);
    };
    return Exchange(
        c,
        [&](absl::Span<const Value> chunks) -> absl::StatusOr<Value> {
          auto out = NewArray(in);
          if (!out.ok()) return out.status();
          for (int64_t k = 0; k < parts; ++k) {
            PlaceAlong(chunks[k].array(), out->mutable_array(), *d, k * size);
          }
          return out;
        },
        nullptr, &cut);
  }
  return Exchange(c, [&](absl::Span<const Value> all) -> absl::StatusOr<Value> {
    auto out = NewArray(in);
    if (!out.ok()) return out.status();
    auto chunk = NewArray(WithDim(in, *d, size));
    if (!chunk.ok()) return chunk.status();
    for (int64_t k = 0; k < parts; ++k) {
      TakeAlong(all[k].array(), *d, c.rank * size, chunk->mutable_array());
      PlaceAlong(chunk->array(), out->mutable_array(), *d, k * size);
    }
    return out;
  });
}

// XLA's ragged-all-to-all: member j receives rows
// input[input_offsets[j] : +send_sizes[j]] of every sender, written into its
// own output at the sender's output_offsets[j].
absl::StatusOr<Value> RaggedAllToAll(Ctx& c) {
  if (c.ops.size() != 6) return Invalid("ragged-all-to-all takes 6 operands");
  for (int i = 2; i < 6; ++i) {
    if (c.ops[i]->array().shape().rank() != 1) {
      return absl::UnimplementedError("ragged-all-to-all with rank-2 offsets is not supported");
    }
    if (c.ops[i]->array().element_count() != static_cast<int64_t>(c.group().size())) {
      return Invalid(StrCat("ragged-all-to-all offsets and sizes need one entry per group member (",
                            c.group().size(), ")"));
    }
  }
  Value mine = Value::Tuple({*c.ops[0], *c.ops[2], *c.ops[3], *c.ops[4]});
  const Literal& output = c.ops[1]->array();
  int64_t m = c.rank;
  return ExchangeAt(
      c.inst, c.group(), c.shared, c.site, mine,
      [&](absl::Span<const Value> all) -> absl::StatusOr<Value> {
        auto out = CopyArray(output);
        if (!out.ok()) return out.status();
        Literal& dst = out->mutable_array();
        int64_t out_rows = dst.shape().dim(0);
        int64_t row = dst.shape().dim(0) == 0 ? 0 : AlongDim(dst.shape(), 0).inner;
        for (size_t k = 0; k < all.size(); ++k) {
          const Literal& in = all[k].element(0).array();
          int64_t in_off = all[k].element(1).array().GetInt(m);
          int64_t count = all[k].element(2).array().GetInt(m);
          int64_t out_off = all[k].element(3).array().GetInt(m);
          int64_t in_rows = in.shape().dim(0);
          if (count < 0 || in_off < 0 || out_off < 0 || in_off > in_rows - count ||
              out_off > out_rows - count) {
            return Invalid(StrCat("ragged-all-to-all: member ", k, " sends rows [", in_off, ", ",
                                  in_off + count, ") of ", in_rows, " to rows [", out_off, ", ",
                                  out_off + count, ") of ", out_rows, ", out of range"));
          }
          std::memcpy(dst.data() + out_off * row, in.data() + in_off * row, count * row);
        }
        return out;
      },
      nullptr, nullptr);
}

absl::StatusOr<Value> CollectiveBroadcast(Ctx& c) {
  size_t n = c.ops.size();
  const Rendezvous::Wants first = [](int64_t m, int64_t) { return m == 0; };
  return Exchange(
      c,
      [&](absl::Span<const Value> all) -> absl::StatusOr<Value> {
        std::vector<Value> results;
        for (size_t i = 0; i < n; ++i) {
          auto r = CopyArray(Part(all[0], n, i));
          if (!r.ok()) return r.status();
          results.push_back(*std::move(r));
        }
        return Unbundle(std::move(results));
      },
      &first);
}

// Every device of this one's id space exchanges; the target of a pair
// gets its source's operands, devices no pair targets get zeros.
absl::StatusOr<Value> CollectivePermute(Ctx& c, Opcode op, const Shape& result) {
  if (c.inst.HasAttr(AttrKind::kSliceSizes)) {
    return absl::UnimplementedError(
        "the in-place collective-permute (slice_sizes) is not supported");
  }
  auto mode = CollectiveModeOf(c.inst, op);
  if (!mode.ok()) return mode.status();
  const Attribute* a = c.inst.FindAttr(AttrKind::kSourceTargetPairs);
  const auto* pairs = a ? std::get_if<std::vector<std::vector<int64_t>>>(&a->value) : nullptr;
  int64_t ids = PairIdCount(*mode, c.dev), me = PairId(*mode, c.dev);
  int64_t source = -1;
  if (pairs != nullptr) {
    for (const std::vector<int64_t>& p : *pairs) {
      if (p.size() != 2 || p[0] < 0 || p[1] < 0 || p[0] >= ids || p[1] >= ids) {
        return Invalid(StrCat("source_target_pairs {", StrJoin(p, ","), "} name ids outside the ",
                              ids, " of this run"));
      }
      if (p[1] == me) source = p[0];
    }
  }
  c.own_group = PairGroup(*mode, c.dev);
  c.group_of = &c.own_group;
  size_t n = c.ops.size();
  // Member t reads only its source's operands (group index = id).
  std::vector<int64_t> source_of(static_cast<size_t>(ids), -1);
  if (pairs != nullptr) {
    for (const std::vector<int64_t>& p : *pairs) source_of[p[1]] = p[0];
  }
  const Rendezvous::Wants wants = [&](int64_t m, int64_t t) { return source_of[t] == m; };
  return Exchange(
      c,
      [&](absl::Span<const Value> all) -> absl::StatusOr<Value> {
        if (source < 0) return ZeroValue(result);
        std::vector<Value> results;
        for (size_t i = 0; i < n; ++i) {
          auto r = CopyArray(Part(all[source], n, i));
          if (!r.ok()) return r.status();
          results.push_back(*std::move(r));
        }
        return Unbundle(std::move(results));
      },
      &wants);
}

absl::StatusOr<Value> RunOp(Ctx& c, Opcode op, const Shape& result) {
  switch (op) {
    case Opcode::kAllReduce:
    case Opcode::kCollectiveReduce:
      return AllReduce(c);
    case Opcode::kAllGather:
      return AllGather(c);
    case Opcode::kReduceScatter:
      return ReduceScatter(c);
    case Opcode::kAllToAll:
      return AllToAll(c);
    case Opcode::kRaggedAllToAll:
      return RaggedAllToAll(c);
    case Opcode::kCollectiveBroadcast:
      return CollectiveBroadcast(c);
    case Opcode::kCollectivePermute:
      return CollectivePermute(c, op, result);
    default:
      return absl::UnimplementedError(
          StrCat("hlo-run cannot evaluate '", OpcodeName(op), "' as a collective"));
  }
}

}  // namespace

DeviceContext& DeviceOf(KernelContext& ev, std::optional<DeviceContext>& fallback) {
  return ev.options().device != nullptr ? *ev.options().device : fallback.emplace();
}

absl::StatusOr<Value> ZeroValue(const Shape& shape) {
  if (shape.IsToken()) return Value::Token();
  if (shape.IsTuple()) {
    std::vector<Value> v;
    for (const Shape* e : shape.tuple_shapes()) {
      auto z = ZeroValue(*e);
      if (!z.ok()) return z.status();
      v.push_back(*std::move(z));
    }
    return Value::Tuple(std::move(v));
  }
  return NewArray(shape);
}

absl::StatusOr<Value> EvalGroupCollective(const Instruction& inst, Opcode op, Operands ops,
                                          const Shape& result, KernelContext& ev) {
  std::optional<DeviceContext> fallback;  // made only where the run has no device
  DeviceContext& dev = DeviceOf(ev, fallback);
  static const std::vector<int64_t> kNoGroup;
  Ctx c{inst, ops, ev, dev, ev.options().device, &kNoGroup, {}, 0};
  if (op == Opcode::kRaggedAllToAll) {
    for (const Value* o : ops) {
      if (!o->is_array()) return Invalid("ragged-all-to-all operands must be arrays");
    }
  } else if (auto st = ExpectArrays(ops, OpcodeName(op)); !st.ok()) {
    return st;
  }
  if (op != Opcode::kCollectivePermute) {
    DeviceContext::CollectiveSite& site = dev.Site(&inst);
    c.site = &site;
    if (!site.group) site.group = GroupDevices(inst, op, dev);
    const absl::StatusOr<std::vector<int64_t>>& group = *site.group;
    // StableHLO's collective_broadcast: devices in no group get zeros.
    if (op == Opcode::kCollectiveBroadcast && absl::IsNotFound(group.status())) {
      return ZeroValue(result);
    }
    if (!group.ok()) return group.status();
    c.group_of = &*group;
    for (size_t i = 0; i < c.group().size(); ++i) {
      if (c.group()[i] == dev.device()) c.rank = static_cast<int64_t>(i);
    }
  }
  absl::StatusOr<Value> r = RunOp(c, op, result);
  if (!r.ok()) return r;
  // The group size decides the shape of all-gather and reduce-scatter: a
  // run with other device counts than the module was written for shows here.
  if (ValueMatchesShape(*r, result)) return r;
  if (absl::Status st =
          CheckValueShape(*r, result, StrCat("the result over ", c.group().size(), " devices"));
      !st.ok()) {
    return absl::InvalidArgumentError(
        StrCat(std::string(st.message()), " (check --replicas/--partitions)"));
  }
  return r;
}

}  // namespace hlo

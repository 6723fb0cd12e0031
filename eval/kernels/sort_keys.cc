// Recognising the comparators that order by keys of the operands, so that
// sort and TopK run on typed keys instead of calling the comparator.
//
// A key is one operand's pair of parameters (2k, 2k+1), each side the same
// expression of its parameter:
//
//   x                              the parameter (any non-complex type)
//   convert(x)                     a bf16/f16 parameter widened to f32
//   select(x != x, NaN, select(x == 0, 0, x))
//                                  JAX's canonicalising selects on floats
//                                  (any nesting order, any constants)
//   select(s < 0, s ^ MAX, s)      with s = bitcast(f), f a float key above:
//                                  XLA's total-order integer (what its
//                                  ComparisonExpander writes for order=TOTAL;
//                                  TopkRewriter's bitcast-convert(MAX - u)
//                                  with u the unsigned bits is the same)
//
// compared LT/GT (or EQ/NE, for ties) in the order natural to its type (a
// float key in IEEE or total order). A comparator is one such LT/GT
// compare, or a lexicographic combination of them, as JAX writes it
//
//   or(lt(k0), and(eq(k0), <the rest>))
//
// and XLA's CreateScalarComparisonComputation writes it
//
//   select(and(eq(k0), ..., eq(kj-1)), cmp(kj), <the comparator of k0..kj-1>)
//
// or select(ne(k0), lt(k0), <the rest>); a select on a constant predicate
// (XLA's TPU TopK comparator) is its chosen operand. XLA's StableSortExpander
// (XLA:GPU's sorts) wraps a comparator c as
//
//   select(eq(c, <c with sides swapped>), <iota compare>, c)
//
// which is c's keys, then the iota.
#include <cstring>

#include "eval/kernels/sort_internal.h"
#include "ir/compare_order.h"
#include "ir/float_formats.h"
#include "ir/literal.h"

namespace hlo {
namespace sort_internal {
namespace {

// e without rank-0 broadcasts of rank-0 values around it.
const Instruction* Unbroadcast(const Instruction* e) {
  while (e->opcode() == Opcode::kBroadcast && e->operand_count() == 1 && e->shape().IsArray() &&
         e->shape().rank() == 0 && e->operand(0)->shape().IsArray() &&
         e->operand(0)->shape().rank() == 0) {
    e = e->operand(0);
  }
  return e;
}

bool IsScalar(const Instruction* e) { return e->shape().IsArray() && e->shape().rank() == 0; }

PrimitiveType TypeOf(const Instruction* e) { return e->shape().element_type(); }

bool IsScalarConstant(const Instruction* e, PrimitiveType t) {
  return e->opcode() == Opcode::kConstant && e->literal() && IsScalar(e) && TypeOf(e) == t;
}

// The value of a rank-0 integer constant, possibly through a convert of a
// non-negative one to another integer type that holds it.
std::optional<int64_t> IntConstant(const Instruction* e) {
  e = Unbroadcast(e);
  if (e->opcode() == Opcode::kConvert && e->operand_count() == 1 && IsScalar(e) &&
      IsInteger(TypeOf(e))) {
    auto v = IntConstant(e->operand(0));
    const int bits = BitWidth(TypeOf(e)) - (IsSignedInt(TypeOf(e)) ? 1 : 0);
    if (!v || *v < 0 || (bits < 63 && *v >= (int64_t{1} << bits))) return std::nullopt;
    return v;
  }
  if (e->opcode() != Opcode::kConstant || !e->literal() || !IsScalar(e) || !IsInteger(TypeOf(e))) {
    return std::nullopt;
  }
  return e->literal()->GetInt(0);
}

// Whether a and b compute the same value: the same instruction, or copies of
// the same constant, parameter, or conversion of the same value (XLA's
// matchers build each bitcast of a parameter anew).
bool SameValue(const Instruction* a, const Instruction* b) {
  a = Unbroadcast(a);
  b = Unbroadcast(b);
  if (a == b) return true;
  if (a->opcode() != b->opcode() || !IsScalar(a) || !IsScalar(b) || TypeOf(a) != TypeOf(b)) {
    return false;
  }
  switch (a->opcode()) {
    case Opcode::kParameter:
      return a->parameter_number() == b->parameter_number();
    case Opcode::kConstant:
      return a->literal() && b->literal() && a->literal()->GetBits(0) == b->literal()->GetBits(0);
    case Opcode::kConvert:
    case Opcode::kBitcast:
    case Opcode::kBitcastConvert:
      return a->operand_count() == 1 && b->operand_count() == 1 &&
             SameValue(a->operand(0), b->operand(0));
    default:
      return false;
  }
}

bool IsCompare(const Instruction* e, std::string_view direction) {
  return e->opcode() == Opcode::kCompare && e->operand_count() == 2 &&
         e->GetString(AttrKind::kDirection) == direction;
}

bool IeeeCompare(const Instruction* cmp, std::string_view direction) {
  std::string_view type = cmp->GetString(AttrKind::kType);
  return IsCompare(cmp, direction) && (type.empty() || type == "FLOAT") &&
         ComparesFloatsInIeeeOrder(*cmp);
}

// A compare of signed integers (no type, or SIGNED).
bool SignedCompare(const Instruction* cmp, std::string_view direction) {
  std::string_view type = cmp->GetString(AttrKind::kType);
  return IsCompare(cmp, direction) && (type.empty() || type == "SIGNED");
}

// What one side of a key compare computes from its parameter.
struct KeyExpr {
  int64_t param = -1;
  bool widened = false;  // convert(bf16/f16 parameter) to f32
  std::vector<KeyRule> rules;
  bool total_bits = false;              // the total-order integer of the float
  const Instruction* source = nullptr;  // the parameter or its convert
  bool SameForm(const KeyExpr& o) const {
    return widened == o.widened && rules == o.rules && total_bits == o.total_bits;
  }
};

// e is a parameter of the computation, or convert(bf16/f16 parameter) to
// f32.
bool MatchSource(const Computation& c, const Instruction* e, KeyExpr* k) {
  k->source = e;
  if (e->opcode() == Opcode::kConvert && e->operand_count() == 1 && IsScalar(e) &&
      TypeOf(e) == PrimitiveType::kF32) {
    const Instruction* x = e->operand(0);
    if (x->opcode() != Opcode::kParameter ||
        (TypeOf(x) != PrimitiveType::kBF16 && TypeOf(x) != PrimitiveType::kF16)) {
      return false;
    }
    k->widened = true;
    e = x;
  }
  if (e->opcode() != Opcode::kParameter || !IsScalar(e)) return false;
  const int64_t p = e->parameter_number();
  if (p < 0 || p >= c.parameter_count() || c.parameter(p) != e) return false;
  k->param = p;
  return true;
}

// A float key: the source, or select(cond, constant, inner) with cond
// x != x or x == constant of the source x and inner a float key of it.
bool MatchFloatKey(const Computation& c, const Instruction* e, KeyExpr* k) {
  if (!IsScalar(e) || !IsFloat(TypeOf(e))) return false;
  if (e->opcode() != Opcode::kSelect) return MatchSource(c, e, k);
  if (e->operand_count() != 3) return false;
  const PrimitiveType t = TypeOf(e);
  const Instruction* cond = e->operand(0);
  const Instruction* value = Unbroadcast(e->operand(1));
  if (!IsScalarConstant(value, t) || !MatchFloatKey(c, e->operand(2), k)) return false;
  const Instruction* x = k->source;
  KeyRule rule;
  rule.result_bits = value->literal()->GetBits(0);
  if (IeeeCompare(cond, "NE") && SameValue(cond->operand(0), x) && SameValue(cond->operand(1), x)) {
    rule.kind = KeyRule::kNaN;
  } else if (IeeeCompare(cond, "EQ")) {
    const Instruction* a = cond->operand(0);
    const Instruction* b = cond->operand(1);
    const Instruction* m =
        SameValue(a, x) ? Unbroadcast(b) : (SameValue(b, x) ? Unbroadcast(a) : nullptr);
    if (!m || !IsScalarConstant(m, t)) return false;
    rule.kind = KeyRule::kEqual;
    rule.match = m->literal()->GetDouble(0);
  } else {
    return false;
  }
  k->rules.insert(k->rules.begin(), rule);
  return true;
}

// Float types whose total-order integer is s < 0 ? s ^ MAX : s (those with
// a sign and a negative zero; XLA writes another form for the rest).
bool HasXorTotalOrder(PrimitiveType t) {
  if (t == PrimitiveType::kF32 || t == PrimitiveType::kF64) return true;
  if (!IsSmallFloat(t)) return false;
  const SmallFloatInfo& info = GetSmallFloatInfo(t);
  return info.has_negative_zero && !info.unsigned_only;
}

// b is bitcast/bitcast-convert of a float to an integer type of its width,
// signed or not as asked; returns the float.
const Instruction* BitsOf(const Instruction* b, bool is_signed) {
  if ((b->opcode() != Opcode::kBitcast && b->opcode() != Opcode::kBitcastConvert) ||
      b->operand_count() != 1 || !IsScalar(b)) {
    return nullptr;
  }
  const PrimitiveType t = TypeOf(b);
  const Instruction* f = b->operand(0);
  if (!IsScalar(f) || !IsFloat(TypeOf(f)) || BitWidth(t) != BitWidth(TypeOf(f)) ||
      (is_signed ? !IsSignedInt(t) : !IsUnsignedInt(t))) {
    return nullptr;
  }
  return f;
}

// The total-order integer select(s < 0, flipped, s) of a float key, with
// flipped s ^ MAX (either order) or bitcast-convert(MAX - u), u the
// float's unsigned bits.
bool MatchTotalBits(const Computation& c, const Instruction* e, KeyExpr* k) {
  if (e->opcode() != Opcode::kSelect || e->operand_count() != 3 || !IsScalar(e)) return false;
  const Instruction* s = e->operand(2);
  const Instruction* f = BitsOf(s, /*is_signed=*/true);
  if (!f || !HasXorTotalOrder(TypeOf(f)) || !MatchFloatKey(c, f, k)) return false;
  const int64_t max = static_cast<int64_t>((uint64_t{1} << (BitWidth(TypeOf(s)) - 1)) - 1);
  const Instruction* cond = e->operand(0);
  const bool negative = (SignedCompare(cond, "LT") && SameValue(cond->operand(0), s) &&
                         IntConstant(cond->operand(1)) == 0) ||
                        (SignedCompare(cond, "GT") && SameValue(cond->operand(1), s) &&
                         IntConstant(cond->operand(0)) == 0);
  if (!negative) return false;
  const Instruction* flipped = e->operand(1);
  if (flipped->opcode() == Opcode::kXor && flipped->operand_count() == 2) {
    const Instruction* a = flipped->operand(0);
    const Instruction* b = flipped->operand(1);
    k->total_bits =
        (SameValue(a, s) && IntConstant(b) == max) || (SameValue(b, s) && IntConstant(a) == max);
    return k->total_bits;
  }
  if (flipped->opcode() == Opcode::kBitcastConvert && flipped->operand_count() == 1 &&
      TypeOf(flipped) == TypeOf(s)) {
    const Instruction* sub = flipped->operand(0);
    if (sub->opcode() != Opcode::kSubtract || sub->operand_count() != 2 ||
        IntConstant(sub->operand(0)) != max) {
      return false;
    }
    const Instruction* fu = BitsOf(sub->operand(1), /*is_signed=*/false);
    k->total_bits = fu && SameValue(fu, f);
    return k->total_bits;
  }
  return false;
}

// One side of a key compare.
bool MatchKeyExpr(const Computation& c, const Instruction* e, KeyExpr* k) {
  *k = KeyExpr();
  if (!IsScalar(e)) return false;
  const PrimitiveType t = TypeOf(e);
  if (IsFloat(t)) return MatchFloatKey(c, e, k);
  if (IsInteger(t) && e->opcode() == Opcode::kSelect) return MatchTotalBits(c, e, k);
  return (IsInteger(t) || IsPred(t)) && MatchSource(c, e, k);
}

// A compare of one key's pair: the key (its direction that of LT) and the
// compare's direction.
struct KeyCompare {
  SortKey key;
  std::string_view direction;
};

std::optional<KeyCompare> MatchKeyCompare(const Computation& c, const Instruction* cmp) {
  if (cmp->opcode() != Opcode::kCompare || cmp->operand_count() != 2) return std::nullopt;
  KeyExpr a, b;
  if (!MatchKeyExpr(c, cmp->operand(0), &a) || !MatchKeyExpr(c, cmp->operand(1), &b) ||
      !a.SameForm(b) || a.param / 2 != b.param / 2 || a.param == b.param) {
    return std::nullopt;
  }
  const PrimitiveType t = TypeOf(cmp->operand(0));  // the compared type
  std::string_view type = cmp->GetString(AttrKind::kType);
  std::string_view order = cmp->GetString(AttrKind::kOrder);
  bool natural = type.empty() || (IsFloat(t) && (type == "FLOAT" || type == "TOTALORDER")) ||
                 (IsSignedInt(t) && type == "SIGNED") ||
                 ((IsUnsignedInt(t) || IsPred(t)) && type == "UNSIGNED");
  natural = natural && (order.empty() || IsFloat(t) || order == "TOTAL");
  const bool float_total = IsFloat(t) && ComparesFloatsInTotalOrder(*cmp);
  if (!natural || (!a.rules.empty() && !float_total && !a.total_bits)) return std::nullopt;
  KeyCompare kc;
  kc.key.operand = a.param / 2;
  kc.key.total_order = float_total || a.total_bits;
  kc.key.widened = a.widened;
  kc.key.rules = std::move(a.rules);
  kc.key.descending = a.param % 2 == 1;  // compare(rhs, lhs, LT) sorts descending
  kc.direction = cmp->GetString(AttrKind::kDirection);
  return kc;
}

// An LT/GT compare of a key: that key, its direction set.
std::optional<SortKey> MatchOrderCompare(const Computation& c, const Instruction* e) {
  auto kc = MatchKeyCompare(c, e);
  if (!kc || (kc->direction != "LT" && kc->direction != "GT")) return std::nullopt;
  if (kc->direction == "GT") kc->key.descending = !kc->key.descending;
  return kc->key;
}

// An EQ (or NE) compare of a key.
std::optional<SortKey> MatchTieCompare(const Computation& c, const Instruction* e,
                                       std::string_view direction) {
  auto kc = MatchKeyCompare(c, e);
  if (!kc || kc->direction != direction) return std::nullopt;
  return kc->key;
}

// The EQ compares of a conjunction and(and(eq0, eq1), eq2)...
bool MatchTies(const Computation& c, const Instruction* e, std::vector<SortKey>* ties) {
  if (e->opcode() == Opcode::kAnd && e->operand_count() == 2 && TypeOf(e) == PrimitiveType::kPred) {
    return MatchTies(c, e->operand(0), ties) && MatchTies(c, e->operand(1), ties);
  }
  auto k = MatchTieCompare(c, e, "EQ");
  if (!k) return false;
  ties->push_back(*k);
  return true;
}

// Whether the keys tested for ties are those of `keys`, as sets (each
// one's order in the other).
bool SameKeySet(const std::vector<SortKey>& ties, const std::vector<SortKey>& keys) {
  auto within = [](const std::vector<SortKey>& a, const std::vector<SortKey>& b) {
    for (const SortKey& x : a) {
      bool found = false;
      for (const SortKey& y : b) found = found || x.SameOrder(y);
      if (!found) return false;
    }
    return true;
  };
  return within(ties, keys) && within(keys, ties);
}

std::optional<std::vector<SortKey>> MatchLexicographic(const Computation& c, const Instruction* e,
                                                       int depth);

// XLA's StableSortExpander around a comparator c of keys K:
//
//   select(eq(c, c~), <rest>, c)   or   select(ne(c, c~), c, <rest>)
//
// with c~ the comparator with every key's sides swapped (K's directions
// flipped). For a strict weak order c and c~ are both false exactly when
// every key of K ties, and never both true, so this is K then the rest's
// keys (the expander's iota: the index decides ties). A NaN under IEEE `<`
// breaks that, and OrderKeys then refuses the keys.
std::optional<std::vector<SortKey>> MatchStableExpansion(const Computation& c,
                                                         const Instruction* cond,
                                                         const Instruction* on_true,
                                                         const Instruction* on_false, int depth) {
  if (cond->opcode() != Opcode::kCompare || cond->operand_count() != 2 ||
      TypeOf(cond->operand(0)) != PrimitiveType::kPred ||
      TypeOf(cond->operand(1)) != PrimitiveType::kPred) {
    return std::nullopt;
  }
  const std::string_view direction = cond->GetString(AttrKind::kDirection);
  if (direction != "EQ" && direction != "NE") return std::nullopt;
  const Instruction* order = Unbroadcast(direction == "EQ" ? on_false : on_true);
  const Instruction* rest = direction == "EQ" ? on_true : on_false;
  const Instruction* a = Unbroadcast(cond->operand(0));
  const Instruction* b = Unbroadcast(cond->operand(1));
  const Instruction* swapped = a == order ? b : (b == order ? a : nullptr);
  if (swapped == nullptr) return std::nullopt;
  auto keys = MatchLexicographic(c, order, depth + 1);
  auto mirror = MatchLexicographic(c, swapped, depth + 1);
  if (!keys || !mirror || keys->size() != mirror->size()) return std::nullopt;
  for (size_t i = 0; i < keys->size(); ++i) {
    const SortKey& k = (*keys)[i];
    const SortKey& m = (*mirror)[i];
    if (!k.SameOrder(m) || k.descending == m.descending) return std::nullopt;
  }
  auto after = MatchLexicographic(c, rest, depth + 1);
  if (!after) return std::nullopt;
  keys->insert(keys->end(), after->begin(), after->end());
  return keys;
}

std::optional<std::vector<SortKey>> MatchLexicographic(const Computation& c, const Instruction* e,
                                                       int depth) {
  if (depth > 64 || !IsScalar(e) || TypeOf(e) != PrimitiveType::kPred) return std::nullopt;
  if (auto k = MatchOrderCompare(c, e)) return std::vector<SortKey>{*k};
  auto join = [](SortKey first, std::optional<std::vector<SortKey>> rest) {
    std::optional<std::vector<SortKey>> out;
    if (!rest) return out;
    out.emplace();
    out->push_back(std::move(first));
    out->insert(out->end(), rest->begin(), rest->end());
    return out;
  };
  if (e->opcode() == Opcode::kOr && e->operand_count() == 2) {
    // or(lt(k), and(eq(k), rest)), operands in either order.
    for (int side = 0; side < 2; ++side) {
      auto k = MatchOrderCompare(c, e->operand(side));
      const Instruction* both = e->operand(1 - side);
      if (!k || both->opcode() != Opcode::kAnd || both->operand_count() != 2) continue;
      for (int half = 0; half < 2; ++half) {
        auto tie = MatchTieCompare(c, both->operand(half), "EQ");
        if (tie && tie->SameOrder(*k)) {
          if (auto out = join(*k, MatchLexicographic(c, both->operand(1 - half), depth + 1))) {
            return out;
          }
        }
      }
    }
    return std::nullopt;
  }
  if (e->opcode() != Opcode::kSelect || e->operand_count() != 3) return std::nullopt;
  const Instruction* cond = Unbroadcast(e->operand(0));
  const Instruction* on_true = e->operand(1);
  const Instruction* on_false = e->operand(2);
  if (cond->opcode() == Opcode::kConstant && cond->literal() && IsScalar(cond)) {
    return MatchLexicographic(c, cond->literal()->GetInt(0) != 0 ? on_true : on_false, depth + 1);
  }
  // select(ne(k), lt(k), rest)
  if (auto differ = MatchTieCompare(c, cond, "NE")) {
    auto k = MatchOrderCompare(c, on_true);
    if (!k || !k->SameOrder(*differ)) return std::nullopt;
    return join(*k, MatchLexicographic(c, on_false, depth + 1));
  }
  if (auto stable = MatchStableExpansion(c, cond, on_true, on_false, depth)) return stable;
  // select(eq(k0) and ... eq(kj-1), <keys after>, <comparator of k0..kj-1>)
  std::vector<SortKey> ties;
  if (!MatchTies(c, cond, &ties)) return std::nullopt;
  auto before = MatchLexicographic(c, on_false, depth + 1);
  if (!before || !SameKeySet(ties, *before)) return std::nullopt;
  auto after = MatchLexicographic(c, on_true, depth + 1);
  if (!after) return std::nullopt;
  before->insert(before->end(), after->begin(), after->end());
  return before;
}

}  // namespace

int64_t TotalKeyOfBits(PrimitiveType t, uint64_t bits) {
  if (t == PrimitiveType::kF32) {
    float v;
    uint32_t b = static_cast<uint32_t>(bits);
    std::memcpy(&v, &b, 4);
    return TotalKey(v);
  }
  if (t == PrimitiveType::kF64) {
    double v;
    std::memcpy(&v, &bits, 8);
    return TotalKey(v);
  }
  return SmallTotalKey(static_cast<uint32_t>(bits), BitWidth(t),
                       !GetSmallFloatInfo(t).unsigned_only);
}

std::optional<KeyComparator> RecognizeComparator(const Computation& c, int64_t n) {
  const Instruction* root = c.root();
  if (c.parameter_count() != 2 * n || !root) return std::nullopt;
  for (int64_t p = 0; p < c.parameter_count(); ++p) {
    if (!c.parameter(p) || !IsScalar(c.parameter(p))) return std::nullopt;
  }
  auto keys = MatchLexicographic(c, root, 0);
  if (!keys) return std::nullopt;
  for (const SortKey& k : *keys) {
    if (IsComplex(TypeOf(c.parameter(2 * k.operand)))) return std::nullopt;
  }
  return KeyComparator{*std::move(keys)};
}

}  // namespace sort_internal
}  // namespace hlo

// Recognising the comparators that sort by one operand's keys, so that the
// sort runs on typed keys instead of calling the comparator: one LT/GT
// compare of parameters 2k and 2k+1, each optionally wrapped in the
// canonicalising selects JAX emits for floats,
//
//   select(compare(x, x, NE), NaN, select(compare(x, 0, EQ), 0, x))
//
// (any nesting order, any constants), compared in total order (type=TOTALORDER
// or order=TOTAL).
#include <cstring>

#include "eval/kernels_sort_internal.h"
#include "ir/compare_order.h"
#include "ir/literal.h"

namespace hlo {
namespace sort_internal {
namespace {

bool IsScalarConstant(const Instruction* e, PrimitiveType t) {
  return e->opcode() == Opcode::kConstant && e->literal() && e->shape().IsArray() &&
         e->shape().rank() == 0 && e->shape().element_type() == t;
}

bool IeeeCompare(const Instruction* cmp, std::string_view direction) {
  std::string_view type = cmp->GetString(AttrKind::kType);
  return cmp->opcode() == Opcode::kCompare && cmp->operand_count() == 2 &&
         cmp->GetString(AttrKind::kDirection) == direction && (type.empty() || type == "FLOAT") &&
         ComparesFloatsInIeeeOrder(*cmp);
}

// e is a parameter, or select(cond, constant, inner) with cond x != x or
// x == constant of that same parameter x and inner matching recursively.
// Sets the parameter and the rules (outermost first).
bool MatchKey(const Computation& c, const Instruction* e, int64_t* param,
              std::vector<KeyRule>* rules) {
  if (e->opcode() == Opcode::kParameter) {
    *param = e->parameter_number();
    return true;
  }
  if (e->opcode() != Opcode::kSelect || e->operand_count() != 3) return false;
  const PrimitiveType t = e->shape().element_type();
  const Instruction* cond = e->operand(0);
  const Instruction* value = e->operand(1);
  if (!IsFloat(t) || !IsScalarConstant(value, t)) return false;
  std::vector<KeyRule> inner;
  if (!MatchKey(c, e->operand(2), param, &inner)) return false;
  if (*param < 0 || *param >= c.parameter_count()) return false;
  const Instruction* x = c.parameter(*param);
  if (!x || x->shape().element_type() != t) return false;
  KeyRule rule;
  rule.result_bits = value->literal()->GetBits(0);
  if (IeeeCompare(cond, "NE") && cond->operand(0) == x && cond->operand(1) == x) {
    rule.kind = KeyRule::kNaN;
  } else if (IeeeCompare(cond, "EQ")) {
    const Instruction* a = cond->operand(0);
    const Instruction* b = cond->operand(1);
    const Instruction* k = a == x ? b : (b == x ? a : nullptr);
    if (!k || !IsScalarConstant(k, t)) return false;
    rule.kind = KeyRule::kEqual;
    rule.match = k->literal()->GetDouble(0);
  } else {
    return false;
  }
  rules->clear();
  rules->push_back(rule);
  rules->insert(rules->end(), inner.begin(), inner.end());
  return true;
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

std::optional<SimpleComparator> RecognizeComparator(const Computation& c, int64_t n) {
  const Instruction* root = c.root();
  if (c.parameter_count() != 2 * n || !root || root->opcode() != Opcode::kCompare ||
      root->operand_count() != 2) {
    return std::nullopt;
  }
  int64_t pa = -1, pb = -1;
  std::vector<KeyRule> ra, rb;
  if (!MatchKey(c, root->operand(0), &pa, &ra) || !MatchKey(c, root->operand(1), &pb, &rb) ||
      ra != rb || pa / 2 != pb / 2 || pa == pb) {
    return std::nullopt;
  }
  std::string_view dir = root->GetString(AttrKind::kDirection);
  if (dir != "LT" && dir != "GT") return std::nullopt;
  // The compare type must be the natural one of the element type.
  const PrimitiveType t = c.parameter(pa)->shape().element_type();
  std::string_view type = root->GetString(AttrKind::kType);
  std::string_view order = root->GetString(AttrKind::kOrder);
  bool natural = type.empty() || (IsFloat(t) && (type == "FLOAT" || type == "TOTALORDER")) ||
                 (IsSignedInt(t) && type == "SIGNED") ||
                 ((IsUnsignedInt(t) || IsPred(t)) && type == "UNSIGNED");
  natural = natural && (order.empty() || IsFloat(t) || order == "TOTAL");
  const bool total = IsFloat(t) && ComparesFloatsInTotalOrder(*root);
  if (!natural || (!ra.empty() && !total)) return std::nullopt;
  SimpleComparator s;
  s.operand = pa / 2;
  s.descending = (dir == "GT") != (pa % 2 == 1);
  s.total_order = total;
  s.rules = std::move(ra);
  return s;
}

}  // namespace sort_internal
}  // namespace hlo

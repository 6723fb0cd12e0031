#include "passes/computation_equality.h"

#include <string>
#include <variant>
#include <vector>

#include "absl/container/flat_hash_set.h"

namespace hlo {
namespace {

using Pair = std::pair<const Computation*, const Computation*>;
using InstPair = std::pair<const Instruction*, const Instruction*>;

bool Compared(AttrKind kind) { return kind != AttrKind::kMetadata; }

std::string AttrText(const Attribute& a) {
  std::string out;
  AppendAttrValue(out, a, /*percent=*/false);
  return out;
}

// Attributes equal as sets by value, except that distinct called
// computations are left to the caller: appended to `calls` in pairs.
bool SameAttributesBut(const Instruction& a, const Instruction& b, std::vector<Pair>& calls) {
  size_t na = 0, nb = 0;
  for (const Attribute& x : a.attributes()) na += Compared(x.kind);
  for (const Attribute& y : b.attributes()) nb += Compared(y.kind);
  if (na != nb) return false;
  for (const Attribute& x : a.attributes()) {
    if (!Compared(x.kind)) continue;
    const Attribute* y = b.FindAttr(x.kind);
    if (y == nullptr || x.value.index() != y->value.index()) return false;
    if (x.value == y->value) continue;  // plain values, or the same pointers
    if (const auto* xs = std::get_if<std::vector<Computation*>>(&x.value)) {
      const auto& ys = std::get<std::vector<Computation*>>(y->value);
      if (xs->size() != ys.size()) return false;
      for (size_t i = 0; i < xs->size(); ++i) {
        if ((*xs)[i] == nullptr || ys[i] == nullptr) return false;
        if ((*xs)[i] != ys[i]) calls.push_back({(*xs)[i], ys[i]});
      }
      continue;
    }
    if (AttrText(x) != AttrText(*y)) return false;
  }
  return true;
}

// An elided constant (`constant({...})`) has no known value to compare.
bool SameLiteral(const Instruction& a, const Instruction& b) {
  if (a.literal_elided() || b.literal_elided()) return false;
  const Literal* x = a.literal();
  const Literal* y = b.literal();
  if (x == y) return true;
  if (x == nullptr || y == nullptr) return false;
  return *x == *y;
}

// Everything but the operands and the called computations' insides.
bool SameInstructionBut(const Instruction& a, const Instruction& b, std::vector<Pair>& calls) {
  if (a.opcode() != b.opcode() || a.shape_ptr() != b.shape_ptr() ||
      a.has_wrapped_opcode() != b.has_wrapped_opcode() ||
      (a.has_wrapped_opcode() && a.wrapped_opcode() != b.wrapped_opcode()) ||
      a.operand_count() != b.operand_count()) {
    return false;
  }
  if (a.opcode() == Opcode::kParameter && a.parameter_number() != b.parameter_number()) {
    return false;
  }
  return SameLiteral(a, b) && SameAttributesBut(a, b, calls);
}

}  // namespace

bool ComputationEquality::Equal(const Computation& a, const Computation& b) {
  if (&a == &b) return true;
  if (auto it = known_.find(Pair{&a, &b}); it != known_.end()) return it->second;
  // Every pair of computations met (those the instructions call too) is
  // checked from its roots, with one worklist: no recursion, however deep
  // the calls nest.
  std::vector<Pair> pairs = {{&a, &b}};
  absl::flat_hash_set<Pair> met = {{&a, &b}};
  absl::flat_hash_set<InstPair> visited;
  std::vector<InstPair> work;
  std::vector<Pair> calls;
  bool equal = true;
  for (size_t next = 0; equal && next < pairs.size(); ++next) {
    const auto [ca, cb] = pairs[next];
    if (auto it = known_.find(pairs[next]); it != known_.end()) {
      equal = it->second;
      continue;
    }
    if (ca->parameter_count() != cb->parameter_count() || ca->root() == nullptr ||
        cb->root() == nullptr) {
      equal = false;
      break;
    }
    work.push_back({ca->root(), cb->root()});
    while (equal && !work.empty()) {
      const InstPair p = work.back();
      work.pop_back();
      if (!visited.insert(p).second) continue;
      calls.clear();
      if (!SameInstructionBut(*p.first, *p.second, calls)) {
        equal = false;
        break;
      }
      for (int64_t k = 0; k < p.first->operand_count(); ++k) {
        const Instruction* x = p.first->operand(k);
        const Instruction* y = p.second->operand(k);
        if (x == nullptr || y == nullptr) {
          equal = false;
          break;
        }
        work.push_back({x, y});
      }
      for (const Pair& c : calls) {
        if (met.insert(c).second) pairs.push_back(c);
      }
    }
  }
  // When equal, so is every pair met on the way; when not, only the pair
  // asked about is known to differ.
  if (equal) {
    for (const Pair& p : pairs) known_[p] = true;
  } else {
    known_[Pair{&a, &b}] = false;
  }
  return equal;
}

bool ComputationEquality::SameButOperands(const Instruction& a, const Instruction& b) {
  std::vector<Pair> calls;
  if (!SameInstructionBut(a, b, calls)) return false;
  for (const Pair& c : calls) {
    if (!Equal(*c.first, *c.second)) return false;
  }
  return true;
}

}  // namespace hlo

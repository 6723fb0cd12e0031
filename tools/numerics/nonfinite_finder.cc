#include "tools/numerics/nonfinite_finder.h"

#include <utility>
#include <vector>

#include "absl/strings/cord.h"
#include "ir/located_status.h"
#include "ir/strings.h"

namespace hlo {
namespace {

// The first array leaf of `value` holding a NaN or an infinity; `index`
// gets its tuple index when it is inside a tuple.
const Literal* FirstNonFinite(const Value& value, std::vector<int64_t>* index) {
  if (value.is_array()) {
    const PrimitiveType t = value.array().element_type();
    if (!IsFloat(t) && !IsComplex(t)) return nullptr;
    return StatsOf(value.array()).nonfinite() > 0 ? &value.array() : nullptr;
  }
  for (size_t i = 0; i < value.elements().size(); ++i) {
    index->push_back(static_cast<int64_t>(i));
    if (const Literal* bad = FirstNonFinite(value.element(static_cast<int64_t>(i)), index)) {
      return bad;
    }
    index->pop_back();
  }
  return nullptr;
}

// Instructions whose values were made (and checked) elsewhere: in the
// computations they call, or by their operands.
bool PassesValuesOn(Opcode op) {
  switch (op) {
    case Opcode::kTuple:
    case Opcode::kGetTupleElement:
    case Opcode::kWhile:
    case Opcode::kScan:
    case Opcode::kCall:
    case Opcode::kFusion:
    case Opcode::kConditional:
    case Opcode::kOptimizationBarrier:
    case Opcode::kDomain:
    case Opcode::kAddDependency:
      return true;
    default:
      return false;
  }
}

// An operand's summary: arrays described, tuples by their leaves' count.
std::string DescribeValue(const Value& v) {
  if (v.is_array()) return DescribeArray(v.array());
  if (v.is_token()) return "token";
  return StrCat("a tuple of ", v.elements().size(), " elements");
}

}  // namespace

// Whether `inst` alone (its operands already decided) is made from
// constants: a constant or iota, or an op of such operands with no other
// source of values.
bool NonFiniteFinder::FromConstantsAlone(const Instruction& root) {
  // Depth first without recursion (operand chains are as long as a module).
  std::vector<std::pair<const Instruction*, bool>> stack = {{&root, false}};
  while (!stack.empty()) {
    auto [inst, expanded] = stack.back();
    if (constant_only_.contains(inst)) {
      stack.pop_back();
      continue;
    }
    const Opcode op = inst->opcode();
    if (op == Opcode::kConstant || op == Opcode::kIota || inst->operand_count() == 0 ||
        op == Opcode::kCustomCall || op == Opcode::kRng || op == Opcode::kRecv ||
        op == Opcode::kInfeed) {
      constant_only_[inst] = op == Opcode::kConstant || op == Opcode::kIota;
      stack.pop_back();
      continue;
    }
    if (!expanded) {
      stack.back().second = true;
      for (const Instruction* o : inst->operands()) {
        if (!constant_only_.contains(o)) stack.push_back({o, false});
      }
      continue;
    }
    bool alone = true;
    for (const Instruction* o : inst->operands()) alone = alone && constant_only_.at(o);
    constant_only_[inst] = alone;
    stack.pop_back();
  }
  return constant_only_.at(&root);
}

absl::Status NonFiniteFinder::Finished(const Instruction& inst,
                                       absl::Span<const Value* const> operands,
                                       const Value& result) {
  if (PassesValuesOn(inst.opcode())) return absl::OkStatus();
  std::vector<int64_t> index;
  const Literal* bad = FirstNonFinite(result, &index);
  if (bad == nullptr || FromConstantsAlone(inst)) return absl::OkStatus();
  report_ = Describe(inst, operands, result, *bad,
                     index.empty() ? "" : StrCat("{", StrJoin(index, ","), "}"));
  // Located: the evaluator's callers pass it up as it is, payload and all.
  absl::Status st = MarkLocated(absl::AbortedError("a non-finite value was found"));
  st.SetPayload(kNonFinitePayload, absl::Cord());
  return st;
}

std::string NonFiniteFinder::Describe(const Instruction& inst,
                                      absl::Span<const Value* const> operands, const Value& result,
                                      const Literal& bad, std::string_view where) {
  const ArrayStats s = StatsOf(bad);
  std::string out = StrCat("first non-finite value: %", inst.name(), " = ", inst.OpcodeText(), " ",
                           inst.shape().ToString(false), " in computation ",
                           inst.parent() != nullptr ? inst.parent()->name() : "?");
  if (std::string at = TextLocationOf(module_, inst); !at.empty()) StrAppend(&out, " (", at, ")");
  out += "\n";
  StrAppend(&out, "  result", where.empty() ? "" : " element ", where, ": ", s.nonfinite(), " of ",
            s.count, " elements non-finite (", s.nan, " NaN, ", s.pos_inf, " +Inf, ", s.neg_inf,
            " -Inf), the first at ", IndexText(bad.shape(), s.first_nonfinite), "\n");
  if (!result.is_array()) StrAppend(&out, "  result: ", DescribeValue(result), "\n");
  std::string op_name = OpNameOf(inst);
  StrAppend(&out, "  op_name: ", op_name.empty() ? "(none)" : op_name, "\n");
  std::string source = SourceOf(module_, inst);
  StrAppend(&out, "  source: ", source.empty() ? "(none)" : source, "\n");
  std::vector<int64_t> trips = Trips();
  if (trips.empty()) {
    out += "  loops: none\n";
  } else {
    std::string loops;
    for (const Running& r : running()) {
      if (!IsLoop(*r.inst)) continue;
      StrAppend(&loops, loops.empty() ? "" : ", ", "%", r.inst->name(), " iteration ", r.trip);
    }
    StrAppend(&out, "  loops (outermost first, iterations from 0): ", loops, "\n");
  }
  std::string path = DescribeRunning(running());
  StrAppend(&out, "  inside: ", path.empty() ? "the entry computation" : path, "\n");
  if (inst.opcode() == Opcode::kParameter) out += "  (an input of the entry computation)\n";
  for (size_t k = 0; k < operands.size(); ++k) {
    const Instruction* op = k < static_cast<size_t>(inst.operand_count())
                                ? inst.operand(static_cast<int64_t>(k))
                                : nullptr;
    StrAppend(&out, "  operand ", k, " %", op != nullptr ? op->name() : "?", ": ",
              DescribeValue(*operands[k]), "\n");
  }
  return out;
}

}  // namespace hlo

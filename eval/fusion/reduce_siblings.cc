#include "eval/fusion/reduce_siblings.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "eval/denormals.h"
#include "eval/kernels/kernels.h"
#include "eval/kernels/scalar_apply.h"
#include "ir/computation.h"

namespace hlo {
namespace {

// One reduce that may join a group.
struct Candidate {
  const Instruction* inst;
  Opcode op;
  OnePassForm form;
};

std::optional<Candidate> AsCandidate(const Instruction& inst) {
  if (inst.opcode() != Opcode::kReduce || inst.operand_count() != 2 ||
      !inst.control_predecessors().empty() || !inst.shape().IsArray()) {
    return std::nullopt;
  }
  const Instruction& x = *inst.operand(0);
  const Instruction& init = *inst.operand(1);
  const PrimitiveType t = inst.shape().element_type();
  if (!x.shape().IsArray() || x.shape().element_type() != t || init.opcode() != Opcode::kConstant ||
      init.literal() == nullptr || !init.shape().IsArray() || init.shape().rank() != 0 ||
      init.shape().element_type() != t) {
    return std::nullopt;
  }
  const Computation* reducer = inst.to_apply();
  std::optional<Opcode> op = reducer != nullptr ? SimpleBinaryReducer(*reducer) : std::nullopt;
  if (!op || !OnePassSupports(t, *op)) return std::nullopt;
  std::optional<OnePassForm> form = OnePassFormOfReduce(inst, x.shape().dims());
  // Small operands: each reduce alone costs less than the pass's set-up.
  constexpr int64_t kMinSiblingElements = int64_t{1} << 14;
  if (!form || form->cols < kMinOnePassCols || form->rows * form->cols < kMinSiblingElements) {
    return std::nullopt;
  }
  return Candidate{&inst, *op, *form};
}

// The members of one operand's candidates that share the most common view
// (whole reductions fit any view).
std::unique_ptr<SiblingReduces> GroupOf(const std::vector<Candidate>& cands) {
  std::vector<std::pair<int64_t, int64_t>> views;
  int64_t best = -1, best_count = 0;
  for (const Candidate& c : cands) {
    if (c.form.axes == ReduceAxes::kAll) continue;
    const std::pair<int64_t, int64_t> v{c.form.rows, c.form.cols};
    const int64_t count = std::count_if(cands.begin(), cands.end(), [&](const Candidate& o) {
      return o.form.axes != ReduceAxes::kAll && o.form.rows == v.first && o.form.cols == v.second;
    });
    if (count > best_count) {
      best_count = count;
      best = static_cast<int64_t>(&c - cands.data());
    }
  }
  auto group = std::make_unique<SiblingReduces>();
  if (best >= 0) {
    group->rows = cands[best].form.rows;
    group->cols = cands[best].form.cols;
  } else {
    group->rows = cands[0].form.rows;
    group->cols = cands[0].form.cols;
  }
  for (const Candidate& c : cands) {
    if (c.form.axes == ReduceAxes::kAll ||
        (c.form.rows == group->rows && c.form.cols == group->cols)) {
      group->members.push_back(c.inst);
      group->axes.push_back(c.form.axes);
      group->ops.push_back(c.op);
    }
  }
  if (group->members.size() < 2) return nullptr;
  return group;
}

}  // namespace

std::vector<std::unique_ptr<SiblingReduces>> FindSiblingReduces(
    absl::Span<const Instruction* const> order, bool flush_denormals) {
  absl::flat_hash_map<const Instruction*, std::vector<Candidate>> by_operand;
  std::vector<const Instruction*> operands;  // first-seen order, for a stable plan
  for (const Instruction* inst : order) {
    std::optional<Candidate> c = AsCandidate(*inst);
    if (!c) continue;
    std::vector<Candidate>& list = by_operand[inst->operand(0)];
    if (list.empty()) operands.push_back(inst->operand(0));
    list.push_back(*c);
  }
  std::vector<std::unique_ptr<SiblingReduces>> groups;
  for (const Instruction* x : operands) {
    const std::vector<Candidate>& cands = by_operand[x];
    if (cands.size() < 2) continue;
    std::unique_ptr<SiblingReduces> g = GroupOf(cands);
    if (g == nullptr) continue;
    g->flush_denormals = flush_denormals;
    groups.push_back(std::move(g));
  }
  return groups;
}

std::optional<std::vector<Value>> RunSiblingReduces(const SiblingReduces& group,
                                                    const Value& operand) {
  if (!operand.is_array()) return std::nullopt;
  const Literal& x = operand.array();
  std::vector<Value> results;
  std::vector<OnePassReduce> reduces;
  for (size_t k = 0; k < group.members.size(); ++k) {
    const Instruction& m = *group.members[k];
    absl::StatusOr<Value> out = NewArrayUninitialized(m.shape());
    if (!out.ok()) return std::nullopt;
    results.push_back(*std::move(out));
    reduces.push_back(OnePassReduce{group.axes[k], group.ops[k], m.operand(1)->literal(),
                                    &results.back().mutable_array()});
  }
  if (!ReduceInOnePass(x, group.rows, group.cols, reduces)) return std::nullopt;
  if (group.flush_denormals) {
    for (size_t k = 0; k < results.size(); ++k) {
      FlushFastReductionResult(*group.members[k], results[k]);
    }
  }
  return results;
}

}  // namespace hlo

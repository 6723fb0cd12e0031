#include "eval/fusion/group_reduce.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "eval/fusion/fusion_plan.h"
#include "eval/kernels/scalar_apply.h"
#include "eval/runtime/new_array.h"

namespace hlo {
namespace {

// Narrowest rows and columns worth folding from the loop.
constexpr int64_t kMinRowElements = 32;
constexpr int64_t kMinColumns = 8;

// The group's loop as the one pass's operand: each part runs its own copy
// of the program (a program's registers are its own).
class GroupSource final : public OnePassSource {
 public:
  GroupSource(FusedGroup& group, std::vector<const void*> inputs)
      : group_(group), inputs_(std::move(inputs)) {
    if (const auto& sq = group_.reduce->squares) {
      squares_ = SquaredDifferences{inputs_[sq->x], inputs_[sq->v], sq->v_first, sq->per_row};
    }
  }

  std::optional<SquaredDifferences> squared_differences() const override { return squares_; }

  absl::Status Prepare(int64_t parts) override {
    if (squares_) return absl::OkStatus();  // Fill is not called
    EnsureProgramCopies(group_, parts);
    filled_before_.assign(static_cast<size_t>(parts), 0);
    return absl::OkStatus();
  }

  absl::Status Fill(int64_t part, int64_t first, int64_t n, void* dst) override {
    BatchProgram& program = part == 0 ? *group_.program : *group_.clones[part - 1];
    void* const outputs[] = {dst};
    // A part's later pieces read the inputs its first piece read.
    const bool same_inputs = filled_before_[static_cast<size_t>(part)];
    filled_before_[static_cast<size_t>(part)] = 1;
    return program.RunInto(inputs_, outputs, n, first, same_inputs);
  }

 private:
  FusedGroup& group_;
  const std::vector<const void*> inputs_;
  std::optional<SquaredDifferences> squares_;
  std::vector<uint8_t> filled_before_;  // per part (bytes: parts fill at once)
};

}  // namespace

std::optional<GroupReduce> GroupReduceOf(const Instruction& root) {
  if (root.is_root() || root.users().size() != 1 || !root.shape().IsArray()) return std::nullopt;
  const Instruction& reduce = *root.users()[0];
  if (reduce.opcode() != Opcode::kReduce || reduce.operand_count() != 2 ||
      reduce.operand(0) != &root || reduce.operand(1) == &root ||
      !reduce.control_predecessors().empty() || !reduce.shape().IsArray() ||
      reduce.shape().element_type() != root.shape().element_type() ||
      reduce.to_apply() == nullptr) {
    return std::nullopt;
  }
  std::optional<Opcode> op = SimpleBinaryReducer(*reduce.to_apply());
  if (!op || !OnePassSupports(root.shape().element_type(), *op)) return std::nullopt;
  std::optional<OnePassForm> form = OnePassFormOfReduce(reduce, root.shape().dims());
  // A whole-array fold is pairwise per core's part in the one pass, which
  // a lone reduce of under 2^22 elements does not do (it folds one tree):
  // only where the lone reduce makes the one pass too are the bits its.
  if (!form || (form->axes == ReduceAxes::kRows && form->cols < kMinRowElements) ||
      (form->axes == ReduceAxes::kColumns && form->cols < kMinColumns) ||
      (form->axes == ReduceAxes::kAll && !LoneReduceGains(*form))) {
    return std::nullopt;
  }
  return GroupReduce{&reduce, *form, *op, std::nullopt};
}

std::optional<GroupReduce::Squares> MatchSquaredDifferences(const FusedGroup& group) {
  const Instruction& root = *group.root;
  const GroupReduce& r = *group.reduce;
  const PrimitiveType type = root.shape().element_type();
  const bool per_row = r.form.axes == ReduceAxes::kRows;
  if ((r.form.axes != ReduceAxes::kColumns && !per_row) || r.op != Opcode::kAdd ||
      (type != PrimitiveType::kF32 && type != PrimitiveType::kF64) || group.members.size() != 3 ||
      root.opcode() != Opcode::kMultiply || root.operand(0) != root.operand(1)) {
    return std::nullopt;
  }
  const Instruction& d = *root.operand(0);
  if (d.opcode() != Opcode::kSubtract) return std::nullopt;
  const bool v_first = d.operand(0)->opcode() == Opcode::kBroadcast;
  const Instruction& b = *d.operand(v_first ? 0 : 1);
  const Instruction& x = *d.operand(v_first ? 1 : 0);
  if (b.opcode() != Opcode::kBroadcast || &x == &b) return std::nullopt;
  auto member = [&](const Instruction& i) {
    return std::find(group.members.begin(), group.members.end(), &i) != group.members.end();
  };
  auto input = [&](const Instruction& i) -> std::optional<size_t> {
    auto it = std::find(group.inputs.begin(), group.inputs.end(), &i);
    if (it == group.inputs.end()) return std::nullopt;
    return static_cast<size_t>(it - group.inputs.begin());
  };
  const Instruction& q = *b.operand(0);
  const std::optional<size_t> xi = input(x), vi = input(q);
  if (!member(d) || !member(b) || !xi || !vi || !x.shape().Compatible(root.shape()) ||
      !q.shape().IsArray() || q.shape().element_type() != type) {
    return std::nullopt;
  }
  // v's element c is column c: v's dims are the root's last ones, which the
  // broadcast maps them to in order, and make the columns. Per row: v's
  // element r is row r, v's dims the root's first ones.
  absl::Span<const int64_t> dims = root.shape().dims(), v_dims = q.shape().dims();
  absl::Span<const int64_t> map = b.GetInts(AttrKind::kDimensions);
  if (v_dims.size() > dims.size() || map.size() != v_dims.size() ||
      q.shape().ElementCount() != (per_row ? r.form.rows : r.form.cols)) {
    return std::nullopt;
  }
  const size_t first = per_row ? 0 : dims.size() - v_dims.size();
  for (size_t k = 0; k < v_dims.size(); ++k) {
    if (map[k] != static_cast<int64_t>(first + k) || v_dims[k] != dims[first + k]) {
      return std::nullopt;
    }
  }
  return GroupReduce::Squares{*xi, *vi, v_first, per_row};
}

absl::StatusOr<Value> RunGroupReduce(FusedGroup& group, absl::Span<const Value* const> inputs,
                                     const Value& init) {
  if (!group.reduce || !group.program) {
    return absl::InternalError("a fused reduce has no group loop");
  }
  absl::StatusOr<std::vector<const void*>> in = GroupInputData(*group.program, inputs);
  if (!in.ok()) return in.status();
  if (!init.is_array())
    return absl::InvalidArgumentError("the reduce's init value is not an array");
  absl::StatusOr<Value> out = NewArrayUninitialized(group.reduce->reduce->shape());
  if (!out.ok()) return out.status();
  const GroupReduce& r = *group.reduce;
  OnePassReduce one{r.form.axes, r.op, &init.array(), &out->mutable_array()};
  GroupSource source(group, *std::move(in));
  if (absl::Status st = ReduceFromSource(source, group.root->shape().element_type(), r.form.rows,
                                         r.form.cols, {one});
      !st.ok()) {
    return st;
  }
  return out;
}

}  // namespace hlo

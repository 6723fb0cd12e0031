#include "eval/fusion/fusion_plan.h"

#include <algorithm>
#include <mutex>
#include <thread>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "eval/kernels/kernels.h"
#include "eval/runtime/parallel.h"
#include "eval/runtime/stream_store.h"
#include "ir/computation.h"

namespace hlo {
namespace {

bool IsScalarShape(const Shape& s) { return s.IsArray() && s.rank() == 0; }

// An elementwise op over arrays worth fusing.
bool IsFusibleStep(const Instruction& inst, int64_t min_elements) {
  const Shape& s = inst.shape();
  return IsElementwise(inst.opcode()) && inst.opcode() != Opcode::kStochasticConvert &&
         s.IsArray() && s.ElementCount() >= min_elements && inst.control_predecessors().empty();
}

// Whether `p` may join a group whose arrays have `root`'s dimensions.
bool MayJoin(const Instruction& p, const Instruction& root, int64_t min_elements) {
  if (p.is_root() || !p.control_predecessors().empty()) return false;
  const Shape& s = p.shape();
  if (p.opcode() == Opcode::kConstant) return IsScalarShape(s) && p.literal() != nullptr;
  if (!s.IsArray() || s.dims() != root.shape().dims()) return false;
  // An iota is made a block at a time in the loop (a one-hot's compare
  // with it read the whole s32 array back from memory).
  if (p.opcode() == Opcode::kIota) return true;
  if (p.opcode() == Opcode::kBroadcast) {
    // A scalar's, or an array's read through its dimension map (bias adds,
    // softmax's and layer norm's per-row statistics).
    return p.operand_count() == 1 && p.operand(0)->shape().IsArray();
  }
  return IsFusibleStep(p, min_elements);
}

// A small root's group: every fusible instruction of its dimensions up to
// it that joins it through operands and users, less those whose value an
// instruction before the root reads from outside (removed until none is
// left): the loop runs at the root's step, so a member read outside must
// be read only after it, and is then an output of the group too. (A
// threefry round's adds and xors over u32[500] feed two outputs; grown
// through operands alone they made a group per rotation and an op per add.)
// Nothing outside between the members can depend on one, so every input is
// computed before the root.
absl::flat_hash_set<const Instruction*> MultiOutputRegion(
    const Instruction& root, const absl::flat_hash_map<const Instruction*, int64_t>& position,
    const absl::flat_hash_set<const Instruction*>& taken, int64_t min_elements) {
  const int64_t at = position.at(&root);
  auto before_root = [&](const Instruction* q) {
    auto it = position.find(q);
    return it != position.end() && it->second < at;
  };
  absl::flat_hash_set<const Instruction*> region = {&root};
  std::vector<const Instruction*> work = {&root};
  while (!work.empty()) {
    const Instruction* m = work.back();
    work.pop_back();
    auto consider = [&](const Instruction* q) {
      if (region.contains(q) || taken.contains(q) || !before_root(q) ||
          !MayJoin(*q, root, min_elements)) {
        return;
      }
      region.insert(q);
      work.push_back(q);
    };
    for (const Instruction* p : m->operands()) consider(p);
    // A duplicable member joins each group that reads it and links none.
    if (IsDuplicableMember(*m)) continue;
    for (const Instruction* u : m->users()) consider(u);
  }
  auto read_outside_early = [&](const Instruction* q) {
    return std::any_of(q->users().begin(), q->users().end(), [&](const Instruction* u) {
      return !region.contains(u) && (!position.contains(u) || position.at(u) < at);
    });
  };
  for (bool removed = true; removed;) {
    removed = false;
    for (auto it = region.begin(); it != region.end();) {
      const Instruction* q = *it;
      if (q != &root && !IsDuplicableMember(*q) && read_outside_early(q)) {
        region.erase(it++);
        removed = true;
      } else {
        ++it;
      }
    }
  }
  // A duplicable member stays only where a member reads it.
  for (auto it = region.begin(); it != region.end();) {
    const Instruction* q = *it;
    const bool read = std::any_of(q->users().begin(), q->users().end(),
                                  [&](const Instruction* u) { return region.contains(u); });
    if (IsDuplicableMember(*q) && !read) {
      region.erase(it++);
    } else {
      ++it;
    }
  }
  return region;
}

using Positions = absl::flat_hash_map<const Instruction*, int64_t>;
using InstructionSet = absl::flat_hash_set<const Instruction*>;

void SortByPosition(const Positions& position, std::vector<const Instruction*>& v) {
  std::sort(v.begin(), v.end(), [&](const Instruction* a, const Instruction* b) {
    return position.at(a) < position.at(b);
  });
}

// Groups of a pattern kernel whose instructions no group holds yet, their
// members taken: `match(root, members, inputs, group)` says whether root
// heads one, filling the group's kernel.
template <typename Match>
void AddPatternGroups(absl::Span<const Instruction* const> order, const Positions& position,
                      InstructionSet& taken, std::vector<std::unique_ptr<FusedGroup>>& groups,
                      const Match& match) {
  for (const Instruction* root : order) {
    std::vector<const Instruction*> members, inputs;
    auto fused = std::make_unique<FusedGroup>();
    if (taken.contains(root) || !match(*root, &members, &inputs, *fused) ||
        std::any_of(members.begin(), members.end(), [&](const Instruction* m) {
          return (taken.contains(m) && !IsDuplicableMember(*m)) || !position.contains(m);
        })) {
      continue;
    }
    fused->root = root;
    fused->members = std::move(members);
    SortByPosition(position, fused->members);
    fused->inputs = std::move(inputs);
    for (const Instruction* m : fused->members) {
      if (!IsDuplicableMember(*m)) taken.insert(m);
    }
    groups.push_back(std::move(fused));
  }
}

// Row softmaxes (MatchRowSoftmax) and GELUs' tanh form (MatchGeluTanh).
void AddSoftmaxGroups(absl::Span<const Instruction* const> order, const Positions& position,
                      bool flush_denormals, InstructionSet& taken,
                      std::vector<std::unique_ptr<FusedGroup>>& groups) {
  AddPatternGroups(order, position, taken, groups,
                   [&](const Instruction& root, std::vector<const Instruction*>* members,
                       std::vector<const Instruction*>* inputs, FusedGroup& group) {
                     group.softmax = MatchRowSoftmax(root, flush_denormals, members, inputs);
                     return group.softmax.has_value();
                   });
}
void AddGeluGroups(absl::Span<const Instruction* const> order, const Positions& position,
                   InstructionSet& taken, std::vector<std::unique_ptr<FusedGroup>>& groups) {
  AddPatternGroups(order, position, taken, groups,
                   [&](const Instruction& root, std::vector<const Instruction*>* members,
                       std::vector<const Instruction*>* inputs, FusedGroup& group) {
                     group.gelu = MatchGeluTanh(root, members, inputs);
                     return group.gelu.has_value();
                   });
}

// Row programs (MatchRowProgram) over instructions no group holds yet, the
// latest roots first (a program's region is as large as it can grow);
// their members taken.
void AddRowProgramGroups(absl::Span<const Instruction* const> order, const Positions& position,
                         bool flush_denormals, InstructionSet& taken,
                         std::vector<std::unique_ptr<FusedGroup>>& groups) {
  auto joinable = [&](const Instruction& inst) {
    return position.contains(&inst) && !taken.contains(&inst);
  };
  auto at = [&](const Instruction& inst) {
    auto it = position.find(&inst);
    return it == position.end() ? int64_t{-1} : it->second;
  };
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const Instruction* root = *it;
    if (taken.contains(root)) continue;
    std::vector<const Instruction*> members, inputs, outputs;
    std::unique_ptr<RowProgram> program =
        MatchRowProgram(*root, flush_denormals, joinable, at, &members, &inputs, &outputs);
    if (program == nullptr) continue;
    auto fused = std::make_unique<FusedGroup>();
    fused->root = root;
    fused->outputs = std::move(outputs);
    fused->members = std::move(members);
    SortByPosition(position, fused->members);
    fused->inputs = std::move(inputs);
    fused->row_program = std::move(program);
    for (const Instruction* m : fused->members) {
      if (!IsDuplicableMember(*m)) taken.insert(m);
    }
    groups.push_back(std::move(fused));
  }
}

// The loop group of `root`: grown from it through operands whose every
// user is already in the group (then no member's value is needed outside,
// and every input is computed before the root runs); a small root's group
// may have more outputs (MultiOutputRegion).
InstructionSet GrowGroup(const Instruction& root, const Positions& position,
                         const InstructionSet& taken, int64_t min_elements) {
  const bool small = root.shape().ElementCount() <= kMultiOutputElements;
  InstructionSet group =
      small ? MultiOutputRegion(root, position, taken, min_elements) : InstructionSet{&root};
  for (bool grew = !small; grew;) {
    grew = false;
    std::vector<const Instruction*> members(group.begin(), group.end());
    for (const Instruction* m : members) {
      for (const Instruction* p : m->operands()) {
        if (group.contains(p) || taken.contains(p) || !position.contains(p) ||
            !MayJoin(*p, root, min_elements)) {
          continue;
        }
        bool all_users_in = std::all_of(p->users().begin(), p->users().end(),
                                        [&](const Instruction* u) { return group.contains(u); });
        if (all_users_in || IsDuplicableMember(*p)) {
          group.insert(p);
          grew = true;
        }
      }
    }
  }
  return group;
}

// A lone op of this many elements is a group too: a group's loop runs in
// pieces on the cores, the elementwise kernels on the calling thread.
constexpr int64_t kLoneSplitElements = int64_t{1} << 18;

// `group` as a fused loop of `root`, compiled; null where it is not worth
// one (a lone op, or a one-step program that saves nothing) or does not
// compile.
std::unique_ptr<FusedGroup> MakeLoopGroup(const Instruction& root, const InstructionSet& group,
                                          const Positions& position, bool flush_denormals) {
  // (One op is a group where a reduce folds its values: GroupReduceOf,
  // or where its result is written with streaming stores.)
  std::optional<GroupReduce> reduce = GroupReduceOf(root);
  const bool streams =
      root.shape().IsArray() &&
      root.shape().ElementCount() * ByteWidth(root.shape().element_type()) >= kStreamStoreBytes;
  const bool splits = root.shape().IsArray() && root.shape().ElementCount() >= kLoneSplitElements;
  if (group.size() < 2 && !reduce && !streams && !splits) return nullptr;
  auto fused = std::make_unique<FusedGroup>();
  fused->root = &root;
  fused->members.assign(group.begin(), group.end());
  SortByPosition(position, fused->members);
  for (const Instruction* m : fused->members) {
    const bool read_outside = std::any_of(m->users().begin(), m->users().end(),
                                          [&](const Instruction* u) { return !group.contains(u); });
    if (m != &root && !IsDuplicableMember(*m) && read_outside) fused->outputs.push_back(m);
  }
  auto program = BatchProgram::CompileGroup(root, fused->members, flush_denormals, &fused->inputs,
                                            fused->outputs);
  if (!program.ok()) return nullptr;
  if (fused->outputs.empty()) {
    fused->row_op = MatchRowBroadcastOp(root, fused->members, fused->inputs, flush_denormals);
  }
  // One step is worth a group when it saves a broadcast's array (a bias
  // add, a scale by a scalar): the broadcast is read where it lies.
  const bool absorbs_broadcast =
      std::any_of(fused->members.begin(), fused->members.end(),
                  [](const Instruction* m) { return m->opcode() == Opcode::kBroadcast; });
  if (fused->outputs.empty()) fused->reduce = reduce;
  if (fused->reduce) fused->reduce->squares = MatchSquaredDifferences(*fused);
  if ((*program)->step_count() < 2 && !fused->row_op && !absorbs_broadcast && !fused->reduce &&
      !streams && !splits) {
    return nullptr;
  }
  fused->program = *std::move(program);
  return fused;
}

}  // namespace

bool IsDuplicableMember(const Instruction& inst) {
  if (inst.opcode() == Opcode::kConstant) return IsScalarShape(inst.shape());
  if (inst.opcode() == Opcode::kIota) return inst.shape().IsArray();
  return inst.opcode() == Opcode::kBroadcast && inst.operand_count() == 1 &&
         IsScalarShape(inst.operand(0)->shape());
}

std::vector<std::unique_ptr<FusedGroup>> FindFusedGroups(absl::Span<const Instruction* const> order,
                                                         bool flush_denormals,
                                                         int64_t min_elements) {
  Positions position;
  for (size_t i = 0; i < order.size(); ++i) position[order[i]] = static_cast<int64_t>(i);
  InstructionSet taken;
  std::vector<std::unique_ptr<FusedGroup>> groups;
  AddSoftmaxGroups(order, position, flush_denormals, taken, groups);
  AddRowProgramGroups(order, position, flush_denormals, taken, groups);
  AddGeluGroups(order, position, taken, groups);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const Instruction& root = **it;
    if (taken.contains(&root) || !IsFusibleStep(root, min_elements)) continue;
    const InstructionSet group = GrowGroup(root, position, taken, min_elements);
    std::unique_ptr<FusedGroup> fused = MakeLoopGroup(root, group, position, flush_denormals);
    if (fused == nullptr) continue;
    for (const Instruction* m : fused->members) {
      if (!IsDuplicableMember(*m)) taken.insert(m);
    }
    groups.push_back(std::move(fused));
  }
  return groups;
}

bool HoldsPatternKernel(const Computation& computation) {
  for (const auto& inst : computation.instructions()) {
    std::vector<const Instruction*> members, inputs;
    if (MatchGeluTanh(*inst, &members, &inputs)) return true;
  }
  return false;
}

std::vector<std::string> RowPatternMemberNames(const Module& defused, bool flush_denormals) {
  std::vector<std::string> names;
  for (const auto& comp : defused.computations()) {
    if (comp->is_fusion_computation()) continue;
    const std::vector<Instruction*> post_order = comp->PostOrder();
    const std::vector<const Instruction*> order(post_order.begin(), post_order.end());
    for (const std::unique_ptr<FusedGroup>& group : FindFusedGroups(order, flush_denormals)) {
      if (!group->softmax && !group->row_program) continue;
      for (const Instruction* m : group->members) names.emplace_back(m->name());
    }
  }
  return names;
}

absl::StatusOr<std::vector<const void*>> GroupInputData(const BatchProgram& program,
                                                        absl::Span<const Value* const> inputs) {
  std::vector<const void*> in(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i] == nullptr || !inputs[i]->is_array() ||
        inputs[i]->array().element_type() != program.parameter_type(static_cast<int64_t>(i))) {
      return absl::InvalidArgumentError("a fused input has the wrong type");
    }
    in[i] = inputs[i]->array().data();
  }
  return in;
}

void EnsureProgramCopies(FusedGroup& group, int64_t copies) {
  while (static_cast<int64_t>(group.clones.size()) + 1 < copies) {
    group.clones.push_back(group.program->Clone());
  }
}

namespace {

// A row program's group: its other outputs' arrays in `outputs`.
absl::StatusOr<Value> RunRowProgramGroup(const FusedGroup& group,
                                         absl::Span<const Value* const> inputs,
                                         const std::vector<bool>& reusable,
                                         absl::InlinedVector<Value, 4>* outputs) {
  absl::InlinedVector<const Shape*, 4> shapes;
  for (const Instruction* o : group.outputs) shapes.push_back(&o->shape());
  if (outputs == nullptr && !shapes.empty()) {
    return absl::InternalError("a row program's outputs have no place");
  }
  absl::InlinedVector<Value, 4> none;
  return RunRowProgram(*group.row_program, group.root->shape(), inputs, reusable, shapes,
                       outputs != nullptr ? outputs : &none);
}

}  // namespace

absl::StatusOr<Value> RunFusedGroup(FusedGroup& group, absl::Span<const Value* const> inputs,
                                    const std::vector<bool>& reusable,
                                    absl::InlinedVector<Value, 4>* outputs) {
  if (group.row_op) return RunRowBroadcastOp(*group.row_op, group.root->shape(), inputs, reusable);
  if (group.softmax) return RunRowSoftmax(*group.softmax, group.root->shape(), inputs, reusable);
  if (group.gelu) return RunGeluTanh(*group.gelu, group.root->shape(), inputs, reusable);
  if (group.row_program) return RunRowProgramGroup(group, inputs, reusable, outputs);
  BatchProgram& program = *group.program;
  const Shape& shape = group.root->shape();
  absl::StatusOr<std::vector<const void*>> in = GroupInputData(program, inputs);
  if (!in.ok()) return in.status();
  int64_t reuse = -1;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Literal& a = inputs[i]->array();
    if (reuse < 0 && reusable[i] && inputs[i]->unique() && !program.parameter_is_scalar(i) &&
        !program.parameter_is_broadcast(static_cast<int64_t>(i)) &&
        a.element_type() == shape.element_type() && a.element_count() > 0) {
      reuse = static_cast<int64_t>(i);
    }
  }
  // Each block's inputs are read before its output is written, so the
  // result may take over an input's buffer.
  Value result;
  if (reuse >= 0) {
    result = *inputs[reuse];
  } else {
    absl::StatusOr<Value> fresh = NewArrayUninitialized(shape);
    if (!fresh.ok()) return fresh.status();
    result = *std::move(fresh);
  }
  // Pieces of at least kMinPieceElements positions, whole blocks, at most
  // kPiecesPerCore per core; each core runs a run of pieces of its own
  // first, then takes those another core has not reached (ParallelItems),
  // on its own program copy (a program's registers are its own). On these
  // VMs one core often runs slower than the other for a while: eltwise's
  // two halves took 14.6 and 21.6 ms, the faster core idle for the
  // difference.
  constexpr int64_t kMinPieceElements = 64 * BatchProgram::kBlock;
  constexpr int64_t kPiecesPerCore = 8;
  const int64_t n = shape.ElementCount();
  const int64_t blocks = (n + BatchProgram::kBlock - 1) / BatchProgram::kBlock;
  const int64_t cores = CoreCount();  // (cached: hardware_concurrency reads sysfs)
  const int64_t pieces = std::clamp<int64_t>(blocks / (kMinPieceElements / BatchProgram::kBlock), 1,
                                             kPiecesPerCore * cores);
  const int64_t piece_blocks = (blocks + pieces - 1) / pieces;
  EnsureProgramCopies(group, cores);
  // The other outputs get buffers of their own: the loop writes them in
  // the middle of a block, where an input's buffer may still be read.
  absl::InlinedVector<void*, 4> outs = {result.mutable_array().data()};
  if (outputs != nullptr) outputs->clear();
  for (const Instruction* o : group.outputs) {
    absl::StatusOr<Value> fresh = NewArrayUninitialized(o->shape());
    if (!fresh.ok()) return fresh.status();
    outs.push_back(fresh->mutable_array().data());
    if (outputs != nullptr) outputs->push_back(*std::move(fresh));
  }
  if (outs.size() != static_cast<size_t>(program.result_count()) ||
      (outputs == nullptr && !group.outputs.empty())) {
    return absl::InternalError("a fused group's outputs do not match its program");
  }
  int64_t out_bytes = 0;
  for (int64_t r = 0; r < program.result_count(); ++r)
    out_bytes += n * ByteWidth(program.result_type(r));
  const bool stream = out_bytes >= kStreamStoreBytes;
  const int64_t parts = std::min(cores, pieces);
  std::mutex failure_mu;
  absl::Status failure;
  ParallelItems(parts, pieces, [&](int64_t part, int64_t piece) {
    BatchProgram& p = part == 0 ? program : *group.clones[part - 1];
    const int64_t begin = piece * piece_blocks * BatchProgram::kBlock;
    const int64_t end = std::min(n, (piece + 1) * piece_blocks * BatchProgram::kBlock);
    if (begin >= end) return;
    absl::Status st = p.Run(*in, outs, end - begin, begin, stream);
    if (!st.ok()) {
      std::lock_guard<std::mutex> lock(failure_mu);
      failure = st;
    }
  });
  if (!failure.ok()) return failure;
  return result;
}

}  // namespace hlo

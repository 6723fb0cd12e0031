// Dead loop state, as XLA's WhileLoopSimplifier removes it: element j of a
// tuple loop state is live when the while's users read it, the condition
// reads it, or the body reads it to compute a live element. Dead elements
// are dropped from the state shape, the init, the body (its root tuple, and
// the instructions only they needed) and the condition. Only when:
//  * every user of the while, and of the condition's and body's parameter,
//    is a get-tuple-element (so reads are known by index), and the while is
//    not its computation's root;
//  * the body's root is a tuple with no other user;
//  * the condition and body are called by this while alone, and have no
//    control dependencies;
//  * at least one element stays live.
#include "passes/while_loop_dead_state.h"

#include <memory>
#include <vector>

#include "passes/control_flow_util.h"

namespace hlo {
namespace {

// Whether every user of `inst` is a get-tuple-element of an element below
// n (an index past the state, in a module run unverified, leaves it alone).
bool AllUsersGte(const Instruction* inst, int64_t n) {
  for (const Instruction* u : inst->users()) {
    if (u->opcode() != Opcode::kGetTupleElement) return false;
    const int64_t k = u->GetInt(AttrKind::kIndex, -1);
    if (k < 0 || k >= n) return false;
  }
  return true;
}

// The tuple shape keeping only elements with keep[j].
const Shape* Kept(Module& module, const Shape& shape, const std::vector<bool>& keep) {
  std::vector<const Shape*> elements;
  for (int64_t j = 0; j < shape.tuple_size(); ++j) {
    if (keep[j]) elements.push_back(shape.tuple_shapes()[j]);
  }
  return module.Intern(Shape::Tuple(std::move(elements)));
}

// Marks live the elements the body needs to compute the live ones.
void PropagateLiveness(const Computation& body, std::vector<bool>& live) {
  const Instruction* param = body.parameter(0);
  const Instruction* root = body.root();
  absl::flat_hash_set<const Instruction*> seen;
  std::vector<const Instruction*> work;
  for (size_t j = 0; j < live.size(); ++j) {
    if (live[j]) work.push_back(root->operand(static_cast<int64_t>(j)));
  }
  while (!work.empty()) {
    const Instruction* x = work.back();
    work.pop_back();
    if (!seen.insert(x).second) continue;
    if (x->opcode() == Opcode::kGetTupleElement && x->operand(0) == param) {
      const int64_t k = x->GetInt(AttrKind::kIndex);
      if (!live[k]) {
        live[k] = true;
        work.push_back(root->operand(k));
      }
      continue;
    }
    for (const Instruction* op : x->operands()) work.push_back(op);
  }
}

Instruction* Add(Module& module, Computation& comp, Opcode opcode, const Shape* shape,
                 std::vector<Instruction*> operands) {
  auto inst = std::make_unique<Instruction>(opcode, module.UniqueName(OpcodeName(opcode)), shape);
  for (Instruction* op : operands) inst->AppendOperand(op);
  return comp.AddInstruction(std::move(inst));
}

// Renumbers the get-tuple-elements reading `inst` through `index`.
void Renumber(const Instruction* inst, const std::vector<int64_t>& index) {
  for (Instruction* u : inst->users()) {
    u->SetAttr(AttrKind::kIndex, index[u->GetInt(AttrKind::kIndex)]);
  }
}

// Gives the body a root tuple of the live elements and removes what only
// the dead ones needed.
void ShrinkBody(Module& module, Computation& body, const std::vector<bool>& live,
                const std::vector<int64_t>& index) {
  Instruction* old_root = body.root();
  std::vector<Instruction*> kept;
  for (size_t j = 0; j < live.size(); ++j) {
    if (live[j]) kept.push_back(old_root->operand(static_cast<int64_t>(j)));
  }
  body.set_root(Add(module, body, Opcode::kTuple, Kept(module, old_root->shape(), live), kept));
  absl::flat_hash_set<const Instruction*> reachable;
  std::vector<const Instruction*> work = {body.root()};
  while (!work.empty()) {
    const Instruction* x = work.back();
    work.pop_back();
    if (!reachable.insert(x).second) continue;
    for (const Instruction* op : x->operands()) work.push_back(op);
  }
  absl::flat_hash_set<const Instruction*> unused;
  for (const auto& inst : body.instructions()) {
    if (!reachable.contains(inst.get()) && inst->opcode() != Opcode::kParameter) {
      unused.insert(inst.get());
    }
  }
  body.RemoveInstructions(unused);
  Instruction* param = body.parameter(0);
  param->set_shape(Kept(module, param->shape(), live));
  Renumber(param, index);
}

}  // namespace

absl::flat_hash_map<const Computation*, int> CallCounts(const Module& module) {
  absl::flat_hash_map<const Computation*, int> counts;
  for (const auto& comp : module.computations()) {
    for (const auto& inst : comp->instructions()) {
      for (const Computation* c : inst->called_computations()) ++counts[c];
    }
  }
  return counts;
}

bool RemoveDeadLoopState(Module& module, Computation& comp, Instruction* loop,
                         const absl::flat_hash_map<const Computation*, int>& calls,
                         absl::flat_hash_set<const Instruction*>& dead) {
  const Shape& shape = loop->shape();
  if (!shape.IsTuple() || loop == comp.root() || !AllUsersGte(loop, shape.tuple_size())) {
    return false;
  }
  const std::vector<Computation*> c = ComputationsOf(loop, AttrKind::kCondition);
  const std::vector<Computation*> b = ComputationsOf(loop, AttrKind::kBody);
  Computation* cond = c[0];
  Computation* body = b[0];
  auto count = [&](const Computation* x) {
    auto it = calls.find(x);
    return it == calls.end() ? 0 : it->second;
  };
  if (cond == body || count(cond) != 1 || count(body) != 1) return false;
  const int64_t n = shape.tuple_size();
  Instruction* root = body->root();
  const Shape& init_shape = loop->operand(0)->shape();
  if (root->opcode() != Opcode::kTuple || root->operand_count() != n || !root->users().empty() ||
      !init_shape.IsTuple() || init_shape.tuple_size() != n ||
      !AllUsersGte(body->parameter(0), n) || !AllUsersGte(cond->parameter(0), n) ||
      !ControlRelated(*body).empty() || !ControlRelated(*cond).empty()) {
    return false;
  }
  std::vector<bool> live(n, false);
  for (const Instruction* u : loop->users()) live[u->GetInt(AttrKind::kIndex)] = true;
  for (const Instruction* u : cond->parameter(0)->users()) live[u->GetInt(AttrKind::kIndex)] = true;
  PropagateLiveness(*body, live);
  std::vector<int64_t> index(n, -1);
  int64_t kept = 0;
  for (int64_t j = 0; j < n; ++j) {
    if (live[j]) index[j] = kept++;
  }
  if (kept == n || kept == 0) return false;

  ShrinkBody(module, *body, live, index);
  Instruction* cparam = cond->parameter(0);
  cparam->set_shape(Kept(module, cparam->shape(), live));
  Renumber(cparam, index);

  Instruction* init = loop->operand(0);
  std::vector<Instruction*> elements;
  for (int64_t j = 0; j < n; ++j) {
    if (!live[j]) continue;
    if (init->opcode() == Opcode::kTuple) {
      elements.push_back(init->operand(j));
    } else {
      Instruction* g =
          Add(module, comp, Opcode::kGetTupleElement, init->shape().tuple_shapes()[j], {init});
      g->SetAttr(AttrKind::kIndex, j);
      elements.push_back(g);
    }
  }
  const Shape* new_shape = Kept(module, shape, live);
  loop->ReplaceOperand(
      0, Add(module, comp, Opcode::kTuple, Kept(module, init->shape(), live), elements));
  loop->set_shape(new_shape);
  Renumber(loop, index);
  if (init->users().empty() && init != comp.root() && init->opcode() == Opcode::kTuple) {
    dead.insert(init);
  }
  return true;
}

}  // namespace hlo

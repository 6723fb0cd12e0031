// Factories of the passes in the registry (passes/pipeline.cc); each pass
// lives in its own file.
#ifndef HLO_PASSES_PASSES_H_
#define HLO_PASSES_PASSES_H_

#include <functional>
#include <memory>

#include "passes/pass.h"

namespace hlo {

std::unique_ptr<Pass> CreateDeadCodeElimination();  // dce: dead_code_elimination.cc
std::unique_ptr<Pass>
CreateCommonSubexpressionElimination();         // cse: common_subexpression_elimination.cc
std::unique_ptr<Pass> CreateCallInliner();      // call-inliner: call_inliner.cc
std::unique_ptr<Pass> CreateTupleSimplifier();  // tuple-simplifier: tuple_simplifier.cc
std::unique_ptr<Pass> CreateConstantFolding();  // constant-folding: constant_folding.cc
std::unique_ptr<Pass>
CreateWhileLoopSimplifier();  // while-loop-simplifier: while_loop_simplifier.cc
std::unique_ptr<Pass>
CreateConditionalSimplifier();  // conditional-simplifier: conditional_simplifier.cc
std::unique_ptr<Pass> CreateAlgebraicSimplifier();  // algsimp: algebraic_simplifier.cc
std::unique_ptr<Pass> CreateLayoutAssignment();     // layout-assignment: layout_assignment.cc
std::unique_ptr<Pass> CreateLayoutNormalization();  // layout-normalization: layout_normalization.cc
std::unique_ptr<Pass> CreateTransposeFolding();     // transpose-folding: transpose_folding.cc
std::unique_ptr<Pass> CreateReshapeMover();         // reshape-mover: reshape_mover.cc
std::unique_ptr<Pass> CreateWidenFloats();          // widen-floats: widen_floats.cc
std::unique_ptr<Pass>
CreateDotAlgorithmRewriter();             // dot-algorithm-rewriter: dot_algorithm_rewriter.cc
std::unique_ptr<Pass> CreateFusionCse();  // fusion-cse: fusion_cse.cc (hlo-run runs it)
std::unique_ptr<Pass> CreateDefuser();    // defuser: defuser.cc
// select-and-scatter-rebuild (select_and_scatter_rebuild.cc): hlo-run's
// fused mode runs it; not in the registry.
std::unique_ptr<Pass> CreateSelectAndScatterRebuild();
// call-inliner as hlo-run's fused mode runs it (the registry's inlines every
// call it can, under fresh names).
struct CallInlinerOptions {
  // A callee that only the call calls keeps its instructions' names in the
  // caller (it is removed after): profiles and errors name what the file says.
  bool keep_names = false;
  // Calls stay whose copies could compute something else in hlo-run: callees
  // with side effects (the rng state's order, channel ids, feeds), and
  // callees holding elided constants where the copies take fresh names
  // (hlo-run makes such a constant's values from its name).
  bool same_results_only = false;
};
std::unique_ptr<Pass> CreateCallInliner(CallInlinerOptions options);
// defuser as hlo-run's fused mode runs it (the registry's defuses every
// fusion, under fresh names).
struct DefuserOptions {
  // At least 0: only the loop fusions of more elements than this whose
  // every user is a reduce fusion, and those users, and only where every
  // op in them is one the executor's fused groups run (elementwise ops,
  // broadcasts, reduces, bitcasts, reshapes, known constants).
  int64_t reduce_producers_over = -1;
  // Copies keep their instructions' names where the computation has none
  // of that name (profiles and errors name what the file says).
  bool keep_names = false;
  // When set (hlo-run: whether the executor runs a fusion as one compiled
  // loop or program): also the kLoop fusions of two ops or more it does not,
  // which run instruction by instruction either way; defused, cse merges
  // what sibling fusions recompute (XLA's GPT-2 adds the qkv bias over all
  // 2304 columns in each of the q, k and v fusions) and the executor's own
  // groups take their elementwise ops. Also then: fusions of one dot that
  // read a transpose, or a copy of one (XLA:CPU's ynn fusions after its
  // q, k and v transposes), which the executor folds into the dot.
  std::function<bool(const Instruction&)> runs_as_one_loop;
  // When set (hlo-run, with runs_as_one_loop): fusions of any kind that
  // hold part of a form the executor runs as one group but XLA splits over
  // several fusions (a softmax's max and exp, sum, reciprocal and product).
  std::function<bool(const Instruction&)> joins_pattern;
  // With runs_as_one_loop: also loop fusions that compute inner values a
  // sibling fusion computes too (passes/fusion_sharing.h), and those
  // siblings; defused, cse computes the shared values once.
  bool defuse_sharing_siblings = false;
};
std::unique_ptr<Pass> CreateDefuser(DefuserOptions options);
// round-dot-operands (round_dot_operands.cc): hlo-run --dot-default-precision;
// not in the registry (it takes the mantissa width).
std::unique_ptr<Pass> CreateRoundDotOperands(int mantissa_bits);

}  // namespace hlo

#endif  // HLO_PASSES_PASSES_H_

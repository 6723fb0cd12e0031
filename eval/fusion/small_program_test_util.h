// Test helpers of the small programs' tests: random arguments for a
// module's entry, a fusion's arguments taken from them, and a fusion run
// as a small program against its computation run instruction by
// instruction on the evaluator's kernels.
#ifndef HLO_EVAL_FUSION_SMALL_PROGRAM_TEST_UTIL_H_
#define HLO_EVAL_FUSION_SMALL_PROGRAM_TEST_UTIL_H_

#include <catch2/catch.hpp>
#include <memory>
#include <vector>

#include "eval/denormals.h"
#include "eval/eval_test_util.h"
#include "eval/evaluator.h"
#include "eval/fusion/small_fusion.h"
#include "eval/fusion/small_program.h"
#include "eval/io/random_fill.h"

namespace hlo {

inline std::vector<Value> RandomArguments(const Module& m, uint64_t seed) {
  std::vector<Value> args;
  const Computation& entry = *m.entry();
  for (int64_t i = 0; i < entry.parameter_count(); ++i) {
    absl::StatusOr<Literal> lit = RandomLiteral(entry.parameter(i)->shape(), seed, i);
    REQUIRE(lit.ok());
    args.push_back(Value::FromLiteral(*std::move(lit)));
  }
  return args;
}

// Fusion f's operands (entry parameters) among the entry's arguments.
inline std::vector<Value> ArgumentsOf(const Instruction& f, const std::vector<Value>& entry_args) {
  std::vector<Value> args;
  for (int64_t i = 0; i < f.operand_count(); ++i) {
    args.push_back(entry_args[f.operand(i)->parameter_number()]);
  }
  return args;
}

// Fusion f as a small program and its computation instruction by
// instruction on the evaluator's kernels (fast paths on, fusion off), on
// `args`, both under `flush`: the same bytes, twice (the second run on the
// program's reused buffers).
inline void AgreeWithKernels(Module& m, const Instruction& f, const std::vector<Value>& args,
                             bool flush) {
  ScopedFlushDenormals mode(flush);
  std::unique_ptr<SmallProgram> program = CompileSmallFusion(f, flush);
  REQUIRE(program != nullptr);
  REQUIRE(SmallFusionFits(f, args));
  EvalOptions options;
  options.flush_denormals = flush;
  options.fusion = false;
  const Value plain = CallFused(m, f, args, options);
  Evaluator kernels(m, options);
  for (int run = 0; run < 2; ++run) {
    absl::StatusOr<Value> fast = RunSmallFusion(*program, f, args, kernels.KernelRunner());
    REQUIRE(fast.ok());
    CheckSameBytes(*fast, plain);
  }
}

}  // namespace hlo

#endif  // HLO_EVAL_FUSION_SMALL_PROGRAM_TEST_UTIL_H_

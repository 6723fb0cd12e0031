// Test helpers of the executor's tests: the integer binary ops' names, a
// module parsed (the test fails with the parser's message otherwise), an
// entry instruction found by name,
// a fusion's computation run instruction by instruction, two values (arrays, or tuples of them)
// holding the same bytes, a module giving the same bytes with fusion on and off, and with fast
// paths on and off.
#ifndef HLO_EVAL_EVAL_TEST_UTIL_H_
#define HLO_EVAL_EVAL_TEST_UTIL_H_

#include <catch2/catch.hpp>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "eval/evaluator.h"
#include "eval/value.h"
#include "ir/computation.h"
#include "parser/parse_test_util.h"

namespace hlo {

// The integer binary ops' names in HLO text (what the raw integer steps
// run, mulhi aside).
inline constexpr const char* kIntegerBinaryOps[] = {"add",
                                                    "subtract",
                                                    "multiply",
                                                    "divide",
                                                    "remainder",
                                                    "power",
                                                    "maximum",
                                                    "minimum",
                                                    "and",
                                                    "or",
                                                    "xor",
                                                    "shift-left",
                                                    "shift-right-logical",
                                                    "shift-right-arithmetic"};

inline const Instruction& EntryInstruction(const Module& m, std::string_view name) {
  for (const auto& inst : m.entry()->instructions()) {
    if (inst->name() == name) return *inst;
  }
  FAIL("no instruction " << name);
  return *m.entry()->root();
}

// Fusion `f`'s computation called on `args` instruction by instruction,
// each through its own kernel, under `options` (fusion off for the
// reference of a fused path).
inline Value CallFused(Module& m, const Instruction& f, const std::vector<Value>& args,
                       const EvalOptions& options) {
  Evaluator ev(m, options);
  std::vector<const Value*> ptrs;
  for (const Value& v : args) ptrs.push_back(&v);
  absl::StatusOr<Value> r = ev.Call(*f.to_apply(), ptrs);
  REQUIRE(r.ok());
  return *std::move(r);
}

inline void CheckSameBytes(const Value& a, const Value& b) {
  REQUIRE(a.is_tuple() == b.is_tuple());
  if (a.is_tuple()) {
    REQUIRE(a.elements().size() == b.elements().size());
    for (size_t k = 0; k < a.elements().size(); ++k) {
      CheckSameBytes(a.elements()[k], b.elements()[k]);
    }
    return;
  }
  REQUIRE(a.array().shape() == b.array().shape());
  CHECK(std::memcmp(a.array().data(), b.array().data(), a.array().size_bytes()) == 0);
}

// `m` run on `args` with fusion on and off (hlo-run --no-fusion, the
// reference the fused groups are held to), under --denormals=flush where
// `flush`: the same bytes, twice (the second run on reused buffers).
inline void CheckFusionKeepsBytes(Module& m, const std::vector<Value>& args, bool flush) {
  EvalOptions fused_options, unfused_options;
  fused_options.flush_denormals = unfused_options.flush_denormals = flush;
  unfused_options.fusion = false;
  Evaluator fused(m, fused_options);
  Evaluator unfused(m, unfused_options);
  for (int run = 0; run < 2; ++run) {
    auto a = fused.Run(args);
    auto b = unfused.Run(args);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    CheckSameBytes(*a, *b);
  }
}

// `m` run on `args` with fast paths on and off (hlo-run --no-fast-paths,
// the reference the specialised paths are held to), under
// --denormals=flush where `flush`: the same bytes.
inline void CheckFastPathsKeepBytes(Module& m, const std::vector<Value>& args, bool flush = false) {
  EvalOptions fast_options, slow_options;
  fast_options.flush_denormals = slow_options.flush_denormals = flush;
  slow_options.fast_paths = false;
  Evaluator fast(m, fast_options);
  Evaluator slow(m, slow_options);
  auto a = fast.Run(args);
  auto b = slow.Run(args);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CheckSameBytes(*a, *b);
}

}  // namespace hlo

#endif  // HLO_EVAL_EVAL_TEST_UTIL_H_

// Test helpers of the executor's tests: a module parsed (the test fails
// with the parser's message otherwise), an entry instruction found by name,
// two values (arrays, or tuples of them) holding the same bytes.
#ifndef HLO_EVAL_EVAL_TEST_UTIL_H_
#define HLO_EVAL_EVAL_TEST_UTIL_H_

#include <catch2/catch.hpp>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "eval/value.h"
#include "ir/computation.h"
#include "parser/parse_test_util.h"

namespace hlo {

inline const Instruction& EntryInstruction(const Module& m, std::string_view name) {
  for (const auto& inst : m.entry()->instructions()) {
    if (inst->name() == name) return *inst;
  }
  FAIL("no instruction " << name);
  return *m.entry()->root();
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

}  // namespace hlo

#endif  // HLO_EVAL_EVAL_TEST_UTIL_H_

// Integer and pred scalars computed in place of their kernels. XLA's while
// loops are scalar instruction after scalar instruction: loop counters,
// index arithmetic, LU's pivot bookkeeping, a PRNG's counters. Through the
// elementwise kernel each paid its operand checks, an attribute lookup and
// the dispatch to a vector loop for one element; here the plan decides the
// operation once (ScalarIntOpOf) and a step is a load, an operation on 64
// bits and a store. Results are the kernels' (elementwise_binary.cc's
// integer rules: wrapping, shift amounts read unsigned in the type's
// width), which a unit test checks op by op and type by type.
#ifndef HLO_EVAL_INTERP_SCALAR_INT_H_
#define HLO_EVAL_INTERP_SCALAR_INT_H_

#include <cstdint>
#include <optional>

#include "absl/types/span.h"
#include "eval/value.h"
#include "ir/instruction.h"
#include "ir/shape.h"

namespace hlo {

struct ScalarIntOp {
  enum class Kind : uint8_t {
    kAdd,
    kSubtract,
    kMultiply,
    kDivide,
    kRemainder,
    kAnd,
    kOr,
    kXor,
    kMaximum,
    kMinimum,
    kShiftLeft,
    kShiftRightLogical,
    kShiftRightArithmetic,
    kNot,
    kNegate,
    kEq,
    kNe,
    kLt,
    kLe,
    kGt,
    kGe,  // compare
    kSelect,
    kConvert,
  };
  Kind kind = Kind::kAdd;
  PrimitiveType in = PrimitiveType::kPred;   // the operands' type (select: the chosen ones')
  PrimitiveType out = PrimitiveType::kPred;  // the result's
  bool signed_order = false;                 // compare: signed (its type attribute's choice)
};

// The operation `inst` is, where it is one of the above on rank-0 arrays of
// pred or of an 8- to 64-bit integer type, with attributes the kernel
// accepts; nullopt otherwise (it runs through its kernel).
std::optional<ScalarIntOp> ScalarIntOpOf(const Instruction& inst);

// A rank-0 array of pred or an 8- to 64-bit integer type t as 64 bits:
// sign-extended for signed types, zero-extended for the others. False
// when the value is not such a scalar of t.
bool LoadScalarBits(const Value* v, PrimitiveType t, uint64_t& x);

// The result (a rank-0 array of `shape`) of `op` on the operands' values;
// nullopt where a value is not the scalar its operand should be (the kernel
// then says what is wrong).
std::optional<Value> RunScalarInt(const ScalarIntOp& op, const Shape& shape,
                                  absl::Span<const Value* const> ops);

}  // namespace hlo

#endif  // HLO_EVAL_INTERP_SCALAR_INT_H_

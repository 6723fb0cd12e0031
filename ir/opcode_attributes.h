// Which attributes each opcode takes, and which of them are required: the
// parser's "allowed attributes are …" errors and the verifier both use it.
#ifndef HLO_IR_OPCODE_ATTRIBUTES_H_
#define HLO_IR_OPCODE_ATTRIBUTES_H_

#include "absl/types/span.h"
#include "ir/attribute.h"
#include "ir/opcode.h"

namespace hlo {

struct AttrRule {
  AttrKind kind;
  bool required;
};

// The opcode's own attributes (the common ones are not listed).
absl::Span<const AttrRule> OpcodeAttrRules(Opcode opcode);
// Attributes every instruction may carry: metadata, sharding,
// frontend_attributes, backend_config, control-predecessors, statistics, …
bool IsCommonAttr(AttrKind kind);
bool IsAllowedAttr(Opcode opcode, AttrKind kind);
// Whether an instruction of `opcode` can have side effects: its own
// (HasSideEffect) or those of a computation it calls (one of its attributes
// names computations). False lets a whole computation be known free of side
// effects from a count, without reading it.
bool MayHaveSideEffects(Opcode opcode);
// Position of an attribute in XLA's printing order for the opcode: the
// opcode's own attributes in table order, then sharding,
// frontend_attributes, control-predecessors, statistics, result_accuracy,
// origin, metadata, backend_config.
int CanonicalAttrRank(Opcode opcode, AttrKind kind);

}  // namespace hlo

#endif  // HLO_IR_OPCODE_ATTRIBUTES_H_

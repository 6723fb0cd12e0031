// Storage for Instructions. They are the IR's most numerous objects (a
// million in a large dump), so they come from slabs: each costs its size and
// no malloc header, and instructions made together sit together in memory.
// Freed slots are reused; slabs live until the process ends. Under
// AddressSanitizer the pool steps aside so use-after-free is still caught.
#ifndef HLO_IR_INSTRUCTION_POOL_H_
#define HLO_IR_INSTRUCTION_POOL_H_

#include <cstddef>

namespace hlo {

// A slot of `size` bytes (sizeof(Instruction) or less; else plain new).
void* AllocateInstructionSlot(size_t size);
void FreeInstructionSlot(void* slot, size_t size);

}  // namespace hlo

#endif  // HLO_IR_INSTRUCTION_POOL_H_

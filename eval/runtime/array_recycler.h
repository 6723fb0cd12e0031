// Small result arrays kept for reuse. Programs of many small instructions
// (loop counters, PRNG rounds, scan steps) spent a fifth of their time
// allocating and freeing result literals; the executor hands each array
// that dies unshared to this thread's bin, and the next result of the same
// element type and dimensions takes it instead of a fresh allocation.
#ifndef HLO_EVAL_RUNTIME_ARRAY_RECYCLER_H_
#define HLO_EVAL_RUNTIME_ARRAY_RECYCLER_H_

#include <memory>

#include "eval/value.h"
#include "ir/literal.h"
#include "ir/shape.h"

namespace hlo {

// Arrays of at most this many bytes are kept.
inline constexpr size_t kMaxRecycledBytes = 16 << 10;

// Empties `value`; its array goes to this thread's bin when nothing else
// holds it and it is small, else it is freed as usual.
void RecycleArray(Value& value);
// An array of `shape` (static, no layout needed) from this thread's bin,
// its elements as the last user left them; null when the bin has none.
std::shared_ptr<Literal> ReuseArray(const Shape& shape);

}  // namespace hlo

#endif  // HLO_EVAL_RUNTIME_ARRAY_RECYCLER_H_

// `hlo-run --denormals=flush`: XLA:CPU's flush-to-zero. XLA:CPU runs its
// code with MXCSR's FTZ and DAZ bits set, so every SSE/AVX arithmetic
// instruction reads a denormal f32/f64 input as a zero of the same sign and
// writes a zero of the same sign instead of a denormal result; instructions
// that only move bits (and, xor, blends, loads, stores) and conversions done
// in integer arithmetic keep denormals as they are. Hence, per op:
//
// * flushed (operands read as zero, results written as zero): arithmetic,
//   maximum/minimum, clamp, compare, sign, the transcendental functions,
//   remainder, power, atan2, rounding, sqrt, convert between f32, f64, c64
//   and c128, dot, convolution, reductions and everything else computed
//   with float instructions;
// * kept: negate and abs (xor/and of the sign bit), select, real, imag,
//   complex, bitcast-convert, reduce-precision (integer arithmetic in XLA),
//   convert to or from bf16, f16 and the f8 types (integer rounding: XLA
//   gives convert(bf16(1e-40)) = 9.18e-41), data movement, sort's moves;
// * f16 and the f8/f4 types have no denormals in f32, the type XLA:CPU
//   computes them in, so their own denormals are never flushed; bf16 has
//   f32's exponent range, so its denormals are f32 denormals and flush.
//
// (The elementwise kernel's flush, EvalElementwiseFlushingDenormals, and
// that of the typed reduction loops, FlushFastReductionResult, are in
// eval/kernels/kernels.h.)
//
// hlo-run applies both halves: MXCSR's bits on every evaluating thread
// (replica threads, worker threads and OpenBLAS's threads inherit them), and
// an explicit flush of the elementwise ops' float operands and results, so
// that the answer does not depend on whether a kernel reaches the hardware
// through SSE, x87 (long double), libm's integer paths or bit tricks.
#ifndef HLO_EVAL_DENORMALS_H_
#define HLO_EVAL_DENORMALS_H_

#include "eval/value.h"
#include "ir/instruction.h"
#include "ir/literal.h"

namespace hlo {

// Restarts OpenBLAS's worker threads with MXCSR's FTZ and DAZ bits set
// (flush) or clear (keep): they were started when the library was loaded.
// The calling thread's own bits are left as they were, so that reading
// inputs and printing results stay IEEE; the evaluator sets them on its
// threads while it runs (ScopedFlushDenormals).
void SetBlasDenormalMode(bool flush);

// Sets MXCSR's FTZ and DAZ bits on this thread while it lives (nothing when
// `flush` is false); restores the previous bits after.
class ScopedFlushDenormals {
 public:
  explicit ScopedFlushDenormals(bool flush);
  ~ScopedFlushDenormals();
  ScopedFlushDenormals(const ScopedFlushDenormals&) = delete;
  ScopedFlushDenormals& operator=(const ScopedFlushDenormals&) = delete;

 private:
  bool active_ = false;
  unsigned saved_ = 0;
};

// Whether this thread's MXCSR flushes denormal results to zero (FTZ): a
// sum can then be -0 (a negative denormal result flushed).
bool FlushesDenormalResults();

// Whether XLA:CPU's arithmetic flushes denormals of this element type: f32,
// f64, bf16, c64, c128.
bool HasFlushedDenormals(PrimitiveType t);

// Whether this elementwise instruction flushes its float operands and
// results (see above).
bool ElementwiseFlushesDenormals(const Instruction& inst);

// Whether this thread's f32/f64 exp kernel of type `t` returns its
// subnormal results as +0 itself (f32 under MXCSR's FTZ: see
// eval/interp/elementwise_float.cc), so that no explicit flush is needed.
bool ExpFlushesItself(PrimitiveType t);
// The same for tanh: f32 tanh's kernels flush their subnormal results under
// FTZ (eval/interp/elementwise_float.cc). Its operands need no flush
// either: tanh of a subnormal is that subnormal or a zero of its sign (|tanh
// x| <= |x|), flushed to the zero tanh(±0) gives.
bool TanhFlushesItself(PrimitiveType t);

// Whether this thread's MXCSR (DAZ and FTZ set) already gives this op's
// result flushed, its f32/f64 kernel being plain SSE arithmetic (add,
// subtract, multiply, divide) or an IEEE-order compare, or f32 exp or
// tanh, whose kernels flush their subnormal results themselves (and for
// which a denormal operand and a zero give the same flushed result): the
// explicit flush can be skipped.
bool HardwareFlushes(const Instruction& inst);
// Whether the explicit flush of the operands can be skipped (the result's
// still applies unless HardwareFlushes): HardwareFlushes, or f32/f64
// maximum and minimum, which choose by compares that read denormals as zero.
bool HardwareReadsFlushed(const Instruction& inst);

// Replaces every denormal element (each part of a complex one) by a zero of
// the same sign; nothing for types without flushed denormals. Returns
// whether anything changed.
bool FlushDenormalsInPlace(Literal& lit);
// The same on n elements of a raw f32/f64 array (other types: nothing).
bool FlushDenormalsInPlace(PrimitiveType type, void* data, int64_t n);
bool ContainsDenormals(const Literal& lit);

}  // namespace hlo

#endif  // HLO_EVAL_DENORMALS_H_

#include "eval/denormals.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#if defined(__x86_64__) || defined(__SSE__)
#include <xmmintrin.h>
#define HLO_HAVE_MXCSR 1
#endif

#include "eval/blas_api.h"
#include "eval/vector_clones.h"
#include "ir/compare_order.h"

namespace hlo {
namespace {

using PT = PrimitiveType;

#ifdef HLO_HAVE_MXCSR
constexpr unsigned kFtzDaz = 0x8040;  // MXCSR bit 15 (FTZ) and bit 6 (DAZ)
#endif

// Elements of width U whose bits without the sign lie in [1, kMantissa]
// (exponent all zero, mantissa not): denormals. As one unsigned compare,
// (bits & kAbs) - 1 < kMantissa, so that the loops vectorise, at the
// machine's widest vectors (the scan runs on every flushed op's operands
// and result; with SSE2's four lanes it cost about as much as a tanh).
template <typename U, U kMantissa, U kAbs>
HLO_VECTOR_CLONES bool AnyDenormal(const U* p, int64_t n) {
  U found = 0;
  for (int64_t i = 0; i < n; ++i) {
    found |= static_cast<U>(static_cast<U>((p[i] & kAbs) - 1) < kMantissa);
  }
  return found != 0;
}

template <typename U, U kMantissa, U kAbs>
HLO_VECTOR_CLONES void FlushBlock(U* p, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const U bits = p[i];
    p[i] = static_cast<U>((bits & kAbs) - 1) < kMantissa ? static_cast<U>(bits & ~kAbs) : bits;
  }
}

// Flushes (or only finds, when `write` is false) the denormals among n
// values of width U. Every elementwise op under --denormals=flush scans its
// operands and result, and denormals are rare: the scan runs branch-free in
// blocks and writes only in a block that has one.
template <typename U, U kMantissa, U kAbs>
bool FlushBits(U* p, int64_t n, bool write) {
  constexpr int64_t kScanBlock = 512;
  bool any = false;
  for (int64_t b = 0; b < n; b += kScanBlock) {
    const int64_t e = std::min(n, b + kScanBlock);
    if (!AnyDenormal<U, kMantissa, kAbs>(p + b, e - b)) continue;
    any = true;
    if (!write) return true;
    FlushBlock<U, kMantissa, kAbs>(p + b, e - b);
  }
  return any;
}

bool Flush32(uint32_t* p, int64_t n, bool write) {
  return FlushBits<uint32_t, 0x007fffff, 0x7fffffff>(p, n, write);
}
bool Flush64(uint64_t* p, int64_t n, bool write) {
  return FlushBits<uint64_t, 0x000fffffffffffff, 0x7fffffffffffffff>(p, n, write);
}

bool Flush(Literal& lit, bool write) {
  const PT t = lit.element_type();
  const int64_t n = lit.element_count();
  switch (t) {
    case PT::kF32:
    case PT::kC64:
      return Flush32(reinterpret_cast<uint32_t*>(lit.data()), t == PT::kC64 ? 2 * n : n, write);
    case PT::kF64:
    case PT::kC128:
      return Flush64(reinterpret_cast<uint64_t*>(lit.data()), t == PT::kC128 ? 2 * n : n, write);
    case PT::kBF16:
      return FlushBits<uint16_t, 0x007f, 0x7fff>(reinterpret_cast<uint16_t*>(lit.data()), n, write);
    default:
      return false;
  }
}

// Float types XLA converts between with hardware conversions (cvtss2sd and
// the like, which flush); conversions to or from narrower floats are integer
// rounding in XLA and keep denormals.
bool IsWideFloat(PT t) { return t == PT::kF32 || t == PT::kF64 || t == PT::kC64 || t == PT::kC128; }

// Stops OpenBLAS's worker threads, keeping their number: its next threaded
// call starts them again from the calling thread, with that thread's MXCSR.
// (Before OpenBLAS is open there are none: its first call starts them.)
void RestartBlasThreads() {
  const int threads = blas::Threads();
  blas::StopThreads();
  blas::SetThreads(threads);
}

// Whether this thread's MXCSR has DAZ and FTZ set.
bool FlushingMxcsr() {
#ifdef HLO_HAVE_MXCSR
  return (_mm_getcsr() & kFtzDaz) == kFtzDaz;
#else
  return false;
#endif
}

bool IsF32OrF64(PT t) { return t == PT::kF32 || t == PT::kF64; }

// A compare of f32/f64 in IEEE (partial) order: its kernel is SSE compares
// (cmpps and the like), which read denormal operands as zero under DAZ,
// and its pred result has nothing to flush.
bool IsPartialOrderFloatCompare(const Instruction& inst) {
  return inst.opcode() == Opcode::kCompare && inst.operand_count() == 2 &&
         inst.operand(0)->shape().IsArray() &&
         IsF32OrF64(inst.operand(0)->shape().element_type()) && !ComparesFloatsInTotalOrder(inst);
}

}  // namespace

void SetBlasDenormalMode(bool flush) {
#ifdef HLO_HAVE_MXCSR
  const unsigned csr = _mm_getcsr();
  _mm_setcsr(flush ? (csr | kFtzDaz) : (csr & ~kFtzDaz));
#endif
  // New threads copy their creator's MXCSR. OpenBLAS's workers start again
  // now or at its next threaded call, made from an evaluating thread, which
  // has the bits too.
  RestartBlasThreads();
#ifdef HLO_HAVE_MXCSR
  _mm_setcsr(csr);
#endif
}

ScopedFlushDenormals::ScopedFlushDenormals(bool flush) {
#ifdef HLO_HAVE_MXCSR
  if (!flush) return;
  active_ = true;
  saved_ = _mm_getcsr();
  _mm_setcsr(saved_ | kFtzDaz);
#else
  (void)flush;
#endif
}

ScopedFlushDenormals::~ScopedFlushDenormals() {
#ifdef HLO_HAVE_MXCSR
  if (active_) _mm_setcsr(saved_);
#endif
}

bool FlushesDenormalResults() {
#ifdef HLO_HAVE_MXCSR
  return (_mm_getcsr() & _MM_FLUSH_ZERO_ON) != 0;
#else
  return false;
#endif
}

bool HasFlushedDenormals(PrimitiveType t) {
  return t == PT::kF32 || t == PT::kF64 || t == PT::kBF16 || t == PT::kC64 || t == PT::kC128;
}

bool ElementwiseFlushesDenormals(const Instruction& inst) {
  switch (inst.opcode()) {
    case Opcode::kNegate:
    case Opcode::kAbs:
    case Opcode::kSelect:
    case Opcode::kReal:
    case Opcode::kImag:
    case Opcode::kComplex:
    case Opcode::kBitcastConvert:
    case Opcode::kReducePrecision:
      return false;
    case Opcode::kConvert: {
      if (inst.operand_count() != 1 || !inst.operand(0)->shape().IsArray()) return false;
      const PT from = inst.operand(0)->shape().element_type();
      return IsWideFloat(from) && IsWideFloat(inst.shape().element_type());
    }
    default:
      return true;
  }
}

bool FlushDenormalsInPlace(Literal& lit) { return Flush(lit, /*write=*/true); }

bool ExpFlushesItself(PrimitiveType t) { return t == PT::kF32 && FlushesDenormalResults(); }
bool TanhFlushesItself(PrimitiveType t) { return t == PT::kF32 && FlushesDenormalResults(); }

// Ops whose f32/f64 kernels are plain SSE arithmetic (BinaryFloatKernel's
// loops, sqrtps) or compares: with MXCSR's DAZ and FTZ set, as they are on
// every evaluating thread under --denormals=flush, the hardware already
// reads denormal operands as zero and flushes the results, so the explicit
// scans (three passes over memory) are redundant. Also f32 exp: its kernel
// flushes the only results that can be subnormal (the lanes past the
// vector code's range, eval/interp/elementwise_float.cc), and a denormal
// operand gives exp(±0) = 1 either way (|x| < 2^-126 rounds e^x to 1).
// (The softmax exps' scans were a third of their time under flush.)
bool HardwareFlushes(const Instruction& inst) {
  if (!FlushingMxcsr()) return false;
  switch (inst.opcode()) {
    case Opcode::kExp:
      return inst.shape().IsArray() && ExpFlushesItself(inst.shape().element_type());
    case Opcode::kTanh:
      return inst.shape().IsArray() && TanhFlushesItself(inst.shape().element_type());
    case Opcode::kAdd:
    case Opcode::kSubtract:
    case Opcode::kMultiply:
    case Opcode::kDivide:
      return IsF32OrF64(inst.shape().element_type());
    case Opcode::kCompare:
      return IsPartialOrderFloatCompare(inst);
    default:
      return false;
  }
}

// maximum/minimum (MaxOf/MinOf) choose between their operands by SSE
// compares, which read denormals as zero under DAZ, and return the chosen
// operand's bits: flushing only the result gives MaxOf(flushed a, flushed
// b), the sign of a flushed zero being the denormal's.
bool HardwareReadsFlushed(const Instruction& inst) {
  if (HardwareFlushes(inst)) return true;
  if (!FlushingMxcsr()) return false;
  return (inst.opcode() == Opcode::kMaximum || inst.opcode() == Opcode::kMinimum) &&
         IsF32OrF64(inst.shape().element_type());
}

bool FlushDenormalsInPlace(PrimitiveType type, void* data, int64_t n) {
  switch (type) {
    case PT::kF32:
      return Flush32(static_cast<uint32_t*>(data), n, /*write=*/true);
    case PT::kF64:
      return Flush64(static_cast<uint64_t*>(data), n, /*write=*/true);
    default:
      return false;
  }
}

bool ContainsDenormals(const Literal& lit) {
  // Flush only reads when write is false.
  return Flush(const_cast<Literal&>(lit), /*write=*/false);
}

}  // namespace hlo

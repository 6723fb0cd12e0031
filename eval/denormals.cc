#include "eval/denormals.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#if defined(__x86_64__) || defined(__SSE__)
#include <xmmintrin.h>
#define HLO_HAVE_MXCSR 1
#endif

#include <cblas.h>

#include "ir/compare_order.h"

// OpenBLAS's own shutdown of its worker threads (exported, not in cblas.h);
// its next threaded call starts them again, from the calling thread.
extern "C" int blas_thread_shutdown_(void);

namespace hlo {
namespace {

using PT = PrimitiveType;

#ifdef HLO_HAVE_MXCSR
constexpr unsigned kFtzDaz = 0x8040;  // MXCSR bit 15 (FTZ) and bit 6 (DAZ)
#endif

// Element bits of width W: exponent all zero, mantissa not: a denormal.
template <typename U>
bool IsDenormalBits(U bits, U exponent_mask, U mantissa_mask) {
  return (bits & exponent_mask) == 0 && (bits & mantissa_mask) != 0;
}

// Flushes (or only finds, when `write` is false) the denormals among n
// values of width U. Every elementwise op under --denormals=flush scans its
// operands and result, and denormals are rare: the scan runs branch-free in
// blocks (so that it vectorises) and writes only in a block that has one.
template <typename U>
bool FlushBits(U* p, int64_t n, U exponent_mask, U mantissa_mask, bool write) {
  const U sign = static_cast<U>(~(exponent_mask | mantissa_mask));
  constexpr int64_t kScanBlock = 512;
  bool any = false;
  for (int64_t b = 0; b < n; b += kScanBlock) {
    const int64_t e = std::min(n, b + kScanBlock);
    U found = 0;
    for (int64_t i = b; i < e; ++i) {
      found |= static_cast<U>(((p[i] & exponent_mask) == 0) & ((p[i] & mantissa_mask) != 0));
    }
    if (found == 0) continue;
    any = true;
    if (!write) return true;
    for (int64_t i = b; i < e; ++i) {
      if (IsDenormalBits(p[i], exponent_mask, mantissa_mask)) p[i] = static_cast<U>(p[i] & sign);
    }
  }
  return any;
}

bool Flush(Literal& lit, bool write) {
  const PT t = lit.element_type();
  const int64_t n = lit.element_count();
  switch (t) {
    case PT::kF32:
    case PT::kC64:
      return FlushBits(reinterpret_cast<uint32_t*>(lit.data()), t == PT::kC64 ? 2 * n : n,
                       uint32_t{0x7f800000}, uint32_t{0x007fffff}, write);
    case PT::kF64:
    case PT::kC128:
      return FlushBits(reinterpret_cast<uint64_t*>(lit.data()), t == PT::kC128 ? 2 * n : n,
                       uint64_t{0x7ff0000000000000}, uint64_t{0x000fffffffffffff}, write);
    case PT::kBF16:
      return FlushBits(reinterpret_cast<uint16_t*>(lit.data()), n, uint16_t{0x7f80},
                       uint16_t{0x007f}, write);
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
void RestartBlasThreads() {
  const int threads = openblas_get_num_threads();
  blas_thread_shutdown_();
  openblas_set_num_threads(threads);
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

namespace {

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

// Ops whose f32/f64 kernels are plain SSE arithmetic (BinaryFloatKernel's
// loops, sqrtps) or compares: with MXCSR's DAZ and FTZ set, as they are on
// every evaluating thread under --denormals=flush, the hardware already
// reads denormal operands as zero and flushes the results, so the explicit
// scans (three passes over memory) are redundant.
bool HardwareFlushes(const Instruction& inst) {
  if (!FlushingMxcsr()) return false;
  switch (inst.opcode()) {
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
      return FlushBits(static_cast<uint32_t*>(data), n, uint32_t{0x7f800000}, uint32_t{0x007fffff},
                       /*write=*/true);
    case PT::kF64:
      return FlushBits(static_cast<uint64_t*>(data), n, uint64_t{0x7ff0000000000000},
                       uint64_t{0x000fffffffffffff}, /*write=*/true);
    default:
      return false;
  }
}

bool ContainsDenormals(const Literal& lit) {
  // Flush only reads when write is false.
  return Flush(const_cast<Literal&>(lit), /*write=*/false);
}

}  // namespace hlo

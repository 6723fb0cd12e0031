// OpenBLAS's kernel set where its own choice fell back. OpenBLAS picks its
// kernels by CPU model as it loads; a model newer than the build knows
// gets its fallback, Prescott's SSE3 kernels: Debian's 0.3.21 on an
// Emerald Rapids Xeon (AVX-512 with BF16) ran SGEMM 512^3 at 35-61
// GFLOP/s where its Cooperlake kernels, which that CPU runs, ran 4-8x
// that, and a small CNN's gradient took 1.8 ms against 1.4.
#ifndef HLO_EVAL_BLAS_KERNEL_CHOICE_H_
#define HLO_EVAL_BLAS_KERNEL_CHOICE_H_

namespace hlo {
namespace blas {

// The widest of OpenBLAS's x86 kernel sets this CPU runs, by its features
// (as OpenBLAS names them for OPENBLAS_CORETYPE): "Cooperlake" (AVX-512
// with BF16), "SkylakeX" (AVX-512 F, CD, BW, DQ, VL), "Haswell" (AVX2,
// FMA), "Sandybridge" (AVX); null otherwise (and off x86).
const char* WidestKernelSet();

// Called as OpenBLAS opens (`handle`, before any other call into it, on
// the process's start mask): where OpenBLAS chose its Prescott fallback on
// a CPU that runs a wider set and OPENBLAS_CORETYPE is unset, ends its
// workers, has it choose again with that set forced (its exported
// gotoblas_dynamic_quit and gotoblas_dynamic_init, the environment
// variable set around the call) and, with `restart_workers`, starts them
// again. Returns the set forced, or null where OpenBLAS's choice stands.
const char* WidenFallbackKernels(void* handle, bool restart_workers);

}  // namespace blas
}  // namespace hlo

#endif  // HLO_EVAL_BLAS_KERNEL_CHOICE_H_

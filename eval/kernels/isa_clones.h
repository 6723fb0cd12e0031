// HLO_ISA_CLONES: a function compiled for AVX-512, AVX2 and the baseline,
// picked at load time by an ifunc resolver (GCC's target_clones). Not under
// AddressSanitizer: the resolvers run while the dynamic loader relocates the
// program, before ASan has mapped its shadow memory, and their instrumented
// code faults there (unit_tests died at startup in scripts/test --asan).
#ifndef HLO_EVAL_KERNELS_ISA_CLONES_H_
#define HLO_EVAL_KERNELS_ISA_CLONES_H_

#if defined(__SANITIZE_ADDRESS__)
#define HLO_NO_ISA_CLONES 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HLO_NO_ISA_CLONES 1
#endif
#endif

#ifdef HLO_NO_ISA_CLONES
#define HLO_ISA_CLONES
#else
#define HLO_ISA_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#endif

#endif  // HLO_EVAL_KERNELS_ISA_CLONES_H_

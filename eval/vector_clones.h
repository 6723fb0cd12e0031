// HLO_VECTOR_CLONES: compile a simple loop (template or not) once per vector
// width the machine may have (AVX-512, AVX2, baseline SSE2); the loader
// picks the widest the CPU runs. For loops over a block that is already in
// cache, where the baseline build's 4-lane SSE is the bound.
// Only loops whose lanes do one IEEE operation each (no a*b+c a compiler
// could contract into an FMA): every clone gives the same bits.
// (clang does not multiversion function templates: the fuzz and clang
// builds take the plain loop.)
#ifndef HLO_EVAL_VECTOR_CLONES_H_
#define HLO_EVAL_VECTOR_CLONES_H_

#if defined(__clang__) || !defined(__x86_64__)
#define HLO_VECTOR_CLONES
#else
#define HLO_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#endif

#endif  // HLO_EVAL_VECTOR_CLONES_H_

// oneDNN's sgemm for long f32 products (see gemm_onednn.h).
#include "eval/kernels/gemm_onednn.h"

#ifdef HLO_HAVE_ONEDNN
#include <dlfcn.h>  // (RTLD_*)
#include <dnnl.h>

#include <algorithm>

#include "eval/kernels/avx512_lanes.h"
#include "eval/shared_library.h"
#endif

namespace hlo {
namespace gemm {

#ifdef HLO_HAVE_ONEDNN
namespace {

using SetThreadsFn = void (*)(int);
// (The header's declarations give the types; nothing is linked.)
using VersionFn = decltype(&dnnl_version);
using SgemmFn = decltype(&dnnl_sgemm);
using S8GemmFn = decltype(&dnnl_gemm_s8s8s32);
using U8GemmFn = decltype(&dnnl_gemm_u8s8s32);

// oneDNN's threads come from its OpenMP runtime, whose thread count is
// per calling thread: one, so that a product runs on its caller alone as
// Gemm's OpenBLAS calls do (a null function where oneDNN runs sequentially).
// False where oneDNN threads otherwise (TBB, a thread pool).
bool OneThreadSetter(LazyLibrary& library, VersionFn version_fn, SetThreadsFn* set) {
  const dnnl_version_t* version = version_fn();
  *set = nullptr;
  if (version->cpu_runtime == DNNL_RUNTIME_SEQ) return true;
  if (version->cpu_runtime != DNNL_RUNTIME_OMP) return false;
  // oneDNN's OpenMP runtime, loaded with it (hlo_eval is not an OpenMP
  // program).
  *set = reinterpret_cast<SetThreadsFn>(library.FindSymbol("omp_set_num_threads"));
  return *set != nullptr;
}

struct Choice {
  bool use = false;
  SetThreadsFn set_threads = nullptr;
  SgemmFn sgemm = nullptr;
  // The int8 gemms, where the CPU has VNNI (else null).
  S8GemmFn s8gemm = nullptr;
  U8GemmFn u8gemm = nullptr;
};

// oneDNN is opened at the first product long enough for it, not linked:
// loading it (and its OpenMP runtime) cost every process about 1.5 ms of
// start-up, hlo-opt's and short runs' too, which never call it.
const Choice& OnednnChoice() {
  static const Choice choice = [] {
    Choice c;
    if (!avx512::Available()) return c;
    static LazyLibrary library("oneDNN", HLO_ONEDNN_SONAME, RTLD_NOW | RTLD_LOCAL);
    const auto version = reinterpret_cast<VersionFn>(library.FindSymbol("dnnl_version"));
    c.sgemm = reinterpret_cast<SgemmFn>(library.FindSymbol("dnnl_sgemm"));
    c.use = version != nullptr && c.sgemm != nullptr &&
            OneThreadSetter(library, version, &c.set_threads);
    if (c.use && __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bw")) {
      c.s8gemm = reinterpret_cast<S8GemmFn>(library.FindSymbol("dnnl_gemm_s8s8s32"));
      c.u8gemm = reinterpret_cast<U8GemmFn>(library.FindSymbol("dnnl_gemm_u8s8s32"));
      if (c.s8gemm == nullptr || c.u8gemm == nullptr) {
        c.s8gemm = nullptr;
        c.u8gemm = nullptr;
      }
    }
    return c;
  }();
  return choice;
}

// oneDNN's calls on this thread run on it alone.
void OneThreadHere(const Choice& choice) {
  thread_local bool one_thread = false;
  if (!one_thread && choice.set_threads != nullptr) choice.set_threads(1);
  one_thread = true;
}

}  // namespace

bool OnednnGemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                const float* b, int64_t ldb, float* c, int64_t ldc, int64_t calls) {
  if (k < 1 || static_cast<double>(m) * n * k * calls < static_cast<double>(kOnednnMinProduct)) {
    return false;
  }
  const Choice& choice = OnednnChoice();
  if (!choice.use) return false;
  OneThreadHere(choice);
  const int64_t blocks = (k + kOnednnBlockK - 1) / kOnednnBlockK;
  for (int64_t i = 0; i < blocks; ++i) {
    // Blocks of nearly equal length: k = 257 is 129 + 128, not 256 + 1.
    const int64_t lo = k * i / blocks, hi = k * (i + 1) / blocks;
    const float* a_block = ta ? a + lo * lda : a + lo;
    const float* b_block = tb ? b + lo : b + lo * ldb;
    const dnnl_status_t st = choice.sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, hi - lo, 1.0f,
                                          a_block, lda, b_block, ldb, i == 0 ? 0.0f : 1.0f, c, ldc);
    // Only invalid arguments fail, which Gemm's callers never pass; C is
    // then rewritten by the caller's fallback.
    if (st != dnnl_success) return false;
  }
  return true;
}

bool OnednnInt8Available() { return OnednnChoice().s8gemm != nullptr; }

bool OnednnInt8Gemm(bool a_unsigned, bool ta, bool tb, int64_t m, int64_t n, int64_t k,
                    const void* a, int64_t lda, const int8_t* b, int64_t ldb, int32_t* c,
                    int64_t ldc) {
  const Choice& choice = OnednnChoice();
  if (choice.s8gemm == nullptr) return false;
  OneThreadHere(choice);
  const int32_t no_offset = 0;
  const char trans_a = ta ? 'T' : 'N', trans_b = tb ? 'T' : 'N';
  // alpha 1 and beta 0 keep the sums in integers (no float scaling).
  const dnnl_status_t st =
      a_unsigned
          ? choice.u8gemm(trans_a, trans_b, 'F', m, n, k, 1.0f, static_cast<const uint8_t*>(a), lda,
                          0, b, ldb, 0, 0.0f, c, ldc, &no_offset)
          : choice.s8gemm(trans_a, trans_b, 'F', m, n, k, 1.0f, static_cast<const int8_t*>(a), lda,
                          0, b, ldb, 0, 0.0f, c, ldc, &no_offset);
  return st == dnnl_success;
}
#else
bool OnednnGemm(bool, bool, int64_t, int64_t, int64_t, const float*, int64_t, const float*, int64_t,
                float*, int64_t, int64_t) {
  return false;
}
bool OnednnInt8Available() { return false; }
bool OnednnInt8Gemm(bool, bool, bool, int64_t, int64_t, int64_t, const void*, int64_t,
                    const int8_t*, int64_t, int32_t*, int64_t) {
  return false;
}
#endif

}  // namespace gemm
}  // namespace hlo

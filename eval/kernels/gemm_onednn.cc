// oneDNN's sgemm for long f32 products (see gemm_onednn.h).
#include "eval/kernels/gemm_onednn.h"

#ifdef HLO_HAVE_ONEDNN
#include <dlfcn.h>  // (RTLD_*)
#include <dnnl.h>

#include <algorithm>
#include <cstring>
#include <type_traits>

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
LazyLibrary& Library() {
  static LazyLibrary library("oneDNN", HLO_ONEDNN_SONAME, RTLD_NOW | RTLD_LOCAL);
  return library;
}

const Choice& OnednnChoice() {
  static const Choice choice = [] {
    Choice c;
    if (!avx512::Available()) return c;
    LazyLibrary& library = Library();
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

// oneDNN's matmul primitive (its C API, found in the opened library), for
// int8 products where it runs AMX's tile instructions.
struct MatmulApi {
  decltype(&dnnl_engine_create) engine_create = nullptr;
  decltype(&dnnl_memory_desc_init_by_strides) memory_desc = nullptr;
  decltype(&dnnl_matmul_desc_init) matmul_desc = nullptr;
  decltype(&dnnl_primitive_desc_create) pd_create = nullptr;
  decltype(&dnnl_primitive_desc_query) pd_query = nullptr;
  decltype(&dnnl_primitive_desc_destroy) pd_destroy = nullptr;
  decltype(&dnnl_primitive_create) primitive_create = nullptr;
  decltype(&dnnl_primitive_destroy) primitive_destroy = nullptr;
  decltype(&dnnl_primitive_execute) execute = nullptr;
  decltype(&dnnl_memory_create) memory_create = nullptr;
  decltype(&dnnl_memory_destroy) memory_destroy = nullptr;
  decltype(&dnnl_stream_create) stream_create = nullptr;
  decltype(&dnnl_stream_wait) stream_wait = nullptr;
  decltype(&dnnl_stream_destroy) stream_destroy = nullptr;
  dnnl_engine_t engine = nullptr;
  bool amx = false;  // whether dense int8 products run on AMX here
};

// The memory descriptors of a dense product's A, B and C: A m x k
// (lda = k), B k x n (ldb = n) or, where tb, n x k (ldb = k); C m x n.
bool DenseDescs(const MatmulApi& api, bool a_unsigned, bool tb, int64_t m, int64_t n, int64_t k,
                dnnl_memory_desc_t md[3]) {
  const dnnl_dims_t a_dims = {m, k}, a_strides = {k, 1};
  const dnnl_dims_t b_dims = {k, n}, b_strides = {tb ? 1 : n, tb ? k : 1};
  const dnnl_dims_t c_dims = {m, n}, c_strides = {n, 1};
  return api.memory_desc(&md[0], 2, a_dims, a_unsigned ? dnnl_u8 : dnnl_s8, a_strides) ==
             dnnl_success &&
         api.memory_desc(&md[1], 2, b_dims, dnnl_s8, b_strides) == dnnl_success &&
         api.memory_desc(&md[2], 2, c_dims, dnnl_s32, c_strides) == dnnl_success;
}

// A dense product's primitive, its operands' descriptors left in md
// (oneDNN's primitive cache keeps the kernels made for a shape, so a second
// primitive of that shape costs microseconds); null where oneDNN would not
// run it on AMX.
dnnl_primitive_t MakeMatmul(const MatmulApi& api, bool a_unsigned, bool tb, int64_t m, int64_t n,
                            int64_t k, dnnl_memory_desc_t md[3]) {
  dnnl_matmul_desc_t desc;
  if (!DenseDescs(api, a_unsigned, tb, m, n, k, md) ||
      api.matmul_desc(&desc, &md[0], &md[1], nullptr, &md[2]) != dnnl_success) {
    return nullptr;
  }
  dnnl_primitive_desc_t pd = nullptr;
  if (api.pd_create(&pd, &desc, nullptr, api.engine, nullptr) != dnnl_success) return nullptr;
  const char* impl = nullptr;
  dnnl_primitive_t primitive = nullptr;
  if (api.pd_query(pd, dnnl_query_impl_info_str, 0, &impl) == dnnl_success && impl != nullptr &&
      std::strstr(impl, "amx") != nullptr) {
    if (api.primitive_create(&primitive, pd) != dnnl_success) primitive = nullptr;
  }
  api.pd_destroy(pd);
  return primitive;
}

const MatmulApi& Matmul() {
  static const MatmulApi api = [] {
    MatmulApi a;
    if (OnednnChoice().s8gemm == nullptr) return a;  // (no VNNI: no AMX either)
    LazyLibrary& library = Library();
    auto find = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(library.FindSymbol(name));
      return fn != nullptr;
    };
    const bool found =
        find(a.engine_create, "dnnl_engine_create") &&
        find(a.memory_desc, "dnnl_memory_desc_init_by_strides") &&
        find(a.matmul_desc, "dnnl_matmul_desc_init") &&
        find(a.pd_create, "dnnl_primitive_desc_create") &&
        find(a.pd_query, "dnnl_primitive_desc_query") &&
        find(a.pd_destroy, "dnnl_primitive_desc_destroy") &&
        find(a.primitive_create, "dnnl_primitive_create") &&
        find(a.primitive_destroy, "dnnl_primitive_destroy") &&
        find(a.execute, "dnnl_primitive_execute") && find(a.memory_create, "dnnl_memory_create") &&
        find(a.memory_destroy, "dnnl_memory_destroy") &&
        find(a.stream_create, "dnnl_stream_create") && find(a.stream_wait, "dnnl_stream_wait") &&
        find(a.stream_destroy, "dnnl_stream_destroy");
    if (!found || a.engine_create(&a.engine, dnnl_cpu, 0) != dnnl_success) return a;
    // Whether oneDNN runs AMX here (the CPU has it and the kernel lets the
    // process use its tiles): its choice for a small dense product.
    OneThreadHere(OnednnChoice());
    a.amx = true;
    dnnl_memory_desc_t md[3];
    dnnl_primitive_t probe = MakeMatmul(a, false, false, 64, 64, 64, md);
    a.amx = probe != nullptr;
    if (probe != nullptr) a.primitive_destroy(probe);
    return a;
  }();
  return api;
}

// C = A B on AMX's tiles, dense operands as MakeMatmul takes them; false
// where oneDNN would not run it there (C untouched) or failed (C then to be
// written anew).
bool AmxInt8Matmul(bool a_unsigned, bool tb, int64_t m, int64_t n, int64_t k, const void* a,
                   const int8_t* b, int32_t* c) {
  const MatmulApi& api = Matmul();
  if (!api.amx) return false;
  dnnl_memory_desc_t md[3];  // A's, B's and C's
  dnnl_primitive_t primitive = MakeMatmul(api, a_unsigned, tb, m, n, k, md);
  if (primitive == nullptr) return false;
  // One stream per thread (a stream is not to be shared between threads),
  // destroyed with it.
  struct Stream {
    dnnl_stream_t stream = nullptr;
    decltype(&dnnl_stream_destroy) destroy = nullptr;
    ~Stream() {
      if (stream != nullptr) destroy(stream);
    }
  };
  thread_local Stream own;
  if (own.stream == nullptr) {
    own.destroy = api.stream_destroy;
    if (api.stream_create(&own.stream, api.engine, dnnl_stream_default_flags) != dnnl_success) {
      own.stream = nullptr;
    }
  }
  dnnl_stream_t stream = own.stream;
  bool ok = stream != nullptr;
  dnnl_memory_t memory[3] = {};
  void* data[3] = {const_cast<void*>(a), const_cast<int8_t*>(b), c};
  for (int i = 0; i < 3 && ok; ++i) {
    ok = api.memory_create(&memory[i], &md[i], api.engine, data[i]) == dnnl_success;
  }
  if (ok) {
    const dnnl_exec_arg_t args[3] = {
        {DNNL_ARG_SRC, memory[0]}, {DNNL_ARG_WEIGHTS, memory[1]}, {DNNL_ARG_DST, memory[2]}};
    ok = api.execute(primitive, stream, 3, args) == dnnl_success &&
         api.stream_wait(stream) == dnnl_success;
  }
  for (dnnl_memory_t mem : memory) {
    if (mem != nullptr) api.memory_destroy(mem);
  }
  api.primitive_destroy(primitive);
  return ok;
}

}  // namespace

bool OnednnSgemmRuns(int64_t m, int64_t n, int64_t k, int64_t calls) {
  return k >= 1 &&
         static_cast<double>(m) * n * k * calls >= static_cast<double>(kOnednnMinProduct) &&
         OnednnChoice().use;
}

bool OnednnGemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                const float* b, int64_t ldb, float* c, int64_t ldc, int64_t calls) {
  if (!OnednnSgemmRuns(m, n, k, calls)) return false;
  const Choice& choice = OnednnChoice();
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
  // Dense operands (A not transposed) on AMX where the CPU has it.
  if (!ta && lda == k && ldb == (tb ? k : n) && ldc == n &&
      AmxInt8Matmul(a_unsigned, tb, m, n, k, a, b, c)) {
    return true;
  }
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
bool OnednnSgemmRuns(int64_t, int64_t, int64_t, int64_t) { return false; }
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

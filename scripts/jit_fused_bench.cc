// What a code generator for fused loops would cost and give on the shared
// eltwise benchmark: the chain of scripts/fused_bound_bench.cc
//   e = exp(x); m = e*y; a = m + x; t = tanh(a); s = select(t > 0, t, a);
//   out = s / e
// emitted as LLVM IR over 16-lane vectors (what a fused-loop emitter would
// write: one loop, every value in a register, exp and tanh as calls of
// hlo-run's exp and libmvec's tanh, no fast-math flags, so no FMAs) and
// compiled by LLVM's ORC LLJIT for this CPU. Prints
//   jit_ms:          making the JIT (once a process);
//   compile_ms:      building the IR, generating code and linking it;
//   next_compile_ms: the same for a second fusion (each further one);
//   cached_ms:       a second JIT made and given the first's object from
//                    an object cache (a disk cache less the read: what a
//                    later process pays);
//   min_ms:     the fastest of --runs, one part per core as
//               fused_bound_bench runs.
// Reads DIR/x.npy and DIR/y.npy (fused_bound_bench's inputs) and writes
// the result's raw floats to DIR/jit.raw, which scripts/bench-fused-bound
// compares with the hand-written loop's. A benchmark, not a test; built by
// that script where Debian's llvm-14-dev is installed.
//   jit_fused_bench DIR [--runs 30]
#include <immintrin.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "eval/interp/vector_math_avx512.h"
#include "llvm/ExecutionEngine/ObjectCache.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "scripts/fused_bench_runs.h"

extern "C" __m512 _ZGVeN16v_tanhf(__m512);

// hlo-run's exp (the one its batched interpreter calls), callable from the
// generated code: a <16 x float> argument and result travel in zmm0.
extern "C" __attribute__((target("avx512f"))) __m512 hlo_exp16(__m512 x) {
  return hlo::elementwise::ExpAvx512(x);
}

namespace {

constexpr long kRows = 4096, kCols = 4096;
using ChainFn = void (*)(const float*, const float*, float*, int64_t);
using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Objects by module name, kept in memory (a real cache would key them by
// a hash of the fusion's text and the CPU, on disk).
class MemoryCache : public llvm::ObjectCache {
 public:
  void notifyObjectCompiled(const llvm::Module* m, llvm::MemoryBufferRef obj) override {
    objects_[m->getModuleIdentifier()] = obj.getBuffer().str();
  }
  std::unique_ptr<llvm::MemoryBuffer> getObject(const llvm::Module* m) override {
    auto it = objects_.find(m->getModuleIdentifier());
    if (it == objects_.end()) return nullptr;
    return llvm::MemoryBuffer::getMemBufferCopy(it->second);
  }

 private:
  std::map<std::string, std::string> objects_;
};

// void NAME(const float* x, const float* y, float* out, i64 n), n a
// positive multiple of 16, in a module of its own (one per fusion).
std::unique_ptr<llvm::Module> ChainModule(llvm::LLVMContext& ctx, const std::string& name) {
  auto m = std::make_unique<llvm::Module>(name, ctx);
  llvm::IRBuilder<> b(ctx);
  llvm::Type* f32 = b.getFloatTy();
  llvm::Type* i64 = b.getInt64Ty();
  llvm::Type* pf = llvm::PointerType::getUnqual(f32);
  auto* vec = llvm::FixedVectorType::get(f32, 16);
  auto* pvec = llvm::PointerType::getUnqual(vec);
  auto* unary = llvm::FunctionType::get(vec, {vec}, false);
  llvm::FunctionCallee exp16 = m->getOrInsertFunction("hlo_exp16", unary);
  llvm::FunctionCallee tanh16 = m->getOrInsertFunction("_ZGVeN16v_tanhf", unary);
  auto* fn =
      llvm::Function::Create(llvm::FunctionType::get(b.getVoidTy(), {pf, pf, pf, i64}, false),
                             llvm::Function::ExternalLinkage, name, m.get());
  llvm::Value *x = fn->getArg(0), *y = fn->getArg(1), *out = fn->getArg(2), *n = fn->getArg(3);
  auto* entry = llvm::BasicBlock::Create(ctx, "entry", fn);
  auto* loop = llvm::BasicBlock::Create(ctx, "loop", fn);
  auto* exit = llvm::BasicBlock::Create(ctx, "exit", fn);
  b.SetInsertPoint(entry);
  b.CreateBr(loop);
  b.SetInsertPoint(loop);
  llvm::PHINode* i = b.CreatePHI(i64, 2, "i");
  i->addIncoming(b.getInt64(0), entry);
  auto at = [&](llvm::Value* base) { return b.CreateBitCast(b.CreateGEP(f32, base, i), pvec); };
  llvm::Value* vx = b.CreateAlignedLoad(vec, at(x), llvm::MaybeAlign(4), "x");
  llvm::Value* vy = b.CreateAlignedLoad(vec, at(y), llvm::MaybeAlign(4), "y");
  llvm::Value* e = b.CreateCall(exp16, {vx}, "e");
  llvm::Value* a = b.CreateFAdd(b.CreateFMul(e, vy, "m"), vx, "a");
  llvm::Value* t = b.CreateCall(tanh16, {a}, "t");
  llvm::Value* positive = b.CreateFCmpOGT(t, llvm::ConstantAggregateZero::get(vec), "positive");
  llvm::Value* s = b.CreateSelect(positive, t, a, "s");
  b.CreateAlignedStore(b.CreateFDiv(s, e, "o"), at(out), llvm::MaybeAlign(4));
  llvm::Value* next = b.CreateAdd(i, b.getInt64(16), "next");
  i->addIncoming(next, loop);
  b.CreateCondBr(b.CreateICmpULT(next, n), loop, exit);
  b.SetInsertPoint(exit);
  b.CreateRetVoid();
  if (llvm::verifyFunction(*fn, &llvm::errs())) return nullptr;
  return m;
}

// A JIT for this CPU that compiles through `cache`, with hlo_exp16 and
// libmvec's tanh defined in it; null when LLVM cannot make one.
std::unique_ptr<llvm::orc::LLJIT> MakeJit(MemoryCache& cache) {
  auto host = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!host) return nullptr;
  // Each multiply and add rounds on its own, as in HLO (no FMA contraction).
  host->getOptions().AllowFPOpFusion = llvm::FPOpFusion::Strict;
  auto made =
      llvm::orc::LLJITBuilder()
          .setJITTargetMachineBuilder(*host)
          .setCompileFunctionCreator(
              [&cache](llvm::orc::JITTargetMachineBuilder jtmb)
                  -> llvm::Expected<std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
                auto tm = jtmb.createTargetMachine();
                if (!tm) return tm.takeError();
                return std::make_unique<llvm::orc::TMOwningSimpleCompiler>(std::move(*tm), &cache);
              })
          .create();
  if (!made) return nullptr;
  std::unique_ptr<llvm::orc::LLJIT> jit = std::move(*made);
  llvm::orc::MangleAndInterner mangle(jit->getExecutionSession(), jit->getDataLayout());
  llvm::orc::SymbolMap symbols;
  symbols[mangle("hlo_exp16")] = llvm::JITEvaluatedSymbol(
      llvm::pointerToJITTargetAddress(&hlo_exp16), llvm::JITSymbolFlags::Exported);
  symbols[mangle("_ZGVeN16v_tanhf")] = llvm::JITEvaluatedSymbol(
      llvm::pointerToJITTargetAddress(&_ZGVeN16v_tanhf), llvm::JITSymbolFlags::Exported);
  if (jit->getMainJITDylib().define(llvm::orc::absoluteSymbols(symbols))) return nullptr;
  return jit;
}

// The chain `name` added to `jit` and looked up, which compiles it (or
// loads the cache's object for it); null on failure.
ChainFn AddChain(llvm::orc::LLJIT& jit, const std::string& name) {
  auto ctx = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> m = ChainModule(*ctx, name);
  if (m == nullptr) return nullptr;
  if (jit.addIRModule(llvm::orc::ThreadSafeModule(std::move(m), std::move(ctx)))) return nullptr;
  auto sym = jit.lookup(name);
  if (!sym) return nullptr;
  return reinterpret_cast<ChainFn>(sym->getAddress());
}

// The last kRows x kCols floats of an .npy file (its data, after the
// header).
bool ReadFloats(const std::string& path, std::vector<float>& v) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  const long bytes = kRows * kCols * static_cast<long>(sizeof(float));
  v.resize(kRows * kCols);
  const bool ok = std::fseek(f, -bytes, SEEK_END) == 0 &&
                  std::fread(v.data(), sizeof(float), v.size(), f) == v.size();
  std::fclose(f);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir;
  int runs = 0;
  if (!fused_bench::ParseArgs("jit_fused_bench", argc, argv, dir, runs)) return argc < 2 ? 2 : 1;
  std::vector<float> x, y;
  if (!ReadFloats(dir + "/x.npy", x) || !ReadFloats(dir + "/y.npy", y)) {
    std::fprintf(stderr, "jit_fused_bench: cannot read %s/x.npy and y.npy\n", dir.c_str());
    return 1;
  }
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  // Cold: a JIT made, one fusion compiled, then a second (what each
  // further fusion of a module costs); cached: a fresh JIT loading the
  // first's object.
  MemoryCache cache;
  Clock::time_point start = Clock::now();
  std::unique_ptr<llvm::orc::LLJIT> cold_jit = MakeJit(cache);
  const double jit_ms = MsSince(start);
  start = Clock::now();
  ChainFn cold = cold_jit == nullptr ? nullptr : AddChain(*cold_jit, "chain");
  const double first_ms = MsSince(start);
  start = Clock::now();
  ChainFn second = cold_jit == nullptr ? nullptr : AddChain(*cold_jit, "chain2");
  const double second_ms = MsSince(start);
  start = Clock::now();
  std::unique_ptr<llvm::orc::LLJIT> warm_jit = MakeJit(cache);
  ChainFn chain = warm_jit == nullptr ? nullptr : AddChain(*warm_jit, "chain");
  const double cached_ms = MsSince(start);
  if (cold == nullptr || second == nullptr || chain == nullptr) {
    std::fprintf(stderr, "jit_fused_bench: LLVM could not compile the chain\n");
    return 1;
  }
  const long n = kRows * kCols;
  std::vector<float> out(n);
  const double best = fused_bench::FastestMs(n, runs, [&](long lo, long hi) {
    chain(x.data() + lo, y.data() + lo, out.data() + lo, hi - lo);
  });
  FILE* f = std::fopen((dir + "/jit.raw").c_str(), "wb");
  const bool written =
      f != nullptr && std::fwrite(out.data(), sizeof(float), n, f) == static_cast<size_t>(n);
  if (f == nullptr || std::fclose(f) != 0 || !written) {
    std::fprintf(stderr, "jit_fused_bench: cannot write %s/jit.raw\n", dir.c_str());
    return 1;
  }
  std::printf(
      "jit_fused: eltwise jit_ms=%.2f compile_ms=%.2f next_compile_ms=%.2f cached_ms=%.2f "
      "runs=%d min_ms=%.3f\n",
      jit_ms, first_ms, second_ms, cached_ms, runs, best);
  return 0;
}

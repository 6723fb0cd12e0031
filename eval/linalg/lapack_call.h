// A LAPACK custom-call as jaxlib's CPU kernels see it, for the kernels in
// eval/linalg/lapack_*.cc.
//
// JAX lowers linear algebra on CPU to custom-calls named after the LAPACK
// routine: `lapack_<p><routine>_ffi` (p = s, d, c, z for f32, f64, c64,
// c128; API_VERSION_TYPED_FFI, attributes in backend_config as an MLIR
// dictionary such as `{mode = 86 : ui8, uplo = 76 : ui8}`), and, in older
// dumps, `lapack_<p><routine>` / `blas_<p>trsm` with the sizes and options
// as leading scalar operands and LAPACK's workspaces as extra results.
//
// A kernel receives memory, not logical arrays: XLA hands it each operand
// in the layout of operand_layout_constraints (else the operand's own) and
// reads each result in the layout of the result shape. JAX asks for
// column-major matrices ({0,1}, {1,2,0}, ...), which is what LAPACK wants;
// Load and Store convert between hlo-run's row-major literals and that
// memory order, so a kernel indexes its buffers as jaxlib does: batch
// elements one after another, each matrix column-major.
#ifndef HLO_EVAL_LINALG_LAPACK_CALL_H_
#define HLO_EVAL_LINALG_LAPACK_CALL_H_

#include <algorithm>
#include <complex>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "eval/kernels/kernels.h"
#include "eval/linalg/lapack_memory.h"
#include "ir/primitive_type.h"
#include "ir/status_macros.h"

namespace hlo::lapack {

// What a target name says.
struct Target {
  std::string_view routine;  // "potrf", "orgqr", "heevd", ... as written
  PrimitiveType type;        // from the s/d/c/z letter
  bool ffi;                  // `_ffi` suffix: attributes, no scalar operands
};
std::optional<Target> ParseTarget(std::string_view name);

// The s/d/c/z letter of an element type.
char TypeLetter(PrimitiveType type);

// A batch of matrices: the last two dimensions, the ones before them.
struct Matrices {
  std::vector<int64_t> batch_dims;
  int64_t batch = 1;  // product of batch_dims
  int rows = 0, cols = 0;
};

// A dimension of any size in a ResultSpec or ExpectOperand (the length of
// a legacy workspace result, u's columns with SVD mode 'N'); printed `*`.
constexpr int64_t kAnySize = -1;

// One expected result: element type and dimensions.
struct ResultSpec {
  PrimitiveType type;
  std::vector<int64_t> dims;
};

// `dims` followed by `more`.
std::vector<int64_t> Append(std::vector<int64_t> dims, std::initializer_list<int64_t> more);

// f32 for f64, c64 for c128: the type a widened kernel rounds back to.
template <typename T>
using Narrow = std::conditional_t<std::is_same_v<T, double>, float, std::complex<float>>;

// `v` converted element by element (widening exactly, or rounding once).
template <typename To, typename From>
Memory<To> Widen(const Memory<From>& v) {
  Memory<To> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = static_cast<To>(v[i]);
  return out;
}

class Call {
 public:
  Call(const Instruction& inst, Operands ops, Target target)
      : inst_(inst), ops_(ops), target_(target) {}

  const Target& target() const { return target_; }
  PrimitiveType type() const { return target_.type; }
  std::string TargetName() const;

  // ---- attributes (the `_ffi` forms) ----------------------------------------
  // An enum attribute (`uplo = 76 : ui8`): one of the characters in `allowed`.
  absl::StatusOr<char> CharAttr(std::string_view name, std::string_view allowed);
  absl::StatusOr<bool> BoolAttr(std::string_view name);
  absl::StatusOr<int64_t> IntAttr(std::string_view name);
  // Sets an attribute as if backend_config held `name = value` (adapters
  // whose calls name their options differently, eval/gpu/cusolver.cc).
  absl::Status SetAttr(std::string_view name, int64_t value);

  // ---- operands ---------------------------------------------------------------
  absl::Status ExpectOperandCount(int64_t n) const;
  int64_t OperandCount() const { return static_cast<int64_t>(ops_.size()); }
  const Shape& OperandShape(int64_t i) const { return ops_[i]->array().shape(); }
  // Operand i, an array of `type`, as a batch of matrices (rank >= 2, both
  // matrix dimensions within LAPACK's 32-bit integers).
  absl::StatusOr<Matrices> MatrixOperand(int64_t i, PrimitiveType type) const;
  // Operand i must be an array of `type` with these dimensions (kAnySize
  // matches any).
  absl::Status ExpectOperand(int64_t i, PrimitiveType type, const std::vector<int64_t>& dims,
                             std::string_view what) const;
  // A scalar operand of the legacy forms (s32 sizes and flags, u8 job
  // characters).
  absl::StatusOr<int64_t> ScalarOperand(int64_t i, PrimitiveType type, std::string_view what) const;
  // The legacy forms' s32 size operands must describe the array operands.
  struct Size {
    int64_t index;
    const char* name;
    int64_t value;
  };
  absl::Status ExpectSizes(std::initializer_list<Size> sizes) const;
  // Operand i's elements in the memory order the kernel receives.
  // A kernel computing an f32/c64 call in f64/c128 (WithComputeType) loads
  // the operand widened.
  template <typename T>
  Memory<T> Load(int64_t i) const {
    const Literal& lit = ops_[i]->array();
    if constexpr (std::is_same_v<T, double> || std::is_same_v<T, std::complex<double>>) {
      if (ByteWidth(lit.element_type()) != sizeof(T)) return Widen<T>(Load<Narrow<T>>(i));
    }
    Memory<T> out(lit.element_count());
    ToMemoryOrder(lit, OperandLayout(i), out.data());
    return out;
  }

  // ---- results ----------------------------------------------------------------
  // The result must be a tuple of these shapes (or, with `tuple` false, the
  // one array; kAnySize matches any size). Allocates the results.
  absl::Status ExpectResults(const std::vector<ResultSpec>& specs, bool tuple = true);
  // Result i from elements in memory order.
  // (Rounded once to the result's type when the kernel computed wider.)
  template <typename T>
  void Store(int64_t i, const Memory<T>& memory) {
    if constexpr (std::is_same_v<T, double> || std::is_same_v<T, std::complex<double>>) {
      if (ByteWidth(results_[i]->element_type()) != sizeof(T)) {
        Store(i, Widen<Narrow<T>>(memory));
        return;
      }
    }
    FromMemoryOrder(memory.data(), ResultLayout(i), *results_[i]);
  }
  // Result i's dimensions, after ExpectResults accepted them.
  std::vector<int64_t> ResultDims(int64_t i) const;
  // Result i (after ExpectResults) filled with identity matrices.
  template <typename T>
  void StoreIdentity(int64_t i) {
    const std::vector<int64_t> dims = ResultDims(i);
    const int64_t rows = dims[dims.size() - 2], cols = dims.back();
    Memory<T> memory(results_[i]->element_count());
    for (size_t b = 0; rows * cols > 0 && b < memory.size(); b += rows * cols) {
      for (int64_t j = 0; j < std::min(rows, cols); ++j) memory[b + j * rows + j] = T(1);
    }
    Store(i, memory);
  }
  Value Finish();

 private:
  absl::Status ParseAttributes();
  absl::StatusOr<const std::pair<int64_t, std::string>*> Attr(std::string_view name);
  const Shape& OperandLayout(int64_t i) const;
  const Shape& ResultLayout(int64_t i) const;
  static void ToMemoryOrder(const Literal& lit, const Shape& layout_of, void* out);
  static void FromMemoryOrder(const void* in, const Shape& layout_of, Literal& lit);

  const Instruction& inst_;
  Operands ops_;
  Target target_;
  // name -> (integer value, written text) from backend_config.
  using Dict = absl::flat_hash_map<std::string, std::pair<int64_t, std::string>>;
  // The parsed backend_config: this thread's parse of the same text (a
  // solver's loop makes the same small calls over and over, and parsing
  // was a quarter of a 5x5 trsm's time), or own_ once SetAttr changed it.
  const Dict* attrs_ = nullptr;
  std::optional<Dict> own_;
  std::vector<std::shared_ptr<Literal>> results_;
  bool tuple_ = true;
};

// The element type of a C++ type.
template <typename T>
constexpr PrimitiveType PrimitiveTypeOf() {
  if constexpr (std::is_same_v<T, float>) return PrimitiveType::kF32;
  if constexpr (std::is_same_v<T, double>) return PrimitiveType::kF64;
  if constexpr (std::is_same_v<T, std::complex<float>>) return PrimitiveType::kC64;
  if constexpr (std::is_same_v<T, std::complex<double>>) return PrimitiveType::kC128;
  return PrimitiveType::kS32;
}

// The real type of a LAPACK element type: f32 for c64, f64 for c128.
inline PrimitiveType RealTypeOf(PrimitiveType type) {
  if (type == PrimitiveType::kC64) return PrimitiveType::kF32;
  if (type == PrimitiveType::kC128) return PrimitiveType::kF64;
  return type;
}

// Calls f with a value of the C++ type of a LAPACK element type.
template <typename F>
auto WithElementType(PrimitiveType type, F f) {
  switch (type) {
    case PrimitiveType::kF32:
      return f(float{});
    case PrimitiveType::kF64:
      return f(double{});
    case PrimitiveType::kC64:
      return f(std::complex<float>{});
    default:
      return f(std::complex<double>{});
  }
}

// Matrices up to this size are factored in f64/c128 when the call is f32/c64
// (WithComputeType): the time is the call's overhead either way, and the
// result, rounded once, is at least as accurate as XLA:CPU's f32 LAPACK.
constexpr int64_t kWidenedMaxDim = 128;

// Whether an f32 or c64 call's matrices (the last two dimensions of its
// operands of that type) have at most kWidenedMaxDim rows and columns.
bool WidenedCall(const Call& call);
// The f64/c128 type of f32/c64.
template <typename T>
using Wide = std::conditional_t<std::is_same_v<T, float>, double, std::complex<double>>;

// WithElementType, but a WidenedCall runs the f64/c128 kernel: Load
// widens, Store rounds back.
template <typename F>
auto WithComputeType(const Call& call, F f) {
  const bool wide = WidenedCall(call);
  if (wide && call.type() == PrimitiveType::kF32) return f(double{});
  if (wide && call.type() == PrimitiveType::kC64) return f(std::complex<double>{});
  return WithElementType(call.type(), f);
}

// Matrices up to this size are factored by independent runs side by side.
// OpenBLAS runs the BLAS calls of an SVD of such a matrix on the calling
// thread (its gemm threads past 65536 x 4 multiply-adds, 8192 x 4 complex,
// its gemv past 2304 x 4 elements), so two runs never meet in its thread
// pool. (Not every routine: its trsm threads from 8 x 8 on.)
constexpr int64_t kParallelMaxDim = 32;

// Runs run(begin, end) over the independent problems [0, count) (a kernel's
// separate runs, each with its own memory and workspace): in consecutive
// parts on the cores (eval/runtime/parallel.h) where there are two or more
// and no matrix has more than kParallelMaxDim rows or columns (`max_dim`),
// else run(0, count) here. The bits do not depend on which thread ran a
// problem. (A batch's matrices are not split so: measured, the parts cost
// more than they saved, 3x4x4 syevd calls 7% slower and geev 15-50%;
// neighbouring small matrices share cache lines of their results.)
void ParallelProblems(int64_t count, int64_t max_dim,
                      const std::function<void(int64_t, int64_t)>& run);

// Workspace sizes come back from LAPACK's query (lwork = -1) as a float.
absl::StatusOr<int> WorkspaceSize(double queried, std::string_view what);
// Asks a routine for its optimal workspace: `run(work, lwork)` calls it with
// lwork = -1, and LAPACK writes the size into work[0].
template <typename T, typename F>
absl::StatusOr<int> QueryWorkspace(std::string_view what, F run) {
  T size{};
  run(&size, -1);
  return WorkspaceSize(static_cast<double>(std::real(size)), what);
}

// Sizes and products that LAPACK must hold in its 32-bit integers.
absl::StatusOr<int> LapackInt(int64_t v, std::string_view what);

}  // namespace hlo::lapack

#endif  // HLO_EVAL_LINALG_LAPACK_CALL_H_

// cuDNN fused attention (eval/gpu/cudnn_fmha.cc, cudnn_fmha_backward.cc):
// the call read into canonical [batch, head, sequence, feature] arrays, the
// parts the forward and backward files share.
#ifndef HLO_EVAL_GPU_CUDNN_FMHA_H_
#define HLO_EVAL_GPU_CUDNN_FMHA_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "eval/gpu/gpu_config.h"
#include "eval/kernels/kernels.h"

namespace hlo::gpu::fmha {

// The options of a call, from its target and cudnn_fmha_backend_config.
struct Config {
  std::string target;
  Json message;
  bool bias = false;     // the target takes a bias operand
  bool padding = false;  // PADDING, PADDING_CAUSAL: seq_q and seq_kv operands
  bool causal = false;   // CAUSAL, PADDING_CAUSAL: key j > query i masked
  int64_t window = 0;    // sliding_window_length > 0: key j <= i - window masked
  double scale = 0;      // fmha_scale
};
absl::StatusOr<Config> ReadConfig(const Instruction& inst, bool bias);

// One of a dot's two sides in a DotDimensionNumbers message.
struct DotSide {
  std::vector<int64_t> batch, contracting;
};

// One side of a dot_dimension_numbers field of the config: an error naming
// the field when it is absent.
absl::StatusOr<DotSide> ReadDotSide(const Config& c, std::string_view field, bool lhs);

// A 4-d operand seen as [B, H, S, D]: its dims in that order and the strides
// of each into its row-major storage.
struct View {
  int64_t dim[4] = {0, 0, 0, 0};
  int64_t stride[4] = {0, 0, 0, 0};
};

// The view of `shape` whose dims are (batch..., non-contracting,
// contracting) when `contracting_last`, else (batch..., contracting,
// non-contracting): cuDNN's reading of a matmul operand
// (xla/stream_executor/dnn.cc MakeCudnnCompatible). `what` names the operand.
absl::StatusOr<View> MatmulView(const Config& c, const Shape& shape, const DotSide& side,
                                bool contracting_last, const std::string& what);
// The view of a 4-d shape in its own dim order (outputs, bias).
absl::StatusOr<View> PlainView(const Config& c, const Shape& shape, const std::string& what);

// The sizes of one attention problem: queries [B, Hq, Sq, D], keys [B, Hk,
// Skv, D], values [B, Hk, Skv, Dv]; each query head h reads key head
// h / (Hq / Hk).
struct Dims {
  int64_t b = 0, hq = 0, hk = 0, sq = 0, skv = 0, d = 0, dv = 0;
};
// Dims from the Q, K, V views, checked against one another.
absl::StatusOr<Dims> CheckQkv(const Config& c, const View& q, const View& k, const View& v);
// An error unless `view` has exactly `want` as dims.
absl::Status CheckDims(const Config& c, const View& view, const int64_t (&want)[4],
                       const std::string& what);
// An error unless a bias or its gradient has each dim 1 or [B, Hq, Sq, Skv]'s.
absl::Status CheckBiasDims(const Config& c, const View& bias, const Dims& d,
                           const std::string& what);
// An error unless operand `i` is an array of a float type (the same as
// `type` when that is given).
absl::Status CheckFloat(const Config& c, Operands ops, size_t i, const std::string& what,
                        const PrimitiveType* type);

// The arithmetic's inputs, gathered in the compute type T (f32, as XLA
// sets cuDNN's compute and intermediate data types; f64 for f64 calls).
template <typename T>
struct Problem {
  Dims d;
  bool causal = false, padding = false;
  int64_t window = 0;
  T scale = 0;
  std::vector<T> q, k, v;              // [B, Hq, Sq, D], [B, Hk, Skv, D], [B, Hk, Skv, Dv]
  std::vector<T> kt;                   // k as [B, Hk, D, Skv] (FillProblem makes it)
  std::vector<T> bias;                 // the bias's own elements, empty without one
  View bias_view;                      // strides 0 along broadcast dims
  std::vector<int64_t> seq_q, seq_kv;  // per batch, clamped; full lengths without padding

  // Whether query i of batch b may see key j (the masks).
  bool Allowed(int64_t b, int64_t i, int64_t j) const {
    if (i >= seq_q[b] || j >= seq_kv[b]) return false;
    if (causal && j > i) return false;
    return window <= 0 || j > i - window;
  }
  // The scores of query (b, h, i) against every key: scale * q.k + bias.
  void Scores(int64_t b, int64_t h, int64_t i, std::vector<T>& s) const;
};

// acc[j] += a * row[j] for j < n: each lane's multiply, then its add (f32
// and f64, vector clones).
template <typename T>
void AddScaledRow(T* acc, T a, const T* row, int64_t n);

// AddScaledRow for rows r = 0..count-1 in order (a[r], rows + r * stride),
// four rows a pass so that acc stays in registers between them: each lane
// still adds its products in the order of r.
template <typename T>
void AddScaledRows(T* acc, const T* a, const T* rows, int64_t stride, int64_t count, int64_t n);

// x as `heads` matrices [rows, cols] transposed to [cols, rows] each.
template <typename T>
std::vector<T> TransposedRows(const std::vector<T>& x, int64_t heads, int64_t rows, int64_t cols);

// Gathers `lit` read through `view` into a canonical [dim0..dim3] vector.
template <typename T>
std::vector<T> Gather(const Literal& lit, const View& view);

// Fills the problem's masks and bias from the call (and kt from k): operand
// `bias_index` is the bias when there is one, `seq_index` and the next seq_q
// and seq_kv when the mask is a padding one.
template <typename T>
absl::Status FillProblem(const Config& c, Operands ops, size_t bias_index, size_t seq_index,
                         Problem<T>& p);

// eval/gpu/cudnn_fmha_backward.cc
absl::StatusOr<Value> EvalBackward(const Instruction& inst, Operands ops, const Config& c);

}  // namespace hlo::gpu::fmha

#endif  // HLO_EVAL_GPU_CUDNN_FMHA_H_

// XLA:GPU's cuDNN convolutions (xla/service/gpu/cublas_cudnn.h,
// gpu_conv_runner.cc): custom-calls whose window, dim_labels and
// feature_group_count describe a forward convolution input (*) filter ->
// output, returning (result, u8[workspace]):
//
//   __cudnn$convForward (input, filter) -> output
//   __cudnn$convBackwardInput (output_grad, filter) -> input_grad: the
//     gradient of that forward convolution with respect to its input
//   __cudnn$convBackwardFilter (input, output_grad) -> filter_grad: the
//     gradient with respect to the filter
//   __cudnn$convBiasActivationForward (input, filter, bias[, side_input]) ->
//     act(conv_result_scale * conv + side_input_scale * side_input +
//     bias[feature]), with activation_mode, conv_result_scale,
//     side_input_scale and leakyrelu_alpha from cudnn_conv_backend_config.
//
// The arithmetic is hlo-run's convolution kernel: the backward kinds run as
// the convolutions XLA's ConvRewriter matched them from (a transposed
// convolution for the input gradient; for the filter gradient, batch and
// feature of the input swapped and the output gradient as the window).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "eval/gpu/float_codec.h"
#include "eval/gpu/gpu_config.h"
#include "eval/gpu/gpu_custom_calls.h"
#include "eval/gpu/relu.h"
#include "eval/runtime/parallel.h"
#include "eval/vector_clones.h"
#include "ir/strings.h"

namespace hlo::gpu {
namespace {

absl::Status Invalid(std::string message) { return absl::InvalidArgumentError(std::move(message)); }

// A convolution instruction outside any computation, for the kernel.
std::unique_ptr<Instruction> MakeConvolution(const Shape* result, Window window, ConvDims dims,
                                             int64_t feature_groups, int64_t batch_groups) {
  auto conv = std::make_unique<Instruction>(Opcode::kConvolution, "cudnn-conv", result);
  conv->SetAttr(AttrKind::kWindow, std::make_shared<const Window>(std::move(window)));
  conv->SetAttr(AttrKind::kDimLabels, std::make_shared<const ConvDims>(std::move(dims)));
  if (feature_groups != 1) conv->SetAttr(AttrKind::kFeatureGroupCount, feature_groups);
  if (batch_groups != 1) conv->SetAttr(AttrKind::kBatchGroupCount, batch_groups);
  return conv;
}

struct ConvCall {
  const Instruction& inst;
  Operands ops;
  const Shape* result = nullptr;  // the tuple's first element
  Window window;
  ConvDims dims;
  int64_t feature_groups = 1;
};

absl::StatusOr<ConvCall> ReadCall(const Instruction& inst, Operands ops, size_t min_operands,
                                  size_t max_operands) {
  ConvCall c{inst, ops, nullptr, {}, {}, 1};
  const std::string target = TargetOf(inst);
  if (ops.size() < min_operands || ops.size() > max_operands) {
    return Invalid(StrCat("custom-call ", target, " takes ", min_operands,
                          max_operands > min_operands ? StrCat(" to ", max_operands) : "",
                          " operands, not ", ops.size()));
  }
  for (size_t i = 0; i < ops.size(); ++i) {
    if (!ops[i]->is_array()) return Invalid(StrCat("operand ", i, " of ", target, " is a tuple"));
  }
  const Shape& s = inst.shape();
  if (!s.IsTuple() || s.tuple_size() != 2 || !s.tuple_shape(0).IsArray()) {
    return Invalid(StrCat("custom-call ", target, " returns (result, u8[workspace]), not ",
                          s.ToString(false)));
  }
  c.result = &s.tuple_shape(0);
  if (inst.conv_dims() == nullptr || inst.window() == nullptr) {
    return Invalid(StrCat("custom-call ", target, " needs window and dim_labels"));
  }
  c.window = *inst.window();
  c.dims = *inst.conv_dims();
  c.feature_groups = inst.GetInt(AttrKind::kFeatureGroupCount, 1);
  if (c.window.size() != c.dims.input_spatial.size()) {
    return Invalid(StrCat("custom-call ", target, "'s window has ", c.window.size(),
                          " dimensions, its dim_labels ", c.dims.input_spatial.size(),
                          " spatial ones"));
  }
  return c;
}

absl::StatusOr<Value> Convolve(const Instruction& conv, const Value& lhs, const Value& rhs,
                               KernelContext& ev) {
  const Value* operands[2] = {&lhs, &rhs};
  return EvalConvolution(conv, Operands(operands, 2), ev);
}

// cuDNN takes no lhs dilation and no reversal in these calls; the backward
// kinds are defined for the cross-correlation XLA writes.
absl::Status PlainWindow(const ConvCall& c) {
  for (const WindowDim& w : c.window) {
    if (w.base_dilation != 1 || w.window_reversal) {
      return Invalid(StrCat("custom-call ", TargetOf(c.inst),
                            " with lhs dilation or window reversal is not a cuDNN convolution"));
    }
  }
  return absl::OkStatus();
}

// The forward convolution's output size along spatial dim i, from the input
// size: the output gradient must have it.
absl::Status CheckForwardSize(const ConvCall& c, size_t i, int64_t in, int64_t out) {
  const WindowDim& f = c.window[i];
  const int64_t reach = (f.size - 1) * f.window_dilation + 1;
  const int64_t padded = in + f.padding_low + f.padding_high;
  const int64_t want = padded < reach || f.stride < 1 ? 0 : (padded - reach) / f.stride + 1;
  if (want != out) {
    return Invalid(StrCat("custom-call ", TargetOf(c.inst),
                          ": the forward convolution of an input ", "of size ", in, " gives ", want,
                          " outputs along spatial dimension ", i, ", but the output gradient has ",
                          out));
  }
  return absl::OkStatus();
}

// The input gradient: a convolution of the output gradient, dilated by the
// stride, with the reversed filter, its input and output features swapped.
absl::StatusOr<Value> BackwardInput(const ConvCall& c, KernelContext& ev) {
  if (auto st = PlainWindow(c); !st.ok()) return st;
  if (c.feature_groups != 1) {
    return Invalid("__cudnn$convBackwardInput with feature_group_count > 1 (XLA does not make it)");
  }
  const ConvDims& d = c.dims;
  const Shape& out_grad = c.ops[0]->array().shape();
  ConvDims n;
  n.input_batch = d.output_batch;
  n.input_feature = d.output_feature;
  n.input_spatial = d.output_spatial;
  n.kernel_input_feature = d.kernel_output_feature;
  n.kernel_output_feature = d.kernel_input_feature;
  n.kernel_spatial = d.kernel_spatial;
  n.output_batch = d.input_batch;
  n.output_feature = d.input_feature;
  n.output_spatial = d.input_spatial;
  Window w;
  for (size_t i = 0; i < c.window.size(); ++i) {
    const WindowDim& f = c.window[i];
    if (d.output_spatial[i] >= out_grad.rank() || d.input_spatial[i] >= c.result->rank()) {
      return Invalid("dim_labels name a dimension the operands do not have");
    }
    const int64_t in = c.result->dim(d.input_spatial[i]);
    const int64_t out = out_grad.dim(d.output_spatial[i]);
    if (auto st = CheckForwardSize(c, i, in, out); !st.ok()) return st;
    const int64_t reach = (f.size - 1) * f.window_dilation;  // effective window - 1
    WindowDim b;
    b.size = f.size;
    b.stride = 1;
    b.base_dilation = f.stride;
    b.window_dilation = f.window_dilation;
    b.window_reversal = true;
    b.padding_low = reach - f.padding_low;
    b.padding_high = in + f.padding_low - (out - 1) * f.stride - 1;
    w.push_back(b);
  }
  auto conv = MakeConvolution(c.result, std::move(w), std::move(n), 1, 1);
  return Convolve(*conv, *c.ops[0], *c.ops[1], ev);
}

// The filter gradient: the input with batch and feature swapped, convolved
// with the output gradient as the window (the forward stride becomes the
// window dilation, the forward dilation the stride); feature groups become
// batch groups.
absl::StatusOr<Value> BackwardFilter(const ConvCall& c, KernelContext& ev) {
  if (auto st = PlainWindow(c); !st.ok()) return st;
  const ConvDims& d = c.dims;
  const Shape& input = c.ops[0]->array().shape();
  const Shape& out_grad = c.ops[1]->array().shape();
  ConvDims n;
  n.input_batch = d.input_feature;
  n.input_feature = d.input_batch;
  n.input_spatial = d.input_spatial;
  n.kernel_input_feature = d.output_batch;
  n.kernel_output_feature = d.output_feature;
  n.kernel_spatial = d.output_spatial;
  n.output_batch = d.kernel_input_feature;
  n.output_feature = d.kernel_output_feature;
  n.output_spatial = d.kernel_spatial;
  Window w;
  for (size_t i = 0; i < c.window.size(); ++i) {
    const WindowDim& f = c.window[i];
    if (d.output_spatial[i] >= out_grad.rank() || d.input_spatial[i] >= input.rank()) {
      return Invalid("dim_labels name a dimension the operands do not have");
    }
    const int64_t in = input.dim(d.input_spatial[i]);
    const int64_t out = out_grad.dim(d.output_spatial[i]);
    if (auto st = CheckForwardSize(c, i, in, out); !st.ok()) return st;
    WindowDim b;
    b.size = out;
    b.stride = f.window_dilation;
    b.window_dilation = f.stride;
    b.padding_low = f.padding_low;
    b.padding_high =
        (f.size - 1) * f.window_dilation + (out - 1) * f.stride + 1 - in - f.padding_low;
    w.push_back(b);
  }
  auto conv = MakeConvolution(c.result, std::move(w), std::move(n), 1, c.feature_groups);
  return Convolve(*conv, *c.ops[0], *c.ops[1], ev);
}

absl::StatusOr<Value> Forward(const ConvCall& c, KernelContext& ev) {
  auto conv = MakeConvolution(c.result, c.window, c.dims, c.feature_groups, 1);
  return Convolve(*conv, *c.ops[0], *c.ops[1], ev);
}

struct Epilogue {
  double conv_scale = 1, side_scale = 0, alpha = 0;
  std::string activation = "kNone";
};

absl::StatusOr<Epilogue> ReadEpilogue(const Instruction& inst) {
  absl::StatusOr<Json> m = ConfigMessage(inst, "cudnn_conv_backend_config");
  if (!m.ok()) return m.status();
  Epilogue e;
  absl::StatusOr<double> v = DoubleField(*m, "conv_result_scale", 1);
  if (!v.ok()) return v.status();
  e.conv_scale = *v;
  if (!(v = DoubleField(*m, "side_input_scale", 0)).ok()) return v.status();
  e.side_scale = *v;
  if (!(v = DoubleField(*m, "leakyrelu_alpha", 0)).ok()) return v.status();
  e.alpha = *v;
  absl::StatusOr<std::string> a = EnumField(*m, "activation_mode", "kNone");
  if (!a.ok()) return a.status();
  e.activation = *a;
  return e;
}

// cuDNN's activations (stream_executor's dnn.proto ActivationMode), by
// name or number.
absl::StatusOr<double (*)(double, double)> Activation(std::string_view mode) {
  using Fn = double (*)(double, double);
  struct Mode {
    std::string_view name, number;
    Fn fn;
  };
  static constexpr Mode kModes[] = {
      {"kNone", "0", [](double x, double) { return x; }},
      {"kSigmoid", "1", [](double x, double) { return 1 / (1 + std::exp(-x)); }},
      {"kRelu", "2", [](double x, double) { return x < 0 ? 0 : x; }},
      {"kRelu6", "3", [](double x, double) { return x < 0 ? 0 : (x > 6 ? 6 : x); }},
      {"kTanh", "5", [](double x, double) { return std::tanh(x); }},
      {"kElu", "7", [](double x, double) { return x < 0 ? std::expm1(x) : x; }},
      {"kLeakyRelu", "8", [](double x, double a) { return x < 0 ? a * x : x; }},
      {"kGeluExact", "9",
       [](double x, double) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }},
  };
  for (const Mode& m : kModes) {
    if (mode == m.name || mode == m.number) return m.fn;
  }
  return Invalid(StrCat("cuDNN activation_mode ", mode,
                        " is not one hlo-run knows (kNone, kSigmoid, kRelu, kRelu6, kTanh, kElu, "
                        "kLeakyRelu, kGeluExact)"));
}

// The activations the typed epilogue runs inline; any other one through
// its function.
enum class InlineAct { kNone, kRelu, kOther };

InlineAct InlineActivation(std::string_view mode) {
  if (mode == "kNone" || mode == "0") return InlineAct::kNone;
  if (mode == "kRelu" || mode == "2") return InlineAct::kRelu;
  return InlineAct::kOther;
}

// The epilogue's arrays: the convolution's result (updated in place), the
// bias, the side input or null, and the feature's place in the result
// (element i's feature is (i / inner) % features).
struct EpilogueArrays {
  Literal& out;
  const Literal& bias;
  const Literal* side;
  int64_t inner = 1, features = 1;
};

// act(scale * out[i] + bias[i or 0] + side_scale * side[i]) in f64 over a
// run of n elements: the generic loop's operations in its order. One bias
// value (bias_step 0) or one per element (1); no branch per element (a
// mispredicted branch per element was most of GPU cnn_fwd's ReLU epilogue).
// Elements are read and written through Codec (eval/gpu/float_codec.h) as
// GetDouble and SetDouble read and write them.
template <typename Codec, bool kSide, typename Act, typename S = typename Codec::Storage>
void EpilogueRun(S* __restrict out, const S* __restrict bias, int bias_step,
                 const S* __restrict side, int64_t n, const Epilogue& e, Act act,
                 Codec codec = {}) {
  const double scale = e.conv_scale, side_scale = e.side_scale, alpha = e.alpha;
  for (int64_t i = 0; i < n; ++i) {
    double x = scale * codec.Load(out[i]) + codec.Load(bias[i * bias_step]);
    if constexpr (kSide) x += side_scale * codec.Load(side[i]);
    out[i] = codec.Store(act(x, alpha));
  }
}

// Parts of the epilogue across the cores have at least this many elements.
constexpr int64_t kEpilogueMinPart = int64_t{1} << 14;

// The activations run inline (InlineActivation): in vector lanes for f32
// (EpilogueBlocksF32), element by element for the other types (EpilogueRun).
struct NoActivation {
  double operator()(double x, double) const { return x; }
};
struct ReluActivation {
  double operator()(double x, double) const { return ReluF64(x); }
};

// The f32 epilogue with no activation or ReLU over `blocks` whole feature
// blocks of features x inner elements, bias[f] for feature f: each lane the
// scalar loop's f64 operations (no product a compiler could contract into
// an FMA; ReluF64 a mask), so every vector width gives its bits.
// Two f64 lanes at a time with scalar conversions was 14% of GPU cnn_fwd.
template <bool kSide, bool kRelu>
HLO_VECTOR_CLONES void EpilogueBlocksF32(float* __restrict out, const float* __restrict bias,
                                         const float* __restrict side, int64_t blocks,
                                         int64_t features, int64_t inner, double scale,
                                         double side_scale) {
  if (inner == 1) {  // the feature is the minor dimension: a row against bias
    for (int64_t r = 0; r < blocks; ++r) {
      float* o = out + r * features;
      const float* s = kSide ? side + r * features : nullptr;
      for (int64_t f = 0; f < features; ++f) {
        double x = scale * static_cast<double>(o[f]) + static_cast<double>(bias[f]);
        if constexpr (kSide) x += side_scale * static_cast<double>(s[f]);
        if constexpr (kRelu) x = ReluF64(x);
        o[f] = static_cast<float>(x);
      }
    }
    return;
  }
  for (int64_t run = 0; run < blocks * features; ++run) {  // a feature's run
    float* o = out + run * inner;
    const float* s = kSide ? side + run * inner : nullptr;
    const double b = bias[run % features];
    for (int64_t k = 0; k < inner; ++k) {
      double x = scale * static_cast<double>(o[k]) + b;
      if constexpr (kSide) x += side_scale * static_cast<double>(s[k]);
      if constexpr (kRelu) x = ReluF64(x);
      o[k] = static_cast<float>(x);
    }
  }
}

// The epilogue over arrays of one type (Codec's: f32, f64, bf16 or f16), a
// run at a time: a row of features against the bias where the feature is
// the minor dimension (b01f), else a feature's run of `inner` elements
// against its one bias value.
template <typename Codec, bool kSide, typename Act>
void TypedEpilogue(const Epilogue& e, EpilogueArrays& a, Act act, Codec codec) {
  using S = typename Codec::Storage;
  S* out = reinterpret_cast<S*>(a.out.data());
  const S* bias = reinterpret_cast<const S*>(a.bias.data());
  const S* side = kSide ? reinterpret_cast<const S*>(a.side->data()) : nullptr;
  const int64_t n = a.out.element_count();
  constexpr bool kF32Loop =
      std::is_same_v<Codec, F32Codec> &&
      (std::is_same_v<Act, NoActivation> || std::is_same_v<Act, ReluActivation>);
  auto run = [&](int64_t at, int bias_at, int bias_step, int64_t count) {
    EpilogueRun<Codec, kSide>(out + at, bias + bias_at, bias_step, kSide ? side + at : nullptr,
                              count, e, act, codec);
  };
  // Blocks of whole feature rows (features x inner elements) go to the cores.
  const int64_t block = a.features * a.inner;
  const int64_t blocks = block > 0 ? n / block : 0;
  ParallelRows(blocks, std::max<int64_t>(1, kEpilogueMinPart / std::max<int64_t>(block, 1)),
               [&](int64_t begin, int64_t end) {
                 if constexpr (kF32Loop) {
                   EpilogueBlocksF32<kSide, std::is_same_v<Act, ReluActivation>>(
                       out + begin * block, bias, kSide ? side + begin * block : nullptr,
                       end - begin, a.features, a.inner, e.conv_scale, e.side_scale);
                 } else {
                   for (int64_t r = begin; r < end; ++r) {
                     if (a.inner == 1) {
                       run(r * block, 0, 1, a.features);
                       continue;
                     }
                     for (int64_t f = 0; f < a.features; ++f) {
                       run(r * block + f * a.inner, static_cast<int>(f), 0, a.inner);
                     }
                   }
                 }
               });
}

template <typename Codec>
void TypedEpilogueOf(const Epilogue& e, EpilogueArrays& a, double (*fn)(double, double),
                     Codec codec = {}) {
  const bool side = a.side != nullptr && e.side_scale != 0;
  auto run = [&](auto act) {
    if (side) {
      TypedEpilogue<Codec, true>(e, a, act, codec);
    } else {
      TypedEpilogue<Codec, false>(e, a, act, codec);
    }
  };
  switch (InlineActivation(e.activation)) {
    case InlineAct::kNone:
      run(NoActivation{});
      return;
    case InlineAct::kRelu:
      run(ReluActivation{});
      return;
    case InlineAct::kOther:
      run(fn);
      return;
  }
}

// Any types: element by element through the literal's f64 accessors (the
// reference of the typed loops: hlo-run --no-fast-paths).
void GenericEpilogue(const Epilogue& e, EpilogueArrays& a, double (*act)(double, double)) {
  for (int64_t i = 0; i < a.out.element_count(); ++i) {
    double x = e.conv_scale * a.out.GetDouble(i) + a.bias.GetDouble((i / a.inner) % a.features);
    if (a.side != nullptr && e.side_scale != 0) x += e.side_scale * a.side->GetDouble(i);
    a.out.SetDouble(i, act(x, e.alpha));
  }
}

// act(conv_scale * conv + side_scale * side + bias[feature]) in f64, into
// the result's type.
absl::StatusOr<Value> BiasActivation(const ConvCall& c, KernelContext& ev) {
  absl::StatusOr<Epilogue> e = ReadEpilogue(c.inst);
  if (!e.ok()) return e.status();
  absl::StatusOr<double (*)(double, double)> act = Activation(e->activation);
  if (!act.ok()) return act.status();
  const Shape& r = *c.result;
  const int64_t feature_dim = c.dims.output_feature;
  if (feature_dim >= r.rank()) return Invalid("dim_labels name a dimension the result lacks");
  const Literal& bias = c.ops[2]->array();
  if (bias.shape().rank() != 1 || bias.shape().dim(0) != r.dim(feature_dim)) {
    return Invalid(StrCat("the bias of ", TargetOf(c.inst), " must have the ", r.dim(feature_dim),
                          " output features, not shape ", bias.shape().ToString(false)));
  }
  const Literal* side = c.ops.size() > 3 ? &c.ops[3]->array() : nullptr;
  if (side != nullptr && side->shape().dims() != r.dims()) {
    return Invalid(StrCat("the side input of ", TargetOf(c.inst), " must have the result's shape ",
                          r.ToString(false), ", not ", side->shape().ToString(false)));
  }
  if (side == nullptr && e->side_scale != 0) {
    return Invalid("side_input_scale is not 0, yet there is no side input");
  }
  absl::StatusOr<Value> conv = Forward(c, ev);
  if (!conv.ok()) return conv;
  EpilogueArrays a{conv->mutable_array(), bias, side};
  for (int64_t k = feature_dim + 1; k < r.rank(); ++k) a.inner *= r.dim(k);
  a.features = r.dim(feature_dim);
  const PrimitiveType t = a.out.element_type();
  const bool one_type = bias.element_type() == t && (side == nullptr || side->element_type() == t);
  const bool fast = ev.options().fast_paths;
  if (fast && one_type && t == PrimitiveType::kF32) {
    TypedEpilogueOf<F32Codec>(*e, a, *act);
  } else if (fast && one_type && t == PrimitiveType::kF64) {
    TypedEpilogueOf<F64Codec>(*e, a, *act);
  } else if (fast && one_type && (t == PrimitiveType::kBF16 || t == PrimitiveType::kF16)) {
    TypedEpilogueOf(*e, a, *act, HalfCodec{t});
  } else {
    GenericEpilogue(*e, a, *act);
  }
  return conv;
}

enum class Kind { kForward, kBackwardInput, kBackwardFilter, kBiasActivation };

absl::StatusOr<Value> RunCudnnConv(const Instruction& inst, Operands ops, KernelContext& ev,
                                   Kind kind) {
  const bool fused = kind == Kind::kBiasActivation;
  absl::StatusOr<ConvCall> c = ReadCall(inst, ops, fused ? 3 : 2, fused ? 4 : 2);
  if (!c.ok()) return c.status();
  absl::StatusOr<Value> result;
  switch (kind) {
    case Kind::kForward: {
      result = Forward(*c, ev);
      absl::StatusOr<Epilogue> e = ReadEpilogue(inst);
      if (!e.ok()) return e.status();
      if (result.ok() && e->conv_scale != 1) {
        Literal& out = result->mutable_array();
        for (int64_t i = 0; i < out.element_count(); ++i) {
          out.SetDouble(i, e->conv_scale * out.GetDouble(i));
        }
      }
      break;
    }
    case Kind::kBackwardInput:
      result = BackwardInput(*c, ev);
      break;
    case Kind::kBackwardFilter:
      result = BackwardFilter(*c, ev);
      break;
    case Kind::kBiasActivation:
      result = BiasActivation(*c, ev);
      break;
  }
  if (!result.ok()) return result;
  std::vector<Value> results;
  results.push_back(*std::move(result));
  return WithWorkspaces(inst, std::move(results));
}

}  // namespace

absl::StatusOr<Value> EvalCudnnConvForward(const Instruction& inst, Operands ops,
                                           KernelContext& ev) {
  return RunCudnnConv(inst, ops, ev, Kind::kForward);
}
absl::StatusOr<Value> EvalCudnnConvBackwardInput(const Instruction& inst, Operands ops,
                                                 KernelContext& ev) {
  return RunCudnnConv(inst, ops, ev, Kind::kBackwardInput);
}
absl::StatusOr<Value> EvalCudnnConvBackwardFilter(const Instruction& inst, Operands ops,
                                                  KernelContext& ev) {
  return RunCudnnConv(inst, ops, ev, Kind::kBackwardFilter);
}
absl::StatusOr<Value> EvalCudnnConvBiasActivation(const Instruction& inst, Operands ops,
                                                  KernelContext& ev) {
  return RunCudnnConv(inst, ops, ev, Kind::kBiasActivation);
}

}  // namespace hlo::gpu

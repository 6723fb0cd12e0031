// XLA:GPU's cuBLAS calls (xla/backends/gpu/transforms/gemm_rewriter.cc,
// triangular_solve_rewriter.cc, backend_configs.proto):
//
//   __cublas$gemm, __cublas$lt$matmul (lhs, rhs[, c][, bias]) ->
//     (out[, aux], s8[workspace]), from gemm_backend_config:
//     out = act(alpha * dot(lhs, rhs) + beta * c + bias), the dot's
//     dimensions from dot_dimension_numbers; c (the matrix bias, operand 2)
//     is there when beta is not 0, bias (a vector along the output's
//     minor-most dimension) when the epilogue names BIAS; act is relu, gelu
//     (cuBLASLt's tanh approximation) or silu after the epilogue's name;
//     the *_AUX epilogues also return the value before act.
//   __cublas$triangularSolve (a, b) -> (x, s8[workspace]), the options of
//     XLA's triangular-solve (TriangularSolveOptions as backend_config).
//
// The dot and the solve are hlo-run's kernels; the epilogue runs in f64
// and rounds once to the result type (a typed loop over the cores where
// every operand is of the result's type, f32, f64, bf16 or f16;
// --no-fast-paths keeps the generic one).
#include "eval/gpu/cublas.h"

#include <cmath>
#include <complex>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "eval/gpu/float_codec.h"
#include "eval/gpu/gpu_config.h"
#include "eval/gpu/gpu_custom_calls.h"
#include "eval/gpu/relu.h"
#include "eval/runtime/parallel.h"
#include "ir/strings.h"

namespace hlo::gpu {
namespace {

absl::Status Invalid(std::string message) { return absl::InvalidArgumentError(std::move(message)); }

}  // namespace

absl::StatusOr<Gemm> ReadGemm(const Instruction& inst) {
  absl::StatusOr<Json> m = ConfigMessage(inst, "gemm_backend_config");
  if (!m.ok()) return m.status();
  Gemm g;
  absl::StatusOr<double> v = DoubleField(*m, "alpha_real", 1);
  if (!v.ok()) return v.status();
  g.alpha = *v;
  if (!(v = DoubleField(*m, "alpha_imag", 0)).ok()) return v.status();
  g.alpha_imag = *v;
  if (!(v = DoubleField(*m, "beta", 0)).ok()) return v.status();
  g.beta = *v;
  absl::StatusOr<bool> damax = BoolField(*m, "damax_output", false);
  if (!damax.ok()) return damax.status();
  g.damax_output = *damax;
  absl::StatusOr<int64_t> scale_mode = IntField(*m, "scale_mode", 0);
  if (!scale_mode.ok()) return scale_mode.status();
  g.scale_mode = *scale_mode;
  Json dims = Json::object();
  if (m->contains("dot_dimension_numbers")) dims = (*m)["dot_dimension_numbers"];
  struct {
    const char* name;
    std::vector<int64_t>* out;
  } lists[] = {{"lhs_batch_dimensions", &g.lhs_batch},
               {"lhs_contracting_dimensions", &g.lhs_contracting},
               {"rhs_batch_dimensions", &g.rhs_batch},
               {"rhs_contracting_dimensions", &g.rhs_contracting}};
  for (auto& l : lists) {
    absl::StatusOr<std::vector<int64_t>> d = IntListField(dims, l.name);
    if (!d.ok()) return d.status();
    *l.out = *std::move(d);
  }
  absl::StatusOr<std::string> e = EnumField(*m, "epilogue", "DEFAULT");
  if (!e.ok()) return e.status();
  g.epilogue = *e;
  // The enum by name (or number, proto3's JSON may write either).
  static constexpr struct {
    std::string_view name, number, activation;
    bool bias, aux;
  } kEpilogues[] = {
      {"DEFAULT", "0", "", false, false},      {"BIAS", "1", "", true, false},
      {"RELU", "2", "RELU", false, false},     {"BIAS_RELU", "3", "RELU", true, false},
      {"GELU", "4", "GELU", false, false},     {"GELU_AUX", "5", "GELU", false, true},
      {"BIAS_GELU", "6", "GELU", true, false}, {"BIAS_GELU_AUX", "7", "GELU", true, true},
      {"SILU", "8", "SILU", false, false},     {"BIAS_SILU", "9", "SILU", true, false}};
  for (const auto& k : kEpilogues) {
    if (g.epilogue == k.name || g.epilogue == k.number) {
      g.bias = k.bias;
      g.aux = k.aux;
      g.activation = k.activation;
      return g;
    }
  }
  return Invalid(StrCat("gemm epilogue ", g.epilogue, " is not one hlo-run knows"));
}

std::unique_ptr<Instruction> GemmDot(const Shape* result, const Gemm& g) {
  auto dot = std::make_unique<Instruction>(Opcode::kDot, "cublas-gemm", result);
  dot->SetAttr(AttrKind::kLhsBatchDims, g.lhs_batch);
  dot->SetAttr(AttrKind::kLhsContractingDims, g.lhs_contracting);
  dot->SetAttr(AttrKind::kRhsBatchDims, g.rhs_batch);
  dot->SetAttr(AttrKind::kRhsContractingDims, g.rhs_contracting);
  return dot;
}

namespace {

// The epilogue's activation, decided once a call.
enum class GemmAct { kNone, kRelu, kGelu, kSilu };

GemmAct GemmActOf(std::string_view act) {
  if (act == "RELU") return GemmAct::kRelu;
  if (act == "GELU") return GemmAct::kGelu;
  if (act == "SILU") return GemmAct::kSilu;
  return GemmAct::kNone;
}

template <GemmAct A>
double ApplyGemmAct(double x) {
  if constexpr (A == GemmAct::kRelu) {
    return ReluF64(x);
  } else if constexpr (A == GemmAct::kGelu) {
    const double c = std::sqrt(2 / M_PI);
    return 0.5 * x * (1 + std::tanh(c * (x + 0.044715 * x * x * x)));
  } else if constexpr (A == GemmAct::kSilu) {
    return x / (1 + std::exp(-x));
  } else {
    return x;
  }
}

// Calls f(std::integral_constant<GemmAct, act>).
template <typename F>
void DispatchGemmAct(GemmAct act, F&& f) {
  switch (act) {
    case GemmAct::kNone:
      return f(std::integral_constant<GemmAct, GemmAct::kNone>{});
    case GemmAct::kRelu:
      return f(std::integral_constant<GemmAct, GemmAct::kRelu>{});
    case GemmAct::kGelu:
      return f(std::integral_constant<GemmAct, GemmAct::kGelu>{});
    case GemmAct::kSilu:
      return f(std::integral_constant<GemmAct, GemmAct::kSilu>{});
  }
}

// The real epilogue's arrays, all of one element type (Codec's: f32, f64,
// bf16 or f16): c, bias and aux may be null. Element i's bias is
// bias[(i / inner) % features].
template <typename Codec>
struct TypedGemmEpilogue {
  using S = typename Codec::Storage;
  Codec codec;
  S* out = nullptr;
  const S* c = nullptr;
  const S* bias = nullptr;
  S* aux = nullptr;
  double alpha = 1, beta = 0;
  int64_t inner = 1, features = 1;
};

// Elements [begin, end): the generic loop's f64 operations in its order,
// each element read and written as GetDouble and SetDouble do, without
// their per-element type dispatch and the activation's lookup.
template <typename Codec, GemmAct A>
void GemmEpilogueRange(const TypedGemmEpilogue<Codec>& e, int64_t begin, int64_t end) {
  int64_t j = begin % e.inner, f = (begin / e.inner) % e.features;
  for (int64_t i = begin; i < end; ++i) {
    double x = e.alpha * e.codec.Load(e.out[i]);
    if (e.c != nullptr) x += e.beta * e.codec.Load(e.c[i]);
    if (e.bias != nullptr) {
      x += e.codec.Load(e.bias[f]);
      if (++j == e.inner) {
        j = 0;
        if (++f == e.features) f = 0;
      }
    }
    if (e.aux != nullptr) e.aux[i] = e.codec.Store(x);
    e.out[i] = e.codec.Store(ApplyGemmAct<A>(x));
  }
}

// Parts of at least this many elements go to the cores (GELU's tanh in f64
// is most of a model's epilogue).
constexpr int64_t kEpilogueMinPart = int64_t{1} << 14;

template <typename Codec>
void RunGemmEpilogue(const TypedGemmEpilogue<Codec>& e, int64_t n, GemmAct act) {
  DispatchGemmAct(act, [&](auto a) {
    ParallelRows(n, kEpilogueMinPart, [&](int64_t begin, int64_t end) {
      GemmEpilogueRange<Codec, decltype(a)::value>(e, begin, end);
    });
  });
}

// The typed epilogue where the result and every real operand share f32,
// f64, bf16 or f16; false otherwise (the caller runs the generic loop).
bool TypedEpilogue(Literal& o, const Literal* c, const Literal* bias, Literal* aux, const Gemm& g,
                   int64_t inner, int64_t features) {
  const PrimitiveType t = o.element_type();
  for (const Literal* l : {c, bias, static_cast<const Literal*>(aux)}) {
    if (l != nullptr && l->element_type() != t) return false;
  }
  auto run = [&](auto codec) {
    using S = typename decltype(codec)::Storage;
    TypedGemmEpilogue<decltype(codec)> e;
    e.codec = codec;
    e.out = reinterpret_cast<S*>(o.data());
    e.c = c != nullptr ? reinterpret_cast<const S*>(c->data()) : nullptr;
    e.bias = bias != nullptr ? reinterpret_cast<const S*>(bias->data()) : nullptr;
    e.aux = aux != nullptr ? reinterpret_cast<S*>(aux->data()) : nullptr;
    e.alpha = g.alpha;
    e.beta = g.beta;
    if (bias != nullptr) {
      e.inner = inner;
      e.features = features;
    }
    RunGemmEpilogue(e, o.element_count(), GemmActOf(g.activation));
  };
  switch (t) {
    case PrimitiveType::kF32:
      run(F32Codec{});
      return true;
    case PrimitiveType::kF64:
      run(F64Codec{});
      return true;
    case PrimitiveType::kBF16:
    case PrimitiveType::kF16:
      run(HalfCodec{t});
      return true;
    default:
      return false;
  }
}

}  // namespace

double GemmActivation(std::string_view act, double x) {
  double y = x;
  DispatchGemmAct(GemmActOf(act), [&](auto a) { y = ApplyGemmAct<decltype(a)::value>(x); });
  return y;
}

// The output dimension the vector bias runs along: the result's minor-most.
int64_t GemmBiasDim(const Shape& out) {
  if (out.has_layout() && !out.layout().minor_to_major.empty()) {
    return out.layout().minor_to_major[0];
  }
  return out.rank() - 1;
}

absl::StatusOr<Value> EvalCublasGemm(const Instruction& inst, Operands ops, KernelContext& ev) {
  const std::string target = TargetOf(inst);
  absl::StatusOr<Gemm> g = ReadGemm(inst);
  if (!g.ok()) return g.status();
  const size_t want = 2 + (g->beta != 0 ? 1 : 0) + (g->bias ? 1 : 0);
  if (ops.size() != want) {
    return Invalid(StrCat("custom-call ", target, " with beta ", g->beta, " and epilogue ",
                          g->epilogue, " takes ", want, " operands, not ", ops.size()));
  }
  for (size_t i = 0; i < ops.size(); ++i) {
    if (!ops[i]->is_array()) return Invalid(StrCat("operand ", i, " of ", target, " is a tuple"));
  }
  const Shape& s = inst.shape();
  const Shape* out = s.IsTuple() && s.tuple_size() > 0 ? &s.tuple_shape(0) : &s;
  if (!out->IsArray() ||
      (g->aux && (!s.IsTuple() || s.tuple_size() < 2 || s.tuple_shape(1).dims() != out->dims()))) {
    return Invalid(StrCat("custom-call ", target, " returns (out", g->aux ? ", aux" : "",
                          ", s8[workspace]), not ", s.ToString(false)));
  }
  auto dot = GemmDot(out, *g);
  absl::StatusOr<Value> result = EvalDot(*dot, ops.subspan(0, 2), ev);
  if (!result.ok()) return result;
  Literal& o = result->mutable_array();
  const Literal* c = g->beta != 0 ? &ops[2]->array() : nullptr;
  if (c != nullptr && c->shape().dims() != out->dims()) {
    return Invalid(StrCat("the matrix bias of ", target, " must have the result's dims ",
                          out->ToString(false), ", not ", c->shape().ToString(false)));
  }
  const Literal* bias = g->bias ? &ops.back()->array() : nullptr;
  const int64_t bias_dim = GemmBiasDim(*out);
  int64_t inner = 1;
  if (bias != nullptr) {
    if (bias->shape().rank() != 1 || out->rank() == 0 ||
        bias->shape().dim(0) != out->dim(bias_dim)) {
      return Invalid(StrCat("the bias of ", target, " must run along the result's dimension ",
                            bias_dim, ", not be ", bias->shape().ToString(false)));
    }
    for (int64_t k = bias_dim + 1; k < out->rank(); ++k) inner *= out->dim(k);
  }
  std::shared_ptr<Literal> aux;
  if (g->aux) {
    absl::StatusOr<Value> a = NewArrayUninitialized(s.tuple_shape(1));
    if (!a.ok()) return a;
    aux = a->array_ptr();
  }
  const bool plain = g->alpha == 1 && g->alpha_imag == 0 && c == nullptr && bias == nullptr &&
                     g->activation.empty();
  if (IsComplex(out->element_type())) {
    // Complex gemms: alpha (complex) and beta only; cuBLASLt's epilogues are real.
    if (bias != nullptr || !g->activation.empty()) {
      return Invalid(StrCat(target, " with a complex result takes no epilogue, not ", g->epilogue));
    }
    const std::complex<double> alpha(g->alpha, g->alpha_imag);
    for (int64_t i = 0; !plain && i < o.element_count(); ++i) {
      std::complex<double> x = alpha * o.GetComplex(i);
      if (c != nullptr) x += g->beta * c->GetComplex(i);
      o.SetComplex(i, x);
    }
    std::vector<Value> results;
    results.push_back(*std::move(result));
    return WithWorkspaces(inst, std::move(results));
  }
  if (g->alpha_imag != 0) {
    return Invalid(StrCat(target, " with a real result takes no imaginary alpha"));
  }
  const int64_t features = bias != nullptr ? out->dim(bias_dim) : 1;
  const bool typed = !plain && ev.options().fast_paths &&
                     TypedEpilogue(o, c, bias, aux.get(), *g, inner, features);
  for (int64_t i = 0; !plain && !typed && i < o.element_count(); ++i) {
    double x = g->alpha * o.GetDouble(i);
    if (c != nullptr) x += g->beta * c->GetDouble(i);
    if (bias != nullptr) x += bias->GetDouble((i / inner) % out->dim(bias_dim));
    if (aux) aux->SetDouble(i, x);
    o.SetDouble(i, GemmActivation(g->activation, x));
  }
  std::vector<Value> results;
  results.push_back(*std::move(result));
  if (aux) results.push_back(Value::Array(aux));
  return WithWorkspaces(inst, std::move(results));
}

absl::StatusOr<Value> EvalCublasTriangularSolve(const Instruction& inst, Operands ops,
                                                KernelContext& ev) {
  const std::string target = TargetOf(inst);
  if (ops.size() != 2) return Invalid(StrCat("custom-call ", target, " takes (a, b)"));
  absl::StatusOr<Json> m = ConfigMessage(inst, "triangular_solve_options");
  if (!m.ok()) return m.status();
  const Shape& s = inst.shape();
  const Shape* out = s.IsTuple() && s.tuple_size() > 0 ? &s.tuple_shape(0) : &s;
  auto solve = std::make_unique<Instruction>(Opcode::kTriangularSolve, "cublas-trsm", out);
  for (auto [name, kind] :
       {std::pair{"left_side", AttrKind::kLeftSide}, std::pair{"lower", AttrKind::kLower},
        std::pair{"unit_diagonal", AttrKind::kUnitDiagonal}}) {
    absl::StatusOr<bool> b = BoolField(*m, name, false);
    if (!b.ok()) return b.status();
    solve->SetAttr(kind, *b);
  }
  absl::StatusOr<std::string> t = EnumField(*m, "transpose_a", "NO_TRANSPOSE");
  if (!t.ok()) return t.status();
  const std::string names[] = {"TRANSPOSE_INVALID", "NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"};
  for (int i = 1; i < 4; ++i) {
    if (*t == StrCat(i)) *t = names[i];
  }
  solve->SetAttr(AttrKind::kTransposeA, InternedString(*t));
  absl::StatusOr<Value> x = EvalLinalg(*solve, ops, ev);
  if (!x.ok()) return x;
  std::vector<Value> results;
  results.push_back(*std::move(x));
  return WithWorkspaces(inst, std::move(results));
}

}  // namespace hlo::gpu

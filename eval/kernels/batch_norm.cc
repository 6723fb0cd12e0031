// batch-norm-training, batch-norm-inference and batch-norm-grad, as the
// decompositions of stablehlo-spec.en.md (and the formulas of
// operation-semantics.en.txt): statistics over every dimension but
// feature_index, the variance biased (divided by the element count).
//
// Every operand is widened to double and each result rounded to its type
// once; epsilon is first rounded to the operand's element type, as the spec's
// constant(epsilon, element_type(operand)) does.
#include <cmath>
#include <memory>
#include <vector>

#include "eval/kernels/kernels.h"
#include "ir/strings.h"

namespace hlo {
namespace {

// The elements of a float literal as doubles (typed loops for f32/f64).
std::vector<double> ToDoubles(const Literal& lit) {
  const int64_t n = lit.element_count();
  std::vector<double> out(n);
  if (lit.element_type() == PrimitiveType::kF32) {
    const float* x = lit.typed<float>();
    for (int64_t i = 0; i < n; ++i) out[i] = x[i];
  } else if (lit.element_type() == PrimitiveType::kF64) {
    const double* x = lit.typed<double>();
    for (int64_t i = 0; i < n; ++i) out[i] = x[i];
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = lit.GetDouble(i);
  }
  return out;
}

// A new array value of `shape` holding v rounded to its element type.
absl::StatusOr<Value> FromDoubles(const Shape& shape, const std::vector<double>& v) {
  absl::StatusOr<Value> out = NewArray(shape);
  if (!out.ok()) return out;
  Literal& lit = out->mutable_array();
  if (lit.element_count() != static_cast<int64_t>(v.size())) {
    return absl::InvalidArgumentError(
        StrCat("result ", shape.ToString(false), " should have ", v.size(), " elements"));
  }
  const int64_t n = lit.element_count();
  if (lit.element_type() == PrimitiveType::kF32) {
    float* y = lit.typed<float>();
    for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(v[i]);
  } else if (lit.element_type() == PrimitiveType::kF64) {
    std::copy(v.begin(), v.end(), lit.typed<double>());
  } else {
    for (int64_t i = 0; i < n; ++i) lit.SetDouble(i, v[i]);
  }
  return out;
}

// x rounded to element type t.
double RoundTo(PrimitiveType t, double x) {
  absl::StatusOr<Literal> lit = Literal::Create(Shape::Array(t, {}));
  if (!lit.ok()) return x;
  lit->SetDouble(0, x);
  return lit->GetDouble(0);
}

// The operand viewed as [outer, features, inner] around feature_index.
struct FeatureLayout {
  int64_t outer = 1, features = 1, inner = 1;
  int64_t count() const { return outer * inner; }  // elements per feature
  // f(feature, begin, end) for every contiguous run [begin, end) of flat
  // indices of one feature, so that the loops inside f vectorise.
  template <typename F>
  void ForEachRun(F&& f) const {
    int64_t begin = 0;
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t c = 0; c < features; ++c, begin += inner) f(c, begin, begin + inner);
    }
  }
};

// Per-feature sums of g(feature, flat index).
template <typename G>
std::vector<double> SumPerFeature(const FeatureLayout& l, G&& g) {
  std::vector<double> sum(l.features, 0.0);
  l.ForEachRun([&](int64_t c, int64_t begin, int64_t end) {
    double s = 0;
    for (int64_t i = begin; i < end; ++i) s += g(c, i);
    sum[c] += s;
  });
  return sum;
}

struct BatchNormInputs {
  FeatureLayout layout;
  double epsilon = 0;
  std::vector<double> x;
  std::vector<std::vector<double>> vectors;  // the rank-1 operands in order
};

absl::StatusOr<BatchNormInputs> ReadInputs(const Instruction& inst, Operands ops) {
  const size_t want = inst.opcode() == Opcode::kBatchNormTraining ? 3 : 5;
  if (ops.size() != want) {
    return absl::InvalidArgumentError(
        StrCat(inst.OpcodeText(), " takes ", want, " operands but has ", ops.size()));
  }
  for (const Value* v : ops) {
    if (!v->is_array() || !IsFloat(v->array().element_type())) {
      return absl::InvalidArgumentError(
          StrCat(inst.OpcodeText(), " takes floating-point array operands"));
    }
  }
  const Shape& s = ops[0]->array().shape();
  const int64_t f = inst.GetInt(AttrKind::kFeatureIndex, -1);
  if (f < 0 || f >= s.rank()) {
    return absl::InvalidArgumentError(
        StrCat("feature_index ", f, " is out of range for ", s.ToString(false)));
  }
  BatchNormInputs in;
  in.layout.features = s.dim(f);
  for (int64_t d = 0; d < f; ++d) in.layout.outer *= s.dim(d);
  for (int64_t d = f + 1; d < s.rank(); ++d) in.layout.inner *= s.dim(d);
  // batch-norm-grad's last operand is grad_output, shaped like the operand.
  const size_t vectors_end = inst.opcode() == Opcode::kBatchNormGrad ? ops.size() - 1 : ops.size();
  for (size_t i = 1; i < vectors_end; ++i) {
    const Shape& v = ops[i]->array().shape();
    if (v.rank() != 1 || v.dim(0) != s.dim(f)) {
      return absl::InvalidArgumentError(StrCat("operand ", i, " ", v.ToString(false),
                                               " must have one element per feature of ",
                                               s.ToString(false)));
    }
    in.vectors.push_back(ToDoubles(ops[i]->array()));
  }
  if (vectors_end != ops.size() &&
      !std::equal(s.dims().begin(), s.dims().end(), ops.back()->array().shape().dims().begin(),
                  ops.back()->array().shape().dims().end())) {
    return absl::InvalidArgumentError(
        StrCat("grad_output ", ops.back()->array().shape().ToString(false),
               " must have the dimensions of the operand ", s.ToString(false)));
  }
  in.x = ToDoubles(ops[0]->array());
  in.epsilon = RoundTo(s.element_type(), inst.GetFloat(AttrKind::kEpsilon, 0));
  return in;
}

// scale * (x - mean) / sqrt(variance + epsilon) + offset.
std::vector<double> Normalize(const BatchNormInputs& in, const std::vector<double>& scale,
                              const std::vector<double>& offset, const std::vector<double>& mean,
                              const std::vector<double>& variance) {
  std::vector<double> y(in.x.size());
  in.layout.ForEachRun([&](int64_t c, int64_t begin, int64_t end) {
    const double m = mean[c], sd = std::sqrt(variance[c] + in.epsilon), s = scale[c];
    const double o = offset[c];
    for (int64_t i = begin; i < end; ++i) y[i] = s * ((in.x[i] - m) / sd) + o;
  });
  return y;
}

// The tuple element shapes of a 3-tuple result.
absl::StatusOr<std::vector<const Shape*>> TupleOf3(const Instruction& inst) {
  const Shape& s = inst.shape();
  if (!s.IsTuple() || s.tuple_size() != 3) {
    return absl::InvalidArgumentError(
        StrCat(inst.OpcodeText(), " returns a 3-tuple, not ", s.ToString(false)));
  }
  return s.tuple_shapes();
}

absl::StatusOr<Value> MakeTuple(const std::vector<const Shape*>& shapes,
                                const std::vector<std::vector<double>>& parts) {
  std::vector<Value> elements;
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (!shapes[i]->IsArray()) return absl::InvalidArgumentError("result elements must be arrays");
    absl::StatusOr<Value> v = FromDoubles(*shapes[i], parts[i]);
    if (!v.ok()) return v;
    elements.push_back(*std::move(v));
  }
  return Value::Tuple(std::move(elements));
}

absl::StatusOr<Value> Training(const Instruction& inst, const BatchNormInputs& in) {
  absl::StatusOr<std::vector<const Shape*>> shapes = TupleOf3(inst);
  if (!shapes.ok()) return shapes.status();
  const double n = static_cast<double>(in.layout.count());
  std::vector<double> mean = SumPerFeature(in.layout, [&](int64_t, int64_t i) { return in.x[i]; });
  for (double& m : mean) m /= n;
  std::vector<double> var = SumPerFeature(in.layout, [&](int64_t c, int64_t i) {
    const double d = in.x[i] - mean[c];
    return d * d;
  });
  for (double& v : var) v /= n;
  std::vector<double> y = Normalize(in, in.vectors[0], in.vectors[1], mean, var);
  return MakeTuple(*shapes, {y, mean, var});
}

absl::StatusOr<Value> Grad(const Instruction& inst, const BatchNormInputs& in,
                           const Literal& grad_output) {
  absl::StatusOr<std::vector<const Shape*>> shapes = TupleOf3(inst);
  if (!shapes.ok()) return shapes.status();
  const std::vector<double>& scale = in.vectors[0];
  const std::vector<double>& mean = in.vectors[1];
  const std::vector<double>& var = in.vectors[2];
  const std::vector<double> dy = ToDoubles(grad_output);
  const double n = static_cast<double>(in.layout.count());
  std::vector<double> sum_dy = SumPerFeature(in.layout, [&](int64_t, int64_t i) { return dy[i]; });
  std::vector<double> sum_dy_xc =
      SumPerFeature(in.layout, [&](int64_t c, int64_t i) { return dy[i] * (in.x[i] - mean[c]); });
  std::vector<double> grad_x(in.x.size());
  std::vector<double> grad_scale(in.layout.features, 0.0);
  in.layout.ForEachRun([&](int64_t c, int64_t begin, int64_t end) {
    const double var_eps = var[c] + in.epsilon;
    const double stddev = std::sqrt(var_eps);
    const double factor = scale[c] / stddev / n;
    double gs = 0;
    for (int64_t i = begin; i < end; ++i) {
      const double xc = in.x[i] - mean[c];
      const double i6 = dy[i] * n - sum_dy[c] - sum_dy_xc[c] * xc / var_eps;
      grad_x[i] = factor * i6;
      gs += dy[i] * (xc / stddev);
    }
    grad_scale[c] += gs;
  });
  return MakeTuple(*shapes, {grad_x, grad_scale, sum_dy});
}

}  // namespace

absl::StatusOr<Value> EvalBatchNorm(const Instruction& inst, Operands ops, KernelContext&) {
  absl::StatusOr<BatchNormInputs> in = ReadInputs(inst, ops);
  if (!in.ok()) return in.status();
  switch (inst.opcode()) {
    case Opcode::kBatchNormTraining:
      return Training(inst, *in);
    case Opcode::kBatchNormGrad:
      return Grad(inst, *in, ops.back()->array());
    default: {
      if (!inst.shape().IsArray()) {
        return absl::InvalidArgumentError("batch-norm-inference returns an array");
      }
      const auto& v = in->vectors;
      return FromDoubles(inst.shape(), Normalize(*in, v[0], v[1], v[2], v[3]));
    }
  }
}

}  // namespace hlo

// chlo's special functions, decomposed into HLO as XLA's CHLO legalization
// does: lgamma and digamma (Lanczos approximation with g = 7 and reflection
// below 1/2), conj. f16 and bf16 are computed in f32, as XLA does. (asin,
// acos, atan, sinh, cosh, asinh, acosh and atanh are HLO ops: chlo.cc.)
#include <cmath>
#include <cstdio>
#include <functional>

#include "ir/status_macros.h"
#include "ir/strings.h"
#include "stablehlo/chlo_builder.h"

namespace hlo::stablehlo {

namespace {

using Body = std::function<std::string(Builder&, const std::string&, const Type&)>;

// Runs `body` on the operand in f32 (f16, bf16, f32) or f64.
absl::Status Real(Translator& t, const Op& op, Scope& s, const Body& body) {
  HLO_ASSIGN_OR_RETURN(Value x0, OneOperand(t, op, s));
  const std::string& e = x0.type.element;
  if (e != "f16" && e != "bf16" && e != "f32" && e != "f64") {
    return t.Error(op.name_pos, StrCat(op.name, " of ", x0.type.Mlir(), " is not supported yet"));
  }
  Builder b{t, s, op, x0.type};
  const Type f = b.Of(e == "f64" ? "f64" : "f32");
  std::string x = f.element == e ? x0.name : b.Un("convert", x0.name, f);
  std::string r = body(b, x, f);
  if (f.element != e) r = b.Un("convert", r, x0.type);
  return t.BindResults(s, op, r);
}

std::string K(Builder& b, double v, const Type& f) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return b.Const(buf, f);
}

constexpr double kPi = 3.14159265358979323846;

// Lanczos approximation (g = 7, n = 9), as XLA's Lgamma and Digamma.
constexpr double kLanczosGamma = 7;
constexpr double kBaseLanczosCoeff = 0.99999999999980993227684700473478;
constexpr double kLanczosCoefficients[] = {
    676.520368121885098567009190444019, -1259.13921672240287047156078755283,
    771.3234287776530788486528258894,   -176.61502916214059906584551354,
    12.507343278686904814458936853,     -0.13857109526572011689554707,
    9.984369578019570859563e-6,         1.50563273514931155834e-7};

absl::Status Lgamma(Translator& t, const Op& op, Scope& s) {
  return Real(t, op, s, [](Builder& b, const std::string& in, const Type& f) {
    std::string half = K(b, 0.5, f), one = K(b, 1, f);
    std::string reflect = b.Cmp("LT", in, half);
    std::string z = b.Sel(reflect, b.Un("negate", in, f), b.Bin("subtract", in, one, f), f);
    std::string x = K(b, kBaseLanczosCoeff, f);
    for (int i = 0; i < 8; ++i) {
      x = b.Bin(
          "add", x,
          b.Bin("divide", K(b, kLanczosCoefficients[i], f), b.Bin("add", z, K(b, i + 1, f), f), f),
          f);
    }
    std::string gh = K(b, kLanczosGamma + 0.5, f);
    std::string tt = b.Bin("add", z, gh, f);
    std::string log_t = b.Bin("add", K(b, std::log(kLanczosGamma + 0.5), f),
                              b.Un("log-plus-one", b.Bin("divide", z, gh, f), f), f);
    // log y = log sqrt(2 pi) + (z + 1/2 - t / log t) log t + log x
    std::string log_y = b.Bin(
        "add",
        b.Bin("add", K(b, 0.5 * std::log(2 * kPi), f),
              b.Bin("multiply",
                    b.Bin("subtract", b.Bin("add", z, half, f), b.Bin("divide", tt, log_t, f), f),
                    log_t, f),
              f),
        b.Un("log", x, f), f);
    // Reflection: lgamma(x) = log(pi) - log|sin(pi x)| - lgamma(1 - x).
    std::string ax = b.Un("abs", in, f);
    std::string frac = b.Bin("subtract", ax, b.Un("floor", ax, f), f);
    std::string reduced = b.Sel(b.Cmp("GT", frac, half), b.Bin("subtract", one, frac, f), frac, f);
    std::string denom =
        b.Un("log", b.Un("sine", b.Bin("multiply", K(b, kPi, f), reduced, f), f), f);
    std::string reflection =
        b.Sel(b.Un("is-finite", denom, b.Of("pred")),
              b.Bin("subtract", b.Bin("subtract", K(b, std::log(kPi), f), denom, f), log_y, f),
              b.Un("negate", denom, f), f);
    std::string r = b.Sel(reflect, reflection, log_y, f);
    std::string inf = K(b, INFINITY, f);
    return b.Sel(b.Cmp("EQ", ax, inf), inf, r, f);
  });
}

absl::Status Digamma(Translator& t, const Op& op, Scope& s) {
  return Real(t, op, s, [](Builder& b, const std::string& in, const Type& f) {
    std::string half = K(b, 0.5, f), one = K(b, 1, f), zero = K(b, 0, f);
    std::string reflect = b.Cmp("LT", in, half);
    std::string z = b.Sel(reflect, b.Un("negate", in, f), b.Bin("subtract", in, one, f), f);
    std::string num = zero;
    std::string denom = K(b, kBaseLanczosCoeff, f);
    for (int i = 0; i < 8; ++i) {
      std::string zi = b.Bin("add", z, K(b, i + 1, f), f);
      std::string c = K(b, kLanczosCoefficients[i], f);
      num = b.Bin("subtract", num, b.Bin("divide", c, b.Bin("multiply", zi, zi, f), f), f);
      denom = b.Bin("add", denom, b.Bin("divide", c, zi, f), f);
    }
    std::string gh = K(b, kLanczosGamma + 0.5, f);
    std::string tt = b.Bin("add", gh, z, f);
    std::string log_t = b.Bin("add", K(b, std::log(kLanczosGamma + 0.5), f),
                              b.Un("log-plus-one", b.Bin("divide", z, gh, f), f), f);
    std::string y = b.Bin("subtract", b.Bin("add", log_t, b.Bin("divide", num, denom, f), f),
                          b.Bin("divide", K(b, kLanczosGamma, f), tt, f), f);
    // Reflection: digamma(x) = digamma(1 - x) - pi cot(pi x).
    std::string reduced =
        b.Bin("add", in, b.Un("abs", b.Un("floor", b.Bin("add", in, half, f), f), f), f);
    std::string pix = b.Bin("multiply", K(b, kPi, f), reduced, f);
    std::string reflection =
        b.Bin("subtract", y,
              b.Bin("divide", b.Bin("multiply", K(b, kPi, f), b.Un("cosine", pix, f), f),
                    b.Un("sine", pix, f), f),
              f);
    std::string r = b.Sel(reflect, reflection, y, f);
    std::string pole =
        b.Bin("and", b.Cmp("LE", in, zero), b.Cmp("EQ", in, b.Un("floor", in, f)), b.Of("pred"));
    return b.Sel(pole, K(b, NAN, f), r, f);
  });
}

absl::Status Conj(Translator& t, const Op& op, Scope& s) {
  HLO_ASSIGN_OR_RETURN(Value x, OneOperand(t, op, s));
  if (x.type.element != "c64" && x.type.element != "c128") {
    return t.BindResults(s, op, x.name);
  }
  Builder b{t, s, op, x.type};
  Type part = b.Of(x.type.element == "c64" ? "f32" : "f64");
  std::string re = b.Un("real", x.name, part);
  std::string im = b.Un("negate", b.Un("imag", x.name, part), part);
  return t.BindResults(s, op, b.Bin("complex", re, im, x.type));
}

}  // namespace

std::vector<OpEntry> ChloMathOps() {
  return {
      {"chlo.lgamma", &Lgamma},
      {"chlo.digamma", &Digamma},
      {"chlo.conj", &Conj},
  };
}

}  // namespace hlo::stablehlo

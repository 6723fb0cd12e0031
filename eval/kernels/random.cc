// Random numbers: rng-bit-generator (bit-exact with XLA's CPU backend),
// rng-get-and-update-state, and rng.
//
// rng-bit-generator follows XLA's RngBitGeneratorExpander: state[0] is the
// key; rng_three_fry counts with state[1]; rng_philox (and rng_default,
// which is Philox on XLA's CPU backend) counts with a 128-bit counter whose
// low word is state[1] and whose high word is state[2] for a u64[3] state,
// else state[0] (then only the low word is written back). See eval/kernels/prng.h
// for how the words are laid out.
//
// rng has no bit-exact reference (XLA keys it from a process-wide random
// value), so the generator is ours, built like XLA's RngExpander: key =
// EvalOptions::seed (hlo-run --seed), counter = the run's 128-bit rng state,
// advanced by the number of 32-bit words the result takes, exactly as
// rng-get-and-update-state(delta) would; the bits come from Philox-4x32-10
// in XLA's Philox layout. Floats take the top mantissa-width bits as
// u in [0, 1) and give a + u * (b - a) (rounded in the element type, f32
// for the narrow floats); integers give a + bits mod (b - a); pred's [a, b)
// holds at most `a`. rng_normal is Box-Muller on consecutive pairs of such
// uniforms (u0 clamped to >= 1e-7 as XLA does): z0 = sqrt(-2 ln u0)
// sin(2 pi u1), z1 = ... cos(...), then mu + sigma z.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numbers>
#include <vector>

#include "eval/kernels/kernels.h"
#include "eval/kernels/prng.h"
#include "ir/strings.h"

namespace hlo {
namespace {

absl::Status Invalid(std::string message) { return absl::InvalidArgumentError(std::move(message)); }

absl::Status CheckWidth(PrimitiveType t) {
  if ((!IsInteger(t) && !IsFloat(t)) || BitWidth(t) > 64) {
    return Invalid(StrCat("cannot generate random bits of type ", PrimitiveTypeName(t)));
  }
  return absl::OkStatus();
}

// Stores 32-bit words into a narrower literal: their low bits (integers
// wrap, floats take the encoding), as XLA's "narrow" generators do.
void StoreNarrow(Literal& out, const std::vector<uint32_t>& words) {
  const PrimitiveType t = out.element_type();
  const uint64_t mask = (uint64_t{1} << BitWidth(t)) - 1;
  const bool integer = IsInteger(t);
  for (int64_t i = 0; i < out.element_count(); ++i) {
    if (integer) {
      out.SetInt(i, static_cast<int64_t>(words[i] & mask));
    } else {
      out.SetBits(i, words[i] & mask);
    }
  }
}

absl::StatusOr<Value> RngBitGenerator(const Instruction& inst, Operands ops) {
  if (ops.size() != 1 || !ops[0]->is_array() ||
      ops[0]->array().element_type() != PrimitiveType::kU64 ||
      ops[0]->array().shape().rank() != 1) {
    return Invalid("rng-bit-generator takes one u64 vector state operand");
  }
  const Literal& state_in = ops[0]->array();
  const int64_t n_state = state_in.element_count();
  const uint64_t* s = state_in.typed<uint64_t>();
  const Shape& shape = inst.shape();
  if (!shape.IsTuple() || shape.tuple_size() != 2 || !shape.tuple_shape(1).IsArray()) {
    return Invalid("rng-bit-generator must produce a tuple (new state, random bits)");
  }
  std::string_view algorithm = inst.GetString(AttrKind::kAlgorithm);
  if (algorithm.empty()) algorithm = "rng_default";
  const bool three_fry = algorithm == "rng_three_fry";
  if (three_fry ? n_state != 2 : n_state != 2 && n_state != 3) {
    return Invalid(StrCat(algorithm, " needs a u64[2]", three_fry ? "" : " or u64[3]",
                          " state, but has u64[", n_state, "]"));
  }
  if (!three_fry && algorithm != "rng_philox" && algorithm != "rng_default") {
    return Invalid(StrCat("unknown rng-bit-generator algorithm '", algorithm, "'"));
  }
  const Shape& bits_shape = shape.tuple_shape(1);
  const PrimitiveType t = bits_shape.element_type();
  if (auto st = CheckWidth(t); !st.ok()) return st;
  auto bits_value = NewArrayUninitialized(bits_shape);  // every element is written
  if (!bits_value.ok()) return bits_value.status();
  Literal& out = bits_value->mutable_array();
  const int64_t n = out.element_count();

  auto new_state = NewArray(state_in.shape());
  if (!new_state.ok()) return new_state.status();
  uint64_t* ns = new_state->mutable_array().typed<uint64_t>();
  ns[0] = s[0];  // the key is kept

  // 64-bit types take 64-bit words, 32-bit types 32-bit words, written in
  // place; narrower types the low bits of 32-bit words.
  const int width = BitWidth(t);
  std::vector<uint32_t> narrow(width < 32 ? n : 0);
  uint32_t* w32 = width == 32 ? out.typed<uint32_t>() : narrow.data();
  uint64_t* w64 = out.typed<uint64_t>();
  if (three_fry) {
    ns[1] = width == 64 ? ThreefryBits64(s[0], s[1], n, w64)
                        : ThreefryBits32(s[0], s[1], bits_shape.dims(), w32);
  } else {
    U128 counter{s[1], n_state == 3 ? s[2] : s[0]};
    U128 next =
        width == 64 ? PhiloxBits64(s[0], counter, n, w64) : PhiloxBits32(s[0], counter, n, w32);
    ns[1] = next.lo;
    if (n_state == 3) ns[2] = next.hi;
  }
  if (width < 32) StoreNarrow(out, narrow);
  return Value::Tuple({*std::move(new_state), *std::move(bits_value)});
}

// rng-get-and-update-state: the current state, then state += delta.
absl::StatusOr<Value> RngGetAndUpdateState(const Instruction& inst, KernelContext& ev) {
  auto out = NewArray(Shape::Array(PrimitiveType::kU64, {2}));
  if (!out.ok()) return out.status();
  std::array<uint64_t, 2>& state = ev.rng_state();
  uint64_t* o = out->mutable_array().typed<uint64_t>();
  o[0] = state[0];
  o[1] = state[1];
  const uint64_t delta = static_cast<uint64_t>(inst.GetInt(AttrKind::kDelta));
  state[0] += delta;
  if (state[0] < delta) ++state[1];
  return out;
}

// Takes the run's counter and advances it by `words` 32-bit words.
U128 TakeCounter(KernelContext& ev, int64_t words) {
  std::array<uint64_t, 2>& state = ev.rng_state();
  U128 c{state[0], state[1]};
  state[0] += static_cast<uint64_t>(words);
  if (state[0] < c.lo) ++state[1];
  return c;
}

// Uniform doubles in [0, 1) with `mantissa` random bits, from 32-bit words
// (mantissa <= 32) or 64-bit words.
std::vector<double> Uniforms(KernelContext& ev, int64_t n, int mantissa) {
  std::vector<double> u(n);
  const uint64_t key = ev.options().seed;
  if (mantissa > 32) {
    std::vector<uint64_t> w(n);
    PhiloxBits64(key, TakeCounter(ev, 2 * n), n, w.data());
    for (int64_t i = 0; i < n; ++i)
      u[i] = std::ldexp(static_cast<double>(w[i] >> (64 - mantissa)), -mantissa);
  } else {
    std::vector<uint32_t> w(n);
    PhiloxBits32(key, TakeCounter(ev, n), n, w.data());
    for (int64_t i = 0; i < n; ++i)
      u[i] = std::ldexp(static_cast<double>(w[i] >> (32 - mantissa)), -mantissa);
  }
  return u;
}

// Rounds x to the element type's arithmetic: f64 as is, everything else
// through f32 (then the literal rounds once more to the narrow type).
double Round(PrimitiveType t, double x) {
  return t == PrimitiveType::kF64 ? x : static_cast<double>(static_cast<float>(x));
}

// Significand bits (without the leading 1) of the types rng computes in.
int MantissaBits(PrimitiveType t) { return t == PrimitiveType::kF64 ? 52 : 23; }

absl::StatusOr<Value> Rng(const Instruction& inst, Operands ops, KernelContext& ev) {
  if (ops.size() != 2 || !ops[0]->is_array() || !ops[1]->is_array() ||
      ops[0]->array().element_count() != 1 || ops[1]->array().element_count() != 1) {
    return Invalid("rng takes two scalar operands");
  }
  const Literal& a = ops[0]->array();
  const Literal& b = ops[1]->array();
  const Shape& shape = inst.shape();
  if (!shape.IsArray() || shape.element_type() != a.element_type() ||
      shape.element_type() != b.element_type()) {
    return Invalid("rng's result and operands must have one element type");
  }
  const PrimitiveType t = shape.element_type();
  auto out_value = NewArray(shape);
  if (!out_value.ok()) return out_value.status();
  Literal& out = out_value->mutable_array();
  const int64_t n = out.element_count();
  std::string_view dist = inst.GetString(AttrKind::kDistribution);
  if (dist == "rng_normal") {
    if (!IsFloat(t)) return Invalid("rng_normal needs a floating-point type");
    const double mu = a.GetDouble(0), sigma = b.GetDouble(0);
    std::vector<double> u = Uniforms(ev, n + (n % 2), MantissaBits(t));
    for (int64_t i = 0; i < n; i += 2) {
      const double u0 = std::max(u[i], 1e-7);
      const double r = Round(t, std::sqrt(-2.0 * std::log(u0)));
      const double v = 2.0 * std::numbers::pi * u[i + 1];
      out.SetDouble(i, Round(t, mu + sigma * Round(t, std::sin(v) * r)));
      if (i + 1 < n) out.SetDouble(i + 1, Round(t, mu + sigma * Round(t, std::cos(v) * r)));
    }
    return out_value;
  }
  if (dist != "rng_uniform") return Invalid(StrCat("unknown distribution '", dist, "'"));
  if (t == PrimitiveType::kF32) {
    // Typed path: XLA's ConvertRandomBitsToUniformFloatingPoint in f32.
    const float lo = static_cast<float>(a.GetDouble(0));
    const float span = static_cast<float>(b.GetDouble(0)) - lo;
    uint32_t* w = out.typed<uint32_t>();
    PhiloxBits32(ev.options().seed, TakeCounter(ev, n), n, w);
    for (int64_t i = 0; i < n; ++i) {
      const float v = static_cast<float>(w[i] >> 9) * 0x1p-23f * span + lo;
      std::memcpy(&w[i], &v, sizeof v);  // in place, through one view of the buffer
    }
    return out_value;
  }
  if (IsFloat(t)) {
    const double lo = a.GetDouble(0), hi = b.GetDouble(0);
    std::vector<double> u = Uniforms(ev, n, MantissaBits(t));
    const double span = Round(t, hi - lo);
    for (int64_t i = 0; i < n; ++i) out.SetDouble(i, Round(t, Round(t, u[i] * span) + lo));
    return out_value;
  }
  if (t == PrimitiveType::kPred) {
    // [false, true) and every other pred interval hold at most a.
    for (int64_t i = 0; i < n; ++i) out.SetInt(i, a.GetInt(0));
    return out_value;
  }
  if (!IsInteger(t)) return Invalid(StrCat("rng_uniform cannot produce ", PrimitiveTypeName(t)));
  // Integers: a + bits mod (b - a), the range taken as unsigned.
  const int64_t lo = a.GetInt(0);
  const bool wide = BitWidth(t) == 64;
  const uint64_t range = static_cast<uint64_t>(b.GetInt(0)) - static_cast<uint64_t>(lo);
  const uint64_t r = wide ? range : (range & 0xffffffffu);
  const uint64_t key = ev.options().seed;
  std::vector<uint64_t> w(n);
  if (wide) {
    PhiloxBits64(key, TakeCounter(ev, 2 * n), n, w.data());
  } else {
    std::vector<uint32_t> w32(n);
    PhiloxBits32(key, TakeCounter(ev, n), n, w32.data());
    for (int64_t i = 0; i < n; ++i) w[i] = w32[i];
  }
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t d = r == 0 ? 0 : w[i] % r;
    out.SetInt(i, static_cast<int64_t>(static_cast<uint64_t>(lo) + d));
  }
  return out_value;
}

}  // namespace

absl::StatusOr<Value> EvalRandom(const Instruction& inst, Operands ops, KernelContext& ev) {
  switch (inst.opcode()) {
    case Opcode::kRngBitGenerator:
      return RngBitGenerator(inst, ops);
    case Opcode::kRngGetAndUpdateState:
      return RngGetAndUpdateState(inst, ev);
    case Opcode::kRng:
      return Rng(inst, ops, ev);
    default:
      return absl::InternalError(StrCat("no random kernel for ", inst.OpcodeText()));
  }
}

}  // namespace hlo

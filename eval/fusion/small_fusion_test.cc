// Fusions over small arrays of several shapes as one program
// (eval/fusion/small_fusion.h, eval/fusion/small_program.h): which
// computations compile, and that each gives, bit for bit, what its
// computation gives instruction by instruction, on random operands and on
// start indices before, inside and past their dimensions.
#include "eval/fusion/small_fusion.h"

#include <catch2/catch.hpp>
#include <climits>
#include <cstring>
#include <string>
#include <vector>

#include "eval/eval_test_util.h"
#include "eval/evaluator.h"
#include "eval/io/random_fill.h"
#include "ir/strings.h"
#include "parser/parser.h"

namespace hlo {
namespace {

using PT = PrimitiveType;

constexpr std::string_view kModule = R"(HloModule t

philox {
  key = u32[4]{0} parameter(0)
  ctr = u32[] parameter(1)
  pairs = u32[2,2]{1,0} bitcast(key)
  flat = u32[4]{0} bitcast(pairs)
  lo = u32[2]{0} slice(flat), slice={[0:3:2]}
  hi = u32[2]{0} slice(flat), slice={[1:4:2]}
  lo64 = u64[2]{0} convert(lo)
  hi64 = u64[2]{0} convert(hi)
  c32 = u64[] constant(32)
  c32b = u64[2]{0} broadcast(c32), dimensions={}
  shl = u64[2]{0} shift-left(hi64, c32b)
  words = u64[2]{0} or(lo64, shl)
  w1 = u64[1]{0} slice(words), slice={[1:2]}
  w = u64[] bitcast(w1)
  wb = u64[32]{0} broadcast(w), dimensions={}
  i = u64[32]{0} iota(), iota_dimension=0
  sum = u64[32]{0} add(wb, i)
  lt = pred[32]{0} compare(sum, wb), direction=LT
  m = u64[] constant(3528531795)
  mb = u64[32]{0} broadcast(m), dimensions={}
  prod = u64[32]{0} multiply(sum, mb)
  c32b2 = u64[32]{0} broadcast(c32), dimensions={}
  shr = u64[32]{0} shift-right-logical(prod, c32b2)
  one = u64[32]{0} broadcast(w), dimensions={}
  sel = u64[32]{0} select(lt, shr, one)
  low = u32[32]{0} convert(sel)
  cb = u32[32]{0} broadcast(ctr), dimensions={}
  x = u32[32]{0} xor(low, cb)
  x2 = u32[16,2]{1,0} bitcast(x)
  t = u32[2,16]{1,0} transpose(x2), dimensions={1,0}
  r = u32[2,16]{1,0} reverse(t), dimensions={1}
  x1 = u32[1,16]{1,0} slice(t), slice={[1:2], [0:16]}
  ROOT cat = u32[3,16]{1,0} concatenate(r, x1), dimensions={0}
}

uniform {
  bits = u64[8,3]{1,0} parameter(0)
  sh = u64[] constant(12)
  shb = u64[8,3]{1,0} broadcast(sh), dimensions={}
  mant = u64[8,3]{1,0} shift-right-logical(bits, shb)
  one = u64[] constant(4607182418800017408)
  oneb = u64[8,3]{1,0} broadcast(one), dimensions={}
  f = u64[8,3]{1,0} or(mant, oneb)
  d = f64[8,3]{1,0} bitcast-convert(f)
  c1 = f64[] constant(1)
  c1b = f64[8,3]{1,0} broadcast(c1), dimensions={}
  u = f64[8,3]{1,0} subtract(d, c1b)
  lg = f64[8,3]{1,0} log(u)
  s = f32[8,3]{1,0} convert(lg)
  h = bf16[8,3]{1,0} convert(s)
  h2 = bf16[8,3]{1,0} multiply(h, h)
  tr = bf16[3,8]{1,0} transpose(h2), dimensions={1,0}
  ROOT out = (f64[8,3]{1,0}, bf16[3,8]{1,0}, f32[8,3]{1,0}) tuple(u, tr, s)
}

pads {
  a = f32[3,4]{1,0} parameter(0)
  v = f32[] parameter(1)
  p1 = f32[6,10]{1,0} pad(a, v), padding=1_0_1x-1_1_2
  p1f = f32[60]{0} reshape(p1)
  v2 = f32[4]{0} slice(p1f), slice={[12:16]}
  b = f32[1,4]{1,0} broadcast(v2), dimensions={1}
  pb = f32[1,10]{1,0} pad(b, v), padding=0_0x3_3
  p2 = f32[4,10]{1,0} pad(a, v), padding=0_1_0x3_0_1
  ROOT c = f32[11,10]{1,0} concatenate(p1, pb, p2), dimensions={0}
}

plain_pads {
  a = f32[20,33]{1,0} parameter(0)
  v = f32[] parameter(1)
  wide = f32[20,48]{1,0} pad(a, v), padding=0_0x0_15
  w3 = f32[20,3,16]{2,1,0} bitcast(wide)
  small = f32[3,4]{1,0} slice(a), slice={[0:3], [0:4]}
  around = f32[6,9]{1,0} pad(small, v), padding=2_1x0_5
  none = f32[3,4]{1,0} pad(small, v), padding=0_0x0_0
  ROOT t = (f32[20,3,16]{2,1,0}, f32[6,9]{1,0}, f32[3,4]{1,0}) tuple(w3, around, none)
}

dyn {
  a = s32[5,6]{1,0} parameter(0)
  i = s32[] parameter(1)
  j = u64[] parameter(2)
  u = s32[2,3]{1,0} parameter(3)
  ds = s32[2,3]{1,0} dynamic-slice(a, i, j), dynamic_slice_sizes={2,3}
  sum = s32[2,3]{1,0} add(ds, u)
  ROOT dus = s32[5,6]{1,0} dynamic-update-slice(a, sum, j, i)
}

rows {
  a = f32[16,4,8]{2,1,0} parameter(0)
  i = s32[] parameter(1)
  z = s32[] parameter(2)
  ds = f32[1,4,8]{2,1,0} dynamic-slice(a, i, z, z), dynamic_slice_sizes={1,4,8}
  two = f32[2,4,8]{2,1,0} dynamic-slice(a, i, z, z), dynamic_slice_sizes={2,4,8}
  n = f32[1,4,8]{2,1,0} negate(ds)
  dus = f32[16,4,8]{2,1,0} dynamic-update-slice(a, n, i, z, z)
  top = f32[3,4,8]{2,1,0} slice(dus), slice={[2:5], [0:4], [0:8]}
  cat = f32[5,4,8]{2,1,0} concatenate(top, two), dimensions={0}
  ROOT out = (f32[16,4,8]{2,1,0}, f32[5,4,8]{2,1,0}) tuple(dus, cat)
}

moves {
  a = f32[17,4,16]{2,1,0} parameter(0)
  b = f32[17,5]{1,0} parameter(1)
  i = s32[] parameter(2)
  s = f32[17,4]{1,0} slice(b), slice={[0:17], [0:4]}
  bb = f32[17,4,16]{2,1,0} broadcast(s), dimensions={0,1}
  sum = f32[17,4,16]{2,1,0} add(a, bb)
  bc = f32[17,64]{1,0} bitcast(sum)
  t = f32[64,17]{1,0} transpose(bc), dimensions={1,0}
  r = f32[64,17]{1,0} reverse(t), dimensions={0,1}
  ds = f32[10,30]{1,0} dynamic-slice(bc, i, i), dynamic_slice_sizes={10,30}
  upd = f32[30,10]{1,0} transpose(ds), dimensions={1,0}
  dus = f32[64,17]{1,0} dynamic-update-slice(r, upd, i, i)
  cat = f32[128,17]{1,0} concatenate(t, dus), dimensions={0}
  ROOT out = (f32[128,17]{1,0}, f32[10,30]{1,0}) tuple(cat, ds)
}

where_s {
  c = pred[] parameter(0)
  x = s64[] parameter(1)
  y = s64[] parameter(2)
  ROOT s = s64[] select(c, x, y)
}

rem {
  a = s64[3]{0} parameter(0)
  d = s64[] parameter(1)
  z = s64[] constant(0)
  eq = pred[] compare(d, z), direction=EQ
  one = s64[] constant(1)
  w = s64[] call(eq, one, d), to_apply=where_s
  wb = s64[3]{0} broadcast(w), dimensions={}
  r = s64[3]{0} remainder(a, wb)
  zb = s64[3]{0} broadcast(z), dimensions={}
  lt = pred[3]{0} compare(r, zb), direction=LT
  ROOT s = s64[3]{0} select(lt, r, a)
}

passthrough {
  p = f32[2,3]{1,0} parameter(0)
  q = f32[6]{0} parameter(1)
  b = f32[6]{0} bitcast(p)
  c = f32[6]{0} copy(q)
  k = s8[2]{0} constant({-3, 7})
  ROOT t = (f32[6]{0}, f32[6]{0}, s8[2]{0}, f32[6]{0}) tuple(b, c, k, b)
}

clamped {
  lo = f32[] parameter(0)
  x = f32[4]{0} parameter(1)
  hi = f32[] constant(1)
  ROOT c = f32[4]{0} clamp(lo, x, hi)
}

reduced {
  x = f32[4]{0} parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(x, z), dimensions={0}, to_apply=add
}

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

random {
  lo = f32[] parameter(0)
  hi = f32[] constant(1)
  ROOT r = f32[4]{0} rng(lo, hi), distribution=rng_uniform
}

big {
  x = f32[64,128]{1,0} parameter(0)
  ROOT t = f32[128,64]{1,0} transpose(x), dimensions={1,0}
}

ENTRY main {
  key = u32[4]{0} parameter(0)
  ctr = u32[] parameter(1)
  bits = u64[8,3]{1,0} parameter(2)
  a = f32[3,4]{1,0} parameter(3)
  v = f32[] parameter(4)
  m = s32[5,6]{1,0} parameter(5)
  i = s32[] parameter(6)
  j = u64[] parameter(7)
  u = s32[2,3]{1,0} parameter(8)
  p = f32[2,3]{1,0} parameter(9)
  q = f32[6]{0} parameter(10)
  x4 = f32[4]{0} parameter(11)
  xb = f32[64,128]{1,0} parameter(12)
  f_philox = u32[3,16]{1,0} fusion(key, ctr), kind=kLoop, calls=philox
  f_uniform = (f64[8,3]{1,0}, bf16[3,8]{1,0}, f32[8,3]{1,0}) fusion(bits), kind=kLoop, calls=uniform
  f_pads = f32[11,10]{1,0} fusion(a, v), kind=kLoop, calls=pads
  f_dyn = s32[5,6]{1,0} fusion(m, i, j, u), kind=kLoop, calls=dyn
  ra = s64[3]{0} parameter(15)
  rd = s64[] parameter(16)
  c_rem = s64[3]{0} call(ra, rd), to_apply=rem
  ma = f32[17,4,16]{2,1,0} parameter(13)
  mb = f32[17,5]{1,0} parameter(14)
  f_moves = (f32[128,17]{1,0}, f32[10,30]{1,0}) fusion(ma, mb, i), kind=kLoop, calls=moves
  ra3 = f32[16,4,8]{2,1,0} parameter(18)
  f_rows = (f32[16,4,8]{2,1,0}, f32[5,4,8]{2,1,0}) fusion(ra3, i, i), kind=kLoop, calls=rows
  f_pass = (f32[6]{0}, f32[6]{0}, s8[2]{0}, f32[6]{0}) fusion(p, q), kind=kLoop, calls=passthrough
  f_clamped = f32[4]{0} fusion(v, x4), kind=kLoop, calls=clamped
  f_reduced = f32[] fusion(x4), kind=kInput, calls=reduced
  f_big = f32[128,64]{1,0} fusion(xb), kind=kLoop, calls=big
  f_random = f32[4]{0} fusion(v), kind=kLoop, calls=random
  pa = f32[20,33]{1,0} parameter(17)
  f_plain_pads = (f32[20,3,16]{2,1,0}, f32[6,9]{1,0}, f32[3,4]{1,0}) fusion(pa, v), kind=kLoop, calls=plain_pads
  ROOT t = (u32[3,16]{1,0}) tuple(f_philox)
}
)";

std::unique_ptr<Module> Parse() { return ParseTestModule(kModule); }

const Instruction& Find(const Module& m, std::string_view name) {
  return EntryInstruction(m, name);
}

std::vector<Value> RandomOperands(const Instruction& f, uint64_t seed) {
  std::vector<Value> args;
  for (int64_t i = 0; i < f.operand_count(); ++i) {
    absl::StatusOr<Literal> lit = RandomLiteral(f.operand(i)->shape(), seed, i);
    REQUIRE(lit.ok());
    args.push_back(Value::FromLiteral(*std::move(lit)));
  }
  return args;
}

// The fusion as one program and its computation instruction by
// instruction (fast paths off), on `args`: the same bytes.
void Agree(Module& m, const Instruction& f, const std::vector<Value>& args, bool flush = false) {
  std::unique_ptr<SmallProgram> program = CompileSmallFusion(f, flush);
  REQUIRE(program != nullptr);
  REQUIRE(SmallFusionFits(f, args));
  EvalOptions kernel_options;
  kernel_options.flush_denormals = flush;
  Evaluator kernels(m, kernel_options);
  absl::StatusOr<Value> fast = RunSmallFusion(*program, f, args, kernels.KernelRunner());
  INFO((fast.ok() ? std::string() : std::string(fast.status().message())));
  REQUIRE(fast.ok());
  EvalOptions options;
  options.fast_paths = false;
  options.flush_denormals = flush;
  const Value plain = CallFused(m, f, args, options);
  CheckSameBytes(*fast, plain);
  // A second run of the same program (results written in place, then the
  // buffers handed back) gives the same again.
  absl::StatusOr<Value> again = RunSmallFusion(*program, f, args, kernels.KernelRunner());
  REQUIRE(again.ok());
  CheckSameBytes(*again, plain);
}

Value Scalar(PT type, uint64_t bits) {
  absl::StatusOr<Literal> lit = Literal::Create(Shape::Array(type, {}));
  REQUIRE(lit.ok());
  lit->SetBits(0, bits);
  return Value::FromLiteral(*std::move(lit));
}

TEST_CASE("small fusion: Philox-style integer bookkeeping agrees with the evaluator",
          "[small_fusion]") {
  std::unique_ptr<Module> m = Parse();
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    Agree(*m, Find(*m, "f_philox"), RandomOperands(Find(*m, "f_philox"), seed));
  }
}

TEST_CASE("small fusion: float and bf16 steps and a tuple root agree, flushing or not",
          "[small_fusion]") {
  std::unique_ptr<Module> m = Parse();
  const Instruction& f = Find(*m, "f_uniform");
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    Agree(*m, f, RandomOperands(f, seed));
    Agree(*m, f, RandomOperands(f, seed), /*flush=*/true);
  }
}

TEST_CASE("small fusion: pads (negative, interior) and concatenates agree", "[small_fusion]") {
  std::unique_ptr<Module> m = Parse();
  const Instruction& f = Find(*m, "f_pads");
  Agree(*m, f, RandomOperands(f, 5));
}

TEST_CASE("small fusion: pads that only widen (fill, then the operand moved in) agree",
          "[small_fusion]") {
  std::unique_ptr<Module> m = Parse();
  const Instruction& f = Find(*m, "f_plain_pads");
  for (uint64_t seed : {1, 2}) Agree(*m, f, RandomOperands(f, seed));
}

TEST_CASE("small fusion: dynamic slices clamp every start as the kernels do", "[small_fusion]") {
  std::unique_ptr<Module> m = Parse();
  const Instruction& f = Find(*m, "f_dyn");
  std::vector<Value> args = RandomOperands(f, 9);
  const std::vector<int64_t> starts = {-7, -1, 0, 1, 2, 3, 4, 5, 100, INT_MAX};
  for (int64_t i : starts) {
    for (uint64_t j : {uint64_t{0}, uint64_t{1}, uint64_t{3}, uint64_t{4}, uint64_t{9},
                       uint64_t{1} << 63, ~uint64_t{0}}) {
      args[1] = Scalar(PT::kS32, static_cast<uint64_t>(static_cast<uint32_t>(i)));
      args[2] = Scalar(PT::kU64, j);
      Agree(*m, f, args);
    }
  }
}

// Dynamic slices and updates of whole rows, a slice and a concatenation
// of whole rows: each move one run of elements (a memcpy), clamped alike.
TEST_CASE("small fusion: moves of whole rows, clamped alike", "[small_fusion]") {
  std::unique_ptr<Module> m = Parse();
  const Instruction& f = Find(*m, "f_rows");
  std::vector<Value> args = RandomOperands(f, 8);
  for (int64_t i : {-3, 0, 1, 7, 14, 15, 16, 1000}) {
    args[1] = Scalar(PT::kS32, static_cast<uint64_t>(static_cast<uint32_t>(i)));
    args[2] = Scalar(PT::kS32, 0);
    Agree(*m, f, args);
  }
}

TEST_CASE("small fusion: larger moves go through strided copies, clamped alike", "[small_fusion]") {
  std::unique_ptr<Module> m = Parse();
  const Instruction& f = Find(*m, "f_moves");
  std::vector<Value> args = RandomOperands(f, 4);
  for (int64_t i : {-3, 0, 5, 7, 8, 40, 1000}) {
    args[2] = Scalar(PT::kS32, static_cast<uint64_t>(static_cast<uint32_t>(i)));
    Agree(*m, f, args);
  }
}

TEST_CASE("small fusion: a call, and the call inside it, inline", "[small_fusion]") {
  std::unique_ptr<Module> m = Parse();
  const Instruction& f = Find(*m, "c_rem");
  std::vector<Value> args = RandomOperands(f, 6);
  for (int64_t d : {0, 1, -1, 3, -7, 1000}) {
    args[1] = Scalar(PT::kS64, static_cast<uint64_t>(d));
    Agree(*m, f, args);
  }
}

TEST_CASE("small fusion: results that are parameters, constants or one value twice",
          "[small_fusion]") {
  std::unique_ptr<Module> m = Parse();
  const Instruction& f = Find(*m, "f_pass");
  Agree(*m, f, RandomOperands(f, 2));
}

TEST_CASE(
    "small fusion: a clamp of scalar bounds through the evaluator's kernels, a reduce on "
    "the program's buffers",
    "[small_fusion]") {
  std::unique_ptr<Module> m = Parse();
  for (std::string_view name : {"f_clamped", "f_reduced"}) {
    const Instruction& f = Find(*m, name);
    std::unique_ptr<SmallProgram> program = CompileSmallFusion(f, false);
    REQUIRE(program != nullptr);
    // (A plain reduce is a step of the program: small_program_reduce_test.cc.)
    CHECK(program->calls_kernels() == (name == "f_clamped"));
    Agree(*m, f, RandomOperands(f, 8));
  }
}

TEST_CASE("small fusion: what stays with the evaluator", "[small_fusion]") {
  std::unique_ptr<Module> m = Parse();
  // A value past the size limit; an op with state (rng).
  CHECK(CompileSmallFusion(Find(*m, "f_big"), false) == nullptr);
  CHECK(CompileSmallFusion(Find(*m, "f_random"), false) == nullptr);
  // Operands of other dimensions or types do not fit.
  const Instruction& f = Find(*m, "f_dyn");
  std::unique_ptr<SmallProgram> program = CompileSmallFusion(f, false);
  REQUIRE(program != nullptr);
  std::vector<Value> args = RandomOperands(f, 3);
  CHECK(SmallFusionFits(f, args));
  std::vector<Value> wrong = args;
  absl::StatusOr<Literal> other = Literal::Create(Shape::Array(PT::kS32, {6, 5}));
  REQUIRE(other.ok());
  wrong[0] = Value::FromLiteral(*std::move(other));
  CHECK_FALSE(SmallFusionFits(f, wrong));
  wrong = args;
  wrong[2] = Scalar(PT::kS64, 1);
  CHECK_FALSE(SmallFusionFits(f, wrong));
}

}  // namespace
}  // namespace hlo

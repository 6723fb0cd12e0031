// While loops over small state as compiled programs (eval/fusion/
// small_loop.h): JAX's pivots-to-permutation loop (one-window scatters that
// replace, pivots before, inside and past the array), a counted loop that
// passes a large element through, a scatter of a row, XLA:GPU's async and
// multi-output fusions; each bit for bit
// against the evaluator with fast paths off, the iteration limit's error,
// and what stays with the evaluator.
#include "eval/fusion/small_loop.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "eval/eval_test_util.h"
#include "eval/evaluator.h"
#include "eval/io/random_fill.h"
#include "eval/kernels/kernels.h"
#include "ir/strings.h"
#include "parser/parser.h"

namespace hlo {
namespace {

using PT = PrimitiveType;

constexpr std::string_view kModule = R"(HloModule t

replace {
  a = s32[] parameter(0)
  ROOT b = s32[] parameter(1)
}

replace_f {
  a = f32[] parameter(0)
  ROOT b = f32[] parameter(1)
}

perm_body {
  st = (s64[], s32[5]{0}, s32[5]{0}) parameter(0)
  i = s64[] get-tuple-element(st), index=0
  perm = s32[5]{0} get-tuple-element(st), index=1
  piv = s32[5]{0} get-tuple-element(st), index=2
  one = s64[] constant(1)
  next = s64[] add(i, one)
  ds = s32[1]{0} dynamic-slice(piv, i), dynamic_slice_sizes={1}
  p = s32[] reshape(ds)
  i32 = s32[] convert(i)
  at = s32[1]{0} reshape(i32)
  pi = s32[1]{0} dynamic-slice(perm, p), dynamic_slice_sizes={1}
  pv = s32[] reshape(pi)
  s1 = s32[5]{0} scatter(perm, at, pv), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=0, to_apply=replace
  ii = s32[1]{0} dynamic-slice(perm, i), dynamic_slice_sizes={1}
  iv = s32[] reshape(ii)
  pp = s32[1]{0} reshape(p)
  s2 = s32[5]{0} scatter(s1, pp, iv), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=0, to_apply=replace
  ROOT out = (s64[], s32[5]{0}, s32[5]{0}) tuple(next, s2, piv)
}

perm_cond {
  st = (s64[], s32[5]{0}, s32[5]{0}) parameter(0)
  i = s64[] get-tuple-element(st), index=0
  n = s64[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}

rows_body {
  st = (s32[], f32[5,2]{1,0}, f32[80,80]{1,0}) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  x = f32[5,2]{1,0} get-tuple-element(st), index=1
  big = f32[80,80]{1,0} get-tuple-element(st), index=2
  one = s32[] constant(1)
  next = s32[] add(i, one)
  row = f32[1,2]{1,0} slice(big), slice={[3:4], [7:9]}
  r = f32[2]{0} reshape(row)
  e = f32[2]{0} exponential(r)
  two = s32[] constant(2)
  j = s32[] multiply(i, two)
  jj = s32[1]{0} reshape(j)
  s = f32[5,2]{1,0} scatter(x, jj, e), update_window_dims={0}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=0, to_apply=replace_f
  ROOT out = (s32[], f32[5,2]{1,0}, f32[80,80]{1,0}) tuple(next, s, big)
}

rows_cond {
  st = (s32[], f32[5,2]{1,0}, f32[80,80]{1,0}) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}

dot_body {
  st = (s32[], f32[4]{0}, f32[4,4]{1,0}) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  v = f32[4]{0} get-tuple-element(st), index=1
  m = f32[4,4]{1,0} get-tuple-element(st), index=2
  one = s32[] constant(1)
  next = s32[] add(i, one)
  mv = f32[4]{0} dot(m, v), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT out = (s32[], f32[4]{0}, f32[4,4]{1,0}) tuple(next, mv, m)
}

dot_cond {
  st = (s32[], f32[4]{0}, f32[4,4]{1,0}) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}

big_dot_body {
  st = (s32[], f32[96]{0}, f32[96,96]{1,0}, f32[96]{0}) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  v = f32[96]{0} get-tuple-element(st), index=1
  m = f32[96,96]{1,0} get-tuple-element(st), index=2
  b = f32[96]{0} get-tuple-element(st), index=3
  one = s32[] constant(1)
  next = s32[] add(i, one)
  mv = f32[96]{0} dot(m, v), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  pre = f32[96]{0} add(mv, b)
  t = f32[96]{0} tanh(pre)
  ROOT out = (s32[], f32[96]{0}, f32[96,96]{1,0}, f32[96]{0}) tuple(next, t, m, b)
}

big_dot_cond {
  st = (s32[], f32[96]{0}, f32[96,96]{1,0}, f32[96]{0}) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}

batched_dot_body {
  st = (s32[], f32[2,48]{1,0}, f32[2,48,48]{2,1,0}) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  v = f32[2,48]{1,0} get-tuple-element(st), index=1
  m = f32[2,48,48]{2,1,0} get-tuple-element(st), index=2
  one = s32[] constant(1)
  next = s32[] add(i, one)
  mv = f32[2,48]{1,0} dot(m, v), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  t = f32[2,48]{1,0} tanh(mv)
  ROOT out = (s32[], f32[2,48]{1,0}, f32[2,48,48]{2,1,0}) tuple(next, t, m)
}

batched_dot_cond {
  st = (s32[], f32[2,48]{1,0}, f32[2,48,48]{2,1,0}) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  n = s32[] constant(4)
  ROOT lt = pred[] compare(i, n), direction=LT
}

stack_body {
  st = (s32[], f32[4]{0}, f32[8,4]{1,0}) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  h = f32[4]{0} get-tuple-element(st), index=1
  hs = f32[8,4]{1,0} get-tuple-element(st), index=2
  one = s32[] constant(1)
  next = s32[] add(i, one)
  t = f32[4]{0} tanh(h)
  half = f32[] constant(0.5)
  hb = f32[4]{0} broadcast(half), dimensions={}
  h2 = f32[4]{0} add(t, hb)
  row = f32[1,4]{1,0} reshape(h2)
  z = s32[] constant(0)
  hs2 = f32[8,4]{1,0} dynamic-update-slice(hs, row, i, z)
  ROOT out = (s32[], f32[4]{0}, f32[8,4]{1,0}) tuple(next, h2, hs2)
}

stack_read_body {
  st = (s32[], f32[4]{0}, f32[8,4]{1,0}) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  h = f32[4]{0} get-tuple-element(st), index=1
  hs = f32[8,4]{1,0} get-tuple-element(st), index=2
  one = s32[] constant(1)
  next = s32[] add(i, one)
  t = f32[4]{0} tanh(h)
  row = f32[1,4]{1,0} reshape(t)
  z = s32[] constant(0)
  hs2 = f32[8,4]{1,0} dynamic-update-slice(hs, row, i, z)
  new_row = f32[1,4]{1,0} dynamic-slice(hs2, i, z), dynamic_slice_sizes={1,4}
  old_row = f32[1,4]{1,0} dynamic-slice(hs, i, z), dynamic_slice_sizes={1,4}
  both = f32[1,4]{1,0} add(new_row, old_row)
  h2 = f32[4]{0} reshape(both)
  ROOT out = (s32[], f32[4]{0}, f32[8,4]{1,0}) tuple(next, h2, hs2)
}

stack_cond {
  st = (s32[], f32[4]{0}, f32[8,4]{1,0}) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}

rng_body {
  st = (s32[], f32[4]{0}) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  r = f32[4]{0} rng(lo, hi), distribution=rng_uniform
  ROOT out = (s32[], f32[4]{0}) tuple(next, r)
}

rng_cond {
  st = (s32[], f32[4]{0}) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}

add_f {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

row_fused {
  xs = f32[6,4]{1,0} parameter(0)
  i = s32[] parameter(1)
  z = s32[] constant(0)
  ROOT row = f32[1,4]{1,0} dynamic-slice(xs, i, z), dynamic_slice_sizes={1,4}
}

tanh_sum_fused {
  h = f32[4]{0} parameter(0)
  row = f32[1,4]{1,0} parameter(1)
  r = f32[4]{0} reshape(row)
  s = f32[4]{0} add(h, r)
  t = f32[4]{0} tanh(s)
  zero = f32[] constant(0)
  sum = f32[] reduce(t, zero), dimensions={0}, to_apply=add_f
  ROOT out = (f32[], f32[4]{0}) tuple(sum, t)
}

pair_fused {
  a = f32[4]{0} parameter(0)
  n = f32[4]{0} negate(a)
  e = f32[4]{0} exponential(a)
  ROOT out = (f32[4]{0}, f32[4]{0}) tuple(n, e)
}

async_body {
  st = (s32[], f32[4]{0}, f32[6,4]{1,0}, f32[]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  h = f32[4]{0} get-tuple-element(st), index=1
  xs = f32[6,4]{1,0} get-tuple-element(st), index=2
  acc = f32[] get-tuple-element(st), index=3
  start = ((f32[6,4]{1,0}, s32[]), f32[1,4]{1,0}, u32[]) fusion-start(xs, i), kind=kLoop, calls=row_fused
  row = f32[1,4]{1,0} fusion-done(start)
  both = (f32[], f32[4]{0}) fusion(h, row), kind=kInput, calls=tanh_sum_fused
  sum = f32[] get-tuple-element(both), index=0
  t = f32[4]{0} get-tuple-element(both), index=1
  pair_start = ((f32[4]{0}), (f32[4]{0}, f32[4]{0}), u32[]) fusion-start(t), kind=kLoop, calls=pair_fused
  pair = (f32[4]{0}, f32[4]{0}) fusion-done(pair_start)
  n = f32[4]{0} get-tuple-element(pair), index=0
  e = f32[4]{0} get-tuple-element(pair), index=1
  h2 = f32[4]{0} add(n, e)
  acc2 = f32[] add(acc, sum)
  one = s32[] constant(1)
  next = s32[] add(i, one)
  ROOT out = (s32[], f32[4]{0}, f32[6,4]{1,0}, f32[]) tuple(next, h2, xs, acc2)
}

async_cond {
  st = (s32[], f32[4]{0}, f32[6,4]{1,0}, f32[]) parameter(0)
  i = s32[] get-tuple-element(st), index=0
  n = s32[] constant(6)
  ROOT lt = pred[] compare(i, n), direction=LT
}

ENTRY main {
  piv = s32[5]{0} parameter(0)
  perm0 = s32[5]{0} iota(), iota_dimension=0
  zero = s64[] constant(0)
  init = (s64[], s32[5]{0}, s32[5]{0}) tuple(zero, perm0, piv)
  perm_loop = (s64[], s32[5]{0}, s32[5]{0}) while(init), condition=perm_cond, body=perm_body
  x = f32[5,2]{1,0} parameter(1)
  big = f32[80,80]{1,0} parameter(2)
  z32 = s32[] constant(0)
  init2 = (s32[], f32[5,2]{1,0}, f32[80,80]{1,0}) tuple(z32, x, big)
  rows_loop = (s32[], f32[5,2]{1,0}, f32[80,80]{1,0}) while(init2), condition=rows_cond, body=rows_body
  v = f32[4]{0} parameter(3)
  m = f32[4,4]{1,0} parameter(4)
  init3 = (s32[], f32[4]{0}, f32[4,4]{1,0}) tuple(z32, v, m)
  dot_loop = (s32[], f32[4]{0}, f32[4,4]{1,0}) while(init3), condition=dot_cond, body=dot_body
  v96 = f32[96]{0} parameter(6)
  m96 = f32[96,96]{1,0} parameter(7)
  b96 = f32[96]{0} parameter(8)
  init5 = (s32[], f32[96]{0}, f32[96,96]{1,0}, f32[96]{0}) tuple(z32, v96, m96, b96)
  big_dot_loop = (s32[], f32[96]{0}, f32[96,96]{1,0}, f32[96]{0}) while(init5), condition=big_dot_cond, body=big_dot_body
  v48 = f32[2,48]{1,0} parameter(9)
  m48 = f32[2,48,48]{2,1,0} parameter(10)
  init6 = (s32[], f32[2,48]{1,0}, f32[2,48,48]{2,1,0}) tuple(z32, v48, m48)
  batched_dot_loop = (s32[], f32[2,48]{1,0}, f32[2,48,48]{2,1,0}) while(init6), condition=batched_dot_cond, body=batched_dot_body
  h4 = f32[4]{0} parameter(11)
  hs8 = f32[8,4]{1,0} parameter(12)
  init7 = (s32[], f32[4]{0}, f32[8,4]{1,0}) tuple(z32, h4, hs8)
  stack_loop = (s32[], f32[4]{0}, f32[8,4]{1,0}) while(init7), condition=stack_cond, body=stack_body
  stack_read_loop = (s32[], f32[4]{0}, f32[8,4]{1,0}) while(init7), condition=stack_cond, body=stack_read_body
  v4 = f32[4]{0} parameter(5)
  init4 = (s32[], f32[4]{0}) tuple(z32, v4)
  rng_loop = (s32[], f32[4]{0}) while(init4), condition=rng_cond, body=rng_body
  xs6 = f32[6,4]{1,0} parameter(13)
  acc0 = f32[] constant(0)
  init8 = (s32[], f32[4]{0}, f32[6,4]{1,0}, f32[]) tuple(z32, h4, xs6, acc0)
  async_loop = (s32[], f32[4]{0}, f32[6,4]{1,0}, f32[]) while(init8), condition=async_cond, body=async_body
  ROOT r = (s64[], s32[5]{0}, s32[5]{0}) tuple(perm_loop)
}
)";

std::unique_ptr<Module> Parse() { return ParseTestModule(kModule); }

const Instruction& Find(const Module& m, std::string_view name) {
  return EntryInstruction(m, name);
}

Value Array(PT type, std::vector<int64_t> dims, const std::vector<int64_t>& values) {
  absl::StatusOr<Literal> lit = Literal::Create(Shape::Array(type, dims));
  REQUIRE(lit.ok());
  for (size_t i = 0; i < values.size(); ++i) lit->SetInt(static_cast<int64_t>(i), values[i]);
  return Value::FromLiteral(*std::move(lit));
}

Value Random(const Shape& shape, uint64_t stream) {
  absl::StatusOr<Literal> lit = RandomLiteral(shape, 17, stream);
  REQUIRE(lit.ok());
  return Value::FromLiteral(*std::move(lit));
}

// The loop `name` run compiled and by the evaluator with fast paths off
// from `state`: the same bytes, and the state left as it was.
void Agree(Module& m, std::string_view name, const Value& state) {
  const Instruction& loop = Find(m, name);
  std::unique_ptr<SmallLoop> program = CompileSmallLoop(loop, false);
  REQUIRE(program != nullptr);
  REQUIRE(SmallLoopFits(loop, state));
  const Value before =
      Value::Tuple(std::vector<Value>(state.elements().begin(), state.elements().end()));
  std::vector<std::vector<uint8_t>> bytes;
  for (const Value& e : state.elements()) {
    bytes.emplace_back(e.array().data(), e.array().data() + e.array().size_bytes());
  }
  Evaluator kernels(m, EvalOptions{});
  absl::StatusOr<Value> fast = RunSmallLoop(*program, loop, state, -1, kernels.KernelRunner());
  INFO((fast.ok() ? std::string() : std::string(fast.status().message())));
  REQUIRE(fast.ok());
  EvalOptions options;
  options.fast_paths = false;
  Evaluator ev(m, options);
  const Value* arg = &state;
  absl::StatusOr<Value> plain = EvalControl(loop, absl::MakeConstSpan(&arg, 1), ev);
  REQUIRE(plain.ok());
  CheckSameBytes(*fast, *plain);
  for (size_t k = 0; k < bytes.size(); ++k) {
    const Literal& e = state.elements()[k].array();
    CHECK(std::memcmp(e.data(), bytes[k].data(), bytes[k].size()) == 0);
  }
}

TEST_CASE("small loop: pivots to a permutation, pivots anywhere", "[small_loop]") {
  std::unique_ptr<Module> m = Parse();
  const std::vector<std::vector<int64_t>> pivots = {
      {0, 1, 2, 3, 4}, {4, 3, 2, 3, 4}, {2, 0, 4, 1, 3}, {-1, 5, 7, -9, 2}, {1, 1, 1, 1, 1}};
  for (const std::vector<int64_t>& piv : pivots) {
    Value state = Value::Tuple({Array(PT::kS64, {}, {0}), Array(PT::kS32, {5}, {0, 1, 2, 3, 4}),
                                Array(PT::kS32, {5}, piv)});
    Agree(*m, "perm_loop", state);
  }
}

TEST_CASE("small loop: rows scattered from a large element passed through", "[small_loop]") {
  std::unique_ptr<Module> m = Parse();
  const Instruction& loop = Find(*m, "rows_loop");
  std::unique_ptr<SmallLoop> program = CompileSmallLoop(loop, false);
  REQUIRE(program != nullptr);
  CHECK(program->passed_through == std::vector<bool>{false, false, true});
  // Trips 0..3 write rows 0, 2, 4 and (6: past the end) none.
  for (int64_t start : {0, -2, 1}) {
    Value state =
        Value::Tuple({Array(PT::kS32, {}, {start}), Random(Shape::Array(PT::kF32, {5, 2}), 1),
                      Random(Shape::Array(PT::kF32, {80, 80}), 2)});
    Agree(*m, "rows_loop", state);
  }
}

TEST_CASE("small loop: a dot in the body as its gemm call", "[small_loop]") {
  std::unique_ptr<Module> m = Parse();
  std::unique_ptr<SmallLoop> program = CompileSmallLoop(Find(*m, "dot_loop"), false);
  REQUIRE(program != nullptr);
  CHECK_FALSE(program->body->calls_kernels());
  Value state = Value::Tuple({Array(PT::kS32, {}, {0}), Random(Shape::Array(PT::kF32, {4}), 3),
                              Random(Shape::Array(PT::kF32, {4, 4}), 4)});
  Agree(*m, "dot_loop", state);
}

// The body run once on `state` with the caller's arrays and without them
// (the program then copies what its kernels read): the same bits.
void RunsAlikeWithoutValues(Module& m, SmallProgram& body, const Value& state) {
  Evaluator kernels(m, EvalOptions{});
  std::vector<const void*> inputs;
  std::vector<const Value*> values;
  for (const Value& e : state.elements()) {
    inputs.push_back(e.array().data());
    values.push_back(&e);
  }
  const size_t n = state.elements().size();
  std::vector<std::vector<uint8_t>> by_value(n), copied(n);
  for (auto* results : {&by_value, &copied}) {
    std::vector<void*> outputs;
    for (size_t k = 0; k < n; ++k) {
      (*results)[k].resize(state.elements()[k].array().size_bytes());
      outputs.push_back((*results)[k].data());
    }
    const bool with_values = results == &by_value;
    absl::Status st =
        body.Run(inputs, outputs, kernels.KernelRunner(),
                 with_values ? absl::MakeConstSpan(values) : absl::Span<const Value* const>());
    REQUIRE(st.ok());
  }
  CHECK(by_value == copied);
}

// The bench's v = tanh(M . v + b): M (36 KB, past a small program's
// values) is read where it lies by the dot's gemm step.
TEST_CASE("small loop: a dot of a large matrix in the state", "[small_loop]") {
  std::unique_ptr<Module> m = Parse();
  std::unique_ptr<SmallLoop> program = CompileSmallLoop(Find(*m, "big_dot_loop"), false);
  REQUIRE(program != nullptr);
  CHECK(program->passed_through == std::vector<bool>{false, false, true, true});
  CHECK_FALSE(program->body->calls_kernels());
  Value state = Value::Tuple({Array(PT::kS32, {}, {0}), Random(Shape::Array(PT::kF32, {96}), 5),
                              Random(Shape::Array(PT::kF32, {96, 96}), 6),
                              Random(Shape::Array(PT::kF32, {96}), 7)});
  Agree(*m, "big_dot_loop", state);
  RunsAlikeWithoutValues(*m, *program->body, state);
}

// A batched dot goes to the dot kernel: its 18 KB matrix (past a small
// program's values) as the loop's own array, not a copy; run without the
// caller's arrays the program copies it, with the same bits.
TEST_CASE("small loop: a kernel's large operand in the state", "[small_loop]") {
  std::unique_ptr<Module> m = Parse();
  std::unique_ptr<SmallLoop> program = CompileSmallLoop(Find(*m, "batched_dot_loop"), false);
  REQUIRE(program != nullptr);
  CHECK(program->passed_through == std::vector<bool>{false, false, true});
  CHECK(program->body->calls_kernels());
  Value state = Value::Tuple({Array(PT::kS32, {}, {0}), Random(Shape::Array(PT::kF32, {2, 48}), 8),
                              Random(Shape::Array(PT::kF32, {2, 48, 48}), 9)});
  Agree(*m, "batched_dot_loop", state);
  RunsAlikeWithoutValues(*m, *program->body, state);
}

// A scan's stacked outputs, hs.at[i].set(h) per trip (ten trips over
// eight rows: the last two clamped onto row 7), updated where they lie
// from the second trip on; the caller's array untouched (Agree). Where the
// body also reads hs (its old row i, after the update is made), it is
// copied whole as before.
TEST_CASE("small loop: a stacked output updated in place", "[small_loop]") {
  std::unique_ptr<Module> m = Parse();
  std::unique_ptr<SmallLoop> stack = CompileSmallLoop(Find(*m, "stack_loop"), false);
  std::unique_ptr<SmallLoop> read = CompileSmallLoop(Find(*m, "stack_read_loop"), false);
  REQUIRE(stack != nullptr);
  REQUIRE(read != nullptr);
  CHECK(stack->body->result_updates_input(0) == -1);
  CHECK(stack->body->result_updates_input(1) == -1);
  CHECK(stack->body->result_updates_input(2) == 2);
  CHECK(read->body->result_updates_input(2) == -1);
  for (uint64_t stream : {10, 11}) {
    Value state =
        Value::Tuple({Array(PT::kS32, {}, {0}), Random(Shape::Array(PT::kF32, {4}), stream),
                      Random(Shape::Array(PT::kF32, {8, 4}), stream + 2)});
    Agree(*m, "stack_loop", state);
    Agree(*m, "stack_read_loop", state);
  }
}

// XLA:GPU's loop bodies: fusions wrapped in fusion-start/fusion-done
// (one of an array, one of a tuple) and a multi-output fusion read by
// get-tuple-element, all inline in the program.
TEST_CASE("small loop: async and multi-output fusions in the body", "[small_loop]") {
  std::unique_ptr<Module> m = Parse();
  std::unique_ptr<SmallLoop> program = CompileSmallLoop(Find(*m, "async_loop"), false);
  REQUIRE(program != nullptr);
  CHECK(program->passed_through == std::vector<bool>{false, false, true, false});
  for (uint64_t stream : {30, 31}) {
    Value state =
        Value::Tuple({Array(PT::kS32, {}, {0}), Random(Shape::Array(PT::kF32, {4}), stream),
                      Random(Shape::Array(PT::kF32, {6, 4}), stream + 2),
                      Random(Shape::Array(PT::kF32, {}), stream + 4)});
    Agree(*m, "async_loop", state);
  }
}

// The loop's buffers kept from run to run: written again once the last
// run's result is gone, never while someone holds it.
TEST_CASE("small loop: buffers reused after the last result, not while it is held",
          "[small_loop]") {
  std::unique_ptr<Module> m = Parse();
  const Instruction& loop = Find(*m, "stack_loop");
  std::unique_ptr<SmallLoop> program = CompileSmallLoop(loop, false);
  REQUIRE(program != nullptr);
  auto state = [](uint64_t stream) {
    return Value::Tuple({Array(PT::kS32, {}, {0}), Random(Shape::Array(PT::kF32, {4}), stream),
                         Random(Shape::Array(PT::kF32, {8, 4}), stream + 2)});
  };
  auto bytes = [](const Value& v, size_t k) {
    const Literal& a = v.elements()[k].array();
    return std::vector<uint8_t>(a.data(), a.data() + a.size_bytes());
  };
  absl::StatusOr<Value> first = RunSmallLoop(*program, loop, state(20), -1);
  REQUIRE(first.ok());
  const std::vector<uint8_t> h = bytes(*first, 1), hs = bytes(*first, 2);
  absl::StatusOr<Value> second = RunSmallLoop(*program, loop, state(21), -1);
  REQUIRE(second.ok());
  CHECK(bytes(*first, 1) == h);  // held: not written by the second run
  CHECK(bytes(*first, 2) == hs);
  const void* h_at = second->elements()[1].array().data();
  const void* hs_at = second->elements()[2].array().data();
  CHECK(h_at != first->elements()[1].array().data());
  *second = Value();
  absl::StatusOr<Value> third = RunSmallLoop(*program, loop, state(21), -1);
  REQUIRE(third.ok());
  CHECK(third->elements()[1].array().data() == h_at);  // the same buffers again
  CHECK(third->elements()[2].array().data() == hs_at);
  Agree(*m, "stack_loop", state(21));
  absl::StatusOr<Value> fresh = RunSmallLoop(*CompileSmallLoop(loop, false), loop, state(21), -1);
  REQUIRE(fresh.ok());
  CheckSameBytes(*third, *fresh);
}

TEST_CASE("small loop: the iteration limit, and what stays with the evaluator", "[small_loop]") {
  std::unique_ptr<Module> m = Parse();
  const Instruction& loop = Find(*m, "perm_loop");
  std::unique_ptr<SmallLoop> program = CompileSmallLoop(loop, false);
  REQUIRE(program != nullptr);
  Value state = Value::Tuple({Array(PT::kS64, {}, {0}), Array(PT::kS32, {5}, {0, 1, 2, 3, 4}),
                              Array(PT::kS32, {5}, {1, 2, 3, 4, 0})});
  absl::StatusOr<Value> limited = RunSmallLoop(*program, loop, state, 3);
  REQUIRE_FALSE(limited.ok());
  CHECK(limited.status().message() ==
        "the loop ran 3 iterations, the limit set by --max-iterations");
  CHECK(RunSmallLoop(*program, loop, state, 5).ok());
  // An op with state in the body.
  CHECK(CompileSmallLoop(Find(*m, "rng_loop"), false) == nullptr);
  // A state of other shapes does not fit.
  Value wrong = Value::Tuple({Array(PT::kS32, {}, {0}), Array(PT::kS32, {5}, {0, 1, 2, 3, 4}),
                              Array(PT::kS32, {5}, {0, 1, 2, 3, 4})});
  CHECK_FALSE(SmallLoopFits(loop, wrong));
}

}  // namespace
}  // namespace hlo

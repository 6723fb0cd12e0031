// widen-floats: the rewritten module verifies, keeps the entry's parameter
// and result types, computes in f64 everywhere in between (called
// computations included), keeps the declared types of type-dependent ops,
// and its results are the f64 computation rounded once.
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <string_view>

#include "eval/evaluator.h"
#include "ir/computation.h"
#include "ir/strings.h"
#include "parser/parser.h"
#include "passes/passes.h"
#include "passes/verifier.h"

namespace hlo {
namespace {

std::unique_ptr<Module> Parse(std::string_view text) {
  auto m = ParseModule(text);
  INFO((m.ok() ? std::string() : std::string(m.status().message())));
  REQUIRE(m.ok());
  return *std::move(m);
}

void Widen(Module& m) {
  auto changed = CreateWidenFloats()->Run(m);
  REQUIRE(changed.ok());
  CHECK(*changed);
  auto st = VerifyModule(m);
  INFO(std::string(st.message()));
  REQUIRE(st.ok());
}

bool HasNarrowFloat(const Shape& s) {
  if (s.IsTuple()) {
    for (const Shape* e : s.tuple_shapes()) {
      if (HasNarrowFloat(*e)) return true;
    }
    return false;
  }
  return s.IsArray() && ((IsFloat(s.element_type()) && s.element_type() != PrimitiveType::kF64) ||
                         s.element_type() == PrimitiveType::kC64);
}

Instruction* Find(const Module& m, std::string_view name) {
  for (const auto& c : m.computations()) {
    for (const auto& inst : c->instructions()) {
      if (inst->name() == name) return inst.get();
    }
  }
  FAIL("no instruction " << name);
  return nullptr;
}

Value Run(Module& m, std::vector<std::string_view> inputs) {
  std::vector<Value> args;
  for (std::string_view in : inputs) {
    auto lit = ParseLiteral(in);
    REQUIRE(lit.ok());
    args.push_back(Value::FromLiteral(*std::move(lit)));
  }
  Evaluator ev(m, {});
  auto v = ev.Run(std::move(args));
  INFO((v.ok() ? std::string() : std::string(v.status().message())));
  REQUIRE(v.ok());
  return *std::move(v);
}

// f32 and bf16 arithmetic, a reduce with its adder, a sort comparator, a
// while loop, bitcast-convert, reduce-precision and converts.
const char kModule[] = R"(HloModule widen

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}

%less (x: f32[], y: f32[]) -> pred[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %lt = pred[] compare(%x, %y), direction=LT
}

%cond (st: (s32[], f32[])) -> pred[] {
  %st = (s32[], f32[]) parameter(0)
  %i = s32[] get-tuple-element(%st), index=0
  %ten = s32[] constant(10)
  ROOT %more = pred[] compare(%i, %ten), direction=LT
}

%body (st: (s32[], f32[])) -> (s32[], f32[]) {
  %st = (s32[], f32[]) parameter(0)
  %i = s32[] get-tuple-element(%st), index=0
  %v = f32[] get-tuple-element(%st), index=1
  %one = s32[] constant(1)
  %tenth = f32[] constant(0.1)
  %i1 = s32[] add(%i, %one)
  %v1 = f32[] add(%v, %tenth)
  ROOT %out = (s32[], f32[]) tuple(%i1, %v1)
}

ENTRY %main (p: f32[4], q: bf16[4]) -> (f32[], f32[4], f32[], s32[4], f32[4], bf16[4], f32[]) {
  %p = f32[4] parameter(0)
  %q = bf16[4] parameter(1)
  %big = f32[] constant(1e8)
  %bigs = f32[4] broadcast(%big), dimensions={}
  %sum = f32[4] add(%p, %bigs)
  %back = f32[4] subtract(%sum, %bigs)
  %zero = f32[] constant(0)
  %total = f32[] reduce(%back, %zero), dimensions={0}, to_apply=%add
  %sorted = f32[4] sort(%back), dimensions={0}, to_apply=%less
  %z = s32[] constant(0)
  %init = (s32[], f32[]) tuple(%z, %zero)
  %loop = (s32[], f32[]) while(%init), condition=%cond, body=%body
  %acc = f32[] get-tuple-element(%loop), index=1
  %bits = s32[4] bitcast-convert(%back)
  %rp = f32[4] reduce-precision(%back), exponent_bits=8, mantissa_bits=1
  %qf = f32[4] convert(%q)
  %qq = bf16[4] add(%q, %q)
  %third = f32[] constant(3)
  %one = f32[] constant(1)
  %r = f32[] divide(%one, %third)
  %rb = bf16[] convert(%r)
  %r2 = f32[] convert(%rb)
  ROOT %t = (f32[], f32[4], f32[], s32[4], f32[4], bf16[4], f32[]) tuple(%total, %sorted, %acc, %bits, %rp, %qq, %r2)
}
)";

TEST_CASE("widen-floats: f64 inside, declared types at the edges", "[widen_floats]") {
  auto m = Parse(kModule);
  const Shape* params[2] = {m->entry()->parameter(0)->shape_ptr(),
                            m->entry()->parameter(1)->shape_ptr()};
  const std::string result = m->entry()->root()->shape().ToString();
  Widen(*m);
  CHECK(m->entry()->parameter(0)->shape_ptr() == params[0]);
  CHECK(m->entry()->parameter(1)->shape_ptr() == params[1]);
  CHECK(m->entry()->root()->shape().ToString() == result);
  // Called computations compute in f64: the reducer, the comparator, the
  // loop's condition and body.
  for (const char* name : {"add", "less", "cond", "body"}) {
    const Computation* c = m->FindComputation(name);
    REQUIRE(c != nullptr);
    for (const auto& inst : c->instructions()) {
      INFO(name << ": " << inst->name());
      CHECK(!HasNarrowFloat(inst->shape()));
    }
  }
  CHECK(Find(*m, "sum")->shape().element_type() == PrimitiveType::kF64);
  CHECK(Find(*m, "qq")->shape().element_type() == PrimitiveType::kF64);
  CHECK(Find(*m, "loop")->shape().tuple_shape(1).element_type() == PrimitiveType::kF64);
  // bitcast-convert reads the declared f32 bits.
  const Instruction* bits = Find(*m, "bits");
  CHECK(bits->operand(0)->shape().element_type() == PrimitiveType::kF32);
  CHECK(bits->operand(0)->opcode() == Opcode::kConvert);
  // reduce-precision keeps its format on f64.
  const Instruction* rp = Find(*m, "rp");
  CHECK(rp->shape().element_type() == PrimitiveType::kF64);
  CHECK(rp->GetInt(AttrKind::kExponentBits) == 8);
  CHECK(rp->GetInt(AttrKind::kMantissaBits) == 1);
  // A constant converts exactly.
  const Instruction* tenth = Find(*m, "tenth");
  REQUIRE(tenth->literal() != nullptr);
  CHECK(tenth->literal()->GetDouble(0) == static_cast<double>(0.1f));

  Value v = Run(*m, {"f32[4] {1, 2, 3, 0.5}", "bf16[4] {1, 1.5, 3, 0.00390625}"});
  auto elem = [&](int i) { return v.element(i).ToLiteral(); };
  // In f32, 1e8 + x - 1e8 loses x; in f64 it is x.
  CHECK(elem(0).GetDouble(0) == 6.5);
  CHECK(elem(1).GetDouble(0) == 0.5);
  CHECK(elem(1).GetDouble(3) == 3);
  // Ten additions of f32(0.1) in f64, rounded once: 1.0000000149 -> 1
  // (in f32 they give 1.0000001192).
  CHECK(elem(2).GetDouble(0) == 1.0);
  CHECK(elem(3).GetInt(0) == 0x3f800000);  // bitcast of f32 1
  CHECK(elem(4).GetDouble(2) == 3);        // 3 has a one-bit mantissa
  CHECK(elem(4).GetDouble(3) == 0.5);
  CHECK(elem(5).GetDouble(3) == 0.0078125);
  // The convert to bf16 between f32 values no longer rounds: 1/3 in f64,
  // rounded once to f32.
  CHECK(elem(6).GetDouble(0) == static_cast<double>(static_cast<float>(1.0 / 3.0)));
}

TEST_CASE("widen-floats: custom calls, elided constants, rng and infeed keep their types",
          "[widen_floats]") {
  auto m = Parse(R"(HloModule keep

ENTRY %main (p: f32[3]) -> (f32[3], f32[2], f32[2], c64[2], f32[2]) {
  %p = f32[3] parameter(0)
  %e = f32[3] exponential(%p)
  %cc = f32[3] custom-call(%e), custom_call_target="my_kernel"
  %k = f32[2] constant({...})
  %lo = f32[] constant(0)
  %hi = f32[] constant(1)
  %u = f32[2] rng(%lo, %hi), distribution=rng_uniform
  %re = f32[2] add(%k, %u)
  %c = c64[2] complex(%re, %re)
  %tok = token[] after-all()
  %in = (f32[2], token[]) infeed(%tok)
  %d = f32[2] get-tuple-element(%in), index=0
  %d2 = f32[2] multiply(%d, %d)
  ROOT %t = (f32[3], f32[2], f32[2], c64[2], f32[2]) tuple(%cc, %k, %u, %c, %d2)
}
)");
  Widen(*m);
  const Instruction* cc = Find(*m, "cc");
  CHECK(cc->shape().element_type() == PrimitiveType::kF32);
  CHECK(cc->operand(0)->opcode() == Opcode::kConvert);
  CHECK(cc->operand(0)->operand(0)->shape().element_type() == PrimitiveType::kF64);
  CHECK(Find(*m, "k")->shape().element_type() == PrimitiveType::kF32);
  CHECK(Find(*m, "u")->shape().element_type() == PrimitiveType::kF32);
  CHECK(Find(*m, "u")->operand(0)->shape().element_type() == PrimitiveType::kF32);
  CHECK(Find(*m, "c")->shape().element_type() == PrimitiveType::kC128);
  CHECK(Find(*m, "in")->shape().tuple_shape(0).element_type() == PrimitiveType::kF32);
  CHECK(Find(*m, "d2")->shape().element_type() == PrimitiveType::kF64);
  CHECK(Find(*m, "re")->shape().element_type() == PrimitiveType::kF64);
}

TEST_CASE("widen-floats: LAPACK calls take their double twins, TopK is widened", "[widen_floats]") {
  auto m = Parse(R"(HloModule lapack

ENTRY %main (a: f32[3,3], v: f32[2,5]) -> (f32[3,3], s32[], f32[2,2]) {
  %a = f32[3,3]{0,1} parameter(0)
  %v = f32[2,5] parameter(1)
  %chol = (f32[3,3]{0,1}, s32[]) custom-call(%a), custom_call_target="lapack_spotrf_ffi", operand_layout_constraints={f32[3,3]{0,1}}, backend_config={uplo = 76 : ui8}, api_version=API_VERSION_TYPED_FFI
  %l = f32[3,3]{0,1} get-tuple-element(%chol), index=0
  %info = s32[] get-tuple-element(%chol), index=1
  %top = (f32[2,2], s32[2,2]) custom-call(%v), custom_call_target="TopK"
  %tv = f32[2,2] get-tuple-element(%top), index=0
  ROOT %t = (f32[3,3], s32[], f32[2,2]) tuple(%l, %info, %tv)
}
)");
  Widen(*m);
  const Instruction* chol = Find(*m, "chol");
  CHECK(chol->GetString(AttrKind::kCustomCallTarget) == "lapack_dpotrf_ffi");
  CHECK(chol->shape().ToString(false) == "(f64[3,3], s32[])");
  CHECK(chol->operand(0)->shape().ToString() == "f64[3,3]{0,1}");
  CHECK(Find(*m, "top")->shape().ToString(false) == "(f64[2,2], s32[2,2])");
  Value v = Run(*m, {"f32[3,3] {{4, 2, 0}, {2, 5, 2}, {0, 2, 10}}",
                     "f32[2,5] {{1, 5, 2, 4, 3}, {0, -1, 7, 7, 2}}"});
  Literal l = v.element(0).ToLiteral();
  CHECK(l.GetDouble(0) == 2);  // 4 = 2 * 2
  CHECK(l.GetDouble(4) == 2);  // 5 = 1 + 2 * 2, L = {{2}, {1, 2}, {0, 1, 3}}
  CHECK(l.GetDouble(8) == 3);  // 10 = 1 + 3 * 3
  CHECK(v.element(1).ToLiteral().GetInt(0) == 0);
  Literal top = v.element(2).ToLiteral();
  CHECK(top.GetDouble(0) == 5);
  CHECK(top.GetDouble(1) == 4);
  CHECK(top.GetDouble(2) == 7);
}

TEST_CASE("widen-floats: tuples of parameters, fusions and conditionals", "[widen_floats]") {
  auto m = Parse(R"(HloModule calls

%fused (a: f32[2], b: bf16[2]) -> f32[2] {
  %a = f32[2] parameter(0)
  %b = bf16[2] parameter(1)
  %bf = f32[2] convert(%b)
  ROOT %m = f32[2] multiply(%a, %bf)
}

%yes (x: (f32[2], bf16[2])) -> f32[2] {
  %x = (f32[2], bf16[2]) parameter(0)
  %x0 = f32[2] get-tuple-element(%x), index=0
  %x1 = bf16[2] get-tuple-element(%x), index=1
  ROOT %f = f32[2] fusion(%x0, %x1), kind=kLoop, calls=%fused
}

%no (x: (f32[2], bf16[2])) -> f32[2] {
  %x = (f32[2], bf16[2]) parameter(0)
  ROOT %x0 = f32[2] get-tuple-element(%x), index=0
}

ENTRY %main (p: (f32[2], bf16[2]), c: pred[]) -> (f32[2], bf16[2]) {
  %p = (f32[2], bf16[2]) parameter(0)
  %c = pred[] parameter(1)
  %r = f32[2] conditional(%c, %p, %p), true_computation=%yes, false_computation=%no
  %p1 = bf16[2] get-tuple-element(%p), index=1
  ROOT %t = (f32[2], bf16[2]) tuple(%r, %p1)
}
)");
  Widen(*m);
  CHECK(m->entry()->parameter(0)->shape().ToString(false) == "(f32[2], bf16[2])");
  CHECK(m->entry()->root()->shape().ToString(false) == "(f32[2], bf16[2])");
  CHECK(m->FindComputation("fused")->parameter(1)->shape().element_type() == PrimitiveType::kF64);
  CHECK(m->FindComputation("yes")->parameter(0)->shape().ToString(false) == "(f64[2], f64[2])");
  Value v = Run(*m, {"(f32[2] {3, 1e8}, bf16[2] {0.5, 3})", "pred[] true"});
  CHECK(v.element(0).ToLiteral().GetDouble(0) == 1.5);
  CHECK(v.element(0).ToLiteral().GetDouble(1) == 3e8);
  CHECK(v.element(1).ToLiteral().GetDouble(1) == 3);
}

}  // namespace
}  // namespace hlo

// Small programs' dots on raw buffers (SmallProgram's kGemm steps,
// PlanDirectGemm): which dots take them, and that fusions and a loop of
// them give, bit for bit, what the evaluator's dot kernel gives for each
// dot on its own (fusion off): each side transposed or not, a matrix times
// a vector and a vector times a matrix, f64, a product large enough for
// the blocked libraries, a dot of a dot between elementwise ops, and
// subnormal operands under --denormals=flush; batched, half-precision and
// mixed-type dots stay with the kernel.
#include <catch2/catch.hpp>
#include <cstring>
#include <string_view>
#include <vector>

#include "eval/fusion/small_program_test_util.h"
#include "parser/parse_test_util.h"

namespace hlo {
namespace {

constexpr std::string_view kModule = R"(HloModule dots

plain {
  x = f32[4,32]{1,0} parameter(0)
  w = f32[32,32]{1,0} parameter(1)
  ROOT d = f32[4,32]{1,0} dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}

lhs_transposed {
  x = f32[32,8]{1,0} parameter(0)
  w = f32[32,16]{1,0} parameter(1)
  ROOT d = f32[8,16]{1,0} dot(x, w), lhs_contracting_dims={0}, rhs_contracting_dims={0}
}

rhs_transposed {
  x = f32[4,32]{1,0} parameter(0)
  w = f32[16,32]{1,0} parameter(1)
  ROOT d = f32[4,16]{1,0} dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={1}
}

matrix_vector {
  w = f32[16,32]{1,0} parameter(0)
  v = f32[32]{0} parameter(1)
  ROOT d = f32[16]{0} dot(w, v), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}

vector_matrix {
  v = f32[32]{0} parameter(0)
  w = f32[32,16]{1,0} parameter(1)
  ROOT d = f32[16]{0} dot(v, w), lhs_contracting_dims={0}, rhs_contracting_dims={0}
}

doubles {
  x = f64[5,7]{1,0} parameter(0)
  y = f64[7,3]{1,0} parameter(1)
  ROOT d = f64[5,3]{1,0} dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}

large {
  x = f32[64,64]{1,0} parameter(0)
  y = f32[64,64]{1,0} parameter(1)
  ROOT d = f32[64,64]{1,0} dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}

layer {
  x = f32[4,32]{1,0} parameter(0)
  w = f32[32,32]{1,0} parameter(1)
  b = f32[32]{0} parameter(2)
  h = f32[4,32]{1,0} dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[4,32]{1,0} broadcast(b), dimensions={1}
  a = f32[4,32]{1,0} add(h, bb)
  t = f32[4,32]{1,0} tanh(a)
  ROOT d = f32[4,32]{1,0} dot(t, w), lhs_contracting_dims={1}, rhs_contracting_dims={1}
}

batched {
  x = f32[2,4,32]{2,1,0} parameter(0)
  y = f32[2,32,8]{2,1,0} parameter(1)
  ROOT d = f32[2,4,8]{2,1,0} dot(x, y), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
}

halves {
  x = bf16[4,32]{1,0} parameter(0)
  y = bf16[32,8]{1,0} parameter(1)
  ROOT d = bf16[4,8]{1,0} dot(x, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}

widened {
  x = f32[4,32]{1,0} parameter(0)
  w = f32[32,32]{1,0} parameter(1)
  ROOT d = f64[4,32]{1,0} dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}

ENTRY main {
  p0 = f32[4,32]{1,0} parameter(0)
  p1 = f32[32,32]{1,0} parameter(1)
  p2 = f32[32,8]{1,0} parameter(2)
  p3 = f32[32,16]{1,0} parameter(3)
  p4 = f32[16,32]{1,0} parameter(4)
  p5 = f32[32]{0} parameter(5)
  p6 = f64[5,7]{1,0} parameter(6)
  p7 = f64[7,3]{1,0} parameter(7)
  p8 = f32[64,64]{1,0} parameter(8)
  p9 = f32[2,4,32]{2,1,0} parameter(9)
  p10 = f32[2,32,8]{2,1,0} parameter(10)
  p11 = bf16[4,32]{1,0} parameter(11)
  p12 = bf16[32,8]{1,0} parameter(12)
  f_plain = f32[4,32]{1,0} fusion(p0, p1), kind=kOutput, calls=plain
  f_lhs_transposed = f32[8,16]{1,0} fusion(p2, p3), kind=kOutput, calls=lhs_transposed
  f_rhs_transposed = f32[4,16]{1,0} fusion(p0, p4), kind=kOutput, calls=rhs_transposed
  f_matrix_vector = f32[16]{0} fusion(p4, p5), kind=kOutput, calls=matrix_vector
  f_vector_matrix = f32[16]{0} fusion(p5, p3), kind=kOutput, calls=vector_matrix
  f_doubles = f64[5,3]{1,0} fusion(p6, p7), kind=kOutput, calls=doubles
  f_large = f32[64,64]{1,0} fusion(p8, p8), kind=kOutput, calls=large
  f_layer = f32[4,32]{1,0} fusion(p0, p1, p5), kind=kOutput, calls=layer
  f_batched = f32[2,4,8]{2,1,0} fusion(p9, p10), kind=kOutput, calls=batched
  f_halves = bf16[4,8]{1,0} fusion(p11, p12), kind=kOutput, calls=halves
  f_widened = f64[4,32]{1,0} fusion(p0, p1), kind=kOutput, calls=widened
  ROOT t = (f32[4,32]{1,0}, f32[8,16]{1,0}, f32[4,16]{1,0}, f32[16]{0}, f32[16]{0}, f64[5,3]{1,0}, f32[64,64]{1,0}, f32[4,32]{1,0}, f32[2,4,8]{2,1,0}, bf16[4,8]{1,0}, f64[4,32]{1,0}) tuple(f_plain, f_lhs_transposed, f_rhs_transposed, f_matrix_vector, f_vector_matrix, f_doubles, f_large, f_layer, f_batched, f_halves, f_widened)
}
)";

constexpr std::string_view kGemmFusions[] = {
    "f_plain",         "f_lhs_transposed", "f_rhs_transposed", "f_matrix_vector",
    "f_vector_matrix", "f_doubles",        "f_large",          "f_layer"};
constexpr std::string_view kKernelFusions[] = {"f_batched", "f_halves", "f_widened"};

TEST_CASE("small programs run plain dots as their gemm call", "[small_program]") {
  std::unique_ptr<Module> m = ParseTestModule(kModule);
  for (std::string_view name : kGemmFusions) {
    INFO(name);
    std::unique_ptr<SmallProgram> program = CompileSmallFusion(EntryInstruction(*m, name), false);
    REQUIRE(program != nullptr);
    CHECK_FALSE(program->calls_kernels());  // no dot handed to the kernel
  }
  for (std::string_view name : kKernelFusions) {
    INFO(name);
    std::unique_ptr<SmallProgram> program = CompileSmallFusion(EntryInstruction(*m, name), false);
    REQUIRE(program != nullptr);
    CHECK(program->calls_kernels());
  }
}

TEST_CASE("small programs' dots give the dot kernel's bytes", "[small_program]") {
  std::unique_ptr<Module> m = ParseTestModule(kModule);
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    const std::vector<Value> entry_args = RandomArguments(*m, seed);
    for (auto names : {absl::MakeConstSpan(kGemmFusions), absl::MakeConstSpan(kKernelFusions)}) {
      for (std::string_view name : names) {
        for (bool flush : {false, true}) {
          INFO(name << " seed " << seed << " flush " << flush);
          const Instruction& f = EntryInstruction(*m, name);
          AgreeWithKernels(*m, f, ArgumentsOf(f, entry_args), flush);
        }
      }
    }
  }
}

TEST_CASE("small programs' dots of subnormals flush as the kernel does", "[small_program]") {
  std::unique_ptr<Module> m = ParseTestModule(kModule);
  std::vector<Value> entry_args = RandomArguments(*m, 4);
  // Products of about 1e-21 * 1e-21: subnormal sums; every fifth operand
  // itself subnormal.
  for (int arg : {0, 1, 2, 3, 4, 5, 8}) {
    Literal& lit = entry_args[arg].mutable_array();
    for (int64_t k = 0; k < lit.element_count(); ++k) {
      const float v = k % 5 == 0 ? 3e-39f : (k % 3 ? 1e-21f : -2e-21f);
      std::memcpy(lit.typed<float>() + k, &v, sizeof(float));
    }
  }
  for (std::string_view name : kGemmFusions) {
    for (bool flush : {false, true}) {
      INFO(name << " flush " << flush);
      const Instruction& f = EntryInstruction(*m, name);
      AgreeWithKernels(*m, f, ArgumentsOf(f, entry_args), flush);
    }
  }
}

// An RNN's loop: h = tanh(h . W + x_t . U), its body a small program with
// two gemm steps (the state's matrix W read where it lies), against the
// loop run instruction by instruction.
constexpr std::string_view kLoop = R"(HloModule rnn

cond {
  s = (s32[], f32[4,32]{1,0}, f32[32,32]{1,0}, f32[8,4,16]{2,1,0}, f32[16,32]{1,0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(8)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  s = (s32[], f32[4,32]{1,0}, f32[32,32]{1,0}, f32[8,4,16]{2,1,0}, f32[16,32]{1,0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  h = f32[4,32]{1,0} get-tuple-element(s), index=1
  w = f32[32,32]{1,0} get-tuple-element(s), index=2
  xs = f32[8,4,16]{2,1,0} get-tuple-element(s), index=3
  u = f32[16,32]{1,0} get-tuple-element(s), index=4
  z = s32[] constant(0)
  x1 = f32[1,4,16]{2,1,0} dynamic-slice(xs, i, z, z), dynamic_slice_sizes={1,4,16}
  x = f32[4,16]{1,0} reshape(x1)
  hw = f32[4,32]{1,0} dot(h, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  xu = f32[4,32]{1,0} dot(x, u), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  a = f32[4,32]{1,0} add(hw, xu)
  h2 = f32[4,32]{1,0} tanh(a)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT t = (s32[], f32[4,32]{1,0}, f32[32,32]{1,0}, f32[8,4,16]{2,1,0}, f32[16,32]{1,0}) tuple(i2, h2, w, xs, u)
}

ENTRY main {
  h0 = f32[4,32]{1,0} parameter(0)
  w = f32[32,32]{1,0} parameter(1)
  xs = f32[8,4,16]{2,1,0} parameter(2)
  u = f32[16,32]{1,0} parameter(3)
  z = s32[] constant(0)
  init = (s32[], f32[4,32]{1,0}, f32[32,32]{1,0}, f32[8,4,16]{2,1,0}, f32[16,32]{1,0}) tuple(z, h0, w, xs, u)
  loop = (s32[], f32[4,32]{1,0}, f32[32,32]{1,0}, f32[8,4,16]{2,1,0}, f32[16,32]{1,0}) while(init), condition=cond, body=body
  ROOT h = f32[4,32]{1,0} get-tuple-element(loop), index=1
}
)";

TEST_CASE("a loop body's dots as gemm steps give the unfused loop's bytes", "[small_program]") {
  std::unique_ptr<Module> m = ParseTestModule(kLoop);
  const Computation* body = nullptr;
  for (const auto& c : m->computations()) {
    if (c->name() == "body") body = c.get();
  }
  REQUIRE(body != nullptr);
  absl::StatusOr<std::unique_ptr<SmallProgram>> program = SmallProgram::Compile(*body, false);
  REQUIRE(program.ok());
  CHECK_FALSE((*program)->calls_kernels());
  for (uint64_t seed = 1; seed <= 2; ++seed) {
    for (bool flush : {false, true}) {
      INFO("seed " << seed << " flush " << flush);
      CheckFusionKeepsBytes(*m, RandomArguments(*m, seed), flush);
    }
  }
}

}  // namespace
}  // namespace hlo

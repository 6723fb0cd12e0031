// Small programs' reduces on raw buffers (SmallProgram's kReduce steps,
// reduction::RawReduceOf): which reduces take them, and that a module of
// such fusions gives, bit for bit, what the evaluator's reduce kernel gives
// for each reduce on its own (fusion off): sums past the pairwise tree's
// leaf, several reduced dims, max with an infinite init, an init that is a
// parameter, integers, f64, a reduce of a reduce, and subnormal sums under
// --denormals=flush.
#include <catch2/catch.hpp>
#include <cstring>
#include <string_view>
#include <vector>

#include "eval/fusion/small_program_test_util.h"
#include "parser/parse_test_util.h"

namespace hlo {
namespace {

constexpr std::string_view kModule = R"(HloModule reduces

add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}

min_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] minimum(a, b)
}

add_f64 {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  ROOT s = f64[] add(a, b)
}

add_s32 {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}

columns {
  x = f32[4,32]{1,0} parameter(0)
  y = f32[4,32]{1,0} multiply(x, x)
  z = f32[] constant(0)
  ROOT r = f32[32]{0} reduce(y, z), dimensions={0}, to_apply=add_f32
}

long_rows {
  x = f32[3,100]{1,0} parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[3]{0} reduce(x, z), dimensions={1}, to_apply=add_f32
}

all_max {
  x = f32[5,7]{1,0} parameter(0)
  i = f32[] constant(-inf)
  ROOT r = f32[] reduce(x, i), dimensions={0,1}, to_apply=max_f32
}

init_param {
  x = f32[8,3]{1,0} parameter(0)
  i = f32[] parameter(1)
  ROOT r = f32[3]{0} reduce(x, i), dimensions={0}, to_apply=min_f32
}

outer_f64 {
  x = f64[3,4,5]{2,1,0} parameter(0)
  z = f64[] constant(0)
  ROOT r = f64[4]{0} reduce(x, z), dimensions={0,2}, to_apply=add_f64
}

ints {
  x = s32[6,9]{1,0} parameter(0)
  z = s32[] constant(0)
  ROOT r = s32[6]{0} reduce(x, z), dimensions={1}, to_apply=add_s32
}

twice {
  x = f32[4,32]{1,0} parameter(0)
  z = f32[] constant(0)
  r = f32[32]{0} reduce(x, z), dimensions={0}, to_apply=add_f32
  one = f32[1,32]{1,0} reshape(r)
  ROOT r2 = f32[32]{0} reduce(one, z), dimensions={0}, to_apply=add_f32
}

ENTRY main {
  p0 = f32[4,32]{1,0} parameter(0)
  p1 = f32[3,100]{1,0} parameter(1)
  p2 = f32[5,7]{1,0} parameter(2)
  p3 = f32[8,3]{1,0} parameter(3)
  p4 = f32[] parameter(4)
  p5 = f64[3,4,5]{2,1,0} parameter(5)
  p6 = s32[6,9]{1,0} parameter(6)
  f_columns = f32[32]{0} fusion(p0), kind=kInput, calls=columns
  f_long_rows = f32[3]{0} fusion(p1), kind=kInput, calls=long_rows
  f_all_max = f32[] fusion(p2), kind=kInput, calls=all_max
  f_init_param = f32[3]{0} fusion(p3, p4), kind=kInput, calls=init_param
  f_outer_f64 = f64[4]{0} fusion(p5), kind=kInput, calls=outer_f64
  f_ints = s32[6]{0} fusion(p6), kind=kInput, calls=ints
  f_twice = f32[32]{0} fusion(p0), kind=kInput, calls=twice
  ROOT t = (f32[32]{0}, f32[3]{0}, f32[], f32[3]{0}, f64[4]{0}, s32[6]{0}, f32[32]{0}) tuple(f_columns, f_long_rows, f_all_max, f_init_param, f_outer_f64, f_ints, f_twice)
}
)";

constexpr std::string_view kFusions[] = {"f_columns",   "f_long_rows", "f_all_max", "f_init_param",
                                         "f_outer_f64", "f_ints",      "f_twice"};

TEST_CASE("small programs run plain reduces on their buffers", "[small_program]") {
  std::unique_ptr<Module> m = ParseTestModule(kModule);
  for (std::string_view name : kFusions) {
    INFO(name);
    std::unique_ptr<SmallProgram> program = CompileSmallFusion(EntryInstruction(*m, name), false);
    REQUIRE(program != nullptr);
    CHECK_FALSE(program->calls_kernels());  // no reduce handed to the kernel
  }
}

TEST_CASE("small programs' reduces give the reduce kernel's bytes", "[small_program]") {
  std::unique_ptr<Module> m = ParseTestModule(kModule);
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    const std::vector<Value> entry_args = RandomArguments(*m, seed);
    for (std::string_view name : kFusions) {
      for (bool flush : {false, true}) {
        INFO(name << " seed " << seed << " flush " << flush);
        const Instruction& f = EntryInstruction(*m, name);
        AgreeWithKernels(*m, f, ArgumentsOf(f, entry_args), flush);
      }
    }
  }
}

TEST_CASE("small programs' reduces flush subnormal results as the kernel does", "[small_program]") {
  std::unique_ptr<Module> m = ParseTestModule(kModule);
  std::vector<Value> entry_args = RandomArguments(*m, 4);
  // Subnormal squares and sums: p0's columns square to about 1e-42 each;
  // p2 and p3 hold subnormals the max and min may pick.
  for (int arg : {0, 2, 3}) {
    Literal& lit = entry_args[arg].mutable_array();
    for (int64_t k = 0; k < lit.element_count(); ++k) {
      const float v = arg == 0 ? (k % 3 ? 1e-21f : -2e-21f) : (k % 2 ? 3e-39f : -1e-40f);
      std::memcpy(lit.typed<float>() + k, &v, sizeof(float));
    }
  }
  for (std::string_view name : kFusions) {
    for (bool flush : {false, true}) {
      INFO(name << " flush " << flush);
      const Instruction& f = EntryInstruction(*m, name);
      AgreeWithKernels(*m, f, ArgumentsOf(f, entry_args), flush);
    }
  }
}

}  // namespace
}  // namespace hlo

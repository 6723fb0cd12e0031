// A reduce by a simple reducer over arrays large enough that the kept
// dimensions ahead of the first reduced one are split over the cores
// (eval/kernels/reduce.cc): each output must hold the bits of the same
// reduce run on its slab alone (one leading index, never split), for sums
// (a pairwise tree, so the order shows in the bits) and maxima, with kept
// dimensions after the reduced ones too.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "eval/evaluator.h"
#include "ir/literal.h"
#include "ir/strings.h"
#include "parser/parser.h"

namespace hlo {
namespace {

// reduce(x, init) of an f32 array of `dims` over `reduced` by `op`.
Literal Reduce(const std::vector<int64_t>& dims, const std::vector<int64_t>& reduced,
               std::string_view op, const Literal& x) {
  std::vector<int64_t> kept;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (std::find(reduced.begin(), reduced.end(), static_cast<int64_t>(d)) == reduced.end()) {
      kept.push_back(dims[d]);
    }
  }
  const std::string text = StrCat(
      "HloModule m\n\nf {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = f32[] ",
      op, "(a, b)\n}\n\nENTRY e {\n  x = f32[", StrJoin(dims, ","),
      "] parameter(0)\n  z = f32[] constant(", op == "add" ? "0" : "-inf", ")\n  ROOT r = f32[",
      StrJoin(kept, ","), "] reduce(x, z), dimensions={", StrJoin(reduced, ","),
      "}, to_apply=f\n}\n");
  absl::StatusOr<std::unique_ptr<Module>> m = ParseModule(text);
  INFO((m.ok() ? std::string() : std::string(m.status().message())));
  REQUIRE(m.ok());
  Evaluator ev(**m, {});
  absl::StatusOr<Value> out = ev.Run({Value::FromLiteral(Literal(x))});
  INFO((out.ok() ? std::string() : std::string(out.status().message())));
  REQUIRE(out.ok());
  return out->array();
}

// Values over many magnitudes and both signs, so that a sum's order shows.
Literal Values(const std::vector<int64_t>& dims, unsigned seed) {
  absl::StatusOr<Literal> x = Literal::Create(Shape::Array(PrimitiveType::kF32, dims));
  REQUIRE(x.ok());
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> mantissa(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-10, 20);
  for (int64_t i = 0; i < x->element_count(); ++i) {
    x->typed<float>()[i] = std::ldexp(mantissa(rng), exponent(rng));
  }
  return *std::move(x);
}

void CheckSlabsAlone(const std::vector<int64_t>& dims, const std::vector<int64_t>& reduced,
                     std::string_view op) {
  INFO(StrCat(op, " over {", StrJoin(reduced, ","), "} of f32[", StrJoin(dims, ","), "]"));
  const Literal x = Values(dims, 7);
  const Literal whole = Reduce(dims, reduced, op, x);
  std::vector<int64_t> slab_dims = dims;
  slab_dims[0] = 1;
  const int64_t in_slab = x.element_count() / dims[0];
  const int64_t out_slab = whole.element_count() / dims[0];
  for (int64_t i = 0; i < dims[0]; ++i) {
    absl::StatusOr<Literal> slab = Literal::Create(Shape::Array(PrimitiveType::kF32, slab_dims));
    REQUIRE(slab.ok());
    std::memcpy(slab->typed<float>(), x.typed<float>() + i * in_slab, in_slab * sizeof(float));
    const Literal alone = Reduce(slab_dims, reduced, op, *slab);
    INFO("leading index " << i);
    REQUIRE(std::memcmp(alone.typed<float>(), whole.typed<float>() + i * out_slab,
                        out_slab * sizeof(float)) == 0);
  }
}

TEST_CASE("reduce split over leading kept dims gives each slab's bits", "[reduce]") {
  CheckSlabsAlone({512, 96}, {1}, "add");           // rows
  CheckSlabsAlone({64, 40, 24}, {1, 2}, "add");     // two reduced dims
  CheckSlabsAlone({48, 12, 64}, {1}, "add");        // a kept dim after the reduced one
  CheckSlabsAlone({40, 2, 8, 64}, {2}, "maximum");  // kept, reduced, kept
  CheckSlabsAlone({300, 130}, {1}, "maximum");
}

}  // namespace
}  // namespace hlo

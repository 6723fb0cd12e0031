// CUB's scan (eval/gpu/cub.cc): the typed f32/f64 scans, several lines at
// a time, give the generic loop's bytes (hlo-run --no-fast-paths) forwards
// and in reverse, along the minor dimension of either layout, for line
// counts that fill the groups of eight and leave a remainder, with and
// without flushing subnormals.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "eval/eval_test_util.h"
#include "eval/evaluator.h"
#include "ir/literal.h"
#include "ir/strings.h"

namespace hlo {
namespace {

// Scans of x [rows, cols] (layout `layout`) forwards and in reverse.
std::string ScanModule(std::string_view type, int64_t rows, int64_t cols, std::string_view layout) {
  const std::string shape = StrCat(type, "[", rows, ",", cols, "]", layout);
  auto scan = [&](std::string_view name, std::string_view reverse) {
    return StrCat("  ", name, " = (", shape, ", u8[0]{0}) custom-call(x), ",
                  "custom_call_target=\"xla.gpu.ext.cub_scan\", ",
                  "api_version=API_VERSION_TYPED_FFI, backend_config={kind = 1 : i32, ",
                  "is_reverse = ", reverse, "}\n");
  };
  return StrCat(
      "HloModule scan\n\nENTRY main {\n  x = ", shape, " parameter(0)\n", scan("a", "false"),
      scan("b", "true"), "  a0 = ", shape, " get-tuple-element(a), index=0\n  b0 = ", shape,
      " get-tuple-element(b), index=0\n  ROOT t = (", shape, ", ", shape, ") tuple(a0, b0)\n}\n");
}

// Values whose running sums round at every step, with subnormals, NaN and
// infinities among them.
Value ScanValues(const Shape& shape) {
  auto lit = Literal::Create(shape);
  REQUIRE(lit.ok());
  const double pick[] = {1e-40, -3e-39, NAN, INFINITY, 1e30, -1e30};
  uint32_t seed = 11;
  for (int64_t i = 0; i < lit->element_count(); ++i) {
    seed = seed * 1664525u + 1013904223u;
    lit->SetDouble(i, (seed >> 16) % 97 == 0 ? pick[(seed >> 8) % 6]
                                             : static_cast<double>(seed >> 8) / 7.0e5 - 12);
  }
  return Value::FromLiteral(*std::move(lit));
}

TEST_CASE("cub scan: typed scans give the generic loop's bytes", "[cub]") {
  for (std::string_view type : {"f32", "f64"}) {
    for (std::string_view layout : {"{1,0}", "{0,1}"}) {
      for (int64_t rows : {3, 8, 21}) {
        const std::string text = ScanModule(type, rows, 37, layout);
        INFO(text);
        auto m = ParseTestModule(text);
        const std::vector<Value> args = {ScanValues(m->entry()->parameter(0)->shape())};
        for (bool flush : {false, true}) CheckFastPathsKeepBytes(*m, args, flush);
      }
    }
  }
}

}  // namespace
}  // namespace hlo

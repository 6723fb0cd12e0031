// Comparing a result with an expected literal (hlo-run --expect).
#ifndef HLO_EVAL_IO_COMPARE_H_
#define HLO_EVAL_IO_COMPARE_H_

#include <optional>
#include <string>

#include "ir/literal.h"

namespace hlo {

struct Tolerance {
  std::optional<double> rtol;  // default by element type
  std::optional<double> atol;
};

// Default tolerances: f64 1e-12, f32 1e-5 (atol 1e-6), f16/bf16 1e-2, f8/f4
// 1/8; integers and pred exact.
double DefaultRtol(PrimitiveType type);
double DefaultAtol(PrimitiveType type);

// Empty when they match; else a report naming the first mismatches (up to
// `max_report`) with their indices and values, and the mismatch count.
// Floats match when |a - e| <= atol + rtol * |e|, NaN matches NaN, infinities
// must be equal.
std::string CompareLiterals(const Literal& actual, const Literal& expected,
                            const Tolerance& tolerance, int max_report = 10);

}  // namespace hlo

#endif  // HLO_EVAL_IO_COMPARE_H_

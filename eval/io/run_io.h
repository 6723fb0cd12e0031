// hlo-run's inputs and outputs: reading parameters and expected results from
// literal text, JSON or .npy files, and writing results as text, JSON or npy.
#ifndef HLO_EVAL_IO_RUN_IO_H_
#define HLO_EVAL_IO_RUN_IO_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "eval/value.h"
#include "ir/literal.h"

namespace hlo {

// Reads a value for a parameter of `shape` from a file: `.npy`, `.json`
// (design.md's result format), or literal text (`f32[2] {1, 2}`, or just the
// value `{1, 2}` when it fits the parameter; tuples as `(f32[] 1, s32[] 2)`).
// An .npz archive (or any zip) is an error saying so.
absl::StatusOr<Literal> LoadLiteralFile(const std::string& path, const Shape& shape);
// An --input argument: the file when it exists; else, when the text looks
// like a literal (starts with `{`, `(`, a digit, a sign or `.`, is true,
// false, nan or inf, or starts with a shape such as `f32[2]`; no '/' and no
// .npy/.npz/.json/.txt ending), that literal text itself; else the file
// (whose error says it cannot be opened).
absl::StatusOr<Literal> LoadInputArgument(const std::string& arg, const Shape& shape);
bool LooksLikeLiteral(std::string_view text);
// Reads an expected result (text, JSON or npy; for npy and bare values the
// result shape is used).
absl::StatusOr<Literal> LoadExpected(const std::string& path, const Shape& result_shape);

// design.md's literal text: `f32[2,3] {{1, 2, 3}, {4, 5, 6}}`.
std::string ResultToText(const Literal& result);
// Writes one .npy file per array of the result into `dir` (created if
// needed): result.npy, or result_0.npy, result_1_0.npy, … for tuples; with
// subdirs (one per result: devices), those of results[d] into DIR/subdirs[d]/. The
// files appear together once all are written, or none does: a failure or
// SIGINT/SIGTERM/SIGHUP leaves DIR as it was (ir/output_dir.h).
absl::Status WriteResultNpy(const std::vector<Literal>& results,
                            const std::vector<std::string>& subdirs, const std::string& dir);

}  // namespace hlo

#endif  // HLO_EVAL_IO_RUN_IO_H_

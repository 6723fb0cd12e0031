// What hlo-run --expect compares a result with: the whole result from one
// file (literal text, JSON, or .npy for an array result) or from a folder of
// .npy files, or one file per array of the result.
#ifndef HLO_EVAL_IO_EXPECT_H_
#define HLO_EVAL_IO_EXPECT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/literal.h"
#include "ir/shape.h"

namespace hlo {

// The arrays of a result, depth first (a tuple's leaves; tokens count).
int64_t ResultArrayCount(const Shape& result);

// Splits the --expect arguments among `devices` results of shape `result`:
// one argument for every device (a file of the whole result, or a folder);
// one per array, in order (every device compared with them); one per device;
// or one per array per device (device 0's first). An .npy file holds one
// array, so it is the whole result only for an array result. Anything else
// is an InvalidArgument error giving both counts.
absl::StatusOr<std::vector<std::vector<std::string>>> AssignExpectFiles(
    const std::vector<std::string>& given, const Shape& result, int64_t devices);

// Reads a device's expected result from its files (one of AssignExpectFiles'
// lists). A folder holds result.npy / result_I_J.npy (as hlo-run -o DIR
// writes them) or out_K.npy (K counting the arrays depth first, as XLA's
// dumps name them); a subfolder named `device_dir` (replica_0, ...) is read
// instead when there is one. A .npy file in the folder that is no array of
// the result is an error.
absl::StatusOr<Literal> LoadExpectedResult(const std::vector<std::string>& files,
                                           const Shape& result, const std::string& device_dir);

}  // namespace hlo

#endif  // HLO_EVAL_IO_EXPECT_H_

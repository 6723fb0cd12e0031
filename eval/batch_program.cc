#include "eval/batch_program.h"

namespace hlo {

struct BatchProgram::Step {};

BatchProgram::BatchProgram() = default;
BatchProgram::~BatchProgram() = default;

absl::StatusOr<std::unique_ptr<BatchProgram>> BatchProgram::Compile(const Computation&) {
  return absl::UnimplementedError("the batched interpreter is being written");
}

absl::Status BatchProgram::Run(absl::Span<const void* const>, absl::Span<void* const>, int64_t) {
  return absl::UnimplementedError("the batched interpreter is being written");
}

}  // namespace hlo

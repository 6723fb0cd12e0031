#include "ir/instruction_marks.h"

#include "ir/module.h"

namespace hlo {

ComputationMarks::ComputationMarks(const Module& module)
    : AddressMarks<Computation>(module.computations()) {}

}  // namespace hlo

// The registry of reductions, from reduce/deltas.def.
#include "reduce/delta.h"

namespace hlo::reduce {

const std::vector<DeltaInfo>& AllDeltas() {
  static const std::vector<DeltaInfo>* all = new std::vector<DeltaInfo>{
#define HLO_DELTA(name, factory, description) {name, &factory, description},
#include "reduce/deltas.def"
#undef HLO_DELTA
  };
  return *all;
}

}  // namespace hlo::reduce

// Integer fields of the small `{key=[1,2], other=3}` dictionaries XLA's
// translation writes into a custom call's backend_config
// (mhlo.dynamic_broadcast_in_dim's broadcast_dimensions).
#ifndef HLO_IR_CONFIG_INTS_H_
#define HLO_IR_CONFIG_INTS_H_

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace hlo {

// `key=[1,2]` or `key=3` in `config`: the integers; nullopt when the key is
// absent or its value malformed.
std::optional<std::vector<int64_t>> ConfigInts(std::string_view config, std::string_view key);

}  // namespace hlo

#endif  // HLO_IR_CONFIG_INTS_H_

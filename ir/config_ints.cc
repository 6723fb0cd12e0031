#include "ir/config_ints.h"

#include <charconv>
#include <string>

namespace hlo {

std::optional<std::vector<int64_t>> ConfigInts(std::string_view config, std::string_view key) {
  // The key at the start of a field: after '{', ',' or a blank.
  size_t at = 0;
  while (true) {
    at = config.find(key, at);
    if (at == std::string_view::npos) return std::nullopt;
    const bool starts =
        at == 0 || config[at - 1] == '{' || config[at - 1] == ',' || config[at - 1] == ' ';
    if (starts && config.substr(at + key.size()).starts_with("=")) break;
    at += key.size();
  }
  std::string_view rest = config.substr(at + key.size() + 1);
  const bool list = rest.starts_with("[");
  if (list) rest.remove_prefix(1);
  std::vector<int64_t> out;
  auto skip_blanks = [&] {
    while (rest.starts_with(" ")) rest.remove_prefix(1);
  };
  skip_blanks();
  while (!rest.empty() && rest[0] != ']') {
    int64_t v = 0;
    auto r = std::from_chars(rest.data(), rest.data() + rest.size(), v);
    if (r.ec != std::errc()) return std::nullopt;
    out.push_back(v);
    rest.remove_prefix(static_cast<size_t>(r.ptr - rest.data()));
    if (!list) return out;
    skip_blanks();
    if (rest.starts_with(",")) rest.remove_prefix(1);
    skip_blanks();
  }
  if (!list || rest.empty()) return std::nullopt;  // an unclosed list
  return out;
}

}  // namespace hlo

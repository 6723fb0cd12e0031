#include "ir/dot_transpose_fold.h"

namespace hlo {

std::optional<DotSideDims> DotSideThroughTranspose(absl::Span<const int64_t> perm,
                                                   absl::Span<const int64_t> batch,
                                                   absl::Span<const int64_t> contracting) {
  const int64_t rank = static_cast<int64_t>(perm.size());
  std::vector<bool> used(rank, false);
  DotSideDims out;
  for (auto [from, to] : {std::pair{batch, &out.batch}, std::pair{contracting, &out.contracting}}) {
    for (int64_t d : from) {
      if (d < 0 || d >= rank) return std::nullopt;
      used[d] = true;
      to->push_back(perm[d]);
    }
  }
  int64_t last = -1;
  for (int64_t d = 0; d < rank; ++d) {
    if (used[d]) continue;
    if (perm[d] < last) return std::nullopt;
    last = perm[d];
  }
  return out;
}

}  // namespace hlo

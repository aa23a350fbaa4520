// Stage tile_order: the order in which threads take the tiles, forward and backward: most
// splats first (ties in image order), so that the dynamic schedule ends on cheap tiles. In
// image order a few expensive tiles near the end leave one thread waiting for the other.
// Which thread blends a tile does not change its bits.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>

#include "glint/backend/cpu/stages/stages.h"

namespace glint::cpu::stage {

void tile_order(CpuForwardState& st) {
  const std::vector<std::uint32_t>& tile_offsets = st.tile_offsets;
  std::vector<std::uint64_t>& keys = st.tile_keys;
  std::vector<std::uint32_t>& order = st.tile_order;
  const std::size_t ntiles = tile_offsets.size() - 1;
  keys.resize(ntiles);
  for (std::size_t t = 0; t < ntiles; ++t) {
    const std::uint64_t splats = tile_offsets[t + 1] - tile_offsets[t];
    keys[t] = splats << 32 | std::uint32_t(ntiles - 1 - t);  // descending: the lower tile first on ties
  }
  std::sort(keys.begin(), keys.end(), std::greater<>());
  order.resize(ntiles);
  for (std::size_t i = 0; i < ntiles; ++i) order[i] = std::uint32_t(ntiles - 1) - std::uint32_t(keys[i]);
}

}  // namespace glint::cpu::stage

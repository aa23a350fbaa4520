// Stage count_offsets: per-splat instance offsets, and the visible splats with their depth
// keys, in two chunked passes (sums, then writes from each chunk's prefix): as serial loops
// over every splat they were a visible share of a large forward.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>

#include "glint/backend/cpu/launch.h"
#include "glint/backend/cpu/prefix_sum.h"
#include "glint/backend/cpu/stages/stages.h"
#include "glint/core/error.h"

namespace glint::cpu::stage {

void count_offsets(CpuForwardState& st, int threads) {
  const int n = int(st.n);
  const std::uint32_t* count = st.count.data();
  const std::uint32_t* depth_key = st.depth_key.data();
  st.splat_inst_offsets.resize(st.n + 1);
  const int nsplat_chunks = std::max(1, std::min(threads * 4, n / 8192));
  const auto splat_chunk = [&](int c) {
    return std::pair<int, int>(int(std::int64_t(n) * c / nsplat_chunks), int(std::int64_t(n) * (c + 1) / nsplat_chunks));
  };
  std::vector<SplatChunkSums>& sums = st.chunk_sums;
  sums.assign(std::size_t(nsplat_chunks) + 1, SplatChunkSums{});
  parallel_for_chunks(nsplat_chunks, threads, [&](int c) {
    const auto [b, e] = splat_chunk(c);
    SplatChunkSums cs;
    for (int i = b; i < e; ++i) {
      cs.instances += count[i];
      cs.visible += count[i] > 0;
      if (count[i] > 0) {
        cs.min_key = std::min(cs.min_key, depth_key[i]);
        cs.max_key = std::max(cs.max_key, depth_key[i]);
      }
    }
    sums[std::size_t(c) + 1] = cs;
  });
  // the running key range rides along with the prefix (sums[0] is the empty chunk)
  const SplatChunkSums all =
      exclusive_scan_counts(sums.data(), std::size_t(nsplat_chunks), [](SplatChunkSums& next, const SplatChunkSums& prev) {
        next.instances += prev.instances;
        next.visible += prev.visible;
        next.min_key = std::min(next.min_key, prev.min_key);
        next.max_key = std::max(next.max_key, prev.max_key);
      });
  const std::uint64_t total = all.instances;
  if (total > std::numeric_limits<std::uint32_t>::max() / 2) throw Error("rasterizer: too many tile instances");
  st.num_instances = total;
  st.num_visible = all.visible;
  const std::uint32_t min_key = all.min_key;
  st.key_range = all.visible > 0 ? all.max_key - min_key : 0;
  st.splat_inst_offsets[st.n] = std::uint32_t(total);
  // Depth order of the visible splats: keys are the float bits of z (z >= near > 0, so they
  // sort like the floats) less the smallest, so the radix sort skips the digits above the
  // range of the keys (two passes instead of three where the depths lie within a factor of
  // about two).
  std::vector<std::uint64_t>& sorted = st.sorted;
  sorted.resize(std::size_t(all.visible));
  std::uint32_t* offsets = st.splat_inst_offsets.data();
  std::uint64_t* out = sorted.data();
  parallel_for_chunks(nsplat_chunks, threads, [&](int c) {
    const auto [b, e] = splat_chunk(c);
    std::uint32_t off = std::uint32_t(sums[std::size_t(c)].instances), j = sums[std::size_t(c)].visible;
    for (int i = b; i < e; ++i) {
      offsets[std::size_t(i)] = off;
      off += count[i];
      if (count[i] > 0) out[j++] = std::uint64_t(depth_key[i] - min_key) << 32 | std::uint32_t(i);
    }
  });
}

}  // namespace glint::cpu::stage

// Stage tile_lists: a stable counting sort of the instances into tiles, chunked over the
// depth order. The instances' tiles are first listed in depth order (from each splat's
// tile mask, whose loads are independent and overlap), so the count and scatter passes
// read them sequentially. Also the backward's record_slots, which runs the same scatter.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "glint/backend/cpu/launch.h"
#include "glint/backend/cpu/prefix_sum.h"
#include "glint/backend/cpu/stages/stages.h"

namespace glint::cpu::stage {
namespace {

// The binning's scatter: f(pos, i, k) for every instance, pos its place in the tile lists,
// i its splat and k its splat-major slot (the splat's first slot plus the instance's rank
// among its tiles). Chunks of the depth order run in parallel, each from its own first
// places in the tile lists (`places`, [chunks * tiles], consumed), so every pos is the
// stable one.
template <class F>
void scatter_instances(const CpuForwardState& st, std::vector<std::uint32_t>& places, int threads, F&& f) {
  const std::size_t nvis = st.sorted.size(), ntiles = std::size_t(st.tiles_x) * std::size_t(st.tiles_y);
  const std::uint64_t* sorted = st.sorted.data();
  const std::uint32_t *d_first = st.d_first.data(), *d_slot = st.d_slot.data(), *d_tile = st.d_tile.data();
  parallel_for_chunks(st.bin_chunks, threads, [&](int c) {
    std::uint32_t* h = places.data() + std::size_t(c) * ntiles;
    const std::size_t b = std::size_t(c) * st.bin_chunk, e = std::min(nvis, b + st.bin_chunk);
    for (std::size_t s = b; s < e; ++s) {
      const std::uint32_t i = std::uint32_t(sorted[s]), q1 = d_first[s + 1];
      for (std::uint32_t q = d_first[s], k = d_slot[s]; q < q1; ++q, ++k) f(h[d_tile[q]]++, i, k);
    }
  });
}

}  // namespace

void tile_lists(CpuForwardState& st, bool for_backward, int threads) {
  const int ntiles = st.tiles_x * st.tiles_y;
  const std::uint64_t total = st.num_instances;
  const std::vector<std::uint64_t>& sorted = st.sorted;
  const TileHitMask* tile_mask = st.tile_mask.data();
  const CpuKernels& k = *st.kernels;
  const std::size_t nvis = sorted.size();
  std::uint32_t* d_first = grow(st.d_first, nvis + 1);  // first depth-major instance of rank s
  std::uint32_t* d_slot = grow(st.d_slot, nvis);        // its first splat-major slot
  const std::uint32_t* offs = st.splat_inst_offsets.data();
  // Chunks by the splats and by their tiles: a few hundred large splats (shapes_colmap's
  // 836, 13k instances) are worth threads, the same number of small ones are not.
  const int nchunks = std::max(1, std::min(threads * 4, int((nvis + total / 8) / 2048) + 1));
  const std::size_t chunk = (nvis + std::size_t(nchunks) - 1) / std::size_t(nchunks);
  // exclusive prefix of the counts in depth order: chunk sums, their prefix, then each chunk
  std::vector<std::uint32_t>& chunk_base = st.chunk_base;
  chunk_base.assign(std::size_t(nchunks) + 1, 0u);
  parallel_for_chunks(nchunks, threads, [&](int c) {
    const std::size_t b = std::size_t(c) * chunk, e = std::min(nvis, b + chunk);
    std::uint32_t sum = 0;
    for (std::size_t s = b; s < e; ++s) {  // count[i] is offs[i + 1] - offs[i]: one random line, not two
      const std::uint32_t i = std::uint32_t(sorted[s]), o = offs[i], n_i = offs[i + 1] - o;
      d_slot[s] = o;
      d_first[s] = n_i;
      sum += n_i;
    }
    chunk_base[std::size_t(c) + 1] = sum;
  });
  d_first[nvis] = exclusive_scan_counts(chunk_base.data(), std::size_t(nchunks));
  std::uint32_t* d_tile = grow(st.d_tile, total);
  std::vector<std::uint32_t>& cnt = st.hist;
  cnt.assign(std::size_t(nchunks) * std::size_t(ntiles), 0u);
  // each chunk in one pass: the prefix of its counts, its splats' tiles listed in depth
  // order, and a histogram of those tiles. The tiles come from the projection's tile masks
  // (large splats are tested again): listing them per splat in splat order first, and then
  // copying them into depth order, was slower, and so is this pass without its prefetch.
  const TileListArgs la{st.width, st.height, st.packed.data()};
  const int tiles_x = st.tiles_x;
  parallel_for_chunks(nchunks, threads, [&](int c) {
    const std::size_t b = std::size_t(c) * chunk, e = std::min(nvis, b + chunk);
    std::uint32_t* h = cnt.data() + std::size_t(c) * std::size_t(ntiles);
    std::uint32_t acc = chunk_base[std::size_t(c)];
    for (std::size_t s = b; s < e; ++s) {
      // masks are read in depth order, scattered: fetch ahead, since the branches of the
      // expansion mispredict and would otherwise keep the next loads from starting
      if (s + 16 < e) __builtin_prefetch(&tile_mask[std::uint32_t(sorted[s + 16])]);
      const std::uint32_t i = std::uint32_t(sorted[s]);
      std::uint32_t* dst = d_tile + acc;
      const std::uint32_t n_s = tile_mask[i].ntx > 0 ? mask_tiles(tile_mask[i], tiles_x, dst)
                                                     : k.large_splat_tiles(la, int(i), dst);
      d_first[s] = acc;
      for (std::uint32_t j = 0; j < n_s; ++j) ++h[dst[j]];
      acc += n_s;
    }
  });
  st.tile_offsets.resize(std::size_t(ntiles) + 1);
  exclusive_scan_bucket_major(cnt.data(), nchunks, std::size_t(ntiles), st.tile_offsets.data());
  // Each tile-list entry's splat, and for a backward its record's splat-major slot: the
  // splat's first slot plus the entry's rank among the splat's tiles. Without for_backward
  // only the splats (the backward would run this scatter again for the slots): half the
  // scattered writes.
  st.bin_chunks = nchunks;
  st.bin_chunk = chunk;
  if (!for_backward) st.tile_base = cnt;  // the backward's copy of the first places
  st.inst_splat.resize(total);
  std::uint32_t* inst_splat = st.inst_splat.data();
  if (for_backward) {
    std::uint32_t* inst_slot = grow(st.inst_slot, std::max<std::uint64_t>(1, total));
    scatter_instances(st, cnt, threads, [=](std::uint32_t pos, std::uint32_t i, std::uint32_t k) {
      inst_splat[pos] = i;
      inst_slot[pos] = k;
    });
  } else {
    scatter_instances(st, cnt, threads, [=](std::uint32_t pos, std::uint32_t i, std::uint32_t) { inst_splat[pos] = i; });
  }
}

void record_slots(const CpuForwardState& st, std::vector<std::uint32_t>& work, std::uint32_t* slots, int threads) {
  work = st.tile_base;
  scatter_instances(st, work, threads, [=](std::uint32_t pos, std::uint32_t, std::uint32_t k) { slots[pos] = k; });
}

}  // namespace glint::cpu::stage

// Each CPU rasterizer stage's state on a small scene (backend/cpu/stages/stages.h),
// checked against what the stage promises, written out the slow way.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <set>
#include <vector>

#include "glint/backend/backend.h"
#include "glint/backend/cpu/cpu_forward_state.h"
#include "glint/backend/cpu/stages/stages.h"
#include "raster_test_util.h"
#include "reference/scenes.h"

using namespace glint;
using namespace glint::cpu;

namespace {

struct StageCase {
  // 200 x 150: 13 x 10 tiles, so the scene's large splats take more than 64 tiles (no mask)
  GaussianModel m = test::random_scene(3000, 17);
  Camera cam = test::look_at(200, 150, 170, {0, -3, 0.5}, {0, 0, 0});
  RenderSettings s{};
  CpuForwardState st;
  std::vector<int> radii;
  StageCase() {
    s.want_alpha = true;
    s.for_backward = true;
  }
  void through_tile_order(int threads) {
    stage::frame(st, m, cam, s);
    radii.resize(st.n);
    stage::project(st, m, cam, s, radii.data(), threads);
    stage::count_offsets(st, threads);
    stage::depth_sort(st, threads);
    stage::tile_lists(st, s.for_backward, threads);
    stage::tile_order(st);
  }
  // splat i's tiles as tile_lists lists them: from its mask, or the large-splat kernel
  std::vector<std::uint32_t> tiles_of(std::uint32_t i) const {
    std::vector<std::uint32_t> t(std::size_t(st.tiles_x) * std::size_t(st.tiles_y));
    const TileListArgs la{st.width, st.height, st.packed.data()};
    const std::uint32_t n = st.tile_mask[i].ntx > 0 ? mask_tiles(st.tile_mask[i], st.tiles_x, t.data())
                                                    : st.kernels->large_splat_tiles(la, int(i), t.data());
    t.resize(n);
    return t;
  }
};

TEST(CpuStages, OffsetsArePrefixSumsOfTheCounts) {
  StageCase c;
  c.through_tile_order(2);
  const CpuForwardState& st = c.st;
  std::uint32_t run = 0, visible = 0;
  std::vector<std::uint64_t> vis;
  for (std::size_t i = 0; i < st.n; ++i) {
    ASSERT_EQ(st.splat_inst_offsets[i], run) << "splat " << i;
    run += st.count[i];
    if (st.count[i] > 0) ++visible;
  }
  EXPECT_EQ(st.splat_inst_offsets[st.n], run);
  EXPECT_EQ(st.num_instances, run);
  EXPECT_EQ(st.num_visible, visible);
  EXPECT_GT(visible, 100u);
  EXPECT_LT(visible, st.n);  // the hard cases cull some
  // culled splats have no radius; visible ones do
  for (std::size_t i = 0; i < st.n; ++i) EXPECT_EQ(st.count[i] > 0, c.radii[i] > 0) << "splat " << i;
}

TEST(CpuStages, DepthSortIsStableByDepthKey) {
  StageCase c;
  c.through_tile_order(2);
  const CpuForwardState& st = c.st;
  ASSERT_EQ(st.sorted.size(), st.num_visible);
  std::uint32_t min_key = 0xFFFFFFFFu;
  std::vector<std::uint32_t> vis;
  for (std::size_t i = 0; i < st.n; ++i)
    if (st.count[i] > 0) vis.push_back(std::uint32_t(i)), min_key = std::min(min_key, st.depth_key[i]);
  std::stable_sort(vis.begin(), vis.end(), [&](std::uint32_t a, std::uint32_t b) {
    return st.depth_key[a] < st.depth_key[b];
  });
  for (std::size_t s = 0; s < vis.size(); ++s) {
    ASSERT_EQ(std::uint32_t(st.sorted[s]), vis[s]) << "rank " << s;
    ASSERT_EQ(std::uint32_t(st.sorted[s] >> 32), st.depth_key[vis[s]] - min_key);
  }
}

TEST(CpuStages, TileListsHoldEachSplatsTilesInDepthOrder) {
  for (bool for_backward : {true, false}) {
    StageCase c;
    c.s.for_backward = for_backward;
    c.through_tile_order(2);
    const CpuForwardState& st = c.st;
    const std::size_t ntiles = std::size_t(st.tiles_x) * std::size_t(st.tiles_y);
    // the slow way: walk the splats in depth order, append each to the lists of its tiles,
    // remembering the rank of the tile among the splat's
    std::vector<std::vector<std::uint32_t>> lists(ntiles), ranks(ntiles);
    bool large = false;
    for (std::uint64_t e : st.sorted) {
      const std::uint32_t i = std::uint32_t(e);
      const std::vector<std::uint32_t> t = c.tiles_of(i);
      ASSERT_EQ(t.size(), st.count[i]) << "splat " << i;
      large |= st.tile_mask[i].ntx == 0;
      for (std::size_t k = 0; k < t.size(); ++k) {
        ASSERT_LT(t[k], ntiles);
        if (k > 0) {
          ASSERT_LT(t[k - 1], t[k]);  // row-major, no repeats
        }
        lists[t[k]].push_back(i);
        ranks[t[k]].push_back(std::uint32_t(k));
      }
    }
    EXPECT_TRUE(large) << "the scene should have a splat of more than 64 tiles";
    ASSERT_EQ(st.tile_offsets.size(), ntiles + 1);
    EXPECT_EQ(st.tile_offsets[0], 0u);
    EXPECT_EQ(st.tile_offsets[ntiles], st.num_instances);
    std::vector<std::uint32_t> slots(std::max<std::size_t>(1, st.num_instances));
    std::vector<std::uint32_t> work;
    if (for_backward)
      std::copy(st.inst_slot.begin(), st.inst_slot.begin() + std::ptrdiff_t(st.num_instances), slots.begin());
    else
      stage::record_slots(st, work, slots.data(), 2);
    for (std::size_t t = 0; t < ntiles; ++t) {
      const std::uint32_t b = st.tile_offsets[t], e = st.tile_offsets[t + 1];
      ASSERT_EQ(e - b, lists[t].size()) << "tile " << t;
      for (std::uint32_t q = b; q < e; ++q) {
        ASSERT_EQ(st.inst_splat[q], lists[t][q - b]) << "tile " << t << " entry " << q - b;
        // the record slot: the splat's first slot plus the tile's rank among its tiles
        ASSERT_EQ(slots[q], st.splat_inst_offsets[st.inst_splat[q]] + ranks[t][q - b]);
      }
    }
  }
}

TEST(CpuStages, TileOrderPutsTheFullestTilesFirst) {
  StageCase c;
  c.through_tile_order(1);
  const CpuForwardState& st = c.st;
  const std::size_t ntiles = std::size_t(st.tiles_x) * std::size_t(st.tiles_y);
  ASSERT_EQ(st.tile_order.size(), ntiles);
  std::set<std::uint32_t> seen(st.tile_order.begin(), st.tile_order.end());
  EXPECT_EQ(seen.size(), ntiles);  // a permutation
  const auto splats = [&](std::uint32_t t) { return st.tile_offsets[t + 1] - st.tile_offsets[t]; };
  for (std::size_t i = 1; i < ntiles; ++i) {
    const std::uint32_t a = st.tile_order[i - 1], b = st.tile_order[i];
    ASSERT_TRUE(splats(a) > splats(b) || (splats(a) == splats(b) && a < b)) << "place " << i;
  }
}

TEST(CpuStages, StatesDoNotDependOnTheThreadCount) {
  StageCase one, three;
  one.through_tile_order(1);
  three.through_tile_order(3);
  EXPECT_EQ(one.st.splat_inst_offsets, three.st.splat_inst_offsets);
  EXPECT_EQ(one.st.sorted, three.st.sorted);
  EXPECT_EQ(one.st.tile_offsets, three.st.tile_offsets);
  EXPECT_EQ(one.st.inst_splat, three.st.inst_splat);
  EXPECT_TRUE(std::equal(one.st.inst_slot.begin(), one.st.inst_slot.begin() + std::ptrdiff_t(one.st.num_instances),
                         three.st.inst_slot.begin()));
  EXPECT_EQ(one.st.tile_order, three.st.tile_order);
}

TEST(CpuStages, BlendAndComposeMakeTheBackendsImage) {
  StageCase c;
  c.s.background[0] = 0.25f;
  c.s.background[1] = 0.5f;
  c.s.background[2] = 1.f;
  c.through_tile_order(2);
  RenderOutput out;
  stage::blend(c.st, out, 2);
  const CpuForwardState& st = c.st;
  // compose: colour over the background and alpha from the blend's per-pixel state
  const float* T = line_aligned(st.T_final);
  const float* C = line_aligned(st.C_final);
  const std::size_t P = std::size_t(st.width) * std::size_t(st.height);
  ASSERT_EQ(out.rgb.data.size(), 3 * P);
  ASSERT_EQ(out.alpha.data.size(), P);
  float min_t = 1.f;
  for (std::size_t p = 0; p < P; ++p) {
    for (int ch = 0; ch < 3; ++ch)
      ASSERT_EQ(out.rgb.data[3 * p + std::size_t(ch)], C[3 * p + std::size_t(ch)] + T[p] * c.s.background[ch]);
    ASSERT_EQ(out.alpha.data[p], 1.f - T[p]);
    min_t = std::min(min_t, T[p]);
  }
  EXPECT_LT(min_t, 0.5f);  // something was blended
  // the stages in sequence are the backend's forward, bit for bit
  auto be = make_cpu_backend(2);
  const RenderOutput ref = be->forward(c.m, c.cam, c.s);
  EXPECT_EQ(std::memcmp(ref.rgb.data.data(), out.rgb.data.data(), 3 * P * sizeof(float)), 0);
  EXPECT_EQ(ref.alpha.data, out.alpha.data);
  EXPECT_EQ(ref.radii, c.radii);
  EXPECT_EQ(ref.num_instances, std::int64_t(st.num_instances));
}

}  // namespace

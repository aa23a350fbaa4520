// The CPU backend lists a splat in the tiles tile_hits returns; the AVX2 build tests eight
// tiles at once. Both builds must give exactly the tiles that the one-at-a-time
// render::ellipse_hits_rect gives (which render_tile_test checks against brute force), or
// a splat could vanish from a tile on one machine and not on another.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>

#include "glint/backend/backend.h"
#include "glint/backend/cpu/splat_kernels.h"
#include "glint/render/tile.h"

using namespace glint;

namespace {

// A splat as projection packs it: conic of standard deviations s1, s2 at angle th, and the
// half extents of the cut ellipse's bounding box.
cpu::SplatPacked make_splat(float mx, float my, float s1, float s2, float th, float power_cut) {
  const double c = std::cos(th), s = std::sin(th);
  const double a = c * c * s1 * s1 + s * s * s2 * s2, b = c * s * (s1 * s1 - s2 * s2),
               d = s * s * s1 * s1 + c * c * s2 * s2;
  const double det = a * d - b * b;
  cpu::SplatPacked p{};
  p.mx = mx;
  p.my = my;
  p.A = float(d / det);
  p.B = float(-b / det);
  p.C = float(a / det);
  p.power_cut = power_cut;
  p.ext_x = float(std::sqrt(2.0 * power_cut * a));  // covariance = inverse conic
  p.ext_y = float(std::sqrt(2.0 * power_cut * d));
  return p;
}

// One tile at a time, as for_each_tile does for rectangles of more than 64 tiles.
std::uint64_t one_at_a_time(const cpu::SplatPacked& s, int width, int height, int tx0, int ty0, int ntx, int nty) {
  const render::PixelRect pr = render::splat_pixel_rect(s.mx, s.my, s.ext_x, s.ext_y, width, height);
  const render::RectTestPrep prep = render::rect_test_prep(s.A, s.B, s.C, s.power_cut);
  std::uint64_t bits = 0;
  for (int j = 0; j < nty; ++j)
    for (int i = 0; i < ntx; ++i) {
      float px0, px1, py0, py1;
      render::tile_centre_span(tx0 + i, pr.x0, pr.x1, px0, px1);
      render::tile_centre_span(ty0 + j, pr.y0, pr.y1, py0, py1);
      if (render::ellipse_hits_rect(prep, s.mx, s.my, px0, px1, py0, py1)) bits |= std::uint64_t(1) << (j * ntx + i);
    }
  return bits;
}

}  // namespace

TEST(CpuTileHits, EveryBuildMatchesTheOneTileAtATimeTest) {
  set_cpu_simd(CpuSimd::kAuto);
  const CpuSimd best = active_cpu_simd();
  const bool avx2 = best != CpuSimd::kPortable, avx512 = best == CpuSimd::kAvx512;
  if (!avx2) std::printf("[ NOTE     ] no AVX2+FMA on this CPU: only the portable build is checked\n");
  if (avx2 && !avx512) std::printf("[ NOTE     ] no AVX-512 on this CPU: its build is not checked\n");
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> U(0.f, 1.f);
  const int width = 203, height = 150, TS = render::kTileSize;  // not multiples of 16
  int rects = 0, sizes[65] = {};
  long hit_tiles = 0, missed_tiles = 0;
  for (int it = 0; it < 20000; ++it) {
    const float s1 = 0.3f + 30.f * U(rng) * U(rng) * U(rng), s2 = s1 * (0.02f + 0.98f * U(rng));
    const cpu::SplatPacked s = make_splat(-30.f + 263.f * U(rng), -30.f + 210.f * U(rng), s1, s2, 6.2832f * U(rng),
                                          0.5f + 4.f * U(rng));
    const render::PixelRect pr = render::splat_pixel_rect(s.mx, s.my, s.ext_x, s.ext_y, width, height);
    if (pr.x0 > pr.x1 || pr.y0 > pr.y1) continue;
    const int tx0 = pr.x0 / TS, ty0 = pr.y0 / TS, ntx = pr.x1 / TS - tx0 + 1, nty = pr.y1 / TS - ty0 + 1;
    if (ntx * nty > 64) continue;
    const cpu::TileRange range{pr.x0, pr.y0, pr.x1, pr.y1, tx0, ty0, ntx, nty};
    ++rects;
    ++sizes[ntx * nty];
    const std::uint64_t want = one_at_a_time(s, width, height, tx0, ty0, ntx, nty);
    hit_tiles += __builtin_popcountll(want);
    missed_tiles += ntx * nty - __builtin_popcountll(want);
    ASSERT_EQ(cpu::portable::kernels().tile_hits(s, range, 0), want) << "splat " << it;
    if (avx2) {
      ASSERT_EQ(cpu::avx2::kernels().tile_hits(s, range, 0), want) << "splat " << it;
    }
    if (avx512) {
      ASSERT_EQ(cpu::avx512::kernels().tile_hits(s, range, 0), want) << "splat " << it;
    }
  }
  // the scenes must exercise what the eight-tile build does differently: rectangles that
  // fill one test exactly, spill into a second or more, and tiles the ellipse misses
  EXPECT_GT(rects, 10000);
  EXPECT_GT(sizes[8], 20);
  EXPECT_GT(sizes[9] + sizes[12] + sizes[15] + sizes[16], 100);
  int big = 0;
  for (int n = 33; n <= 64; ++n) big += sizes[n];
  EXPECT_GT(big, 20);
  EXPECT_GT(missed_tiles, hit_tiles / 50);
}

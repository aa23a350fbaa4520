// The tile test that decides which tiles a splat is listed in (render/tile.h): it must
// never drop a tile with a pixel centre inside the cut (the blend would lose it), and it
// must stay tight for thin, tilted ellipses (issue #3: a thin ellipse must not claim its
// whole 3-sigma square). Checked against brute force over every pixel centre.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "glint/render/tile.h"

using namespace glint::render;

namespace {

struct Ellipse {
  float mx, my, A, B, C, power_cut;
};

// Conic of a Gaussian with standard deviations s1 >= s2 along an axis at angle th.
Ellipse make_ellipse(float mx, float my, float s1, float s2, float th, float power_cut) {
  const double c = std::cos(th), s = std::sin(th);
  const double a = c * c * s1 * s1 + s * s * s2 * s2, b = c * s * (s1 * s1 - s2 * s2),
               d = s * s * s1 * s1 + c * c * s2 * s2;
  const double det = a * d - b * b;
  return {mx, my, float(d / det), float(-b / det), float(a / det), power_cut};
}

// Any pixel centre of the rectangle [x0, x1] x [y0, y1] (pixel indices) inside the cut?
bool brute_hits(const Ellipse& e, int x0, int x1, int y0, int y1) {
  for (int y = y0; y <= y1; ++y)
    for (int x = x0; x <= x1; ++x) {
      const double dx = x + 0.5 - e.mx, dy = y + 0.5 - e.my;
      if (0.5 * (e.A * dx * dx + e.C * dy * dy) + e.B * dx * dy <= e.power_cut) return true;
    }
  return false;
}

bool test_hits(const Ellipse& e, int x0, int x1, int y0, int y1) {
  return ellipse_hits_rect(e.mx, e.my, e.A, e.B, e.C, e.power_cut, float(x0) + 0.5f, float(x1) + 0.5f,
                           float(y0) + 0.5f, float(y1) + 0.5f);
}

}  // namespace

TEST(RenderTile, NeverDropsATileWithAPixelInsideTheCut) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> U(0.f, 1.f);
  const int TS = kTileSize;
  int cases = 0, hits = 0;
  for (int i = 0; i < 3000; ++i) {
    const float s1 = 0.3f + 40.f * U(rng) * U(rng), s2 = s1 * (0.02f + 0.98f * U(rng));
    const Ellipse e = make_ellipse(-20.f + 104.f * U(rng), -20.f + 104.f * U(rng), s1, s2, 6.2832f * U(rng),
                                   0.5f + 4.f * U(rng));
    for (int ty = 0; ty < 4; ++ty)
      for (int tx = 0; tx < 4; ++tx) {
        const bool truth = brute_hits(e, tx * TS, tx * TS + TS - 1, ty * TS, ty * TS + TS - 1);
        ++cases;
        hits += truth;
        if (truth) {
          ASSERT_TRUE(test_hits(e, tx * TS, tx * TS + TS - 1, ty * TS, ty * TS + TS - 1)) << "case " << i;
        }
      }
  }
  EXPECT_GT(hits, cases / 20);  // the cases exercise both outcomes
  EXPECT_LT(hits, cases);
}

TEST(RenderTile, ThinTiltedEllipseClaimsOnlyTheTilesItCrosses) {
  // 3 sigma = 60 px along the diagonal, 0.5 px across: its bounding box is 8x8 tiles.
  const Ellipse e = make_ellipse(64.f, 64.f, 20.f, 0.5f, 0.785398f, 4.5f);
  const int TS = kTileSize;
  int claimed = 0, truth = 0;
  for (int ty = 0; ty < 8; ++ty)
    for (int tx = 0; tx < 8; ++tx) {
      const int x0 = tx * TS, y0 = ty * TS;
      const bool t = brute_hits(e, x0, x0 + TS - 1, y0, y0 + TS - 1);
      const bool c = test_hits(e, x0, x0 + TS - 1, y0, y0 + TS - 1);
      EXPECT_TRUE(c || !t) << "tile " << tx << "," << ty << " dropped";
      truth += t;
      claimed += c;
    }
  // The diagonal band crosses the 8 diagonal tiles and touches some of their neighbours;
  // the 3-sigma square would be all 64.
  EXPECT_LE(truth, 22);
  EXPECT_LE(claimed, truth + 2);
}

// Silhouette pixels below the surface threshold take the geometry of the most covered
// surface pixel near them (light/fringe_fill.h), and glint relight lights them like it.
#include <gtest/gtest.h>

#include <algorithm>

#include "glint/core/error.h"
#include "glint/io/cameras_json.h"
#include "glint/io/image_io.h"
#include "glint/io/ply.h"
#include "glint/light/fringe_fill.h"
#include "support/light_scene.h"
#include "test_support.h"

using namespace glint;
using namespace glint::test;

namespace {

struct Row {
  ImageF alpha, depth, position, normal;
};

// A 7 x 1 row: surface pixels 0 (alpha 0.6) and 1 (alpha 0.9), then partly covered
// pixels without geometry.
Row fringe_row(std::initializer_list<float> alphas) {
  const int W = static_cast<int>(alphas.size());
  Row r{ImageF(W, 1, 1), ImageF(W, 1, 1), ImageF(W, 1, 3), ImageF(W, 1, 3)};
  int x = 0;
  for (float a : alphas) r.alpha.data[x++] = a;
  for (int i = 0; i < 2; ++i) {
    r.depth.data[i] = 2.f + i;
    for (int c = 0; c < 3; ++c) r.position.data[3 * i + c] = 10.f * i + c;
    r.normal.data[3 * i + 2] = i == 0 ? 1.f : -1.f;
  }
  return r;
}

}  // namespace

TEST(LightFringeFill, TakesTheMostCoveredSurfaceNeighbourWithinTheRadius) {
  Row r = fringe_row({0.6f, 0.9f, 0.3f, 0.2f, 0.1f, 0.f, 0.4f});
  const long n = fill_fringe_geometry(r.alpha, r.depth, r.position, r.normal, {1, 1.f / 255.f});
  // pixel 2 neighbours only pixel 1; pixel 3 has no surface within 1 px (pixel 2 was
  // filled, but filled pixels are never sources); 5 is uncovered, 6 alone
  EXPECT_EQ(n, 1);
  EXPECT_EQ(r.depth.data[2], 3.f);
  EXPECT_EQ(r.normal.data[3 * 2 + 2], -1.f);
  EXPECT_EQ(r.position.data[3 * 2], 10.f);
  EXPECT_EQ(r.depth.data[3], 0.f);
  EXPECT_EQ(r.depth.data[6], 0.f);
  // the surface pixels themselves are left alone
  EXPECT_EQ(r.depth.data[0], 2.f);
  EXPECT_EQ(r.normal.data[2], 1.f);

  Row wide = fringe_row({0.6f, 0.9f, 0.3f, 0.2f, 0.1f, 0.f, 0.4f});
  EXPECT_EQ(fill_fringe_geometry(wide.alpha, wide.depth, wide.position, wide.normal, {3, 1.f / 255.f}), 3);
  // within 3 px of pixel 1 (alpha 0.9), which wins over pixel 0 (0.6) wherever both are
  for (int x : {2, 3, 4}) EXPECT_EQ(wide.depth.data[x], 3.f) << x;
  EXPECT_EQ(wide.depth.data[5], 0.f);  // uncovered: stays empty
  EXPECT_EQ(wide.depth.data[6], 0.f);  // 5 px away

  Row faint = fringe_row({0.6f, 0.9f, 0.3f, 0.2f, 0.1f, 0.f, 0.4f});
  EXPECT_EQ(fill_fringe_geometry(faint.alpha, faint.depth, faint.position, faint.normal, {3, 0.25f}), 1);
  EXPECT_EQ(faint.depth.data[3], 0.f);  // covered less than min_alpha

  Row off = fringe_row({0.6f, 0.9f, 0.3f});
  EXPECT_EQ(fill_fringe_geometry(off.alpha, off.depth, off.position, off.normal, {0, 1.f / 255.f}), 0);
}

TEST(LightFringeFill, EqualCoverageGoesToTheNearest) {
  // 5 x 1: surfaces at 0 and 3 of equal alpha; pixel 2 is nearer to 3, pixel 1 to 0
  ImageF alpha(5, 1, 1), depth(5, 1, 1), pos(5, 1, 3), nrm(5, 1, 3);
  for (float& a : alpha.data) a = 0.3f;
  for (int i : {0, 3}) {
    alpha.data[i] = 0.8f;
    depth.data[i] = 1.f + i;
    nrm.data[3 * i] = 1.f;
  }
  EXPECT_EQ(fill_fringe_geometry(alpha, depth, pos, nrm, {2, 1.f / 255.f}), 3);
  EXPECT_EQ(depth.data[1], 1.f);
  EXPECT_EQ(depth.data[2], 4.f);
  EXPECT_EQ(depth.data[4], 4.f);
}

TEST(LightFringeFill, MismatchedImagesAreAnError) {
  ImageF a(4, 3, 1), d(4, 3, 1), p(4, 3, 3), n(4, 2, 3);
  EXPECT_THROW(fill_fringe_geometry(a, d, p, n), Error);
}

// The ground's rim seen from above: its partly covered pixels are lit by the sun like the
// ground inside it, not by the ambient light alone (--fringe-px 0).
TEST(LightFringeFill, RelightLightsTheSilhouetteLikeItsSurface) {
  TempDir d;
  GaussianModel m = ground_and_box();
  for (float& v : m.sh_dc) v = 1.0f;
  write_ply(d.str("scene.ply"), m);
  Camera c;
  c.name = "top";
  c.width = c.height = 80;
  c.fx = c.fy = 100;
  c.cx = c.cy = 40.3;  // the ground's rim falls inside pixels, not on their borders
  c.R = {{1, 0, 0, 0, -1, 0, 0, 0, -1}};
  c.t = -(c.R * Vec3d{0, 0, 4});
  write_cameras_json(d.str("cameras.json"), {c});
  write_file(d.str("lights.json"),
             R"({"name":"noon","ambient":{"strength":0.1},"lights":[{"type":"sun","direction_to_light":[0,0,1],"strength_W_per_m2":3}]})");
  auto relit = [&](const char* extra, const char* out) {
    CommandResult r = run_glint("relight '" + d.str("scene.ply") + "' --cameras '" + d.str("cameras.json") +
                                "' --lights '" + d.str("lights.json") + "' -o '" + d.str(out) +
                                "' --shadow-res 128 --ao-directions 8 " + extra);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return read_image(d.str(std::string(out) + "/noon/r_0.png"));
  };
  const Image8 filled = relit("", "filled"), bare = relit("--fringe-px 0", "bare");
  ASSERT_EQ(filled.channels, 4);
  int fringe = 0;
  for (int y = 1; y + 1 < c.height; ++y)
    for (int x = 1; x + 1 < c.width; ++x) {
      const std::uint8_t* f = filled.row(y) + 4 * x;
      const std::uint8_t* b = bare.row(y) + 4 * x;
      if (f[3] == 0 || f[3] >= 128) continue;
      int surface = -1;  // the brightest surface pixel beside it
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const std::uint8_t* q = filled.row(y + dy) + 4 * (x + dx);
          if (q[3] >= 128) surface = std::max(surface, int(q[0]));
        }
      if (surface < 0) continue;
      ++fringe;
      // lit like the ground beside it (within 20 codes: beside the box's shadow, whose
      // edge the maps' depth definition moves by up to a texel)
      EXPECT_NEAR(f[0], surface, 20) << x << "," << y;
      EXPECT_LT(b[0] + 60, surface) << x << "," << y;  // ambient only
    }
  EXPECT_GT(fringe, 20);  // the rim's partly covered pixels all around
}

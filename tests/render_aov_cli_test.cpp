// glint render --aov distortion on the constructed ground + box scene: zero on open ground
// (one layer at one depth), large where the box's edge lies over the ground.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "glint/io/cameras_json.h"
#include "glint/io/ply.h"
#include "glint/io/pfm.h"
#include "support/light_scene.h"
#include "test_support.h"

using namespace glint;
using namespace glint::test;

TEST(RenderAovCli, DistortionIsZeroOnOneLayerAndLargeAtDepthEdges) {
  TempDir d;
  write_ply(d.str("scene.ply"), ground_and_box());
  Camera c;  // 4 m above the origin, looking straight down
  c.name = "top";
  c.width = c.height = 80;
  c.fx = c.fy = 100;
  c.cx = c.cy = 40;
  c.R = {{1, 0, 0, 0, -1, 0, 0, 0, -1}};
  c.t = -(c.R * Vec3d{0, 0, 4});
  write_cameras_json(d.str("cameras.json"), {c});
  CommandResult r = run_glint("render '" + d.str("scene.ply") + "' '" + d.str("cameras.json") + "' -o '" +
                              d.str("out") + "' --aov rgb,distortion");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(d.str("out/top_distortion.png")));
  ImageF dist = read_pfm(d.str("out/top_distortion.pfm"));
  ASSERT_EQ(dist.width, 80);
  ASSERT_EQ(dist.channels, 1);
  // open ground at (0.7, 0.7, 0): pixel 40 + 100 * 0.7 / 4 = 57.5 on x, 40 - 17.5 on y
  EXPECT_LT(dist.at(57, 22, 0), 1e-8f);
  const float hi = *std::max_element(dist.data.begin(), dist.data.end());
  EXPECT_GT(hi, 0.01f);  // measured 0.14
  // The kernels take depths relative to each pixel's first splat: with absolute depths
  // (4 m), rounding in z A - B left values down to -1.3e-6 here.
  for (float v : dist.data) EXPECT_GE(v, -1e-8f);
}

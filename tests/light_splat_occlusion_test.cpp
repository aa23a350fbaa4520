// Per-splat ambient occlusion (light/splat_occlusion.h) and the environment residual's
// per-splat visibility glint view serves (view/page_environment.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "glint/backend/backend.h"
#include "glint/light/relighter.h"
#include "glint/light/splat_occlusion.h"
#include "glint/view/page_environment.h"
#include "support/light_scene.h"

using namespace glint;
using namespace glint::test;

namespace {

AoMaps small_maps(const GaussianModel& m) {
  auto backend = make_cpu_backend();
  AoParams p;
  p.directions = 16;
  p.resolution = 128;
  return render_ao_maps(*backend, m, robust_bounds(m), p);
}

// The normal axis of the scene's splats written out: they are unrotated, so it is the
// world axis of the smallest scale.
Vec3d axis_of(const GaussianModel& m, std::size_t i) {
  const float* s = &m.log_scales[3 * i];
  const int k = s[1] < s[0] ? (s[2] < s[1] ? 2 : 1) : (s[2] < s[0] ? 2 : 0);
  return {k == 0 ? 1.0 : 0.0, k == 1 ? 1.0 : 0.0, k == 2 ? 1.0 : 0.0};
}

}  // namespace

TEST(LightSplatOcclusion, IsTheEstimatorAtEachCentreOnBothSides) {
  GaussianModel m = ground_and_box();
  AoMaps maps = small_maps(m);
  const std::vector<float> ao = splat_ambient_occlusion(maps, m);
  ASSERT_EQ(ao.size(), 2 * m.size());
  long up_open = 0, up_by_box = 0;
  for (std::size_t i = 0; i < m.size(); i += 7) {
    const Vec3d x{m.means[3 * i], m.means[3 * i + 1], m.means[3 * i + 2]}, n = axis_of(m, i);
    ASSERT_NEAR(ao[2 * i], ambient_occlusion(maps, x, n), 1e-6) << i;
    ASSERT_NEAR(ao[2 * i + 1], ambient_occlusion(maps, x, -1.0 * n), 1e-6) << i;
    // Ground splats: open sky far from the box, the box's walls hide part of it next to them.
    if (std::abs(x.z) < 1e-6 && std::hypot(x.x, x.y) > 0.8) up_open += ao[2 * i] > 0.95;
    if (std::abs(x.z) < 1e-6 && std::max(std::abs(x.x), std::abs(x.y)) < kBoxHalf + 0.06 &&
        std::max(std::abs(x.x), std::abs(x.y)) > kBoxHalf + 0.01)
      up_by_box += ao[2 * i] < 0.85;
  }
  EXPECT_GT(up_open, 20);
  EXPECT_GT(up_by_box, 5);
}

TEST(LightSplatOcclusion, UniformEnvironmentVisibilityIsTheSplatAo) {
  GaussianModel m = ground_and_box();
  AoMaps maps = small_maps(m);
  EnvironmentMap env;
  env.texels = ImageF(32, 16, 3, 0.4f);
  std::vector<Vec3d> dirs;
  for (const Light& l : maps.directions) dirs.push_back(l.direction);
  EnvLighting el = decompose_environment(env, dirs);
  ASSERT_TRUE(el.suns.empty());
  const std::string blob = view::encode_env_visibility_blob(maps, el, m);
  ASSERT_EQ(blob.size(), 12 + 32 * m.size());
  ASSERT_EQ(blob.substr(0, 4), "GLEV");
  std::vector<float> f(8 * m.size());
  std::memcpy(f.data(), blob.data() + 12, f.size() * sizeof(float));
  const std::vector<float> ao = splat_ambient_occlusion(maps, m);
  long occluded = 0;
  for (std::size_t i = 0; i < m.size(); ++i)
    for (int side = 0; side < 2; ++side) {
      for (int c = 0; c < 3; ++c) ASSERT_NEAR(f[8 * i + 4 * side + c], ao[2 * i + side], 1e-5) << i;
      occluded += ao[2 * i + side] < 0.9;
    }
  EXPECT_GT(occluded, 100);
}

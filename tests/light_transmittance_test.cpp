#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>

#include "glint/backend/backend.h"
#include "glint/light/transmittance_shadow.h"
#include "support/light_scene.h"

using namespace glint;
using namespace glint::test;

TEST(LightTransmittance, OpaqueBoxCastsTheSameShadowAsTheShadowMap) {
  GaussianModel m = ground_and_box();
  auto backend = make_cpu_backend();
  for (const Light& light : {Light::sun({0, 0, 1}, 3), Light::point({-0.8, 0, 1.2}, 10)}) {
    TransmittanceParams p;
    p.resolution = 256;
    p.planes = 4;
    auto t0 = std::chrono::steady_clock::now();
    TransmittanceMap map = render_transmittance_map(*backend, m, light, bounds_of_points(m.means), p);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::size_t planes = 0;
    for (const auto& f : map.faces) planes += f.plane_z.size();
    Mismatch r = compare(light, 0.012, 0.035, 0.012,
                         [&](Vec3d g) { return transmittance_visibility(map, light, g, {0, 0, 1}); });
    std::printf("[ transmittance ] %s: %zu faces, %zu plane renders at %d^2: %.1f ms; %ld/%ld wrong (%ld away from edges)\n",
                light_type_name(light.type), map.faces.size(), planes, p.resolution, ms, r.wrong, r.samples,
                r.wrong_far);
    EXPECT_EQ(r.wrong_far, 0) << light_type_name(light.type);
    const Vec3d dark = light.type == LightType::Sun ? Vec3d{0, 0, 0} : Vec3d{0.5, 0, 0};
    EXPECT_LT(transmittance_visibility(map, light, dark, {0, 0, 1}), 0.05);
  }
}

// A semi-transparent sheet over the ground: the light reaching the ground is the sheet's
// transmittance, which a binary shadow map cannot express.
TEST(LightTransmittance, SemiTransparentSheetPassesItsTransmittance) {
  GaussianModel ground, sheet;
  for (double x = -1; x <= 1 + 1e-9; x += 0.02)
    for (double y = -1; y <= 1 + 1e-9; y += 0.02) add_splat(ground, {x, y, 0}, {0.012, 0.012, 0.002});
  for (double x = -0.3; x <= 0.3 + 1e-9; x += 0.03)
    for (double y = -0.3; y <= 0.3 + 1e-9; y += 0.03) add_splat(sheet, {x, y, 0.5}, {0.012, 0.012, 0.002}, -1.5f);
  GaussianModel all = ground;
  std::vector<std::size_t> idx(sheet.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  GaussianModel sheet_copy = subset_model(sheet, idx);
  ASSERT_EQ(sheet_copy.means, sheet.means);
  all.resize(ground.size() + sheet.size());
  for (std::size_t i = 0; i < sheet.size(); ++i) {
    const std::size_t j = ground.size() + i;
    std::copy_n(sheet.means.begin() + 3 * i, 3, all.means.begin() + 3 * j);
    std::copy_n(sheet.log_scales.begin() + 3 * i, 3, all.log_scales.begin() + 3 * j);
    std::copy_n(sheet.quats.begin() + 4 * i, 4, all.quats.begin() + 4 * j);
    all.opacity_logits[j] = sheet.opacity_logits[i];
  }
  auto backend = make_cpu_backend();
  const Light sun = Light::sun({0, 0, 1}, 1);
  TransmittanceParams p;
  p.resolution = 128;
  TransmittanceMap map = render_transmittance_map(*backend, all, sun, bounds_of_points(all.means), p);
  // Reference: 1 - alpha of the sheet alone, rendered from the same light camera.
  RenderOutput ref = backend->forward(sheet, map.views.faces[0], RenderSettings{});
  double worst = 0, sum = 0;
  int n = 0;
  for (double x = -0.2; x <= 0.2; x += 0.05)
    for (double y = -0.2; y <= 0.2; y += 0.05) {
      const Camera& cam = map.views.faces[0];
      // The lookup samples the texel the offset point falls in; the normal offset is
      // along +z, which for an overhead sun does not move the texel.
      Vec2d uv = cam.project(cam.world_to_camera({x, y, 0}));
      const double want = 1 - ref.alpha.at(int(std::floor(uv.x)), int(std::floor(uv.y)), 0);
      const double got = transmittance_visibility(map, sun, {x, y, 0}, {0, 0, 1});
      worst = std::max(worst, std::abs(got - want));
      sum += got;
      ++n;
    }
  EXPECT_LT(worst, 1e-5);
  EXPECT_GT(sum / n, 0.2);  // partly lit: neither a shadow nor full light
  EXPECT_LT(sum / n, 0.8);
  EXPECT_NEAR(transmittance_visibility(map, sun, {0.8, 0.8, 0}, {0, 0, 1}), 1.0, 1e-6);
}

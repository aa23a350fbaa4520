#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "glint/core/error.h"
#include "glint/io/dataset.h"
#include "glint/io/image_io.h"
#include "glint/io/image_ops.h"
#include "glint/io/pfm.h"
#include "glint/light/color.h"
#include "glint/light/environment_light.h"
#include "glint/light/shade.h"
#include "test_support.h"

using namespace glint;

namespace {
constexpr double kPi = std::numbers::pi;

Camera looking_down(int w, int h, double f, double height) {
  Camera c;
  c.width = w;
  c.height = h;
  c.fx = c.fy = f;
  c.cx = w / 2.0;
  c.cy = h / 2.0;
  c.R = {{1, 0, 0, 0, -1, 0, 0, 0, -1}};  // camera z = world -z, camera y = world -y
  c.t = -(c.R * Vec3d{0, 0, height});
  return c;
}
}  // namespace

TEST(LightShade, BackProjectionInvertsProjection) {
  Camera cam = looking_down(40, 30, 35, 3);
  ImageF depth(40, 30, 1, 3.f);
  depth.at(0, 0, 0) = 0;  // no surface
  ImageF pos = world_positions_from_depth(cam, depth);
  EXPECT_EQ(pos.at(0, 0, 2), 0.f);
  for (int y = 0; y < 30; y += 7)
    for (int x = 1; x < 40; x += 9) {
      Vec3d X{pos.at(x, y, 0), pos.at(x, y, 1), pos.at(x, y, 2)};
      EXPECT_NEAR(X.z, 0, 1e-6);  // depth 3 from height 3 looking down: the z = 0 plane
      Vec2d uv = cam.project(cam.world_to_camera(X));
      EXPECT_NEAR(uv.x, x + 0.5, 1e-4);
      EXPECT_NEAR(uv.y, y + 0.5, 1e-4);
    }
  ImageF nc(1, 1, 3);
  nc.data = {0, 0, -1};  // facing the camera
  ImageF nw = normals_to_world(cam, nc);
  EXPECT_NEAR(nw.data[2], 1, 1e-7);
  EXPECT_NEAR(normals_to_camera(cam, nw).data[2], -1, 1e-7);
}

TEST(LightShade, FollowsTheModelTermByTerm) {
  const int W = 4, H = 2;
  ImageF albedo(W, H, 3, 0.5f), normal(W, H, 3), pos(W, H, 3), vis(W, H, 1, 1.f), ao(W, H, 1, 1.f);
  for (int i = 0; i < W * H; ++i) {
    store3(normal.data.data(), i, Vec3f{0, 0, 1});
    store3(pos.data.data(), i, Vec3f{float(i % W), 0, 0});
  }
  vis.data[1] = 0.25f;
  ao.data[2] = 0.5f;
  store3(normal.data.data(), 3, Vec3f{0, 0, 0});  // background
  LightSetup s;
  s.ambient_strength = 0.15;
  s.ambient_color = {1, 1, 0.5};
  s.lights = {Light::point_from_power({0, 0, 1.5}, 100, {1, 0.5, 1}), Light::sun({0, 0, 1}, 2)};
  ShadeInputs in;
  in.albedo = &albedo;
  in.normal = &normal;
  in.position = &pos;
  in.visibility = {&vis, nullptr};
  in.ao = &ao;
  ImageF L = shade(s, in);
  auto expect = [&](int i, double v, double a) {
    Vec3d x{double(i % W), 0, 0};
    double e0 = irradiance(s.lights[0], x, {0, 0, 1}) * v, e1 = 2;
    const double col0[3] = {1, 0.5, 1}, amb[3] = {0.15, 0.15, 0.075};
    for (int c = 0; c < 3; ++c)
      EXPECT_NEAR(L.data[i * 3 + c], 0.5 * amb[c] * a + 0.5 * (col0[c] * e0 + e1) / kPi, 1e-6) << i << " " << c;
  };
  expect(0, 1, 1);
  expect(1, 0.25, 1);
  expect(2, 1, 0.5);
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(L.data[9 + c], 0.5 * (c == 2 ? 0.075 : 0.15), 1e-7);  // ambient only
  in.visibility = {&vis};
  EXPECT_THROW(shade(s, in), Error);
  ImageF small(1, 1, 1);
  in.visibility = {};
  in.ao = &small;
  EXPECT_THROW(shade(s, in), Error);
}

// A light summed into the irradiance image (add_irradiance) is shaded as the same light
// with its visibility image: how the relighter shades an environment's suns.
TEST(LightShade, AddedIrradianceShadesAsTheLightItself) {
  const int W = 5, H = 3;
  ImageF albedo(W, H, 3), normal(W, H, 3), pos(W, H, 3), vis(W, H, 1);
  for (int i = 0; i < W * H; ++i) {
    store3(albedo.data.data(), i, Vec3f{0.2f + 0.05f * i, 0.5f, 0.8f - 0.04f * i});
    const Vec3d n = normalize(Vec3d{0.1 * (i % W) - 0.2, 0.05 * (i / W), 1});
    store3(normal.data.data(), i, Vec3f{float(n.x), float(n.y), float(n.z)});
    store3(pos.data.data(), i, Vec3f{0.3f * (i % W), 0.2f * (i / W), 0.1f});
    vis.data[i] = float(i % 4) / 3;
  }
  store3(normal.data.data(), 7, Vec3f{0, 0, 0});  // background
  LightSetup lamps;
  lamps.ambient_strength = 0.1;
  lamps.lights = {Light::point_from_power({0.5, 0.2, 1.5}, 80, {1, 0.9, 0.7})};
  const Light sun = Light::sun(normalize(Vec3d{-0.3, 0.2, 1}), 2.5, {0.6, 0.8, 1.0});
  const Light spot = Light::spot({0.2, 0.3, 2}, {0, 0, -1}, 30, 60 * kPi / 180, 0.2);
  LightSetup all = lamps;
  all.lights.push_back(sun);
  all.lights.push_back(spot);
  ShadeInputs in;
  in.albedo = &albedo;
  in.normal = &normal;
  in.position = &pos;
  in.visibility = {nullptr, &vis, nullptr};
  const ImageF direct = shade(all, in);
  ImageF E;
  add_irradiance(sun, &vis, pos, normal, E);
  add_irradiance(spot, nullptr, pos, normal, E);
  in.visibility = {nullptr};
  in.irradiance = &E;
  const ImageF summed = shade(lamps, in);
  for (std::size_t i = 0; i < direct.data.size(); ++i) EXPECT_NEAR(summed.data[i], direct.data[i], 1e-6) << i;
  for (int c = 0; c < 3; ++c) EXPECT_EQ(E.data[3 * 7 + c], 0.f);  // no surface, no irradiance
  ImageF small(1, 1, 1);
  EXPECT_THROW(add_irradiance(sun, &small, pos, normal, E), Error);
  ImageF wrong(W, H, 1);
  EXPECT_THROW(add_irradiance(sun, nullptr, pos, normal, wrong), Error);
}

// The model with the GT geometry and albedo reproduces Blender's shadow-free render: the
// end-to-end check of units, camera convention, PFM orientation and sRGB handling.
namespace {

// Shades test view `view` of the relight dataset with its GT geometry and albedo, without
// shadows, under every setup of `lights` (or only `only`; environment lights expanded, their residual
// unoccluded), and compares with relit/<setup>_noshadow on interior pixels as the README's
// check defines them: the neighbourhood covered and no crease (> 10 deg between
// neighbouring GT normals), where the 1.5 px pixel filter mixes surfaces and the model
// cannot be expected to hold.
void expect_noshadow_render(const std::string& root, const std::string& lights, const std::string& only, double max_rmse,
                            double min_frac2) {
  Dataset ds = load_dataset(root + "/capture");
  auto setups = read_lights_json(root + "/relit/" + lights);
  const int view = 3;
  const Camera& cam = ds.test.at(view).camera;
  const std::string i = std::to_string(view);
  ImageF depth = read_pfm(root + "/gt/depth_" + i + ".pfm");
  ImageF normal = read_pfm(root + "/gt/normal_" + i + ".pfm");
  ImageF pos = world_positions_from_depth(cam, depth);
  auto rgb_linear = [](const Image8& im) {
    ImageF f = srgb_to_linear(to_float(im));
    ImageF out(f.width, f.height, 3);
    for (long p = 0; p < long(f.width) * f.height; ++p)
      for (int c = 0; c < 3; ++c) out.data[p * 3 + c] = f.data[p * f.channels + c];
    return out;
  };
  ImageF albedo = rgb_linear(read_image(root + "/gt/albedo_" + i + ".png"));
  ImageF capture = rgb_linear(read_image(root + "/capture/test/r_" + i + ".png"));
  Image8 mask = read_image(root + "/gt/mask_" + i + ".png");
  for (const auto& s0 : setups) {
    std::vector<EnvLighting> env;
    if (!only.empty() && s0.name != only) continue;
    const LightSetup s = expand_environment_lights(s0, fibonacci_directions(64), {}, env);
    ImageF env_E;
    for (const EnvLighting& e : env) env_E = env_residual_irradiance_image(e, nullptr, pos, normal);
    ShadeInputs in;
    in.albedo = &albedo;
    in.normal = &normal;
    in.position = &pos;
    in.ambient_albedo = &capture;
    if (!env.empty()) in.irradiance = &env_E;
    ImageF L = shade(s, in);
    Image8 ref = read_image(root + "/relit/" + s.name + "_noshadow/r_" + i + ".png");
    double se = 0;
    long n = 0, within2 = 0;
    for (int y = 2; y < L.height - 2; ++y)
      for (int x = 2; x < L.width - 2; ++x) {
        bool in_all = true;
        for (int dy = -2; dy <= 2; ++dy)
          for (int dx = -2; dx <= 2; ++dx) {
            in_all = in_all && mask.row(y + dy)[(x + dx) * mask.channels] == 255;
            double c = 0;
            for (int k = 0; k < 3; ++k) c += normal.at(x, y, k) * normal.at(x + dx, y + dy, k);
            in_all = in_all && c > std::cos(10 * kPi / 180);
          }
        if (!in_all) continue;
        for (int c = 0; c < 3; ++c) {
          double d = 255 * linear_to_srgb(double(L.at(x, y, c))) - ref.row(y)[x * ref.channels + c];
          se += d * d;
          within2 += std::abs(d) <= 2.0;
        }
        ++n;
      }
    ASSERT_GT(n, 4000);
    const double rmse_codes = std::sqrt(se / (3 * n));
    const double frac2 = double(within2) / (3 * n);
    std::printf("[ shade ] %s: rmse %.3f codes, %.4f of values within 2 codes, %ld interior pixels\n",
                s.name.c_str(), rmse_codes, frac2, n);
    EXPECT_GT(frac2, min_frac2) << s.name;
    EXPECT_LT(rmse_codes, max_rmse) << s.name;
  }
}

}  // namespace

TEST(LightShade, GroundTruthGeometryReproducesTheNoShadowRender) {
  GLINT_REQUIRE_SHARED(root, "relight");
  // measured 0.38 / 0.39 / 0.70 codes; mixed is the noisiest GT (45.8 dB)
  expect_noshadow_render(root, "lights.json", "", 1.0, 0.95);
}

// The spot factor and the environment's mapping, strength and rotation against Blender:
// spot_noshadow and env_noshadow. The env render is the noisiest GT: the README puts it at
// 44.17 dB (about 1.6 codes RMS) against the exact model on interior pixels; shaded from
// the exact irradiance table alone (no suns) this view measures 1.63 codes.
TEST(LightShade, GroundTruthGeometryReproducesTheExtraNoShadowRenders) {
  GLINT_REQUIRE_SHARED(root, "relight");
  expect_noshadow_render(root, "lights_extra.json", "spot", 1.0, 0.95);  // measured 0.50
  expect_noshadow_render(root, "lights_extra.json", "env", 1.8, 0.8);
}

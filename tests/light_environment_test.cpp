// Environment lights: the dataset's direction-to-texel mapping, texel integrals, the split
// into suns + residual, and the three identities of docs/LIGHTING.md ("Environment
// lights"): one bright texel is a sun, a uniform map is the ambient-occlusion term, and
// rotating the map rotates the lighting.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>

#include <stb_image_write.h>

#include "glint/backend/backend.h"
#include "glint/core/error.h"
#include "glint/io/pfm.h"
#include "glint/light/environment_light.h"
#include "glint/light/relighter.h"
#include "support/light_scene.h"
#include "test_support.h"

using namespace glint;
using namespace glint::test;

namespace {
constexpr double kPi = std::numbers::pi;

EnvironmentMap constant_map(int W, float r, float g, float b, double rot_deg = 0) {
  EnvironmentMap env;
  env.texels = ImageF(W, W / 2, 3);
  for (std::size_t i = 0; i < env.texels.data.size(); i += 3) {
    env.texels.data[i] = r;
    env.texels.data[i + 1] = g;
    env.texels.data[i + 2] = b;
  }
  env.rotation_z = rot_deg * kPi / 180;
  return env;
}

EnvironmentMap random_map(int W, unsigned seed) {
  EnvironmentMap env = constant_map(W, 0, 0, 0);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  for (float& v : env.texels.data) v = u(rng);
  return env;
}

void set_texel(EnvironmentMap& env, int row, int col, Vec3d c) {
  float* p = &env.texels.data[(static_cast<std::size_t>(row) * env.width() + col) * 3];
  p[0] = float(c.x), p[1] = float(c.y), p[2] = float(c.z);
}

// The README's mapping written out: world direction -> (row from the top, column).
EnvTexel readme_texel(Vec3d w, double rot, int W, int H) {
  const double c = std::cos(-rot), s = std::sin(-rot);
  Vec3d m = normalize(Vec3d{c * w.x - s * w.y, s * w.x + c * w.y, w.z});
  double u = 0.5 - std::atan2(m.y, m.x) / (2 * kPi);
  u = u - std::floor(u);
  const double v = 0.5 + std::asin(m.z) / kPi;
  return {H - 1 - std::min(int(std::floor(v * H)), H - 1), int(std::floor(u * W)) % W};
}

Vec3d rot_z(Vec3d v, double a) { return {std::cos(a) * v.x - std::sin(a) * v.y, std::sin(a) * v.x + std::cos(a) * v.y, v.z}; }

// Looking down at the ground + box from 4 m, tilted a little so box walls are seen.
Camera view_camera() {
  Camera c;
  c.width = c.height = 64;
  c.fx = c.fy = 70;
  c.cx = c.cy = 32;
  c.R = {{1, 0, 0, 0, -1, 0, 0, 0, -1}};
  c.t = -(c.R * Vec3d{0.3, 0.2, 4});
  return c;
}

GaussianModel grey_scene() {
  GaussianModel m = ground_and_box();
  for (float& v : m.sh_dc) v = 1.0f;
  return m;
}

// Relight options with few, small AO maps: enough to occlude the grey scene, quick to render.
RelightOptions small_ao_options() {
  RelightOptions opt;
  opt.ao.directions = 16;
  opt.ao.resolution = 64;
  return opt;
}

double max_abs_diff(const ImageF& a, const ImageF& b) {
  double d = 0;
  for (std::size_t i = 0; i < a.data.size(); ++i) d = std::max(d, double(std::abs(a.data[i] - b.data[i])));
  return d;
}

}  // namespace

TEST(LightEnvironment, TexelMappingIsTheDatasetsFormula) {
  EnvironmentMap env = constant_map(16, 1, 1, 1);
  auto t = [&](Vec3d w) { return env_texel_of(env, w); };
  // README: u = 0.5 at +X, 0.25 at +Y, 0.75 at -Y, 0 at -X; v = 1 at the zenith.
  EXPECT_EQ(t({1, 0, 0}).col, 8);
  EXPECT_EQ(t({1, 0, 0}).row, 3);  // the horizon is the top of row H/2 - 1 ... v = 0.5 -> floor 4 -> row 3
  EXPECT_EQ(t({0, 1, 0}).col, 4);
  EXPECT_EQ(t({0, -1, 0}).col, 12);
  EXPECT_EQ(t({-1, 0, 0}).col, 0);
  EXPECT_EQ(t({0, 0, 1}).row, 0);
  EXPECT_EQ(t({0, 0, -1}).row, 7);
  // Rotated by +90 deg: what the map shows at +X appears at +Y.
  env.rotation_z = kPi / 2;
  EXPECT_EQ(t({0, 1, 0}).col, 8);
  // Random directions and rotations against the formula written out above, and every
  // texel's centre direction maps back to that texel.
  std::mt19937 rng(3);
  std::normal_distribution<double> g;
  for (double rot : {0.0, 37.0, -123.5, 53.7}) {
    EnvironmentMap e = constant_map(256, 1, 1, 1, rot);
    for (int k = 0; k < 2000; ++k) {
      Vec3d w{g(rng), g(rng), g(rng)};
      EnvTexel a = env_texel_of(e, w), b = readme_texel(w, e.rotation_z, 256, 128);
      ASSERT_EQ(a.row, b.row);
      ASSERT_EQ(a.col, b.col);
    }
    for (int r = 0; r < 128; r += 7)
      for (int c = 0; c < 256; c += 5) {
        EnvTexel a = env_texel_of(e, env_texel_direction(e, r, c));
        ASSERT_EQ(a.row, r);
        ASSERT_EQ(a.col, c);
      }
  }
}

TEST(LightEnvironment, TexelIntegralsMatchQuadrature) {
  const int W = 32, H = 16;
  double sa = 0;
  Vec3d msum{0, 0, 0};
  for (int r = 0; r < H; ++r)
    for (int c = 0; c < W; ++c) {
      sa += env_texel_solid_angle(W, H, r);
      msum = msum + env_texel_moment(W, H, r, c);
    }
  EXPECT_NEAR(sa, 4 * kPi, 1e-12);
  EXPECT_NEAR(norm(msum), 0, 1e-12);
  // One texel by midpoint quadrature over its lat-long rectangle.
  for (auto [r, c] : {std::pair{0, 3}, std::pair{5, 17}, std::pair{8, 30}}) {
    const double p0 = (0.5 - (c + 1.0) / W) * 2 * kPi, p1 = (0.5 - double(c) / W) * 2 * kPi;
    const double e0 = (0.5 - (r + 1.0) / H) * kPi, e1 = (0.5 - double(r) / H) * kPi;
    Vec3d m{0, 0, 0};
    double area = 0;
    const int S = 400;
    for (int a = 0; a < S; ++a)
      for (int b = 0; b < S; ++b) {
        const double p = p0 + (p1 - p0) * (a + 0.5) / S, e = e0 + (e1 - e0) * (b + 0.5) / S;
        const double dw = std::cos(e) * (p1 - p0) / S * (e1 - e0) / S;
        m = m + dw * Vec3d{std::cos(e) * std::cos(p), std::cos(e) * std::sin(p), std::sin(e)};
        area += dw;
      }
    EXPECT_NEAR(area, env_texel_solid_angle(W, H, r), 1e-6 * area);
    EXPECT_NEAR(norm(m - env_texel_moment(W, H, r, c)), 0, 1e-6 * norm(m));
  }
}

TEST(LightEnvironment, ExactIrradianceMatchesBruteForce) {
  EnvironmentMap env = random_map(32, 7);
  env.strength = 0.8;
  env.rotation_z = 0.4;
  // Brute force over a fine lat-long grid, radiance through the mapping.
  const int S = 1024;
  std::mt19937 rng(5);
  std::normal_distribution<double> g;
  for (int k = 0; k < 4; ++k) {
    const Vec3d n = normalize(Vec3d{g(rng), g(rng), g(rng)});
    Vec3d ref{0, 0, 0};
    for (int j = 0; j < S / 2; ++j) {
      const double e = -kPi / 2 + kPi * (j + 0.5) / (S / 2);
      for (int i = 0; i < S; ++i) {
        const double p = 2 * kPi * (i + 0.5) / S;
        const Vec3d w{std::cos(e) * std::cos(p), std::cos(e) * std::sin(p), std::sin(e)};
        const double c = dot(n, w);
        if (c > 0) ref = ref + (c * std::cos(e) * (2 * kPi / S) * (kPi / (S / 2))) * env_radiance(env, w);
      }
    }
    const Vec3d E = env_irradiance_exact(env, n);
    EXPECT_NEAR(E.x, ref.x, 2e-3 * ref.x);
    EXPECT_NEAR(E.y, ref.y, 2e-3 * ref.y);
    EXPECT_NEAR(E.z, ref.z, 2e-3 * ref.z);
  }
}

TEST(LightEnvironment, ResidualTableInterpolatesTheExactIrradiance) {
  EnvironmentMap env = random_map(64, 11);
  EnvLighting el = decompose_environment(env, fibonacci_directions(32));
  ASSERT_TRUE(el.suns.empty());  // no texel is 4x the mean
  std::mt19937 rng(9);
  std::normal_distribution<double> g;
  double worst = 0, peak = 0;
  for (int k = 0; k < 200; ++k) {
    const Vec3d n = normalize(Vec3d{g(rng), g(rng), g(rng)});
    const Vec3d a = el.residual.lookup(n), b = env_irradiance_exact(env, n);
    worst = std::max({worst, std::abs(a.x - b.x), std::abs(a.y - b.y), std::abs(a.z - b.z)});
    peak = std::max({peak, b.x, b.y, b.z});
  }
  std::printf("[ env ] table vs exact: max error %.2e of peak %.3f\n", worst, peak);
  EXPECT_LT(worst, 2e-3 * peak);
}

TEST(LightEnvironment, UniformMapIsTheAmbientOcclusionTerm) {
  EnvironmentMap env = constant_map(64, 0.25f, 0.25f, 0.25f);
  env.strength = 0.6;
  // Unoccluded: pi * radiance for every normal; texels straddling the horizon are
  // integrated over sub-cells, 4 x 4 of them: 1e-4 for oblique normals on this coarse 64-wide map.
  for (Vec3d n : {Vec3d{0, 0, 1}, Vec3d{0.3, -0.8, 0.1}, Vec3d{0, 0, -1}, Vec3d{1, 0, 0}})
    EXPECT_NEAR(env_irradiance_exact(env, n).y, kPi * 0.15, 1e-4 * kPi * 0.15);
  auto backend = make_cpu_backend();
  GaussianModel m = grey_scene();
  const SceneBounds b = robust_bounds(m);
  AoParams ap;
  ap.directions = 16;
  ap.resolution = 128;
  AoMaps ao = render_ao_maps(*backend, m, b, ap);
  std::vector<Vec3d> dirs;
  for (const Light& l : ao.directions) dirs.push_back(l.direction);
  EnvLighting el = decompose_environment(env, dirs);
  ASSERT_TRUE(el.suns.empty());
  long occluded = 0;
  for (double x = -0.9; x <= 0.9; x += 0.1)
    for (double y = -0.9; y <= 0.9; y += 0.1) {
      // Ground (up) and, beside the box, points on its walls facing out.
      for (auto [p, n] : {std::pair{Vec3d{x, y, 0}, Vec3d{0, 0, 1}}, std::pair{Vec3d{kBoxHalf, y * 0.25, 0.55}, Vec3d{1, 0, 0}}}) {
        // The visibility factor is the AO (to a float's precision, as it is kept); the
        // unoccluded part pi * radiance.
        const double a = ambient_occlusion(ao, p, n);
        const Vec3d E = env_residual_irradiance(el, &ao, p, n), E0 = el.residual.lookup(n);
        ASSERT_NEAR(E.x, E0.x * a, 1e-7 * E0.x);
        ASSERT_NEAR(E.z, E0.z * a, 1e-7 * E0.z);
        ASSERT_NEAR(E0.y, kPi * 0.15, 1e-4 * kPi * 0.15);
        occluded += a < 0.95;
      }
    }
  EXPECT_GT(occluded, 10) << "the comparison must include occluded points";
}

TEST(LightEnvironment, OneBrightTexelIsASunAndRotates) {
  auto backend = make_cpu_backend();
  GaussianModel m = grey_scene();
  const Camera cam = view_camera();
  RelightOptions opt;
  opt.shadow_map.resolution = 256;
  opt.ao.directions = 8;
  opt.ao.resolution = 64;
  opt.delight = false;
  // The environment's suns sampled as a lamp is: maps of the lamp's size and depth, every pixel.
  opt.interpolation.enabled = false;
  opt.environment.sun_shadow_depth = opt.shadow_map.depth;
  for (ShadowMode mode : {ShadowMode::kPcf, ShadowMode::kTransmittance}) {
    opt.shadows = mode;
    opt.transmittance.resolution = 128;
    opt.transmittance.planes = 4;
    opt.environment.sun_shadow_resolution = mode == ShadowMode::kPcf ? opt.shadow_map.resolution : opt.transmittance.resolution;
    Relighter rl(m, *backend, opt);
    const ViewGeometry g = rl.prepare(cam);
    for (double rot_deg : {0.0, 30.0}) {
      SCOPED_TRACE(rot_deg);
      const int W = 64, H = 32, row = 10, col = 5;  // elevation ~ 30 deg
      EnvironmentMap env = constant_map(W, 0, 0, 0, rot_deg);
      env.strength = 2;
      set_texel(env, row, col, {300, 200, 100});
      // The equivalent sun: direction of the texel's first moment (numerical quadrature of
      // the texel rectangle, map frame), rotated by the map's rotation; strength
      // radiance * |moment|; colour the texel's.
      const double p0 = (0.5 - (col + 1.0) / W) * 2 * kPi, p1 = (0.5 - double(col) / W) * 2 * kPi;
      const double e0 = (0.5 - (row + 1.0) / H) * kPi, e1 = (0.5 - double(row) / H) * kPi;
      Vec3d mom{0, 0, 0};
      const int S = 200;
      for (int a = 0; a < S; ++a)
        for (int bb = 0; bb < S; ++bb) {
          const double p = p0 + (p1 - p0) * (a + 0.5) / S, e = e0 + (e1 - e0) * (bb + 0.5) / S;
          mom = mom + (std::cos(e) * (p1 - p0) * (e1 - e0) / (S * S)) *
                          Vec3d{std::cos(e) * std::cos(p), std::cos(e) * std::sin(p), std::sin(e)};
        }
      const Vec3d dir = rot_z(normalize(mom), rot_deg * kPi / 180);
      ASSERT_NEAR(env_radiance(env, dir).x, 600, 1e-9);  // the mapping finds the texel there
      LightSetup sun_setup{"sun", {1, 1, 1}, 0, {Light::sun(dir, 600 * norm(mom), {1, 2.0 / 3, 1.0 / 3})}};
      LightSetup env_setup{"env", {1, 1, 1}, 0, {Light::environment_light(env)}};
      rl.set_setup(sun_setup);
      const ImageF a = rl.relight(g);
      rl.set_setup(env_setup);
      ASSERT_EQ(rl.shaded_setup().lights.size(), 1u);
      EXPECT_LT(norm(rl.shaded_setup().lights[0].direction - dir), 1e-5);
      const ImageF b = rl.relight(g);
      EXPECT_LT(max_abs_diff(a, b), 1e-4);
      // Not a trivial match: the image has a cast shadow (dark covered ground) and lit ground.
      float lo = 1e9f, hi = 0;
      for (int y = 0; y < a.height; ++y)
        for (int x = 0; x < a.width; ++x)
          if (g.alpha.at(x, y, 0) > 0.99f) lo = std::min(lo, a.at(x, y, 0)), hi = std::max(hi, a.at(x, y, 0));
      EXPECT_LT(lo, 0.05f * hi);
    }
  }
}

TEST(LightEnvironment, RotatingTheMapRotatesTheLighting) {
  // Rotating by 90 deg equals shifting the columns by W/4 towards lower u.
  EnvironmentMap a = random_map(64, 21);
  set_texel(a, 8, 40, {200, 180, 160});  // and a sun
  a.rotation_z = kPi / 2;
  EnvironmentMap b = a;
  b.rotation_z = 0;
  for (int r = 0; r < 32; ++r)
    for (int c = 0; c < 64; ++c)
      for (int k = 0; k < 3; ++k) b.texels.at((c + 64 - 16) % 64, r, k) = a.texels.at(c, r, k);
  const auto dirs = fibonacci_directions(16);
  EnvLighting la = decompose_environment(a, dirs), lb = decompose_environment(b, dirs);
  EnvironmentMap a0 = a;
  a0.rotation_z = 0;
  EnvLighting l0 = decompose_environment(a0, dirs);
  ASSERT_EQ(la.suns.size(), 1u);
  ASSERT_EQ(lb.suns.size(), 1u);
  ASSERT_EQ(l0.suns.size(), 1u);
  EXPECT_LT(norm(la.suns[0].direction - lb.suns[0].direction), 1e-9);
  EXPECT_LT(norm(la.suns[0].direction - rot_z(l0.suns[0].direction, kPi / 2)), 1e-9);
  EXPECT_NEAR(la.suns[0].strength, l0.suns[0].strength, 1e-9 * l0.suns[0].strength);
  for (std::size_t k = 0; k < dirs.size(); ++k) EXPECT_LT(norm(la.residual_weights[k] - lb.residual_weights[k]), 1e-6);
  std::mt19937 rng(4);
  std::normal_distribution<double> g;
  for (int k = 0; k < 50; ++k) {
    const Vec3d n = normalize(Vec3d{g(rng), g(rng), g(rng)});
    EXPECT_LT(norm(la.residual.lookup(n) - lb.residual.lookup(n)), 1e-6 * norm(lb.residual.lookup(n)));
    // and the irradiance turns with the map: E_a(n) = E_0(R_z(-90) n)
    const Vec3d ea = env_irradiance_exact(a, n), e0 = env_irradiance_exact(a0, rot_z(n, -kPi / 2));
    EXPECT_LT(norm(ea - e0), 1e-9 * norm(e0));
  }
}

TEST(LightEnvironment, BadMapIsAnErrorNamingTheFile) {
  TempDir d;
  auto error_of = [&](const std::string& json) -> std::string {
    write_file(d.str("lights.json"), json);
    try {
      read_lights_json(d.str("lights.json"));
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  const std::string pre = R"({"lights":[{"type":"environment","file":")";
  EXPECT_NE(error_of(pre + R"(missing.pfm"}]})").find(d.str("missing.pfm")), std::string::npos);
  write_file(d.str("bad.pfm"), "PF\n4 2\n-1.0\nxx");
  std::string e = error_of(pre + R"(bad.pfm"}]})");
  EXPECT_NE(e.find("bad.pfm"), std::string::npos) << e;
  write_pfm(d.str("square.pfm"), ImageF(4, 4, 3, 1.f));
  e = error_of(pre + R"(square.pfm"}]})");
  EXPECT_NE(e.find("square.pfm"), std::string::npos) << e;
  EXPECT_NE(e.find("2H x H"), std::string::npos) << e;
  ImageF neg(8, 4, 3, 1.f);
  neg.data[5] = -1;
  write_pfm(d.str("neg.pfm"), neg);
  EXPECT_NE(error_of(pre + R"(neg.pfm"}]})").find("negative"), std::string::npos);
  write_file(d.str("map.png"), "x");
  EXPECT_NE(error_of(pre + R"(map.png"}]})").find("unsupported"), std::string::npos);
  write_pfm(d.str("ok.pfm"), ImageF(8, 4, 3, 1.f));
  EXPECT_NE(error_of(pre + R"(ok.pfm","strength":-1}]})").find("'strength' must be >= 0"), std::string::npos);
  EXPECT_NE(error_of(pre + R"(ok.pfm","interpolation":"linear"}]})").find("closest"), std::string::npos);
  EXPECT_EQ(error_of(pre + R"(ok.pfm","strength":0.5,"rotation_z_deg":10}]})"), "");  // relative to the json
}

TEST(LightEnvironment, ReadsRadianceHdr) {
  TempDir d;
  ImageF img(8, 4, 3);
  for (std::size_t i = 0; i < img.data.size(); ++i) img.data[i] = 0.05f * float(i % 17) + (i == 40 ? 30.f : 0.f);
  ASSERT_TRUE(stbi_write_hdr(d.str("m.hdr").c_str(), 8, 4, 3, img.data.data()));
  EnvironmentMap env = read_environment_map(d.str("m.hdr"), 1.5, 90);
  ASSERT_EQ(env.width(), 8);
  ASSERT_EQ(env.height(), 4);
  // RGBE: 8 bits of mantissa under the exponent of the pixel's largest channel.
  for (std::size_t i = 0; i < img.data.size(); ++i) {
    const std::size_t p = i / 3 * 3;
    const float big = std::max({img.data[p], img.data[p + 1], img.data[p + 2]});
    EXPECT_NEAR(env.texels.data[i], img.data[i], big / 64) << i;
  }
  EXPECT_DOUBLE_EQ(env.strength, 1.5);
  write_file(d.str("bad.hdr"), "#?RADIANCE\nnonsense");
  try {
    read_environment_map(d.str("bad.hdr"));
    ADD_FAILURE() << "bad .hdr accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.hdr"), std::string::npos) << e.what();
  }
}

// The relighter's one AO pass that also gathers the environment residuals gives exactly
// what the separate AO and residual passes give, and relighting with the setups
// announced (expect_setups) gives the same image as without.
TEST(LightEnvironment, ResidualGatheredInTheAoPassIsTheSeparatePass) {
  auto backend = make_cpu_backend(2);
  GaussianModel m = grey_scene();
  const Camera cam = view_camera();
  RelightOptions opt = small_ao_options();
  opt.shadow_map.resolution = 128;
  opt.interpolation.enabled = false;  // compared with the separate passes pixel by pixel
  EnvironmentMap env = random_map(32, 5);
  set_texel(env, 6, 20, {300, 200, 100});
  const LightSetup setup{"env", {1, 1, 1}, 0, {Light::environment_light(env, {1, 0.5, 0.25})}};

  Relighter plain(m, *backend, opt);
  const ViewGeometry g0 = plain.prepare(cam);
  ASSERT_TRUE(g0.env_residual.empty());
  plain.set_setup(setup);
  const ImageF a = plain.relight(g0);

  Relighter announced(m, *backend, opt);
  announced.expect_setups({setup});
  const ViewGeometry g1 = announced.prepare(cam);
  ASSERT_EQ(g1.env_residual.size(), 1u);
  EXPECT_EQ(g1.ao.data, g0.ao.data);
  announced.set_setup(setup);
  EXPECT_EQ(announced.relight(g1).data, a.data);

  // The gathered residual is the separate pass's, and it is not trivially uniform.
  AoParams ap = opt.ao;
  const AoMaps maps = render_ao_maps(*backend, m, robust_bounds(m), ap);
  std::vector<Vec3d> dirs;
  for (const Light& l : maps.directions) dirs.push_back(l.direction);
  const EnvLighting el = tinted_environment(setup.lights[0], dirs, {});
  const ImageF separate = env_residual_irradiance_image(el, &maps, g0.position, g0.normal);
  EXPECT_EQ(g1.env_residual[0].data, separate.data);
  const ImageF unoccluded = env_residual_irradiance_image(el, nullptr, g0.position, g0.normal);
  EXPECT_GT(max_abs_diff(separate, unoccluded), 1e-3f);
  const AoAndResiduals two = ambient_occlusion_and_residuals(maps, {&el, &el}, g0.position, g0.normal);
  EXPECT_EQ(two.residual_irradiance[1].data, separate.data);
  EXPECT_EQ(two.ao.data, ambient_occlusion_image(maps, g0.position, g0.normal).data);
}

// The relighter's interpolated AO (RelightOptions::interpolation, on by default) is within
// the spread of the AO evaluated at every pixel, and interpolates a good share of them.
TEST(LightEnvironment, InterpolatedAoIsWithinTheSpreadOfEveryPixel) {
  auto backend = make_cpu_backend(2);
  GaussianModel m = grey_scene();
  const Camera cam = view_camera();
  RelightOptions opt = small_ao_options();
  ASSERT_TRUE(opt.interpolation.enabled);
  const ViewGeometry fast = Relighter(m, *backend, opt).prepare(cam);
  opt.interpolation.enabled = false;
  const ViewGeometry exact = Relighter(m, *backend, opt).prepare(cam);
  ASSERT_EQ(fast.ao.data.size(), exact.ao.data.size());
  long differ = 0, beyond = 0, surface = 0;
  for (std::size_t i = 0; i < fast.ao.data.size(); ++i) {
    differ += fast.ao.data[i] != exact.ao.data[i];
    beyond += std::abs(fast.ao.data[i] - exact.ao.data[i]) > opt.interpolation.max_spread;
    surface += exact.normal.data[3 * i + 2] != 0 || exact.normal.data[3 * i] != 0;
  }
  std::printf("[ ao ] interpolated AO: %ld of %ld surface pixels differ, %ld by more than %.2f, max %.3f\n", differ,
              surface, beyond, opt.interpolation.max_spread, max_abs_diff(fast.ao, exact.ao));
  EXPECT_GT(differ, 20) << "some pixels must be interpolated";
  // The bound holds between the evaluated neighbours; a pixel can still differ from its
  // own value by more where AO turns between them, rarely and not by much.
  EXPECT_LE(beyond * 100, surface);
  EXPECT_LT(max_abs_diff(fast.ao, exact.ao), 0.1);
}

// The same for an environment's residual, whose weighted visibility is what is
// interpolated: within the spread of E_res at the pixel's own normal, and so within the
// spread of the residual evaluated at every pixel, but for a few pixels where visibility
// turns between evaluated neighbours.
TEST(LightEnvironment, InterpolatedResidualIsWithinTheSpreadOfEveryPixel) {
  auto backend = make_cpu_backend(2);
  GaussianModel m = grey_scene();
  const Camera cam = view_camera();
  RelightOptions opt = small_ao_options();
  EnvironmentMap env = random_map(32, 5);
  const LightSetup setup{"env", {1, 1, 1}, 0, {Light::environment_light(env)}};
  auto prepared = [&](bool interpolate) {
    opt.interpolation.enabled = interpolate;
    Relighter r(m, *backend, opt);
    r.expect_setups({setup});
    return r.prepare(cam);
  };
  const ViewGeometry fast = prepared(true), exact = prepared(false);
  ASSERT_EQ(fast.env_residual.size(), 1u);
  ASSERT_EQ(exact.env_residual.size(), 1u);
  const ImageF &a = fast.env_residual[0], &b = exact.env_residual[0];
  long differ = 0, beyond = 0, surface = 0;
  double worst = 0;
  for (std::size_t i = 0; i < b.data.size() / 3; ++i) {
    if (exact.normal.data[3 * i] == 0 && exact.normal.data[3 * i + 1] == 0 && exact.normal.data[3 * i + 2] == 0) continue;
    ++surface;
    bool d = false, far = false;
    for (int c = 0; c < 3; ++c) {
      const float x = a.data[3 * i + c], y = b.data[3 * i + c];
      d = d || x != y;
      const double rel = std::abs(x - y) / std::max(1e-6f, std::abs(y));
      far = far || rel > opt.interpolation.max_spread;
      worst = std::max(worst, rel);
    }
    differ += d;
    beyond += far;
  }
  std::printf("[ env ] interpolated residual: %ld of %ld surface pixels differ, %ld by more than %.0f%%, worst %.1f%%\n",
              differ, surface, beyond, 100 * opt.interpolation.max_spread, 100 * worst);
  EXPECT_GT(differ, 20) << "some pixels must be interpolated";
  EXPECT_LE(beyond * 100, surface);
  EXPECT_LT(worst, 0.1);
}

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "glint/core/error.h"
#include "glint/light/lights.h"
#include "test_support.h"

using namespace glint;

namespace {
constexpr double kPi = std::numbers::pi;
std::string error_of(const std::string& json) {
  try {
    parse_lights_json(json, "lights.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(LightLights, IrradianceMatchesTheCalibratedPlane) {
  // relit/lights.json verification_flat_plane: a sun S = 1 at cos 0.81915 over albedo 0.5
  // gives L = 0.13037. (Its point-light "centre" pixel is not directly below the lamp, so
  // only the formula is checked there: P = 100 W straight above at 1.5 m.)
  Light p = Light::point_from_power({0, 0, 1.5}, 100);
  EXPECT_NEAR(irradiance(p, {0, 0, 0}, {0, 0, 1}), 100 / (4 * kPi) / 2.25, 1e-12);
  Light s = Light::sun({0, -0.5735764503479004, 0.8191520571708679}, 1);
  EXPECT_NEAR(0.5 / kPi * irradiance(s, {3, 4, 5}, {0, 0, 1}), 0.1303720990426385, 1e-7);
  // Off-centre and back-facing.
  EXPECT_NEAR(irradiance(p, {1.5, 0, 0}, {0, 0, 1}), p.intensity * std::cos(kPi / 4) / 4.5, 1e-12);
  EXPECT_EQ(irradiance(p, {0, 0, 0}, {0, 0, -1}), 0);
  EXPECT_EQ(irradiance(s, {0, 0, 0}, {0, 0, -1}), 0);
  EXPECT_TRUE(std::isinf(distance_to_light(s, {0, 0, 0})));
  EXPECT_NEAR(distance_to_light(p, {0, 0, 0}), 1.5, 1e-15);
  Vec3d w = direction_to_light(p, {1.5, 0, 1.5});
  EXPECT_NEAR(w.x, -1, 1e-15);
}

TEST(LightLights, SpotConeIsSmoothAndBounded) {
  Light sp = Light::spot({0, 0, 2}, {0, 0, -1}, 10, 60 * kPi / 180, 0.5);
  // On the axis a spot is exactly a point light (the factor c is 1 there).
  Light pt = Light::point({0, 0, 2}, 10);
  EXPECT_DOUBLE_EQ(irradiance(sp, {0, 0, 0}, {0, 0, 1}), irradiance(pt, {0, 0, 0}, {0, 0, 1}));
  // Outside the 30 deg half angle: dark; across the edge: monotone decreasing.
  const double r_edge = 2 * std::tan(kPi / 6);
  EXPECT_EQ(spot_falloff(sp, {r_edge * 1.01, 0, 0}), 0);
  double prev = 1;
  for (double r = 0; r < r_edge; r += r_edge / 50) {
    double f = spot_falloff(sp, {r, 0, 0});
    EXPECT_LE(f, prev + 1e-15);
    EXPECT_GE(f, 0);
    prev = f;
  }
  // A hard edge: the factor is c itself just inside, 0 just outside.
  Light hard = Light::spot({0, 0, 2}, {0, 0, -1}, 10, 60 * kPi / 180, 0);
  const double c_in = 2 / std::hypot(2.0, r_edge * 0.99);
  EXPECT_NEAR(spot_falloff(hard, {r_edge * 0.99, 0, 0}), c_in, 1e-15);
  EXPECT_EQ(spot_falloff(hard, {r_edge * 1.01, 0, 0}), 0);
}

// datasets/relight/README.md "Spot model (Cycles 3.4.1, measured)", written out here
// independently of lights.cpp: spot(c) = 0 for c <= cos_half, c * smoothstep((c - cos_half)
// / s) in the band, c beyond, s = blend (1 - cos_half).
TEST(LightLights, SpotFalloffIsTheDatasetsVerifiedFormula) {
  auto reference = [](double c, double spot_size, double blend) {
    const double cos_half = std::cos(spot_size / 2), s = blend * (1 - cos_half);
    if (c <= cos_half) return 0.0;
    if (c >= cos_half + s) return c;
    const double t = (c - cos_half) / s;
    return c * t * t * (3 - 2 * t);
  };
  // The dataset's spot (lights_extra.json) and the calibration plane's cases.
  const double cases[][2] = {{0.39968039870670147, 0.39}, {kPi / 2, 0.4}, {kPi / 3, 0.3}, {kPi / 2, 0}, {kPi / 2, 1}};
  const Vec3d p{0.3, -0.2, 2}, axis = normalize(Vec3d{0.2, -0.6, -0.7});
  const Vec3d e1 = normalize(cross(axis, Vec3d{1, 0, 0})), e2 = cross(axis, e1);
  for (const auto& cs : cases) {
    Light sp = Light::spot(p, axis, 48.6, cs[0], cs[1], {1, 0.85, 0.65});
    int in_band = 0;
    for (int k = 0; k <= 400; ++k) {
      const double ang = (k / 400.0) * 0.75 * cs[0];  // 0 .. 1.5x the half angle
      const Vec3d dir = std::cos(ang) * axis + std::sin(ang) * (std::cos(k * 0.7) * e1 + std::sin(k * 0.7) * e2);
      const Vec3d x = p + 2.5 * dir;
      const double c = std::cos(ang), want = reference(c, cs[0], cs[1]);
      EXPECT_NEAR(spot_falloff(sp, x), want, 1e-12) << "size " << cs[0] << " blend " << cs[1] << " angle " << ang;
      in_band += want > 0 && want < c;
      // E = I spot(c) max(0, n.w) / d^2 for a surface facing the lamp.
      EXPECT_NEAR(irradiance(sp, x, -dir), 48.6 * want / 6.25, 1e-10);
    }
    if (cs[1] > 0) {
      EXPECT_GT(in_band, 10) << "sample angles must cross the soft band";
    }
  }
}

TEST(LightLights, ReadsTheRelightDatasetFile) {
  GLINT_REQUIRE_SHARED(path, "relight/relit/lights.json");
  auto setups = read_lights_json(path);
  ASSERT_EQ(setups.size(), 3u);
  EXPECT_EQ(setups[0].name, "point");  // file order, as the scorer uses
  EXPECT_EQ(setups[1].name, "sun");
  EXPECT_EQ(setups[2].name, "mixed");
  for (const auto& s : setups) EXPECT_DOUBLE_EQ(s.ambient_strength, 0.15);
  const Light& p = setups[0].lights.at(0);
  EXPECT_EQ(p.type, LightType::Point);
  EXPECT_NEAR(p.intensity, 36.43056647373484, 1e-12);
  EXPECT_NEAR(p.position.z, 2.3060972690582275, 1e-15);
  const Light& sun = setups[1].lights.at(0);
  EXPECT_EQ(sun.type, LightType::Sun);
  EXPECT_NEAR(sun.direction.z, 0.7780935168266296, 1e-6);
  EXPECT_DOUBLE_EQ(sun.strength, 4.109);
  ASSERT_EQ(setups[2].lights.size(), 2u);
  EXPECT_DOUBLE_EQ(setups[2].lights[0].color.z, 0.55);
  EXPECT_DOUBLE_EQ(setups[2].lights[1].color.x, 0.6);
}

TEST(LightLights, ReadsTheGlintFormat) {
  auto one = parse_lights_json(R"({"name": "studio", "ambient": {"strength": 0.1, "color": [1, 0.5, 0.5]},
    "lights": [{"type": "spot", "position": [0, 0, 3], "direction": [0, 0, -2], "cone_angle_deg": 45,
                "blend": 0.2, "power_W": 100},
               {"type": "point", "position": [1, 2, 3], "intensity_W_per_sr": 5, "color": [1, 1, 0]},
               {"type": "sun", "direction_of_travel": [0, 0, -1], "strength_W_per_m2": 2}]})",
                               "studio.json");
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].name, "studio");
  EXPECT_DOUBLE_EQ(one[0].ambient().y, 0.05);
  ASSERT_EQ(one[0].lights.size(), 3u);
  const Light& sp = one[0].lights[0];
  EXPECT_EQ(sp.type, LightType::Spot);
  EXPECT_NEAR(sp.intensity, 100 / (4 * kPi), 1e-12);
  EXPECT_DOUBLE_EQ(sp.direction.z, -1);
  EXPECT_NEAR(sp.cone_angle, kPi / 4, 1e-15);
  EXPECT_DOUBLE_EQ(one[0].lights[2].direction.z, 1);
  auto unnamed = parse_lights_json(R"({"lights": [{"type": "sun", "direction_to_light": [0,0,1],
    "strength_W_per_m2": 1}]})", "dir/key.json");
  EXPECT_EQ(unnamed[0].name, "key");
  auto many = parse_lights_json(R"({"setups": {"b": {"ambient": {"strength": 1}}, "a": {"ambient": {"strength": 2}}}})",
                                "x.json");
  ASSERT_EQ(many.size(), 2u);
  EXPECT_EQ(many[0].name, "b");
}

TEST(LightLights, ErrorsNameFileSetupAndLight) {
  const std::string head = R"({"setups": {"s1": {"lights": [{"type": "sun", "direction_to_light": [0,0,1], "strength_W_per_m2": 1}, )";
  auto e = error_of(head + R"({"type": "point", "position": [0, 0]}]}}})");
  EXPECT_NE(e.find("lights.json: setup 's1' light 1: 'position' must be an array of 3"), std::string::npos) << e;
  e = error_of(head + R"({"type": "point", "position": [0, 0, 1]}]}}})");
  EXPECT_NE(e.find("light 1: needs 'intensity_W_per_sr' or 'power_W'"), std::string::npos) << e;
  e = error_of(head + R"({"type": "point", "position": [0, 0, 1], "power_W": 100, "intensity_W_per_sr": 9}]}}})");
  EXPECT_NE(e.find("disagrees"), std::string::npos) << e;
  e = error_of(head + R"({"type": "area", "position": [0, 0, 1]}]}}})");
  EXPECT_NE(e.find("unknown light type 'area'"), std::string::npos) << e;
  e = error_of(head + R"({"type": "point", "position": [0, 0, 1e999], "power_W": 1}]}}})");
  EXPECT_NE(e.find("lights.json"), std::string::npos) << e;
  e = error_of(head + R"({"type": "spot", "position": [0, 0, 1], "direction": [0,0,0], "power_W": 1, "cone_angle_deg": 30}]}}})");
  EXPECT_NE(e.find("'direction' must be a non-zero vector"), std::string::npos) << e;
  e = error_of(head + R"({"type": "spot", "position": [0, 0, 1], "direction": [0,0,1], "power_W": 1, "cone_angle_deg": 30, "blend": 2}]}}})");
  EXPECT_NE(e.find("'blend' must be in [0, 1]"), std::string::npos) << e;
  e = error_of(head + R"({"type": "point", "position": [0, 0, 1], "power_W": -1}]}}})");
  EXPECT_NE(e.find("'power_W' must be >= 0"), std::string::npos) << e;
  e = error_of(R"({"setups": {"s": {"ambient": {"type": "hdri", "strength": 1}}}})");
  EXPECT_NE(e.find("setup 's' ambient: unknown ambient type"), std::string::npos) << e;
  e = error_of(R"({"setups": {"s": {}}})");
  EXPECT_NE(e.find("neither lights nor ambient"), std::string::npos) << e;
  e = error_of("{");
  EXPECT_NE(e.find("lights.json: invalid JSON"), std::string::npos) << e;
  EXPECT_THROW(read_lights_json("/nonexistent/lights.json"), Error);
}

TEST(LightLights, ReadsTheDatasetsExtraSetupsAndFolder) {
  GLINT_REQUIRE_SHARED(relit, "relight/relit");
  auto extra = read_lights_json(relit + "/lights_extra.json");
  ASSERT_EQ(extra.size(), 2u);
  EXPECT_EQ(extra[0].name, "spot");
  const Light& sp = extra[0].lights.at(0);
  EXPECT_EQ(sp.type, LightType::Spot);
  EXPECT_NEAR(sp.direction.y, -0.6671144517415443, 1e-12);  // from "axis"
  EXPECT_DOUBLE_EQ(sp.cone_angle, 0.39968039870670147);     // spot_size_rad
  EXPECT_DOUBLE_EQ(sp.blend, 0.39);                          // spot_blend
  EXPECT_NEAR(sp.intensity, 48.621835114574026, 1e-9);
  EXPECT_NEAR(std::cos(0.5 * sp.cone_angle), 0.980098312815026, 1e-12);
  EXPECT_EQ(extra[1].name, "env");
  EXPECT_EQ(extra[1].ambient_strength, 0);  // ambient type "none"
  const Light& env = extra[1].lights.at(0);
  ASSERT_EQ(env.type, LightType::Environment);
  ASSERT_TRUE(env.environment);
  EXPECT_EQ(env.environment->width(), 256);
  EXPECT_EQ(env.environment->height(), 128);
  EXPECT_DOUBLE_EQ(env.environment->strength, 0.7611);
  EXPECT_NEAR(env.environment->rotation_z, 53.7 * kPi / 180, 1e-12);
  // The folder: lights.json, then lights_extra.json.
  auto all = read_lights_files({relit});
  ASSERT_EQ(all.size(), 5u);
  const char* names[] = {"point", "sun", "mixed", "spot", "env"};
  for (int i = 0; i < 5; ++i) EXPECT_EQ(all[i].name, names[i]);
  // The same file twice defines every setup twice.
  try {
    read_lights_files({relit + "/lights.json", relit + "/lights.json"});
    ADD_FAILURE() << "duplicate setups accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'point' is also defined"), std::string::npos) << e.what();
  }
}

TEST(LightLights, SpotAliasesMustAgree) {
  const std::string base = R"({"lights":[{"type":"spot","position":[0,0,2],"power_W":100,)";
  EXPECT_NE(error_of(base + R"("direction":[0,0,-1],"axis":[0,1,0],"cone_angle_deg":30}]})").find("disagree"),
            std::string::npos);
  EXPECT_NE(error_of(base + R"("axis":[0,0,-1],"cone_angle_deg":30,"spot_size_deg":31}]})").find("disagree"),
            std::string::npos);
  EXPECT_NE(error_of(base + R"("axis":[0,0,-1],"cone_angle_deg":30,"blend":0.1,"spot_blend":0.2}]})").find("disagree"),
            std::string::npos);
  EXPECT_NE(error_of(base + R"("axis":[0,0,-1]}]})").find("missing 'cone_angle_deg'"), std::string::npos);
  EXPECT_EQ(error_of(base + R"("axis":[0,0,-1],"spot_size_deg":30,"spot_blend":0.2}]})"), "");
  EXPECT_NE(error_of(R"({"ambient":{"type":"none","strength":0.2},"lights":[{"type":"sun","direction_to_light":[0,0,1],"strength_W_per_m2":1}]})")
                .find("strength 0"),
            std::string::npos);
}

TEST(LightLights, PythonNaNLiteralsAreNullOutsideStrings) {
  // As lights_extra.json's verification tables: ignored keys may hold NaN / Infinity.
  EXPECT_EQ(error_of(R"({"setups":{"a":{"lights":[{"type":"sun","direction_to_light":[0,0,1],"strength_W_per_m2":1,"x":NaN,"y":-Infinity,"z":"NaN"}]}},"v":Infinity})"),
            "");
  EXPECT_NE(error_of(R"({"lights":[{"type":"sun","direction_to_light":[0,0,1],"strength_W_per_m2":NaN}]})")
                .find("'strength_W_per_m2' must be a number"),
            std::string::npos);
}

TEST(LightLights, LightFolderWithoutJsonIsAnError) {
  test::TempDir d;
  try {
    read_lights_files({d.str()});
    ADD_FAILURE() << "empty folder accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no .json light file"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_lights_files({d.str("missing.json")}), Error);
}

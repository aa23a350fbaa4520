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
  // Inside the inner cone a spot is exactly a point light.
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
  Light hard = Light::spot({0, 0, 2}, {0, 0, -1}, 10, 60 * kPi / 180, 0);
  EXPECT_EQ(spot_falloff(hard, {r_edge * 0.99, 0, 0}), 1);
  EXPECT_EQ(spot_falloff(hard, {r_edge * 1.01, 0, 0}), 0);
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

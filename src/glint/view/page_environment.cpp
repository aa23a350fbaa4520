#include "glint/view/page_environment.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <numbers>
#include <nlohmann/json.hpp>

#include "glint/core/math.h"
#include "glint/light/splat_occlusion.h"

namespace glint::view {

namespace {

using Json = nlohmann::ordered_json;
Json vec(Vec3d v) { return Json::array({v.x, v.y, v.z}); }

// The residual's visibility factor per channel at x with normal n (env_residual_irradiance
// of light/environment_light.cpp without E_res).
Vec3d residual_factor(const AoMaps& ao, const EnvLighting& env, Vec3d x, Vec3d n) {
  Vec3d num{0, 0, 0}, den{0, 0, 0};
  for (std::size_t k = 0; k < ao.maps.size(); ++k) {
    const double c = dot(n, ao.directions[k].direction);
    if (c <= 0) continue;
    const Vec3d w = c * env.residual_weights[k];
    if (w.x == 0 && w.y == 0 && w.z == 0) continue;
    const double v = shadow_visibility(ao.maps[k], ao.directions[k], x, n);
    num = num + v * w;
    den = den + w;
  }
  return {den.x > 0 ? num.x / den.x : 1.0, den.y > 0 ? num.y / den.y : 1.0, den.z > 0 ? num.z / den.z : 1.0};
}

}  // namespace

std::string environment_light_json(const Light& light, const EnvLighting& env, const std::string& visibility_url) {
  const EnvironmentMap& m = *light.environment;
  Json j;
  j["type"] = "environment";
  std::error_code ec;
  const std::filesystem::path abs = std::filesystem::absolute(m.file, ec);
  j["file"] = ec ? m.file : abs.lexically_normal().string();
  j["strength"] = m.strength;
  j["rotation_z_deg"] = m.rotation_z * 180 / std::numbers::pi;
  j["color"] = vec(light.color);
  Json suns = Json::array();
  for (const Light& s : env.suns)
    suns.push_back({{"type", "sun"}, {"direction_to_light", vec(s.direction)}, {"strength_W_per_m2", s.strength},
                    {"color", vec(s.color)}});
  j["suns"] = std::move(suns);
  Json E = Json::array();
  for (const Vec3d& e : env.residual.E) {
    E.push_back(e.x);
    E.push_back(e.y);
    E.push_back(e.z);
  }
  j["residual"] = {{"width", env.residual.width}, {"height", env.residual.height}, {"irradiance", std::move(E)}};
  j["visibility"] = visibility_url;
  return j.dump();
}

std::string encode_env_visibility_blob(const AoMaps& maps, const EnvLighting& env, const GaussianModel& m) {
  const long n = static_cast<long>(m.size());
  std::vector<float> out(static_cast<std::size_t>(8 * n), 0.f);
#pragma omp parallel for schedule(dynamic, 256)
  for (long i = 0; i < n; ++i) {
    const SplatSurfel s = splat_surfel(m, static_cast<std::size_t>(i));
    for (int side = 0; side < 2; ++side) {
      const Vec3d f = residual_factor(maps, env, s.centre, side == 0 ? s.axis : -1.0 * s.axis);
      float* o = &out[static_cast<std::size_t>(8 * i + 4 * side)];
      o[0] = static_cast<float>(f.x);
      o[1] = static_cast<float>(f.y);
      o[2] = static_cast<float>(f.z);
    }
  }
  std::string blob("GLEV", 4);
  const std::uint32_t head[2] = {1, static_cast<std::uint32_t>(n)};
  blob.append(reinterpret_cast<const char*>(head), sizeof head);
  blob.append(reinterpret_cast<const char*>(out.data()), out.size() * sizeof(float));
  return blob;
}

}  // namespace glint::view

#include "glint/view/light_setups_json.h"

#include <numbers>
#include <nlohmann/json.hpp>

namespace glint::view {

namespace {

using Json = nlohmann::ordered_json;  // setups keep the file's order

Json vec(Vec3d v) { return Json::array({v.x, v.y, v.z}); }

Json light_json(const Light& l) {
  Json j;
  j["type"] = light_type_name(l.type);
  if (l.type == LightType::Environment) return j;
  j["color"] = vec(l.color);
  if (l.type == LightType::Sun) {
    j["direction_to_light"] = vec(l.direction);
    j["strength_W_per_m2"] = l.strength;
    return j;
  }
  j["position"] = vec(l.position);
  j["intensity_W_per_sr"] = l.intensity;
  if (l.type == LightType::Spot) {
    j["direction"] = vec(l.direction);
    j["cone_angle_deg"] = l.cone_angle * 180 / std::numbers::pi;
    j["blend"] = l.blend;
  }
  return j;
}

}  // namespace

std::string light_setups_to_json(const std::vector<LightSetup>& setups, const std::vector<std::string>& env) {
  Json all = Json::object();
  std::size_t next_env = 0;
  for (const LightSetup& s : setups) {
    Json j;
    j["name"] = s.name;
    j["ambient"] = {{"type", "uniform_world"}, {"strength", s.ambient_strength}, {"color", vec(s.ambient_color)}};
    j["lights"] = Json::array();
    for (const Light& l : s.lights) {
      if (l.type == LightType::Environment && next_env < env.size()) j["lights"].push_back(Json::parse(env[next_env++]));
      else j["lights"].push_back(light_json(l));
    }
    all[s.name] = std::move(j);
  }
  Json doc;
  doc["setups"] = std::move(all);
  return doc.dump();
}

}  // namespace glint::view

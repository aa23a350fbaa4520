#include "glint/view/scene_json.h"

#include <nlohmann/json.hpp>

namespace glint::view {

std::string cameras_to_json(const std::vector<Camera>& cameras, const std::vector<std::string>& split,
                            const std::array<float, 3>& background) {
  nlohmann::json list = nlohmann::json::array();
  for (std::size_t i = 0; i < cameras.size(); ++i) {
    const Camera& c = cameras[i];
    nlohmann::json j;
    j["name"] = c.name;
    j["width"] = c.width;
    j["height"] = c.height;
    j["fx"] = c.fx;
    j["fy"] = c.fy;
    j["cx"] = c.cx;
    j["cy"] = c.cy;
    j["R"] = std::vector<double>(c.R.m, c.R.m + 9);
    j["t"] = {c.t.x, c.t.y, c.t.z};
    j["split"] = i < split.size() ? split[i] : "cameras";
    list.push_back(std::move(j));
  }
  nlohmann::json doc;
  doc["background"] = {background[0], background[1], background[2]};
  doc["cameras"] = std::move(list);
  return doc.dump();
}

}  // namespace glint::view

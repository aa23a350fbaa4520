#include "glint/io/cameras_json.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "glint/core/error.h"
#include "glint/io/atomic_file.h"
#include "glint/io/file_bytes.h"
#include "glint/io/json_file.h"

namespace glint {

using nlohmann::json;

std::string cameras_to_json(const std::vector<Camera>& cameras) {
  json all = json::array();
  int id = 0;
  for (const Camera& c : cameras) {
    Mat3d c2w = transpose(c.R);
    Vec3d p = c.center();
    json rot = json::array();
    for (int r = 0; r < 3; ++r) rot.push_back({c2w(r, 0), c2w(r, 1), c2w(r, 2)});
    all.push_back({{"id", id++},
                   {"img_name", c.name},
                   {"width", c.width},
                   {"height", c.height},
                   {"position", {p.x, p.y, p.z}},
                   {"rotation", rot},
                   {"fx", c.fx},
                   {"fy", c.fy},
                   {"cx", c.cx},
                   {"cy", c.cy}});
  }
  return all.dump(1) + "\n";
}

void write_cameras_json(const std::string& path, const std::vector<Camera>& cameras) {
  write_file_atomic(path, cameras_to_json(cameras));
}

std::vector<Camera> read_cameras_json(const std::string& path) {
  const json all = read_json_file(path);
  if (!all.is_array()) throw Error(path, "expected a JSON array of cameras");
  if (all.empty()) throw Error(path, "no cameras");
  std::vector<Camera> out;
  int index = 0;
  for (const json& j : all) {
    std::string what = path + ": camera " + std::to_string(index++);
    auto num = [&](const char* key) {
      if (!j.is_object() || !j.contains(key) || !j[key].is_number()) throw Error(what, std::string("missing number '") + key + "'");
      double v = j[key].get<double>();
      if (!std::isfinite(v)) throw Error(what, std::string("'") + key + "' is not finite");
      return v;
    };
    Camera c;
    c.name = j.contains("img_name") && j["img_name"].is_string() ? j["img_name"].get<std::string>()
                                                                  : "camera_" + std::to_string(index - 1);
    double w = num("width"), h = num("height");
    if (w < 1 || h < 1 || w > 65536 || h > 65536) throw Error(what, "invalid width/height");
    c.width = static_cast<int>(w);
    c.height = static_cast<int>(h);
    c.fx = num("fx");
    c.fy = num("fy");
    if (!(c.fx > 0 && c.fy > 0)) throw Error(what, "focal length must be positive");
    c.cx = j.contains("cx") ? num("cx") : 0.5 * c.width;
    c.cy = j.contains("cy") ? num("cy") : 0.5 * c.height;
    const json& pos = j.value("position", json());
    const json& rot = j.value("rotation", json());
    if (!pos.is_array() || pos.size() != 3) throw Error(what, "'position' must hold 3 numbers");
    if (!rot.is_array() || rot.size() != 3) throw Error(what, "'rotation' must be a 3x3 matrix");
    Mat3d c2w{};
    for (int r = 0; r < 3; ++r) {
      if (!rot[r].is_array() || rot[r].size() != 3) throw Error(what, "'rotation' must be a 3x3 matrix");
      for (int k = 0; k < 3; ++k) {
        if (!rot[r][k].is_number()) throw Error(what, "'rotation' holds a non-number");
        c2w(r, k) = rot[r][k].get<double>();
      }
    }
    Vec3d centre{};
    for (int k = 0; k < 3; ++k) {
      if (!pos[k].is_number()) throw Error(what, "'position' holds a non-number");
      (&centre.x)[k] = pos[k].get<double>();
    }
    for (double v : c2w.m)
      if (!std::isfinite(v)) throw Error(what, "non-finite rotation");
    Mat3d I = transpose(c2w) * c2w;
    for (int i = 0; i < 9; ++i)
      if (std::abs(I.m[i] - (i % 4 == 0 ? 1.0 : 0.0)) > 1e-3) throw Error(what, "'rotation' is not a rotation");
    c.R = transpose(quat_to_rotmat(rotmat_to_quat(c2w)));
    c.t = -(c.R * centre);
    out.push_back(c);
  }
  return out;
}

}  // namespace glint

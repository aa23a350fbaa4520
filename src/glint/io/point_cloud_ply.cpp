#include "glint/io/point_cloud_ply.h"

#include <algorithm>
#include <cmath>

#include "glint/core/error.h"
#include "glint/io/file_bytes.h"
#include "glint/io/ply_body.h"

namespace glint {

PointCloud read_point_cloud_ply(const std::string& path) {
  const std::string data = read_file_bytes(path);
  const ply::Header h = ply::parse_header(data, path);
  const std::size_t vertex = ply::vertex_element(h, path);
  const ply::Element& e = h.elements[vertex];

  PointCloud pc;
  std::vector<float> colour;
  std::vector<ply::Target> targets(e.props.size());
  bool xyz[3] = {false, false, false}, has_colour = false;
  bool colour_is_float = false;
  for (std::size_t j = 0; j < e.props.size(); ++j) {
    const ply::Property& p = e.props[j];
    if (p.is_list) continue;  // a list property cannot be a coordinate; the reader skips it
    const char* axes[3] = {"x", "y", "z"};
    const char* rgb[3] = {"red", "green", "blue"};
    for (int c = 0; c < 3; ++c) {
      if (p.name == axes[c]) {
        targets[j] = {&pc.xyz, static_cast<std::size_t>(c), 3};
        xyz[c] = true;
      }
      if (p.name == rgb[c]) {
        targets[j] = {&colour, static_cast<std::size_t>(c), 3};
        has_colour = true;
        colour_is_float = !ply::is_integer(p.type);
      }
    }
  }
  if (!xyz[0] || !xyz[1] || !xyz[2]) throw Error(path, "vertex element lacks x, y or z");
  for (const auto& p : e.props)
    if (p.is_list) throw Error(path, "vertex property " + ply::quote(p.name) + " is a list");
  ply::read_vertex_body(
      data, h, vertex, targets,
      [&](std::size_t n) {
        pc.xyz.resize(n * 3);
        colour.assign(n * 3, 128.f);
      },
      path);
  if (pc.size() == 0) throw Error(path, "point cloud is empty (0 points)");
  pc.rgb.resize(colour.size());
  const float scale = has_colour && colour_is_float ? 255.f : 1.f;
  for (std::size_t i = 0; i < colour.size(); ++i)
    pc.rgb[i] = static_cast<std::uint8_t>(std::clamp(std::lround(colour[i] * scale), 0L, 255L));
  return pc;
}

}  // namespace glint

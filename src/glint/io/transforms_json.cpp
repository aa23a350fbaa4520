#include "glint/io/transforms_json.h"

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "glint/core/error.h"
#include "glint/io/file_bytes.h"
#include "glint/io/json_file.h"

namespace glint {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// A numeric key from the frame, else from the file's top level.
bool lookup(const json& frame, const json& top, const char* key, double& out, const std::string& what) {
  const json* src = frame.contains(key) ? &frame : (top.contains(key) ? &top : nullptr);
  if (!src) return false;
  const json& v = (*src)[key];
  if (!v.is_number()) throw Error(what, std::string("'") + key + "' is not a number");
  out = v.get<double>();
  if (!std::isfinite(out)) throw Error(what, std::string("'") + key + "' is not finite");
  return true;
}

// Frames name their image with or without an extension (Blender sets omit ".png").
std::string resolve_image(const fs::path& base, const std::string& file_path) {
  fs::path p = base / file_path;
  std::error_code ec;
  if (fs::exists(p, ec) || p.has_extension()) return p.lexically_normal().string();
  for (const char* ext : {".png", ".jpg", ".jpeg", ".PNG", ".JPG", ".JPEG"}) {
    fs::path q = p;
    q += ext;
    if (fs::exists(q, ec)) return q.lexically_normal().string();
  }
  return p.lexically_normal().string();  // reported as missing when the image is read
}

}  // namespace

TransformsFile read_transforms_json(const std::string& path) {
  json top = read_json_file(path);
  if (!top.is_object()) throw Error(path, "expected a JSON object at the top level");
  if (!top.contains("frames") || !top["frames"].is_array()) throw Error(path, "missing 'frames' array");
  if (top.contains("camera_model") && top["camera_model"].is_string()) {
    std::string model = top["camera_model"].get<std::string>();
    if (model != "OPENCV" && model != "PINHOLE")
      throw Error(path, "camera_model '" + model + "' is not supported (supported: OPENCV, PINHOLE)");
  }
  const fs::path base = fs::path(path).parent_path();
  TransformsFile out;
  if (top.contains("ply_file_path") && top["ply_file_path"].is_string())
    out.ply_path = (base / top["ply_file_path"].get<std::string>()).lexically_normal().string();

  int index = 0;
  for (const json& frame : top["frames"]) {
    std::string what = path + ": frame " + std::to_string(index++);
    if (!frame.is_object()) throw Error(what, "frame is not an object");
    if (!frame.contains("file_path") || !frame["file_path"].is_string()) throw Error(what, "missing 'file_path'");
    PosedImage pi;
    pi.name = frame["file_path"].get<std::string>();
    pi.path = resolve_image(base, pi.name);
    // nerfstudio's per-frame mask (black = ignore)
    if (frame.contains("mask_path") && frame["mask_path"].is_string())
      pi.mask_path = (base / frame["mask_path"].get<std::string>()).lexically_normal().string();
    what = path + ": frame '" + pi.name + "'";

    if (!frame.contains("transform_matrix")) throw Error(what, "missing 'transform_matrix'");
    const json& m = frame["transform_matrix"];
    if (!m.is_array() || (m.size() != 4 && m.size() != 3)) throw Error(what, "transform_matrix must be 3x4 or 4x4");
    double c2w[3][4];
    for (int r = 0; r < 3; ++r) {
      if (!m[r].is_array() || m[r].size() != 4) throw Error(what, "transform_matrix rows must have 4 numbers");
      for (int c = 0; c < 4; ++c) {
        if (!m[r][c].is_number()) throw Error(what, "transform_matrix holds a non-number");
        c2w[r][c] = m[r][c].get<double>();
      }
    }
    pose_from_opengl_c2w(c2w, what, pi.R, pi.t);

    double w = 0, h = 0, v = 0;
    lookup(frame, top, "w", w, what);
    lookup(frame, top, "h", h, what);
    if (w < 0 || h < 0 || w > 65536 || h > 65536) throw Error(what, "invalid image size in 'w'/'h'");
    pi.lens.k.width = static_cast<int>(std::lround(w));
    pi.lens.k.height = static_cast<int>(std::lround(h));
    bool has_fx = lookup(frame, top, "fl_x", pi.lens.k.fx, what);
    bool has_fy = lookup(frame, top, "fl_y", pi.lens.k.fy, what);
    if (has_fx && !has_fy) pi.lens.k.fy = pi.lens.k.fx;
    if (!has_fx && has_fy) pi.lens.k.fx = pi.lens.k.fy;
    if (!has_fx && !has_fy) {
      if (!lookup(frame, top, "camera_angle_x", pi.fov_x, what))
        throw Error(what, "no focal length: needs 'fl_x' or 'camera_angle_x'");
      if (!(pi.fov_x > 0 && pi.fov_x < M_PI)) throw Error(what, "camera_angle_x must be in (0, pi)");
      lookup(frame, top, "camera_angle_y", pi.fov_y, what);
      pi.focal_from_fov = true;
    } else if (!(pi.lens.k.fx > 0) || !(pi.lens.k.fy > 0)) {
      throw Error(what, "focal length must be positive");
    }
    // Principal point defaults to the centre once the size is known (-1 = unset).
    pi.lens.k.cx = lookup(frame, top, "cx", v, what) ? v : -1;
    pi.lens.k.cy = lookup(frame, top, "cy", v, what) ? v : -1;
    Distortion& d = pi.lens.dist;
    lookup(frame, top, "k1", d.k1, what);
    lookup(frame, top, "k2", d.k2, what);
    lookup(frame, top, "k3", d.k3, what);
    lookup(frame, top, "k4", d.k4, what);
    lookup(frame, top, "p1", d.p1, what);
    lookup(frame, top, "p2", d.p2, what);
    if (d.k4 != 0) throw Error(what, "k4 (fisheye distortion) is not supported");
    pi.lens.model = d.is_identity() ? "PINHOLE" : "OPENCV";
    out.frames.push_back(std::move(pi));
  }
  if (out.frames.empty()) throw Error(path, "'frames' is empty");
  return out;
}

}  // namespace glint

#pragma once
// COLMAP sparse models (cameras, images, points3D) in binary or text form.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "glint/core/math.h"
#include "glint/io/lens.h"

namespace glint {

struct ColmapImage {
  std::uint32_t id = 0;
  Quatd q{1, 0, 0, 0};  // world-to-camera rotation, w x y z
  Vec3d t{0, 0, 0};     // world-to-camera translation
  std::uint32_t camera_id = 0;
  std::string name;
};

struct PointCloud {
  std::vector<float> xyz;         // [N,3]
  std::vector<std::uint8_t> rgb;  // [N,3]
  std::size_t size() const { return xyz.size() / 3; }
};

struct ColmapModel {
  std::map<std::uint32_t, SourceCamera> cameras;
  std::vector<ColmapImage> images;
  PointCloud points;
  bool binary = true;
};

// True when `dir` holds cameras/images/points3D as .bin or .txt.
bool has_colmap_model(const std::string& dir);

// Reads the model in `dir` (binary preferred when both exist) and checks it: cameras that
// images refer to exist, poses and intrinsics are finite, camera models are supported.
ColmapModel read_colmap_model(const std::string& dir);

// Single-file parsers on in-memory bytes (`name` is used in error messages); exposed so
// the fuzzers reach them directly.
std::map<std::uint32_t, SourceCamera> parse_cameras_bin(const std::string& bytes, const std::string& name);
std::vector<ColmapImage> parse_images_bin(const std::string& bytes, const std::string& name);
PointCloud parse_points3d_bin(const std::string& bytes, const std::string& name);
std::map<std::uint32_t, SourceCamera> parse_cameras_txt(const std::string& text, const std::string& name);
std::vector<ColmapImage> parse_images_txt(const std::string& text, const std::string& name);
PointCloud parse_points3d_txt(const std::string& text, const std::string& name);

// The lens of a COLMAP camera model from its parameter list. Throws glint::Error naming
// `what` for an unknown model, a wrong parameter count or non-finite / non-positive values.
SourceCamera make_source_camera(const std::string& model, long long width, long long height,
                                const std::vector<double>& params, const std::string& what);

}  // namespace glint

#include "glint/light/geometry.h"

#include "glint/core/error.h"

namespace glint {
namespace {

void require(const ImageF& img, int channels, const char* what) {
  if (img.channels != channels || img.data.size() != static_cast<std::size_t>(img.width) * img.height * channels)
    throw Error(std::string(what) + ": expected a " + std::to_string(channels) + "-channel image");
}

ImageF rotate(const Mat3d& M, const ImageF& in) {
  require(in, 3, "normal image");
  ImageF out(in.width, in.height, 3);
  const long n = static_cast<long>(in.width) * in.height;
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) {
    Vec3f v = load3(in.data.data(), i);
    Vec3d r = M * Vec3d{v.x, v.y, v.z};
    store3(out.data.data(), i, Vec3f{float(r.x), float(r.y), float(r.z)});
  }
  return out;
}

}  // namespace

ImageF camera_points_from_depth(const Camera& cam, const ImageF& depth) {
  require(depth, 1, "depth image");
  ImageF out(depth.width, depth.height, 3);
#pragma omp parallel for schedule(static)
  for (int y = 0; y < depth.height; ++y)
    for (int x = 0; x < depth.width; ++x) {
      const float z = depth.at(x, y, 0);
      if (!valid_depth(z)) continue;
      Vec3d p = backproject(cam, x, y, z);
      store3(out.data.data(), static_cast<long>(y) * depth.width + x, Vec3f{float(p.x), float(p.y), float(p.z)});
    }
  return out;
}

ImageF world_positions_from_depth(const Camera& cam, const ImageF& depth) {
  require(depth, 1, "depth image");
  // Every pixel is written below, on every thread: no clearing pass first.
  ImageF out = ImageF::uninitialized(depth.width, depth.height, 3);
  const Mat3d Rt = transpose(cam.R);
#pragma omp parallel for schedule(static)
  for (int y = 0; y < depth.height; ++y)
    for (int x = 0; x < depth.width; ++x) {
      const float z = depth.at(x, y, 0);
      if (!valid_depth(z)) {
        store3(out.data.data(), static_cast<long>(y) * depth.width + x, Vec3f{0.f, 0.f, 0.f});
        continue;
      }
      Vec3d p = Rt * (backproject(cam, x, y, z) - cam.t);
      store3(out.data.data(), static_cast<long>(y) * depth.width + x, Vec3f{float(p.x), float(p.y), float(p.z)});
    }
  return out;
}

ImageF normals_to_world(const Camera& cam, const ImageF& n) { return rotate(transpose(cam.R), n); }
ImageF normals_to_camera(const Camera& cam, const ImageF& n) { return rotate(cam.R, n); }

}  // namespace glint

#include "glint/light/environment_map.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numbers>

#include "glint/core/error.h"
#include "glint/io/exr.h"
#include "glint/io/hdr.h"
#include "glint/io/pfm.h"

namespace glint {

namespace {
constexpr double kPi = std::numbers::pi;

Vec3d rotate_z(Vec3d v, double a) {
  const double c = std::cos(a), s = std::sin(a);
  return {c * v.x - s * v.y, s * v.x + c * v.y, v.z};
}

// Azimuth and elevation bounds of a texel in the map frame.
void texel_bounds(int W, int H, int row, int col, double& phi0, double& phi1, double& e0, double& e1) {
  phi0 = (0.5 - (col + 1.0) / W) * 2 * kPi;
  phi1 = (0.5 - static_cast<double>(col) / W) * 2 * kPi;
  e0 = (0.5 - (row + 1.0) / H) * kPi;
  e1 = (0.5 - static_cast<double>(row) / H) * kPi;
}
}  // namespace

Vec3d env_map_to_world(const EnvironmentMap& env, Vec3d m) { return rotate_z(m, env.rotation_z); }

EnvTexel env_texel_of(const EnvironmentMap& env, Vec3d w) {
  const int W = env.width(), H = env.height();
  const Vec3d m = normalize(rotate_z(w, -env.rotation_z));
  double u = 0.5 - std::atan2(m.y, m.x) / (2 * kPi);
  u -= std::floor(u);
  const double v = 0.5 + std::asin(std::clamp(m.z, -1.0, 1.0)) / kPi;
  EnvTexel t;
  t.col = static_cast<int>(std::floor(u * W)) % W;
  t.row = H - 1 - std::min(static_cast<int>(std::floor(v * H)), H - 1);
  return t;
}

Vec3d env_radiance(const EnvironmentMap& env, Vec3d w) {
  const EnvTexel t = env_texel_of(env, w);
  const float* p = &env.texels.data[(static_cast<std::size_t>(t.row) * env.width() + t.col) * 3];
  return env.strength * Vec3d{p[0], p[1], p[2]};
}

double env_texel_solid_angle(int W, int H, int row) {
  double p0, p1, e0, e1;
  texel_bounds(W, H, row, 0, p0, p1, e0, e1);
  return (std::sin(e1) - std::sin(e0)) * (p1 - p0);
}

Vec3d env_texel_moment(int W, int H, int row, int col) {
  double p0, p1, e0, e1;
  texel_bounds(W, H, row, col, p0, p1, e0, e1);
  // w = (cos e cos phi, cos e sin phi, sin e), dw = cos e de dphi.
  const double cc = 0.5 * (e1 - e0) + 0.25 * (std::sin(2 * e1) - std::sin(2 * e0));  // int cos^2 e
  const double sc = 0.5 * (std::sin(e1) * std::sin(e1) - std::sin(e0) * std::sin(e0));  // int sin e cos e
  return {cc * (std::sin(p1) - std::sin(p0)), cc * (std::cos(p0) - std::cos(p1)), sc * (p1 - p0)};
}

Vec3d env_texel_direction(const EnvironmentMap& env, int row, int col) {
  return env_map_to_world(env, normalize(env_texel_moment(env.width(), env.height(), row, col)));
}

void check_environment_map(const EnvironmentMap& env, const std::string& name) {
  const ImageF& t = env.texels;
  if (t.channels != 3) throw Error(name, "environment map must have 3 channels (RGB), has " + std::to_string(t.channels));
  if (t.height < 2 || t.width != 2 * t.height)
    throw Error(name, "equirectangular environment map must be 2H x H, is " + std::to_string(t.width) + "x" +
                          std::to_string(t.height));
  if (t.data.size() != static_cast<std::size_t>(t.width) * t.height * 3) throw Error(name, "environment map data size mismatch");
  for (float v : t.data)
    if (!(std::isfinite(v) && v >= 0)) throw Error(name, "environment map has a negative or non-finite texel");
  if (!(std::isfinite(env.strength) && env.strength >= 0)) throw Error(name, "environment strength must be finite and >= 0");
  if (!std::isfinite(env.rotation_z)) throw Error(name, "environment rotation is not finite");
}

EnvironmentMap read_environment_map(const std::string& path, double strength, double rotation_z_deg) {
  EnvironmentMap env;
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".pfm")
    env.texels = read_pfm(path);
  else if (ext == ".hdr")
    env.texels = read_radiance_hdr(path);
  else if (ext == ".exr")
    env.texels = read_openexr(path);
  else
    throw Error(path, "unsupported environment map format '" + ext + "' (.pfm, .hdr or .exr)");
  env.strength = strength;
  env.rotation_z = rotation_z_deg * kPi / 180;
  env.file = path;
  check_environment_map(env, path);
  return env;
}

}  // namespace glint

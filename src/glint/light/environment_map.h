#pragma once
// An equirectangular HDR environment map with the relight dataset's mapping (its README,
// "Environment model", verified against Blender 3.4 Cycles, Environment Texture with
// Closest interpolation: the radiance is constant over each texel). For a unit world
// direction w and rotation theta about +Z:
//   m = R_z(-theta) w
//   u = 0.5 - atan2(m_y, m_x) / (2 pi)  (mod 1)     v = 0.5 + asin(m_z) / pi
//   col = floor(u W) mod W,   row from the top = H - 1 - min(floor(v H), H - 1)
//   radiance(w) = strength * texel[row, col]
// Texel (row, col) is therefore the lat-long rectangle of map-frame azimuth
// phi = atan2(m_y, m_x) in [(0.5 - (col+1)/W) 2pi, (0.5 - col/W) 2pi] and elevation
// asin(m_z) in [(0.5 - (row+1)/H) pi, (0.5 - row/H) pi].
#include <string>

#include "glint/core/image.h"
#include "glint/core/math.h"

namespace glint {

struct EnvironmentMap {
  ImageF texels;          // [H,W,3] linear radiance, row 0 = zenith
  double strength = 1;    // multiplies every texel
  double rotation_z = 0;  // radians, counter-clockwise about +Z
  std::string file;       // for messages

  int width() const { return texels.width; }
  int height() const { return texels.height; }
};

struct EnvTexel {
  int row = 0, col = 0;
};

// The texel the mapping above picks for world direction w (need not be unit, non-zero).
EnvTexel env_texel_of(const EnvironmentMap& env, Vec3d w);
// strength * texel colour in direction w.
Vec3d env_radiance(const EnvironmentMap& env, Vec3d w);

// Map frame <-> world frame: world = R_z(theta) map.
Vec3d env_map_to_world(const EnvironmentMap& env, Vec3d m);

// Solid angle of a texel of `row` (all texels of a row are equal): (sin e1 - sin e0) 2pi/W.
double env_texel_solid_angle(int width, int height, int row);
// First moment integral over the texel of w dw, in the MAP frame. For any n with the
// whole texel above its horizon, integral_texel max(0, n.w) dw = n . moment exactly.
Vec3d env_texel_moment(int width, int height, int row, int col);
// The unit direction of a texel's moment, in the world frame (its "centre").
Vec3d env_texel_direction(const EnvironmentMap& env, int row, int col);

// Reads .pfm (3-channel), Radiance .hdr or OpenEXR .exr; `strength` >= 0 and finite. Throws glint::Error
// naming the file for a missing/undecodable file, a 1-channel PFM, a size other than
// W = 2H, or negative / non-finite texels.
EnvironmentMap read_environment_map(const std::string& path, double strength = 1, double rotation_z_deg = 0);
// Validates an in-memory map the same way (name used in messages).
void check_environment_map(const EnvironmentMap& env, const std::string& name);

}  // namespace glint

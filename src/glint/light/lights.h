#pragma once
// Light sources and their irradiance at a surface point, in the units the relight dataset
// was verified with against Blender (docs/LIGHTING.md):
//   point: E = I max(0, n.w) / d^2, I in W/sr (Blender power P [W] gives I = P / 4pi)
//   spot : the point formula times Blender's cone factor c * smoothstep (spot_falloff)
//   sun  : E = S max(0, n.s), S in W/m^2, s the unit direction TO the light
//   environment: an HDR map of radiance around the scene (environment_map.h); shaded
//          through light/environment_light.h, which turns it into suns plus a residual
// A setup's ambient is a uniform white-ish world of radiance strength*colour, which an
// unoccluded Lambert surface reflects as albedo*strength*colour.
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "glint/core/math.h"
#include "glint/light/environment_map.h"

namespace glint {

enum class LightType { Point, Spot, Sun, Environment };
const char* light_type_name(LightType t);

struct Light {
  LightType type = LightType::Point;
  Vec3d color{1, 1, 1};
  Vec3d position{0, 0, 0};   // point, spot
  double intensity = 0;      // point, spot: radiant intensity [W/sr]
  Vec3d direction{0, 0, 1};  // sun: unit direction TO the light; spot: unit direction the light points
  double strength = 0;       // sun: irradiance on a surface facing it [W/m^2]
  double cone_angle = 0;     // spot: full opening angle [rad], as Blender's spot_size
  double blend = 0;          // spot: 0 = hard edge .. 1 = falloff across the whole cone
  std::shared_ptr<const EnvironmentMap> environment;  // environment: the map (strength, rotation inside)

  static Light point(Vec3d position, double intensity_W_per_sr, Vec3d color = {1, 1, 1});
  static Light point_from_power(Vec3d position, double power_W, Vec3d color = {1, 1, 1});
  static Light spot(Vec3d position, Vec3d direction, double intensity_W_per_sr, double cone_angle_rad,
                    double blend, Vec3d color = {1, 1, 1});
  static Light sun(Vec3d direction_to_light, double strength_W_per_m2, Vec3d color = {1, 1, 1});
  static Light environment_light(EnvironmentMap map, Vec3d color = {1, 1, 1});
};

// I = P / (4 pi): Blender's point (and spot) power is the power of an isotropic emitter.
double intensity_from_power(double power_W);

struct LightSetup {
  std::string name;
  Vec3d ambient_color{1, 1, 1};
  double ambient_strength = 0;  // radiance of the uniform world
  std::vector<Light> lights;
  Vec3d ambient() const { return ambient_strength * ambient_color; }
};

// Unit vector from x towards the light (for a sun: its direction, whatever x).
Vec3d direction_to_light(const Light& light, Vec3d x);
// Distance from x to the light; +infinity for a sun.
double distance_to_light(const Light& light, Vec3d x);
// Spot factor at x, Cycles 3.4's (datasets/relight/README.md, "Spot model"): with c the
// cosine between the spot axis and x - p, cos_half = cos(cone/2), s = blend (1 - cos_half):
// 0 for c <= cos_half, c * smoothstep((c - cos_half) / s) in the band, c beyond it. The
// factor c makes a spot darker off its axis than a masked point light. 1 for other types.
double spot_falloff(const Light& light, Vec3d x);
// Irradiance [W/m^2] at x on a surface with unit normal n, visibility not included; 0 for
// an environment light (its irradiance is a colour: environment_light.h).
double irradiance(const Light& light, Vec3d x, Vec3d n);

// Reads the relight dataset's relit/lights.json as is, or the Glint format described in
// docs/LIGHTING.md (a single setup object, or {"setups": {name: setup, ...}}), keeping the
// file's setup order. Throws glint::Error naming the file, setup and light index for
// missing, non-finite, negative or unknown values. An environment light's "file" is read
// relative to the light file's folder (errors name the map file).
std::vector<LightSetup> read_lights_json(const std::string& path);
std::vector<LightSetup> parse_lights_json(const std::string& text, const std::string& name);
// Several light files in the given order; a folder stands for its *.json files in name
// order (the relight dataset's relit/: lights.json, then lights_extra.json). Throws
// glint::Error when a path does not exist, a folder has no .json file, or two files name
// the same setup.
std::vector<LightSetup> read_lights_files(const std::vector<std::string>& paths);

}  // namespace glint

#include "glint/light/lights.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <numbers>
#include <utility>

#include "glint/core/error.h"
#include "glint/io/file_bytes.h"

namespace glint {

const char* light_type_name(LightType t) {
  switch (t) {
    case LightType::Point: return "point";
    case LightType::Spot: return "spot";
    case LightType::Sun: return "sun";
    case LightType::Environment: return "environment";
  }
  return "?";
}

double intensity_from_power(double power_W) { return power_W / (4 * std::numbers::pi); }

Light Light::point(Vec3d position, double intensity_W_per_sr, Vec3d color) {
  Light l;
  l.type = LightType::Point;
  l.position = position;
  l.intensity = intensity_W_per_sr;
  l.color = color;
  return l;
}

Light Light::point_from_power(Vec3d position, double power_W, Vec3d color) {
  return point(position, intensity_from_power(power_W), color);
}

Light Light::spot(Vec3d position, Vec3d direction, double intensity_W_per_sr, double cone_angle_rad, double blend,
                  Vec3d color) {
  Light l = point(position, intensity_W_per_sr, color);
  l.type = LightType::Spot;
  l.direction = normalize(direction);
  l.cone_angle = cone_angle_rad;
  l.blend = blend;
  return l;
}

Light Light::sun(Vec3d direction_to_light, double strength_W_per_m2, Vec3d color) {
  Light l;
  l.type = LightType::Sun;
  l.direction = normalize(direction_to_light);
  l.strength = strength_W_per_m2;
  l.color = color;
  return l;
}

Light Light::environment_light(EnvironmentMap map, Vec3d color) {
  Light l;
  l.type = LightType::Environment;
  l.color = color;
  l.environment = std::make_shared<const EnvironmentMap>(std::move(map));
  return l;
}

Vec3d direction_to_light(const Light& light, Vec3d x) {
  if (light.type == LightType::Sun) return light.direction;
  return normalize(light.position - x);
}

double distance_to_light(const Light& light, Vec3d x) {
  if (light.type == LightType::Sun) return std::numeric_limits<double>::infinity();
  return norm(light.position - x);
}

double spot_falloff(const Light& light, Vec3d x) {
  if (light.type != LightType::Spot) return 1;
  // Blender's parameterisation: the blend widens the soft band inwards by blend*(1-cos_outer)
  // in cosine, so blend=1 fades over the whole cone and blend=0 is a hard edge.
  const double cos_outer = std::cos(0.5 * light.cone_angle);
  const double cos_inner = cos_outer + light.blend * (1 - cos_outer);
  const double c = dot(light.direction, normalize(x - light.position));
  if (c <= cos_outer) return 0;
  if (c >= cos_inner) return c;
  const double t = (c - cos_outer) / (cos_inner - cos_outer);
  return c * t * t * (3 - 2 * t);
}

double irradiance(const Light& light, Vec3d x, Vec3d n) {
  if (light.type == LightType::Environment) return 0;
  if (light.type == LightType::Sun) return light.strength * std::max(0.0, dot(n, light.direction));
  const Vec3d d = light.position - x;
  const double d2 = dot(d, d);
  if (!(d2 > 0)) return 0;  // a surface point on the light has no defined direction
  const double cos_theta = dot(n, d) / std::sqrt(d2);
  if (cos_theta <= 0) return 0;
  return light.intensity * cos_theta / d2 * spot_falloff(light, x);
}

// ---------------------------------------------------------------------------------------
// JSON reading

namespace {

using Json = nlohmann::ordered_json;  // ordered: setups keep the file's order (scoring order)

struct Ctx {
  const std::string& file;
  std::string where;  // "setup 'x' light 2"
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(file, where.empty() ? what : where + ": " + what);
  }
};

double get_number(const Json& j, const char* key, const Ctx& ctx) {
  auto it = j.find(key);
  if (it == j.end()) ctx.fail(std::string("missing '") + key + "'");
  if (!it->is_number()) ctx.fail(std::string("'") + key + "' must be a number");
  double v = it->get<double>();
  if (!std::isfinite(v)) ctx.fail(std::string("'") + key + "' is not finite");
  return v;
}

double get_nonneg(const Json& j, const char* key, const Ctx& ctx) {
  double v = get_number(j, key, ctx);
  if (v < 0) ctx.fail(std::string("'") + key + "' must be >= 0, got " + std::to_string(v));
  return v;
}

Vec3d get_vec3(const Json& j, const char* key, const Ctx& ctx) {
  auto it = j.find(key);
  if (it == j.end()) ctx.fail(std::string("missing '") + key + "'");
  if (!it->is_array() || it->size() != 3) ctx.fail(std::string("'") + key + "' must be an array of 3 numbers");
  double v[3];
  for (int i = 0; i < 3; ++i) {
    if (!(*it)[i].is_number()) ctx.fail(std::string("'") + key + "' must be an array of 3 numbers");
    v[i] = (*it)[i].get<double>();
    if (!std::isfinite(v[i])) ctx.fail(std::string("'") + key + "' has a non-finite component");
  }
  return {v[0], v[1], v[2]};
}

Vec3d get_color(const Json& j, const Ctx& ctx) {
  if (!j.contains("color")) return {1, 1, 1};
  Vec3d c = get_vec3(j, "color", ctx);
  if (c.x < 0 || c.y < 0 || c.z < 0) ctx.fail("'color' components must be >= 0");
  return c;
}

Vec3d get_direction(const Json& j, const char* key, const Ctx& ctx) {
  Vec3d d = get_vec3(j, key, ctx);
  double n = norm(d);
  if (!(n > 1e-12)) ctx.fail(std::string("'") + key + "' must be a non-zero vector");
  return (1 / n) * d;
}

// Point and spot lights accept the intensity, the Blender power or both; with both they
// must agree, since a silently preferred value would hide a units mistake in the file.
double get_intensity(const Json& j, const Ctx& ctx) {
  const bool has_i = j.contains("intensity_W_per_sr"), has_p = j.contains("power_W");
  if (!has_i && !has_p) ctx.fail("needs 'intensity_W_per_sr' or 'power_W'");
  double from_p = has_p ? intensity_from_power(get_nonneg(j, "power_W", ctx)) : 0;
  if (!has_i) return from_p;
  double i = get_nonneg(j, "intensity_W_per_sr", ctx);
  if (has_p && std::abs(i - from_p) > 1e-4 * std::max(i, from_p) + 1e-12)
    ctx.fail("'intensity_W_per_sr' " + std::to_string(i) + " disagrees with 'power_W'/(4 pi) = " +
             std::to_string(from_p));
  return i;
}

Light parse_light(const Json& j, const Ctx& ctx) {
  if (!j.is_object()) ctx.fail("must be an object");
  auto t = j.find("type");
  if (t == j.end() || !t->is_string()) ctx.fail("missing 'type' (point, spot, sun or environment)");
  const std::string type = t->get<std::string>();
  Light l;
  l.color = get_color(j, ctx);
  if (type == "point") {
    l.type = LightType::Point;
    l.position = get_vec3(j, "position", ctx);
    l.intensity = get_intensity(j, ctx);
  } else if (type == "spot") {
    l.type = LightType::Spot;
    l.position = get_vec3(j, "position", ctx);
    // The relight dataset's lights_extra.json names Blender's fields (axis, spot_size_deg,
    // spot_blend); either spelling is read, and both must agree when given.
    const bool has_dir = j.contains("direction"), has_axis = j.contains("axis");
    if (!has_dir && !has_axis) ctx.fail("missing 'direction' (or 'axis')");
    l.direction = get_direction(j, has_dir ? "direction" : "axis", ctx);
    if (has_dir && has_axis && dot(l.direction, get_direction(j, "axis", ctx)) < 0.9999)
      ctx.fail("'direction' and 'axis' disagree");
    l.intensity = get_intensity(j, ctx);
    const bool has_cone = j.contains("cone_angle_deg"), has_size = j.contains("spot_size_deg");
    if (!has_cone && !has_size) ctx.fail("missing 'cone_angle_deg' (or 'spot_size_deg')");
    double deg = get_number(j, has_cone ? "cone_angle_deg" : "spot_size_deg", ctx);
    if (has_cone && has_size && std::abs(deg - get_number(j, "spot_size_deg", ctx)) > 1e-6)
      ctx.fail("'cone_angle_deg' and 'spot_size_deg' disagree");
    if (!(deg > 0 && deg <= 180)) ctx.fail("'cone_angle_deg' must be in (0, 180]");
    l.cone_angle = deg * std::numbers::pi / 180;
    // spot_size_rad is the unrounded angle when the file has it (spot_size_deg is rounded).
    if (j.contains("spot_size_rad")) {
      const double rad = get_number(j, "spot_size_rad", ctx);
      if (std::abs(rad - l.cone_angle) > 1e-3) ctx.fail("'spot_size_rad' disagrees with the cone angle in degrees");
      l.cone_angle = rad;
    }
    const bool has_blend = j.contains("blend"), has_sb = j.contains("spot_blend");
    l.blend = has_blend ? get_number(j, "blend", ctx) : has_sb ? get_number(j, "spot_blend", ctx) : 0.0;
    if (has_blend && has_sb && std::abs(l.blend - get_number(j, "spot_blend", ctx)) > 1e-9)
      ctx.fail("'blend' and 'spot_blend' disagree");
    if (l.blend < 0 || l.blend > 1) ctx.fail("'blend' must be in [0, 1]");
  } else if (type == "sun") {
    l.type = LightType::Sun;
    const bool has_to = j.contains("direction_to_light"), has_of = j.contains("direction_of_travel");
    if (!has_to && !has_of) ctx.fail("missing 'direction_to_light'");
    l.direction = has_to ? get_direction(j, "direction_to_light", ctx) : -get_direction(j, "direction_of_travel", ctx);
    if (has_to && has_of && dot(l.direction, get_direction(j, "direction_of_travel", ctx)) > -0.9999)
      ctx.fail("'direction_of_travel' is not the opposite of 'direction_to_light'");
    l.strength = get_nonneg(j, "strength_W_per_m2", ctx);
  } else if (type == "environment") {
    auto f = j.find("file");
    if (f == j.end() || !f->is_string() || f->get<std::string>().empty()) ctx.fail("missing 'file' (the environment map)");
    if (auto it = j.find("interpolation"); it != j.end() && (!it->is_string() || it->get<std::string>() != "closest"))
      ctx.fail("only 'interpolation': 'closest' is supported");
    const double strength = j.contains("strength") ? get_nonneg(j, "strength", ctx) : 1.0;
    const double rot = j.contains("rotation_z_deg") ? get_number(j, "rotation_z_deg", ctx) : 0.0;
    std::filesystem::path file(f->get<std::string>());
    if (file.is_relative()) file = std::filesystem::path(ctx.file).parent_path() / file;
    const Vec3d color = l.color;
    l = Light::environment_light(read_environment_map(file.string(), strength, rot), color);
  } else {
    ctx.fail("unknown light type '" + type + "' (point, spot, sun or environment)");
  }
  return l;
}

LightSetup parse_setup(const Json& j, const std::string& name, const std::string& file) {
  Ctx ctx{file, "setup '" + name + "'"};
  if (!j.is_object()) ctx.fail("must be an object");
  LightSetup s;
  s.name = name;
  if (auto a = j.find("ambient"); a != j.end()) {
    Ctx actx{file, ctx.where + " ambient"};
    if (!a->is_object()) actx.fail("must be an object");
    bool none = false;
    if (auto t = a->find("type"); t != a->end()) {
      const std::string at = t->is_string() ? t->get<std::string>() : "";
      none = at == "none";
      if (!none && at != "uniform_world" && at != "uniform") actx.fail("unknown ambient type (uniform_world or none)");
    }
    if (none) {
      // The dataset's env setup writes "none" with strength 0 and colour 0.
      if (a->contains("strength") && get_nonneg(*a, "strength", actx) != 0) actx.fail("type 'none' needs strength 0");
    } else {
      s.ambient_strength = get_nonneg(*a, "strength", actx);
      s.ambient_color = get_color(*a, actx);
    }
  }
  auto ls = j.find("lights");
  if (ls != j.end()) {
    if (!ls->is_array()) ctx.fail("'lights' must be an array");
    for (std::size_t i = 0; i < ls->size(); ++i)
      s.lights.push_back(parse_light((*ls)[i], Ctx{file, ctx.where + " light " + std::to_string(i)}));
  }
  if (s.lights.empty() && s.ambient_strength == 0) ctx.fail("has neither lights nor ambient");
  return s;
}



// Python's json module writes NaN / Infinity / -Infinity, which JSON does not allow (the
// dataset's lights_extra.json has them in its verification tables). Outside strings they
// become null: a light key that needs a number then fails as "must be a number".
std::string python_json_literals_to_null(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) out += text[++i];
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    bool replaced = false;
    for (const char* lit : {"-Infinity", "Infinity", "NaN"}) {
      const std::size_t n = std::char_traits<char>::length(lit);
      if (text.compare(i, n, lit) == 0) {
        out += "null";
        i += n - 1;
        replaced = true;
        break;
      }
    }
    if (!replaced) out += c;
  }
  return out;
}

}  // namespace

std::vector<LightSetup> parse_lights_json(const std::string& text, const std::string& name) {
  Json root;
  try {
    root = Json::parse(python_json_literals_to_null(text));
  } catch (const nlohmann::json::exception& e) {
    throw Error(name, std::string("invalid JSON: ") + e.what());
  }
  if (!root.is_object()) throw Error(name, "expected a JSON object");
  std::vector<LightSetup> out;
  if (auto s = root.find("setups"); s != root.end()) {
    if (!s->is_object() || s->empty()) throw Error(name, "'setups' must be a non-empty object of named setups");
    for (auto it = s->begin(); it != s->end(); ++it) out.push_back(parse_setup(it.value(), it.key(), name));
  } else {
    std::string setup_name = std::filesystem::path(name).stem().string();
    if (auto n = root.find("name"); n != root.end() && n->is_string()) setup_name = n->get<std::string>();
    out.push_back(parse_setup(root, setup_name, name));
  }
  return out;
}

std::vector<LightSetup> read_lights_json(const std::string& path) {
  return parse_lights_json(read_file_bytes(path), path);
}

std::vector<LightSetup> read_lights_files(const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (!fs::is_directory(p, ec)) {
      files.push_back(p);  // a missing file is reported by the reader
      continue;
    }
    std::vector<std::string> in_dir;
    for (const auto& e : fs::directory_iterator(p, ec))
      if (e.is_regular_file() && e.path().extension() == ".json") in_dir.push_back(e.path().string());
    if (ec) throw Error(p, "cannot list the folder: " + ec.message());
    if (in_dir.empty()) throw Error(p, "folder holds no .json light file");
    std::sort(in_dir.begin(), in_dir.end());
    files.insert(files.end(), in_dir.begin(), in_dir.end());
  }
  std::vector<LightSetup> out;
  std::vector<std::string> from;
  for (const std::string& f : files)
    for (LightSetup& s : read_lights_json(f)) {
      for (std::size_t i = 0; i < out.size(); ++i)
        if (out[i].name == s.name) throw Error(f, "setup '" + s.name + "' is also defined in " + from[i]);
      out.push_back(std::move(s));
      from.push_back(f);
    }
  return out;
}

}  // namespace glint

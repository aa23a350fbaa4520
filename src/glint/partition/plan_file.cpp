#include "glint/partition/plan_file.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "glint/core/error.h"
#include "glint/io/atomic_file.h"
#include "glint/io/json_file.h"

namespace glint::partition {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int kPlanVersion = 1;

json vec_json(Vec3d v) { return json::array({v.x, v.y, v.z}); }
json rect_json(const GroundRect& r) { return {{"u", {r.u0, r.u1}}, {"v", {r.v0, r.v1}}}; }

// Field readers that name the file and the place of a bad value.
class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw Error(path_, where.empty() ? what : where + ": " + what);
  }
  const json& field(const json& obj, const char* key, const std::string& where) const {
    if (!obj.is_object() || !obj.contains(key)) fail(where, std::string("'") + key + "' is missing");
    return obj.at(key);
  }
  double number(const json& obj, const char* key, const std::string& where) const {
    const json& v = field(obj, key, where);
    if (!v.is_number() || !std::isfinite(v.get<double>())) fail(where, std::string("'") + key + "' must be a finite number");
    return v.get<double>();
  }
  std::size_t count(const json& obj, const char* key, const std::string& where) const {
    const json& v = field(obj, key, where);
    if (!v.is_number_unsigned()) fail(where, std::string("'") + key + "' must be a non-negative integer");
    return v.get<std::size_t>();
  }
  std::string text(const json& obj, const char* key, const std::string& where) const {
    const json& v = field(obj, key, where);
    if (!v.is_string()) fail(where, std::string("'") + key + "' must be a string");
    return v.get<std::string>();
  }
  std::vector<std::string> texts(const json& obj, const char* key, const std::string& where) const {
    const json& v = field(obj, key, where);
    std::vector<std::string> out;
    if (!v.is_array()) fail(where, std::string("'") + key + "' must be a list of strings");
    for (const json& s : v) {
      if (!s.is_string()) fail(where, std::string("'") + key + "' must be a list of strings");
      out.push_back(s.get<std::string>());
    }
    return out;
  }
  Vec3d vec3(const json& obj, const char* key, const std::string& where) const {
    const json& v = field(obj, key, where);
    if (!v.is_array() || v.size() != 3) fail(where, std::string("'") + key + "' must be 3 numbers");
    double e[3];
    for (std::size_t i = 0; i < 3; ++i) {
      if (!v[i].is_number() || !std::isfinite(v[i].get<double>())) fail(where, std::string("'") + key + "' must be 3 finite numbers");
      e[i] = v[i].get<double>();
    }
    return {e[0], e[1], e[2]};
  }
  GroundRect rect(const json& obj, const char* key, const std::string& where) const {
    const json& r = field(obj, key, where);
    double e[4];
    const char* axes[2] = {"u", "v"};
    for (int a = 0; a < 2; ++a) {
      const json& pair = field(r, axes[a], where + (where.empty() ? "" : " ") + key);
      if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number() || !pair[1].is_number())
        fail(where, std::string("'") + key + "." + axes[a] + "' must be 2 numbers");
      e[2 * a] = pair[0].get<double>();
      e[2 * a + 1] = pair[1].get<double>();
    }
    const GroundRect g{e[0], e[1], e[2], e[3]};
    for (double x : e)
      if (!std::isfinite(x)) fail(where, std::string("'") + key + "' must be finite");
    if (!(g.u0 < g.u1 && g.v0 < g.v1)) fail(where, std::string("'") + key + "' is empty (each range must go from low to high)");
    return g;
  }
  std::vector<std::size_t> indices(const json& obj, const char* key, const std::string& where, std::size_t limit,
                                   const char* what) const {
    const json& v = field(obj, key, where);
    if (!v.is_array()) fail(where, std::string("'") + key + "' must be a list of view indices");
    std::vector<std::size_t> out;
    std::set<std::size_t> seen;
    for (const json& i : v) {
      if (!i.is_number_integer()) fail(where, std::string("'") + key + "' must hold integers");
      const long long x = i.get<long long>();
      if (x < 0 || static_cast<unsigned long long>(x) >= limit)
        fail(where, std::string(what) + " view index " + std::to_string(x) + " is out of range (the dataset has " +
                        std::to_string(limit) + ")");
      if (!seen.insert(static_cast<std::size_t>(x)).second)
        fail(where, std::string(what) + " view " + std::to_string(x) + " is listed twice");
      out.push_back(static_cast<std::size_t>(x));
    }
    return out;
  }

 private:
  std::string path_;
};

}  // namespace

std::string plan_json_path(const std::string& plan) {
  const fs::path p(plan);
  if (p.extension() == ".json") return p.string();
  return (p / "plan.json").string();
}

bool is_plan(const std::string& path) {
  std::error_code ec;
  const fs::path p(path);
  if (fs::is_directory(p, ec)) return fs::is_regular_file(p / "plan.json", ec);
  // A plan.json named directly (a transforms .json is a dataset).
  return p.filename() == "plan.json" && fs::is_regular_file(p, ec);
}

std::string plan_folder(const std::string& plan) {
  const fs::path p(plan);
  if (p.extension() == ".json") return p.parent_path().empty() ? std::string(".") : p.parent_path().string();
  return p.string();
}

std::string cell_folder(const std::string& plan_dir, std::size_t cell) {
  return (fs::path(plan_dir) / "cells" / std::to_string(cell)).string();
}

void save_plan(const std::string& plan_dir, const Plan& p) {
  json j;
  j["glint_plan"] = kPlanVersion;
  j["dataset"] = p.dataset;
  j["dataset_args"] = p.dataset_args;
  j["train_args"] = p.train_args;
  j["settings"] = {{"cells", std::to_string(p.settings.shape.strips) + "x" + std::to_string(p.settings.shape.cells_per_strip)},
                   {"cell_views", p.settings.cell_views},
                   {"expand", p.settings.expand},
                   {"visibility", p.settings.visibility},
                   {"crop_views", p.settings.crop_views},
                   {"crop_margin", p.settings.crop_margin}};
  j["grid"] = {{"strips", p.shape.strips}, {"cells_per_strip", p.shape.cells_per_strip}};
  j["dataset_counts"] = {{"train_views", p.train_views}, {"test_views", p.test_views}, {"points", p.points}};
  j["ground"] = {{"origin", vec_json(p.frame.origin)}, {"u", vec_json(p.frame.u)}, {"v", vec_json(p.frame.v)},
                 {"up", vec_json(p.frame.up)}, {"found_from", p.frame.method}};
  j["bounds"] = rect_json(p.bounds);
  json cells = json::array();
  for (std::size_t k = 0; k < p.cells.size(); ++k) {
    const Cell& c = p.cells[k];
    cells.push_back({{"index", k},
                     {"core", rect_json(c.core)},
                     {"expanded", rect_json(c.expanded)},
                     {"top", c.top},
                     {"cameras_in_core", c.cameras_in_core},
                     {"points", c.points},
                     {"train_views", c.train_views},
                     {"test_views", c.test_views}});
  }
  j["cells"] = cells;
  write_file_atomic(plan_json_path(plan_dir), j.dump(1) + "\n");
}

Plan load_plan(const std::string& plan) {
  const std::string path = plan_json_path(plan);
  if (!fs::exists(path)) throw Error(path, "no plan here (glint partition writes one)");
  const json j = read_json_file(path);
  Reader r(path);
  if (!j.is_object()) r.fail("", "not a plan (expected a JSON object)");
  const json& version = r.field(j, "glint_plan", "");
  if (!version.is_number_integer() || version.get<int>() != kPlanVersion)
    r.fail("", "unsupported plan version (this glint reads version " + std::to_string(kPlanVersion) + ")");

  Plan p;
  p.dataset = r.text(j, "dataset", "");
  p.dataset_args = r.texts(j, "dataset_args", "");
  p.train_args = r.texts(j, "train_args", "");
  const json& s = r.field(j, "settings", "");
  p.settings.expand = r.number(s, "expand", "settings");
  p.settings.visibility = r.number(s, "visibility", "settings");
  p.settings.cell_views = r.count(s, "cell_views", "settings");
  const json& crop = r.field(s, "crop_views", "settings");
  if (!crop.is_boolean()) r.fail("settings", "'crop_views' must be true or false");
  p.settings.crop_views = crop.get<bool>();
  p.settings.crop_margin = r.number(s, "crop_margin", "settings");
  if (p.settings.crop_margin < 0 || p.settings.crop_margin > 1) r.fail("settings", "'crop_margin' must be in [0, 1]");
  const json& g = r.field(j, "grid", "");
  p.shape.strips = static_cast<int>(r.count(g, "strips", "grid"));
  p.shape.cells_per_strip = static_cast<int>(r.count(g, "cells_per_strip", "grid"));
  const json& counts = r.field(j, "dataset_counts", "");
  p.train_views = r.count(counts, "train_views", "dataset_counts");
  p.test_views = r.count(counts, "test_views", "dataset_counts");
  p.points = r.count(counts, "points", "dataset_counts");
  const json& ground = r.field(j, "ground", "");
  p.frame.origin = r.vec3(ground, "origin", "ground");
  p.frame.u = r.vec3(ground, "u", "ground");
  p.frame.v = r.vec3(ground, "v", "ground");
  p.frame.up = r.vec3(ground, "up", "ground");
  p.frame.method = r.text(ground, "found_from", "ground");
  const Vec3d axes[3] = {p.frame.u, p.frame.v, p.frame.up};
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      if (std::abs(dot(axes[a], axes[b]) - (a == b ? 1.0 : 0.0)) > 1e-6)
        r.fail("ground", "u, v and up must be orthonormal");
  p.bounds = r.rect(j, "bounds", "");

  const json& cells = r.field(j, "cells", "");
  if (!cells.is_array() || cells.empty()) r.fail("", "'cells' must be a non-empty list");
  std::vector<const json*> by_index(cells.size(), nullptr);
  for (const json& c : cells) {
    const std::size_t k = r.count(c, "index", "a cell");
    if (k >= cells.size()) {
      // Indices run 0..n-1: an index past the end means one below it is missing.
      for (std::size_t m = 0; m < cells.size(); ++m) {
        bool present = false;
        for (const json& o : cells) present = present || (o.contains("index") && o["index"] == m);
        if (!present) r.fail("cell " + std::to_string(m), "is missing (cells are numbered from 0 without gaps)");
      }
      r.fail("cell " + std::to_string(k), "its index is past the last cell");
    }
    if (by_index[k]) r.fail("cell " + std::to_string(k), "is listed twice");
    by_index[k] = &c;
  }
  if (static_cast<std::size_t>(p.shape.strips) * static_cast<std::size_t>(p.shape.cells_per_strip) != cells.size())
    r.fail("grid", std::to_string(p.shape.strips) + "x" + std::to_string(p.shape.cells_per_strip) + " does not match the " +
                       std::to_string(cells.size()) + " cells listed");
  double area = 0;
  for (std::size_t k = 0; k < cells.size(); ++k) {
    const json& c = *by_index[k];
    const std::string where = "cell " + std::to_string(k);
    Cell cell;
    cell.core = r.rect(c, "core", where);
    cell.expanded = r.rect(c, "expanded", where);
    cell.top = r.number(c, "top", where);
    cell.cameras_in_core = r.count(c, "cameras_in_core", where);
    cell.points = r.count(c, "points", where);
    cell.train_views = r.indices(c, "train_views", where, p.train_views, "training");
    cell.test_views = r.indices(c, "test_views", where, p.test_views, "test");
    if (cell.train_views.empty()) r.fail(where, "has no training views");
    if (cell.core.clipped_to(p.bounds) != cell.core) r.fail(where, "its core reaches outside the plan's bounds");
    area += cell.core.area();
    for (std::size_t m = 0; m < k; ++m)
      if (p.cells[m].core.overlaps(cell.core))
        r.fail(where, "its core overlaps the core of cell " + std::to_string(m));
    p.cells.push_back(std::move(cell));
  }
  // Cores inside the bounds that do not overlap tile them exactly when their areas add up.
  if (std::abs(area - p.bounds.area()) > 1e-9 * p.bounds.area())
    r.fail("cells", "the cores leave a gap in the ground they must tile (their area is " +
                        std::to_string(area / p.bounds.area() * 100) + " % of the bounds)");
  return p;
}

void check_plan_dataset(const std::string& plan, const Plan& p, const Dataset& data) {
  const auto differs = [&](const char* what, std::size_t now, std::size_t then) {
    if (now != then)
      throw Error(plan_json_path(plan), std::string("the dataset now has ") + std::to_string(now) + " " + what +
                                            "; the plan was made for " + std::to_string(then) +
                                            " (partition it again)");
  };
  differs("training views", data.train.size(), p.train_views);
  differs("test views", data.test.size(), p.test_views);
  differs("points", data.points.size(), p.points);
}

}  // namespace glint::partition

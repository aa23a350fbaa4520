#include "glint/partition/cell_dataset.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "glint/core/error.h"
#include "glint/io/atomic_file.h"
#include "glint/io/json_file.h"
#include "glint/partition/box_coverage.h"

namespace glint::partition {

namespace fs = std::filesystem;

GroundRect crop_rect(const Plan& plan, std::size_t cell) {
  const Cell& c = plan.cells.at(cell);
  // The core and part of its margin: the margin's outer part only gives the splats near the
  // core's edge their context, and needs no pixels of its own.
  const double m = plan.settings.crop_margin;
  GroundRect crop{c.core.u0 + m * (c.expanded.u0 - c.core.u0), c.core.u1 + m * (c.expanded.u1 - c.core.u1),
                        c.core.v0 + m * (c.expanded.v0 - c.core.v0), c.core.v1 + m * (c.expanded.v1 - c.core.v1)};
  // The outer cells own everything beyond the bounds: what a view shows past them (far
  // ground, the horizon, the void beyond a model's ground) is theirs to fill.
  const double far = 10 * std::max(plan.bounds.width(), plan.bounds.depth());
  if (c.core.u0 <= plan.bounds.u0) crop.u0 -= far;
  if (c.core.u1 >= plan.bounds.u1) crop.u1 += far;
  if (c.core.v0 <= plan.bounds.v0) crop.v0 -= far;
  if (c.core.v1 >= plan.bounds.v1) crop.v1 += far;
  return crop;
}

std::vector<std::array<Vec3d, 8>> crop_boxes(const Plan& plan, std::size_t cell, const PointCloud& points,
                                             bool points_random) {
  const Cell& c = plan.cells.at(cell);
  const GroundRect crop = crop_rect(plan, cell);
  const GroundRect grid = crop.clipped_to(plan.bounds);
  const std::vector<std::array<Vec3d, 8>> one{ground_box(plan.frame, crop, 0.0, c.top)};
  if (points_random || !(grid.width() > 0 && grid.depth() > 0)) return one;
  constexpr int n = kCropGrid;
  const auto index = [](double x, double lo, double hi) {
    return std::clamp(static_cast<int>(std::floor((x - lo) / (hi - lo) * n)), 0, n - 1);
  };
  std::vector<double> high(n * n, -1.0);  // below the ground: no point
  bool any = false;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Vec3d l = plan.frame.to_local({points.xyz[3 * i], points.xyz[3 * i + 1], points.xyz[3 * i + 2]});
    if (l.x < crop.u0 || l.x > crop.u1 || l.y < crop.v0 || l.y > crop.v1) continue;
    double& h = high[static_cast<std::size_t>(index(l.y, grid.v0, grid.v1) * n + index(l.x, grid.u0, grid.u1))];
    h = std::max(h, l.z);
    any = true;
  }
  if (!any) return one;
  // the grid's lines, the outer ones moved out to crop_rect's edges
  const auto line = [](int k, double lo, double hi, double far_lo, double far_hi) {
    return k == 0 ? far_lo : k == n ? far_hi : lo + (hi - lo) * k / n;
  };
  std::vector<std::array<Vec3d, 8>> boxes;
  for (int iv = 0; iv < n; ++iv)
    for (int iu = 0; iu < n; ++iu) {
      const GroundRect r{line(iu, grid.u0, grid.u1, crop.u0, crop.u1), line(iu + 1, grid.u0, grid.u1, crop.u0, crop.u1),
                         line(iv, grid.v0, grid.v1, crop.v0, crop.v1), line(iv + 1, grid.v0, grid.v1, crop.v0, crop.v1)};
      boxes.push_back(ground_box(plan.frame, r, 0.0, std::clamp(high[static_cast<std::size_t>(iv * n + iu)], 0.0, c.top)));
    }
  return boxes;
}

Dataset cell_dataset(const Dataset& full, const Plan& plan, std::size_t cell) {
  const Cell& c = plan.cells.at(cell);
  Dataset d;
  d.root = full.root;
  d.format = full.format;
  d.val_count = full.val_count;
  d.background = full.background;
  d.masks = full.masks;
  const auto boxes = plan.settings.crop_views ? crop_boxes(plan, cell, full.points, full.points_random)
                                             : std::vector<std::array<Vec3d, 8>>{};
  const auto add = [&](std::vector<View>& to, const View& v) {
    if (!plan.settings.crop_views) {
      to.push_back(v);
      return;
    }
    PixelWindow w;  // the smallest window holding every box's
    for (const auto& box : boxes) {
      const PixelWindow b = box_image_window(v.camera, box);
      if (b.empty()) continue;
      w = w.empty() ? b : PixelWindow{std::min(w.x0, b.x0), std::min(w.y0, b.y0), std::max(w.x1, b.x1), std::max(w.y1, b.y1)};
    }
    if (w.empty()) return;
    // Grown about its centre to the smallest side the losses' windows work on.
    const auto grow = [](int& a, int& b, int size) {
      const int side = std::min(kMinCropSide, size);
      if (b - a >= side) return;
      a = std::clamp((a + b - side) / 2, 0, size - side);
      b = a + side;
    };
    grow(w.x0, w.x1, v.camera.width);
    grow(w.y0, w.y1, v.camera.height);
    if (w.width() == v.camera.width && w.height() == v.camera.height)
      to.push_back(v);
    else
      to.push_back(crop_view(v, w.x0, w.y0, w.width(), w.height()));
  };
  for (std::size_t i : c.train_views) add(d.train, full.train.at(i));
  for (std::size_t i : c.test_views) add(d.test, full.test.at(i));
  if (d.train.empty()) throw Error(full.root, "cell " + std::to_string(cell) + ": no training view shows its box");
  d.points = cell_points(plan, c, full.points);
  d.points_random = full.points_random;
  if (d.points.size() == 0)
    throw Error(full.root, "cell " + std::to_string(cell) + " has no initial points in its expanded rectangle");
  scene_extent(d);
  return d;
}

std::string cell_fingerprint(const Plan& plan, std::size_t cell) {
  const Cell& c = plan.cells.at(cell);
  // "crop fitted": crops fitted to the points' heights (crop_boxes); a cell trained on the
  // crops of one box to the cell's top is another cell's record
  std::string s = plan.dataset + '\n' + (plan.settings.crop_views ? "crop fitted " + std::to_string(plan.settings.crop_margin) + "\n" : std::string("whole\n"));
  for (const std::string& a : plan.dataset_args) s += a + '\n';
  char buf[64];
  for (const GroundRect& r : {c.core, c.expanded, plan.bounds})
    for (double x : {r.u0, r.u1, r.v0, r.v1}) {
      std::snprintf(buf, sizeof buf, "%.17g,", x);
      s += buf;
    }
  for (const auto* list : {&c.train_views, &c.test_views}) {
    s += '\n';
    for (std::size_t i : *list) s += std::to_string(i) + ',';
  }
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a 64
  for (unsigned char ch : s) {
    h ^= ch;
    h *= 1099511628211ull;
  }
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string cell_record_path(const std::string& folder) { return (fs::path(folder) / "done.json").string(); }

void write_cell_record(const std::string& folder, const CellRecord& r) {
  nlohmann::json j = {{"cell", r.cell},
                      {"fingerprint", r.fingerprint},
                      {"steps", r.steps},
                      {"splats", r.splats},
                      {"options", nlohmann::json::parse(r.options)}};
  write_file_atomic(cell_record_path(folder), j.dump(2) + "\n");
}

std::optional<CellRecord> read_cell_record(const std::string& folder) {
  const std::string path = cell_record_path(folder);
  if (!fs::exists(path)) return std::nullopt;
  const nlohmann::json j = read_json_file(path);
  CellRecord r;
  try {
    r.cell = j.at("cell").get<std::size_t>();
    r.fingerprint = j.at("fingerprint").get<std::string>();
    r.steps = j.at("steps").get<long>();
    r.splats = j.at("splats").get<std::size_t>();
    r.options = j.at("options").dump();
  } catch (const nlohmann::json::exception&) {
    throw Error(path, "damaged (expected cell, fingerprint, steps, splats and options); train the cell again");
  }
  return r;
}

void remove_cell_record(const std::string& folder) {
  std::error_code ec;
  fs::remove(cell_record_path(folder), ec);
  if (ec) throw Error(cell_record_path(folder), "cannot remove: " + ec.message());
}

}  // namespace glint::partition

#include "glint/partition/plan.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "glint/core/error.h"
#include "glint/partition/box_coverage.h"
#include "glint/partition/cell_dataset.h"

namespace glint::partition {

namespace {

double quantile(std::vector<double> x, double q) {
  if (x.empty()) return 0;
  const auto k = static_cast<std::size_t>(std::floor(q * static_cast<double>(x.size() - 1)));
  std::nth_element(x.begin(), x.begin() + static_cast<long>(k), x.end());
  return x[k];
}

Vec3d point_at(const PointCloud& pc, std::size_t i) { return {pc.xyz[3 * i], pc.xyz[3 * i + 1], pc.xyz[3 * i + 2]}; }

// The views of a split that belong to a cell: camera in the expanded rectangle, or the
// cell's box fills at least `visibility` of the image.
std::vector<std::size_t> select_views(const Plan& plan, const Cell& cell, const std::vector<View>& views) {
  const auto box = ground_box(plan.frame, cell.expanded, 0.0, cell.top);
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < views.size(); ++i) {
    const Camera& c = views[i].camera;
    if (contains_clamped(cell.expanded, plan.bounds, plan.ground(c.center())) ||
        box_image_share(c, box) >= plan.settings.visibility)
      out.push_back(i);
  }
  return out;
}

// The share of the scene's points (an even sample) that the median training view has in
// its image: near 1 where every view sees the whole scene (an object-centric capture), a
// small share in a survey.
double median_view_point_share(const Dataset& data) {
  if (data.points.size() == 0) return 0;
  const std::size_t stride = std::max<std::size_t>(1, data.points.size() / 4000);
  std::vector<Vec3d> sample;
  for (std::size_t i = 0; i < data.points.size(); i += stride) sample.push_back(point_at(data.points, i));
  std::vector<double> share;
  for (const View& v : data.train) {
    const Camera& c = v.camera;
    std::size_t seen = 0;
    for (const Vec3d& p : sample) {
      const Vec3d q = c.world_to_camera(p);
      if (q.z <= 0) continue;
      const Vec2d px = c.project(q);
      seen += px.x >= 0 && px.y >= 0 && px.x < c.width && px.y < c.height;
    }
    share.push_back(static_cast<double>(seen) / static_cast<double>(sample.size()));
  }
  return quantile(share, 0.5);
}

}  // namespace

CameraPose camera_pose(const Camera& c) {
  const Mat3d rt = transpose(c.R);
  return {c.center(), rt * Vec3d{0, 0, 1}, rt * Vec3d{0, -1, 0}};
}

std::size_t Plan::owner(Vec3d world) const {
  const Vec2d g = ground(world);
  for (std::size_t k = 0; k < cells.size(); ++k)
    if (contains_clamped(cells[k].core, bounds, g)) return k;
  // Unreachable for cores that tile the bounds (load_plan checks it); the last cell keeps
  // the point rather than losing it.
  return cells.size() - 1;
}

PointCloud cell_points(const Plan& plan, const Cell& cell, const PointCloud& cloud) {
  PointCloud out;
  const bool rgb = cloud.rgb.size() == cloud.xyz.size();
  for (std::size_t i = 0; i < cloud.size(); ++i) {
    if (!contains_clamped(cell.expanded, plan.bounds, plan.ground(point_at(cloud, i)))) continue;
    out.xyz.insert(out.xyz.end(), cloud.xyz.begin() + static_cast<long>(3 * i), cloud.xyz.begin() + static_cast<long>(3 * i + 3));
    if (rgb) out.rgb.insert(out.rgb.end(), cloud.rgb.begin() + static_cast<long>(3 * i), cloud.rgb.begin() + static_cast<long>(3 * i + 3));
  }
  return out;
}

Plan make_plan(const Dataset& data, const PlanSettings& settings) {
  const std::string& src = data.root;
  if (data.train.empty()) throw Error(src, "no training views to partition");
  if (!(settings.expand >= 0 && settings.expand <= 10)) throw Error("--expand must be between 0 and 10");
  if (!(settings.visibility > 0 && settings.visibility <= 1)) throw Error("--visibility must be in (0, 1]");

  // Every view seeing (nearly) the whole scene: cells cannot be smaller than it.
  if (const double seen = median_view_point_share(data); seen >= settings.object_centric_share) {
    char pct[16];
    std::snprintf(pct, sizeof pct, "%.0f %%", 100 * seen);
    throw Error(src, std::string("the median view sees ") + pct + " of the scene's points: an object-centric capture, "
                     "which splitting cannot make smaller; train it whole with glint train");
  }

  Plan plan;
  plan.settings = settings;
  plan.train_views = data.train.size();
  plan.test_views = data.test.size();
  plan.points = data.points.size();
  std::vector<CameraPose> poses;
  for (const View& v : data.train) poses.push_back(camera_pose(v.camera));
  plan.frame = find_ground_frame(poses, data.points, data.points_random, src);

  // Ground coordinates of the training cameras and of the points.
  std::vector<Vec2d> cams;
  GroundRect cam_rect{1e300, -1e300, 1e300, -1e300};
  for (const View& v : data.train) {
    const Vec2d g = plan.ground(v.camera.center());
    cams.push_back(g);
    cam_rect = {std::min(cam_rect.u0, g.x), std::max(cam_rect.u1, g.x), std::min(cam_rect.v0, g.y),
                std::max(cam_rect.v1, g.y)};
  }
  std::vector<double> pu, pv, ph;
  for (std::size_t i = 0; i < data.points.size(); ++i) {
    const Vec3d l = plan.frame.to_local(point_at(data.points, i));
    pu.push_back(l.x);
    pv.push_back(l.y);
    ph.push_back(l.z);
  }
  plan.bounds = cam_rect;
  if (!pu.empty()) {
    plan.bounds.u0 = std::min(plan.bounds.u0, quantile(pu, 0.005));
    plan.bounds.u1 = std::max(plan.bounds.u1, quantile(pu, 0.995));
    plan.bounds.v0 = std::min(plan.bounds.v0, quantile(pv, 0.005));
    plan.bounds.v1 = std::max(plan.bounds.v1, quantile(pv, 0.995));
  }
  const double span = std::max({plan.bounds.width(), plan.bounds.depth(), 1e-9});
  if (plan.bounds.width() <= 1e-9 * span) plan.bounds = plan.bounds.grown(1e-6 * span, 0);
  if (plan.bounds.depth() <= 1e-9 * span) plan.bounds = plan.bounds.grown(0, 1e-6 * span);

  plan.shape = settings.cell_views > 0
                   ? grid_shape_for(cams.size(), settings.cell_views, cam_rect.width(), cam_rect.depth())
                   : settings.shape;
  if (plan.shape.count() < 2)
    throw Error(src, "a plan of one cell is the whole scene (" + std::to_string(cams.size()) +
                         " cameras); train it with glint train, or ask for more cells");
  std::vector<GroundRect> cores;
  try {
    cores = split_cameras(cams, plan.shape, plan.bounds);
  } catch (const Error& e) {
    throw Error(src, e.what());
  }

  for (const GroundRect& core : cores) {
    Cell cell;
    cell.core = core;
    // The margin follows the share of the survey the core holds (not the bounds' outer
    // ground, which no camera stands over).
    GroundRect inner = core.clipped_to(cam_rect);
    if (inner.width() <= 0 || inner.depth() <= 0) inner = core;
    cell.expanded = core.grown(settings.expand * std::max(inner.width(), 0.0), settings.expand * std::max(inner.depth(), 0.0))
                        .clipped_to(plan.bounds);
    std::vector<double> heights;
    for (std::size_t i = 0; i < pu.size(); ++i)
      if (contains_clamped(cell.expanded, plan.bounds, {pu[i], pv[i]})) heights.push_back(ph[i]);
    cell.points = heights.size();
    // The 99th percentile: a stray point far above the scene would make every box tall.
    cell.top = std::max(0.0, quantile(heights, 0.99));
    for (const Vec2d& c : cams)
      if (contains_clamped(core, plan.bounds, c)) ++cell.cameras_in_core;
    plan.cells.push_back(std::move(cell));
  }
  for (Cell& cell : plan.cells) {
    cell.train_views = select_views(plan, cell, data.train);
    cell.test_views = select_views(plan, cell, data.test);
  }

  // An object-centric capture: most views see every cell, so no cell is smaller than the
  // whole scene.
  std::vector<std::size_t> seen(data.train.size(), 0);
  for (const Cell& cell : plan.cells)
    for (std::size_t i : cell.train_views) ++seen[i];
  std::size_t see_all = 0;
  for (std::size_t s : seen) see_all += s == plan.cells.size();
  if (static_cast<double>(see_all) >= settings.object_centric_share * static_cast<double>(seen.size()))
    throw Error(src, std::to_string(see_all) + " of " + std::to_string(seen.size()) + " views see all " +
                         std::to_string(plan.cells.size()) +
                         " cells: an object-centric capture, which splitting cannot make smaller; train it whole "
                         "with glint train");
  for (std::size_t k = 0; k < plan.cells.size(); ++k) {
    // The views the cell's run uses: a listed view whose crop is empty trains nothing.
    // (cell_dataset's own one-line errors, a cell no view shows or without initial points,
    // refuse the plan here rather than when the cell trains.)
    std::size_t views = plan.cells[k].train_views.size();
    if (settings.crop_views && views >= settings.min_cell_views) views = cell_dataset(data, plan, k).train.size();
    if (views < settings.min_cell_views)
      throw Error(src, "cell " + std::to_string(k) + " would train on " +
                           std::to_string(views) + " views (fewer than " +
                           std::to_string(settings.min_cell_views) +
                           "): ask for fewer cells (--cells, --cell-views) or train it whole with glint train");
  }
  return plan;
}

}  // namespace glint::partition

// The partition's math on synthetic surveys: the ground found whatever the world axes,
// equal camera counts, cores that tile the ground, the visibility rule against hand-computed
// cases, and the captures it refuses.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "glint/core/error.h"
#include "glint/partition/box_coverage.h"
#include "glint/partition/cell_dataset.h"
#include "glint/partition/cell_grid.h"
#include "glint/partition/plan.h"
#include "support/survey_builder.h"

using namespace glint;
using namespace glint::partition;
using namespace glint::test;

namespace {

Mat3d rotation(Vec3d axis, double angle) {
  const Vec3d a = normalize(axis);
  const double c = std::cos(angle), s = std::sin(angle), t = 1 - c;
  return {{t * a.x * a.x + c, t * a.x * a.y - s * a.z, t * a.x * a.z + s * a.y,
           t * a.x * a.y + s * a.z, t * a.y * a.y + c, t * a.y * a.z - s * a.x,
           t * a.x * a.z - s * a.y, t * a.y * a.z + s * a.x, t * a.z * a.z + c}};
}

// Every point of the ground (and beyond it) in exactly one core.
void expect_tiling(const Plan& p, std::mt19937_64& rng) {
  double area = 0;
  for (std::size_t a = 0; a < p.cells.size(); ++a) {
    const GroundRect& c = p.cells[a].core;
    EXPECT_EQ(c.clipped_to(p.bounds), c) << "cell " << a << " reaches outside the bounds";
    area += c.area();
    for (std::size_t b = 0; b < a; ++b) EXPECT_FALSE(c.overlaps(p.cells[b].core)) << a << " overlaps " << b;
  }
  EXPECT_NEAR(area, p.bounds.area(), 1e-9 * p.bounds.area());
  // Random points, points beyond the bounds, and points exactly on every edge and corner.
  std::vector<Vec2d> probes;
  std::uniform_real_distribution<double> u(p.bounds.u0 - 30, p.bounds.u1 + 30), v(p.bounds.v0 - 30, p.bounds.v1 + 30);
  for (int i = 0; i < 2000; ++i) probes.push_back({u(rng), v(rng)});
  for (const Cell& c : p.cells)
    for (double x : {c.core.u0, c.core.u1, 0.5 * (c.core.u0 + c.core.u1)})
      for (double y : {c.core.v0, c.core.v1, 0.5 * (c.core.v0 + c.core.v1)}) probes.push_back({x, y});
  for (const Vec2d& q : probes) {
    int owners = 0;
    for (const Cell& c : p.cells) owners += contains_clamped(c.core, p.bounds, q);
    EXPECT_EQ(owners, 1) << "(" << q.x << ", " << q.y << ")";
  }
}

}  // namespace

TEST(PartitionGrid, EqualCameraCountsWithinOne) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> x(0, 80), y(0, 40);
  std::vector<Vec2d> cams;
  for (int i = 0; i < 203; ++i) cams.push_back({x(rng), y(rng)});
  const GroundRect bounds{-20, 100, -20, 60};
  for (const GridShape shape : {GridShape{2, 2}, GridShape{3, 2}, GridShape{4, 3}, GridShape{1, 5}, GridShape{7, 1}}) {
    const auto cores = split_cameras(cams, shape, bounds);
    ASSERT_EQ(cores.size(), static_cast<std::size_t>(shape.count()));
    std::size_t lo = cams.size(), hi = 0;
    for (const GroundRect& c : cores) {
      std::size_t n = 0;
      for (const Vec2d& p : cams) n += contains_clamped(c, bounds, p);
      lo = std::min(lo, n);
      hi = std::max(hi, n);
    }
    EXPECT_LE(hi - lo, 1u) << shape.strips << "x" << shape.cells_per_strip;
  }
}

TEST(PartitionGrid, CamerasAtOnePositionStayTogether) {
  // A 4x2 grid of positions at four headings each: 2x2 cells take whole positions.
  std::vector<Vec2d> cams;
  for (int gx = 0; gx < 4; ++gx)
    for (int gy = 0; gy < 2; ++gy)
      for (int h = 0; h < 4; ++h) cams.push_back({10.0 * gx, 10.0 * gy});
  const GroundRect bounds{-5, 35, -5, 15};
  const auto cores = split_cameras(cams, {2, 2}, bounds);
  for (const GroundRect& c : cores) {
    std::size_t n = 0;
    for (const Vec2d& p : cams) n += contains_clamped(c, bounds, p);
    EXPECT_EQ(n, 8u);
  }
  // Eight positions cannot make nine strips.
  EXPECT_THROW(split_cameras(cams, {9, 1}, bounds), Error);
}

TEST(PartitionGrid, ShapeForCamerasPerCell) {
  EXPECT_EQ(grid_shape_for(200, 50, 80, 40).count(), 4);
  const GridShape wide = grid_shape_for(200, 25, 80, 40);  // 8 cells on a 2:1 ground
  EXPECT_EQ(wide.count(), 8);
  EXPECT_EQ(wide.strips, 4);
  EXPECT_EQ(grid_shape_for(200, 1000, 80, 40).count(), 1);
  EXPECT_THROW(parse_grid_shape("2by2"), Error);
  EXPECT_THROW(parse_grid_shape("0x3"), Error);
  EXPECT_EQ(parse_grid_shape("3x2").strips, 3);
}

TEST(PartitionPlan, SurveyCellsTileTheGroundAndHaveEqualCameras) {
  SurveySpec spec;
  spec.jitter = 1.5;
  const Dataset d = make_survey(spec);
  const Plan p = make_plan(d, PlanSettings{});
  EXPECT_EQ(p.frame.method, "points");
  EXPECT_NEAR(p.frame.up.z, 1.0, 1e-3);
  EXPECT_NEAR(std::abs(p.frame.u.x), 1.0, 1e-2);  // the long side of the survey
  ASSERT_EQ(p.cells.size(), 4u);
  std::size_t lo = 1000, hi = 0;
  for (const Cell& c : p.cells) {
    lo = std::min(lo, c.cameras_in_core);
    hi = std::max(hi, c.cameras_in_core);
    EXPECT_GE(c.train_views.size(), c.cameras_in_core);
    EXPECT_LT(c.train_views.size(), d.train.size());
    EXPECT_GT(c.points, 0u);
  }
  EXPECT_LE(hi - lo, 4u);  // within one position (four headings share it)
  std::mt19937_64 rng(3);
  expect_tiling(p, rng);
}

TEST(PartitionPlan, RigidMotionGivesTheSameCellsAndViews) {
  SurveySpec spec;
  spec.jitter = 1.0;
  const Dataset d = make_survey(spec);
  const Plan a = make_plan(d, PlanSettings{});
  std::mt19937_64 rng(11);
  std::normal_distribution<double> g(0, 1);
  for (int trial = 0; trial < 3; ++trial) {
    const Mat3d R = rotation({g(rng), g(rng), g(rng)}, 0.3 + 2.5 * std::abs(g(rng)));
    const Vec3d t{100 * g(rng), 100 * g(rng), 100 * g(rng)};
    const Dataset m = moved(d, R, t);
    const Plan b = make_plan(m, PlanSettings{});
    EXPECT_EQ(b.frame.method, a.frame.method);
    const Vec3d up = R * a.frame.up;
    EXPECT_NEAR(dot(up, b.frame.up), 1.0, 1e-6) << "trial " << trial;
    ASSERT_EQ(a.cells.size(), b.cells.size());
    for (std::size_t k = 0; k < a.cells.size(); ++k) {
      EXPECT_EQ(a.cells[k].train_views, b.cells[k].train_views) << "trial " << trial << " cell " << k;
      EXPECT_EQ(a.cells[k].test_views, b.cells[k].test_views) << "trial " << trial << " cell " << k;
      EXPECT_EQ(a.cells[k].cameras_in_core, b.cells[k].cameras_in_core);
      // Points are float: rounding after the motion may move one across an edge.
      EXPECT_NEAR(static_cast<double>(a.cells[k].points), static_cast<double>(b.cells[k].points), 3.0);
      EXPECT_NEAR(a.cells[k].core.area(), b.cells[k].core.area(), 1e-3 * a.cells[k].core.area());
    }
    expect_tiling(b, rng);
  }
}

TEST(PartitionPlan, GroundFromCamerasWithoutRealPoints) {
  SurveySpec spec;
  Dataset d = make_survey(spec);
  d.points_random = true;  // a sampled cloud says nothing about the ground
  const Mat3d R = rotation({1, 2, 0.5}, 1.1);
  const Dataset m = moved(d, R, {5, -3, 40});
  const Plan p = make_plan(m, PlanSettings{});
  EXPECT_EQ(p.frame.method, "cameras");
  EXPECT_NEAR(dot(p.frame.up, R * Vec3d{0, 0, 1}), 1.0, 1e-9);
}

TEST(PartitionVisibility, BoxSeenStraightDownHandComputed) {
  // Camera 10 above the ground looking straight down, f = 100, 200 x 100 pixels.
  const Camera c = straight_down_camera({0, 0, 10}, 200, 100, 100);
  GroundFrame f;  // the world's axes, origin on the ground
  // A 2 x 2 box 2 high under the camera: only its top shows, 25 x 25 pixels at depth 8.
  EXPECT_NEAR(box_image_share(c, ground_box(f, {-1, 1, -1, 1}, 0, 2)), 25.0 * 25.0 / 20000.0, 1e-12);
  // A box to the side, u in [5, 20]: top from x = 162.5 to 350 (+-12.5 px), bottom from 150
  // to 300 (+-10 px); the outline clipped at the image's right edge (x = 200):
  // 12.5 * (20 + 25) / 2 + 37.5 * 25 = 1218.75 pixels.
  EXPECT_NEAR(box_image_share(c, ground_box(f, {5, 20, -1, 1}, 0, 2)), 1218.75 / 20000.0, 1e-12);
  // The camera inside a box sees nothing else; a box behind it is not seen.
  EXPECT_NEAR(box_image_share(c, ground_box(f, {-50, 50, -50, 50}, 0, 20)), 1.0, 1e-12);
  EXPECT_EQ(box_image_share(c, ground_box(f, {-5, 5, -5, 5}, 12, 20)), 0.0);
}

TEST(PartitionVisibility, ViewSelectionFollowsTheRule) {
  SurveySpec spec;
  const Dataset d = make_survey(spec);
  PlanSettings s;
  const Plan p = make_plan(d, s);
  for (std::size_t k = 0; k < p.cells.size(); ++k) {
    const Cell& cell = p.cells[k];
    const auto box = ground_box(p.frame, cell.expanded, 0, cell.top);
    std::size_t by_share = 0;
    for (std::size_t i = 0; i < d.train.size(); ++i) {
      const bool inside = contains_clamped(cell.expanded, p.bounds, p.ground(d.train[i].camera.center()));
      const double share = box_image_share(d.train[i].camera, box);
      const bool want = inside || share >= s.visibility;
      by_share += !inside && want;
      const bool got = std::find(cell.train_views.begin(), cell.train_views.end(), i) != cell.train_views.end();
      EXPECT_EQ(got, want) << "cell " << k << " view " << i << " share " << share;
    }
    EXPECT_GT(by_share, 0u) << "cell " << k << ": the visibility rule added no view";
  }
}

TEST(PartitionPlan, RefusesAnObjectCentricCapture) {
  // Thirty-six cameras on a ring, all looking at an object in the middle.
  Dataset d;
  d.root = "ring";
  for (int i = 0; i < 36; ++i) {
    const double a = i * 2 * M_PI / 36;
    View v;
    v.camera = survey_camera({6 * std::cos(a), 6 * std::sin(a), 2}, a + M_PI, std::atan2(2, 6), 50);
    d.train.push_back(v);
  }
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int i = 0; i < 3000; ++i)
    d.points.xyz.insert(d.points.xyz.end(), {static_cast<float>(u(rng)), static_cast<float>(u(rng)),
                                             static_cast<float>(0.25 * (u(rng) + 1))});
  scene_extent(d);
  try {
    make_plan(d, PlanSettings{});
    FAIL() << "an object-centric capture was partitioned";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("object-centric"), std::string::npos) << e.what();
  }
}

TEST(PartitionPlan, RefusesCellsWithTooFewViews) {
  SurveySpec spec;
  spec.grid_x = 6;
  spec.grid_y = 3;
  spec.headings = 1;
  const Dataset d = make_survey(spec);
  PlanSettings s;
  s.shape = {3, 3};
  try {
    make_plan(d, s);
    FAIL() << "18 views went into 9 cells";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("fewer than"), std::string::npos) << e.what();
  }
  s.shape = {1, 1};
  EXPECT_THROW(make_plan(d, s), Error);  // one cell is the whole scene
}

// The view count the refusal checks is that of the views a cell trains on, not of those
// the plan lists (a listed view whose crop is empty trains nothing).
TEST(PartitionPlan, CountsTheViewsACellTrainsOn) {
  const Dataset d = make_survey(SurveySpec{});
  PlanSettings s;
  const Plan p = make_plan(d, s);
  std::size_t fewest = SIZE_MAX, listed = SIZE_MAX, cut = p.cells.size();
  for (std::size_t k = 0; k < p.cells.size(); ++k) {
    const std::size_t trained = cell_dataset(d, p, k).train.size();
    fewest = std::min(fewest, trained);
    listed = std::min(listed, p.cells[k].train_views.size());
    if (trained < p.cells[k].train_views.size()) cut = k;
  }
  ASSERT_LT(cut, p.cells.size()) << "no cell lists a view that trains nothing: the survey tests nothing here";
  ASSERT_LT(fewest, listed) << "every cell lists more views than the fewest any trains on";
  s.min_cell_views = fewest;
  EXPECT_NO_THROW(make_plan(d, s));
  s.min_cell_views = fewest + 1;  // every cell lists that many, one trains on fewer
  try {
    make_plan(d, s);
    FAIL() << "a cell training on " << fewest << " views passed a minimum of " << fewest + 1;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("would train on " + std::to_string(fewest) + " views"), std::string::npos)
        << e.what();
  }
}

TEST(PartitionCells, ViewsCroppedToTheCellsBox) {
  SurveySpec spec;
  const Dataset d = make_survey(spec);
  const Plan p = make_plan(d, PlanSettings{});
  double kept = 0, full = 0, one_box = 0;
  for (std::size_t k = 0; k < p.cells.size(); ++k) {
    const Cell& cell = p.cells[k];
    const Dataset cd = cell_dataset(d, p, k);
    EXPECT_LE(cd.train.size(), cell.train_views.size());
    EXPECT_GT(cd.train.size(), cell.train_views.size() / 2);
    EXPECT_LT(cd.points.size(), d.points.size());
    const GroundRect crop = crop_rect(p, k);
    // Between the core and the expanded rectangle, and far past the bounds on outer sides.
    EXPECT_LE(crop.u0, cell.core.u0);
    EXPECT_GE(crop.u1, cell.core.u1);
    EXPECT_TRUE(crop.u0 >= cell.expanded.u0 || cell.core.u0 == p.bounds.u0);
    EXPECT_TRUE(crop.u1 <= cell.expanded.u1 || cell.core.u1 == p.bounds.u1);
    if (cell.core.u0 == p.bounds.u0) {
      EXPECT_LT(crop.u0, p.bounds.u0 - p.bounds.width());
    }
    const auto boxes = crop_boxes(p, k, d.points, d.points_random);
    ASSERT_EQ(boxes.size(), static_cast<std::size_t>(kCropGrid * kCropGrid));
    const auto box = ground_box(p.frame, crop, 0, cell.top);  // the one box to the cell's top
    for (const View& v : cd.train) {
      EXPECT_GE(v.camera.width, kMinCropSide);
      EXPECT_GE(v.camera.height, kMinCropSide);
      // The window holds all of the box that the whole image shows: the same area in pixels.
      const double w = v.full_width ? v.full_width : v.camera.width, h = v.full_height ? v.full_height : v.camera.height;
      Camera whole = v.camera;
      whole.width = static_cast<int>(w);
      whole.height = static_cast<int>(h);
      whole.cx += v.crop_x;
      whole.cy += v.crop_y;
      for (const auto& b : boxes)
        EXPECT_NEAR(box_image_share(v.camera, b) * v.camera.width * v.camera.height, box_image_share(whole, b) * w * h,
                    1e-6 * w * h);
      // ... and no more than the one box's window
      const PixelWindow one = box_image_window(whole, box);
      EXPECT_LE(v.camera.width, std::max(one.width(), kMinCropSide));
      EXPECT_LE(v.camera.height, std::max(one.height(), kMinCropSide));
      kept += static_cast<double>(v.camera.width) * v.camera.height;
      full += w * h;
      const int ow = std::max(one.width(), kMinCropSide), oh = std::max(one.height(), kMinCropSide);
      one_box += static_cast<double>(std::min(ow, static_cast<int>(w))) * std::min(oh, static_cast<int>(h));
    }
  }
  EXPECT_LT(kept, 0.95 * full);  // the crops leave pixels out
  EXPECT_LT(kept, 0.97 * one_box);  // the air over the survey's low ground is left out
  // Random points have no heights to go by: the one box.
  const auto random = crop_boxes(p, 0, d.points, true);
  ASSERT_EQ(random.size(), 1u);
  const auto one = ground_box(p.frame, crop_rect(p, 0), 0, p.cells[0].top);
  for (std::size_t i = 0; i < one.size(); ++i) EXPECT_EQ(norm(random[0][i] - one[i]), 0.0) << i;
  PlanSettings whole_views;
  whole_views.crop_views = false;
  const Plan q = make_plan(d, whole_views);
  for (const View& v : cell_dataset(d, q, 0).train) EXPECT_EQ(v.full_width, 0);
}

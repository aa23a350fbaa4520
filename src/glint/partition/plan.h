#pragma once
// A partition plan: a capture split on its ground into cells that train as independent
// runs and merge into one model. Each cell has a core rectangle (the cores tile the
// ground; a cell's splats whose centres lie in its core are what it contributes to the
// merged model), an expanded rectangle (the core grown on every side, whose initial points
// it trains from), and its views: those whose camera stands in the expanded rectangle plus
// those that see enough of the cell.
#include <string>
#include <vector>

#include "glint/io/dataset.h"
#include "glint/partition/cell_grid.h"
#include "glint/partition/ground_frame.h"
#include "glint/partition/ground_rect.h"

namespace glint::partition {

struct PlanSettings {
  GridShape shape{2, 2};         // used when cell_views is 0
  std::size_t cell_views = 0;    // > 0: as many cells as give about this many cameras each
  double expand = 0.2;           // each side of the core moves out by this share of its extent
  double visibility = 0.25;      // a view sees a cell when the cell's box fills this share of it
  std::size_t min_cell_views = 10;  // fewer training views in a cell: refuse the plan
  // A cell trains on the part of each view its box covers (the box's projection, as a
  // rectangle of pixels), not on what the view shows beyond the cell. The box spans the
  // core and this share of the margin around it (0: the core, 1: the expanded rectangle).
  bool crop_views = true;
  double crop_margin = 0;
  // Refuse an object-centric capture, where cells would each need nearly all views: when
  // the median training view has at least this share of the scene's points in its image,
  // or at least this share of the views sees every cell.
  double object_centric_share = 0.5;
};

struct Cell {
  GroundRect core, expanded;
  double top = 0;  // height of the cell's box above the ground: its highest point
  std::vector<std::size_t> train_views, test_views;  // indices into the dataset's splits
  std::size_t cameras_in_core = 0;                   // training cameras standing in the core
  std::size_t points = 0;                            // initial points in the expanded rectangle
};

struct Plan {
  std::string dataset;                    // absolute path of the dataset
  std::vector<std::string> dataset_args;  // dataset flags the plan was made with (--downscale 2, ...)
  std::vector<std::string> train_args;    // training flags for every cell (given after --)
  PlanSettings settings;
  GridShape shape;
  std::size_t train_views = 0, test_views = 0, points = 0;  // the dataset's, checked on use
  GroundFrame frame;
  GroundRect bounds;  // the ground the cores tile: cameras and the points' 0.5-99.5 % range
  std::vector<Cell> cells;

  // The cell that owns a world point (a splat's centre): exactly one for any point.
  std::size_t owner(Vec3d world) const;
  Vec2d ground(Vec3d world) const {
    const Vec3d l = frame.to_local(world);
    return {l.x, l.y};
  }
};

// Where a training camera looks, for the ground finder.
CameraPose camera_pose(const Camera& c);

// Makes the plan of `data` (dataset/args fields are left to the caller). Refuses, with a
// glint::Error naming the dataset, a capture it cannot split sensibly: too few views for a
// cell, or an object-centric capture where most views see every cell.
Plan make_plan(const Dataset& data, const PlanSettings& settings);

// The points of `cloud` that lie in the cell's expanded rectangle (points beyond the
// plan's bounds count for the outer cells, as everywhere).
PointCloud cell_points(const Plan& plan, const Cell& cell, const PointCloud& cloud);

}  // namespace glint::partition

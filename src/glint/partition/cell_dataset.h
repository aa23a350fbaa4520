#pragma once
// What one cell trains on: a view of the whole dataset (its training and test views, the
// points in its expanded rectangle, its own camera extent), and the record its finished
// run leaves (done.json), by which `glint train PLAN` skips it and `glint merge` knows it
// is complete.
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "glint/io/dataset.h"
#include "glint/partition/plan.h"

namespace glint::partition {

// The ground rectangle of the box whose pixels a cell trains on: its core and
// crop_margin of the margin around it; on the sides where the core meets the plan's
// bounds it reaches far beyond them (the outer cells own what lies past the bounds, and a
// view's far ground, horizon or empty background is theirs to fill).
GroundRect crop_rect(const Plan& plan, std::size_t cell);

// The boxes whose pixels a cell trains on: crop_rect cut into kCropGrid x kCropGrid
// rectangles (a grid over its part inside the plan's bounds, the outer rectangles reaching
// as far as crop_rect does), each from the ground to the highest of `points` above it, at
// most the cell's top (the ground alone where no point is). One box over all of crop_rect
// up to the top when the points are random (no heights to go by) or none is in it. A box
// to the cell's top everywhere would take in, in every oblique view, the ground beyond the
// cell seen through the empty air over its low parts: pixels of other cells, which this
// cell would fill with splats that the merge throws away.
inline constexpr int kCropGrid = 8;
std::vector<std::array<Vec3d, 8>> crop_boxes(const Plan& plan, std::size_t cell, const PointCloud& points,
                                             bool points_random);

// The dataset of cell `cell`: the plan's views of each split and points, with the scene's
// centre and radius recomputed from the cell's training cameras (a cell is trained as a
// scene of its own). With the plan's crop_views, each view is cut to the smallest pixel
// rectangle holding what it shows of the crop_boxes (of the dataset's points), at least
// kMinCropSide pixels a side; a view none of the boxes reaches is left out.
inline constexpr int kMinCropSide = 32;
Dataset cell_dataset(const Dataset& full, const Plan& plan, std::size_t cell);

// A digest of what a cell trains on (dataset, dataset flags, rectangles, views): a record
// from another plan does not match.
std::string cell_fingerprint(const Plan& plan, std::size_t cell);

// done.json of a cell's folder, written when its training has finished.
struct CellRecord {
  std::size_t cell = 0;
  std::string fingerprint;
  long steps = 0;
  std::size_t splats = 0;
  std::string options;  // the resolved training options as JSON (TrainOptions::to_json)
};

std::string cell_record_path(const std::string& folder);
void write_cell_record(const std::string& folder, const CellRecord& record);
// The record, or nothing when the folder has none; throws glint::Error for a damaged one.
std::optional<CellRecord> read_cell_record(const std::string& folder);
// Removes a record (before a cell trains again, so that an interrupted run is never taken
// for a finished one).
void remove_cell_record(const std::string& folder);

}  // namespace glint::partition

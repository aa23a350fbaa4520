#pragma once
// What one cell trains on: a view of the whole dataset (its training and test views, the
// points in its expanded rectangle, its own camera extent), and the record its finished
// run leaves (done.json), by which `glint train PLAN` skips it and `glint merge` knows it
// is complete.
#include <optional>
#include <string>

#include "glint/io/dataset.h"
#include "glint/partition/plan.h"

namespace glint::partition {

// The ground rectangle of the box whose pixels a cell trains on: its core and
// crop_margin of the margin around it; on the sides where the core meets the plan's
// bounds it reaches far beyond them (the outer cells own what lies past the bounds, and a
// view's far ground, horizon or empty background is theirs to fill).
GroundRect crop_rect(const Plan& plan, std::size_t cell);

// The dataset of cell `cell`: the plan's views of each split and points, with the scene's
// centre and radius recomputed from the cell's training cameras (a cell is trained as a
// scene of its own). With the plan's crop_views, each view is cut to the pixel rectangle
// that the box over crop_rect (from the ground to the cell's top) covers, at least
// kMinCropSide pixels a side; a view the box does not reach is left out.
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

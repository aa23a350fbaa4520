#pragma once
// Cells back into one model: each cell contributes the splats whose centres lie in its
// core rectangle. The cores tile the ground and every point has exactly one owner
// (Plan::owner), so nothing is counted twice and nothing at a seam is lost.
#include <vector>

#include "glint/core/gaussians.h"
#include "glint/partition/plan.h"

namespace glint::partition {

// The rows of `m` listed in `rows`, in that order.
GaussianModel take_rows(const GaussianModel& m, const std::vector<std::size_t>& rows);

// The splats of `cell_model` (the model cell `cell` trained) that the cell owns.
std::vector<std::size_t> owned_rows(const Plan& plan, std::size_t cell, const GaussianModel& cell_model);

// Builds the merged model one cell at a time, so that only the merged model and one cell's
// model need to be in memory: add() each cell once, in any order; take() then returns the
// owned splats cell by cell (cell 0's first), each cell's in its own order.
class CellMerger {
 public:
  explicit CellMerger(const Plan& plan);
  // Keeps the splats of `model` that cell `cell` owns. Throws glint::Error naming the cell
  // when it was added already or disagrees with the cells before it on the 2D filter.
  void add(std::size_t cell, const GaussianModel& model);
  std::size_t kept(std::size_t cell) const { return kept_.at(cell); }
  // The merged model; throws glint::Error naming the first cell not added.
  GaussianModel take();

 private:
  const Plan& plan_;
  std::vector<GaussianModel> parts_;
  std::vector<bool> added_;
  std::vector<std::size_t> kept_;
  int antialiased_ = -1;  // unknown until the first cell
};

// One model of every cell's owned splats, cell by cell, each in its own order. The SH
// degree is the highest of the cells' (coefficients above a cell's degree are zero). All
// cells must agree on the 2D filter (GaussianModel::antialiased); a mismatch throws
// glint::Error naming the cell. `kept`, when given, receives each cell's count.
GaussianModel merge_cells(const Plan& plan, const std::vector<GaussianModel>& cells,
                          std::vector<std::size_t>* kept = nullptr);

// The splats of a whole model that lie in a cell's expanded rectangle: what a cell's model
// covers, for tests and for starting cells from a model.
GaussianModel cut_cell(const Plan& plan, std::size_t cell, const GaussianModel& model);

// Whether a view looks across a border between cells: of its rays that meet the ground, at
// least `min_share` meet it in each of two or more cells (ground_footprint_shares). The
// merged model's held-out views are scored apart by this, to show seams.
bool looks_across_border(const Plan& plan, const Camera& camera, double min_share = 0.15);

// How far a world point lies on the ground from the nearest point another cell owns: the
// distance from its ground position (clamped into the plan's bounds, as ownership is) to
// the nearest edge of its owner's core that another core shares. Infinite in a plan of one
// cell. Seams show as error that rises as this falls (bench/seam_profile.cpp).
double border_distance(const Plan& plan, Vec3d world);

}  // namespace glint::partition

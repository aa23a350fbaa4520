#include "glint/partition/merge.h"

#include <algorithm>
#include <limits>

#include "glint/core/error.h"
#include "glint/partition/box_coverage.h"

namespace glint::partition {

namespace {

Vec3d mean_of(const GaussianModel& m, std::size_t i) { return {m.means[3 * i], m.means[3 * i + 1], m.means[3 * i + 2]}; }

template <class T>
void append_rows(std::vector<T>& dst, const std::vector<T>& src, std::size_t row, std::size_t width) {
  dst.insert(dst.end(), src.begin() + static_cast<long>(row * width), src.begin() + static_cast<long>((row + 1) * width));
}

void append_row(GaussianModel& dst, const GaussianModel& src, std::size_t i) {
  append_rows(dst.means, src.means, i, 3);
  append_rows(dst.log_scales, src.log_scales, i, 3);
  append_rows(dst.quats, src.quats, i, 4);
  append_rows(dst.opacity_logits, src.opacity_logits, i, 1);
  append_rows(dst.sh_dc, src.sh_dc, i, 3);
  append_rows(dst.sh_rest, src.sh_rest, i, static_cast<std::size_t>(kShRestCoeffs) * 3);
}

void reserve_rows(GaussianModel& m, std::size_t n) {
  m.means.reserve(3 * n);
  m.log_scales.reserve(3 * n);
  m.quats.reserve(4 * n);
  m.opacity_logits.reserve(n);
  m.sh_dc.reserve(3 * n);
  m.sh_rest.reserve(static_cast<std::size_t>(kShRestCoeffs) * 3 * n);
}

}  // namespace

GaussianModel take_rows(const GaussianModel& m, const std::vector<std::size_t>& rows) {
  GaussianModel out;
  out.sh_degree = m.sh_degree;
  out.antialiased = m.antialiased;
  reserve_rows(out, rows.size());
  for (std::size_t i : rows) append_row(out, m, i);
  return out;
}

std::vector<std::size_t> owned_rows(const Plan& plan, std::size_t cell, const GaussianModel& m) {
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < m.size(); ++i)
    if (plan.owner(mean_of(m, i)) == cell) rows.push_back(i);
  return rows;
}

CellMerger::CellMerger(const Plan& plan)
    : plan_(plan), parts_(plan.cells.size()), added_(plan.cells.size(), false), kept_(plan.cells.size(), 0) {}

void CellMerger::add(std::size_t cell, const GaussianModel& model) {
  if (cell >= plan_.cells.size())
    throw Error("cell " + std::to_string(cell) + ": the plan has " + std::to_string(plan_.cells.size()) + " cells");
  if (added_[cell]) throw Error("cell " + std::to_string(cell) + ": merged twice");
  if (antialiased_ >= 0 && (antialiased_ == 1) != model.antialiased)
    throw Error("cell " + std::to_string(cell) + " was trained " + (model.antialiased ? "with" : "without") +
                " the 2D filter (--antialiased) and the cells before it " + (antialiased_ ? "with" : "without") +
                " it: train every cell alike");
  antialiased_ = model.antialiased ? 1 : 0;
  parts_[cell] = take_rows(model, owned_rows(plan_, cell, model));
  kept_[cell] = parts_[cell].size();
  added_[cell] = true;
}

GaussianModel CellMerger::take() {
  GaussianModel out;
  std::size_t total = 0;
  for (std::size_t k = 0; k < parts_.size(); ++k) {
    if (!added_[k]) throw Error("cell " + std::to_string(k) + ": missing from the merge");
    total += parts_[k].size();
    out.sh_degree = std::max(out.sh_degree, parts_[k].sh_degree);
  }
  out.antialiased = antialiased_ == 1;
  reserve_rows(out, total);
  for (GaussianModel& part : parts_) {
    for (std::size_t i = 0; i < part.size(); ++i) append_row(out, part, i);
    part = GaussianModel{};
  }
  return out;
}

GaussianModel merge_cells(const Plan& plan, const std::vector<GaussianModel>& cells, std::vector<std::size_t>* kept) {
  if (cells.size() != plan.cells.size())
    throw Error("merge: " + std::to_string(cells.size()) + " cell models for a plan of " +
                std::to_string(plan.cells.size()) + " cells");
  CellMerger merger(plan);
  for (std::size_t k = 0; k < cells.size(); ++k) merger.add(k, cells[k]);
  if (kept) {
    kept->clear();
    for (std::size_t k = 0; k < cells.size(); ++k) kept->push_back(merger.kept(k));
  }
  return merger.take();
}

GaussianModel cut_cell(const Plan& plan, std::size_t cell, const GaussianModel& model) {
  std::vector<std::size_t> rows;
  const Cell& c = plan.cells.at(cell);
  for (std::size_t i = 0; i < model.size(); ++i)
    if (contains_clamped(c.expanded, plan.bounds, plan.ground(mean_of(model, i)))) rows.push_back(i);
  return take_rows(model, rows);
}

bool looks_across_border(const Plan& plan, const Camera& camera, double min_share) {
  std::vector<GroundRect> cores;
  for (const Cell& c : plan.cells) cores.push_back(c.core);
  const std::vector<double> share = ground_footprint_shares(camera, plan.frame, cores, plan.bounds);
  double ground = 0;
  for (double s : share) ground += s;
  if (ground <= 0) return false;
  int cells = 0;
  for (double s : share) cells += s >= min_share * ground;
  return cells >= 2;
}

double border_distance(const Plan& plan, Vec3d world) {
  const GroundRect& b = plan.bounds;
  const GroundRect& c = plan.cells[plan.owner(world)].core;
  const Vec2d g = plan.ground(world);
  const double u = std::clamp(g.x, b.u0, b.u1), v = std::clamp(g.y, b.v0, b.v1);
  // the cores tile the bounds: an edge that is not on the bounds is another core's too
  double d = std::numeric_limits<double>::infinity();
  if (c.u0 > b.u0) d = std::min(d, u - c.u0);
  if (c.u1 < b.u1) d = std::min(d, c.u1 - u);
  if (c.v0 > b.v0) d = std::min(d, v - c.v0);
  if (c.v1 < b.v1) d = std::min(d, c.v1 - v);
  return d;
}

}  // namespace glint::partition

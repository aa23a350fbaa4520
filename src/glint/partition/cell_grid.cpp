#include "glint/partition/cell_grid.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "glint/core/error.h"

namespace glint::partition {

namespace {

// Cut values that divide sorted `x` into `parts` runs of about equal length, never between
// equal values. `what` names the direction for the error.
std::vector<double> equal_count_cuts(const std::vector<double>& x, int parts, const std::string& what) {
  std::vector<double> cuts;
  const long n = static_cast<long>(x.size());
  // Coordinates closer than this are one position (a spot shot at several headings, its
  // copies a rounding apart after a change of world axes).
  const double tie = x.empty() ? 0.0 : 1e-9 * std::max({std::abs(x.front()), std::abs(x.back()), x.back() - x.front()});
  long prev = 0;
  for (int i = 1; i < parts; ++i) {
    const long ideal = std::lround(static_cast<double>(i) * static_cast<double>(n) / parts);
    const long left = parts - i;  // runs still to come after this cut, each needs a camera
    long best = -1;
    // The valid position nearest the ideal count (the lower one on a tie).
    for (long d = 0; d <= n && best < 0; ++d) {
      for (long j : {ideal - d, ideal + d}) {
        if (j <= prev || j > n - left || x[static_cast<std::size_t>(j)] - x[static_cast<std::size_t>(j - 1)] <= tie) continue;
        best = j;
        break;
      }
    }
    if (best < 0)
      throw Error("cannot split " + std::to_string(n) + " cameras into " + std::to_string(parts) + " " + what +
                  ": too few distinct camera positions; ask for fewer cells");
    cuts.push_back(0.5 * (x[static_cast<std::size_t>(best - 1)] + x[static_cast<std::size_t>(best)]));
    prev = best;
  }
  return cuts;
}

}  // namespace

GridShape parse_grid_shape(const std::string& text) {
  std::istringstream in(text);
  long m = 0, n = 0;
  char x = 0;
  if (!(in >> m >> x >> n) || (x != 'x' && x != 'X') || !in.eof() || m < 1 || n < 1 || m > 1000 || n > 1000)
    throw Error("--cells: expected MxN with M strips and N cells each (1-1000), e.g. 2x2, not '" + text + "'");
  return {static_cast<int>(m), static_cast<int>(n)};
}

GridShape grid_shape_for(std::size_t cameras, std::size_t cameras_per_cell, double width, double depth) {
  const long cells = std::max(1L, std::lround(static_cast<double>(cameras) / static_cast<double>(cameras_per_cell)));
  GridShape best;
  double best_cost = std::numeric_limits<double>::infinity();
  for (long m = 1; m <= cells; ++m) {
    if (cells % m != 0) continue;
    const long n = cells / m;
    const double cell_w = std::max(width, 1e-12) / static_cast<double>(m);
    const double cell_d = std::max(depth, 1e-12) / static_cast<double>(n);
    const double cost = std::abs(std::log(cell_w / cell_d));
    if (cost < best_cost) {
      best_cost = cost;
      best = {static_cast<int>(m), static_cast<int>(n)};
    }
  }
  return best;
}

std::vector<GroundRect> split_cameras(const std::vector<Vec2d>& cameras, GridShape shape, const GroundRect& bounds) {
  std::vector<double> us;
  for (const Vec2d& c : cameras) us.push_back(c.x);
  std::sort(us.begin(), us.end());
  const std::vector<double> ucuts = equal_count_cuts(us, shape.strips, "strips along the ground's long axis");

  std::vector<GroundRect> cells;
  for (int s = 0; s < shape.strips; ++s) {
    const double u0 = s == 0 ? bounds.u0 : ucuts[static_cast<std::size_t>(s - 1)];
    const double u1 = s == shape.strips - 1 ? bounds.u1 : ucuts[static_cast<std::size_t>(s)];
    const GroundRect strip{u0, u1, bounds.v0, bounds.v1};
    std::vector<double> vs;
    for (const Vec2d& c : cameras)
      if (contains_clamped(strip, bounds, c)) vs.push_back(c.y);
    std::sort(vs.begin(), vs.end());
    const std::vector<double> vcuts =
        equal_count_cuts(vs, shape.cells_per_strip, "cells within strip " + std::to_string(s));
    for (int r = 0; r < shape.cells_per_strip; ++r) {
      const double v0 = r == 0 ? bounds.v0 : vcuts[static_cast<std::size_t>(r - 1)];
      const double v1 = r == shape.cells_per_strip - 1 ? bounds.v1 : vcuts[static_cast<std::size_t>(r)];
      cells.push_back({u0, u1, v0, v1});
    }
  }
  return cells;
}

}  // namespace glint::partition

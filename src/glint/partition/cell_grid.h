#pragma once
// Splitting the ground into cells with about equal numbers of training cameras: strips
// along u first, then cells along v within each strip.
#include <string>
#include <vector>

#include "glint/core/math.h"
#include "glint/partition/ground_rect.h"

namespace glint::partition {

// Strips along u (columns) and cells per strip (rows).
struct GridShape {
  int strips = 1;
  int cells_per_strip = 1;
  int count() const { return strips * cells_per_strip; }
};

// "MxN" (M strips, N cells each); throws glint::Error for anything else.
GridShape parse_grid_shape(const std::string& text);

// The shape for cells of about `cameras_per_cell` cameras each on a ground of the given
// extent: round(cameras / per_cell) cells (at least 1), laid out so that cells are as close
// to square as the extent allows.
GridShape grid_shape_for(std::size_t cameras, std::size_t cameras_per_cell, double width, double depth);

// Core rectangles tiling `bounds`, cell k = strip * cells_per_strip + row. Each cut lies
// halfway between two neighbouring camera coordinates, at the count that divides the
// cameras most evenly (cameras at one position, e.g. one spot shot at four headings, stay
// together). Throws glint::Error when the cameras cannot be divided so (fewer distinct
// positions than cells along a direction).
std::vector<GroundRect> split_cameras(const std::vector<Vec2d>& cameras, GridShape shape, const GroundRect& bounds);

}  // namespace glint::partition

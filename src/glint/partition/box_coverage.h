#pragma once
// How much of a camera's image a region of the scene fills: the visibility rule that adds
// views to a cell (the share of the image covered by the cell's box), and which cells a
// view looks at (the share of its rays that meet the ground in each cell).
#include <array>
#include <vector>

#include "glint/core/camera.h"
#include "glint/partition/ground_frame.h"
#include "glint/partition/ground_rect.h"

namespace glint::partition {

// The 8 corners of the box over `rect` from height h0 to h1 in world coordinates; corner
// i has u from bit 0, v from bit 1 and the height from bit 2.
std::array<Vec3d, 8> ground_box(const GroundFrame& frame, const GroundRect& rect, double h0, double h1);

// The share of the image (0..1) covered by the box's projection: the box clipped to the
// space in front of the camera, projected, its outline (convex) clipped to the image
// rectangle, area over image area. Exact, up to rounding; occlusion is not considered.
double box_image_share(const Camera& camera, const std::array<Vec3d, 8>& corners);

// Pixel rectangle [x0, x1) x [y0, y1) of an image.
struct PixelWindow {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  int width() const { return x1 - x0; }
  int height() const { return y1 - y0; }
  bool empty() const { return x1 <= x0 || y1 <= y0; }
};

// The smallest pixel rectangle holding the box's projection inside the image (its outline
// as box_image_share clips it, rounded out to whole pixels); empty when the box is not in
// the image.
PixelWindow box_image_window(const Camera& camera, const std::array<Vec3d, 8>& corners);

// For each of `cells` (rectangles tiling `bounds`): the share of the image's rays (a grid
// of samples x samples*height/width pixel centres) that meet the ground plane in that cell.
// Rays that miss the ground (above the horizon) count for none.
std::vector<double> ground_footprint_shares(const Camera& camera, const GroundFrame& frame,
                                            const std::vector<GroundRect>& cells, const GroundRect& bounds,
                                            int samples = 64);

}  // namespace glint::partition

#include "glint/partition/seam_band.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "glint/light/geometry.h"
#include "glint/partition/merge.h"

namespace glint::partition {

SeamWidths seam_widths(const Plan& plan) {
  if (plan.cells.size() < 2) return {};
  double side = std::numeric_limits<double>::infinity();
  for (const Cell& c : plan.cells) {  // within the bounds: the outer cores reach past them
    const GroundRect r = c.core.clipped_to(plan.bounds);
    side = std::min({side, r.width(), r.depth()});
  }
  if (!(side > 0) || !std::isfinite(side)) return {};
  return {0.1 * side, 0.075 * side, 0.05 * side};
}

std::vector<std::size_t> rows_near_borders(const Plan& plan, const GaussianModel& model, double width) {
  std::vector<std::size_t> rows;
  for (std::size_t i = 0; i < model.size(); ++i) {
    const Vec3d p{model.means[3 * i], model.means[3 * i + 1], model.means[3 * i + 2]};
    if (border_distance(plan, p) < width) rows.push_back(i);
  }
  return rows;
}

Image8 border_pixels(const Plan& plan, const Camera& camera, const ImageF& depth, double width) {
  Image8 mask;
  mask.width = camera.width;
  mask.height = camera.height;
  mask.channels = 1;
  mask.data.assign(static_cast<std::size_t>(camera.width) * static_cast<std::size_t>(camera.height), 0);
  const Mat3d to_world = transpose(camera.R);
  for (int y = 0; y < camera.height; ++y)
    for (int x = 0; x < camera.width; ++x) {
      const std::size_t p = static_cast<std::size_t>(y) * static_cast<std::size_t>(camera.width) + static_cast<std::size_t>(x);
      const float z = depth.data[p];
      if (!valid_depth(z)) continue;
      if (border_distance(plan, to_world * (backproject(camera, x, y, z) - camera.t)) < width) mask.data[p] = 255;
    }
  return mask;
}

}  // namespace glint::partition

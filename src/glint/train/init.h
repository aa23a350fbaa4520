#pragma once
// The initial model from a sparse point cloud, as 3DGS's create_from_pcd: one isotropic
// splat a point, sized by its nearest neighbours.
#include <cstddef>
#include <vector>

#include "glint/core/gaussians.h"
#include "glint/io/colmap.h"

namespace glint {

struct InitOptions {
  float opacity = 0.1f;      // initial opacity (stored as its logit)
  int neighbours = 3;        // k of the k-nearest-neighbour distance
  float min_dist2 = 1e-7f;   // floor of the mean squared distance (3DGS clamp_min)
};

// means = points; SH DC = (rgb / 255 - 0.5) / C0, rest 0; log scale = log(sqrt(mean
// squared distance to the k nearest other points)) on all three axes; quaternion
// (1, 0, 0, 0); opacity logit(opacity). sh_degree is 0 (the schedule raises it).
// The distances are exact (a k-d tree), where 3DGS's simple-knn approximates them.
GaussianModel init_from_points(const PointCloud& points, const InitOptions& options = {});

// Mean squared distance of each point to its k nearest other points (fewer when the
// cloud has fewer), floored at min_dist2; min_dist2 for a lone point. xyz: [n,3].
std::vector<float> mean_knn_dist2(const std::vector<float>& xyz, int k, float min_dist2);

}  // namespace glint

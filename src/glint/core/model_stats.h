#pragma once
// Summary figures of a splat model (what `glint info` prints), computed apart from the
// printing so they can be tested and reused (e.g. by training reports).
#include <cstddef>

#include "glint/core/gaussians.h"

namespace glint {

struct ValueSummary {
  double min = 0, mean = 0, median = 0, max = 0;
};

struct ModelStats {
  std::size_t count = 0;
  int sh_degree = 0;
  double bounds_min[3] = {0, 0, 0}, bounds_max[3] = {0, 0, 0};
  // 1st and 99th percentile per axis: the extent without the few far-flung floaters.
  double robust_min[3] = {0, 0, 0}, robust_max[3] = {0, 0, 0};
  ValueSummary opacity;  // sigmoid of the logits
  std::size_t nearly_transparent = 0;  // opacity below kNearlyTransparent
  ValueSummary max_scale;  // largest axis of exp(log-scale), per splat
  double anisotropy_median = 0;  // largest / smallest axis
};

inline constexpr double kNearlyTransparent = 0.005;

// All zeros for an empty model.
ModelStats compute_model_stats(const GaussianModel& m);

}  // namespace glint

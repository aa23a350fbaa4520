#include "glint/train/init.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <nanoflann.hpp>

namespace glint {
namespace {

struct CloudAdaptor {
  const std::vector<float>& xyz;
  std::size_t kdtree_get_point_count() const { return xyz.size() / 3; }
  float kdtree_get_pt(std::size_t i, std::size_t d) const { return xyz[3 * i + d]; }
  template <class Box>
  bool kdtree_get_bbox(Box&) const {
    return false;
  }
};

using KdTree = nanoflann::KDTreeSingleIndexAdaptor<nanoflann::L2_Simple_Adaptor<float, CloudAdaptor>, CloudAdaptor,
                                                   3, std::uint32_t>;

}  // namespace

std::vector<float> mean_knn_dist2(const std::vector<float>& xyz, int k, float min_dist2) {
  const std::size_t n = xyz.size() / 3;
  std::vector<float> out(n, min_dist2);
  if (n < 2 || k <= 0) return out;
  CloudAdaptor cloud{xyz};
  KdTree tree(3, cloud, nanoflann::KDTreeSingleIndexAdaptorParams(10));
  const std::size_t want = std::min<std::size_t>(static_cast<std::size_t>(k) + 1, n);
  const long count = static_cast<long>(n);
  // Queries are read-only on the tree; each point's result is independent of the others.
#pragma omp parallel if (n >= 1024)
  {
    std::vector<std::uint32_t> idx(want);
    std::vector<float> d2(want);
#pragma omp for schedule(static)
    for (long i = 0; i < count; ++i) {
      const std::size_t found = tree.knnSearch(&xyz[3 * i], want, idx.data(), d2.data());
      // Drop the point itself; with exact duplicates it may not be listed first (or at
      // all), in which case the farthest result goes instead.
      std::size_t skip = found - 1;
      for (std::size_t j = 0; j < found; ++j)
        if (idx[j] == static_cast<std::uint32_t>(i)) {
          skip = j;
          break;
        }
      double sum = 0;
      std::size_t used = 0;
      for (std::size_t j = 0; j < found; ++j)
        if (j != skip) sum += d2[j], ++used;
      const float mean = used ? static_cast<float>(sum / static_cast<double>(used)) : min_dist2;
      out[i] = std::max(mean, min_dist2);
    }
  }
  return out;
}

GaussianModel init_from_points(const PointCloud& points, const InitOptions& o) {
  const std::size_t n = points.size();
  GaussianModel m;
  m.sh_degree = 0;
  m.resize(n);
  std::copy_n(points.xyz.begin(), 3 * n, m.means.begin());
  const std::vector<float> d2 = mean_knn_dist2(points.xyz, o.neighbours, o.min_dist2);
  const float logit = std::log(o.opacity / (1.f - o.opacity));
  const bool has_rgb = points.rgb.size() >= 3 * n;
  for (std::size_t i = 0; i < n; ++i) {
    const float ls = std::log(std::sqrt(d2[i]));
    for (int a = 0; a < 3; ++a) {
      m.log_scales[3 * i + a] = ls;
      const float c = has_rgb ? points.rgb[3 * i + a] / 255.f : 0.5f;
      m.sh_dc[3 * i + a] = (c - 0.5f) / kShC0;
    }
    m.quats[4 * i] = 1.f;
    m.opacity_logits[i] = logit;
  }
  return m;
}

}  // namespace glint

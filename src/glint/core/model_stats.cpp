#include "glint/core/model_stats.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace glint {
namespace {

// Linear interpolation between the closest ranks; reorders v.
double percentile(std::vector<double>& v, double p) {
  const double pos = p * static_cast<double>(v.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(pos);
  std::nth_element(v.begin(), v.begin() + static_cast<long>(lo), v.end());
  const double a = v[lo];
  if (lo + 1 >= v.size()) return a;
  const double b = *std::min_element(v.begin() + static_cast<long>(lo) + 1, v.end());
  return a + (b - a) * (pos - static_cast<double>(lo));
}

ValueSummary summarise(std::vector<double>& v) {
  ValueSummary s;
  double sum = 0;
  s.min = s.max = v[0];
  for (double x : v) {
    sum += x;
    s.min = std::min(s.min, x);
    s.max = std::max(s.max, x);
  }
  s.mean = sum / static_cast<double>(v.size());
  s.median = percentile(v, 0.5);
  return s;
}

}  // namespace

ModelStats compute_model_stats(const GaussianModel& m) {
  ModelStats st;
  st.count = m.size();
  st.sh_degree = m.sh_degree;
  const std::size_t n = m.size();
  if (n == 0) return st;

  std::vector<double> v(n);
  for (int c = 0; c < 3; ++c) {
    for (std::size_t i = 0; i < n; ++i) v[i] = m.means[i * 3 + c];
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    st.bounds_min[c] = *lo;
    st.bounds_max[c] = *hi;
    st.robust_min[c] = percentile(v, 0.01);
    st.robust_max[c] = percentile(v, 0.99);
  }

  for (std::size_t i = 0; i < n; ++i) {
    v[i] = 1.0 / (1.0 + std::exp(-static_cast<double>(m.opacity_logits[i])));
    if (v[i] < kNearlyTransparent) ++st.nearly_transparent;
  }
  st.opacity = summarise(v);

  std::vector<double> ratio(n);
  for (std::size_t i = 0; i < n; ++i) {
    const float* s = &m.log_scales[i * 3];
    const double hi = std::max({s[0], s[1], s[2]}), lo = std::min({s[0], s[1], s[2]});
    v[i] = std::exp(hi);
    ratio[i] = std::exp(hi - lo);  // as a log difference: no overflow for tiny smallest axes
  }
  st.max_scale = summarise(v);
  st.anisotropy_median = percentile(ratio, 0.5);
  return st;
}

}  // namespace glint

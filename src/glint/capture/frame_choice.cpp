#include "glint/capture/frame_choice.h"

namespace glint::capture {

double laplacian_variance(const std::uint8_t* g, int w, int h) {
  if (w < 3 || h < 3) return 0;
  double sum = 0, sum2 = 0;
  for (int y = 1; y + 1 < h; ++y) {
    const std::uint8_t* r = g + static_cast<std::size_t>(y) * static_cast<std::size_t>(w);
    const std::uint8_t* up = r - w;
    const std::uint8_t* down = r + w;
    // Integer sums per row: exact, and the row loop vectorises.
    long long s = 0, s2 = 0;
    for (int x = 1; x + 1 < w; ++x) {
      const int l = up[x] + down[x] + r[x - 1] + r[x + 1] - 4 * r[x];
      s += l;
      s2 += static_cast<long long>(l) * l;
    }
    sum += static_cast<double>(s);
    sum2 += static_cast<double>(s2);
  }
  const double n = static_cast<double>(w - 2) * static_cast<double>(h - 2);
  const double mean = sum / n;
  return sum2 / n - mean * mean;
}

std::vector<long> sharpest_per_window(const std::vector<double>& scores, long n) {
  const long t = static_cast<long>(scores.size());
  std::vector<long> keep;
  if (n <= 0 || t == 0) return keep;
  if (n >= t) {
    for (long i = 0; i < t; ++i) keep.push_back(i);
    return keep;
  }
  for (long k = 0; k < n; ++k) {
    const long begin = k * t / n, end = (k + 1) * t / n;
    long best = begin;
    for (long i = begin + 1; i < end; ++i)
      if (scores[static_cast<std::size_t>(i)] > scores[static_cast<std::size_t>(best)]) best = i;
    keep.push_back(best);
  }
  return keep;
}

}  // namespace glint::capture

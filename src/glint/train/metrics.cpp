#include "glint/train/metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "glint/core/error.h"
#include "glint/train/ssim.h"

namespace glint {
namespace {

template <class Im>
void check_sizes(const Im& a, const Im& b, const char* what) {
  if (a.width != b.width || a.height != b.height || a.channels != b.channels || a.data.size() != b.data.size())
    throw Error(std::string(what) + ": image sizes differ (" + std::to_string(a.width) + "x" +
                std::to_string(a.height) + "x" + std::to_string(a.channels) + " vs " + std::to_string(b.width) +
                "x" + std::to_string(b.height) + "x" + std::to_string(b.channels) + ")");
}

template <class V, class A>
double psnr_impl(const std::vector<V, A>& a, const std::vector<V, A>& b, double scale) {
  // Sequential sum in double: eval images are small enough and the order is then fixed.
  double se = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    double d = (static_cast<double>(a[i]) - static_cast<double>(b[i])) * scale;
    se += d * d;
  }
  if (a.empty()) return std::numeric_limits<double>::infinity();
  double mse = se / static_cast<double>(a.size());
  if (mse == 0) return std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(1.0 / mse);
}

template <class V, class A>
double ssim_impl(const std::vector<V, A>& a, const std::vector<V, A>& b, int w, int h, int c, double scale) {
  std::vector<double> da(a.size()), db(b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    da[i] = static_cast<double>(a[i]) * scale;
    db[i] = static_cast<double>(b[i]) * scale;
  }
  return ssim<double>(da.data(), db.data(), w, h, c, nullptr);
}

}  // namespace

double psnr(const ImageF& a, const ImageF& b) {
  check_sizes(a, b, "psnr");
  return psnr_impl(a.data, b.data, 1.0);
}
double psnr(const Image8& a, const Image8& b) {
  check_sizes(a, b, "psnr");
  return psnr_impl(a.data, b.data, 1.0 / 255.0);
}
double ssim_metric(const ImageF& a, const ImageF& b) {
  check_sizes(a, b, "ssim");
  return ssim_impl(a.data, b.data, a.width, a.height, a.channels, 1.0);
}
double ssim_metric(const Image8& a, const Image8& b) {
  check_sizes(a, b, "ssim");
  return ssim_impl(a.data, b.data, a.width, a.height, a.channels, 1.0 / 255.0);
}

void clamp01(ImageF& im) {
  for (float& v : im.data) v = std::clamp(v, 0.f, 1.f);
}

}  // namespace glint

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

namespace {
void check_mask(const ImageF& a, const Image8& mask, const char* what) {
  if (mask.width != a.width || mask.height != a.height || mask.channels != 1 ||
      mask.data.size() != static_cast<std::size_t>(a.width) * a.height)
    throw Error(std::string(what) + ": the mask is " + std::to_string(mask.width) + "x" + std::to_string(mask.height) +
                "x" + std::to_string(mask.channels) + ", the images " + std::to_string(a.width) + "x" +
                std::to_string(a.height));
}
}  // namespace

double psnr_masked(const ImageF& a, const ImageF& b, const Image8& mask) {
  check_sizes(a, b, "psnr");
  check_mask(a, mask, "psnr");
  const int c = a.channels;
  double se = 0, wsum = 0;
  for (std::size_t p = 0; p < mask.data.size(); ++p) {
    const double w = mask.data[p] / 255.0;
    wsum += w;
    for (int k = 0; k < c; ++k) {
      const double d = static_cast<double>(a.data[p * c + k]) - static_cast<double>(b.data[p * c + k]);
      se += w * d * d;
    }
  }
  if (!(wsum > 0) || se == 0) return std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(1.0 / (se / (c * wsum)));
}

double ssim_masked(const ImageF& a, const ImageF& b, const Image8& mask) {
  check_sizes(a, b, "ssim");
  check_mask(a, mask, "ssim");
  const int c = a.channels;
  std::vector<double> w(mask.data.size()), da(a.data.size()), db(b.data.size());
  double wsum = 0;
  for (std::size_t p = 0; p < w.size(); ++p) {
    w[p] = mask.data[p] / 255.0;
    wsum += w[p];
    for (int k = 0; k < c; ++k) {
      da[p * c + k] = w[p] * a.data[p * c + k];
      db[p * c + k] = w[p] * b.data[p * c + k];
    }
  }
  const SsimWeights<double> sw{w.data(), wsum};
  return ssim<double>(da.data(), db.data(), a.width, a.height, c, nullptr, nullptr, nullptr, &sw);
}

void clamp01(ImageF& im) {
  for (float& v : im.data) v = std::clamp(v, 0.f, 1.f);
}

}  // namespace glint

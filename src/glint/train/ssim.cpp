#include "glint/train/ssim.h"

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "glint/core/error.h"

namespace glint {
namespace {

constexpr int kRadius = kSsimWindow / 2;

template <class T>
std::array<T, kSsimWindow> gaussian_window() {
  std::array<double, kSsimWindow> g{};
  double sum = 0;
  for (int i = 0; i < kSsimWindow; ++i) {
    double d = i - kRadius;
    g[i] = std::exp(-d * d / (2 * kSsimSigma * kSsimSigma));
    sum += g[i];
  }
  std::array<T, kSsimWindow> out{};
  for (int i = 0; i < kSsimWindow; ++i) out[i] = static_cast<T>(g[i] / sum);
  return out;
}

// Separable 'same' Gaussian blur with zero padding of `n` interleaved planes at once:
// planes[k] is a w x h x c image, out[k] the blurred one; tmp holds the horizontal pass.
// The window is symmetric and zero padding makes the operator its own transpose, which
// the gradient uses. Rows are independent, so threading over them is deterministic.
template <class T, int n>
void blur(const std::array<const T*, n>& planes, const std::array<T*, n>& out, T* tmp, int w, int h, int c) {
  static const std::array<T, kSsimWindow> g = gaussian_window<T>();
  const long row = static_cast<long>(w) * c;
  // Horizontal pass into tmp, laid out as n consecutive images.
#pragma omp parallel for schedule(static) if (static_cast<long>(w) * h * c >= 16384)
  for (int y = 0; y < h; ++y) {
    for (int k = 0; k < n; ++k) {
      const T* src = planes[k] + y * row;
      T* dst = tmp + (static_cast<long>(k) * h + y) * row;
      for (int x = 0; x < w; ++x) {
        int lo = x - kRadius < 0 ? kRadius - x : 0;
        int hi = x + kRadius >= w ? kRadius + (w - 1 - x) : 2 * kRadius;
        for (int ch = 0; ch < c; ++ch) {
          T s = 0;
          for (int i = lo; i <= hi; ++i) s += g[i] * src[(x + i - kRadius) * c + ch];
          dst[x * c + ch] = s;
        }
      }
    }
  }
  // Vertical pass: a row of output reads 11 rows of tmp.
#pragma omp parallel for schedule(static) if (static_cast<long>(w) * h * c >= 16384)
  for (int y = 0; y < h; ++y) {
    int lo = y - kRadius < 0 ? kRadius - y : 0;
    int hi = y + kRadius >= h ? kRadius + (h - 1 - y) : 2 * kRadius;
    for (int k = 0; k < n; ++k) {
      const T* src = tmp + static_cast<long>(k) * h * row;
      T* dst = out[k] + y * row;
      for (long j = 0; j < row; ++j) dst[j] = 0;
      for (int i = lo; i <= hi; ++i) {
        const T* s = src + (y + i - kRadius) * row;
        const T gi = g[i];
        for (long j = 0; j < row; ++j) dst[j] += gi * s[j];
      }
    }
  }
}

}  // namespace

template <class T>
double ssim(const T* a, const T* b, int w, int h, int c, T* grad_a) {
  if (w <= 0 || h <= 0 || c <= 0) return 1.0;
  const long count = static_cast<long>(w) * h * c;
  const long row = static_cast<long>(w) * c;
  const T C1 = static_cast<T>(kSsimC1), C2 = static_cast<T>(kSsimC2);

  // One allocation per call: 5 products, their 5 blurs, and the horizontal-pass scratch.
  std::vector<T> buf(static_cast<std::size_t>(count) * 15);
  T* aa = buf.data();
  T* bb = aa + count;
  T* ab = bb + count;
  T* mu1 = ab + count;  // blur(a)
  T* mu2 = mu1 + count;
  T* e11 = mu2 + count;  // blur(a*a)
  T* e22 = e11 + count;
  T* e12 = e22 + count;
  T* tmp = e12 + count;  // 5 * count
#pragma omp parallel for schedule(static) if (count >= 16384)
  for (long i = 0; i < count; ++i) {
    aa[i] = a[i] * a[i];
    bb[i] = b[i] * b[i];
    ab[i] = a[i] * b[i];
  }
  blur<T, 5>({a, b, aa, bb, ab}, {mu1, mu2, e11, e22, e12}, tmp, w, h, c);

  // SSIM map, per-row sums (combined in row order below) and, for the gradient, the
  // derivatives of each pixel's SSIM w.r.t. its blurred moments mu1, e11 and e12.
  std::vector<double> row_sum(h);
  T* d_mu1 = aa;  // the products are no longer needed
  T* d_e11 = bb;
  T* d_e12 = ab;
#pragma omp parallel for schedule(static) if (count >= 16384)
  for (int y = 0; y < h; ++y) {
    double s = 0;
    for (long j = y * row; j < (y + 1) * row; ++j) {
      T m1 = mu1[j], m2 = mu2[j];
      T s11 = e11[j] - m1 * m1, s22 = e22[j] - m2 * m2, s12 = e12[j] - m1 * m2;
      T A1 = 2 * m1 * m2 + C1, A2 = 2 * s12 + C2;
      T B1 = m1 * m1 + m2 * m2 + C1, B2 = s11 + s22 + C2;
      T den = B1 * B2;
      T v = A1 * A2 / den;
      s += static_cast<double>(v);
      if (grad_a) {
        // ssim = A1*A2/(B1*B2) with s11 = e11 - mu1^2, s12 = e12 - mu1*mu2.
        d_mu1[j] = (2 * m2 * A2 - 2 * m2 * A1) / den - v * 2 * m1 / B1 + v * 2 * m1 / B2;
        d_e11[j] = -v / B2;
        d_e12[j] = 2 * A1 / den;
      }
    }
    row_sum[y] = s;
  }
  double total = 0;
  for (int y = 0; y < h; ++y) total += row_sum[y];
  const double mean = total / static_cast<double>(count);

  if (grad_a) {
    // d mean / d a[q] = (1/count) [blur(d_mu1) + 2 a blur(d_e11) + b blur(d_e12)](q):
    // the blur is self-adjoint (symmetric window, zero padding).
    blur<T, 3>({d_mu1, d_e11, d_e12}, {mu1, e11, e12}, tmp, w, h, c);
    const T inv = static_cast<T>(1.0 / static_cast<double>(count));
#pragma omp parallel for schedule(static) if (count >= 16384)
    for (long i = 0; i < count; ++i) grad_a[i] = inv * (mu1[i] + 2 * a[i] * e11[i] + b[i] * e12[i]);
  }
  return mean;
}

template double ssim<float>(const float*, const float*, int, int, int, float*);
template double ssim<double>(const double*, const double*, int, int, int, double*);

double ssim(const ImageF& a, const ImageF& b, ImageF* grad_a) {
  if (a.width != b.width || a.height != b.height || a.channels != b.channels ||
      a.data.size() != b.data.size())
    throw Error("ssim: image sizes differ (" + std::to_string(a.width) + "x" + std::to_string(a.height) + "x" +
                std::to_string(a.channels) + " vs " + std::to_string(b.width) + "x" +
                std::to_string(b.height) + "x" + std::to_string(b.channels) + ")");
  if (grad_a) *grad_a = ImageF(a.width, a.height, a.channels);
  return ssim<float>(a.data.data(), b.data.data(), a.width, a.height, a.channels,
                     grad_a ? grad_a->data.data() : nullptr);
}

}  // namespace glint

#include "glint/train/ssim.h"

#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "glint/core/error.h"

namespace glint {
namespace {

constexpr int kRadius = kSsimWindow / 2;
// Elementwise passes are cheap and memory-bound, but from 64k values two threads still
// win: training calls this every step, so the threads are awake (loss at 320x240 with the
// loss's own threshold also at 64k: 3.4 -> 2.6 ms a step).
constexpr long kMinParallelElementwise = 1L << 16;
// The SSIM map itself is not memory-bound (a division and ~30 flops per value): it pays
// off from the blurs' size on.
constexpr long kMinParallelMap = 1L << 16;

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

// dst[j] = sum_i g[i] * src[i][j] for j < n, accumulated from 0 in tap order i = 0..10:
// the inner loop of both blur passes (a tap reading zero padding adds exactly +0). One
// store per output, the 11 taps in registers. Compiled for AVX2 and for baseline x86-64
// (target_clones picks at load time); no FMA either way, so both give identical results.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define GLINT_SIMD_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define GLINT_SIMD_CLONES
#endif
template <class T>
inline void conv11_impl(T* __restrict dst, const T* const* src, const T* g, long n) {
  const T* s[kSsimWindow];
  T w[kSsimWindow];
  for (int i = 0; i < kSsimWindow; ++i) {
    s[i] = src[i];
    w[i] = g[i];
  }
  for (long j = 0; j < n; ++j) {
    T acc = 0;
    for (int i = 0; i < kSsimWindow; ++i) acc += w[i] * s[i][j];
    dst[j] = acc;
  }
}
GLINT_SIMD_CLONES void conv11(float* dst, const float* const* src, const float* g, long n) {
  conv11_impl(dst, src, g, n);
}
GLINT_SIMD_CLONES void conv11(double* dst, const double* const* src, const double* g, long n) {
  conv11_impl(dst, src, g, n);
}

// Separable 'same' Gaussian blur with zero padding of `n` interleaved planes at once:
// planes[k] is a w x h x c image, out[k] the blurred one; tmp holds the horizontal pass
// (n images); pad holds, per thread, one zero-padded row and one row of zeros. Each output
// value is sum_i g[i] x[i] accumulated from 0 in tap order; a tap in the padding adds
// exactly 0. The window is symmetric and zero padding makes the operator its own
// transpose, which the gradient uses. Rows are independent, so threading over them is
// deterministic.
template <class T, int n>
void blur(const std::array<const T*, n>& planes, const std::array<T*, n>& out, T* tmp, T* pad, int w, int h, int c) {
  static const std::array<T, kSsimWindow> g = gaussian_window<T>();
  const long row = static_cast<long>(w) * c;
  const long padded = row + 2L * kRadius * c;
  const bool par = static_cast<long>(w) * h * c * n >= 65536;
#pragma omp parallel if (par)
  {
#ifdef _OPENMP
    T* p = pad + static_cast<long>(omp_get_thread_num()) * (padded + row);
#else
    T* p = pad;
#endif
    T* zeros = p + padded;
    std::fill(p, p + padded + row, T(0));
    const T* src[kSsimWindow];
    // Horizontal pass into tmp, laid out as n consecutive images.
#pragma omp for schedule(static)
    for (int y = 0; y < h; ++y) {
      for (int k = 0; k < n; ++k) {
        const T* in = planes[k] + y * row;
        std::copy(in, in + row, p + kRadius * c);
        for (int i = 0; i < kSsimWindow; ++i) src[i] = p + static_cast<long>(i) * c;
        conv11(tmp + (static_cast<long>(k) * h + y) * row, src, g.data(), row);
      }
    }
    // Vertical pass: a row of output reads 11 rows of tmp (rows outside read zeros).
#pragma omp for schedule(static)
    for (int y = 0; y < h; ++y) {
      for (int k = 0; k < n; ++k) {
        const T* base = tmp + static_cast<long>(k) * h * row;
        for (int i = 0; i < kSsimWindow; ++i) {
          const int yy = y + i - kRadius;
          src[i] = yy >= 0 && yy < h ? base + static_cast<long>(yy) * row : zeros;
        }
        conv11(out[k] + y * row, src, g.data(), row);
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

  // 5 products, their 5 blurs, the horizontal-pass scratch and padded rows, kept per
  // thread across calls (training calls this every step with the same size).
  const long padded = row + 2L * kRadius * c;
#ifdef _OPENMP
  const long nthreads = omp_get_max_threads();
#else
  const long nthreads = 1;
#endif
  static thread_local std::vector<T> buf;
  const std::size_t need = static_cast<std::size_t>(count) * 15 + static_cast<std::size_t>((padded + row) * nthreads);
  if (buf.size() < need) buf.resize(need);
  T* aa = buf.data();
  T* bb = aa + count;
  T* ab = bb + count;
  T* mu1 = ab + count;  // blur(a)
  T* mu2 = mu1 + count;
  T* e11 = mu2 + count;  // blur(a*a)
  T* e22 = e11 + count;
  T* e12 = e22 + count;
  T* tmp = e12 + count;  // 5 * count
  T* pad = tmp + 5 * count;
#pragma omp parallel for schedule(static) if (count >= kMinParallelElementwise)
  for (long i = 0; i < count; ++i) {
    aa[i] = a[i] * a[i];
    bb[i] = b[i] * b[i];
    ab[i] = a[i] * b[i];
  }
  blur<T, 5>({a, b, aa, bb, ab}, {mu1, mu2, e11, e22, e12}, tmp, pad, w, h, c);

  // SSIM map, per-row sums (combined in row order below) and, for the gradient, the
  // derivatives of each pixel's SSIM w.r.t. its blurred moments mu1, e11 and e12.
  std::vector<double> row_sum(h);
  T* d_mu1 = aa;  // the products are no longer needed
  T* d_e11 = bb;
  T* d_e12 = ab;
#pragma omp parallel for schedule(static) if (count >= kMinParallelMap)
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
    blur<T, 3>({d_mu1, d_e11, d_e12}, {mu1, e11, e12}, tmp, pad, w, h, c);
    const T inv = static_cast<T>(1.0 / static_cast<double>(count));
#pragma omp parallel for schedule(static) if (count >= kMinParallelElementwise)
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
  if (grad_a && (grad_a->width != a.width || grad_a->height != a.height || grad_a->channels != a.channels ||
                 grad_a->data.size() != a.data.size()))
    *grad_a = ImageF(a.width, a.height, a.channels);
  return ssim<float>(a.data.data(), b.data.data(), a.width, a.height, a.channels,
                     grad_a ? grad_a->data.data() : nullptr);
}

}  // namespace glint

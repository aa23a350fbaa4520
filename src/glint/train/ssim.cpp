#include "glint/train/ssim.h"

#include <omp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "glint/core/error.h"
#include "glint/train/row_sum.h"
#include "glint/train/ssim_math.h"

namespace glint {
namespace {

constexpr int kRadius = kSsimWindow / 2;
// Threads from 64k values (planes times pixels times channels): training calls this every
// step, so the threads are awake and a parallel region costs less than it saves.
constexpr long kMinParallel = 1L << 16;

// dst[j] = sum_i g[i] * src[i][j] for j < n, in a fixed order (conv11_impl): the inner
// loop of both blur passes (a tap reading zero padding adds exactly +0). One store per
// output, the 11 taps in registers. The float blur fuses five of its products into the
// sums on CPUs with AVX2 and FMA (chosen at run time, set_ssim_blur), 11 operations an
// output instead of 16, on 16 lanes
// where there is AVX-512 (the same bits); elsewhere, and for double, it runs unfused,
// compiled for AVX2 and baseline x86-64 (target_clones) with the same bits. So on one
// machine the results are the same run to run and for any thread count, and CPUs without
// FMA round the float blur differently, as they do the rasterizer's.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define GLINT_SIMD_CLONES __attribute__((target_clones("avx2", "default")))
// The element-wise float loops (map, products, gradient rows): also an AVX-512 build, on 16
// lanes. No FMA in any of them (this file is built without contraction), so all give the
// same bits (the same SSIM values and gradient hashes as the baseline build).
#define GLINT_WIDE_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define GLINT_SIMD_CLONES
#define GLINT_WIDE_CLONES
#endif
// Both blur kernels sum every value with ssim_window_sum (ssim_math.h), so which one
// computes a row does not change its bits.
template <class T, class MulAdd>
inline T window_sum(const T* w, const T* x, MulAdd madd) {
  return ssim_window_sum(w, x, madd);
}
template <class T, class MulAdd>
inline void conv11_impl(T* __restrict dst, const T* const* src, const T* g, long n, MulAdd madd) {
  const T* s[kSsimWindow];
  T w[kSsimWindow];
  for (int i = 0; i < kSsimWindow; ++i) {
    s[i] = src[i];
    w[i] = g[i];
  }
  for (long j = 0; j < n; ++j) {
    T x[kSsimWindow];
    for (int i = 0; i < kSsimWindow; ++i) x[i] = s[i][j];
    dst[j] = window_sum(w, x, madd);
  }
}
// Four output rows of the vertical pass at once, from the 14 input rows src[0..13] (output
// row r reads src[r..r+10]), each value window_sum's, so the bits are conv11_impl's. One
// load of an input row feeds up to four outputs, so the vertical pass reads the ring (three
// planes of 11 rows are 80 KB at 200x200, more than L1) 3.5 times a value instead of 11,
// which makes the loss markedly cheaper. Eight rows at once, as GCC 12 compiled them, were
// far slower.
constexpr int kBlurRows = 4;
template <class T, class MulAdd>
inline void conv11x4_impl(T* __restrict d0, T* __restrict d1, T* __restrict d2, T* __restrict d3, const T* const* src,
                          const T* g, long n, MulAdd madd) {
  constexpr int kIn = kSsimWindow + kBlurRows - 1;
  const T* s[kIn];
  T w[kSsimWindow];
  for (int i = 0; i < kIn; ++i) s[i] = src[i];
  for (int i = 0; i < kSsimWindow; ++i) w[i] = g[i];
  for (long j = 0; j < n; ++j) {
    T x[kIn];
    for (int i = 0; i < kIn; ++i) x[i] = s[i][j];
    d0[j] = window_sum(w, x, madd);
    d1[j] = window_sum(w, x + 1, madd);
    d2[j] = window_sum(w, x + 2, madd);
    d3[j] = window_sum(w, x + 3, madd);
  }
}
#if defined(__x86_64__) && defined(__GNUC__)
#define GLINT_FMA_BLUR 1
__attribute__((target("avx2,fma"))) void conv11x4_fma(float* const* d, const float* const* src, const float* g, long n) {
  conv11x4_impl(d[0], d[1], d[2], d[3], src, g, n, [](float a, float b, float c) { return __builtin_fmaf(a, b, c); });
}
__attribute__((target("avx512f,avx512vl,avx2,fma,prefer-vector-width=512"))) void conv11x4_avx512(
    float* const* d, const float* const* src, const float* g, long n) {
  conv11x4_impl(d[0], d[1], d[2], d[3], src, g, n, [](float a, float b, float c) { return __builtin_fmaf(a, b, c); });
}
__attribute__((target("avx2,fma"))) void conv11_fma(float* dst, const float* const* src, const float* g, long n) {
  conv11_impl(dst, src, g, n, [](float a, float b, float c) { return __builtin_fmaf(a, b, c); });
}
// The same sums on 16 lanes where the CPU has AVX-512: the rows are long and contiguous,
// unlike the tile kernels' lane groups, and each lane computes what conv11_fma's does, so
// the bits are the same. It shortens the training step by more than the blur's own share
// (the backward after it also ran faster, for reasons not found).
__attribute__((target("avx512f,avx512vl,avx2,fma,prefer-vector-width=512"))) void conv11_avx512(
    float* dst, const float* const* src, const float* g, long n) {
  conv11_impl(dst, src, g, n, [](float a, float b, float c) { return __builtin_fmaf(a, b, c); });
}
SsimBlur best_blur() {
  static const SsimBlur best = !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) ? SsimBlur::kPlain
                               : __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl")
                                   ? SsimBlur::kAvx512
                                   : SsimBlur::kFma;
  return best;
}
#else
SsimBlur best_blur() { return SsimBlur::kPlain; }
#endif
template <class T>
inline void conv11_plain(T* dst, const T* const* src, const T* g, long n) {
  conv11_impl(dst, src, g, n, [](T a, T b, T c) { return a * b + c; });
}
GLINT_SIMD_CLONES void conv11_unfused(float* dst, const float* const* src, const float* g, long n) {
  conv11_plain(dst, src, g, n);
}
std::atomic<int> g_blur_request{int(SsimBlur::kAuto)};
void conv11(float* dst, const float* const* src, const float* g, long n) {
#ifdef GLINT_FMA_BLUR
  const SsimBlur b = active_ssim_blur();
  if (b == SsimBlur::kAvx512) return conv11_avx512(dst, src, g, n);
  if (b == SsimBlur::kFma) return conv11_fma(dst, src, g, n);
#endif
  conv11_unfused(dst, src, g, n);
}
GLINT_SIMD_CLONES void conv11(double* dst, const double* const* src, const double* g, long n) {
  conv11_plain(dst, src, g, n);
}
GLINT_SIMD_CLONES void conv11x4_unfused(float* const* d, const float* const* src, const float* g, long n) {
  conv11x4_impl(d[0], d[1], d[2], d[3], src, g, n, [](float a, float b, float c) { return a * b + c; });
}
void conv11x4(float* const* d, const float* const* src, const float* g, long n) {
#ifdef GLINT_FMA_BLUR
  const SsimBlur b = active_ssim_blur();
  if (b == SsimBlur::kAvx512) return conv11x4_avx512(d, src, g, n);
  if (b == SsimBlur::kFma) return conv11x4_fma(d, src, g, n);
#endif
  conv11x4_unfused(d, src, g, n);
}
GLINT_SIMD_CLONES void conv11x4(double* const* d, const double* const* src, const double* g, long n) {
  conv11x4_impl(d[0], d[1], d[2], d[3], src, g, n, [](double a, double b, double c) { return a * b + c; });
}

// One row of the SSIM map from the blurred moments m = {mu1, mu2, e11, e22, e12}: the
// values v and, when d_mu1 is given, the derivatives of each value w.r.t. mu1, e11 and e12
// (for the gradient's blur). Elementwise, so it vectorises; compiled for AVX2 and baseline
// with no FMA in either, so both give the same bits.
template <bool kGrad, class T>
inline void map_row_impl(const T* const* m, T C1, T C2, long n, T* __restrict v, T* __restrict d_mu1,
                         T* __restrict d_e11, T* __restrict d_e12) {
  const T *mu1 = m[0], *mu2 = m[1], *e11 = m[2], *e22 = m[3], *e12 = m[4];
  for (long j = 0; j < n; ++j) {
    T dm = 0, d11 = 0, d12 = 0;
    v[j] = ssim_map_value<kGrad>(mu1[j], mu2[j], e11[j], e22[j], e12[j], C1, C2, &dm, &d11, &d12);
    if constexpr (kGrad) {
      d_mu1[j] = dm;
      d_e11[j] = d11;
      d_e12[j] = d12;
    }
  }
}
template <class T>
inline void map_row_any(const T* const* m, T C1, T C2, long n, T* v, T* d_mu1, T* d_e11, T* d_e12) {
  if (d_mu1)
    map_row_impl<true>(m, C1, C2, n, v, d_mu1, d_e11, d_e12);
  else
    map_row_impl<false>(m, C1, C2, n, v, d_mu1, d_e11, d_e12);
}
GLINT_WIDE_CLONES void map_row(const float* const* m, float C1, float C2, long n, float* v, float* d_mu1, float* d_e11,
                               float* d_e12) {
  map_row_any(m, C1, C2, n, v, d_mu1, d_e11, d_e12);
}
GLINT_SIMD_CLONES void map_row(const double* const* m, double C1, double C2, long n, double* v, double* d_mu1,
                               double* d_e11, double* d_e12) {
  map_row_any(m, C1, C2, n, v, d_mu1, d_e11, d_e12);
}

// Per-thread scratch of the banded blur: a ring of kRing rows of the horizontal pass for
// each of up to 5 planes (the 10 + kBlurRows rows that kBlurRows output rows read), one
// zero-padded input row, one row of zeros, and kBlurRows output rows of each plane plus one
// for the SSIM map. Only pad's borders and zeros must hold zeros (clear_borders); every
// other value is written before it is read. Rows start on cache lines (the base is 64-byte
// aligned, strides are whole lines): the vertical pass then loads no vector across two
// lines, which makes the SSIM with its gradient markedly faster.
template <class T>
struct BlurScratch {
  static constexpr long kLine = 64 / sizeof(T);
  static long lines(long n) { return (n + kLine - 1) / kLine * kLine; }
  static constexpr int kRing = kSsimWindow + kBlurRows - 1;
  T* ring;   // [5][kRing][stride]
  T* pad;    // [row + 2 kRadius c]
  T* zeros;  // [row]
  T* out;    // [kBlurRows][5][stride]
  T* value;  // [stride]
  long row, stride, border;
  static long floats(long row, int c) {
    return (5L * kRing + 1 + 5 * kBlurRows + 1) * lines(row) + lines(row + 2L * kRadius * c) + kLine;
  }
  // p: floats(row, c) values, any alignment
  BlurScratch(T* p, long row_, int c) : row(row_), stride(lines(row_)), border(static_cast<long>(kRadius) * c) {
    void* base = p;
    std::size_t space = static_cast<std::size_t>(floats(row, c)) * sizeof(T);
    ring = static_cast<T*>(std::align(64, sizeof(T), base, space));
    pad = ring + 5L * kRing * stride;
    zeros = pad + lines(row + 2 * border);
    out = zeros + stride;
    value = out + 5L * kBlurRows * stride;
  }
  void clear_borders() const {
    std::fill(pad, pad + border, T(0));
    std::fill(pad + border + row, pad + 2 * border + row, T(0));
    std::fill(zeros, zeros + row, T(0));
  }
};

// Rows [y0, y1) of the separable 'same' Gaussian blur with zero padding of n planes,
// kBlurRows output rows at a time (single rows at the band's end): input row yy of plane k
// comes from in_row(yy, k, dst), which returns where the row's values are, with kRadius * c
// zeros on either side (dst, a padded scratch row it may write them to, or a row of a plane
// laid out padded: PaddedPlanes); its horizontal pass goes into a ring of kRing rows, and
// output row y, the vertical pass over ring rows y - 5 .. y + 5 (rows outside the image
// read zeros), is handed to out_row(y, rows) while it is in cache. Every output value is
// conv11's fixed-order sum in both passes, as a whole-image two-pass blur would give, so
// bands of any size give the same bits (threads split the rows into bands; each recomputes
// the 5-row halos). The window is symmetric and zero padding makes the operator its own
// transpose, which the gradient uses.
template <class T, int n, class In, class Out>
void blur_band(int y0, int y1, int w, int h, int c, const BlurScratch<T>& sc, In&& in_row, Out&& out_row) {
  static const std::array<T, kSsimWindow> g = ssim_window_weights<T>();
  constexpr int kRing = BlurScratch<T>::kRing;
  const long row = static_cast<long>(w) * c;
  const T* src[kRing];
  int next = std::max(0, y0 - kRadius);  // next input row to run the horizontal pass on
  std::array<T*, n> outs[kBlurRows];
  for (int r = 0; r < kBlurRows; ++r)
    for (int k = 0; k < n; ++k) outs[r][k] = sc.out + (r * 5 + k) * sc.stride;
  for (int y = y0; y < y1;) {
    const int rows = y1 - y >= kBlurRows ? kBlurRows : 1;
    for (; next < h && next <= y + rows - 1 + kRadius; ++next) {
      for (int k = 0; k < n; ++k) {
        const T* at = in_row(next, k, sc.pad + kRadius * c) - kRadius * c;
        for (int i = 0; i < kSsimWindow; ++i) src[i] = at + static_cast<long>(i) * c;
        conv11(sc.ring + (static_cast<long>(k) * kRing + next % kRing) * sc.stride, src, g.data(), row);
      }
    }
    for (int k = 0; k < n; ++k) {
      for (int i = 0; i < kSsimWindow + rows - 1; ++i) {
        const int yy = y + i - kRadius;
        src[i] = yy >= 0 && yy < h ? sc.ring + (static_cast<long>(k) * kRing + yy % kRing) * sc.stride : sc.zeros;
      }
      if (rows == kBlurRows) {
        T* d[kBlurRows];
        for (int r = 0; r < kBlurRows; ++r) d[r] = outs[r][k];
        conv11x4(d, src, g.data(), row);
      } else {
        conv11(outs[0][k], src, g.data(), row);
      }
    }
    for (int r = 0; r < rows; ++r) out_row(y + r, outs[r]);
    y += rows;
  }
}

// Runs f(y0, y1, scratch) on bands of rows, one per thread when the image is large enough
// to pay for threads. Scratch is kept per thread across calls (training calls this every
// step with the same size).
template <class T, class F>
void for_bands(int w, int h, int c, int planes, F&& f) {
  const long row = static_cast<long>(w) * c;
  const bool par = row * h * planes >= kMinParallel;
#pragma omp parallel if (par)
  {
#ifdef _OPENMP
    const int nt = omp_get_num_threads(), t = omp_get_thread_num();
#else
    const int nt = 1, t = 0;
#endif
    static thread_local std::vector<T> scratch;
    const std::size_t need = static_cast<std::size_t>(BlurScratch<T>::floats(row, c));
    if (scratch.size() < need) scratch.resize(need);
    const BlurScratch<T> sc(scratch.data(), row, c);
    sc.clear_borders();
    const int y0 = static_cast<int>(static_cast<long>(h) * t / nt);
    const int y1 = static_cast<int>(static_cast<long>(h) * (t + 1) / nt);
    if (y0 < y1) f(y0, y1, sc);
  }
}

// The planes SSIM blurs, in the order map_row takes their blurs.
enum MomentPlane : int { kA, kB, kAA, kBB, kAB };
// One row of plane `plane` from the rows ra of a and rb of b (the products made row by row).
template <class T>
inline void moment_row_impl(int plane, const T* ra, const T* rb, long row, T* dst) {
  switch (plane) {
    case kA: std::copy(ra, ra + row, dst); break;
    case kB: std::copy(rb, rb + row, dst); break;
    case kAA: for (long j = 0; j < row; ++j) dst[j] = ra[j] * ra[j]; break;
    case kBB: for (long j = 0; j < row; ++j) dst[j] = rb[j] * rb[j]; break;
    default: for (long j = 0; j < row; ++j) dst[j] = ra[j] * rb[j]; break;
  }
}
GLINT_WIDE_CLONES void moment_row(int plane, const float* ra, const float* rb, long row, float* dst) {
  moment_row_impl(plane, ra, rb, row, dst);
}
void moment_row(int plane, const double* ra, const double* rb, long row, double* dst) {
  moment_row_impl(plane, ra, rb, row, dst);
}

// One row of SSIM's gradient, inv (m0 + 2 a m1 + b m2) from the blurred derivative planes,
// or with an L1 fold l1_scale sign(a - b) - lambda times that.
template <class T>
inline void grad_row_impl(T inv, const T* m0, const T* m1, const T* m2, const T* a, const T* b, long n, T* grad,
                          const SsimL1Fold<T>* fold) {
  if (!fold) {
    for (long j = 0; j < n; ++j) grad[j] = ssim_grad_value(inv, m0[j], m1[j], m2[j], a[j], b[j]);
    return;
  }
  const T l1_scale = fold->l1_scale, lambda = fold->lambda;
  for (long j = 0; j < n; ++j) {
    const T g = ssim_grad_value(inv, m0[j], m1[j], m2[j], a[j], b[j]);
    grad[j] = l1_scale * l1_sign(a[j] - b[j]) - lambda * g;
  }
}
GLINT_WIDE_CLONES void grad_row(float inv, const float* m0, const float* m1, const float* m2, const float* a,
                                const float* b, long n, float* grad, const SsimL1Fold<float>* fold) {
  grad_row_impl(inv, m0, m1, m2, a, b, n, grad, fold);
}
void grad_row(double inv, const double* m0, const double* m1, const double* m2, const double* a, const double* b,
              long n, double* grad, const SsimL1Fold<double>* fold) {
  grad_row_impl(inv, m0, m1, m2, a, b, n, grad, fold);
}

// Weights of a row's values (one weight a pixel, c values a pixel) applied in place to up to
// four rows (masks: SsimWeights); null rows are skipped.
template <class T>
void weight_rows(const T* wrow, int c, long n, T* r0, T* r1, T* r2, T* r3) {
  for (T* r : {r0, r1, r2, r3}) {
    if (!r) continue;
    for (long j = 0; j < n; ++j) r[j] *= wrow[j / c];
  }
}

// The three derivative planes of the SSIM map (d_mu1, d_e11, d_e12), laid out so that the
// gradient's blur reads their rows in place: every row has kRadius * c zeros on either side
// (one run of them between rows), saving the copy of each row into a padded scratch row.
// Kept per thread across calls.
template <class T>
struct PaddedPlanes {
  long values = 0, border = 0, pitch = 0, plane = 0;  // values: of a row
  T* base = nullptr;
  void layout(int w, int h, int c) {
    static thread_local std::vector<T> buf;
    values = static_cast<long>(w) * c;
    border = static_cast<long>(kRadius) * c;
    pitch = values + border;
    plane = border + h * pitch;
    if (buf.size() < static_cast<std::size_t>(3 * plane)) buf.resize(static_cast<std::size_t>(3 * plane));
    base = buf.data();
    for (int k = 0; k < 3; ++k) {  // the zero runs: before the first row and after each row
      std::fill(base + k * plane, base + k * plane + border, T(0));
      for (int y = 0; y < h; ++y) std::fill(row_of(k, y) + values, row_of(k, y) + pitch, T(0));
    }
  }
  T* row_of(int k, int y) const { return base + k * plane + border + y * pitch; }
};

// The mean of the SSIM map from its row sums and, when grad_a is given, the gradient.
template <class T>
double ssim_finish(const T* a, const T* b, int w, int h, int c, T* grad_a, const PaddedPlanes<T>& planes,
                   const std::vector<double>& row_sums, const SsimL1Fold<T>* fold, const SsimWeights<T>* weights) {
  const double count = weights ? c * weights->sum : static_cast<double>(static_cast<long>(w) * h * c);
  const long row = static_cast<long>(w) * c;
  double total = 0;
  for (int y = 0; y < h; ++y) total += row_sums[y];
  const double mean = total / count;

  if (grad_a) {
    // d mean / d a[q] = (1/count) [blur(d_mu1) + 2 a blur(d_e11) + b blur(d_e12)](q):
    // the blur is self-adjoint (symmetric window, zero padding).
    const T inv = static_cast<T>(1.0 / count);
    for_bands<T>(w, h, c, 3, [&](int y0, int y1, const BlurScratch<T>& sc) {
      const auto in = [&](int yy, int k, T*) { return static_cast<const T*>(planes.row_of(k, yy)); };
      const auto out = [&](int y, const std::array<T*, 3>& m) {
        const long o = y * row;
        grad_row(inv, m[0], m[1], m[2], a + o, b + o, row, grad_a + o, fold);
        if (weights) weight_rows<T>(weights->w + static_cast<long>(y) * w, c, row, grad_a + o, nullptr, nullptr, nullptr);
        if (fold)
          fold->l1_rows[y] = abs_diff_row_sum(a + o, b + o, row);
      };
      blur_band<T, 3>(y0, y1, w, h, c, sc, in, out);
    });
  }
  return mean;
}

}  // namespace

void set_ssim_blur(SsimBlur b) { g_blur_request.store(int(b)); }

SsimBlur active_ssim_blur() {
  const auto want = SsimBlur(g_blur_request.load());
  const SsimBlur best = best_blur();
  return want == SsimBlur::kAuto || int(want) > int(best) ? best : want;
}

template <class T>
double ssim(const T* a, const T* b, int w, int h, int c, T* grad_a, SsimTargetStats<T>* stats,
            const SsimL1Fold<T>* fold, const SsimWeights<T>* weights) {
  if (fold && !grad_a) throw Error("ssim: an L1 fold needs a gradient");
  if (w <= 0 || h <= 0 || c <= 0) return 1.0;
  const long row = static_cast<long>(w) * c;
  if (weights && !(weights->sum > 0)) {  // every pixel masked: nothing to compare
    if (grad_a) std::fill(grad_a, grad_a + row * h, T(0));
    if (fold) std::fill(fold->l1_rows, fold->l1_rows + h, 0.0);
    return 1.0;
  }
  const T C1 = static_cast<T>(kSsimC1), C2 = static_cast<T>(kSsimC2);

  // The derivatives of each pixel's SSIM w.r.t. its blurred moments mu1, e11 and e12, for
  // the gradient's blur.
  PaddedPlanes<T> planes;
  if (grad_a) planes.layout(w, h, c);
  std::vector<double> row_sums(h);

  // The SSIM map of output row y from its blurred moments {mu1, mu2, e11, e22, e12}, with
  // the row's sum (combined in row order below).
  const auto map_out = [&](int y, const BlurScratch<T>& sc, const T* const* m) {
    T* v = sc.value;  // the row's SSIM values
    map_row(m, C1, C2, row, v, grad_a ? planes.row_of(0, y) : nullptr, grad_a ? planes.row_of(1, y) : nullptr,
            grad_a ? planes.row_of(2, y) : nullptr);
    if (weights)
      weight_rows<T>(weights->w + static_cast<long>(y) * w, c, row, v, grad_a ? planes.row_of(0, y) : nullptr,
                     grad_a ? planes.row_of(1, y) : nullptr, grad_a ? planes.row_of(2, y) : nullptr);
    row_sums[y] = row_sum(row, [v](long j) { return static_cast<double>(v[j]); });
  };
  if (stats && stats->filled_for(w, h, c)) {
    // b's blurs kept: blur a, a*a, a*b only
    const T *mu2 = stats->mu.data(), *e22 = stats->e2.data();
    for_bands<T>(w, h, c, 3, [&](int y0, int y1, const BlurScratch<T>& sc) {
      const auto in = [&](int yy, int k, T* dst) {
        constexpr int kPlanes[3] = {kA, kAA, kAB};
        moment_row(kPlanes[k], a + yy * row, b + yy * row, row, dst);
        return static_cast<const T*>(dst);
      };
      const auto out = [&](int y, const std::array<T*, 3>& m) {
        const T* all[5] = {m[0], mu2 + y * row, m[1], e22 + y * row, m[2]};
        map_out(y, sc, all);
      };
      blur_band<T, 3>(y0, y1, w, h, c, sc, in, out);
    });
    return ssim_finish(a, b, w, h, c, grad_a, planes, row_sums, fold, weights);
  }
  if (stats) {
    fill_ssim_target_stats(b, w, h, c, *stats);
    return ssim(a, b, w, h, c, grad_a, stats, fold, weights);
  }
  // Blur of a, b, a*a, b*b, a*b (the products made row by row), then the SSIM map of
  // each output row.
  for_bands<T>(w, h, c, 5, [&](int y0, int y1, const BlurScratch<T>& sc) {
    const auto in = [&](int yy, int k, T* dst) {
      moment_row(k, a + yy * row, b + yy * row, row, dst);
      return static_cast<const T*>(dst);
    };
    const auto out = [&](int y, const std::array<T*, 5>& m) { map_out(y, sc, m.data()); };
    blur_band<T, 5>(y0, y1, w, h, c, sc, in, out);
  });
  return ssim_finish(a, b, w, h, c, grad_a, planes, row_sums, fold, weights);
}

template <class T>
void fill_ssim_target_stats(const T* b, int w, int h, int c, SsimTargetStats<T>& stats) {
  const long row = static_cast<long>(w) * c;
  const auto count = static_cast<std::size_t>(row * h);
  stats.w = w;
  stats.h = h;
  stats.c = c;
  stats.mu.resize(count);
  stats.e2.resize(count);
  if (count == 0) return;
  for_bands<T>(w, h, c, 2, [&](int y0, int y1, const BlurScratch<T>& sc) {
    const auto in = [&](int yy, int k, T* dst) {
      moment_row(k == 0 ? kB : kBB, b + yy * row, b + yy * row, row, dst);
      return static_cast<const T*>(dst);
    };
    const auto out = [&](int y, const std::array<T*, 2>& m) {
      std::copy(m[0], m[0] + row, stats.mu.data() + y * row);
      std::copy(m[1], m[1] + row, stats.e2.data() + y * row);
    };
    blur_band<T, 2>(y0, y1, w, h, c, sc, in, out);
  });
}

template void fill_ssim_target_stats<float>(const float*, int, int, int, SsimTargetStats<float>&);
template void fill_ssim_target_stats<double>(const double*, int, int, int, SsimTargetStats<double>&);
template double ssim<float>(const float*, const float*, int, int, int, float*, SsimTargetStats<float>*,
                            const SsimL1Fold<float>*, const SsimWeights<float>*);
template double ssim<double>(const double*, const double*, int, int, int, double*, SsimTargetStats<double>*,
                             const SsimL1Fold<double>*, const SsimWeights<double>*);

double ssim(const ImageF& a, const ImageF& b, ImageF* grad_a, SsimTargetStats<float>* stats,
            const SsimL1Fold<float>* fold, const SsimWeights<float>* weights) {
  if (a.width != b.width || a.height != b.height || a.channels != b.channels ||
      a.data.size() != b.data.size())
    throw Error("ssim: image sizes differ (" + std::to_string(a.width) + "x" + std::to_string(a.height) + "x" +
                std::to_string(a.channels) + " vs " + std::to_string(b.width) + "x" +
                std::to_string(b.height) + "x" + std::to_string(b.channels) + ")");
  if (grad_a && (grad_a->width != a.width || grad_a->height != a.height || grad_a->channels != a.channels ||
                 grad_a->data.size() != a.data.size()))
    *grad_a = ImageF(a.width, a.height, a.channels);
  return ssim<float>(a.data.data(), b.data.data(), a.width, a.height, a.channels,
                     grad_a ? grad_a->data.data() : nullptr, stats, fold, weights);
}

}  // namespace glint

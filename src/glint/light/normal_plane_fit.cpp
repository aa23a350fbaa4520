#include "glint/light/normal_plane_fit.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "glint/backend/cpu/lanes.h"
#include "glint/core/error.h"
#include "glint/light/pixel_window.h"
#include "glint/render/blend.h"

namespace glint {

namespace {

// The eigenvector of the symmetric 3x3 `a` (row-major upper part: xx xy xz yy yz zz) with the
// smallest eigenvalue, by inverse iteration from `v`: (A + eps I)^-1 is applied through the
// adjugate, which needs no division, and the result is normalised each time. Converges in
// a few steps unless the two smallest eigenvalues are close, where any vector between them
// fits the samples as well. Returns false when `a` has no spread at all.
bool smallest_eigenvector(const double a[6], double v[3]) {
  const double tr = a[0] + a[3] + a[5];
  if (!(tr > 0)) return false;
  const double e = 1e-6 * tr;
  const double xx = a[0] + e, xy = a[1], xz = a[2], yy = a[3] + e, yz = a[4], zz = a[5] + e;
  const double adj[3][3] = {{yy * zz - yz * yz, xz * yz - xy * zz, xy * yz - xz * yy},
                            {xz * yz - xy * zz, xx * zz - xz * xz, xy * xz - xx * yz},
                            {xy * yz - xz * yy, xy * xz - xx * yz, xx * yy - xy * xy}};
  for (int it = 0; it < 4; ++it) {
    double u[3];
    for (int r = 0; r < 3; ++r) u[r] = adj[r][0] * v[0] + adj[r][1] * v[1] + adj[r][2] * v[2];
    const double l = std::sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    if (!(l > 0) || !std::isfinite(l)) return false;
    for (int r = 0; r < 3; ++r) v[r] = u[r] / l;
  }
  return true;
}


// One window sample of weight w, offset d and splat normal nj added to the sums, in the
// order both the scalar loop and the lane loop (T = cpu::F8) take, so that they give the
// same bits.
template <class T>
[[gnu::always_inline]] inline void add_sample(T w, const T* d, const T* nj, T& sw, T* m, T* sn, T* c) {
  sw += w;
  for (int k = 0; k < 3; ++k) {
    m[k] += w * d[k];
    sn[k] += w * nj[k];
  }
  c[0] += w * d[0] * d[0];
  c[1] += w * d[0] * d[1];
  c[2] += w * d[0] * d[2];
  c[3] += w * d[1] * d[1];
  c[4] += w * d[1] * d[2];
  c[5] += w * d[2] * d[2];
}

// The pixel's normal from its window's sums (weight, offsets, their products, splat
// normals) into out[0..2]; left alone where the window has no weight.
void fit_from_sums(float sw, const float m[3], const float c[6], const float sn[3], float planarity, float* out) {
  const double ln = std::sqrt(double(sn[0]) * sn[0] + double(sn[1]) * sn[1] + double(sn[2]) * sn[2]);
  if (!(sw > 0) || !(ln > 0)) return;
  double guide[3] = {sn[0] / ln, sn[1] / ln, sn[2] / ln};
  const double mm[3] = {double(m[0]) / sw, double(m[1]) / sw, double(m[2]) / sw};
  const double cov[6] = {c[0] / sw - mm[0] * mm[0], c[1] / sw - mm[0] * mm[1], c[2] / sw - mm[0] * mm[2],
                         c[3] / sw - mm[1] * mm[1], c[4] / sw - mm[1] * mm[2], c[5] / sw - mm[2] * mm[2]};
  double v[3] = {guide[0], guide[1], guide[2]};
  if (!smallest_eigenvector(cov, v))
    for (int k = 0; k < 3; ++k) v[k] = guide[k];
  const double s = v[0] * guide[0] + v[1] * guide[1] + v[2] * guide[2] < 0 ? -1.0 : 1.0;
  // How far the samples are from one plane: the spread across the fitted plane over the
  // mean spread along it. Where that is large (a crease or a corner in the window) the
  // fit is ill-posed and turns with small changes of the samples, so it gives way to the
  // guide smoothly.
  const double av[3] = {cov[0] * v[0] + cov[1] * v[1] + cov[2] * v[2], cov[1] * v[0] + cov[3] * v[1] + cov[4] * v[2],
                        cov[2] * v[0] + cov[4] * v[1] + cov[5] * v[2]};
  const double across = std::max(0.0, v[0] * av[0] + v[1] * av[1] + v[2] * av[2]);  // rounding can leave it below 0
  const double along = 0.5 * (cov[0] + cov[3] + cov[5] - across);
  // A fitted plane far from the pixel's own surface (up to across it, where which way it
  // faces is a toss-up) gives way too: cos^2 of the angle to the guide.
  const double agree = v[0] * guide[0] + v[1] * guide[1] + v[2] * guide[2];
  const double b = along > 0 ? std::exp(-across / (along * planarity)) * agree * agree : 0.0;
  double o[3];
  for (int k = 0; k < 3; ++k) o[k] = b * s * v[k] + (1 - b) * guide[k];
  const double lo = std::sqrt(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]);
  for (int k = 0; k < 3; ++k) out[k] = static_cast<float>(o[k] / lo);
}

void check_inputs(const ImageF& normal, const ImageF& depth, const ImageF& position, const PlaneFitParams& p) {
  if (normal.channels != 3 || depth.channels != 1 || position.channels != 3 || normal.width != depth.width ||
      normal.height != depth.height || position.width != depth.width || position.height != depth.height)
    throw Error("fit_plane_normals: normal [H,W,3], depth [H,W,1] and position [H,W,3] of one size expected");
  if (!(p.sigma_spatial_px > 0) || !(p.sigma_plane_rel > 0) || !(p.sigma_angle_deg > 0) || !(p.planarity > 0) ||
      p.stride_px < 0)
    throw Error("fit_plane_normals: sigmas and the planarity must be > 0 and the stride >= 0");
}

GaussianWindow plane_fit_window(const PlaneFitParams& p) {
  const int stride = p.stride_px > 0 ? p.stride_px : std::max(1, static_cast<int>(std::lround(p.sigma_spatial_px / 2)));
  return GaussianWindow(p.sigma_spatial_px, 0, stride);
}

}  // namespace

ImageF fit_plane_normals_reference(const ImageF& normal, const ImageF& depth, const ImageF& position, const PlaneFitParams& p) {
  check_inputs(normal, depth, position, p);
  const int W = normal.width, H = normal.height;
  const GaussianWindow window = plane_fit_window(p);
  const float inv_d = 1.f / (2.f * p.sigma_plane_rel * p.sigma_plane_rel);
  const float inv_a = inv_angle_gaussian(p.sigma_angle_deg);
  ImageF out(W, H, 3);
#pragma omp parallel for schedule(dynamic, 4)
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      const std::size_t i = static_cast<std::size_t>(y) * W + x;
      const float zi = depth.data[i];
      const float* ni = normal.data.data() + 3 * i;
      const float* pi = position.data.data() + 3 * i;
      if (!(zi > 0) || (ni[0] == 0 && ni[1] == 0 && ni[2] == 0)) continue;
      const float inv_z = 1.f / zi;
      // Sums of weights, offsets (in units of the pixel's depth, so that the plane guard is
      // scale free), their products and the splat normals.
      // Float sums of at most a few hundred terms; the covariance is formed in double below.
      float sw = 0, m[3] = {0, 0, 0}, c[6] = {0, 0, 0, 0, 0, 0}, sn[3] = {0, 0, 0};
      window.visit(W, H, x, y, [&](std::size_t j, float spatial) {
        if (!(depth.data[j] > 0)) return;
        const float* nj = normal.data.data() + 3 * j;
        const float cosine = ni[0] * nj[0] + ni[1] * nj[1] + ni[2] * nj[2];
        if (cosine <= 0.f) return;
        const float* pj = position.data.data() + 3 * j;
        const float d[3] = {(pj[0] - pi[0]) * inv_z, (pj[1] - pi[1]) * inv_z, (pj[2] - pi[2]) * inv_z};
        const float off_plane = ni[0] * d[0] + ni[1] * d[1] + ni[2] * d[2];
        // Samples below e^-20 of the weight are left out: they change nothing, and in float
        // their products would be denormal (slow).
        const float power = off_plane * off_plane * inv_d + (1.f - cosine) * inv_a;
        if (power > 20.f) return;
        add_sample(spatial * render::fast_exp(-power), d, nj, sw, m, sn, c);
      });
      fit_from_sums(sw, m, c, sn, p.planarity, out.data.data() + 3 * i);
    }
  return out;
}

namespace {

// The lane loop's inputs: padded planes (see fit_plane_normals) and the window's offsets.
struct LaneInputs {
  const float* z;
  const float* n[3];
  const float* p[3];
  std::size_t pitch;  // floats per plane row
  int pad;            // empty columns left of the image
  int row0;           // the image row the planes' first row holds
  int width, height;
  const int* dx;
  const int* dy;
  const float* spatial;
  int taps;
  float inv_d, inv_a, planarity;
};

// GCC's eight-float vectors on the x86-64 baseline are two SSE halves with poor code for
// the selects and conversions; an AVX2 copy is chosen at run time where the CPU has it.
// The file builds without contraction, so both copies compute the same bits.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define GLINT_PLANE_FIT_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define GLINT_PLANE_FIT_CLONES
#endif

// Row y of the fit, eight neighbouring pixels at once, one per lane: each lane takes its
// window's samples in the same order with the same operations as the scalar loop above,
// so the results are the same bits.
GLINT_PLANE_FIT_CLONES void fit_row_lanes(const LaneInputs& in, int y, float* out) {
  using cpu::F8;
  using cpu::M8;
  constexpr int L = 8;
  const F8 zero(0.f), one(1.f), cut(20.f), vinv_d(in.inv_d), vinv_a(in.inv_a);
  for (int x0 = 0; x0 < in.width; x0 += L) {
    const std::size_t q = static_cast<std::size_t>(y - in.row0) * in.pitch + static_cast<std::size_t>(in.pad + x0);
    const F8 zi(cpu::load_f8(in.z + q));
    const F8 ni[3] = {F8(cpu::load_f8(in.n[0] + q)), F8(cpu::load_f8(in.n[1] + q)), F8(cpu::load_f8(in.n[2] + q))};
    const M8 active = (zi > zero) & !((ni[0] == zero) & (ni[1] == zero) & (ni[2] == zero));
    if (cpu::lane_bits(active) == 0) continue;
    const F8 inv_z = one / cpu::lane_select(active, zi, one);
    const F8 pi[3] = {F8(cpu::load_f8(in.p[0] + q)), F8(cpu::load_f8(in.p[1] + q)), F8(cpu::load_f8(in.p[2] + q))};
    F8 sw = zero, m[3] = {zero, zero, zero}, c[6] = {zero, zero, zero, zero, zero, zero}, sn[3] = {zero, zero, zero};
    for (int t = 0; t < in.taps; ++t) {
      const int yy = y + in.dy[t];
      if (yy < 0 || yy >= in.height) continue;
      const std::size_t j =
          static_cast<std::size_t>(yy - in.row0) * in.pitch + static_cast<std::size_t>(in.pad + x0 + in.dx[t]);
      const F8 zj(cpu::load_f8(in.z + j));
      const F8 nj[3] = {F8(cpu::load_f8(in.n[0] + j)), F8(cpu::load_f8(in.n[1] + j)), F8(cpu::load_f8(in.n[2] + j))};
      const F8 cosine = ni[0] * nj[0] + ni[1] * nj[1] + ni[2] * nj[2];
      const F8 d[3] = {(F8(cpu::load_f8(in.p[0] + j)) - pi[0]) * inv_z, (F8(cpu::load_f8(in.p[1] + j)) - pi[1]) * inv_z,
                       (F8(cpu::load_f8(in.p[2] + j)) - pi[2]) * inv_z};
      const F8 off_plane = ni[0] * d[0] + ni[1] * d[1] + ni[2] * d[2];
      const F8 power = off_plane * off_plane * vinv_d + (one - cosine) * vinv_a;
      const M8 ok = (zj > zero) & !(cosine <= zero) & !(power > cut);
      add_sample(cpu::lane_select(ok, F8(in.spatial[t]) * cpu::lane_exp(-power), zero), d, nj, sw, m, sn, c);
    }
    for (int l = 0; l < L; ++l) {
      if (!cpu::lane_on(active, l)) continue;
      const float ml[3] = {m[0][l], m[1][l], m[2][l]}, snl[3] = {sn[0][l], sn[1][l], sn[2][l]};
      const float cl[6] = {c[0][l], c[1][l], c[2][l], c[3][l], c[4][l], c[5][l]};
      fit_from_sums(sw[l], ml, cl, snl, in.planarity, out + 3 * static_cast<std::size_t>(x0 + l));
    }
  }
}

}  // namespace

// The lane loop reads the images from planes with empty columns around them: a window
// reaching past the left or right edge, or a lane past the row's end, then reads pixels
// without a surface, whose weight is zero; adding a zero product leaves a sum exactly as
// it was. Pixels without a surface hold zero normals and positions there, so their
// (masked) products are zeros too, never NaNs.
//
// The planes are made a band of rows at a time, with the rows the band's windows reach
// above and below it, in a buffer of each thread's: a band's samples stay in the cache
// while its rows are fitted, and the whole view is never copied into fresh memory.
ImageF fit_plane_normals(const ImageF& normal, const ImageF& depth, const ImageF& position, const PlaneFitParams& p) {
  constexpr int L = 8;
  constexpr int kBandRows = 32;
  check_inputs(normal, depth, position, p);
  const int W = normal.width, H = normal.height;
  const GaussianWindow window = plane_fit_window(p);
  const int R = window.radius();
  const std::size_t pitch = static_cast<std::size_t>(W) + 2 * static_cast<std::size_t>(R) + L;
  std::vector<int> dx, dy;
  std::vector<float> spatial;
  window.visit_offsets([&](int ox, int oy, float w) {
    dx.push_back(ox);
    dy.push_back(oy);
    spatial.push_back(w);
  });
  // Every pixel is written below, each row by the thread that fits it.
  ImageF out = ImageF::uninitialized(W, H, 3);
  const int bands = (H + kBandRows - 1) / kBandRows;
#pragma omp parallel
  {
    std::vector<float> planes;  // depth, normal x y z, position x y z of the band's rows
#pragma omp for schedule(dynamic, 1)
    for (int b = 0; b < bands; ++b) {
      const int y0 = b * kBandRows, y1 = std::min(H, y0 + kBandRows);
      const int r0 = std::max(0, y0 - R), r1 = std::min(H, y1 + R);
      const std::size_t plane = pitch * static_cast<std::size_t>(r1 - r0);
      planes.resize(7 * plane);
      for (int y = r0; y < r1; ++y) {
        float* row[7];
        for (int k = 0; k < 7; ++k) {
          row[k] = planes.data() + static_cast<std::size_t>(k) * plane + static_cast<std::size_t>(y - r0) * pitch;
          std::fill(row[k], row[k] + pitch, 0.f);
        }
        for (int x = 0; x < W; ++x) {
          const std::size_t i = static_cast<std::size_t>(y) * W + x;
          if (!(depth.data[i] > 0)) continue;
          row[0][R + x] = depth.data[i];
          for (int k = 0; k < 3; ++k) {
            row[1 + k][R + x] = normal.data[3 * i + k];
            row[4 + k][R + x] = position.data[3 * i + k];
          }
        }
      }
      const float* z = planes.data();
      const LaneInputs in{z,
                          {z + plane, z + 2 * plane, z + 3 * plane},
                          {z + 4 * plane, z + 5 * plane, z + 6 * plane},
                          pitch,
                          R,
                          r0,
                          W,
                          H,
                          dx.data(),
                          dy.data(),
                          spatial.data(),
                          static_cast<int>(spatial.size()),
                          1.f / (2.f * p.sigma_plane_rel * p.sigma_plane_rel),
                          inv_angle_gaussian(p.sigma_angle_deg),
                          p.planarity};
      for (int y = y0; y < y1; ++y) {
        float* o = out.data.data() + 3 * static_cast<std::size_t>(y) * W;
        std::fill(o, o + 3 * static_cast<std::size_t>(W), 0.f);  // pixels the fit leaves alone
        fit_row_lanes(in, y, o);
      }
    }
  }
  return out;
}

}  // namespace glint

#pragma once
// Real spherical harmonics of degree 0..3 in the graphdeco 3DGS convention, evaluated for a
// view direction, and their vector-Jacobian product. Coefficients of one splat are read
// from two flat arrays: dc[3] (k = 0) and rest[45] laid out (k-1)*3 + channel.
#include "glint/core/hd.h"
#include "glint/render/isa.h"
#include "glint/core/math.h"

namespace glint::render {
inline namespace GLINT_RENDER_NS {

inline constexpr double kShC1 = 0.4886025119029199;
// Scalars, not arrays: a namespace-scope constexpr array lives in host memory, which
// device code cannot read; constexpr scalars are folded into both.
inline constexpr double kShC2_0 = 1.0925484305920792, kShC2_1 = -1.0925484305920792,
                        kShC2_2 = 0.31539156525252005, kShC2_3 = -1.0925484305920792,
                        kShC2_4 = 0.5462742152960396;
inline constexpr double kShC3_0 = -0.5900435899266435, kShC3_1 = 2.890611442640554,
                        kShC3_2 = -0.4570457994644658, kShC3_3 = 0.3731763325901154,
                        kShC3_4 = -0.4570457994644658, kShC3_5 = 1.445305721320277,
                        kShC3_6 = -0.5900435899266435;

GLINT_HD inline constexpr int sh_coeff_count(int degree) { return (degree + 1) * (degree + 1); }

// Basis values b[0..(deg+1)^2) for a unit direction d.
template <class T>
GLINT_HD inline void sh_basis(int deg, Vec3<T> d, T* b) {
  const T C0 = T(0.28209479177387814), C1 = T(kShC1);
  b[0] = C0;
  if (deg < 1) return;
  T x = d.x, y = d.y, z = d.z;
  b[1] = -C1 * y;
  b[2] = C1 * z;
  b[3] = -C1 * x;
  if (deg < 2) return;
  T xx = x * x, yy = y * y, zz = z * z;
  b[4] = T(kShC2_0) * x * y;
  b[5] = T(kShC2_1) * y * z;
  b[6] = T(kShC2_2) * (T(2) * zz - xx - yy);
  b[7] = T(kShC2_3) * x * z;
  b[8] = T(kShC2_4) * (xx - yy);
  if (deg < 3) return;
  b[9] = T(kShC3_0) * y * (T(3) * xx - yy);
  b[10] = T(kShC3_1) * x * y * z;
  b[11] = T(kShC3_2) * y * (T(4) * zz - xx - yy);
  b[12] = T(kShC3_3) * z * (T(2) * zz - T(3) * xx - T(3) * yy);
  b[13] = T(kShC3_4) * x * (T(4) * zz - xx - yy);
  b[14] = T(kShC3_5) * z * (xx - yy);
  b[15] = T(kShC3_6) * x * (xx - T(3) * yy);
}

// Gradient of each basis function with respect to the (unit) direction components.
template <class T>
GLINT_HD inline void sh_basis_grad(int deg, Vec3<T> d, Vec3<T>* g) {
  const T C1 = T(kShC1);
  g[0] = {T(0), T(0), T(0)};
  if (deg < 1) return;
  T x = d.x, y = d.y, z = d.z;
  g[1] = {T(0), -C1, T(0)};
  g[2] = {T(0), T(0), C1};
  g[3] = {-C1, T(0), T(0)};
  if (deg < 2) return;
  T xx = x * x, yy = y * y, zz = z * z;
  T a0 = T(kShC2_0), a1 = T(kShC2_1), a2 = T(kShC2_2), a3 = T(kShC2_3), a4 = T(kShC2_4);
  g[4] = {a0 * y, a0 * x, T(0)};
  g[5] = {T(0), a1 * z, a1 * y};
  g[6] = {T(-2) * a2 * x, T(-2) * a2 * y, T(4) * a2 * z};
  g[7] = {a3 * z, T(0), a3 * x};
  g[8] = {T(2) * a4 * x, T(-2) * a4 * y, T(0)};
  if (deg < 3) return;
  T c0 = T(kShC3_0), c1 = T(kShC3_1), c2 = T(kShC3_2), c3 = T(kShC3_3), c4 = T(kShC3_4),
    c5 = T(kShC3_5), c6 = T(kShC3_6);
  g[9] = {T(6) * c0 * x * y, c0 * (T(3) * xx - T(3) * yy), T(0)};
  g[10] = {c1 * y * z, c1 * x * z, c1 * x * y};
  g[11] = {T(-2) * c2 * x * y, c2 * (T(4) * zz - xx - T(3) * yy), T(8) * c2 * y * z};
  g[12] = {T(-6) * c3 * x * z, T(-6) * c3 * y * z, c3 * (T(6) * zz - T(3) * xx - T(3) * yy)};
  g[13] = {c4 * (T(4) * zz - T(3) * xx - yy), T(-2) * c4 * x * y, T(8) * c4 * x * z};
  g[14] = {T(2) * c5 * x * z, T(-2) * c5 * y * z, c5 * (xx - yy)};
  g[15] = {c6 * (T(3) * xx - T(3) * yy), T(-6) * c6 * x * y, T(0)};
}

template <class T>
GLINT_HD inline T sh_coeff(const T* dc, const T* rest, int k, int c) {
  return k == 0 ? dc[c] : rest[(k - 1) * 3 + c];
}

// View direction of a splat: normalize(mean - campos); a zero vector gives (0, 0, 1).
template <class T>
GLINT_HD inline Vec3<T> view_dir(Vec3<T> mean, const T* campos) {
  return normalize(Vec3<T>{mean.x - campos[0], mean.y - campos[1], mean.z - campos[2]});
}

// Colour of a splat seen along unit direction d: SH(d) + 0.5, clamped at 0. When
// `clamped` is given, bit c is set where channel c was clamped (its gradient is 0), so a
// backend can hand it to sh_linear_vjp instead of evaluating the colour again.
template <class T>
GLINT_HD inline Vec3<T> sh_color(int deg, Vec3<T> d, const T* dc, const T* rest, unsigned* clamped = nullptr) {
  T b[16];
  sh_basis(deg, d, b);
  T r[3];
  unsigned bits = 0;
  for (int c = 0; c < 3; ++c) {
    T s = T(0);
    for (int k = 0; k < sh_coeff_count(deg); ++k) s += b[k] * sh_coeff(dc, rest, k, c);
    s += T(0.5);
    const bool keep = s > T(0);
    bits |= unsigned(!keep) << c;
    r[c] = keep ? s : T(0);
  }
  if (clamped) *clamped = bits;
  return {r[0], r[1], r[2]};
}

// VJP of the unclamped colour SH(d) + 0.5 through the view direction: writes d_dc[3],
// d_rest[45] (coefficients above the active degree get 0) and adds dL/dmean (through the
// normalisation) to d_mean. sh_color_vjp is this with the clamped channels' d_color zeroed.
template <class T>
GLINT_HD inline void sh_linear_vjp(int deg, Vec3<T> mean, const T* campos, const T* rest, Vec3<T> d_color, T* d_dc,
                                   T* d_rest, Vec3<T>& d_mean) {
  Vec3<T> v{mean.x - campos[0], mean.y - campos[1], mean.z - campos[2]};
  T len = norm(v);
  // branch-free in the splat (lane_select), so that it also runs on lanes
  const auto pos = len > T(0);
  const T inv_len = T(1) / lane_select(pos, len, T(1));
  Vec3<T> d{lane_select(pos, inv_len * v.x, T(0)), lane_select(pos, inv_len * v.y, T(0)),
            lane_select(pos, inv_len * v.z, T(1))};
  T b[16];
  sh_basis(deg, d, b);
  const int nk = sh_coeff_count(deg);
  const T g[3] = {d_color.x, d_color.y, d_color.z};
  for (int c = 0; c < 3; ++c) d_dc[c] = b[0] * g[c];
  for (int k = 1; k < 16; ++k)
    for (int c = 0; c < 3; ++c) d_rest[(k - 1) * 3 + c] = k < nk ? b[k] * g[c] : T(0);
  if (deg < 1) return;
  Vec3<T> gb[16];
  sh_basis_grad(deg, d, gb);
  Vec3<T> dd{T(0), T(0), T(0)};
  for (int k = 1; k < nk; ++k) {
    const T* r = rest + (k - 1) * 3;
    T w = g[0] * r[0] + g[1] * r[1] + g[2] * r[2];
    dd = dd + w * gb[k];
  }
  // d = v/|v|: dL/dv = (dd - d (d . dd)) / |v| (nothing where v = 0)
  T dp = dot(d, dd);
  const Vec3<T> dv = inv_len * (dd - dp * d);
  d_mean = d_mean + Vec3<T>{lane_select(pos, dv.x, T(0)), lane_select(pos, dv.y, T(0)), lane_select(pos, dv.z, T(0))};
}

// VJP of sh_color: the clamp decided again from the coefficients, then sh_linear_vjp.
template <class T>
GLINT_HD inline void sh_color_vjp(int deg, Vec3<T> mean, const T* campos, const T* dc, const T* rest,
                                  Vec3<T> d_color, T* d_dc, T* d_rest, Vec3<T>& d_mean) {
  unsigned clamped = 0;
  sh_color(deg, view_dir(mean, campos), dc, rest, &clamped);
  const Vec3<T> g{(clamped & 1u) ? T(0) : d_color.x, (clamped & 2u) ? T(0) : d_color.y,
                  (clamped & 4u) ? T(0) : d_color.z};
  sh_linear_vjp(deg, mean, campos, rest, g, d_dc, d_rest, d_mean);
}

}  // namespace GLINT_RENDER_NS
}  // namespace glint::render

#pragma once
// Projection of one 3D Gaussian to the image (EWA splatting) and its vector-Jacobian
// product. Plain values in, plain values out; T is float in the backends and double in
// the reference renderer and finite-difference tests.
#include "glint/core/hd.h"
#include "glint/render/isa.h"
#include "glint/core/math.h"
#include "glint/render/view.h"

namespace glint::render {
inline namespace GLINT_RENDER_NS {

inline constexpr double kDilation = 0.3;         // added to the diagonal of the 2D covariance
inline constexpr double kMinAlpha = 1.0 / 255.0;  // blend steps below this alpha are skipped
inline constexpr double kMaxAlpha = 0.99;
inline constexpr double kTransmittanceStop = 1e-4;
inline constexpr double kMaxSigmaCutSq = 9.0;  // opacity-aware sigma cut capped at 3 sigma

template <class T>
struct Projected {
  T mx, my;           // 2D mean in pixels (pixel centres at +0.5)
  T conic[3];         // inverse 2D covariance (A, B, C): power = A dx^2/2 + B dx dy + C dy^2/2
  T cov[3];           // dilated 2D covariance (a, b, c)
  T depth;            // view-space z of the mean
  T opacity;          // sigmoid(logit), times the AA compensation when antialiased
  T power_cut;        // pixels with power > power_cut are not touched (k^2/2)
  T ext_x, ext_y;     // half extents of the cut ellipse's bounding box, pixels
};

template <class T>
GLINT_HD inline T clampv(T v, T lo, T hi) {
  return lane_select(v < lo, lo, lane_select(v > hi, hi, v));
}
template <class T>
GLINT_HD inline T sigmoid(T x) {
  return T(1) / (T(1) + lane_exp(-x));
}

// 3D covariance Sigma = R S S R^T as 6 values (xx, xy, xz, yy, yz, zz); also returns R
// and the scales s = exp(log_scale).
template <class T>
GLINT_HD inline void covariance3d(Vec3<T> log_scale, Quat<T> q, T* cov6, Mat3<T>& R, T* s) {
  R = quat_to_rotmat(q);
  s[0] = lane_exp(log_scale.x);
  s[1] = lane_exp(log_scale.y);
  s[2] = lane_exp(log_scale.z);
  T M[9];
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) M[r * 3 + c] = R.m[r * 3 + c] * s[c];
  int k = 0;
  for (int r = 0; r < 3; ++r)
    for (int c = r; c < 3; ++c)
      cov6[k++] = M[r * 3] * M[c * 3] + M[r * 3 + 1] * M[c * 3 + 1] + M[r * 3 + 2] * M[c * 3 + 2];
}

// Projection Jacobian rows times the view rotation: Tm = J W (2x3), with J evaluated at the
// clamped x/z, y/z (guard band 1.3x the field of view, as in 3DGS).
template <class T>
GLINT_HD inline void projection_jacobian(const ViewT<T>& v, Vec3<T> pc, T* Tm) {
  T z = pc.z;
  T tx = z * clampv(pc.x / z, -v.lim_x_neg, v.lim_x_pos);
  T ty = z * clampv(pc.y / z, -v.lim_y_neg, v.lim_y_pos);
  T J00 = v.fx / z, J02 = -v.fx * tx / (z * z), J11 = v.fy / z, J12 = -v.fy * ty / (z * z);
  for (int c = 0; c < 3; ++c) {
    Tm[c] = J00 * v.R[c] + J02 * v.R[6 + c];
    Tm[3 + c] = J11 * v.R[3 + c] + J12 * v.R[6 + c];
  }
}

template <class T>
GLINT_HD inline auto finite_val(T x) {
  return x - x == T(0);  // false for inf and NaN (a lane mask on lanes)
}

// The 2D covariance (a b; b c) = Tm Sigma Tm^T of the 2x3 projection Jacobian Tm and the
// full 3x3 covariance S; TS = Tm S is kept for the VJP.
template <class T>
GLINT_HD inline void project_covariance(const T* Tm, const T* S, T* TS, T& a, T& b, T& c) {
  for (int r = 0; r < 2; ++r)
    for (int k = 0; k < 3; ++k) TS[r * 3 + k] = Tm[r * 3] * S[k] + Tm[r * 3 + 1] * S[3 + k] + Tm[r * 3 + 2] * S[6 + k];
  a = TS[0] * Tm[0] + TS[1] * Tm[1] + TS[2] * Tm[2];
  b = TS[0] * Tm[3] + TS[1] * Tm[4] + TS[2] * Tm[5];
  c = TS[3] * Tm[3] + TS[4] * Tm[4] + TS[5] * Tm[5];
}

// Projects one Gaussian. Returns false when it is culled: behind the near plane, a
// degenerate or non-finite 2D covariance, opacity below 1/255, or a cut ellipse that
// misses every pixel centre of the image. Branch-free (every test narrows a `keep` mask
// instead of returning), so that the CPU backend runs it on eight splats at once; returns
// bool for plain numbers. `out` is only meaningful where the result is true.
template <class T>
GLINT_HD inline auto project_splat(const ViewT<T>& v, Vec3<T> mean, Vec3<T> log_scale, Quat<T> q,
                                   T opacity_logit, bool antialiased, Projected<T>& out) {
  Vec3<T> pc = world_to_view(v, mean);
  auto keep = pc.z >= v.near_plane;
  T cov3[6], scale[3];
  Mat3<T> R;
  covariance3d(log_scale, q, cov3, R, scale);
  T Tm[6];
  projection_jacobian(v, pc, Tm);
  // cov2 = Tm Sigma Tm^T
  const T S[9] = {cov3[0], cov3[1], cov3[2], cov3[1], cov3[3], cov3[4], cov3[2], cov3[4], cov3[5]};
  T TS[6], a, b, c;
  project_covariance(Tm, S, TS, a, b, c);
  T ad = a + T(kDilation), cd = c + T(kDilation);
  T det = ad * cd - b * b;
  keep = keep & (det > T(0)) & finite_val(det);
  T op = sigmoid(opacity_logit);
  if (antialiased) {
    T det0 = a * c - b * b;
    T r = det0 / det;
    op *= lane_select(r > T(0), lane_sqrt(lane_select(r > T(0), r, T(1))), T(0));
  }
  keep = keep & (op >= T(kMinAlpha));
  T inv = T(1) / det;
  out.conic[0] = cd * inv;
  out.conic[1] = -b * inv;
  out.conic[2] = ad * inv;
  out.cov[0] = ad;
  out.cov[1] = b;
  out.cov[2] = cd;
  out.depth = pc.z;
  out.opacity = op;
  T ksq = T(2) * lane_log(T(255) * op);
  ksq = lane_select(ksq > T(kMaxSigmaCutSq), T(kMaxSigmaCutSq), ksq);
  ksq = lane_select(ksq < T(0), T(0), ksq);
  out.power_cut = T(0.5) * ksq;
  out.ext_x = lane_sqrt(ksq * ad);
  out.ext_y = lane_sqrt(ksq * cd);
  out.mx = v.fx * pc.x / pc.z + v.cx;
  out.my = v.fy * pc.y / pc.z + v.cy;
  keep = keep & finite_val(out.mx) & finite_val(out.my) & finite_val(out.ext_x) & finite_val(out.ext_y);
  // Any pixel centre (x + 0.5) inside the (slightly grown) bounding box?
  T gx = out.ext_x * T(1.001) + T(0.01), gy = out.ext_y * T(1.001) + T(0.01);
  keep = keep & !(out.mx + gx < T(0.5)) & !(out.mx - gx > T(v.width) - T(0.5));
  keep = keep & !(out.my + gy < T(0.5)) & !(out.my - gy > T(v.height) - T(0.5));
  return keep;
}

// Unit normal of a splat in world space: the axis of its smallest scale (first one on
// ties), turned to face the camera.
template <class T>
GLINT_HD inline int shortest_axis(Vec3<T> ls) {
  int k = 0;
  if (ls.y < ls.x) k = 1;
  if (ls.z < (k == 0 ? ls.x : ls.y)) k = 2;
  return k;
}
template <class T>
GLINT_HD inline Vec3<T> splat_normal(const ViewT<T>& v, Vec3<T> mean, Vec3<T> log_scale, Quat<T> q,
                                     T* sign_out = nullptr) {
  Mat3<T> R = quat_to_rotmat(q);
  int k = shortest_axis(log_scale);
  Vec3<T> n{R.m[k], R.m[3 + k], R.m[6 + k]};
  T toward = n.x * (mean.x - v.campos[0]) + n.y * (mean.y - v.campos[1]) + n.z * (mean.z - v.campos[2]);
  T s = toward > T(0) ? T(-1) : T(1);
  if (sign_out) *sign_out = s;
  return s * n;
}

// VJP of quat_to_rotmat (through the normalisation). A zero quaternion gets zero gradient.
// Branch-free, like everything project_splat_vjp calls.
template <class T>
GLINT_HD inline Quat<T> quat_to_rotmat_vjp(Quat<T> q, const T* G) {
  T n2 = q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z;
  const auto ok = n2 > T(0);
  T inv = T(1) / lane_sqrt(lane_select(ok, n2, T(1)));
  T w = q.w * inv, x = q.x * inv, y = q.y * inv, z = q.z * inv;
  T gw = T(2) * (-z * G[1] + y * G[2] + z * G[3] - x * G[5] - y * G[6] + x * G[7]);
  T gx = T(2) * (y * G[1] + z * G[2] + y * G[3] - T(2) * x * G[4] - w * G[5] + z * G[6] + w * G[7] -
                 T(2) * x * G[8]);
  T gy = T(2) * (T(-2) * y * G[0] + x * G[1] + w * G[2] + x * G[3] + z * G[5] - w * G[6] + z * G[7] -
                 T(2) * y * G[8]);
  T gz = T(2) * (T(-2) * z * G[0] - w * G[1] + x * G[2] + w * G[3] - T(2) * z * G[4] + y * G[5] +
                 x * G[6] + y * G[7]);
  T d = w * gw + x * gx + y * gy + z * gz;
  return {lane_select(ok, (gw - w * d) * inv, T(0)), lane_select(ok, (gx - x * d) * inv, T(0)),
          lane_select(ok, (gy - y * d) * inv, T(0)), lane_select(ok, (gz - z * d) * inv, T(0))};
}

// Upstream gradients of one splat's projected quantities.
template <class T>
struct ProjectedGrad {
  T mean2d[2];
  T conic[3];
  T opacity;  // of the effective opacity (after AA compensation)
  T depth;    // of the view-space z
  T normal[3];
};

template <class T>
struct SplatGeomGrad {
  Vec3<T> mean, log_scale;
  Quat<T> quat;
  T opacity_logit;
};

// VJP of project_splat (and splat_normal) for a splat that project_splat kept. Writes the
// gradients with respect to the raw parameters. Branch-free (every per-splat decision is a
// lane_select), so that the CPU backend runs it on eight splats at once.
template <class T>
GLINT_HD inline void project_splat_vjp(const ViewT<T>& v, Vec3<T> mean, Vec3<T> log_scale, Quat<T> q,
                                       T opacity_logit, bool antialiased, const ProjectedGrad<T>& g,
                                       SplatGeomGrad<T>& out) {
  Vec3<T> pc = world_to_view(v, mean);
  T z = pc.z;
  T cov3[6], s[3];
  Mat3<T> R;
  covariance3d(log_scale, q, cov3, R, s);
  const T S[9] = {cov3[0], cov3[1], cov3[2], cov3[1], cov3[3], cov3[4], cov3[2], cov3[4], cov3[5]};
  T ux = pc.x / z, uy = pc.y / z;
  const auto clx = (ux < -v.lim_x_neg) | (ux > v.lim_x_pos);
  const auto cly = (uy < -v.lim_y_neg) | (uy > v.lim_y_pos);
  T cux = clampv(ux, -v.lim_x_neg, v.lim_x_pos), cuy = clampv(uy, -v.lim_y_neg, v.lim_y_pos);
  T tx = z * cux, ty = z * cuy;
  T Tm[6];
  projection_jacobian(v, pc, Tm);
  T TS[6], a, b, c;
  project_covariance(Tm, S, TS, a, b, c);
  T ad = a + T(kDilation), cd = c + T(kDilation);
  T det = ad * cd - b * b;
  T inv = T(1) / det;
  T sig = sigmoid(opacity_logit);
  T comp = T(1);
  T ratio = T(0);
  if (antialiased) {
    ratio = (a * c - b * b) * inv;
    comp = lane_select(ratio > T(0), lane_sqrt(lane_select(ratio > T(0), ratio, T(1))), T(0));
  }
  out.opacity_logit = g.opacity * comp * sig * (T(1) - sig);
  // conic = inverse(Sigma'): dL/dSigma' = -M G M, M = conic as a symmetric matrix.
  T M00 = cd * inv, M01 = -b * inv, M11 = ad * inv;
  T G00 = g.conic[0], G01 = T(0.5) * g.conic[1], G11 = g.conic[2];
  // (M G M)
  T P00 = M00 * G00 + M01 * G01, P01 = M00 * G01 + M01 * G11;
  T P10 = M01 * G00 + M11 * G01, P11 = M01 * G01 + M11 * G11;
  T ga = -(P00 * M00 + P01 * M01);
  T gb = -T(2) * (P00 * M01 + P01 * M11);
  T gc = -(P10 * M01 + P11 * M11);
  if (antialiased) {
    const auto pos = ratio > T(0);
    T dr = g.opacity * sig * T(0.5) / lane_select(pos, comp, T(1));
    ga += lane_select(pos, dr * (c - ratio * cd) * inv, T(0));
    gc += lane_select(pos, dr * (a - ratio * ad) * inv, T(0));
    gb += lane_select(pos, dr * (-T(2) * b + ratio * T(2) * b) * inv, T(0));
  }
  // Sigma2 = Tm S Tm^T with G2 symmetric [[ga, gb/2], [gb/2, gc]].
  T G2[4] = {ga, T(0.5) * gb, T(0.5) * gb, gc};
  // dS = Tm^T G2 Tm (3x3)
  T GT[6];  // G2 Tm (2x3)
  for (int r = 0; r < 2; ++r)
    for (int k = 0; k < 3; ++k) GT[r * 3 + k] = G2[r * 2] * Tm[k] + G2[r * 2 + 1] * Tm[3 + k];
  T dS[9];
  for (int r = 0; r < 3; ++r)
    for (int k = 0; k < 3; ++k) dS[r * 3 + k] = Tm[r] * GT[k] + Tm[3 + r] * GT[3 + k];
  // dTm = 2 G2 Tm S = 2 GT S
  T dTm[6];
  for (int r = 0; r < 2; ++r)
    for (int k = 0; k < 3; ++k)
      dTm[r * 3 + k] = T(2) * (GT[r * 3] * S[k] + GT[r * 3 + 1] * S[3 + k] + GT[r * 3 + 2] * S[6 + k]);
  // dJ = dTm W^T (only J00, J02, J11, J12 are non-zero)
  T dJ00 = dTm[0] * v.R[0] + dTm[1] * v.R[1] + dTm[2] * v.R[2];
  T dJ02 = dTm[0] * v.R[6] + dTm[1] * v.R[7] + dTm[2] * v.R[8];
  T dJ11 = dTm[3] * v.R[3] + dTm[4] * v.R[4] + dTm[5] * v.R[5];
  T dJ12 = dTm[3] * v.R[6] + dTm[4] * v.R[7] + dTm[5] * v.R[8];
  T z2 = z * z, z3 = z2 * z;
  Vec3<T> dpc{T(0), T(0), T(0)};
  dpc.z += -dJ00 * v.fx / z2 + dJ02 * T(2) * v.fx * tx / z3 - dJ11 * v.fy / z2 + dJ12 * T(2) * v.fy * ty / z3;
  T dtx = -dJ02 * v.fx / z2, dty = -dJ12 * v.fy / z2;
  // a clamped x/z makes tx depend on z only
  dpc.z += lane_select(clx, dtx * cux, T(0));
  dpc.x += lane_select(clx, T(0), dtx);
  dpc.z += lane_select(cly, dty * cuy, T(0));
  dpc.y += lane_select(cly, T(0), dty);
  // mean2d = (fx x/z + cx, fy y/z + cy), depth = z
  dpc.x += g.mean2d[0] * v.fx / z;
  dpc.y += g.mean2d[1] * v.fy / z;
  dpc.z += -g.mean2d[0] * v.fx * pc.x / z2 - g.mean2d[1] * v.fy * pc.y / z2 + g.depth;
  out.mean = view_rotate_t(v, dpc);
  // Sigma3 = M M^T, M = R diag(s): dM = 2 dS M (dS symmetric)
  T Mm[9];
  for (int r = 0; r < 3; ++r)
    for (int k = 0; k < 3; ++k) Mm[r * 3 + k] = R.m[r * 3 + k] * s[k];
  T dR[9];
  T ds[3] = {T(0), T(0), T(0)};
  for (int r = 0; r < 3; ++r)
    for (int k = 0; k < 3; ++k) {
      T dM = T(2) * (dS[r * 3] * Mm[k] + dS[r * 3 + 1] * Mm[3 + k] + dS[r * 3 + 2] * Mm[6 + k]);
      dR[r * 3 + k] = dM * s[k];
      ds[k] += dM * R.m[r * 3 + k];
    }
  out.log_scale = {ds[0] * s[0], ds[1] * s[1], ds[2] * s[2]};
  // normal = sign * R[:, k], k = shortest_axis(log_scale) as masks: k1 (y < x), k2 (z wins)
  const auto k1 = log_scale.y < log_scale.x;
  const auto k2 = log_scale.z < lane_select(k1, log_scale.y, log_scale.x);
  const auto is0 = (!k1) & (!k2), is1 = k1 & (!k2);
  Vec3<T> n;
  n.x = lane_select(k2, R.m[2], lane_select(k1, R.m[1], R.m[0]));
  n.y = lane_select(k2, R.m[5], lane_select(k1, R.m[4], R.m[3]));
  n.z = lane_select(k2, R.m[8], lane_select(k1, R.m[7], R.m[6]));
  T toward = n.x * (mean.x - v.campos[0]) + n.y * (mean.y - v.campos[1]) + n.z * (mean.z - v.campos[2]);
  T sg = lane_select(toward > T(0), T(-1), T(1));
  for (int r = 0; r < 3; ++r) {
    const T gn = sg * g.normal[r];
    dR[r * 3] += lane_select(is0, gn, T(0));
    dR[r * 3 + 1] += lane_select(is1, gn, T(0));
    dR[r * 3 + 2] += lane_select(k2, gn, T(0));
  }
  out.quat = quat_to_rotmat_vjp(q, dR);
}

}  // namespace GLINT_RENDER_NS
}  // namespace glint::render

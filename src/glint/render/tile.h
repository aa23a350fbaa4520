#pragma once
// Which pixels and tiles a projected splat can touch. All tests are conservative with
// respect to the per-pixel rule "power <= power_cut" (power = d^T conic d / 2, d = pixel
// centre - mean): they may keep a tile or span whose pixels all fail the rule, never drop
// one that has a passing pixel.
#include "glint/core/hd.h"
#include "glint/render/isa.h"
#include "glint/render/view.h"

namespace glint::render {
inline namespace GLINT_RENDER_NS {

// Relative and absolute slack applied to the cut in bounding tests (float rounding).
inline constexpr float kCutSlackRel = 1e-3f;
inline constexpr float kCutSlackAbs = 1e-3f;

struct PixelRect {
  int x0, y0, x1, y1;  // inclusive pixel index range; empty when x0 > x1 or y0 > y1
};

// Along one axis: pixels i0..i1 of a run of n pixels starting at pixel `origin` (the image,
// or one tile's rows or columns) whose centres (origin + i + 0.5) lie in [m - ext, m + ext],
// grown slightly. False when there are none (i0 > i1).
GLINT_HD inline bool pixel_span(float m, float ext, int origin, int n, int& i0, int& i1) {
  const float g = ext * 1.001f + 0.01f;
  // Clamp in float before converting so no out-of-range float -> int conversion happens.
  float f0 = m - g - 0.5f - float(origin), f1 = m + g - 0.5f - float(origin);
  const float N = float(n);
  f0 = f0 < -1.f ? -1.f : (f0 > N ? N : f0);
  f1 = f1 < -1.f ? -1.f : (f1 > N ? N : f1);
  i0 = int(std::ceil(f0));
  i1 = int(std::floor(f1));
  if (i0 < 0) i0 = 0;
  if (i1 > n - 1) i1 = n - 1;
  return i0 <= i1;
}

// Pixels whose centres (x + 0.5) lie in [m - ext, m + ext], grown slightly, clipped to the image.
GLINT_HD inline PixelRect splat_pixel_rect(float mx, float my, float ext_x, float ext_y, int width, int height) {
  PixelRect r;
  pixel_span(mx, ext_x, 0, width, r.x0, r.x1);
  pixel_span(my, ext_y, 0, height, r.y0, r.y1);
  return r;
}

// Pixel-centre coordinates [c0, c1] of the pixels of tile t (along one axis) that lie in
// the pixel index range [p0, p1]: the rectangle a tile test checks.
GLINT_HD inline void tile_centre_span(int t, int p0, int p1, float& c0, float& c1) {
  const int a = t * kTileSize, b = a + kTileSize - 1;
  c0 = float(a > p0 ? a : p0) + 0.5f;
  c1 = float(b < p1 ? b : p1) + 0.5f;
}

// Minimum of q(d) = A dx^2 + 2 B dx dy + C dy^2 along the segment dx = X, dy in [y0, y1],
// given nb_over_c = -B / C (0 when C <= 0). Returns the minimum minus a bound on its
// rounding error (so the caller stays conservative). T is float, or a lane type whose
// lanes are segments (the CPU backend tests eight tiles of a splat at once).
template <class T>
GLINT_HD inline T quad_min_on_vertical(T A, T B, T C, T nb_over_c, T X, T y0, T y1) {
  T y = nb_over_c * X;
  y = lane_select(y < y0, y0, lane_select(y > y1, y1, y));
  const T t0 = A * X * X, t1 = T(2.f) * B * X * y, t2 = C * y * y;
  const T mag = t0 + lane_select(t1 < T(0.f), -t1, t1) + t2;
  return t0 + t1 + t2 - T(1e-5f) * mag;
}

// The per-splat part of ellipse_hits_rect, for callers that test many rectangles of one
// splat: the divisions happen once.
struct RectTestPrep {
  float A, B, C, lim;
  float nb_over_c, nb_over_a;  // -B/C and -B/A, 0 where the divisor is not positive
};
GLINT_HD inline RectTestPrep rect_test_prep(float A, float B, float C, float power_cut) {
  RectTestPrep p;
  p.A = A;
  p.B = B;
  p.C = C;
  p.lim = 2.f * power_cut * (1.f + kCutSlackRel) + kCutSlackAbs;
  p.nb_over_c = C > 0.f ? -B / C : 0.f;
  p.nb_over_a = A > 0.f ? -B / A : 0.f;
  return p;
}

// Does the ellipse {d : d^T conic d <= 2 power_cut} around (mx, my) contain a point of the
// rectangle [px0, px1] x [py0, py1] (pixel-centre coordinates)? Exact up to slack.
// Evaluated without branches (bitwise & and |, selects): callers test every tile of a
// splat's box, and which tiles hit is what a branch predictor cannot guess. T is float
// (returns bool) or a lane type with one rectangle per lane (returns its mask type).
template <class T>
GLINT_HD inline decltype(T() < T()) ellipse_hits_rect(const RectTestPrep& p, float mx, float my, T px0, T px1, T py0,
                                                     T py1) {
  const T x0 = px0 - T(mx), x1 = px1 - T(mx), y0 = py0 - T(my), y1 = py1 - T(my);
  const T zero(0.f), A(p.A), B(p.B), C(p.C), nb_over_c(p.nb_over_c), nb_over_a(p.nb_over_a);
  const auto inside = (x0 <= zero) & (x1 >= zero) & (y0 <= zero) & (y1 >= zero);
  T m = quad_min_on_vertical(A, B, C, nb_over_c, x0, y0, y1);
  T t = quad_min_on_vertical(A, B, C, nb_over_c, x1, y0, y1);
  m = lane_select(t < m, t, m);
  // horizontal edges: swap roles of x and y
  t = quad_min_on_vertical(C, B, A, nb_over_a, y0, x0, x1);
  m = lane_select(t < m, t, m);
  t = quad_min_on_vertical(C, B, A, nb_over_a, y1, x0, x1);
  m = lane_select(t < m, t, m);
  return inside | (m <= T(p.lim));
}
GLINT_HD inline bool ellipse_hits_rect(float mx, float my, float A, float B, float C, float power_cut, float px0,
                                       float px1, float py0, float py1) {
  return ellipse_hits_rect(rect_test_prep(A, B, C, power_cut), mx, my, px0, px1, py0, py1);
}

// For a row at offset dy from the mean, the interval of dx where the cut can pass, grown by
// `pad` pixels (ellipse_row_span_at; false when the row misses the ellipse). Split into a
// per-splat part and a per-row part without divisions, since kernels test many rows of one
// splat: the reciprocal costs an extra rounding in c and h, covered by the 1e-5 |h| slack.
struct RowSpanPrep {
  float inv_a;     // 1 / A
  float a_lim;     // A * lim
  float detc;      // A C - B^2
  float nb_inv_a;  // -B / A
  bool thin;       // too thin to solve in float: every row spans the whole line
};

GLINT_HD inline RowSpanPrep ellipse_row_span_prep(float A, float B, float C, float power_cut) {
  RowSpanPrep p;
  float lim = 2.f * power_cut * (1.f + kCutSlackRel) + kCutSlackAbs;
  float AC = A * C;
  // A dx^2 + 2 B dy dx + (C dy^2 - lim) <= 0 has discriminant/4 = A lim - dy^2 (A C - B^2)
  p.detc = AC - B * B;
  p.thin = !(p.detc > 1e-4f * AC);  // too thin to solve reliably in float: keep whole rows
  p.inv_a = 1.f / A;
  p.a_lim = A * lim;
  p.nb_inv_a = -B * p.inv_a;
  return p;
}

// The per-row part, written once for a lane type: Ops supplies the value type F, its mask
// type M and the few operations that differ between plain floats (ScalarOps, every caller
// but one) and the CPU tile kernels' eight-row vectors (one square root for eight rows).
// Branch-free; lo and hi are meaningless where the result is false.
struct ScalarOps {
  using F = float;
  using M = bool;
  GLINT_HD static F splat(float x) { return x; }
  GLINT_HD static M all(bool b) { return b; }
  GLINT_HD static F sqrt(F x) { return std::sqrt(x); }
  GLINT_HD static F select(M m, F a, F b) { return m ? a : b; }
};

template <class Ops>
GLINT_HD inline typename Ops::M ellipse_row_span_ops(const RowSpanPrep& p, typename Ops::F dy, float pad,
                                                     typename Ops::F& lo, typename Ops::F& hi) {
  using F = typename Ops::F;
  const F zero = Ops::splat(0.f);
  const F disc = Ops::splat(p.a_lim) - dy * dy * Ops::splat(p.detc);
  const typename Ops::M hit = disc >= zero;
  const F c = Ops::splat(p.nb_inv_a) * dy;
  const F h = Ops::sqrt(Ops::select(hit, disc, zero)) * Ops::splat(p.inv_a);
  const F slack = Ops::splat(pad) + Ops::splat(1e-3f) * Ops::select(c < zero, -c, c) + Ops::splat(1e-5f) * h;
  lo = p.thin ? Ops::splat(-3.0e38f) : c - h - slack;
  hi = p.thin ? Ops::splat(3.0e38f) : c + h + slack;
  return hit | Ops::all(p.thin);
}

GLINT_HD inline bool ellipse_row_span_at(const RowSpanPrep& p, float dy, float pad, float& lo, float& hi) {
  return ellipse_row_span_ops<ScalarOps>(p, dy, pad, lo, hi);
}

}  // namespace GLINT_RENDER_NS
}  // namespace glint::render

// The CPU tile kernels, compiled once per instruction set: a .cpp defines GLINT_CPU_ISA
// (a namespace name) and includes this file. Both compilations use -ffp-contract=off and
// fuse only where fmadd says so; forward and backward evaluate each blend step with the
// same code and reach the same decisions.
// No include guard on purpose.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "glint/backend/cpu/lanes.h"
#include "glint/backend/cpu/raster_tiles.h"
#include "glint/render/blend.h"
#include "glint/render/tile.h"

#ifndef GLINT_CPU_ISA
#error "define GLINT_CPU_ISA before including raster_kernels_impl.h"
#endif

namespace glint::cpu::GLINT_CPU_ISA {
namespace {

constexpr int TS = render::kTileSize;
constexpr int TP = TS * TS;
constexpr int LANES = 8;
// A lane group is a block of QW x QH pixels, four columns of two rows. Most splats of a
// scene cover a few pixels each way, and a 4x2 block wastes fewer lanes on them than a row
// of eight (docs/RASTERIZER.md has the measured fill).
constexpr int QW = 4, QH = 2, QW_SHIFT = 2;
static_assert(QW * QH == LANES && (1 << QW_SHIFT) == QW);
constexpr int GROUPS = TS / QW;  // lane groups per row pair
constexpr int PAIRS = TS / QH;   // row pairs per tile
inline int group_of(int r, int c) { return (r / QH) * GROUPS + c / QW; }
inline int lane_of(int r, int c) { return (r % QH) * QW + c % QW; }
constexpr std::uint32_t kPrefetch = 8;  // splats are read in depth order, scattered in memory

// Eight pixels of a lane group as one vector of the dialect of lanes.h (vf, vi).
constexpr int NG = TP / LANES;  // lane groups per tile
static_assert(NG == GROUPS * PAIRS);

// render::ellipse_row_span_ops on eight rows at a time.
struct RowOps {
  using F = vf;
  using M = vi;
  static F splat(float x) { return bc(x); }
  static M all(bool b) { return bci(b ? -1 : 0); }
  static F sqrt(F x) { return v_sqrt(x); }
  static F select(M m, F a, F b) { return m ? a : b; }
};

// Lane groups g0[q]..g1[q] of each row pair q of the tile (pixel centres x0 + c + 0.5) that
// the cut ellipse can reach in rows r0..r1; g0 > g1 where it reaches none. The row spans
// come eight rows at a time (a square root per row would otherwise be much of the work of
// a large splat), then each pair takes the union of its two rows.
inline void pair_groups(const SplatPacked& s, const render::RowSpanPrep& p, int x0, int y0, int ncols, int r0, int r1,
                        int* g0, int* g1) {
  const vf lane = {0.f, 1.f, 2.f, 3.f, 4.f, 5.f, 6.f, 7.f};
  const vi lanei = {0, 1, 2, 3, 4, 5, 6, 7};
  static_assert(TS == 2 * LANES);
  vi first[2], last[2];  // per row of each half tile: first and last column reached
  for (int h = 0; h < 2; ++h) {
    const int rb = h * LANES;
    first[h] = bci(TS);
    last[h] = bci(-1);
    if (rb > r1 || rb + LANES - 1 < r0) continue;
    const vf dy = (bc(float(y0 + rb)) + lane) + bc(0.5f) - bc(s.my);  // = float(y0 + r) + 0.5f - my
    vf lo, hi;
    const vi hit = render::ellipse_row_span_ops<RowOps>(p, dy, 1.0f, lo, hi);
    vf c0 = bc(s.mx) + lo - bc(float(x0)) - bc(0.5f), c1 = bc(s.mx) + hi - bc(float(x0)) - bc(0.5f);
    c0 = c0 < bc(-1.f) ? bc(-1.f) : (c0 > bc(float(TS + 1)) ? bc(float(TS + 1)) : c0);
    c1 = c1 < bc(-1.f) ? bc(-1.f) : (c1 > bc(float(TS + 1)) ? bc(float(TS + 1)) : c1);
    vi i0 = v_ceil_int(c0), i1 = v_floor_int(c1);
    i0 = i0 < bci(0) ? bci(0) : i0;
    i1 = i1 > bci(ncols - 1) ? bci(ncols - 1) : i1;
    const vi row = bci(rb) + lanei;
    const vi any = hit & (i0 <= i1) & (row >= bci(r0)) & (row <= bci(r1));
    first[h] = any ? i0 : first[h];
    last[h] = any ? i1 : last[h];
  }
  const vi f_even = __builtin_shufflevector(first[0], first[1], 0, 2, 4, 6, 8, 10, 12, 14);
  const vi f_odd = __builtin_shufflevector(first[0], first[1], 1, 3, 5, 7, 9, 11, 13, 15);
  const vi l_even = __builtin_shufflevector(last[0], last[1], 0, 2, 4, 6, 8, 10, 12, 14);
  const vi l_odd = __builtin_shufflevector(last[0], last[1], 1, 3, 5, 7, 9, 11, 13, 15);
  // an empty pair keeps TS / QW > -1 / QW (arithmetic shift): g0 > g1
  const vi a0 = (f_even < f_odd ? f_even : f_odd) >> QW_SHIFT;
  const vi a1 = (l_even > l_odd ? l_even : l_odd) >> QW_SHIFT;
  static_assert(PAIRS == LANES);
  std::memcpy(g0, &a0, sizeof(a0));
  std::memcpy(g1, &a1, sizeof(a1));
}

// The part of a blend step that does not depend on the pixel's transmittance: the
// Gaussian, alpha and whether the step is a candidate (inside the cut, alpha >= 1/255).
// Kernels compute it for every lane group a splat touches before blending any of them, so
// the exp chains of different groups overlap instead of waiting on each other.
// G is 0 where alpha was clamped at 0.99: there alpha does not depend on the splat's
// parameters, and the backward, the only reader of G, then adds dL/dalpha G = (+-)0 to
// its sums, which leaves them as they are (one mask fewer to keep and apply a group).
struct AlphaV {
  vf G, al;
  vi cand;
};
// Pixel centres (y) of the lanes of row pair q.
inline vf pair_py(int y0, int q) {
  const vf row = {0.f, 0.f, 0.f, 0.f, 1.f, 1.f, 1.f, 1.f};
  return bc(float(y0 + q * QH) + 0.5f) + row;
}
// Offsets from the mean in y of the lanes of row pair q, and the power's terms that depend
// on them alone (shared by the pair's lane groups).
inline vf pair_dy(const SplatPacked& s, int y0, int q) { return pair_py(y0, q) - bc(s.my); }
// The power's terms that depend on dy alone, negated: alpha_v computes -power directly
// (negation is exact, so every rounding is the same as for +power), which saves flipping
// its sign in front of the exp of every lane group.
struct PairRows {
  vf nbdy, ncdy;  // -B dy and -C dy^2 / 2
};
inline PairRows rows_for_dy(const SplatPacked& s, vf dy) { return {bc(-s.B) * dy, bc(-0.5f * s.C) * dy * dy}; }
inline PairRows pair_rows(const SplatPacked& s, int y0, int q) { return rows_for_dy(s, pair_dy(s, y0, q)); }
// The splat's values alpha_v reads, broadcast once per (splat, tile) in locals: read
// through the SplatPacked reference, they were reloaded for every group (the group stores
// might alias them).
struct SplatLanes {
  vf mx, neg_half_a, opacity, neg_power_cut;
};
inline SplatLanes splat_lanes(const SplatPacked& s) {
  return {bc(s.mx), bc(-0.5f * s.A), bc(s.opacity), bc(-s.power_cut)};
}
// Pixel centres (x) of the lanes of the group whose first pixel centre is px0. Integers
// plus one half, so exact in float: adding QW to them steps to the next group exactly.
inline vf group_px(float px0) {
  const vf col = {0.f, 1.f, 2.f, 3.f, 0.f, 1.f, 2.f, 3.f};
  return bc(px0) + col;
}
// The first pixel centre of group gi.
inline float group_px0(int x0, int gi) { return float(x0 + (gi % GROUPS) * QW) + 0.5f; }
// group_px of every group column and pair_py of every row pair of a tile, built once: the
// backward reads them for each lane group it replays instead of rebuilding them from
// integers (the same values, so the same bits).
struct TileCentres {
  vf px[GROUPS], py[PAIRS];
  TileCentres(int x0, int y0) {
    for (int g = 0; g < GROUPS; ++g) px[g] = group_px(group_px0(x0, g));
    for (int q = 0; q < PAIRS; ++q) py[q] = pair_py(y0, q);
  }
  // (unsigned: the sign handling of int division took eleven scalar instructions per
  // group of the backward's loop)
  vf x(int gi) const { return px[unsigned(gi) % GROUPS]; }
  vf y(int gi) const { return py[unsigned(gi) / GROUPS]; }
};
// A step's alpha part from its Gaussian G: alpha with the 0.99 clamp, and the candidates,
// the lanes `inside` the cut whose alpha is at least 1/255.
inline AlphaV alpha_of_g(const SplatLanes& s, vf G, vi inside) {
  AlphaV o;
  const vf raw = s.opacity * G;
  const vi clamped = raw > bc(float(render::kMaxAlpha));
  o.G = clamped ? bc(0.f) : G;
  o.al = clamped ? bc(float(render::kMaxAlpha)) : raw;
  o.cand = inside & (o.al >= bc(float(render::kMinAlpha)));
  return o;
}
// px: group_px of the group.
inline AlphaV alpha_v(const SplatLanes& s, vf px, const PairRows& rows) {
  const vf dx = px - s.mx;
  // -power = -(A dx^2 / 2 + B dx dy + C dy^2 / 2) in Horner form
  const vf npower = fmadd(fmadd(s.neg_half_a, dx, rows.nbdy), dx, rows.ncdy);
  return alpha_of_g(s, v_exp(npower), npower >= s.neg_power_cut);
}

// The Gaussian over a tile's lane groups by recurrence: along a row pair, G of the next
// group (four pixels right) is G R with R = exp(power(dx) - power(dx + 4)), and R of the
// next group is R K with K = exp(-16 A); down the start column, the next row pair's G is
// G S (S = exp(power(dy) - power(dy + 2))), its S is S exp(-4 C) and its R is R exp(-8 B).
// So four exps per (splat, tile) (G, R and S at the start, and the factors) and two
// products per group replace an exp per group (figures in docs/RASTERIZER.md). Forward and
// backward walk the same rectangle (the splat's pixel box in whole lane groups) in the same
// order, so they compute the same bits. Where the power somewhere in that rectangle is
// large (long thin splats whose box corners lie far outside the ellipse) G could leave
// float range, and both use alpha_v per group instead.
constexpr float kWalkMaxPower = 60.f;  // e^-60 and e^60 are well inside float range
// Splats whose box is under 16 x 8 pixels take alpha_v: a tile holds few of their lane
// groups, and the backward replays fewer still (only those where the forward blended), so
// the walk's four exps cost more than they save (an 8 x 4 pixel bound made the 320x240
// training backward clearly slower).
inline bool walk_worth_it(const SplatPacked& s) { return s.ext_x >= 8.f && s.ext_y >= 4.f; }
struct GaussWalk {
  bool exact;      // alpha_v per group
  int gb;          // the group column each row pair's walk starts at
  vf Gq, Rq, Sq;   // at (the current row pair, gb)
  vf K, Kr, Ky;    // R's factor a group, R's and S's factors a row pair
  vf gcut;         // G at the cut, exp(-power_cut)
  // one row pair: G and R at the group reached
  vf G, R;
  int g;
  void next_pair() {
    Gq = Gq * Sq;
    Sq = Sq * Ky;
    Rq = Rq * Kr;
  }
  void start_row() {
    G = Gq;
    R = Rq;
    g = gb;
  }
  void next_group() {
    G = G * R;
    R = R * K;
    ++g;
  }
};
// The walk over row pairs qa..qb and group columns gb..gb1 of the tile at (x0, y0).
inline GaussWalk walk_start(const SplatPacked& s, int x0, int y0, int qa, int qb, int gb, int gb1) {
  GaussWalk w;
  w.gb = gb;
  w.exact = !walk_worth_it(s);
  if (w.exact) return w;
  // the power is convex: its largest value on the rectangle is at a corner
  const float ax = float(x0 + gb * QW) + 0.5f - s.mx, bx = float(x0 + gb1 * QW + QW - 1) + 0.5f - s.mx;
  const float ay = float(y0 + qa * QH) + 0.5f - s.my, by = float(y0 + qb * QH + QH - 1) + 0.5f - s.my;
  const auto power = [&](float dx, float dy) { return 0.5f * s.A * dx * dx + s.B * dx * dy + 0.5f * s.C * dy * dy; };
  const float pmax = std::max(std::max(power(ax, ay), power(bx, ay)), std::max(power(ax, by), power(bx, by)));
  w.exact = !(pmax <= kWalkMaxPower);  // NaN too
  if (w.exact) return w;
  const vf dx = group_px(float(x0 + gb * QW) + 0.5f) - bc(s.mx), dy = pair_py(y0, qa) - bc(s.my);
  const PairRows rows = rows_for_dy(s, dy);
  w.Gq = v_exp(fmadd(fmadd(bc(-0.5f * s.A), dx, rows.nbdy), dx, rows.ncdy));
  w.Rq = v_exp(bc(-4.f * s.A) * dx + bc(-4.f * s.B) * dy + bc(-8.f * s.A));
  w.Sq = v_exp(bc(-2.f * s.B) * dx + bc(-2.f * s.C) * dy + bc(-2.f * s.C));
  const vf k = v_exp(vf{-16.f * s.A, -8.f * s.B, -4.f * s.C, -s.power_cut, 0.f, 0.f, 0.f, 0.f});
  w.K = bc(k[0]);
  w.Kr = bc(k[1]);
  w.Ky = bc(k[2]);
  w.gcut = bc(k[3]);
  return w;
}
// The alpha part at the group the walk reached: there the cut is G >= exp(-power_cut).
inline AlphaV walk_alpha(const SplatLanes& s, const GaussWalk& w) { return alpha_of_g(s, w.G, w.G >= w.gcut); }

// The transmittance-dependent rest of a step: ok (blended) and stop (pixel finished, step
// not blended), and the transmittance after the step.
struct StepV {
  vf tn;
  vi ok, stop;
};
template <class Alpha>  // AlphaV or AlphaSlim
inline StepV step_v(const Alpha& a, vf t, vi live) {
  StepV o;
  const vi cand = a.cand & live;
  o.tn = t * (bc(1.f) - a.al);
  o.stop = cand & (o.tn < bc(float(render::kTransmittanceStop)));
  o.ok = cand & ~o.stop;
  return o;
}

// What the forward keeps of AlphaV: the backward also needs the Gaussian, the forward does
// not, and storing it per group cost it time. (The backward keeps AlphaV whole; the offsets
// it recomputes from TileCentres.)
struct AlphaSlim {
  vf al;
  vi cand;
  AlphaSlim& operator=(const AlphaV& a) {
    al = a.al;
    cand = a.cand;
    return *this;
  }
};

// Lane groups of one (splat, tile) pair with at least one candidate lane, in row-major
// order, with what the kernel needs of their alpha part (Alpha: AlphaSlim, filled by
// collect_groups in the forward, or AlphaV, filled by replay_groups in the backward).
template <class Alpha>
struct SplatGroups {
  int n = 0;
  int gi[NG];
  Alpha av[NG];
};
template <class Alpha>
inline void collect_groups(const SplatPacked& s, int x0, int y0, int ncols, int nrows, std::uint32_t live,
                           SplatGroups<Alpha>& out) {
  out.n = 0;
  int r0, r1, c0, c1;
  // the tile's rows and columns in the splat's pixel box (as the projection's, per tile)
  if (!render::pixel_span(s.my, s.ext_y, y0, nrows, r0, r1) || !render::pixel_span(s.mx, s.ext_x, x0, ncols, c0, c1))
    return;
  // Which groups of each row pair to evaluate: for most splats every group of the bounding
  // box's columns, for thin tilted ones more than two groups wide (rho^2 = B^2 / AC > 0.5:
  // the ellipse fills less than 55% of its box) only those its rows' spans reach. The span
  // tests (two vector square roots and a union per row pair) cost more than the alpha of
  // the few groups they skip on rounder or smaller splats: with them for every splat, both
  // the training forward and the 800x800 / 300k forward were slower. Either way, groups
  // without a candidate lane are dropped below, so the choice changes no result.
  int g0[PAIRS], g1[PAIRS];
  if (s.B * s.B > 0.5f * s.A * s.C && s.ext_x > 4.f) {
    const render::RowSpanPrep sp = render::ellipse_row_span_prep(s.A, s.B, s.C, s.power_cut);
    pair_groups(s, sp, x0, y0, ncols, r0, r1, g0, g1);
    for (int q = 0; q < PAIRS; ++q) {  // within the box's columns, where the walk goes
      g0[q] = std::max(g0[q], c0 >> QW_SHIFT);
      g1[q] = std::min(g1[q], c1 >> QW_SHIFT);
    }
  } else {
    std::fill(g0, g0 + PAIRS, c0 >> QW_SHIFT);
    std::fill(g1, g1 + PAIRS, c1 >> QW_SHIFT);
  }
  const SplatLanes sl = splat_lanes(s);
  const int qa = r0 / QH, qb = r1 / QH;
  GaussWalk w = walk_start(s, x0, y0, qa, qb, c0 >> QW_SHIFT, c1 >> QW_SHIFT);
  int n = 0;
  for (int q = qa; q <= qb; ++q) {
    if (q > qa && !w.exact) w.next_pair();
    constexpr std::uint32_t kPairBits = (1u << GROUPS) - 1;
    if (((live >> (q * GROUPS)) & kPairBits) == 0 || g0[q] > g1[q]) continue;
    if (w.exact) {
      const PairRows rows = pair_rows(s, y0, q);
      vf px = group_px(float(x0 + g0[q] * QW) + 0.5f);
      for (int g = g0[q]; g <= g1[q]; ++g, px += bc(float(QW))) {
        if (((live >> (q * GROUPS + g)) & 1u) == 0) continue;  // every pixel of the block is finished
        out.gi[n] = q * GROUPS + g;
        const AlphaV av = alpha_v(sl, px, rows);
        out.av[n] = av;
        n += lane_bits(av.cand) != 0;  // keep only groups where something can happen
      }
      continue;
    }
    w.start_row();
    while (w.g < g0[q]) w.next_group();
    for (;;) {
      const int g = w.g;
      if (((live >> (q * GROUPS + g)) & 1u) != 0) {
        out.gi[n] = q * GROUPS + g;
        const AlphaV av = walk_alpha(sl, w);
        out.av[n] = av;
        n += lane_bits(av.cand) != 0;
      }
      if (g == g1[q]) break;
      w.next_group();
    }
  }
  out.n = n;
}

// The alpha parts of the lane groups set in `groups` (bit gi), in row-major order: the
// groups where the forward's step of this instance blended or stopped a pixel. Backward
// replays the forward's steps in the same order from the same state, so these are exactly
// the groups where collect_groups would find something happening, found without its box
// and span tests and without the groups where nothing did.
// (Forced inline: out of line, the training backward was slower.)
__attribute__((always_inline)) inline void replay_groups(const SplatPacked& s, const TileCentres& tc, int x0, int y0,
                                                       int ncols, int nrows, std::uint32_t groups,
                                                       SplatGroups<AlphaV>& out) {
  const SplatLanes sl = splat_lanes(s);
  int r0 = 0, r1 = 0, c0 = 0, c1 = 0;
  if (walk_worth_it(s)) {
    render::pixel_span(s.my, s.ext_y, y0, nrows, r0, r1);  // as collect_groups: non-empty, or
    render::pixel_span(s.mx, s.ext_x, x0, ncols, c0, c1);  // the forward acted nowhere
  }
  const int qa = r0 / QH;
  GaussWalk w = walk_start(s, x0, y0, qa, r1 / QH, c0 >> QW_SHIFT, c1 >> QW_SHIFT);
  int n = 0, q_rows = -1, q_walk = qa;
  PairRows rows{};
  for (std::uint32_t m = groups; m != 0; m &= m - 1) {
    const int gi = __builtin_ctz(m), q = gi / GROUPS;
    out.gi[n] = gi;
    if (w.exact) {
      if (q != q_rows) {
        rows = rows_for_dy(s, tc.py[q] - bc(s.my));
        q_rows = q;
      }
      out.av[n++] = alpha_v(sl, tc.x(gi), rows);
      continue;
    }
    if (q != q_rows) {
      for (; q_walk < q; ++q_walk) w.next_pair();
      w.start_row();
      q_rows = q;
    }
    while (w.g < gi % GROUPS) w.next_group();
    out.av[n++] = walk_alpha(sl, w);
  }
  out.n = n;
}

// One row (h = 0 or 1) of a 4x2 lane group as four floats, and four-float stores: plain
// and interleaved with two other channels (x0 y0 z0 x1 | y1 z1 x2 y2 | z2 x3 y3 z3).
typedef float v4f __attribute__((vector_size(16)));
inline v4f bc4(float x) { return v4f{x, x, x, x}; }
inline v4f row_of(vf v, int h) {
  return h == 0 ? __builtin_shufflevector(v, v, 0, 1, 2, 3) : __builtin_shufflevector(v, v, 4, 5, 6, 7);
}
inline void store4(float* p, v4f v) { std::memcpy(p, &v, sizeof(v)); }
inline void store_rgb4(float* p, v4f x, v4f y, v4f z) {
  const v4f xy = __builtin_shufflevector(x, y, 0, 4, 1, 5);   // x0 y0 x1 y1
  const v4f yz = __builtin_shufflevector(y, z, 1, 5, 2, 6);   // y1 z1 y2 z2
  const v4f x3y3 = __builtin_shufflevector(x, y, 3, 7, 3, 7);  // x3 y3 . .
  store4(p, __builtin_shufflevector(xy, z, 0, 1, 4, 2));
  store4(p + 4, __builtin_shufflevector(yz, x, 0, 1, 6, 2));
  store4(p + 8, __builtin_shufflevector(z, x3y3, 2, 4, 5, 3));
}

// The inverse of store_rgb4: four interleaved pixels (12 floats) as three channels.
inline v4f load4(const float* p) {
  v4f v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
inline void load_rgb4(const float* p, v4f& x, v4f& y, v4f& z) {
  const v4f a = load4(p), b = load4(p + 4), c = load4(p + 8);  // x0 y0 z0 x1 | y1 z1 x2 y2 | z2 x3 y3 z3
  x = __builtin_shufflevector(__builtin_shufflevector(a, b, 0, 3, 6, 0), c, 0, 1, 2, 5);
  y = __builtin_shufflevector(__builtin_shufflevector(a, b, 1, 4, 7, 0), c, 0, 1, 2, 6);
  z = __builtin_shufflevector(__builtin_shufflevector(a, b, 2, 5, 0, 0), c, 0, 1, 4, 7);
}
// One lane group from its two rows of four (the inverse of row_of).
inline vf group_of_rows(v4f r0, v4f r1) { return __builtin_shufflevector(r0, r1, 0, 1, 2, 3, 4, 5, 6, 7); }

template <unsigned F>
void forward_impl(const TileForwardArgs& a, int tile) {
  constexpr bool kDepth = F & aov::kernel_flag(aov::depth), kMedian = F & aov::kernel_flag(aov::median_depth),
                 kNormal = F & aov::kernel_flag(aov::normal), kCount = F & aov::kernel_flag(aov::count),
                 kDist = F & aov::kernel_flag(aov::distortion);
  const int tx = tile % a.tiles_x, ty = tile / a.tiles_x;
  const int x0 = tx * TS, y0 = ty * TS;
  const int ncols = std::min(TS, a.width - x0), nrows = std::min(TS, a.height - y0);
  // distortion: Dh = half of it so far, R = sum w (z - Z0), Z0 = depth of the first blended splat
  vf T[NG], Cr[NG], Cg[NG], Cb[NG], S[NG], Nx[NG], Ny[NG], Nz[NG], Med[NG], Cnt[NG], Dh[NG], R[NG], Z0[NG];
  vi Live[NG], MedI[NG];
  std::uint32_t live = 0;  // bit gi: lane group gi has an unfinished pixel
  for (int gi = 0; gi < NG; ++gi) {
    const int r0 = (gi / GROUPS) * QH, c0 = (gi % GROUPS) * QW;
    for (int l = 0; l < LANES; ++l) Live[gi][l] = (r0 + l / QW < nrows && c0 + l % QW < ncols) ? -1 : 0;
    live |= std::uint32_t(lane_bits(Live[gi]) != 0) << gi;
    T[gi] = bc(1.f);
    Cr[gi] = Cg[gi] = Cb[gi] = S[gi] = Nx[gi] = Ny[gi] = Nz[gi] = Med[gi] = Cnt[gi] = Dh[gi] = R[gi] = Z0[gi] = bc(0.f);
    MedI[gi] = bci(-1);
  }
  const std::uint32_t begin = a.tile_offsets[tile], end = a.tile_offsets[tile + 1];
  SplatGroups<AlphaSlim> sg;
  std::uint32_t stop = begin;
  for (std::uint32_t p = begin; p < end && live != 0; ++p) {
    if (p + kPrefetch < end) __builtin_prefetch(&a.splats[a.inst_splat[p + kPrefetch]]);
    const SplatPacked& s = a.splats[a.inst_splat[p]];
    collect_groups(s, x0, y0, ncols, nrows, live, sg);
    const vf cr = bc(s.r), cg = bc(s.g), cb = bc(s.b);
    std::uint32_t acted = 0;
    for (int k = 0; k < sg.n; ++k) {
      const int gi = sg.gi[k];
      const AlphaSlim& av = sg.av[k];
      const vf t = T[gi];
      const StepV st = step_v(av, t, Live[gi]);
      if (lane_bits(st.ok | st.stop) == 0) continue;  // nothing happens on these eight pixels
      acted |= 1u << gi;
      Live[gi] = Live[gi] & ~st.stop;
      live &= ~(std::uint32_t(lane_bits(Live[gi]) == 0) << gi);
      const vf w = st.ok ? av.al * t : bc(0.f);
      // sums that decide nothing: fused (backward only reads their final values)
      Cr[gi] = fmadd(w, cr, Cr[gi]);
      Cg[gi] = fmadd(w, cg, Cg[gi]);
      Cb[gi] = fmadd(w, cb, Cb[gi]);
      if constexpr (kDepth) S[gi] = fmadd(w, bc(s.z), S[gi]);
      if constexpr (kDist) {
        // T is exactly 1 until the first blended step, so that step sets Z0 (earlier
        // skipped ones set it too, with w = 0, and are overwritten)
        Z0[gi] = t == bc(1.f) ? bc(s.z) : Z0[gi];
        const vf zr = bc(s.z) - Z0[gi];
        Dh[gi] += render::distortion_half_step(w, zr, bc(1.f) - t, R[gi]);
        R[gi] += w * zr;
      }
      if constexpr (kNormal) {
        Nx[gi] = fmadd(w, bc(s.nx), Nx[gi]);
        Ny[gi] = fmadd(w, bc(s.ny), Ny[gi]);
        Nz[gi] = fmadd(w, bc(s.nz), Nz[gi]);
      }
      if constexpr (kMedian) {
        const vi cross = st.ok & (t >= bc(0.5f)) & (st.tn < bc(0.5f));
        Med[gi] = cross ? bc(s.z) : Med[gi];
        MedI[gi] = cross ? bci(std::int32_t(p)) : MedI[gi];
        if (a.stop_at_median) {  // the median is found: nothing later changes it
          Live[gi] = Live[gi] & ~cross;
          live &= ~(std::uint32_t(lane_bits(Live[gi]) == 0) << gi);
        }
      }
      if constexpr (kCount) Cnt[gi] += st.ok ? bc(1.f) : bc(0.f);
      T[gi] = st.ok ? st.tn : t;
    }
    a.inst_groups[p] = acted;
    stop = p + 1;
  }
  a.tile_stop[tile] = stop;
  // Transmittance and colour of a whole tile go out four pixels (one row of a lane group)
  // per store, which beats pixel by pixel stores. The colour over the background and alpha
  // come from them in compose_rows.
  const bool whole = ncols == TS && nrows == TS;
  if (whole) {
    for (int gi = 0; gi < NG; ++gi) {
      for (int h = 0; h < QH; ++h) {
        const std::size_t pix = std::size_t(y0 + (gi / GROUPS) * QH + h) * std::size_t(a.width) +
                                std::size_t(x0 + (gi % GROUPS) * QW);
        store4(a.T_final + pix, row_of(T[gi], h));
        store_rgb4(a.C_final + 3 * pix, row_of(Cr[gi], h), row_of(Cg[gi], h), row_of(Cb[gi], h));
      }
    }
  }
  constexpr bool kMore = kDepth || kDist || kMedian || kNormal || kCount;
  if (whole && !kMore) return;
  for (int r = 0; r < nrows; ++r) {
    for (int c = 0; c < ncols; ++c) {
      const int gi = group_of(r, c), l = lane_of(r, c);
      const std::size_t pix = std::size_t(y0 + r) * std::size_t(a.width) + std::size_t(x0 + c);
      const float t = T[gi][l];
      const float al = 1.f - t;
      if (!whole) {
        a.T_final[pix] = t;
        a.C_final[3 * pix] = Cr[gi][l];
        a.C_final[3 * pix + 1] = Cg[gi][l];
        a.C_final[3 * pix + 2] = Cb[gi][l];
      }
      if constexpr (kDepth) {
        a.saved[aov::depth][pix] = S[gi][l];
        a.out[aov::depth][pix] = al > 0.f ? S[gi][l] / al : 0.f;
      }
      if constexpr (kDist) {
        a.saved[aov::distortion][2 * pix] = a.out[aov::distortion][pix] = Dh[gi][l] + Dh[gi][l];
        a.saved[aov::distortion][2 * pix + 1] = R[gi][l];
      }
      if constexpr (kMedian) {
        a.out[aov::median_depth][pix] = Med[gi][l];
        a.saved[aov::median_depth][pix] = std::bit_cast<float>(MedI[gi][l]);
      }
      if constexpr (kNormal) {
        float* nrm = a.out[aov::normal];
        float* nsv = a.saved[aov::normal];
        nsv[3 * pix] = nrm[3 * pix] = Nx[gi][l];
        nsv[3 * pix + 1] = nrm[3 * pix + 1] = Ny[gi][l];
        nsv[3 * pix + 2] = nrm[3 * pix + 2] = Nz[gi][l];
      }
      if constexpr (kCount) a.out[aov::count][pix] = Cnt[gi][l];
    }
  }
}

// Lane sums of a[0..7]: lane k of the result is
// ((a_k[0] + a_k[1]) + (a_k[2] + a_k[3])) + ((a_k[4] + a_k[5]) + (a_k[6] + a_k[7])),
// computed by a transpose-and-add tree (same order on every path and thread count).
inline vf lane_sums8(const vf* a) {
#define GLINT_EVEN(x, y) __builtin_shufflevector(x, y, 0, 8, 2, 10, 4, 12, 6, 14)
#define GLINT_ODD(x, y) __builtin_shufflevector(x, y, 1, 9, 3, 11, 5, 13, 7, 15)
  const vf u0 = GLINT_EVEN(a[0], a[1]) + GLINT_ODD(a[0], a[1]);
  const vf u1 = GLINT_EVEN(a[2], a[3]) + GLINT_ODD(a[2], a[3]);
  const vf u2 = GLINT_EVEN(a[4], a[5]) + GLINT_ODD(a[4], a[5]);
  const vf u3 = GLINT_EVEN(a[6], a[7]) + GLINT_ODD(a[6], a[7]);
  // u0 = [a0 01, a1 01, a0 23, a1 23, a0 45, a1 45, a0 67, a1 67]
  const vf w0 = __builtin_shufflevector(u0, u1, 0, 1, 8, 9, 4, 5, 12, 13) +
                __builtin_shufflevector(u0, u1, 2, 3, 10, 11, 6, 7, 14, 15);
  const vf w1 = __builtin_shufflevector(u2, u3, 0, 1, 8, 9, 4, 5, 12, 13) +
                __builtin_shufflevector(u2, u3, 2, 3, 10, 11, 6, 7, 14, 15);
  // w0 = [a0 0-3, a1 0-3, a2 0-3, a3 0-3, a0 4-7, a1 4-7, a2 4-7, a3 4-7]
  return __builtin_shufflevector(w0, w1, 0, 1, 2, 3, 8, 9, 10, 11) +
         __builtin_shufflevector(w0, w1, 4, 5, 6, 7, 12, 13, 14, 15);
#undef GLINT_EVEN
#undef GLINT_ODD
}

inline float ld(const float* p, std::size_t i) { return p ? p[i] : 0.f; }

// One gradient record, a cache line: the backend hands out the records from a 64-byte
// boundary (line_aligned in cpu_backend.cpp). Records go to their splat's slot, scattered
// over the whole array, and are read only by the VJP pass that follows: streaming stores
// skip reading each line in before writing it.
inline void store_record(float* rec, vf lo, vf hi) {
#if defined(__AVX__)
  __m256 l, h;
  std::memcpy(&l, &lo, 32);
  std::memcpy(&h, &hi, 32);
  _mm256_stream_ps(rec, l);
  _mm256_stream_ps(rec + 8, h);
#else
  std::memcpy(rec, &lo, sizeof(lo));
  std::memcpy(rec + 8, &hi, sizeof(hi));
#endif
}

template <unsigned F>
void backward_impl(const TileBackwardArgs& a, int tile) {
  constexpr bool kDepth = F & aov::kernel_flag(aov::depth), kMedian = F & aov::kernel_flag(aov::median_depth),
                 kNormal = F & aov::kernel_flag(aov::normal), kDist = F & aov::kernel_flag(aov::distortion);
  const int tx = tile % a.tiles_x, ty = tile / a.tiles_x;
  const int x0 = tx * TS, y0 = ty * TS;
  const int ncols = std::min(TS, a.width - x0), nrows = std::min(TS, a.height - y0);
  // saved forward state and upstream gradients, per lane group of the tile
  // GF = g . C_final - gA T_final: the colour channels enter dL/dalpha only through dot
  // products with their upstream gradient g, so backward keeps g . C and g . prefix instead
  // of 3 + 3. The alpha channel's term, gA T_final / (1 - a), folds into the same suffix
  // (set up as g . C_final, the fold follows the loads).
  // distortion: FL2 = 2 L_final = sum_i w_i dL/dw_i over the pixel's steps, FR = R_final
  vf Tf[NG], GF[NG], FS[NG], FNx[NG], FNy[NG], FNz[NG], FL2[NG], FR[NG];
  vf gR[NG], gG[NG], gB[NG], gA[NG], gS[NG], gM[NG], gNx[NG], gNy[NG], gNz[NG], gL[NG];
  vi MedI[NG];
  // running state; distortion: PW = prefix of w_i dL/dw_i, PR = prefix of R, Z0 as in forward.
  // No mask of finished pixels, unlike the forward: a step that finishes a pixel (the
  // forward's stop, not blended) sets its T to the step's tn < kTransmittanceStop all the
  // same, and from there every later candidate step on that pixel has tn <= T below the
  // stop too, so it stops again and blends nothing; pixels outside the image start at T = 0.
  // The same steps blend as with the mask, with the same values, and the loop (with G = 0
  // at the clamp) takes fewer instructions a lane group.
  vf T[NG], GP[NG], PS[NG], PNx[NG], PNy[NG], PNz[NG], PW[NG], PR[NG], Z0[NG];
  for (int gi = 0; gi < NG; ++gi) {
    T[gi] = bc(0.f);
    Tf[gi] = bc(1.f);
    GP[gi] = PS[gi] = PNx[gi] = PNy[gi] = PNz[gi] = PW[gi] = PR[gi] = Z0[gi] = bc(0.f);
    GF[gi] = FS[gi] = FNx[gi] = FNy[gi] = FNz[gi] = FL2[gi] = FR[gi] = bc(0.f);
    gR[gi] = gG[gi] = gB[gi] = gA[gi] = gS[gi] = gM[gi] = gNx[gi] = gNy[gi] = gNz[gi] = gL[gi] = bc(0.f);
    MedI[gi] = bci(-1);
  }
  // A whole tile with colour and alpha gradients only (training's case): four pixels a load,
  // the same operations per lane as the pixel loop below, without its single-lane inserts
  // (which cost training's backward measurably).
  constexpr bool kMore = kDepth || kMedian || kNormal || kDist;
  const bool whole = ncols == TS && nrows == TS;
  if (whole && !kMore) {
    for (int gi = 0; gi < NG; ++gi) {
      v4f t[QH], gr[QH], gg[QH], gb[QH], cr[QH], cg[QH], cb[QH], da[QH];
      for (int h = 0; h < QH; ++h) {
        const std::size_t pix = std::size_t(y0 + (gi / GROUPS) * QH + h) * std::size_t(a.width) +
                                std::size_t(x0 + (gi % GROUPS) * QW);
        t[h] = load4(a.T_final + pix);
        load_rgb4(a.C_final + 3 * pix, cr[h], cg[h], cb[h]);
        if (a.d_rgb)
          load_rgb4(a.d_rgb + 3 * pix, gr[h], gg[h], gb[h]);
        else
          gr[h] = gg[h] = gb[h] = bc4(0.f);
        da[h] = a.d_out[aov::alpha] ? load4(a.d_out[aov::alpha] + pix) : bc4(0.f);
      }
      T[gi] = bc(1.f);
      Tf[gi] = group_of_rows(t[0], t[1]);
      gR[gi] = group_of_rows(gr[0], gr[1]);
      gG[gi] = group_of_rows(gg[0], gg[1]);
      gB[gi] = group_of_rows(gb[0], gb[1]);
      GF[gi] = gR[gi] * group_of_rows(cr[0], cr[1]) + gG[gi] * group_of_rows(cg[0], cg[1]) +
               gB[gi] * group_of_rows(cb[0], cb[1]);
      gA[gi] = group_of_rows(da[0], da[1]) - (gR[gi] * bc(a.bg[0]) + gG[gi] * bc(a.bg[1]) + gB[gi] * bc(a.bg[2]));
    }
  } else {
    for (int r = 0; r < nrows; ++r) {
      for (int c = 0; c < ncols; ++c) {
        const int gi = group_of(r, c), l = lane_of(r, c);
        const std::size_t pix = std::size_t(y0 + r) * std::size_t(a.width) + std::size_t(x0 + c);
        T[gi][l] = 1.f;
        Tf[gi][l] = a.T_final[pix];
        const float gr = ld(a.d_rgb, 3 * pix), gg = ld(a.d_rgb, 3 * pix + 1), gb = ld(a.d_rgb, 3 * pix + 2);
        GF[gi][l] = gr * a.C_final[3 * pix] + gg * a.C_final[3 * pix + 1] + gb * a.C_final[3 * pix + 2];
        gR[gi][l] = gr;
        gG[gi][l] = gg;
        gB[gi][l] = gb;
        // rgb = C + T bg and alpha = 1 - T: the alpha channel A = sum w carries both
        float ga = ld(a.d_out[aov::alpha], pix) - (gr * a.bg[0] + gg * a.bg[1] + gb * a.bg[2]);
        const float al = 1.f - a.T_final[pix];
        if constexpr (kDist) {
          const float* dsv = a.saved[aov::distortion];
          FL2[gi][l] = dsv[2 * pix] + dsv[2 * pix];
          FR[gi][l] = dsv[2 * pix + 1];
          gL[gi][l] = ld(a.d_out[aov::distortion], pix);
        }
        if constexpr (kDepth) {
          FS[gi][l] = a.saved[aov::depth][pix];
          const float gd = ld(a.d_out[aov::depth], pix);
          if (al > 0.f) {  // depth = S / A
            const float D = a.saved[aov::depth][pix] / al;
            gS[gi][l] = gd / al;
            ga -= gd * D / al;
          }
        }
        gA[gi][l] = ga;
        if constexpr (kMedian) {
          gM[gi][l] = ld(a.d_out[aov::median_depth], pix);
          MedI[gi][l] = std::bit_cast<std::int32_t>(a.saved[aov::median_depth][pix]);
        }
        if constexpr (kNormal) {
          const float* nsv = a.saved[aov::normal];
          const float* gn = a.d_out[aov::normal];
          FNx[gi][l] = nsv[3 * pix];
          FNy[gi][l] = nsv[3 * pix + 1];
          FNz[gi][l] = nsv[3 * pix + 2];
          gNx[gi][l] = ld(gn, 3 * pix);
          gNy[gi][l] = ld(gn, 3 * pix + 1);
          gNz[gi][l] = ld(gn, 3 * pix + 2);
        }
      }
    }
  }
  for (int gi = 0; gi < NG; ++gi) GF[gi] -= gA[gi] * Tf[gi];
  // Up to where the forward's blend ended, without a count of finished pixels of its own
  // (a popcount a lane group, and a loop condition at the end of a long chain: the
  // backward is markedly faster without it).
  const std::uint32_t begin = a.tile_offsets[tile], end = a.tile_offsets[tile + 1], stop = a.tile_stop[tile];
  SplatGroups<AlphaV> sg;
  const TileCentres tc(x0, y0);
  std::uint32_t p = begin;
  for (; p < stop; ++p) {
    float* rec = a.records + std::size_t(a.inst_slot[p]) * kRecordFloats;
    const std::uint32_t groups = a.inst_groups[p];
    if (groups == 0) {
      // the forward blended nothing and stopped no pixel here, so replaying the
      // instance would change no state and add nothing (a quarter of the instances of a
      // deep scene: splats behind finished pixels)
      store_record(rec, bc(0.f), bc(0.f));
      continue;
    }
    vf acc[kRecordFloats];
    for (int k = 0; k < kRecordFloats; ++k) acc[k] = bc(0.f);
    render::AlphaMoments<vf> mom{bc(0.f), bc(0.f), bc(0.f), bc(0.f), bc(0.f), bc(0.f)};
    if (p + kPrefetch < end) __builtin_prefetch(&a.splats[a.inst_splat[p + kPrefetch]]);
    const SplatPacked& s = a.splats[a.inst_splat[p]];
    replay_groups(s, tc, x0, y0, ncols, nrows, groups, sg);
    const vf A = bc(s.A), B = bc(s.B), C = bc(s.C), z = bc(s.z), mx = bc(s.mx), my = bc(s.my);
    const vf cr = bc(s.r), cg = bc(s.g), cb = bc(s.b), nx = bc(s.nx), ny = bc(s.ny), nz = bc(s.nz);
    const vi pv = bci(std::int32_t(p));
    for (int k = 0; k < sg.n; ++k) {
      const int gi = sg.gi[k];
      const AlphaV& av = sg.av[k];
      const vf dxv = tc.x(gi) - mx, dyv = tc.y(gi) - my;
      const vf t = T[gi];
      const StepV st = step_v(av, t, bci(-1));  // something happens: replay_groups
      const vf w = st.ok ? av.al * t : bc(0.f);
      // blend_dalpha_channel applied to the channel c = g . colour
      const vf gc = fmadd(gR[gi], cr, fmadd(gG[gi], cg, gB[gi] * cb));
      GP[gi] = fmadd(w, gc, GP[gi]);
      const vf inv = bc(1.f) / (bc(1.f) - av.al);
      vf dA = render::blend_dalpha_channel(gc, t, GF[gi] - GP[gi], inv);
      vf dz = bc(0.f);
      if constexpr (kDepth) {
        PS[gi] += w * z;
        dA += gS[gi] * render::blend_dalpha_channel(z, t, FS[gi] - PS[gi], inv);
        dz += gS[gi] * w;
      }
      if constexpr (kDist) {
        // depths relative to Z0 exactly as in forward; weights before and after this
        // step from the transmittance: A_i = 1 - T_i, sum_{k>i} w_k = T_{i+1} - T_final.
        // Lanes that skip the step have w = 0 and a masked dA, so their (finite) dw and
        // w_after do not matter.
        Z0[gi] = t == bc(1.f) ? z : Z0[gi];
        const vf zr = z - Z0[gi], b_before = PR[gi];
        PR[gi] += w * zr;
        const vf a_before = bc(1.f) - t, w_after = st.tn - Tf[gi];
        const vf dw = render::distortion_dw(zr, a_before, b_before, w_after, FR[gi] - PR[gi]);
        PW[gi] += w * dw;
        dA += gL[gi] * render::blend_dalpha_channel(dw, t, FL2[gi] - PW[gi], inv);
        dz += gL[gi] * render::distortion_dz(w, a_before, w_after);
      }
      if constexpr (kMedian) dz += (st.ok & (MedI[gi] == pv)) ? gM[gi] : bc(0.f);
      if constexpr (kNormal) {
        PNx[gi] += w * nx;
        PNy[gi] += w * ny;
        PNz[gi] += w * nz;
        dA += gNx[gi] * render::blend_dalpha_channel(nx, t, FNx[gi] - PNx[gi], inv) +
              gNy[gi] * render::blend_dalpha_channel(ny, t, FNy[gi] - PNy[gi], inv) +
              gNz[gi] * render::blend_dalpha_channel(nz, t, FNz[gi] - PNz[gi], inv);
        acc[kRecNx] += gNx[gi] * w;
        acc[kRecNy] += gNy[gi] * w;
        acc[kRecNz] += gNz[gi] * w;
      }
      const vf gal = st.ok ? dA : bc(0.f);  // (and G = 0 where alpha was clamped)
      render::blend_alpha_moments_add(gal, av.G, dxv, dyv, mom, fmadd);
      acc[kRecR] = fmadd(gR[gi], w, acc[kRecR]);
      acc[kRecG] = fmadd(gG[gi], w, acc[kRecG]);
      acc[kRecBlue] = fmadd(gB[gi], w, acc[kRecBlue]);
      if constexpr (kDepth || kMedian || kDist) acc[kRecZ] += dz;  // else it stays exactly 0
      if (a.want_abs) {  // kRecAbsX/Y
        const vf pg = gal * av.G;
        const vf ex = pg * fmadd(A, dxv, B * dyv), ey = pg * fmadd(B, dxv, C * dyv);
        acc[kRecAbsX] += ex < bc(0.f) ? -ex : ex;
        acc[kRecAbsY] += ey < bc(0.f) ? -ey : ey;
      }
      T[gi] = av.cand ? st.tn : t;  // blended or finished
    }
    acc[kRecP] = mom.p;
    acc[kRecPx] = mom.px;
    acc[kRecPy] = mom.py;
    acc[kRecPxx] = mom.pxx;
    acc[kRecPxy] = mom.pxy;
    acc[kRecPyy] = mom.pyy;
    // lane sums of the 16 accumulators, in a fixed pairwise order, eight at a time
    store_record(rec, lane_sums8(acc), lane_sums8(acc + 8));
  }
  for (; p < end; ++p) store_record(a.records + std::size_t(a.inst_slot[p]) * kRecordFloats, bc(0.f), bc(0.f));
#if defined(__AVX__)
  _mm_sfence();  // streaming stores are weakly ordered: complete them before the tile ends
#endif
}

template <std::size_t... I>
constexpr auto make_forward_table(std::index_sequence<I...>) {
  return std::array<void (*)(const TileForwardArgs&, int), sizeof...(I)>{&forward_impl<unsigned(I)>...};
}
template <std::size_t... I>
constexpr auto make_backward_table(std::index_sequence<I...>) {
  return std::array<void (*)(const TileBackwardArgs&, int), sizeof...(I)>{&backward_impl<unsigned(I)>...};
}

}  // namespace

void forward_tile(const TileForwardArgs& a, int tile, unsigned flags) {
  static constexpr auto table = make_forward_table(std::make_index_sequence<kForwardFlags + 1>{});
  table[flags & kForwardFlags](a, tile);
}

void backward_tile(const TileBackwardArgs& a, int tile, unsigned flags) {
  static constexpr auto table = make_backward_table(std::make_index_sequence<kBackwardFlags + 1>{});
  table[flags & kBackwardFlags](a, tile);
}

// The colour over the background, C + T bg, and alpha, 1 - T, of rows [y0, y1), from the
// forward state the tile kernels wrote. A pass over whole rows rather than part of the tile
// kernel: two threads blend neighbouring tiles at once, and the output images (plain
// vectors, 16-byte aligned) put each tile row's edges on cache lines its neighbours write
// too: writing them from the tiles made the blend pay for that false sharing.
void compose_rows(const TileForwardArgs& a, int y0, int y1) {
  const std::size_t W = std::size_t(a.width);
  float* const alpha = a.out[aov::alpha];
  if (!a.rgb) {  // no colour wanted: the coverage alone, if that
    if (alpha)
      for (std::size_t pix = std::size_t(y0) * W; pix < std::size_t(y1) * W; ++pix) alpha[pix] = 1.f - a.T_final[pix];
    return;
  }
  // four interleaved pixels: t0 t0 t0 t1 | t1 t1 t2 t2 | t2 t3 t3 t3 against the channels
  const v4f bgA = {a.bg[0], a.bg[1], a.bg[2], a.bg[0]}, bgB = {a.bg[1], a.bg[2], a.bg[0], a.bg[1]},
            bgC = {a.bg[2], a.bg[0], a.bg[1], a.bg[2]}, one = bc4(1.f);
  for (int y = y0; y < y1; ++y) {
    const std::size_t row = std::size_t(y) * W;
    std::size_t x = 0;
    for (; x + 4 <= W; x += 4) {
      const std::size_t pix = row + x;
      v4f t, c0, c1, c2;
      std::memcpy(&t, a.T_final + pix, 16);
      std::memcpy(&c0, a.C_final + 3 * pix, 16);
      std::memcpy(&c1, a.C_final + 3 * pix + 4, 16);
      std::memcpy(&c2, a.C_final + 3 * pix + 8, 16);
      store4(a.rgb + 3 * pix, c0 + __builtin_shufflevector(t, t, 0, 0, 0, 1) * bgA);
      store4(a.rgb + 3 * pix + 4, c1 + __builtin_shufflevector(t, t, 1, 1, 2, 2) * bgB);
      store4(a.rgb + 3 * pix + 8, c2 + __builtin_shufflevector(t, t, 2, 3, 3, 3) * bgC);
      if (alpha) store4(alpha + pix, one - t);
    }
    for (; x < W; ++x) {
      const std::size_t pix = row + x;
      const float t = a.T_final[pix];
      for (int c = 0; c < 3; ++c) a.rgb[3 * pix + std::size_t(c)] = a.C_final[3 * pix + std::size_t(c)] + t * a.bg[c];
      if (alpha) alpha[pix] = 1.f - t;
    }
  }
}

std::uint64_t tile_hits(const SplatPacked& s, const TileRange& r, int first) {
  // One tile whose pixel centres surround the mean: ellipse_hits_rect's `inside` case, so a
  // hit without the edge tests (a common case for small splats).
  if (r.ntx * r.nty == 1 && float(r.x0) + 0.5f <= s.mx && s.mx <= float(r.x1) + 0.5f && float(r.y0) + 0.5f <= s.my &&
      s.my <= float(r.y1) + 0.5f)
    return 1;
  const render::PixelRect pr{r.x0, r.y0, r.x1, r.y1};
  const int tx0 = r.tx0, ty0 = r.ty0, ntx = r.ntx, nty = r.nty;
  const render::RectTestPrep prep = render::rect_test_prep(s.A, s.B, s.C, s.power_cut);
  std::uint64_t bits = 0;
#if defined(__AVX__)
  // Eight tiles per test, one AVX register a value: one tile at a time, these tests were a
  // sizeable part of the 800x800 / 300k forward (measured by skipping them). (On SSE the
  // eight-lane values spill and it is slower.) Lane l
  // of a test is tile k = base + l of the rectangle, row-major; every step is exact in
  // float (small integers), so each lane's rectangle is what tile_centre_span gives.
  const vf lane = {0.f, 1.f, 2.f, 3.f, 4.f, 5.f, 6.f, 7.f};
  const float inv_ntx = 1.f / float(ntx);
  const auto span = [](vf t, int p0, int p1, vf& c0, vf& c1) {
    const vf a = t * bc(float(TS)), b = a + bc(float(TS - 1));
    c0 = (a > bc(float(p0)) ? a : bc(float(p0))) + bc(0.5f);
    c1 = (b < bc(float(p1)) ? b : bc(float(p1))) + bc(0.5f);
  };
  const int n = std::min(ntx * nty - first, 64);
  for (int base = 0; base < n; base += LANES) {
    const vf k = bc(float(first + base)) + lane;
    // k / ntx rounded down: (k + 0.5) / ntx is at least 0.5 / ntx from an integer
    const vf j = __builtin_convertvector(__builtin_convertvector((k + bc(0.5f)) * bc(inv_ntx), vi), vf);
    const vf i = k - j * bc(float(ntx));
    vf px0, px1, py0, py1;
    span(bc(float(tx0)) + i, pr.x0, pr.x1, px0, px1);
    span(bc(float(ty0)) + j, pr.y0, pr.y1, py0, py1);
    const M8 hit = render::ellipse_hits_rect(prep, s.mx, s.my, F8(px0), F8(px1), F8(py0), F8(py1));
    bits |= std::uint64_t(lane_bits(hit)) << base;
  }
  if (n < 64) bits &= (std::uint64_t(1) << n) - 1;  // lanes past the rectangle
#else
  const int end = std::min(ntx * nty, first + 64);
  for (int k = first; k < end; ++k) {
    float py0, py1, px0, px1;
    render::tile_centre_span(ty0 + k / ntx, pr.y0, pr.y1, py0, py1);
    render::tile_centre_span(tx0 + k % ntx, pr.x0, pr.x1, px0, px1);
    bits |= std::uint64_t(render::ellipse_hits_rect(prep, s.mx, s.my, px0, px1, py0, py1)) << (k - first);
  }
#endif
  return bits;
}

}  // namespace glint::cpu::GLINT_CPU_ISA

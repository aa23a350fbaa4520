// The CPU backend's per-splat kernels (splat_kernels.h), compiled once per instruction set:
// included after raster_kernels_impl.h by raster_portable.cpp, raster_avx2.cpp and
// raster_avx512.cpp, with GLINT_CPU_ISA naming the namespace. Launched with
// launch<Kernel> (launch.h): typed, so a wrong argument list does not compile.
// No include guard on purpose.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <tuple>

#include "glint/backend/cpu/lanes.h"
#include "glint/backend/cpu/launch.h"
#include "glint/backend/cpu/raster_tiles.h"
#include "glint/backend/cpu/splat_kernels.h"
#include "glint/render/blend.h"
#include "glint/render/project.h"
#include "glint/render/sh.h"
#include "glint/render/tile.h"
#include "glint/render/view.h"

#ifndef GLINT_CPU_ISA
#error "define GLINT_CPU_ISA before including splat_kernels_impl.h"
#endif

namespace glint::cpu::GLINT_CPU_ISA {
namespace {

inline TileRange tile_range(const SplatPacked& s, int width, int height) {
  const render::PixelRect pr = render::splat_pixel_rect(s.mx, s.my, s.ext_x, s.ext_y, width, height);
  const int TS = render::kTileSize;
  if (pr.x0 > pr.x1 || pr.y0 > pr.y1) return {pr.x0, pr.y0, pr.x1, pr.y1, 0, 0, 0, 0};
  return {pr.x0, pr.y0, pr.x1, pr.y1, pr.x0 / TS, pr.y0 / TS, pr.x1 / TS - pr.x0 / TS + 1, pr.y1 / TS - pr.y0 / TS + 1};
}

// Calls f(tile) for every tile of the range r (tile_range) whose pixel centres the splat's
// cut ellipse can reach, in row-major tile order: tile_hits 64 tiles at a time, for ranges
// of more than 64 tiles (the binning lists them; projection counts them with count_tiles).
// Testing such ranges one tile at a time made the training forward measurably slower on
// scenes with large splats (shapes_colmap).
template <class F>
inline void for_each_tile(const SplatPacked& s, const TileRange& r, int tiles_x, F&& f) {
  const int n = r.ntx * r.nty;
  for (int first = 0; first < n; first += 64)
    for (std::uint64_t bits = tile_hits(s, r, first); bits != 0; bits &= bits - 1) {
      const int k = first + __builtin_ctzll(bits);
      f((r.ty0 + k / r.ntx) * tiles_x + r.tx0 + k % r.ntx);
    }
}

// How many tiles of the range r (more than 64) the splat's cut ellipse can reach: the
// count for_each_tile would list.
inline std::uint32_t count_tiles(const SplatPacked& s, const TileRange& r) {
  std::uint32_t c = 0;
  for (int first = 0; first < r.ntx * r.nty; first += 64) c += std::uint32_t(__builtin_popcountll(tile_hits(s, r, first)));
  return c;
}

inline int tiles_across(int width) { return (width + render::kTileSize - 1) / render::kTileSize; }

inline F8 load_lanes(const float* a) { return F8(load_f8(a)); }

// The geometry of eight splats as lanes: lane l is splat idx[l].
struct GeomLanes {
  Vec3<F8> mean, log_scale;
  Quat<F8> quat;
  F8 opacity_logit;
};
inline GeomLanes gather_geometry(const SplatArrays& m, const std::size_t* idx) {
  alignas(32) float in[11][8];
  for (int l = 0; l < 8; ++l) {
    const std::size_t i = idx[l];
    for (int c = 0; c < 3; ++c) {
      in[c][l] = m.means[3 * i + std::size_t(c)];
      in[3 + c][l] = m.log_scales[3 * i + std::size_t(c)];
    }
    for (int c = 0; c < 4; ++c) in[6 + c][l] = m.quats[4 * i + std::size_t(c)];
    in[10][l] = m.opacity_logits[i];
  }
  return {{load_lanes(in[0]), load_lanes(in[1]), load_lanes(in[2])},
          {load_lanes(in[3]), load_lanes(in[4]), load_lanes(in[5])},
          {load_lanes(in[6]), load_lanes(in[7]), load_lanes(in[8]), load_lanes(in[9])},
          load_lanes(in[10])};
}

// Columns 0..ncols-1 of eight rows of `stride` floats (stride >= 8), row l as lane l:
// out[c] lane l = rows[l * stride + c]. Eight columns at a time through transpose8; the
// last block is loaded from stride - 8 so that nothing past a row is read.
inline void rows_to_lanes(const float* rows, int stride, int ncols, F8* out) {
  for (int kb = 0; kb < ncols; kb += 8) {
    const int at = std::min(kb, stride - 8);
    vf r[8];
    for (int l = 0; l < 8; ++l) r[l] = load_f8(rows + std::size_t(l) * std::size_t(stride) + at);
    transpose8(r);
    for (int j = kb - at; j < 8 && at + j < ncols; ++j) out[at + j] = F8(r[j]);
  }
}

// The colour of eight splats seen along d (lanes): render::sh_color's sums, term by term
// in its order, so every lane gets the scalar function's bits. rest_rows holds the eight
// splats' 45 coefficients, row after row. clamped[c] is set where channel c was clamped.
inline Vec3<F8> sh_color_lanes(int deg, Vec3<F8> d, const F8* dc, const float* rest_rows, M8* clamped) {
  F8 b[16], rest[45];
  render::sh_basis(deg, d, b);
  const int nk = render::sh_coeff_count(deg);
  rows_to_lanes(rest_rows, 45, 3 * (nk - 1), rest);
  F8 col[3];
  for (int c = 0; c < 3; ++c) {
    F8 s = F8(0.f) + b[0] * dc[c];
    for (int k = 1; k < nk; ++k) s += b[k] * rest[3 * (k - 1) + c];
    s += F8(0.5f);
    const M8 keep = s > F8(0.f);
    clamped[c] = !keep;
    col[c] = lane_select(keep, s, F8(0.f));
  }
  return {col[0], col[1], col[2]};
}

// render::view_dir on lanes (the same operations: 1 / |v| times v).
inline Vec3<F8> view_dir_lanes(Vec3<F8> mean, const F8* campos) {
  const Vec3<F8> v{mean.x - campos[0], mean.y - campos[1], mean.z - campos[2]};
  const F8 len = norm(v);
  const M8 pos = len > F8(0.f);
  const F8 inv = F8(1.f) / lane_select(pos, len, F8(1.f));
  return {lane_select(pos, inv * v.x, F8(0.f)), lane_select(pos, inv * v.y, F8(0.f)),
          lane_select(pos, inv * v.z, F8(1.f))};
}

// Project eight consecutive splats (the projection runs on them as lanes), then for each
// kept one: colour, normal, pack what the tile kernels read, count the tiles it touches.
struct ProjectKernel {
  using Args = std::tuple<const render::ViewT<float>*, const render::ViewT<F8>*, const ProjectArgs*>;
  // A block of eight splats is little work, more for large splats' tile tests: threads pay
  // from a few hundred splats on (shapes_colmap's 836 splats train faster on two threads
  // with this and VjpKernel's threshold at 32 blocks than at 1024).
  static constexpr int kMinParallel = 32;
  static void run(int block, const render::ViewT<float>* v, const render::ViewT<F8>* view8, const ProjectArgs* a) {
    const SplatArrays* m = &a->m;
    const int deg = a->sh_degree;
    const bool aa = a->antialiased, normals = a->normals;
    SplatPacked* packed = a->packed;
    int* radii = a->radii;
    std::uint32_t *count = a->count, *depth_key = a->depth_key;
    TileHitMask* tile_mask = a->tile_mask;
    std::uint8_t* sh_clamped = a->sh_clamped;
    constexpr int L = 8;
    const std::size_t n = m->n, i0 = std::size_t(block) * L;
    std::size_t idx[L];  // lanes past the end repeat the last splat
    for (int l = 0; l < L; ++l) idx[l] = std::min(i0 + std::size_t(l), n - 1);
    const GeomLanes geo = gather_geometry(*m, idx);
    render::Projected<F8> pr;
    const M8 keep = render::project_splat(*view8, geo.mean, geo.log_scale, geo.quat, geo.opacity_logit, aa, pr);
    // colour on the lanes; the tail block reads its repeated splats from a copy
    alignas(32) float tail_rest[L * 45];
    const float* rest_rows = m->sh_rest + 45 * i0;
    if (i0 + L > n) {
      for (int l = 0; l < L; ++l) std::memcpy(tail_rest + 45 * l, m->sh_rest + 45 * idx[l], 45 * sizeof(float));
      rest_rows = tail_rest;
    }
    alignas(32) float dc_in[3][L];
    for (int l = 0; l < L; ++l)
      for (int c = 0; c < 3; ++c) dc_in[c][l] = m->sh_dc[3 * idx[l] + std::size_t(c)];
    const F8 dc[3] = {load_lanes(dc_in[0]), load_lanes(dc_in[1]), load_lanes(dc_in[2])};
    M8 clamped[3];
    const Vec3<F8> col = sh_color_lanes(deg, view_dir_lanes(geo.mean, view8->campos), dc, rest_rows, clamped);
    const unsigned cl_bits[3] = {lane_bits(clamped[0]), lane_bits(clamped[1]), lane_bits(clamped[2])};
    alignas(32) float nrm[3][L] = {};
    if (normals)
      for (int l = 0; l < L; ++l)
        if (lane_on(keep, l)) {  // the lane's own copies of the splat's mean, scales and rotation
          const Vec3f nv = render::splat_normal(*v, Vec3f{geo.mean.x[l], geo.mean.y[l], geo.mean.z[l]},
                                                Vec3f{geo.log_scale.x[l], geo.log_scale.y[l], geo.log_scale.z[l]},
                                                Quatf{geo.quat.w[l], geo.quat.x[l], geo.quat.y[l], geo.quat.z[l]});
          nrm[0][l] = nv.x;
          nrm[1][l] = nv.y;
          nrm[2][l] = nv.z;
        }
    // the packed records: field-major lanes transposed to one record per splat
    vf lo[8] = {pr.mx.v, pr.my.v, pr.conic[0].v, pr.conic[1].v, pr.conic[2].v, pr.opacity.v, pr.power_cut.v,
                 pr.depth.v};
    vf hi[8] = {col.x.v, col.y.v, col.z.v, load_lanes(nrm[0]).v, load_lanes(nrm[1]).v, load_lanes(nrm[2]).v,
                 pr.ext_x.v, pr.ext_y.v};
    transpose8(lo);
    transpose8(hi);
    const int tiles_x = tiles_across(v->width);
    for (int l = 0; l < L; ++l) {
      const std::size_t si = i0 + std::size_t(l);
      if (si >= n) break;
      const int i = int(si);
      radii[i] = 0;
      count[i] = 0;
      if (!lane_on(keep, l)) continue;
      sh_clamped[i] = std::uint8_t(((cl_bits[0] >> l) & 1u) | (((cl_bits[1] >> l) & 1u) << 1) |
                                   (((cl_bits[2] >> l) & 1u) << 2));
      std::memcpy(reinterpret_cast<char*>(&packed[i]), &lo[l], sizeof(vf));
      std::memcpy(reinterpret_cast<char*>(&packed[i]) + sizeof(vf), &hi[l], sizeof(vf));
      const SplatPacked& s = packed[i];
      std::uint32_t c = 0;
      const TileRange tr = tile_range(s, v->width, v->height);
      if (tr.fits_mask()) {  // remember the hits so that TileListKernel need not test again
        const std::uint64_t bits = tile_hits(s, tr, 0);
        c = std::uint32_t(__builtin_popcountll(bits));
        tile_mask[i] = {bits, std::uint32_t(tr.ty0 * tiles_x + tr.tx0), std::uint32_t(tr.ntx)};
      } else {
        c = count_tiles(s, tr);
        tile_mask[i] = {0, 0, 0};
      }
      if (c == 0) continue;
      count[i] = c;
      std::memcpy(&depth_key[i], &s.z, 4);  // z >= near > 0: the float bits sort like the floats
      radii[i] = int(std::ceil(std::min(std::max(s.ext_x, s.ext_y), 1e9f)));
    }
  }
};

// Gradients of eight consecutive splats: each sums its records (fixed order), the
// projection VJP runs on the eight as lanes, then each runs the SH VJP.
struct VjpKernel {
  using Args = std::tuple<const render::ViewT<F8>*, const VjpArgs*>;
  static constexpr int kMinParallel = 32;  // as ProjectKernel's
  static void run(int block, const render::ViewT<F8>* view8, const VjpArgs* a) {
    const SplatArrays* m = &a->m;
    const SplatGradArrays* g = &a->g;
    const float* rec = a->records;
    const std::uint32_t* offs = a->splat_inst_offsets;
    constexpr int L = 8;
    const std::size_t i0 = std::size_t(block) * L;
    float sum[L][kRecordFloats] = {};
    bool active[L];
    int first = -1;
    for (int l = 0; l < L; ++l) {
      const std::size_t i = i0 + std::size_t(l);
      active[l] = i < m->n && offs[i] < offs[i + 1];
      if (!active[l]) continue;
      if (first < 0) first = l;
      // the records of splat i are contiguous (backward writes instance p's record to slot
      // inst_slot[p]), in tile order. They were streamed to memory, and each thread reads
      // its splats' records front to back once: fetching them 32 records (2 KB) ahead
      // shortens the backward where the records do not fit in cache (320x240 / 20k; no
      // change on shapes_colmap, whose records stay in cache).
      for (std::uint32_t k = offs[i]; k < offs[i + 1]; ++k) {
        const float* r = rec + std::size_t(k) * kRecordFloats;
        __builtin_prefetch(r + 32 * kRecordFloats);
        for (int f = 0; f < kRecordFloats; ++f) sum[l][f] += r[f];
      }
    }
    render::SplatGeomGrad<F8> sg8;
    alignas(32) float d_sh[48][L];
    float mean2d[2][L];  // per lane: dL/dmean2d
    if (first >= 0) {
      // a lane without a splat repeats the first active one (its results are dropped)
      std::size_t idx[L];
      for (int l = 0; l < L; ++l) idx[l] = i0 + std::size_t(active[l] ? l : first);
      const GeomLanes geo = gather_geometry(*m, idx);
      const int rf[10] = {kRecP, kRecPx, kRecPy, kRecPxx, kRecPxy, kRecPyy, kRecZ, kRecNx, kRecNy, kRecNz};
      alignas(32) float in[14][L];  // the record sums the projection VJP takes, then the conic and opacity
      for (int l = 0; l < L; ++l) {
        const int src_l = active[l] ? l : first;
        for (int c = 0; c < 10; ++c) in[c][l] = sum[src_l][rf[c]];
        const SplatPacked& s = a->packed[i0 + std::size_t(src_l)];
        in[10][l] = s.A;
        in[11][l] = s.B;
        in[12][l] = s.C;
        in[13][l] = s.opacity;
      }
      const render::AlphaMoments<F8> mom{load_lanes(in[0]), load_lanes(in[1]), load_lanes(in[2]),
                                         load_lanes(in[3]), load_lanes(in[4]), load_lanes(in[5])};
      render::ProjectedGrad<F8> pg;
      render::blend_alpha_moments_grad(mom, load_lanes(in[13]), load_lanes(in[10]), load_lanes(in[11]),
                                       load_lanes(in[12]), pg.opacity, pg.mean2d[0], pg.mean2d[1], pg.conic[0],
                                       pg.conic[1], pg.conic[2]);
      pg.depth = load_lanes(in[6]);
      for (int c = 0; c < 3; ++c) pg.normal[c] = load_lanes(in[7 + c]);
      for (int l = 0; l < L; ++l) {
        mean2d[0][l] = pg.mean2d[0][l];
        mean2d[1][l] = pg.mean2d[1][l];
      }
      render::project_splat_vjp(*view8, geo.mean, geo.log_scale, geo.quat, geo.opacity_logit, a->antialiased, pg, sg8);

      // the SH VJP on the same lanes: coefficients gathered per lane, gradients scattered
      // back. Only the active degree's coefficients are gathered (none at degree 0, the
      // first thousand steps of training): sh_linear_vjp reads no others.
      const int nrest = 3 * (render::sh_coeff_count(a->sh_degree) - 1);
      alignas(32) float rows[48][L];  // 45 coefficients, then d_color r, g, b
      for (int l = 0; l < L; ++l) {
        const int src_l = active[l] ? l : first;
        const std::size_t i = i0 + std::size_t(src_l);
        const float* rest = m->sh_rest + 45 * i;
        for (int k = 0; k < nrest; ++k) rows[k][l] = rest[k];
        const unsigned cl = a->sh_clamped[i];  // the colour clamp as the forward decided it
        rows[45][l] = (cl & 1u) ? 0.f : sum[src_l][kRecR];
        rows[46][l] = (cl & 2u) ? 0.f : sum[src_l][kRecG];
        rows[47][l] = (cl & 4u) ? 0.f : sum[src_l][kRecBlue];
      }
      F8 rest8[45], d_dc8[3], d_rest8[45];
      for (int k = 0; k < 45; ++k) rest8[k] = k < nrest ? load_lanes(rows[k]) : F8(0.f);
      render::sh_linear_vjp(a->sh_degree, geo.mean, view8->campos, rest8,
                            Vec3<F8>{load_lanes(rows[45]), load_lanes(rows[46]), load_lanes(rows[47])}, d_dc8, d_rest8,
                            sg8.mean);
      for (int k = 0; k < 3; ++k) std::memcpy(d_sh[k], &d_dc8[k].v, sizeof(d_sh[k]));
      for (int k = 0; k < 45; ++k) std::memcpy(d_sh[3 + k], &d_rest8[k].v, sizeof(d_sh[k]));
    }
    for (int l = 0; l < L; ++l) {
      const std::size_t si = i0 + std::size_t(l);
      if (si >= m->n) break;
      float* d_dc = g->sh_dc + 3 * si;
      float* d_rest = g->sh_rest + 45 * si;
      const long i = long(si);
      if (!active[l]) {
        store3(g->means, i, Vec3f{0, 0, 0});
        store3(g->log_scales, i, Vec3f{0, 0, 0});
        store_quat(g->quats, i, Quatf{0, 0, 0, 0});
        g->opacity_logits[si] = 0.f;
        for (int c = 0; c < 3; ++c) d_dc[c] = 0.f;
        for (int c = 0; c < a->sh_rest_floats; ++c) d_rest[c] = 0.f;
        g->mean2d[2 * si] = g->mean2d[2 * si + 1] = 0.f;
        if (g->mean2d_abs) g->mean2d_abs[si] = 0.f;
        continue;
      }
      const float* sm = sum[l];
      for (int c = 0; c < 3; ++c) d_dc[c] = d_sh[c][l];
      for (int k = 0; k < a->sh_rest_floats; ++k) d_rest[k] = d_sh[3 + k][l];
      store3(g->means, i, Vec3f{sg8.mean.x[l], sg8.mean.y[l], sg8.mean.z[l]});
      store3(g->log_scales, i, Vec3f{sg8.log_scale.x[l], sg8.log_scale.y[l], sg8.log_scale.z[l]});
      store_quat(g->quats, i, Quatf{sg8.quat.w[l], sg8.quat.x[l], sg8.quat.y[l], sg8.quat.z[l]});
      g->opacity_logits[si] = sg8.opacity_logit[l];
      g->mean2d[2 * si] = mean2d[0][l];
      g->mean2d[2 * si + 1] = mean2d[1][l];
      if (g->mean2d_abs)  // the records' sums lack the opacity, a common factor
        g->mean2d_abs[si] = a->packed[si].opacity * std::sqrt(sm[kRecAbsX] * sm[kRecAbsX] + sm[kRecAbsY] * sm[kRecAbsY]);
    }
  }
};

}  // namespace

void project_splats(const ProjectArgs& a, int threads) {
  const std::size_t n = a.m.n;
  if (n == 0) return;
  const render::ViewT<float> view = render::make_view<float>(*a.camera, a.near_plane);
  const render::ViewT<F8> view8 = render::make_view<F8>(*a.camera, a.near_plane);  // each lane = the float view
  launch<ProjectKernel>(int((n + 7) / 8), threads, &view, &view8, &a);
}

std::uint32_t large_splat_tiles(const TileListArgs& a, int i, std::uint32_t* out) {
  const SplatPacked& s = a.packed[i];
  std::uint32_t o = 0;
  for_each_tile(s, tile_range(s, a.width, a.height), tiles_across(a.width), [&](int t) { out[o++] = std::uint32_t(t); });
  return o;
}

void splat_vjps(const VjpArgs& a, int threads) {
  const render::ViewT<F8> view8 = render::make_view<F8>(*a.camera, a.near_plane);
  launch<VjpKernel>(int((a.m.n + 7) / 8), threads, &view8, &a);
}

const CpuKernels& kernels() {
  static constexpr CpuKernels k{&forward_tile, &compose_rows,      &backward_tile, &tile_hits,
                                &project_splats, &large_splat_tiles, &splat_vjps};
  return k;
}

}  // namespace glint::cpu::GLINT_CPU_ISA

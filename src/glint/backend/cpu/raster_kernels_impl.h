// The CPU tile kernels, compiled once per instruction set: a .cpp defines GLINT_CPU_ISA
// (a namespace name) and includes this file. Both compilations use -ffp-contract=off, so
// the AVX2 and portable paths do the same IEEE operations in the same order; forward and
// backward evaluate each blend step with the same code and reach the same decisions.
// No include guard on purpose.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>

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
constexpr int GROUPS = TS / LANES;

// Rows of the tile (0..nrows-1) the splat's bounding box covers.
inline bool splat_rows(const SplatPacked& s, int y0, int nrows, int& r0, int& r1) {
  float gy = s.ext_y * 1.001f + 0.01f;
  float f0 = s.my - gy - 0.5f - float(y0), f1 = s.my + gy - 0.5f - float(y0);
  f0 = std::clamp(f0, -1.f, float(TS + 1));
  f1 = std::clamp(f1, -1.f, float(TS + 1));
  r0 = std::max(0, int(std::ceil(f0)));
  r1 = std::min(nrows - 1, int(std::floor(f1)));
  return r0 <= r1;
}

// Lane groups of a row (pixel centres x0 + c + 0.5) that the cut ellipse can reach.
inline bool row_groups(const SplatPacked& s, float dy, int x0, int ncols, int& g0, int& g1) {
  float lo, hi;
  if (!render::ellipse_row_span(s.A, s.B, s.C, s.power_cut, dy, 1.0f, lo, hi)) return false;
  float c0 = s.mx + lo - float(x0) - 0.5f, c1 = s.mx + hi - float(x0) - 0.5f;
  c0 = std::clamp(c0, -1.f, float(TS + 1));
  c1 = std::clamp(c1, -1.f, float(TS + 1));
  int i0 = std::max(0, int(std::ceil(c0))), i1 = std::min(ncols - 1, int(std::floor(c1)));
  if (i0 > i1) return false;
  g0 = i0 / LANES;
  g1 = i1 / LANES;
  return true;
}

template <unsigned F>
void forward_impl(const TileForwardArgs& a, int tile) {
  constexpr bool kDepth = F & kFlagDepth, kMedian = F & kFlagMedian, kNormal = F & kFlagNormal,
                 kCount = F & kFlagCount;
  const int tx = tile % a.tiles_x, ty = tile / a.tiles_x;
  const int x0 = tx * TS, y0 = ty * TS;
  const int ncols = std::min(TS, a.width - x0), nrows = std::min(TS, a.height - y0);
  alignas(64) float T[TP], Cr[TP], Cg[TP], Cb[TP], S[TP], Nx[TP], Ny[TP], Nz[TP], Med[TP], Cnt[TP], Live[TP];
  alignas(64) std::int32_t MedI[TP];
  int row_live[TS];
  for (int r = 0; r < TS; ++r) {
    row_live[r] = r < nrows ? ncols : 0;
    for (int c = 0; c < TS; ++c) {
      int i = r * TS + c;
      Live[i] = (r < nrows && c < ncols) ? 1.f : 0.f;
      T[i] = 1.f;
      Cr[i] = Cg[i] = Cb[i] = S[i] = Nx[i] = Ny[i] = Nz[i] = Med[i] = Cnt[i] = 0.f;
      MedI[i] = -1;
    }
  }
  int total = nrows * ncols;
  const std::uint32_t begin = a.tile_offsets[tile], end = a.tile_offsets[tile + 1];
  for (std::uint32_t p = begin; p < end && total > 0; ++p) {
    const SplatPacked& s = a.splats[a.inst_splat[p]];
    int r0, r1;
    if (!splat_rows(s, y0, nrows, r0, r1)) continue;
    const float mx = s.mx, A = s.A, B = s.B, C = s.C, op = s.opacity, cut = s.power_cut, z = s.z;
    const float cr = s.r, cg = s.g, cb = s.b, nx = s.nx, ny = s.ny, nz = s.nz;
    const std::int32_t pi = std::int32_t(p);
    for (int r = r0; r <= r1; ++r) {
      if (row_live[r] == 0) continue;
      const float dy = float(y0 + r) + 0.5f - s.my;
      int g0, g1;
      if (!row_groups(s, dy, x0, ncols, g0, g1)) continue;
      for (int g = g0; g <= g1; ++g) {
        const int base = r * TS + g * LANES;
        const float px0 = float(x0 + g * LANES) + 0.5f;
        int nstop = 0;
        for (int l = 0; l < LANES; ++l) {
          const int i = base + l;
          const float dx = (px0 + float(l)) - mx;
          const float power = render::splat_power(A, B, C, dx, dy);
          const float G = render::fast_exp(-power);
          float al = op * G;
          al = al > float(render::kMaxAlpha) ? float(render::kMaxAlpha) : al;
          const float t = T[i];
          const bool cand = (power <= cut) & (al >= float(render::kMinAlpha)) & (Live[i] != 0.f);
          const float tn = t * (1.f - al);
          const bool stop = cand & (tn < float(render::kTransmittanceStop));
          const bool ok = cand & !stop;
          Live[i] = stop ? 0.f : Live[i];
          nstop += stop ? 1 : 0;
          const float w = ok ? al * t : 0.f;
          Cr[i] += w * cr;
          Cg[i] += w * cg;
          Cb[i] += w * cb;
          if constexpr (kDepth) S[i] += w * z;
          if constexpr (kNormal) {
            Nx[i] += w * nx;
            Ny[i] += w * ny;
            Nz[i] += w * nz;
          }
          if constexpr (kMedian) {
            const bool cross = ok & (t >= 0.5f) & (tn < 0.5f);
            Med[i] = cross ? z : Med[i];
            MedI[i] = cross ? pi : MedI[i];
          }
          if constexpr (kCount) Cnt[i] += ok ? 1.f : 0.f;
          T[i] = ok ? tn : t;
        }
        row_live[r] -= nstop;
        total -= nstop;
      }
    }
  }
  for (int r = 0; r < nrows; ++r) {
    for (int c = 0; c < ncols; ++c) {
      const int i = r * TS + c;
      const std::size_t pix = std::size_t(y0 + r) * std::size_t(a.width) + std::size_t(x0 + c);
      const float t = T[i];
      a.T_final[pix] = t;
      a.C_final[3 * pix] = Cr[i];
      a.C_final[3 * pix + 1] = Cg[i];
      a.C_final[3 * pix + 2] = Cb[i];
      a.rgb[3 * pix] = Cr[i] + t * a.bg[0];
      a.rgb[3 * pix + 1] = Cg[i] + t * a.bg[1];
      a.rgb[3 * pix + 2] = Cb[i] + t * a.bg[2];
      const float al = 1.f - t;
      if (a.alpha) a.alpha[pix] = al;
      if constexpr (kDepth) {
        a.S_final[pix] = S[i];
        a.depth[pix] = al > 0.f ? S[i] / al : 0.f;
      }
      if constexpr (kMedian) {
        a.median[pix] = Med[i];
        a.median_inst[pix] = MedI[i];
      }
      if constexpr (kNormal) {
        a.N_final[3 * pix] = a.normal[3 * pix] = Nx[i];
        a.N_final[3 * pix + 1] = a.normal[3 * pix + 1] = Ny[i];
        a.N_final[3 * pix + 2] = a.normal[3 * pix + 2] = Nz[i];
      }
      if constexpr (kCount) a.count[pix] = Cnt[i];
    }
  }
}

inline float ld(const float* p, std::size_t i) { return p ? p[i] : 0.f; }

template <unsigned F>
void backward_impl(const TileBackwardArgs& a, int tile) {
  constexpr bool kDepth = F & kFlagDepth, kMedian = F & kFlagMedian, kNormal = F & kFlagNormal;
  const int tx = tile % a.tiles_x, ty = tile / a.tiles_x;
  const int x0 = tx * TS, y0 = ty * TS;
  const int ncols = std::min(TS, a.width - x0), nrows = std::min(TS, a.height - y0);
  // saved forward state and upstream gradients, per pixel of the tile
  alignas(64) float Tf[TP], Fr[TP], Fg[TP], Fb[TP], FS[TP], FNx[TP], FNy[TP], FNz[TP];
  alignas(64) float gR[TP], gG[TP], gB[TP], gA[TP], gS[TP], gM[TP], gNx[TP], gNy[TP], gNz[TP];
  alignas(64) std::int32_t MedI[TP];
  // running state
  alignas(64) float T[TP], Pr[TP], Pg[TP], Pb[TP], PS[TP], PNx[TP], PNy[TP], PNz[TP], Live[TP];
  int row_live[TS];
  for (int r = 0; r < TS; ++r) {
    row_live[r] = r < nrows ? ncols : 0;
    for (int c = 0; c < TS; ++c) {
      const int i = r * TS + c;
      const bool in = r < nrows && c < ncols;
      Live[i] = in ? 1.f : 0.f;
      T[i] = 1.f;
      Pr[i] = Pg[i] = Pb[i] = PS[i] = PNx[i] = PNy[i] = PNz[i] = 0.f;
      Tf[i] = 1.f;
      Fr[i] = Fg[i] = Fb[i] = FS[i] = FNx[i] = FNy[i] = FNz[i] = 0.f;
      gR[i] = gG[i] = gB[i] = gA[i] = gS[i] = gM[i] = gNx[i] = gNy[i] = gNz[i] = 0.f;
      MedI[i] = -1;
      if (!in) continue;
      const std::size_t pix = std::size_t(y0 + r) * std::size_t(a.width) + std::size_t(x0 + c);
      Tf[i] = a.T_final[pix];
      Fr[i] = a.C_final[3 * pix];
      Fg[i] = a.C_final[3 * pix + 1];
      Fb[i] = a.C_final[3 * pix + 2];
      gR[i] = ld(a.d_rgb, 3 * pix);
      gG[i] = ld(a.d_rgb, 3 * pix + 1);
      gB[i] = ld(a.d_rgb, 3 * pix + 2);
      // rgb = C + T bg and alpha = 1 - T: the alpha channel A = sum w carries both
      float ga = ld(a.d_alpha, pix) - (gR[i] * a.bg[0] + gG[i] * a.bg[1] + gB[i] * a.bg[2]);
      const float al = 1.f - Tf[i];
      if constexpr (kDepth) {
        FS[i] = a.S_final[pix];
        const float gd = ld(a.d_depth, pix);
        if (al > 0.f) {  // depth = S / A
          const float D = FS[i] / al;
          gS[i] = gd / al;
          ga -= gd * D / al;
        }
      }
      gA[i] = ga;
      if constexpr (kMedian) {
        gM[i] = ld(a.d_median, pix);
        MedI[i] = a.median_inst[pix];
      }
      if constexpr (kNormal) {
        FNx[i] = a.N_final[3 * pix];
        FNy[i] = a.N_final[3 * pix + 1];
        FNz[i] = a.N_final[3 * pix + 2];
        gNx[i] = ld(a.d_normal, 3 * pix);
        gNy[i] = ld(a.d_normal, 3 * pix + 1);
        gNz[i] = ld(a.d_normal, 3 * pix + 2);
      }
    }
  }
  int total = nrows * ncols;
  const std::uint32_t begin = a.tile_offsets[tile], end = a.tile_offsets[tile + 1];
  alignas(64) float acc[kRecordFloats][LANES];
  std::uint32_t p = begin;
  for (; p < end && total > 0; ++p) {
    float* rec = a.records + std::size_t(p) * kRecordFloats;
    for (int k = 0; k < kRecordFloats; ++k)
      for (int l = 0; l < LANES; ++l) acc[k][l] = 0.f;
    const SplatPacked& s = a.splats[a.inst_splat[p]];
    int r0, r1;
    bool any = splat_rows(s, y0, nrows, r0, r1);
    const float mx = s.mx, A = s.A, B = s.B, C = s.C, op = s.opacity, cut = s.power_cut, z = s.z;
    const float cr = s.r, cg = s.g, cb = s.b, nx = s.nx, ny = s.ny, nz = s.nz;
    const std::int32_t pi = std::int32_t(p);
    for (int r = r0; any && r <= r1; ++r) {
      if (row_live[r] == 0) continue;
      const float dy = float(y0 + r) + 0.5f - s.my;
      int g0, g1;
      if (!row_groups(s, dy, x0, ncols, g0, g1)) continue;
      for (int g = g0; g <= g1; ++g) {
        const int base = r * TS + g * LANES;
        const float px0 = float(x0 + g * LANES) + 0.5f;
        int nstop = 0;
        for (int l = 0; l < LANES; ++l) {
          const int i = base + l;
          const float dx = (px0 + float(l)) - mx;
          const float power = render::splat_power(A, B, C, dx, dy);
          const float G = render::fast_exp(-power);
          const float raw = op * G;
          const bool clamped = raw > float(render::kMaxAlpha);
          const float al = clamped ? float(render::kMaxAlpha) : raw;
          const float t = T[i];
          const bool cand = (power <= cut) & (al >= float(render::kMinAlpha)) & (Live[i] != 0.f);
          const float tn = t * (1.f - al);
          const bool stop = cand & (tn < float(render::kTransmittanceStop));
          const bool ok = cand & !stop;
          Live[i] = stop ? 0.f : Live[i];
          nstop += stop ? 1 : 0;
          const float w = ok ? al * t : 0.f;
          Pr[i] += w * cr;
          Pg[i] += w * cg;
          Pb[i] += w * cb;
          const float inv = 1.f / (1.f - al);
          float dA = gR[i] * render::blend_dalpha_channel(cr, t, Fr[i] - Pr[i], inv) +
                     gG[i] * render::blend_dalpha_channel(cg, t, Fg[i] - Pg[i], inv) +
                     gB[i] * render::blend_dalpha_channel(cb, t, Fb[i] - Pb[i], inv) + gA[i] * (Tf[i] * inv);
          float dz = 0.f;
          if constexpr (kDepth) {
            PS[i] += w * z;
            dA += gS[i] * render::blend_dalpha_channel(z, t, FS[i] - PS[i], inv);
            dz += gS[i] * w;
          }
          if constexpr (kMedian) dz += (ok & (MedI[i] == pi)) ? gM[i] : 0.f;
          if constexpr (kNormal) {
            PNx[i] += w * nx;
            PNy[i] += w * ny;
            PNz[i] += w * nz;
            dA += gNx[i] * render::blend_dalpha_channel(nx, t, FNx[i] - PNx[i], inv) +
                  gNy[i] * render::blend_dalpha_channel(ny, t, FNy[i] - PNy[i], inv) +
                  gNz[i] * render::blend_dalpha_channel(nz, t, FNz[i] - PNz[i], inv);
            acc[kRecNx][l] += gNx[i] * w;
            acc[kRecNy][l] += gNy[i] * w;
            acc[kRecNz][l] += gNz[i] * w;
          }
          dA = ok ? dA : 0.f;
          float d_op, d_mx, d_my, d_A, d_B, d_C;
          render::blend_alpha_vjp(dA, op, G, clamped, A, B, C, dx, dy, d_op, d_mx, d_my, d_A, d_B, d_C);
          acc[kRecMx][l] += d_mx;
          acc[kRecMy][l] += d_my;
          acc[kRecA][l] += d_A;
          acc[kRecB][l] += d_B;
          acc[kRecC][l] += d_C;
          acc[kRecOpacity][l] += d_op;
          acc[kRecR][l] += gR[i] * w;
          acc[kRecG][l] += gG[i] * w;
          acc[kRecBlue][l] += gB[i] * w;
          acc[kRecZ][l] += dz;
          acc[kRecAbsX][l] += std::fabs(d_mx);
          acc[kRecAbsY][l] += std::fabs(d_my);
          T[i] = ok ? tn : t;
        }
        row_live[r] -= nstop;
        total -= nstop;
      }
    }
    for (int k = 0; k < kRecordFloats; ++k) {
      float sum = 0.f;
      for (int l = 0; l < LANES; ++l) sum += acc[k][l];
      rec[k] = sum;
    }
  }
  for (; p < end; ++p) std::memset(a.records + std::size_t(p) * kRecordFloats, 0, sizeof(float) * kRecordFloats);
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
  static constexpr auto table = make_forward_table(std::make_index_sequence<16>{});
  table[flags & 15u](a, tile);
}

void backward_tile(const TileBackwardArgs& a, int tile, unsigned flags) {
  static constexpr auto table = make_backward_table(std::make_index_sequence<8>{});
  table[flags & 7u](a, tile);
}

}  // namespace glint::cpu::GLINT_CPU_ISA

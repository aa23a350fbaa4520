// The CPU backend: launches the render/ math over splats and tiles with OpenMP.
// Pipeline per camera (docs/RASTERIZER.md):
//   1. project every splat (launch<ProjectKernel>), count the tiles its cut ellipse hits
//   2. per-splat instance offsets (prefix sum), list each splat's tiles (launch<TileListKernel>)
//   3. radix-sort visible splats by depth (stable: ties stay in index order)
//   4. stable counting sort of instances into per-tile lists, in depth order
//   5. blend each tile (runtime-dispatched SIMD kernel)
// Backward: each tile writes one gradient record per (tile, splat) instance, at the splat-major
// slot of the instance (records of a splat are contiguous); each splat then
// sums its records in tile order and runs the projection/SH VJP. No float atomics anywhere,
// so results are bit-identical for every thread count.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "glint/backend/backend.h"
#include "glint/backend/cpu/lanes.h"
#include "glint/backend/cpu/launch.h"
#include "glint/backend/cpu/raster_tiles.h"
#include "glint/core/error.h"
#include "glint/render/project.h"
#include "glint/render/sh.h"
#include "glint/render/tile.h"
#include "glint/render/view.h"

namespace glint {

void ModelGrad::resize(std::size_t n) {
  means.resize(n * 3);
  log_scales.resize(n * 3);
  quats.resize(n * 4);
  opacity_logits.resize(n);
  sh_dc.resize(n * 3);
  sh_rest.resize(n * kShRestCoeffs * 3);
  mean2d.resize(n * 2);
  mean2d_abs.resize(n);
}

// ---------------------------------------------------------------------------------------
// SIMD path selection
namespace {
bool cpu_has_avx2() {
#if defined(__x86_64__) || defined(__i386__)
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}
std::atomic<int> g_simd_request{int(CpuSimd::kAuto)};
}  // namespace

void set_cpu_simd(CpuSimd mode) { g_simd_request.store(int(mode)); }

CpuSimd active_cpu_simd() {
  auto req = CpuSimd(g_simd_request.load());
  if (req == CpuSimd::kPortable) return CpuSimd::kPortable;
  if (req == CpuSimd::kAuto) {
    const char* env = std::getenv("GLINT_CPU_SIMD");
    if (env && std::string(env) == "portable") return CpuSimd::kPortable;
  }
  return cpu_has_avx2() ? CpuSimd::kAvx2 : CpuSimd::kPortable;
}

namespace cpu {
// The tiles a splat of at most 64 tiles hits, from projection to the tile lists: bit
// j * ntx + i is tile first + j * tiles_x + i. ntx = 0 for larger splats.
struct TileHitMask {
  std::uint64_t bits;
  std::uint32_t first, ntx;
};
}  // namespace cpu

namespace detail {
struct ForwardState {
  render::ViewT<float> view{};
  render::ViewT<cpu::F8> view8{};  // the same view in eight lanes (projection and VJP blocks)
  RenderSettings settings{};
  int sh_degree = 0;
  unsigned flags = 0;
  std::size_t n = 0;
  const float* model_means = nullptr;  // identity check only
  int width = 0, height = 0, tiles_x = 0, tiles_y = 0;
  std::vector<cpu::SplatPacked> packed;           // [N]
  std::vector<std::uint32_t> splat_inst_offsets;  // [N+1]
  std::vector<std::uint32_t> inst_slot;           // [instances] tile-major -> splat-major position
  std::vector<std::uint32_t> tile_offsets;        // [tiles+1]
  std::vector<std::uint32_t> inst_splat;          // [instances] splat id, tile-major
  std::vector<float> T_final, C_final, S_final, N_final, L_final, R_final;
  std::vector<std::int32_t> median_inst;
  std::vector<std::uint8_t> sh_clamped;  // [N] bit c: colour channel c was clamped at 0
  std::vector<std::uint8_t> inst_acted;  // [instances] the instance blended or stopped a pixel
  // per-frame scratch kept with the state so a recycled state allocates nothing
  std::vector<cpu::TileHitMask> tile_mask;  // hit tiles of small splats (TileRange::fits_mask)
  std::vector<std::uint32_t> count, depth_key, inst_tile, keys, order, keys2, order2, hist;
  std::vector<std::uint32_t> d_first, d_slot, d_tile;  // instances in depth order (binning)
};
}  // namespace detail

namespace cpu {
namespace {

using render::ViewT;

inline TileRange tile_range(const SplatPacked& s, int width, int height) {
  const render::PixelRect pr = render::splat_pixel_rect(s.mx, s.my, s.ext_x, s.ext_y, width, height);
  const int TS = render::kTileSize;
  if (pr.x0 > pr.x1 || pr.y0 > pr.y1) return {pr.x0, pr.y0, pr.x1, pr.y1, 0, 0, 0, 0};
  return {pr.x0, pr.y0, pr.x1, pr.y1, pr.x0 / TS, pr.y0 / TS, pr.x1 / TS - pr.x0 / TS + 1, pr.y1 / TS - pr.y0 / TS + 1};
}

// Calls f(tile, tx, ty) for every tile whose pixel centres the splat's cut ellipse can reach,
// in row-major tile order: the same test as the kernels' tile_hits, for rectangles of more
// than 64 tiles.
template <class F>
inline void for_each_tile(const SplatPacked& s, int width, int height, F&& f) {
  render::PixelRect pr = render::splat_pixel_rect(s.mx, s.my, s.ext_x, s.ext_y, width, height);
  if (pr.x0 > pr.x1 || pr.y0 > pr.y1) return;
  const int TS = render::kTileSize;
  const int tiles_x = (width + TS - 1) / TS;
  const render::RectTestPrep prep = render::rect_test_prep(s.A, s.B, s.C, s.power_cut);
  for (int ty = pr.y0 / TS; ty <= pr.y1 / TS; ++ty) {
    float py0, py1, px0, px1;
    render::tile_centre_span(ty, pr.y0, pr.y1, py0, py1);
    for (int tx = pr.x0 / TS; tx <= pr.x1 / TS; ++tx) {
      render::tile_centre_span(tx, pr.x0, pr.x1, px0, px1);
      if (render::ellipse_hits_rect(prep, s.mx, s.my, px0, px1, py0, py1))
        f(ty * tiles_x + tx, tx, ty);
    }
  }
}

inline F8 load_lanes(const float* a) {
  f8v v;
  std::memcpy(&v, a, sizeof(v));
  return F8(v);
}

// Project eight consecutive splats (the projection runs on them as lanes), then for each
// kept one: colour, normal, pack what the tile kernels read, count the tiles it touches.
struct ProjectKernel {
  using Args = std::tuple<const ViewT<float>*, const render::ViewT<F8>*, const GaussianModel*, int /*sh_degree*/,
                          bool /*antialiased*/, bool /*normals*/, SplatPacked*, int* /*radii*/,
                          std::uint32_t* /*tile count*/, std::uint32_t* /*depth key*/, TileHitMask*,
                          std::uint8_t* /*clamped colour channels*/, TileHitsFn>;
  static void run(int block, const ViewT<float>* v, const render::ViewT<F8>* view8, const GaussianModel* m, int deg,
                  bool aa, bool normals, SplatPacked* packed, int* radii, std::uint32_t* count,
                  std::uint32_t* depth_key, TileHitMask* tile_mask, std::uint8_t* sh_clamped, TileHitsFn tile_hits) {
    constexpr int L = 8;
    const std::size_t n = m->size(), i0 = std::size_t(block) * L;
    // lane inputs, one row per quantity; lanes past the end repeat the last splat
    alignas(32) float in[11][L];
    for (int l = 0; l < L; ++l) {
      const std::size_t i = std::min(i0 + std::size_t(l), n - 1);
      for (int c = 0; c < 3; ++c) {
        in[c][l] = m->means[3 * i + std::size_t(c)];
        in[3 + c][l] = m->log_scales[3 * i + std::size_t(c)];
      }
      for (int c = 0; c < 4; ++c) in[6 + c][l] = m->quats[4 * i + std::size_t(c)];
      in[10][l] = m->opacity_logits[i];
    }
    render::Projected<F8> pr;
    const M8 keep = render::project_splat(*view8, Vec3<F8>{load_lanes(in[0]), load_lanes(in[1]), load_lanes(in[2])},
                                          Vec3<F8>{load_lanes(in[3]), load_lanes(in[4]), load_lanes(in[5])},
                                          Quat<F8>{load_lanes(in[6]), load_lanes(in[7]), load_lanes(in[8]), load_lanes(in[9])},
                                          load_lanes(in[10]), aa, pr);
    for (int l = 0; l < L; ++l) {
      const std::size_t si = i0 + std::size_t(l);
      if (si >= n) break;
      const int i = int(si);
      radii[i] = 0;
      count[i] = 0;
      if (!lane_on(keep, l)) continue;
      const Vec3f mean = load3(m->means.data(), i);
      SplatPacked s{};
      s.mx = pr.mx[l];
      s.my = pr.my[l];
      s.A = pr.conic[0][l];
      s.B = pr.conic[1][l];
      s.C = pr.conic[2][l];
      s.opacity = pr.opacity[l];
      s.power_cut = pr.power_cut[l];
      s.z = pr.depth[l];
      s.ext_x = pr.ext_x[l];
      s.ext_y = pr.ext_y[l];
      unsigned clamped = 0;
      Vec3f col = render::sh_color(deg, render::view_dir(mean, v->campos), m->sh_dc.data() + 3 * si,
                                   m->sh_rest.data() + 45 * si, &clamped);
      sh_clamped[i] = std::uint8_t(clamped);
      s.r = col.x;
      s.g = col.y;
      s.b = col.z;
      if (normals) {
        Vec3f nrm = render::splat_normal(*v, mean, load3(m->log_scales.data(), i), load_quat(m->quats.data(), i));
        s.nx = nrm.x;
        s.ny = nrm.y;
        s.nz = nrm.z;
      }
      std::uint32_t c = 0;
      const TileRange tr = tile_range(s, v->width, v->height);
      if (tr.fits_mask()) {  // remember the hits so that TileListKernel need not test again
        const std::uint64_t bits = tile_hits(s, tr);
        c = std::uint32_t(__builtin_popcountll(bits));
        const int tiles_x = (v->width + render::kTileSize - 1) / render::kTileSize;
        tile_mask[i] = {bits, std::uint32_t(tr.ty0 * tiles_x + tr.tx0), std::uint32_t(tr.ntx)};
      } else {
        for_each_tile(s, v->width, v->height, [&](int, int, int) { ++c; });
        tile_mask[i] = {0, 0, 0};
      }
      if (c == 0) continue;
      packed[i] = s;
      count[i] = c;
      std::memcpy(&depth_key[i], &s.z, 4);  // z >= near > 0: the float bits sort like the floats
      radii[i] = int(std::ceil(std::min(std::max(s.ext_x, s.ext_y), 1e9f)));
    }
  }
};

struct TileListKernel {
  using Args = std::tuple<const ViewT<float>*, const SplatPacked*, const std::uint32_t* /*offsets*/,
                          const TileHitMask*, std::uint32_t* /*inst_tile, splat-major*/>;
  static void run(int i, const ViewT<float>* v, const SplatPacked* packed, const std::uint32_t* off,
                  const TileHitMask* tile_mask, std::uint32_t* inst_tile) {
    std::uint32_t o = off[i];
    if (off[i + 1] == o) return;
    const TileHitMask& hm = tile_mask[i];
    if (hm.ntx > 0) {  // row by row, in row-major tile order as for_each_tile (no division per tile)
      const std::uint32_t tiles_x = std::uint32_t((v->width + render::kTileSize - 1) / render::kTileSize);
      const std::uint64_t row_bits = hm.ntx == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << hm.ntx) - 1;
      std::uint64_t bits = hm.bits;
      for (std::uint32_t row = hm.first; bits; row += tiles_x) {
        for (std::uint64_t b = bits & row_bits; b; b &= b - 1) inst_tile[o++] = row + std::uint32_t(__builtin_ctzll(b));
        bits = hm.ntx == 64 ? 0 : bits >> hm.ntx;
      }
      return;
    }
    for_each_tile(packed[i], v->width, v->height, [&](int t, int, int) { inst_tile[o++] = std::uint32_t(t); });
  }
};

// Stable LSD radix sort of (key, value) pairs by key, 11 bits a pass. Each pass counts
// and scatters contiguous chunks of the input in parallel; offsets are laid out bucket-major,
// chunk-minor, so the result is the stable order whatever the chunk count. A pass whose
// digits are all equal is the identity and is skipped.
void radix_sort(std::vector<std::uint32_t>& keys, std::vector<std::uint32_t>& vals, std::vector<std::uint32_t>& k2,
                std::vector<std::uint32_t>& v2, std::vector<std::uint32_t>& hist, int threads) {
  const std::size_t n = keys.size();
  k2.resize(n);
  v2.resize(n);
  constexpr int kBits = 11, kBuckets = 1 << kBits;
  const int nchunks = threads <= 1 ? 1 : std::max(1, std::min(threads * 2, int(n / 32768)));
  const std::size_t chunk = (n + std::size_t(nchunks) - 1) / std::size_t(nchunks);
  hist.resize(std::size_t(nchunks) * kBuckets);
  for (int shift = 0; shift < 32; shift += kBits) {
    const std::uint32_t* kin = keys.data();
    parallel_for_chunks(nchunks, threads, [&](int c) {
      std::uint32_t* h = hist.data() + std::size_t(c) * kBuckets;
      std::fill(h, h + kBuckets, 0u);
      const std::size_t b = std::size_t(c) * chunk, e = std::min(n, b + chunk);
      for (std::size_t i = b; i < e; ++i) ++h[(kin[i] >> shift) & (kBuckets - 1)];
    });
    std::uint32_t sum = 0;
    bool identity = false;
    for (int d = 0; d < kBuckets; ++d) {
      const std::uint32_t before = sum;
      for (int c = 0; c < nchunks; ++c) {
        std::uint32_t& h = hist[std::size_t(c) * kBuckets + std::size_t(d)];
        const std::uint32_t v = h;
        h = sum;
        sum += v;
      }
      if (sum - before == n) identity = true;  // every key has this digit
    }
    if (identity) continue;
    const std::uint32_t* vin = vals.data();
    std::uint32_t* kout = k2.data();
    std::uint32_t* vout = v2.data();
    parallel_for_chunks(nchunks, threads, [&](int c) {
      std::uint32_t* h = hist.data() + std::size_t(c) * kBuckets;
      const std::size_t b = std::size_t(c) * chunk, e = std::min(n, b + chunk);
      for (std::size_t i = b; i < e; ++i) {
        const std::uint32_t pos = h[(kin[i] >> shift) & (kBuckets - 1)]++;
        kout[pos] = kin[i];
        vout[pos] = vin[i];
      }
    });
    keys.swap(k2);
    vals.swap(v2);
  }
}

// Gradients of eight consecutive splats: each sums its records (fixed order), the
// projection VJP runs on the eight as lanes, then each runs the SH VJP.
struct VjpKernel {
  using Args = std::tuple<const detail::ForwardState*, const GaussianModel*, const float* /*records*/,
                          const render::ViewT<F8>*, ModelGrad*>;
  static void run(int block, const detail::ForwardState* st, const GaussianModel* m, const float* rec,
                  const render::ViewT<F8>* view8, ModelGrad* g) {
    constexpr int L = 8;
    const std::size_t i0 = std::size_t(block) * L;
    float sum[L][kRecordFloats] = {};
    bool active[L];
    int first = -1;
    for (int l = 0; l < L; ++l) {
      const std::size_t i = i0 + std::size_t(l);
      active[l] = i < st->n && st->splat_inst_offsets[i] < st->splat_inst_offsets[i + 1];
      if (!active[l]) continue;
      if (first < 0) first = l;
      // the records of splat i are contiguous (backward writes instance p's record to slot
      // inst_slot[p]), in tile order
      for (std::uint32_t k = st->splat_inst_offsets[i]; k < st->splat_inst_offsets[i + 1]; ++k) {
        const float* r = rec + std::size_t(k) * kRecordFloats;
        for (int f = 0; f < kRecordFloats; ++f) sum[l][f] += r[f];
      }
    }
    render::SplatGeomGrad<F8> sg8;
    alignas(32) float in_mean[3][L];
    if (first >= 0) {
      // lane inputs, one row per quantity; a lane without a splat repeats the first active
      // one (its results are dropped)
      constexpr int kRows = 21;
      const int rf[10] = {kRecMx, kRecMy, kRecA, kRecB, kRecC, kRecOpacity, kRecZ, kRecNx, kRecNy, kRecNz};
      alignas(32) float in[kRows][L];
      for (int l = 0; l < L; ++l) {
        const int src_l = active[l] ? l : first;
        const std::size_t i = i0 + std::size_t(src_l);
        for (int c = 0; c < 3; ++c) {
          in[c][l] = m->means[3 * i + std::size_t(c)];
          in[3 + c][l] = m->log_scales[3 * i + std::size_t(c)];
        }
        for (int c = 0; c < 4; ++c) in[6 + c][l] = m->quats[4 * i + std::size_t(c)];
        in[10][l] = m->opacity_logits[i];
        for (int c = 0; c < 10; ++c) in[11 + c][l] = sum[src_l][rf[c]];
      }
      const Vec3<F8> mean{load_lanes(in[0]), load_lanes(in[1]), load_lanes(in[2])};
      const Vec3<F8> ls{load_lanes(in[3]), load_lanes(in[4]), load_lanes(in[5])};
      const Quat<F8> q{load_lanes(in[6]), load_lanes(in[7]), load_lanes(in[8]), load_lanes(in[9])};
      for (int c = 0; c < 3; ++c) std::memcpy(in_mean[c], in[c], sizeof(in_mean[c]));
      render::ProjectedGrad<F8> pg;
      pg.mean2d[0] = load_lanes(in[11]);
      pg.mean2d[1] = load_lanes(in[12]);
      pg.conic[0] = load_lanes(in[13]);
      pg.conic[1] = load_lanes(in[14]);
      pg.conic[2] = load_lanes(in[15]);
      pg.opacity = load_lanes(in[16]);
      pg.depth = load_lanes(in[17]);
      for (int c = 0; c < 3; ++c) pg.normal[c] = load_lanes(in[18 + c]);
      render::project_splat_vjp(*view8, mean, ls, q, load_lanes(in[10]), st->settings.antialiased, pg, sg8);
    }
    // the SH VJP on the same lanes: coefficients gathered per lane, gradients scattered back
    alignas(32) float d_sh[48][L];
    if (first >= 0) {
      alignas(32) float rows[48][L];  // 45 coefficients, then d_color r, g, b
      for (int l = 0; l < L; ++l) {
        const int src_l = active[l] ? l : first;
        const std::size_t i = i0 + std::size_t(src_l);
        const float* rest = m->sh_rest.data() + 45 * i;
        for (int k = 0; k < 45; ++k) rows[k][l] = rest[k];
        const unsigned cl = st->sh_clamped[i];  // the colour clamp as the forward decided it
        rows[45][l] = (cl & 1u) ? 0.f : sum[src_l][kRecR];
        rows[46][l] = (cl & 2u) ? 0.f : sum[src_l][kRecG];
        rows[47][l] = (cl & 4u) ? 0.f : sum[src_l][kRecBlue];
      }
      F8 rest8[45], d_dc8[3], d_rest8[45];
      for (int k = 0; k < 45; ++k) rest8[k] = load_lanes(rows[k]);
      const F8 campos8[3] = {view8->campos[0], view8->campos[1], view8->campos[2]};
      const Vec3<F8> mean{load_lanes(in_mean[0]), load_lanes(in_mean[1]), load_lanes(in_mean[2])};
      render::sh_linear_vjp(st->sh_degree, mean, campos8, rest8,
                            Vec3<F8>{load_lanes(rows[45]), load_lanes(rows[46]), load_lanes(rows[47])}, d_dc8, d_rest8,
                            sg8.mean);
      for (int k = 0; k < 3; ++k) std::memcpy(d_sh[k], &d_dc8[k].v, sizeof(d_sh[k]));
      for (int k = 0; k < 45; ++k) std::memcpy(d_sh[3 + k], &d_rest8[k].v, sizeof(d_sh[k]));
    }
    for (int l = 0; l < L; ++l) {
      const std::size_t si = i0 + std::size_t(l);
      if (si >= st->n) break;
      float* d_dc = g->sh_dc.data() + 3 * si;
      float* d_rest = g->sh_rest.data() + 45 * si;
      const long i = long(si);
      if (!active[l]) {
        store3(g->means.data(), i, Vec3f{0, 0, 0});
        store3(g->log_scales.data(), i, Vec3f{0, 0, 0});
        store_quat(g->quats.data(), i, Quatf{0, 0, 0, 0});
        g->opacity_logits[si] = 0.f;
        for (int c = 0; c < 3; ++c) d_dc[c] = 0.f;
        for (int c = 0; c < 45; ++c) d_rest[c] = 0.f;
        g->mean2d[2 * si] = g->mean2d[2 * si + 1] = 0.f;
        g->mean2d_abs[si] = 0.f;
        continue;
      }
      const float* sm = sum[l];
      for (int c = 0; c < 3; ++c) d_dc[c] = d_sh[c][l];
      for (int k = 0; k < 45; ++k) d_rest[k] = d_sh[3 + k][l];
      store3(g->means.data(), i, Vec3f{sg8.mean.x[l], sg8.mean.y[l], sg8.mean.z[l]});
      store3(g->log_scales.data(), i, Vec3f{sg8.log_scale.x[l], sg8.log_scale.y[l], sg8.log_scale.z[l]});
      store_quat(g->quats.data(), i, Quatf{sg8.quat.w[l], sg8.quat.x[l], sg8.quat.y[l], sg8.quat.z[l]});
      g->opacity_logits[si] = sg8.opacity_logit[l];
      g->mean2d[2 * si] = sm[kRecMx];
      g->mean2d[2 * si + 1] = sm[kRecMy];
      g->mean2d_abs[si] = std::sqrt(sm[kRecAbsX] * sm[kRecAbsX] + sm[kRecAbsY] * sm[kRecAbsY]);
    }
  }
};

void check_model(const GaussianModel& m) {
  const std::size_t n = m.size();
  if (m.means.size() != 3 * n || m.log_scales.size() != 3 * n || m.quats.size() != 4 * n || m.sh_dc.size() != 3 * n ||
      m.sh_rest.size() != std::size_t(kShRestCoeffs) * 3 * n)
    throw Error("rasterizer: GaussianModel arrays have inconsistent sizes");
  if (n > std::size_t(std::numeric_limits<int>::max() / 2)) throw Error("rasterizer: too many splats");
}

// Grows a vector to at least n elements without shrinking (contents are scratch).
template <class T>
T* grow(std::vector<T>& v, std::size_t n) {
  if (v.size() < n) v.resize(n);
  return v.data();
}

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(int threads) : threads_(threads > 0 ? threads : omp_get_max_threads()) {}
  const char* name() const override { return "cpu"; }

  RenderOutput forward(const GaussianModel& model, const Camera& camera, const RenderSettings& settings) override;
  void backward(const GaussianModel& model, const Camera& camera, const RenderSettings& settings,
                const RenderOutput& out, const RenderGradIn& grad_in, ModelGrad& grad) override;

 private:
  // A state is handed out again once no RenderOutput refers to it any more, so steady
  // rendering (training, benchmarks) reuses its buffers instead of faulting in fresh pages.
  std::shared_ptr<detail::ForwardState> take_state();
  int threads_;
  std::vector<float> records_;  // backward's per-instance gradient records, reused
  std::vector<std::shared_ptr<detail::ForwardState>> pool_;
};

std::shared_ptr<detail::ForwardState> CpuBackend::take_state() {
  for (auto& p : pool_)
    if (p.use_count() == 1) return p;
  auto st = std::make_shared<detail::ForwardState>();
  if (pool_.size() < 3) pool_.push_back(st);
  return st;
}

RenderOutput CpuBackend::forward(const GaussianModel& model, const Camera& camera, const RenderSettings& settings) {
  check_model(model);
  if (camera.width <= 0 || camera.height <= 0 || !(camera.fx > 0) || !(camera.fy > 0))
    throw Error("rasterizer: camera '" + camera.name + "' has no valid size or focal length");
  std::shared_ptr<detail::ForwardState> st = take_state();
  const int W = camera.width, H = camera.height, TS = render::kTileSize;
  st->view = render::make_view<float>(camera, settings.near_plane);
  st->view8 = render::make_view<F8>(camera, settings.near_plane);  // each lane = the float view
  st->settings = settings;
  st->sh_degree = std::clamp(settings.sh_degree >= 0 ? settings.sh_degree : model.sh_degree, 0, kMaxShDegree);
  st->flags = (settings.want_depth ? kFlagDepth : 0u) | (settings.want_median_depth ? kFlagMedian : 0u) |
              (settings.want_normal ? kFlagNormal : 0u) | (settings.want_count ? kFlagCount : 0u) |
              (settings.want_distortion ? kFlagDistortion : 0u);
  st->n = model.size();
  st->model_means = model.means.data();
  st->width = W;
  st->height = H;
  st->tiles_x = (W + TS - 1) / TS;
  st->tiles_y = (H + TS - 1) / TS;
  const int n = int(st->n);
  const int ntiles = st->tiles_x * st->tiles_y;

  RenderOutput out;
  out.radii.assign(st->n, 0);
  st->packed.resize(st->n);
  std::uint32_t* count = grow(st->count, st->n);
  std::uint32_t* depth_key = grow(st->depth_key, st->n);
  TileHitMask* tile_mask = grow(st->tile_mask, st->n);
  st->sh_clamped.resize(st->n);
  if (n > 0)
    launch<ProjectKernel>((n + 7) / 8, threads_, static_cast<const ViewT<float>*>(&st->view),
                          static_cast<const render::ViewT<F8>*>(&st->view8), &model, st->sh_degree, settings.antialiased,
                          settings.want_normal, st->packed.data(), out.radii.data(), count, depth_key, tile_mask,
                          st->sh_clamped.data(),
                          active_cpu_simd() == CpuSimd::kAvx2 ? TileHitsFn(&avx2::tile_hits) : &portable::tile_hits);

  // per-splat instance offsets
  st->splat_inst_offsets.resize(st->n + 1);
  std::uint64_t total = 0;
  std::int64_t visible = 0;
  for (std::size_t i = 0; i < st->n; ++i) {
    st->splat_inst_offsets[i] = std::uint32_t(total);
    total += count[i];
    visible += count[i] > 0;
  }
  if (total > std::numeric_limits<std::uint32_t>::max() / 2) throw Error("rasterizer: too many tile instances");
  st->splat_inst_offsets[st->n] = std::uint32_t(total);
  std::uint32_t* inst_tile = grow(st->inst_tile, total);
  launch<TileListKernel>(n, threads_, static_cast<const ViewT<float>*>(&st->view),
                         static_cast<const SplatPacked*>(st->packed.data()),
                         static_cast<const std::uint32_t*>(st->splat_inst_offsets.data()),
                         static_cast<const TileHitMask*>(tile_mask), inst_tile);

  // depth order of the visible splats (z >= near > 0, so float bits sort like the floats)
  std::vector<std::uint32_t>& keys = st->keys;
  std::vector<std::uint32_t>& order = st->order;
  keys.clear();
  order.clear();
  keys.resize(std::size_t(visible));
  order.resize(std::size_t(visible));
  for (std::size_t i = 0, j = 0; i < st->n; ++i)
    if (count[i] > 0) {
      keys[j] = depth_key[i];
      order[j++] = std::uint32_t(i);
    }
  radix_sort(keys, order, st->keys2, st->order2, st->hist, threads_);

  // stable counting sort of instances into tiles, chunked over the depth order. The
  // instances' tiles are first copied into depth order (one gather per splat, whose loads
  // are independent and overlap), so the count and scatter passes read them sequentially.
  const std::size_t nvis = order.size();
  std::uint32_t* d_first = grow(st->d_first, nvis + 1);  // first depth-major instance of rank s
  std::uint32_t* d_slot = grow(st->d_slot, nvis);        // its first splat-major slot
  const std::uint32_t* offs = st->splat_inst_offsets.data();
  const int nchunks = std::max(1, std::min(threads_ * 4, int(nvis / 2048) + 1));
  const std::size_t chunk = (nvis + std::size_t(nchunks) - 1) / std::size_t(nchunks);
  // exclusive prefix of the counts in depth order: chunk sums, their prefix, then each chunk
  std::vector<std::uint32_t>& chunk_base = st->keys2;
  chunk_base.assign(std::size_t(nchunks) + 1, 0u);
  parallel_for_chunks(nchunks, threads_, [&](int c) {
    const std::size_t b = std::size_t(c) * chunk, e = std::min(nvis, b + chunk);
    std::uint32_t sum = 0;
    for (std::size_t s = b; s < e; ++s) {
      const std::uint32_t i = order[s];
      d_slot[s] = offs[i];
      d_first[s] = count[i];
      sum += count[i];
    }
    chunk_base[std::size_t(c) + 1] = sum;
  });
  for (int c = 0; c < nchunks; ++c) chunk_base[std::size_t(c) + 1] += chunk_base[std::size_t(c)];
  parallel_for_chunks(nchunks, threads_, [&](int c) {
    const std::size_t b = std::size_t(c) * chunk, e = std::min(nvis, b + chunk);
    std::uint32_t acc = chunk_base[std::size_t(c)];
    for (std::size_t s = b; s < e; ++s) {
      const std::uint32_t n_s = d_first[s];
      d_first[s] = acc;
      acc += n_s;
    }
  });
  d_first[nvis] = chunk_base[std::size_t(nchunks)];
  std::uint32_t* d_tile = grow(st->d_tile, total);
  std::vector<std::uint32_t>& cnt = st->hist;
  cnt.assign(std::size_t(nchunks) * std::size_t(ntiles), 0u);
  parallel_for_chunks(nchunks, threads_, [&](int c) {
    const std::size_t b = std::size_t(c) * chunk, e = std::min(nvis, b + chunk);
    for (std::size_t s = b; s < e; ++s)
      std::memcpy(d_tile + d_first[s], inst_tile + d_slot[s], sizeof(std::uint32_t) * (d_first[s + 1] - d_first[s]));
    std::uint32_t* h = cnt.data() + std::size_t(c) * std::size_t(ntiles);
    if (b < e)
      for (std::uint32_t q = d_first[b]; q < d_first[e]; ++q) ++h[d_tile[q]];
  });
  st->tile_offsets.resize(std::size_t(ntiles) + 1);
  std::uint32_t run = 0;
  for (int t = 0; t < ntiles; ++t) {
    st->tile_offsets[std::size_t(t)] = run;
    for (int c = 0; c < nchunks; ++c) {
      std::uint32_t& h = cnt[std::size_t(c) * std::size_t(ntiles) + std::size_t(t)];
      const std::uint32_t v = h;
      h = run;
      run += v;
    }
  }
  st->tile_offsets[std::size_t(ntiles)] = run;
  st->inst_splat.resize(total);
  st->inst_slot.resize(total);
  parallel_for_chunks(nchunks, threads_, [&](int c) {
    std::uint32_t* h = cnt.data() + std::size_t(c) * std::size_t(ntiles);
    const std::size_t b = std::size_t(c) * chunk, e = std::min(nvis, b + chunk);
    for (std::size_t s = b; s < e; ++s) {
      const std::uint32_t i = order[s];
      for (std::uint32_t q = d_first[s], k = d_slot[s]; q < d_first[s + 1]; ++q, ++k) {
        const std::uint32_t pos = h[d_tile[q]]++;
        st->inst_splat[pos] = i;
        st->inst_slot[pos] = k;
      }
    }
  });

  // blend
  const std::size_t P = std::size_t(W) * std::size_t(H);
  out.rgb = ImageF(W, H, 3);
  if (settings.want_alpha) out.alpha = ImageF(W, H, 1);
  if (settings.want_depth) out.depth = ImageF(W, H, 1);
  if (settings.want_median_depth) out.median_depth = ImageF(W, H, 1);
  if (settings.want_normal) out.normal = ImageF(W, H, 3);
  if (settings.want_count) out.count = ImageF(W, H, 1);
  if (settings.want_distortion) out.distortion = ImageF(W, H, 1);
  float* T_final = grow(st->T_final, P);
  float* C_final = grow(st->C_final, 3 * P);
  float* S_final = settings.want_depth ? grow(st->S_final, P) : nullptr;
  float* N_final = settings.want_normal ? grow(st->N_final, 3 * P) : nullptr;
  float* L_final = settings.want_distortion ? grow(st->L_final, P) : nullptr;
  float* R_final = settings.want_distortion ? grow(st->R_final, P) : nullptr;
  std::int32_t* median_inst = settings.want_median_depth ? grow(st->median_inst, P) : nullptr;

  TileForwardArgs fa{};
  fa.splats = st->packed.data();
  fa.inst_splat = st->inst_splat.data();
  fa.tile_offsets = st->tile_offsets.data();
  fa.width = W;
  fa.height = H;
  fa.tiles_x = st->tiles_x;
  for (int c = 0; c < 3; ++c) fa.bg[c] = settings.background[c];
  fa.rgb = out.rgb.data.data();
  fa.alpha = settings.want_alpha ? out.alpha.data.data() : nullptr;
  fa.depth = settings.want_depth ? out.depth.data.data() : nullptr;
  fa.median = settings.want_median_depth ? out.median_depth.data.data() : nullptr;
  fa.normal = settings.want_normal ? out.normal.data.data() : nullptr;
  fa.count = settings.want_count ? out.count.data.data() : nullptr;
  fa.distortion = settings.want_distortion ? out.distortion.data.data() : nullptr;
  fa.T_final = T_final;
  fa.C_final = C_final;
  fa.S_final = S_final;
  fa.N_final = N_final;
  fa.L_final = L_final;
  fa.R_final = R_final;
  fa.median_inst = median_inst;
  fa.inst_acted = grow(st->inst_acted, std::max<std::uint64_t>(1, total));
  const ForwardTileFn fwd = active_cpu_simd() == CpuSimd::kAvx2 ? &avx2::forward_tile : &portable::forward_tile;
  const unsigned flags = st->flags;
  parallel_for_tiles(ntiles, threads_, [&](int t) { fwd(fa, t, flags); });

  out.num_visible = visible;
  out.num_instances = std::int64_t(total);
  out.saved = std::move(st);
  return out;
}

void CpuBackend::backward(const GaussianModel& model, const Camera& camera, const RenderSettings& settings,
                          const RenderOutput& out, const RenderGradIn& gin, ModelGrad& grad) {
  const detail::ForwardState* st = out.saved.get();
  if (!st) throw Error("rasterizer backward: the RenderOutput holds no forward state");
  if (st->n != model.size() || st->model_means != model.means.data() || st->width != camera.width ||
      st->height != camera.height)
    throw Error("rasterizer backward: model or camera differ from the forward pass");
  if ((gin.d_depth && !st->settings.want_depth) || (gin.d_median_depth && !st->settings.want_median_depth) ||
      (gin.d_normal && !st->settings.want_normal) || (gin.d_distortion && !st->settings.want_distortion))
    throw Error("rasterizer backward: gradient given for an output that forward did not render");
  (void)settings;
  grad.resize(st->n);
  const int ntiles = st->tiles_x * st->tiles_y;
  const std::size_t ninst = st->inst_splat.size();
  float* records = grow(records_, std::max<std::size_t>(1, ninst * kRecordFloats));

  TileBackwardArgs ba{};
  ba.splats = st->packed.data();
  ba.inst_splat = st->inst_splat.data();
  ba.tile_offsets = st->tile_offsets.data();
  ba.width = st->width;
  ba.height = st->height;
  ba.tiles_x = st->tiles_x;
  for (int c = 0; c < 3; ++c) ba.bg[c] = st->settings.background[c];
  ba.T_final = st->T_final.data();
  ba.C_final = st->C_final.data();
  ba.S_final = st->settings.want_depth ? st->S_final.data() : nullptr;
  ba.N_final = st->settings.want_normal ? st->N_final.data() : nullptr;
  ba.L_final = st->settings.want_distortion ? st->L_final.data() : nullptr;
  ba.R_final = st->settings.want_distortion ? st->R_final.data() : nullptr;
  ba.median_inst = st->settings.want_median_depth ? st->median_inst.data() : nullptr;
  ba.d_rgb = gin.d_rgb;
  ba.d_alpha = gin.d_alpha;
  ba.d_depth = gin.d_depth;
  ba.d_median = gin.d_median_depth;
  ba.d_normal = gin.d_normal;
  ba.d_distortion = gin.d_distortion;
  ba.inst_slot = st->inst_slot.data();
  ba.inst_acted = st->inst_acted.data();
  ba.records = records;
  const unsigned flags = st->flags & kBackwardFlags;
  const BackwardTileFn bwd = active_cpu_simd() == CpuSimd::kAvx2 ? &avx2::backward_tile : &portable::backward_tile;
  parallel_for_tiles(ntiles, threads_, [&](int t) { bwd(ba, t, flags); });

  launch<VjpKernel>(int((st->n + 7) / 8), threads_, st, &model, static_cast<const float*>(records),
                    static_cast<const render::ViewT<F8>*>(&st->view8), &grad);
}

}  // namespace
}  // namespace cpu

std::unique_ptr<Backend> make_cpu_backend(int threads) { return std::make_unique<cpu::CpuBackend>(threads); }

}  // namespace glint

// The CPU backend: runs the render/ math over splats and tiles with OpenMP, through the
// per-ISA kernels of splat_kernels.h and raster_tiles.h.
// Pipeline per camera (docs/RASTERIZER.md):
//   1. project every splat (project_splats), count the tiles its cut ellipse hits
//   2. per-splat instance offsets (prefix sum)
//   3. radix-sort visible splats by depth (stable: ties stay in index order)
//   4. stable counting sort of instances into per-tile lists, in depth order (each splat's
//      tiles listed from the tile mask its projection kept)
//   5. blend each tile (runtime-dispatched SIMD kernel), the tiles with most splats first
// Backward: each tile writes one gradient record per (tile, splat) instance, at the splat-major
// slot of the instance (records of a splat are contiguous); each splat then
// sums its records in tile order and runs the projection/SH VJP. No float atomics anywhere,
// so results are bit-identical for every thread count.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "glint/backend/backend.h"
#include "glint/backend/cpu/cpu_training_session.h"
#include "glint/backend/cpu/launch.h"
#include "glint/backend/cpu/raster_tiles.h"
#include "glint/backend/cpu/splat_kernels.h"
#include "glint/core/error.h"
#include "glint/render/tile.h"

namespace glint {

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
// x86-64-v4, what raster_avx512.cpp is compiled for (the CPU check also covers the OS
// saving the AVX-512 state).
bool cpu_has_avx512() {
#if defined(__x86_64__) || defined(__i386__)
  return cpu_has_avx2() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512cd");
#else
  return false;
#endif
}
std::atomic<int> g_simd_request{int(CpuSimd::kAuto)};

// GLINT_CPU_SIMD caps the build kAuto picks; an unknown value is reported once and ignored.
CpuSimd env_simd_cap() {
  const char* env = std::getenv("GLINT_CPU_SIMD");
  if (!env || !*env) return CpuSimd::kAvx512;
  const std::string v = env;
  if (v == "portable") return CpuSimd::kPortable;
  if (v == "avx2") return CpuSimd::kAvx2;
  if (v == "avx512" || v == "auto") return CpuSimd::kAvx512;
  static std::atomic<bool> warned{false};
  if (!warned.exchange(true))
    std::fprintf(stderr, "glint: warning: GLINT_CPU_SIMD=%s is not one of portable, avx2, avx512, auto; ignored\n",
                 env);
  return CpuSimd::kAvx512;
}
}  // namespace

void set_cpu_simd(CpuSimd mode) { g_simd_request.store(int(mode)); }

const char* cpu_simd_name(CpuSimd s) {
  switch (s) {
    case CpuSimd::kPortable: return "portable";
    case CpuSimd::kAvx2: return "avx2";
    case CpuSimd::kAvx512: return "avx512";
    case CpuSimd::kAuto: break;
  }
  return "auto";
}

CpuSimd active_cpu_simd() {
  auto want = CpuSimd(g_simd_request.load());
  if (want == CpuSimd::kAuto) want = env_simd_cap();
  if (want == CpuSimd::kAvx512 && cpu_has_avx512()) return CpuSimd::kAvx512;
  if (want != CpuSimd::kPortable && cpu_has_avx2()) return CpuSimd::kAvx2;
  return CpuSimd::kPortable;
}

namespace cpu {
// Sums over a chunk of splats (the offsets pass), then their exclusive prefix.
struct SplatChunkSums {
  std::uint64_t instances = 0;
  std::uint32_t visible = 0, min_key = std::numeric_limits<std::uint32_t>::max(), max_key = 0;
};
struct CpuForwardState final : ForwardState {
  const cpu::CpuKernels* kernels = nullptr;  // the build the forward ran; backward uses it too
  RenderSettings settings{};
  int sh_degree = 0;
  unsigned flags = 0;
  std::size_t n = 0;
  const float* model_means = nullptr;  // identity check only
  int width = 0, height = 0, tiles_x = 0, tiles_y = 0;
  std::vector<cpu::SplatPacked> packed;           // [N]
  std::vector<std::uint32_t> splat_inst_offsets;  // [N+1]
  std::vector<std::uint32_t> tile_offsets;        // [tiles+1]
  std::vector<std::uint32_t> inst_splat;          // [instances] splat id, tile-major
  std::vector<std::uint32_t> inst_slot;  // [instances] tile-major -> splat-major (for_backward)
  std::vector<float> T_final, C_final, S_final, N_final, L_final, R_final;
  std::vector<std::int32_t> median_inst;
  std::vector<std::uint8_t> sh_clamped;  // [N] bit c: colour channel c was clamped at 0
  std::vector<std::uint32_t> inst_groups;  // [instances] lane groups where it blended or stopped a pixel
  std::vector<std::uint32_t> tile_stop;    // [tiles] where each tile's blend ended
  std::vector<std::uint32_t> tile_order;   // [tiles] the order threads take the tiles in
  std::vector<std::uint64_t> tile_keys;    // scratch of that order
  // per-frame scratch kept with the state so a recycled state allocates nothing
  std::vector<cpu::TileHitMask> tile_mask;  // hit tiles of small splats (TileRange::fits_mask)
  std::vector<std::uint32_t> count, depth_key, hist, chunk_base;
  std::vector<std::uint64_t> sorted, sorted2;  // (depth key << 32 | splat), radix-sorted by key
  std::vector<std::uint32_t> d_first, d_slot, d_tile;  // instances in depth order (binning)
  // binning's chunks of the depth order, and (without for_backward only) each chunk's first
  // place in every tile list ([chunks * tiles]), for the backward to run the scatter again
  int bin_chunks = 0;
  std::size_t bin_chunk = 0;
  std::vector<std::uint32_t> tile_base;
  // per-frame scratch of the offsets pass and the band-wise compose
  std::vector<SplatChunkSums> chunk_sums;
  std::vector<std::atomic<int>> band_done;
};
namespace {

// Stable LSD radix sort of (key << 32 | value) pairs by key, 11 bits a pass (8 below 64k
// pairs: a small input pays more for 2048 scattered write streams than for a third pass),
// for keys up to max_key (the passes above its highest bit would be the identity and are
// skipped). Each pass counts and scatters contiguous chunks of the input in parallel;
// offsets are laid out bucket-major, chunk-minor, so the result is the stable order
// whatever the chunk count.
// Key and value travel as one 64-bit word: one load and one scattered store each, where
// separate key and value arrays take two of each.
void radix_sort(std::vector<std::uint64_t>& a, std::vector<std::uint64_t>& tmp, std::vector<std::uint32_t>& hist,
                std::uint32_t max_key, int threads) {
  const std::size_t n = a.size();
  tmp.resize(n);
  const int digit_bits = n < 65536 ? 8 : 11, buckets = 1 << digit_bits;
  const int nchunks = threads <= 1 ? 1 : std::max(1, std::min(threads * 2, int(n / 32768)));
  const std::size_t chunk = (n + std::size_t(nchunks) - 1) / std::size_t(nchunks);
  hist.resize(std::size_t(nchunks) * buckets);
  for (int bit = 0; bit < 32 && (max_key >> bit) != 0; bit += digit_bits) {
    const int shift = 32 + bit;
    const std::uint64_t* in = a.data();
    std::uint64_t* out = tmp.data();
    parallel_for_chunks(nchunks, threads, [&](int c) {
      std::uint32_t* h = hist.data() + std::size_t(c) * buckets;
      std::fill(h, h + buckets, 0u);
      const std::size_t b = std::size_t(c) * chunk, e = std::min(n, b + chunk);
      for (std::size_t i = b; i < e; ++i) ++h[(in[i] >> shift) & (buckets - 1)];
    });
    std::uint32_t sum = 0;
    for (int d = 0; d < buckets; ++d)
      for (int c = 0; c < nchunks; ++c) {
        std::uint32_t& h = hist[std::size_t(c) * buckets + std::size_t(d)];
        const std::uint32_t v = h;
        h = sum;
        sum += v;
      }
    parallel_for_chunks(nchunks, threads, [&](int c) {
      std::uint32_t* h = hist.data() + std::size_t(c) * buckets;
      const std::size_t b = std::size_t(c) * chunk, e = std::min(n, b + chunk);
      for (std::size_t i = b; i < e; ++i) {
        const std::uint64_t x = in[i];
        out[h[(x >> shift) & (buckets - 1)]++] = x;
      }
    });
    a.swap(tmp);
  }
}

constexpr CpuKernels kPortableKernels{&portable::forward_tile, &portable::compose_rows, &portable::backward_tile,
                                      &portable::project_splats, &portable::large_splat_tiles, &portable::splat_vjps};
constexpr CpuKernels kAvx2Kernels{&avx2::forward_tile, &avx2::compose_rows, &avx2::backward_tile,
                                  &avx2::project_splats, &avx2::large_splat_tiles, &avx2::splat_vjps};
constexpr CpuKernels kAvx512Kernels{&avx512::forward_tile, &avx512::compose_rows, &avx512::backward_tile,
                                    &avx512::project_splats, &avx512::large_splat_tiles, &avx512::splat_vjps};
const CpuKernels& kernels_for(CpuSimd s) {
  return s == CpuSimd::kAvx512 ? kAvx512Kernels : s == CpuSimd::kAvx2 ? kAvx2Kernels : kPortableKernels;
}

SplatArrays splat_arrays(const GaussianModel& m) {
  return {m.size(),       m.means.data(), m.log_scales.data(), m.quats.data(), m.opacity_logits.data(),
          m.sh_dc.data(), m.sh_rest.data()};
}

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

// Scratch that starts on a cache line: n values from a 64-byte boundary of the vector (the
// const overload finds the same boundary again). For what tiles write while the other
// thread writes the neighbouring tiles: a tile row of the per-pixel forward state
// (T_final, ...) is 64 bytes, and at malloc's 16-byte alignment it would share a line with
// each neighbour (false sharing slows the blend); and for the backward's gradient records,
// one line each, which the tile kernels write with streaming stores.
template <class T>
T* line_aligned(std::vector<T>& v, std::size_t n) {
  T* p = grow(v, n + 64 / sizeof(T));
  return p + (64 - reinterpret_cast<std::uintptr_t>(p) % 64) % 64 / sizeof(T);
}
template <class T>
const T* line_aligned(const std::vector<T>& v) {
  const T* p = v.data();
  return p + (64 - reinterpret_cast<std::uintptr_t>(p) % 64) % 64 / sizeof(T);
}

// The binning's scatter: f(pos, i, k) for every instance, pos its place in the tile lists,
// i its splat and k its splat-major slot (the splat's first slot plus the instance's rank
// among its tiles). Chunks of the depth order run in parallel, each from its own first
// places in the tile lists (`places`, [chunks * tiles], consumed), so every pos is the
// stable one.
template <class F>
void scatter_instances(const CpuForwardState& st, std::vector<std::uint32_t>& places, int threads, F&& f) {
  const std::size_t nvis = st.sorted.size(), ntiles = std::size_t(st.tiles_x) * std::size_t(st.tiles_y);
  const std::uint64_t* sorted = st.sorted.data();
  const std::uint32_t *d_first = st.d_first.data(), *d_slot = st.d_slot.data(), *d_tile = st.d_tile.data();
  parallel_for_chunks(st.bin_chunks, threads, [&](int c) {
    std::uint32_t* h = places.data() + std::size_t(c) * ntiles;
    const std::size_t b = std::size_t(c) * st.bin_chunk, e = std::min(nvis, b + st.bin_chunk);
    for (std::size_t s = b; s < e; ++s) {
      const std::uint32_t i = std::uint32_t(sorted[s]), q1 = d_first[s + 1];
      for (std::uint32_t q = d_first[s], k = d_slot[s]; q < q1; ++q, ++k) f(h[d_tile[q]]++, i, k);
    }
  });
}

// The order in which threads take the tiles, forward and backward: most splats first
// (ties in image order), so that the dynamic schedule ends on cheap tiles. In image order a
// few expensive tiles near the end leave one thread waiting for the other. Which thread
// blends a tile does not change its bits.
void tiles_by_cost(const std::vector<std::uint32_t>& tile_offsets, std::vector<std::uint64_t>& keys,
                   std::vector<std::uint32_t>& order) {
  const std::size_t ntiles = tile_offsets.size() - 1;
  keys.resize(ntiles);
  for (std::size_t t = 0; t < ntiles; ++t) {
    const std::uint64_t splats = tile_offsets[t + 1] - tile_offsets[t];
    keys[t] = splats << 32 | std::uint32_t(ntiles - 1 - t);  // descending: the lower tile first on ties
  }
  std::sort(keys.begin(), keys.end(), std::greater<>());
  order.resize(ntiles);
  for (std::size_t i = 0; i < ntiles; ++i) order[i] = std::uint32_t(ntiles - 1) - std::uint32_t(keys[i]);
}

class CpuBackend final : public Backend {
 public:
  // threads <= 0: as many as OpenMP would use now, read at every call, so that a caller
  // can change it between frames (omp_set_num_threads; core/thread_governor.h).
  explicit CpuBackend(int threads) : requested_(threads) {}
  const char* name() const override { return "cpu"; }

  RenderOutput forward(const GaussianModel& model, const Camera& camera, const RenderSettings& settings) override {
    RenderOutput out;
    forward_into(model, camera, settings, out);
    return out;
  }
  void forward_into(const GaussianModel& model, const Camera& camera, const RenderSettings& settings,
                    RenderOutput& out) override;
  void backward(const GaussianModel& model, const Camera& camera, const RenderSettings& settings,
                const RenderOutput& out, const RenderGradIn& grad_in, ModelGrad& grad) override;
  std::unique_ptr<TrainingSession> start_training(const TrainingSetup& setup, SplatSet initial) override {
    return make_cpu_training_session(*this, setup, std::move(initial));
  }

 private:
  // A state is handed out again once no RenderOutput refers to it any more, so steady
  // rendering (training, benchmarks) reuses its buffers instead of faulting in fresh pages.
  std::shared_ptr<CpuForwardState> take_state();
  int threads() const { return requested_ > 0 ? requested_ : omp_get_max_threads(); }
  int requested_;
  int threads_ = 1;  // this call's
  std::vector<float> records_;  // backward's per-instance gradient records, reused
  std::vector<std::uint32_t> slots_, slot_work_;  // backward's record slot of each instance
  std::vector<std::shared_ptr<CpuForwardState>> pool_;
};

std::shared_ptr<CpuForwardState> CpuBackend::take_state() {
  for (auto& p : pool_)
    if (p.use_count() == 1) return p;
  auto st = std::make_shared<CpuForwardState>();
  if (pool_.size() < 3) pool_.push_back(st);
  return st;
}

// An output image of w x h x c, or none when not wanted. One that already has the size is
// kept as it is: the kernels write every pixel of every output they produce.
void output_image(ImageF& img, bool wanted, int w, int h, int c) {
  if (!wanted)
    img = ImageF();
  else if (img.width != w || img.height != h || img.channels != c ||
           img.data.size() != std::size_t(w) * std::size_t(h) * std::size_t(c))
    img = ImageF(w, h, c);
}

void CpuBackend::forward_into(const GaussianModel& model, const Camera& camera, const RenderSettings& settings,
                              RenderOutput& out) {
  check_model(model);
  if (camera.width <= 0 || camera.height <= 0 || !(camera.fx > 0) || !(camera.fy > 0))
    throw Error("rasterizer: camera '" + camera.name + "' has no valid size or focal length");
  out.saved.reset();  // so that its state can be taken again
  threads_ = threads();
  std::shared_ptr<CpuForwardState> st = take_state();
  const int W = camera.width, H = camera.height, TS = render::kTileSize;
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

  out.radii.resize(st->n);  // projection writes every splat's
  st->packed.resize(st->n);
  std::uint32_t* count = grow(st->count, st->n);
  std::uint32_t* depth_key = grow(st->depth_key, st->n);
  TileHitMask* tile_mask = grow(st->tile_mask, st->n);
  st->sh_clamped.resize(st->n);
  st->kernels = &kernels_for(active_cpu_simd());
  const CpuKernels& k = *st->kernels;
  ProjectArgs pa{};
  pa.m = splat_arrays(model);
  pa.camera = &camera;
  pa.near_plane = settings.near_plane;
  pa.sh_degree = st->sh_degree;
  pa.antialiased = settings.antialiased;
  pa.normals = settings.want_normal;
  pa.packed = st->packed.data();
  pa.radii = out.radii.data();
  pa.count = count;
  pa.depth_key = depth_key;
  pa.tile_mask = tile_mask;
  pa.sh_clamped = st->sh_clamped.data();
  k.project_splats(pa, threads_);

  // Per-splat instance offsets, and the visible splats with their depth keys, in two
  // chunked passes (sums, then writes from each chunk's prefix): as serial loops over every
  // splat they were a visible share of a large forward.
  st->splat_inst_offsets.resize(st->n + 1);
  const int nsplat_chunks = std::max(1, std::min(threads_ * 4, n / 8192));
  const auto splat_chunk = [&](int c) {
    return std::pair<int, int>(int(std::int64_t(n) * c / nsplat_chunks), int(std::int64_t(n) * (c + 1) / nsplat_chunks));
  };
  std::vector<SplatChunkSums>& sums = st->chunk_sums;
  sums.assign(std::size_t(nsplat_chunks) + 1, SplatChunkSums{});
  parallel_for_chunks(nsplat_chunks, threads_, [&](int c) {
    const auto [b, e] = splat_chunk(c);
    SplatChunkSums cs;
    for (int i = b; i < e; ++i) {
      cs.instances += count[i];
      cs.visible += count[i] > 0;
      if (count[i] > 0) {
        cs.min_key = std::min(cs.min_key, depth_key[i]);
        cs.max_key = std::max(cs.max_key, depth_key[i]);
      }
    }
    sums[std::size_t(c) + 1] = cs;
  });
  std::uint32_t min_key = std::numeric_limits<std::uint32_t>::max(), max_key = 0;
  for (int c = 0; c < nsplat_chunks; ++c) {  // exclusive prefix over the chunks
    SplatChunkSums& next = sums[std::size_t(c) + 1];
    min_key = std::min(min_key, next.min_key);
    max_key = std::max(max_key, next.max_key);
    next.instances += sums[std::size_t(c)].instances;
    next.visible += sums[std::size_t(c)].visible;
  }
  const std::uint64_t total = sums.back().instances;
  const std::int64_t visible = sums.back().visible;
  if (total > std::numeric_limits<std::uint32_t>::max() / 2) throw Error("rasterizer: too many tile instances");
  st->splat_inst_offsets[st->n] = std::uint32_t(total);
  // Depth order of the visible splats: keys are the float bits of z (z >= near > 0, so they
  // sort like the floats) less the smallest, so the radix sort skips the digits above the
  // range of the keys (two passes instead of three where the depths lie within a factor of
  // about two).
  std::vector<std::uint64_t>& sorted = st->sorted;
  sorted.resize(std::size_t(visible));
  parallel_for_chunks(nsplat_chunks, threads_, [&](int c) {
    const auto [b, e] = splat_chunk(c);
    std::uint32_t off = std::uint32_t(sums[std::size_t(c)].instances), j = sums[std::size_t(c)].visible;
    for (int i = b; i < e; ++i) {
      st->splat_inst_offsets[std::size_t(i)] = off;
      off += count[i];
      if (count[i] > 0) sorted[j++] = std::uint64_t(depth_key[i] - min_key) << 32 | std::uint32_t(i);
    }
  });

  radix_sort(sorted, st->sorted2, st->hist, visible > 0 ? max_key - min_key : 0, threads_);

  // stable counting sort of instances into tiles, chunked over the depth order. The
  // instances' tiles are first listed in depth order (from each splat's tile mask, whose
  // loads are independent and overlap), so the count and scatter passes read them
  // sequentially.
  const std::size_t nvis = sorted.size();
  std::uint32_t* d_first = grow(st->d_first, nvis + 1);  // first depth-major instance of rank s
  std::uint32_t* d_slot = grow(st->d_slot, nvis);        // its first splat-major slot
  const std::uint32_t* offs = st->splat_inst_offsets.data();
  // Chunks by the splats and by their tiles: a few hundred large splats (shapes_colmap's
  // 836, 13k instances) are worth threads, the same number of small ones are not.
  const int nchunks = std::max(1, std::min(threads_ * 4, int((nvis + total / 8) / 2048) + 1));
  const std::size_t chunk = (nvis + std::size_t(nchunks) - 1) / std::size_t(nchunks);
  // exclusive prefix of the counts in depth order: chunk sums, their prefix, then each chunk
  std::vector<std::uint32_t>& chunk_base = st->chunk_base;
  chunk_base.assign(std::size_t(nchunks) + 1, 0u);
  parallel_for_chunks(nchunks, threads_, [&](int c) {
    const std::size_t b = std::size_t(c) * chunk, e = std::min(nvis, b + chunk);
    std::uint32_t sum = 0;
    for (std::size_t s = b; s < e; ++s) {  // count[i] is offs[i + 1] - offs[i]: one random line, not two
      const std::uint32_t i = std::uint32_t(sorted[s]), o = offs[i], n_i = offs[i + 1] - o;
      d_slot[s] = o;
      d_first[s] = n_i;
      sum += n_i;
    }
    chunk_base[std::size_t(c) + 1] = sum;
  });
  for (int c = 0; c < nchunks; ++c) chunk_base[std::size_t(c) + 1] += chunk_base[std::size_t(c)];
  d_first[nvis] = chunk_base[std::size_t(nchunks)];
  std::uint32_t* d_tile = grow(st->d_tile, total);
  std::vector<std::uint32_t>& cnt = st->hist;
  cnt.assign(std::size_t(nchunks) * std::size_t(ntiles), 0u);
  // each chunk in one pass: the prefix of its counts, its splats' tiles listed in depth
  // order, and a histogram of those tiles. The tiles come from the projection's tile masks
  // (large splats are tested again): listing them per splat in splat order first, and then
  // copying them into depth order, was slower, and so is this pass without its prefetch.
  const TileListArgs la{W, H, st->packed.data()};
  const int tiles_x = st->tiles_x;
  parallel_for_chunks(nchunks, threads_, [&](int c) {
    const std::size_t b = std::size_t(c) * chunk, e = std::min(nvis, b + chunk);
    std::uint32_t* h = cnt.data() + std::size_t(c) * std::size_t(ntiles);
    std::uint32_t acc = chunk_base[std::size_t(c)];
    for (std::size_t s = b; s < e; ++s) {
      // masks are read in depth order, scattered: fetch ahead, since the branches of the
      // expansion mispredict and would otherwise keep the next loads from starting
      if (s + 16 < e) __builtin_prefetch(&tile_mask[std::uint32_t(sorted[s + 16])]);
      const std::uint32_t i = std::uint32_t(sorted[s]);
      std::uint32_t* dst = d_tile + acc;
      const std::uint32_t n_s = tile_mask[i].ntx > 0 ? mask_tiles(tile_mask[i], tiles_x, dst)
                                                     : k.large_splat_tiles(la, int(i), dst);
      d_first[s] = acc;
      for (std::uint32_t j = 0; j < n_s; ++j) ++h[dst[j]];
      acc += n_s;
    }
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
  tiles_by_cost(st->tile_offsets, st->tile_keys, st->tile_order);
  // Each tile-list entry's splat, and for a backward its record's splat-major slot: the
  // splat's first slot plus the entry's rank among the splat's tiles. Without for_backward
  // only the splats (the backward would run this scatter again for the slots): half the
  // scattered writes.
  st->bin_chunks = nchunks;
  st->bin_chunk = chunk;
  if (!settings.for_backward) st->tile_base = cnt;  // the backward's copy of the first places
  st->inst_splat.resize(total);
  std::uint32_t* inst_splat = st->inst_splat.data();
  if (settings.for_backward) {
    std::uint32_t* inst_slot = grow(st->inst_slot, std::max<std::uint64_t>(1, total));
    scatter_instances(*st, cnt, threads_, [=](std::uint32_t pos, std::uint32_t i, std::uint32_t k) {
      inst_splat[pos] = i;
      inst_slot[pos] = k;
    });
  } else {
    scatter_instances(*st, cnt, threads_, [=](std::uint32_t pos, std::uint32_t i, std::uint32_t) { inst_splat[pos] = i; });
  }

  // blend
  const std::size_t P = std::size_t(W) * std::size_t(H);
  output_image(out.rgb, true, W, H, 3);
  output_image(out.alpha, settings.want_alpha, W, H, 1);
  output_image(out.depth, settings.want_depth, W, H, 1);
  output_image(out.median_depth, settings.want_median_depth, W, H, 1);
  output_image(out.normal, settings.want_normal, W, H, 3);
  output_image(out.count, settings.want_count, W, H, 1);
  output_image(out.distortion, settings.want_distortion, W, H, 1);
  float* T_final = line_aligned(st->T_final, P);
  float* C_final = line_aligned(st->C_final, 3 * P);
  float* S_final = settings.want_depth ? line_aligned(st->S_final, P) : nullptr;
  float* N_final = settings.want_normal ? line_aligned(st->N_final, 3 * P) : nullptr;
  float* L_final = settings.want_distortion ? line_aligned(st->L_final, P) : nullptr;
  float* R_final = settings.want_distortion ? line_aligned(st->R_final, P) : nullptr;
  std::int32_t* median_inst = settings.want_median_depth ? line_aligned(st->median_inst, P) : nullptr;

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
  fa.inst_groups = grow(st->inst_groups, std::max<std::uint64_t>(1, total));
  fa.tile_stop = grow(st->tile_stop, std::size_t(ntiles));
  const unsigned flags = st->flags;
  // The colour over the background and alpha (compose_rows, which says why it is a pass of
  // its own) of each band of tile rows, by the thread that finishes the band's last tile:
  // the band's transmittance and colour are still in cache, and the pass overlaps the
  // other tiles, where a pass over the whole image after the tiles would run alone and
  // read them back from memory.
  // The count is acq_rel so the composing thread sees every tile of the band.
  std::vector<std::atomic<int>>& band_done = st->band_done;
  if (band_done.size() < std::size_t(st->tiles_y)) band_done = std::vector<std::atomic<int>>(std::size_t(st->tiles_y));
  for (int b = 0; b < st->tiles_y; ++b) band_done[std::size_t(b)].store(0, std::memory_order_relaxed);
  const std::uint32_t* order = st->tile_order.data();
  parallel_for_tiles(ntiles, threads_, [&](int i) {
    const int t = int(order[i]);
    k.forward_tile(fa, t, flags);
    const int band = t / tiles_x;
    if (band_done[std::size_t(band)].fetch_add(1, std::memory_order_acq_rel) + 1 == tiles_x)
      k.compose_rows(fa, band * TS, std::min(H, (band + 1) * TS));
  });

  out.num_visible = visible;
  out.num_instances = std::int64_t(total);
  out.saved = std::move(st);
}

void CpuBackend::backward(const GaussianModel& model, const Camera& camera, const RenderSettings& settings,
                          const RenderOutput& out, const RenderGradIn& gin, ModelGrad& grad) {
  if (!out.saved) throw Error("rasterizer backward: the RenderOutput holds no forward state");
  const auto* st = dynamic_cast<const CpuForwardState*>(out.saved.get());
  if (!st) throw Error("rasterizer backward: the RenderOutput's forward state is another backend's");
  if (st->n != model.size() || st->model_means != model.means.data() || st->width != camera.width ||
      st->height != camera.height)
    throw Error("rasterizer backward: model or camera differ from the forward pass");
  if ((gin.d_depth && !st->settings.want_depth) || (gin.d_median_depth && !st->settings.want_median_depth) ||
      (gin.d_normal && !st->settings.want_normal) || (gin.d_distortion && !st->settings.want_distortion))
    throw Error("rasterizer backward: gradient given for an output that forward did not render");
  (void)settings;
  grad.resize(st->n, st->settings.want_mean2d_abs);
  threads_ = threads();
  const int ntiles = st->tiles_x * st->tiles_y;
  const std::size_t ninst = st->inst_splat.size();
  // one cache line per record, written whole with streaming stores (store_record)
  float* records = line_aligned(records_, std::max<std::size_t>(1, ninst * kRecordFloats));

  TileBackwardArgs ba{};
  ba.splats = st->packed.data();
  ba.inst_splat = st->inst_splat.data();
  ba.tile_offsets = st->tile_offsets.data();
  ba.width = st->width;
  ba.height = st->height;
  ba.tiles_x = st->tiles_x;
  for (int c = 0; c < 3; ++c) ba.bg[c] = st->settings.background[c];
  ba.T_final = line_aligned(st->T_final);
  ba.C_final = line_aligned(st->C_final);
  ba.S_final = st->settings.want_depth ? line_aligned(st->S_final) : nullptr;
  ba.N_final = st->settings.want_normal ? line_aligned(st->N_final) : nullptr;
  ba.L_final = st->settings.want_distortion ? line_aligned(st->L_final) : nullptr;
  ba.R_final = st->settings.want_distortion ? line_aligned(st->R_final) : nullptr;
  ba.median_inst = st->settings.want_median_depth ? line_aligned(st->median_inst) : nullptr;
  ba.d_rgb = gin.d_rgb;
  ba.d_alpha = gin.d_alpha;
  ba.d_depth = gin.d_depth;
  ba.d_median = gin.d_median_depth;
  ba.d_normal = gin.d_normal;
  ba.d_distortion = gin.d_distortion;
  if (st->settings.for_backward) {
    ba.inst_slot = st->inst_slot.data();
  } else {  // the forward skipped the record slots: the same scatter as there
    std::uint32_t* slots = grow(slots_, std::max<std::size_t>(1, ninst));
    slot_work_ = st->tile_base;
    scatter_instances(*st, slot_work_, threads_, [=](std::uint32_t pos, std::uint32_t, std::uint32_t k) { slots[pos] = k; });
    ba.inst_slot = slots;
  }
  ba.inst_groups = st->inst_groups.data();
  ba.tile_stop = st->tile_stop.data();
  ba.want_abs = st->settings.want_mean2d_abs;
  ba.records = records;
  const unsigned flags = st->flags & kBackwardFlags;
  const CpuKernels& k = *st->kernels;
  const std::uint32_t* order = st->tile_order.data();
  parallel_for_tiles(ntiles, threads_, [&](int i) { k.backward_tile(ba, int(order[i]), flags); });

  VjpArgs va{};
  va.m = splat_arrays(model);
  va.camera = &camera;
  va.near_plane = st->settings.near_plane;
  va.sh_degree = st->sh_degree;
  va.antialiased = st->settings.antialiased;
  va.splat_inst_offsets = st->splat_inst_offsets.data();
  va.sh_clamped = st->sh_clamped.data();
  va.records = records;
  va.packed = st->packed.data();
  va.g = {grad.means.data(),  grad.log_scales.data(), grad.quats.data(),  grad.opacity_logits.data(),
          grad.sh_dc.data(),  grad.sh_rest.data(),    grad.mean2d.data(),
          st->settings.want_mean2d_abs ? grad.mean2d_abs.data() : nullptr};
  const int sh_rest_used = 3 * ((st->sh_degree + 1) * (st->sh_degree + 1) - 1);  // floats of the degree
  va.sh_rest_floats = std::clamp(std::max(sh_rest_used, grad.sh_rest_live), 0, 3 * kShRestCoeffs);
  k.splat_vjps(va, threads_);
  grad.sh_rest_live = sh_rest_used;
}

}  // namespace
}  // namespace cpu

std::unique_ptr<Backend> make_cpu_backend(int threads) { return std::make_unique<cpu::CpuBackend>(threads); }

}  // namespace glint

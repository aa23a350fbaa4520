#pragma once
// Data the CPU tile kernels share with the launcher: one packed record a splat (a cache
// line), argument blocks, and the signatures of the per-ISA entry points (raster_portable.cpp,
// raster_avx2.cpp and raster_avx512.cpp compile the same kernel body, raster_kernels_impl.h,
// for three targets, and each exports its entries as one table, splat_kernels.h).
#include <cstdint>

#include "glint/backend/render_outputs.h"

namespace glint::cpu {

struct alignas(64) SplatPacked {
  float mx, my;        // 2D mean
  float A, B, C;       // conic
  float opacity;       // effective opacity
  float power_cut;     // cut on the Gaussian exponent
  float z;             // view depth
  float r, g, b;       // colour
  float nx, ny, nz;    // world-space normal facing the camera
  float ext_x, ext_y;  // half extents of the cut ellipse's bounding box
};
static_assert(sizeof(SplatPacked) == 64);

// The tile kernels' flags: bit aov::kernel_flag(id) set when output id is wanted
// (backend/render_outputs.h). Each flag combination is a build of the kernel of its own.
// The bits backward reads come first, so `flags & kBackwardFlags` indexes its table.
inline constexpr unsigned kForwardFlags = aov::kForwardKernelFlags, kBackwardFlags = aov::kBackwardKernelFlags;

// Per (tile, splat) gradient record: sums over the tile's pixels, which the VJP adds up over
// the splat's tiles. The first six are render::AlphaMoments (p, p dx, p dy, p dx^2, p dx dy,
// p dy^2): the VJP turns their sums into the 2D mean, conic and opacity gradients once per
// splat. AbsX/Y are the sums of |p (A dx + B dy)| and |p (B dx + C dy)|, the per-pixel
// |dL/dmean2d| without the opacity (a common factor), and stay 0 unless asked for.
inline constexpr int kRecordFloats = 16;
enum RecordField : int {
  kRecP = 0, kRecPx, kRecPy, kRecPxx, kRecPxy, kRecPyy, kRecR, kRecG, kRecBlue, kRecZ,
  kRecNx, kRecNy, kRecNz, kRecAbsX, kRecAbsY
};

struct TileForwardArgs {
  const SplatPacked* splats;
  const std::uint32_t* inst_splat;    // instance -> splat, tile-major, depth-sorted per tile
  const std::uint32_t* tile_offsets;  // [tiles + 1]
  int width, height, tiles_x;
  float bg[3];
  // outputs, [H*W*C]; null when not wanted (rgb too). rgb and the outputs of source
  // `final` (alpha) are written by compose_rows after the tiles, the others by forward_tile.
  float* rgb;
  float* out[aov::kCount];
  // state saved for backward, [H*W*C]
  float* T_final;
  float* C_final;
  // [H*W*saved_words] per output (null when it saves nothing or is not wanted):
  //   depth: S = sum w z;  normal: sum w n (the output itself);  distortion: the
  //   distortion, then R = sum w (z - z of the pixel's first blended splat);
  //   median_depth: the instance index of the median step (int32 bits), -1 if none
  float* saved[aov::kCount];
  // [instances] bit gi (a lane group of the tile, row-major) set where the instance's step
  // on that group blended or stopped a pixel; written up to tile_stop only
  std::uint32_t* inst_groups;
  // [tiles] one past the last instance the tile's blend reached: it ends where every pixel
  // of the tile has finished
  std::uint32_t* tile_stop;
  // RenderSettings::median_depth_only: a pixel finishes at its median step.
  bool stop_at_median;
};

struct TileBackwardArgs {
  const SplatPacked* splats;
  const std::uint32_t* inst_splat;
  const std::uint32_t* tile_offsets;
  int width, height, tiles_x;
  float bg[3];
  const float* T_final;
  const float* C_final;
  const float* saved[aov::kCount];  // as TileForwardArgs::saved
  // upstream gradients (null = zero)
  const float* d_rgb;
  const float* d_out[aov::kCount];
  const std::uint32_t* inst_groups;  // from the forward: the only groups backward replays
  const std::uint32_t* tile_stop;    // from the forward: instances past it get zero records
  const std::uint32_t* inst_slot;  // [instances] where instance p's record goes (splat-major)
  bool want_abs;                   // fill kRecAbsX/Y (else they stay 0)
  float* records;  // [instances * kRecordFloats], 64-byte aligned; every record of the tile is written
};

using ForwardTileFn = void (*)(const TileForwardArgs&, int tile, unsigned flags);
// rgb (C + T bg) and alpha (1 - T) of rows [y0, y1) from T_final and C_final, after the
// forward tiles
using ComposeRowsFn = void (*)(const TileForwardArgs&, int y0, int y1);
using BackwardTileFn = void (*)(const TileBackwardArgs&, int tile, unsigned flags);
// A splat's pixel box (render::splat_pixel_rect, inclusive) and the tiles it spans. Plain
// ints rather than render::PixelRect: the AVX2 build's render/ types have other names.
struct TileRange {
  int x0, y0, x1, y1;
  int tx0, ty0, ntx, nty;
  bool fits_mask() const { return ntx * nty <= 64; }
};
// The tiles a splat of at most 64 tiles hits, from projection to the tile lists: bit
// j * ntx + i is tile first + j * tiles_x + i. ntx = 0 for larger splats.
struct TileHitMask {
  std::uint64_t bits;
  std::uint32_t first, ntx;
};
// Writes the tiles of a mask (ntx > 0) from out, in row-major tile order; returns how many.
inline std::uint32_t mask_tiles(const TileHitMask& hm, int tiles_x, std::uint32_t* out) {
  const std::uint64_t row_bits = hm.ntx == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << hm.ntx) - 1;
  std::uint64_t bits = hm.bits;
  std::uint32_t o = 0;
  for (std::uint32_t row = hm.first; bits; row += std::uint32_t(tiles_x)) {  // no division per tile
    for (std::uint64_t b = bits & row_bits; b; b &= b - 1) out[o++] = row + std::uint32_t(__builtin_ctzll(b));
    bits = hm.ntx == 64 ? 0 : bits >> hm.ntx;
  }
  return o;
}

// Which of the range's tiles k = (ty - ty0) * ntx + (tx - tx0) in [first, first + 64) the
// splat's cut ellipse can reach (render::ellipse_hits_rect on the pixel centres of each
// tile inside the box), as bit k - first; first < ntx * nty. One call covers a range of at
// most 64 tiles; larger ranges take one call per 64. Each build's entry is in its
// CpuKernels table (splat_kernels.h).
using TileHitsFn = std::uint64_t (*)(const SplatPacked&, const TileRange&, int first);

}  // namespace glint::cpu

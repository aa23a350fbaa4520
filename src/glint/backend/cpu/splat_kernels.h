#pragma once
// The CPU backend's per-splat kernels: projection (with the tile hit tests), the per-splat
// tile lists, and the gradient VJP. Like the tile kernels they are compiled once per
// instruction set (raster_portable.cpp, raster_avx2.cpp and raster_avx512.cpp include
// splat_kernels_impl.h), so the eight-splat lanes fill one AVX register where the CPU has
// one. The interface is plain arrays: render/ and lane types have other names in the AVX2
// and AVX-512 builds (render/isa.h).
#include <cstddef>
#include <cstdint>

#include "glint/backend/cpu/raster_tiles.h"
#include "glint/core/camera.h"

namespace glint::cpu {

// A GaussianModel's parameters (n splats), and its gradient's.
struct SplatArrays {
  std::size_t n;
  const float *means, *log_scales, *quats, *opacity_logits, *sh_dc, *sh_rest;
};
struct SplatGradArrays {
  float *means, *log_scales, *quats, *opacity_logits, *sh_dc, *sh_rest, *mean2d;
  float* mean2d_abs;  // null: not wanted
};

struct ProjectArgs {
  SplatArrays m;
  const Camera* camera;
  float near_plane;
  int sh_degree;
  bool antialiased, normals;
  // outputs, [n]; a culled splat gets count 0 and radius 0 and nothing else
  SplatPacked* packed;
  int* radii;
  std::uint32_t* count;        // tiles hit
  std::uint32_t* depth_key;    // float bits of the view depth
  TileHitMask* tile_mask;      // which tiles, for splats of at most 64
  std::uint8_t* sh_clamped;    // bit c: colour channel c was clamped at 0
};

// The tiles of splats without a TileHitMask (more than 64 tiles in their box).
struct TileListArgs {
  int width, height;
  const SplatPacked* packed;
};

struct VjpArgs {
  SplatArrays m;
  const Camera* camera;
  float near_plane;
  int sh_degree;
  bool antialiased;
  const std::uint32_t* splat_inst_offsets;  // [n + 1] each splat's records
  const std::uint8_t* sh_clamped;           // from the forward
  const SplatPacked* packed;                // from the forward: conic and opacity
  const float* records;                     // [instances * kRecordFloats], splat-major
  SplatGradArrays g;                        // out, [n] each
  int sh_rest_floats;  // of each splat's sh_rest gradient row written (the rest hold zeros)
};

// project_splats and splat_vjps run over all splats with `threads` OpenMP threads.
using ProjectSplatsFn = void (*)(const ProjectArgs&, int threads);
// Writes the tiles splat i hits from out, row-major; returns how many. For splats without
// a tile mask (the binning expands the masks of all others itself).
using LargeSplatTilesFn = std::uint32_t (*)(const TileListArgs&, int i, std::uint32_t* out);
using SplatVjpsFn = void (*)(const VjpArgs&, int threads);

// Every kernel of one build (portable, AVX2 or AVX-512). A forward records the set it used
// and its backward runs the same one: the portable and AVX builds round the alpha math
// differently, and the backward must replay the forward's decisions exactly.
struct CpuKernels {
  ForwardTileFn forward_tile;
  ComposeRowsFn compose_rows;
  BackwardTileFn backward_tile;
  TileHitsFn tile_hits;
  ProjectSplatsFn project_splats;
  LargeSplatTilesFn large_splat_tiles;
  SplatVjpsFn splat_vjps;
};

// The table each build exports, the only name it exports: raster_portable.cpp,
// raster_avx2.cpp and raster_avx512.cpp (a build the target cannot have hands out the next
// one down).
namespace portable {
const CpuKernels& kernels();
}
namespace avx2 {
const CpuKernels& kernels();
}
namespace avx512 {
const CpuKernels& kernels();
}

}  // namespace glint::cpu

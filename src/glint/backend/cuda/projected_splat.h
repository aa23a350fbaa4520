#pragma once
// One splat after projection, as the CUDA backend's stages pass it from the project stage
// to the tile lists and the blend: written by both the device and (emulated) host code, so
// its layout is pinned.
#include <cstddef>
#include <cstdint>

#include "glint/backend/cuda/cuda_namespace.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

struct ProjectedSplat {
  float mx, my;          // 2D mean, pixels
  float conic[3];        // A, B, C
  float depth;           // view z
  float opacity;
  float power_cut;
  float ext_x, ext_y;    // half extents of the cut ellipse's box, pixels
  std::uint32_t tiles;   // tiles its cut ellipse reaches (0: not drawn)
  std::int32_t radius;   // ceil(max extent) when drawn, else 0 (RenderOutput::radii)
  float rgb[3];          // colour from SH for this camera, clamped at 0
  float normal[3];       // render::splat_normal (world space, facing the camera) when drawn
  std::uint32_t pad[2] = {0, 0};
};

static_assert(sizeof(ProjectedSplat) == 80);
static_assert(offsetof(ProjectedSplat, conic) == 8 && offsetof(ProjectedSplat, depth) == 20);
static_assert(offsetof(ProjectedSplat, ext_x) == 32 && offsetof(ProjectedSplat, tiles) == 40);
static_assert(offsetof(ProjectedSplat, radius) == 44 && offsetof(ProjectedSplat, rgb) == 48);
static_assert(offsetof(ProjectedSplat, normal) == 60);

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda

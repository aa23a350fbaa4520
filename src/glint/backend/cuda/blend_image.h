#pragma once
// The image the blend stages write, as its kernels take it (one block a 16x16 tile).
#include <cstdint>

#include "glint/backend/cuda/cuda_namespace.h"
#include "glint/core/hd.h"
#include "glint/render/view.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

struct BlendImage {
  std::int32_t width, height, tiles_x;
  float background[3];
};
static_assert(sizeof(BlendImage) == 24);

inline constexpr unsigned kBlendThreads = render::kTileSize * render::kTileSize;

// The pixel thread t of the block for `tile` works on.
struct TilePixel {
  int x, y;
  bool inside;     // in the image (edge tiles have threads past it)
  float cx, cy;    // its centre
  std::uint32_t index;  // y * width + x where inside, else 0
};
GLINT_HD inline TilePixel tile_pixel(const BlendImage& img, std::uint32_t tile, std::uint32_t t) {
  const int TS = render::kTileSize;
  TilePixel p;
  p.x = static_cast<int>(tile % static_cast<std::uint32_t>(img.tiles_x)) * TS + static_cast<int>(t) % TS;
  p.y = static_cast<int>(tile / static_cast<std::uint32_t>(img.tiles_x)) * TS + static_cast<int>(t) / TS;
  p.inside = p.x < img.width && p.y < img.height;
  p.cx = static_cast<float>(p.x) + 0.5f;
  p.cy = static_cast<float>(p.y) + 0.5f;
  p.index = p.inside ? static_cast<std::uint32_t>(p.y * img.width + p.x) : 0u;
  return p;
}

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda

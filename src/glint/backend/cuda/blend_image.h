#pragma once
// The image the blend stages write, as its kernels take it (one block a 16x16 tile).
#include <cstdint>

#include "glint/render/view.h"

namespace glint::cuda {

struct BlendImage {
  std::int32_t width, height, tiles_x;
  float background[3];
};
static_assert(sizeof(BlendImage) == 24);

inline constexpr unsigned kBlendThreads = render::kTileSize * render::kTileSize;

}  // namespace glint::cuda

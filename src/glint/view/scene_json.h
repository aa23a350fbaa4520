#pragma once
// The cameras the page can snap to, as JSON: OpenCV axes, world-to-camera R (row-major)
// and t, pinhole intrinsics in pixels, exactly the glint::Camera the renderer uses.
//   {"background": [r, g, b], "cameras": [{"name", "width", "height", "fx", "fy", "cx",
//    "cy", "R": [9], "t": [3], "split"}, ...]}
// `split` names each camera's split ("train", "test", or "cameras" for a cameras.json).
#include <array>
#include <string>
#include <vector>

#include "glint/core/camera.h"

namespace glint::view {

std::string cameras_to_json(const std::vector<Camera>& cameras, const std::vector<std::string>& split,
                            const std::array<float, 3>& background);

}  // namespace glint::view

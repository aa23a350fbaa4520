#pragma once
// cameras.json: the cameras a scene was trained with, in the layout graphdeco's trainer
// writes (id, img_name, width, height, position = camera centre, rotation = camera-to-
// world rotation with OpenCV axes, fx, fy), plus cx and cy, which graphdeco omits because
// it assumes a centred principal point. `glint render` reads it back.
#include <string>
#include <vector>

#include "glint/core/camera.h"

namespace glint {

std::string cameras_to_json(const std::vector<Camera>& cameras);
void write_cameras_json(const std::string& path, const std::vector<Camera>& cameras);  // atomic

// Accepts files without cx/cy (centred principal point). Throws glint::Error naming the
// file for malformed content.
std::vector<Camera> read_cameras_json(const std::string& path);

}  // namespace glint

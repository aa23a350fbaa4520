#pragma once
// Sparse point clouds stored as PLY (Blender sets' points3d.ply, nerfstudio's
// ply_file_path): positions and, when present, 8-bit colours.
#include <string>

#include "glint/io/colmap.h"

namespace glint {

// Reads the vertex element's x, y, z and red, green, blue (grey when absent). Throws
// glint::Error naming the file for bad input, including a cloud with no points.
PointCloud read_point_cloud_ply(const std::string& path);

}  // namespace glint

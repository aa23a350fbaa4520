#pragma once
// NeRF-style camera files: nerfstudio / instant-ngp `transforms.json` and Blender /
// NeRF-synthetic `transforms_{train,val,test}.json`. One reader serves both: they differ
// only in which intrinsics keys they use, and those may be global or per frame.
#include <string>
#include <vector>

#include "glint/io/posed_image.h"

namespace glint {

struct TransformsFile {
  std::vector<PosedImage> frames;
  std::string ply_path;  // resolved `ply_file_path`, empty when absent
};

// Throws glint::Error naming the file (and the frame) for malformed json, missing keys,
// non-finite values or unsupported camera models.
TransformsFile read_transforms_json(const std::string& path);

}  // namespace glint

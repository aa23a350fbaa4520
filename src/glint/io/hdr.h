#pragma once
// Radiance RGBE (.hdr) images, the other common format of HDR environment maps besides PFM.
// Decoded to linear float RGB, rows top-to-bottom like every other Glint image.
#include <string>

#include "glint/core/image.h"

namespace glint {

// Throws glint::Error(path, why) when the file is missing or not a decodable .hdr.
ImageF read_radiance_hdr(const std::string& path);

}  // namespace glint

#pragma once
// OpenEXR images (through Debian's OpenEXR library): the format most HDR environment maps
// and renderers' outputs come in. Decoded to linear float RGB, rows top-to-bottom like
// every other Glint image.
#include <string>

#include "glint/core/image.h"

namespace glint {

// The first part's data window as float RGB: channels R, G and B (any pixel type), or a
// luminance-only image's Y repeated in all three. Other channels (alpha, depth, layers) are
// ignored. Throws glint::Error(path, why) when the file is missing, not a decodable
// OpenEXR file, or has neither R, G and B nor Y.
ImageF read_openexr(const std::string& path);

}  // namespace glint

#pragma once
// Reading and writing image files (PNG, JPEG and the other formats stb_image decodes).
#include <string>

#include "glint/core/image.h"

namespace glint {

struct ImageInfo {
  int width = 0, height = 0, channels = 0;
};

// Reads only the header; throws glint::Error naming the file when it is missing or not a
// readable image.
ImageInfo read_image_info(const std::string& path);

// Decodes to 8-bit with the file's own channel count (1-4).
Image8 read_image(const std::string& path);

// Encodes an 8-bit image (1-4 channels) as PNG bytes. `effort`: stb's zlib quality, the
// hash chain length it searches (5, its least, to 8, its default; the pixels are the same,
// the files a little larger and faster to write). Calls that run at the same time must
// pass the same effort (stb keeps it in a global).
inline constexpr int kPngDefaultEffort = 8, kPngFastEffort = 5;
std::string encode_png(const Image8& image, int effort = kPngDefaultEffort);

}  // namespace glint

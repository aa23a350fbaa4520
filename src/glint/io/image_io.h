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

// Encodes an 8-bit image (1-4 channels) as PNG bytes.
std::string encode_png(const Image8& image);
// Encodes an 8-bit grey or RGB image as baseline JPEG at `quality` (1-100).
std::string encode_jpeg(const Image8& image, int quality);
// The same pixels through zlib's fastest level (every row Paeth-filtered, as encode_png
// does), for outputs whose write time counts (glint relight's images): far less deflate
// work than stb's (on relit images the files also come out smaller). Tall images are cut
// into up to four bands of rows deflated on separate threads and joined into one stream;
// the bands depend on the height only, so the bytes do not depend on the thread count.
std::string encode_png_fast(const Image8& image);

}  // namespace glint

#include "glint/io/image_io.h"

#include <stb_image.h>
#include <stb_image_write.h>

#include <algorithm>
#include <filesystem>

#include "glint/core/error.h"

namespace glint {

namespace {

// stb's reason for its last failure on this thread; it gives none for some broken files
// (a PNG cut short inside its pixel data: an empty string).
std::string stb_reason() {
  const char* r = stbi_failure_reason();
  return r && *r ? r : "corrupt or truncated data";
}

void check_exists(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw Error(path, "image file is missing");
}

}  // namespace

ImageInfo read_image_info(const std::string& path) {
  check_exists(path);
  ImageInfo info;
  if (!stbi_info(path.c_str(), &info.width, &info.height, &info.channels))
    throw Error(path, "not a readable image (" + stb_reason() + ")");
  return info;
}

Image8 read_image(const std::string& path) {
  check_exists(path);
  int w = 0, h = 0, c = 0;
  unsigned char* pixels = stbi_load(path.c_str(), &w, &h, &c, 0);
  if (!pixels) throw Error(path, "cannot decode image (" + stb_reason() + ")");
  Image8 img;
  img.width = w;
  img.height = h;
  img.channels = c;
  img.data.assign(pixels, pixels + static_cast<std::size_t>(w) * h * c);
  stbi_image_free(pixels);
  return img;
}

std::string encode_png(const Image8& image, int effort) {
  // stb tries all five row filters and keeps the smallest row; Paeth alone gives files
  // within a few per mille of that on rendered images and skips four trial encodings a row.
  static const bool paeth = (stbi_write_force_png_filter = 4, true);
  (void)paeth;
  stbi_write_png_compression_level = std::clamp(effort, kPngFastEffort, kPngDefaultEffort);
  std::string out;
  auto sink = [](void* ctx, void* data, int size) {
    static_cast<std::string*>(ctx)->append(static_cast<const char*>(data), static_cast<std::size_t>(size));
  };
  if (!stbi_write_png_to_func(sink, &out, image.width, image.height, image.channels, image.data.data(),
                              image.width * image.channels))
    throw Error("PNG encoder failed");
  return out;
}

}  // namespace glint

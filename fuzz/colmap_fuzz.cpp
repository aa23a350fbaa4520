// libFuzzer target for the COLMAP binary readers. The first byte picks the file kind
// (cameras.bin, images.bin, points3D.bin); the rest is the file. glint::Error is the
// expected answer to bad bytes; a crash, sanitizer report or other exception is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "glint/core/error.h"
#include "glint/io/colmap.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    switch (data[0] % 3) {
      case 0: glint::parse_cameras_bin(bytes, "cameras.bin"); break;
      case 1: glint::parse_images_bin(bytes, "images.bin"); break;
      default: glint::parse_points3d_bin(bytes, "points3D.bin"); break;
    }
  } catch (const glint::Error&) {
  }
  return 0;
}

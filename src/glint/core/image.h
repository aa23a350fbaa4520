#pragma once
// Images in memory: 8-bit for datasets (a float copy of a whole dataset would not fit),
// float for renders and losses. Interleaved channels, rows top to bottom.
#include <cstdint>
#include <vector>

#include "glint/core/uninitialized_allocator.h"

namespace glint {

struct Image8 {
  int width = 0, height = 0, channels = 0;
  std::vector<std::uint8_t> data;
  std::uint8_t* row(int y) { return data.data() + static_cast<std::size_t>(y) * width * channels; }
  const std::uint8_t* row(int y) const { return data.data() + static_cast<std::size_t>(y) * width * channels; }
  bool operator==(const Image8&) const = default;
};

struct ImageF {
  int width = 0, height = 0, channels = 0;
  UninitializedVector<float> data;  // a resize without a value leaves new values unset
  ImageF() = default;
  ImageF(int w, int h, int c, float v = 0.f)
      : width(w), height(h), channels(c), data(static_cast<std::size_t>(w) * h * c, v) {}
  // For an image its writer fills in full (a rasterizer's output): its values are unset.
  static ImageF uninitialized(int w, int h, int c) {
    ImageF img;
    img.width = w;
    img.height = h;
    img.channels = c;
    img.data.resize(static_cast<std::size_t>(w) * h * c);
    return img;
  }
  float& at(int x, int y, int c) { return data[(static_cast<std::size_t>(y) * width + x) * channels + c]; }
  float at(int x, int y, int c) const { return data[(static_cast<std::size_t>(y) * width + x) * channels + c]; }
};

}  // namespace glint

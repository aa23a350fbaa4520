#pragma once
// Pixel operations applied to dataset images at load time.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "glint/core/image.h"

namespace glint {

// Area (box-overlap) resampling: every output pixel is the mean of the source area it
// covers, so downscaling does not alias. Works for any size ratio.
Image8 resize_area(const Image8& src, int width, int height);

// Drops alpha by compositing straight-alpha RGBA (or grey+alpha) over a background colour
// given in [0,1]; grey becomes RGB. RGB input is returned unchanged.
Image8 to_rgb(const Image8& src, const std::array<float, 3>& background);

// Grey+alpha or RGBA as RGBA (straight alpha kept).
Image8 to_rgba(const Image8& src);

// The colour without its alpha, not composited (grey becomes RGB): what --alpha-mask trains
// on, the alpha being the mask.
Image8 drop_alpha(const Image8& src);
// One channel: channel `c` of every pixel (an image's alpha, for --alpha-mask).
Image8 channel_plane(const Image8& src, int c);
// A mask file's weight plane: grey as it is (a grey+alpha file's grey), colour as the
// largest of R, G and B, so that only black (0) means "ignore".
Image8 mask_plane(const Image8& src);

// Straight-alpha RGBA over a background colour, as floats in [0,1] (RGB input: converted).
ImageF composite_float(const Image8& src, const std::array<float, 3>& background);
// The same into `out`, whose storage is reused when it already has the size (training
// composites a target every step); rows on all threads for large images.
void composite_float_into(const Image8& src, const std::array<float, 3>& background, ImageF& out);

// A [0,1] float as an 8-bit code, clamped and rounded: to_image8's value, for code that
// fuses it with other per-pixel work.
inline std::uint8_t to_byte(float v) { return static_cast<std::uint8_t>(std::lround(std::clamp(v, 0.f, 1.f) * 255.f)); }

// [0,1] floats <-> 8-bit, values clamped and rounded.
Image8 to_image8(const ImageF& src);
ImageF to_float(const Image8& src);

}  // namespace glint

#pragma once
// sRGB transfer functions, exactly the piecewise curves the relight ground truth was encoded
// with (datasets/relight/README.md): all shading happens on linear values, PNG codes are
// sRGB-encoded. Alpha is coverage, not colour, so image overloads leave it alone.
#include <cmath>

#include "glint/core/image.h"

namespace glint {

// EOTF: encoded value in [0,1] -> linear.
template <class T>
inline T srgb_to_linear(T c) {
  return c <= T(0.04045) ? c / T(12.92) : std::pow((c + T(0.055)) / T(1.055), T(2.4));
}

// OETF: linear -> encoded. The input is clamped to [0,1] first, as Blender's Standard view
// transform does before quantising.
template <class T>
inline T linear_to_srgb(T l) {
  l = l < T(0) ? T(0) : (l > T(1) ? T(1) : l);
  return l <= T(0.0031308) ? l * T(12.92) : T(1.055) * std::pow(l, T(1) / T(2.4)) - T(0.055);
}

// Number of colour channels of an interleaved image: grey+alpha and RGBA carry alpha last.
inline int colour_channels(int channels) { return (channels == 2 || channels == 4) ? channels - 1 : channels; }

inline ImageF srgb_to_linear(const ImageF& img) {
  ImageF out = img;
  const int cc = colour_channels(img.channels);
  const long n = static_cast<long>(img.width) * img.height;
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i)
    for (int c = 0; c < cc; ++c) out.data[i * img.channels + c] = srgb_to_linear(img.data[i * img.channels + c]);
  return out;
}

inline ImageF linear_to_srgb(const ImageF& img) {
  ImageF out = img;
  const int cc = colour_channels(img.channels);
  const long n = static_cast<long>(img.width) * img.height;
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i)
    for (int c = 0; c < cc; ++c) out.data[i * img.channels + c] = linear_to_srgb(img.data[i * img.channels + c]);
  return out;
}

}  // namespace glint

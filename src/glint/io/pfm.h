#pragma once
// PFM (portable float map): the float format of the relight dataset's gt/depth and
// gt/normal. Layout: ASCII header "PF" (3 channels) or "Pf" (1 channel), "W H", a scale
// whose sign gives the byte order (negative = little endian), then raw float32 rows stored
// bottom-to-top. In memory (ImageF) rows are top-to-bottom like every other Glint image.
#include <string>

#include "glint/core/image.h"

namespace glint {

// Largest side accepted on reading: a corrupt header must not make us trust a huge size.
inline constexpr int kPfmMaxSide = 1 << 16;

// Throws glint::Error(path, why) on a bad header, truncated or trailing data, or absurd sizes.
ImageF read_pfm(const std::string& path);
// Same, on bytes already in memory; `name` is used in error messages.
ImageF decode_pfm(const std::string& bytes, const std::string& name);

// Little-endian PFM of a 1- or 3-channel image (other channel counts are an Error).
std::string encode_pfm(const ImageF& image);
void write_pfm(const std::string& path, const ImageF& image);  // atomic

}  // namespace glint

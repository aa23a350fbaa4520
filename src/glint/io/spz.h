#pragma once
// Niantic's `.spz`: a gzip stream of a 16-byte header and the splats' attributes, quantised
// and stored attribute by attribute (docs/ARCHITECTURE.md, "Formats"): positions as 24-bit
// fixed point, opacity, DC colour and log-scales as bytes, rotations as three 8-bit
// components (version 2) or as the smallest three components in 10 bits each (version 3),
// higher SH coefficients as bytes. About a tenth of the size of a PLY.
//
// Coordinates are stored as they are, in the model's frame (what Niantic's PLY converter and
// Spark do), so a `.spz` and the `.ply` of one model line up in any viewer.
#include <cstdint>
#include <string>

#include "glint/core/gaussians.h"

namespace glint {

inline constexpr std::uint32_t kSpzMagic = 0x5053474e;  // "NGSP" little-endian

struct SpzWriteOptions {
  int version = 3;           // 2 or 3 (the rotation encoding)
  int fractional_bits = -1;  // of the 24-bit positions; -1: 12, or fewer when the model's extent needs them
};

// What a round trip through `.spz` may change, per value (tested in spz_test.cpp). Values
// outside a field's range are clamped to it first.
struct SpzBounds {
  static constexpr double kLogScaleStep = 1.0 / 16;     // log-scales in [-10, 5.9375]
  static constexpr double kAlphaStep = 1.0 / 255;       // opacity (after the sigmoid) in [0, 1]
  static constexpr double kColorStep = 1.0 / (0.15 * 255);  // SH DC in [-3.33, 3.33]
  static constexpr double kSh1Step = 8.0 / 128;         // degree-1 SH in [-1, 0.9375] (5 bits)
  static constexpr double kShRestStep = 16.0 / 128;     // degree-2 and 3 SH in [-1, 0.875] (4 bits)
  // version 3: each of the three smallest unit-quaternion components in 9 bits + sign
  static constexpr double kRotationV3Step = 0.70710678118654752 / 511;
  static constexpr double kRotationV2Step = 1.0 / 127.5;  // version 2: x, y, z in 8 bits
};

// The fractional bits the writer picks for a model: 12 (1/4096 of a unit), or fewer when
// the largest coordinate needs them to fit 24 bits. Throws glint::Error(name, ...) when not
// even 0 bits fit (a coordinate of 2^23 or more).
int spz_fractional_bits(const GaussianModel& m, const std::string& name);

// Reads versions 1 to 3 (1: half-float positions); SH degree 4 keeps degrees 0 to 3. Bad
// input (not gzip, corrupt or truncated data, wrong magic, unknown version, counts the
// data cannot hold, vendor extensions) throws glint::Error(name, ...) before any large
// allocation.
GaussianModel read_spz_bytes(const std::string& data, const std::string& name);
GaussianModel read_spz(const std::string& path);

// The model's SH degree is kept; the 2D-filter mark (GaussianModel::antialiased) is the
// header's flag 0x1. Throws glint::Error(name, ...) for a malformed or non-finite model.
std::string write_spz_bytes(const GaussianModel& m, const std::string& name = "model", const SpzWriteOptions& o = {});
// Writes write_spz_bytes(m) to `path` atomically.
void write_spz(const std::string& path, const GaussianModel& m, const SpzWriteOptions& o = {});

}  // namespace glint

#pragma once
// antimatter15 `.splat`: 32 bytes a splat, no header (docs/ARCHITECTURE.md). Keeps colour only
// (SH degree 0), with 8-bit colour, opacity and rotation.
#include <cstdint>
#include <string>

#include "glint/core/gaussians.h"

namespace glint {

inline constexpr std::size_t kSplatRowBytes = 32;

// One splat as stored: position f32x3, linear scale f32x3, RGBA u8, rotation u8x4 (w x y z).
struct SplatRecord {
  float position[3];
  float scale[3];
  std::uint8_t rgba[4];
  std::uint8_t rot[4];
};

// Encodes splat i of the model (colour from SH DC only).
SplatRecord encode_splat(const GaussianModel& m, std::size_t i);
// Decodes a record into splat i of a model already sized for it (SH degree 0).
void decode_splat(const SplatRecord& r, GaussianModel& m, std::size_t i);

// Bad input (empty, size not a multiple of 32, non-finite or non-positive values) throws
// glint::Error(name, ...).
GaussianModel read_splat_bytes(const std::string& data, const std::string& name);
GaussianModel read_splat(const std::string& path);

std::string write_splat_bytes(const GaussianModel& m, const std::string& name = "model");
// Writes write_splat_bytes(m) to `path` atomically.
void write_splat(const std::string& path, const GaussianModel& m);

}  // namespace glint

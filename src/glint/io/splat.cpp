#include "glint/io/splat.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "glint/core/error.h"
#include "glint/io/atomic_file.h"
#include "glint/io/file_bytes.h"
#include "glint/io/model_checks.h"

namespace glint {
namespace {

static_assert(sizeof(SplatRecord) == kSplatRowBytes);

// Logits this far out still round-trip through 8 bits; beyond, the alpha byte saturates.
constexpr double kAlphaMin = 1e-4, kAlphaMax = 1.0 - 1e-4;

std::uint8_t to_byte(double v) {
  if (!(v > 0)) return 0;  // also NaN
  if (v >= 255) return 255;
  return static_cast<std::uint8_t>(std::lround(v));
}

[[maybe_unused]] std::uint32_t swap32(std::uint32_t u) {
  return (u >> 24) | ((u >> 8) & 0xff00u) | ((u << 8) & 0xff0000u) | (u << 24);
}

// .splat floats are little-endian on disk.
float le_float(float v) {
  if constexpr (std::endian::native == std::endian::big) return std::bit_cast<float>(swap32(std::bit_cast<std::uint32_t>(v)));
  return v;
}

}  // namespace

SplatRecord encode_splat(const GaussianModel& m, std::size_t i) {
  SplatRecord r{};
  for (int c = 0; c < 3; ++c) {
    r.position[c] = m.means[i * 3 + c];
    r.scale[c] = static_cast<float>(std::exp(static_cast<double>(m.log_scales[i * 3 + c])));
    r.rgba[c] = to_byte((0.5 + kShC0 * static_cast<double>(m.sh_dc[i * 3 + c])) * 255.0);
  }
  r.rgba[3] = to_byte(255.0 / (1.0 + std::exp(-static_cast<double>(m.opacity_logits[i]))));
  double q[4], norm = 0;
  for (int c = 0; c < 4; ++c) {
    q[c] = m.quats[i * 4 + c];
    norm += q[c] * q[c];
  }
  norm = std::sqrt(norm);
  if (!(norm > 0)) {  // a degenerate rotation is written as the identity
    q[0] = 1, q[1] = q[2] = q[3] = 0, norm = 1;
  }
  for (int c = 0; c < 4; ++c) r.rot[c] = to_byte(q[c] / norm * 128.0 + 128.0);
  return r;
}

void decode_splat(const SplatRecord& r, GaussianModel& m, std::size_t i) {
  for (int c = 0; c < 3; ++c) {
    m.means[i * 3 + c] = r.position[c];
    m.log_scales[i * 3 + c] = static_cast<float>(std::log(static_cast<double>(r.scale[c])));
    m.sh_dc[i * 3 + c] = static_cast<float>((r.rgba[c] / 255.0 - 0.5) / kShC0);
  }
  const double a = std::clamp(r.rgba[3] / 255.0, kAlphaMin, kAlphaMax);
  m.opacity_logits[i] = static_cast<float>(std::log(a / (1.0 - a)));
  for (int c = 0; c < 4; ++c) m.quats[i * 4 + c] = static_cast<float>((r.rot[c] - 128) / 128.0);
}

GaussianModel read_splat_bytes(const std::string& data, const std::string& name) {
  if (data.empty()) throw Error(name, "empty .splat file");
  if (data.size() % kSplatRowBytes != 0)
    throw Error(name, "size " + std::to_string(data.size()) + " bytes is not a multiple of 32; not a .splat file");
  const std::size_t n = data.size() / kSplatRowBytes;
  GaussianModel m;
  m.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    SplatRecord r;
    std::memcpy(&r, data.data() + i * kSplatRowBytes, kSplatRowBytes);
    for (int c = 0; c < 3; ++c) {
      r.position[c] = le_float(r.position[c]);
      r.scale[c] = le_float(r.scale[c]);
      if (!(r.scale[c] > 0) || !std::isfinite(r.scale[c]))
        throw Error(name, "splat " + std::to_string(i) + " has a scale that is not a positive finite number");
    }
    decode_splat(r, m, i);
  }
  check_model_finite(m, name);
  return m;
}

GaussianModel read_splat(const std::string& path) { return read_splat_bytes(read_file_bytes(path), path); }

std::string write_splat_bytes(const GaussianModel& m, const std::string& name) {
  check_model_shape(m, name);
  check_model_finite(m, name);
  std::string out(m.size() * kSplatRowBytes, '\0');
  for (std::size_t i = 0; i < m.size(); ++i) {
    SplatRecord r = encode_splat(m, i);
    for (int c = 0; c < 3; ++c) {
      // .splat stores linear scales; a log-scale beyond float's exp range cannot be read back.
      if (!(r.scale[c] > 0) || !std::isfinite(r.scale[c]))
        throw Error(name, "splat " + std::to_string(i) + ": scale exp(" + std::to_string(m.log_scales[i * 3 + c]) +
                              ") is out of float range for .splat");
      r.position[c] = le_float(r.position[c]);
      r.scale[c] = le_float(r.scale[c]);
    }
    std::memcpy(out.data() + i * kSplatRowBytes, &r, kSplatRowBytes);
  }
  return out;
}

void write_splat(const std::string& path, const GaussianModel& m) {
  write_file_atomic(path, write_splat_bytes(m, path));
}

}  // namespace glint

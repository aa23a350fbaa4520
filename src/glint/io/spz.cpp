#include "glint/io/spz.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <vector>

#include "glint/core/error.h"
#include "glint/io/atomic_file.h"
#include "glint/io/file_bytes.h"
#include "glint/io/gzip.h"
#include "glint/io/model_checks.h"

namespace glint {
namespace {

constexpr std::uint8_t kFlagAntialiased = 0x1;
constexpr std::uint8_t kFlagExtensions = 0x2;
constexpr int kDefaultFractionalBits = 12;
constexpr double kColorScale = 0.15;  // DC coefficient per unit of the stored byte's offset from 127.5 / 255
constexpr double kSqrtHalf = 0.70710678118654752;
// Opacities of the extreme bytes, kept finite as logits (as .splat's reader does).
constexpr double kAlphaMin = 1e-4, kAlphaMax = 1.0 - 1e-4;
// deflate cannot expand data by more than about 1032:1.
constexpr std::uint64_t kMaxInflateRatio = 1100;

// The 16 bytes after decompression, little-endian on disk.
struct Header {
  std::uint32_t magic, version, count;
  std::uint8_t sh_degree, fractional_bits, flags, reserved;
};

// SH coefficients (besides DC) a splat stores for a degree 0..4.
int sh_coeffs(int degree) { return (degree + 1) * (degree + 1) - 1; }

std::uint32_t le32(const unsigned char* p) {
  return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 | std::uint32_t(p[3]) << 24;
}
void put32(std::string& out, std::uint32_t v) {
  for (int b = 0; b < 4; ++b) out.push_back(static_cast<char>((v >> (8 * b)) & 0xff));
}

std::uint8_t to_byte(double v) {
  if (!(v > 0)) return 0;  // also NaN
  if (v >= 255) return 255;
  return static_cast<std::uint8_t>(std::lround(v));
}

float half_to_float(std::uint16_t h) {
  const int sign = h >> 15, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  double v;
  if (exponent == 0) v = std::ldexp(mantissa, -24);
  else if (exponent == 31) v = mantissa ? NAN : INFINITY;
  else v = std::ldexp(mantissa + 1024, exponent - 25);
  return static_cast<float>(sign ? -v : v);
}

int position_bytes(std::uint32_t version) { return version == 1 ? 6 : 9; }
int rotation_bytes(std::uint32_t version) { return version >= 3 ? 4 : 3; }

// Bytes of one splat in the body (positions, alpha, colour, scales, rotation, SH).
std::uint64_t splat_bytes(std::uint32_t version, int sh_degree) {
  return static_cast<std::uint64_t>(position_bytes(version)) + 1 + 3 + 3 + rotation_bytes(version) +
         3 * static_cast<std::uint64_t>(sh_coeffs(sh_degree));
}

// Unit quaternion (w x y z) from version 3's smallest three: the index of the largest
// component of (x y z w) in the top two bits, then the others in order, 10 bits each (sign,
// 9-bit magnitude of |c| / sqrt(1/2)), the last in the lowest bits.
void decode_rotation_v3(const unsigned char* p, float* q) {
  std::uint32_t bits = le32(p);
  const int largest = static_cast<int>(bits >> 30);
  double xyzw[4] = {0, 0, 0, 0}, sum = 0;
  for (int i = 3; i >= 0; --i) {
    if (i == largest) continue;
    const double mag = kSqrtHalf * static_cast<double>(bits & 511u) / 511.0;
    xyzw[i] = (bits & 512u) ? -mag : mag;
    sum += xyzw[i] * xyzw[i];
    bits >>= 10;
  }
  xyzw[largest] = std::sqrt(std::max(0.0, 1.0 - sum));
  q[0] = static_cast<float>(xyzw[3]);
  for (int c = 0; c < 3; ++c) q[1 + c] = static_cast<float>(xyzw[c]);
}

// Versions 1 and 2: x, y, z of the unit quaternion with w >= 0, each byte / 127.5 - 1.
void decode_rotation_v2(const unsigned char* p, float* q) {
  double sum = 0;
  for (int c = 0; c < 3; ++c) {
    const double v = p[c] / 127.5 - 1.0;
    q[1 + c] = static_cast<float>(v);
    sum += v * v;
  }
  q[0] = static_cast<float>(std::sqrt(std::max(0.0, 1.0 - sum)));
}

// The model's rotation i normalised, as x y z w; a zero or unusable one is the identity.
std::array<double, 4> unit_xyzw(const GaussianModel& m, std::size_t i) {
  const float* q = &m.quats[i * 4];
  std::array<double, 4> v{q[1], q[2], q[3], q[0]};
  double norm = 0;
  for (double c : v) norm += c * c;
  norm = std::sqrt(norm);
  if (!(norm > 0) || !std::isfinite(norm)) return {0, 0, 0, 1};
  for (double& c : v) c /= norm;
  return v;
}

void encode_rotation_v3(const std::array<double, 4>& q, unsigned char* out) {
  int largest = 0;
  for (int i = 1; i < 4; ++i)
    if (std::abs(q[i]) > std::abs(q[largest])) largest = i;
  // q and -q are one rotation: store the one whose largest component is positive
  const bool flip = q[largest] < 0;
  std::uint32_t bits = static_cast<std::uint32_t>(largest);
  for (int i = 0; i < 4; ++i) {
    if (i == largest) continue;
    const double c = flip ? -q[i] : q[i];
    const auto mag = static_cast<std::uint32_t>(std::min(511L, std::lround(std::abs(c) / kSqrtHalf * 511.0)));
    bits = bits << 10 | (c < 0 && mag > 0 ? 512u : 0u) | mag;  // no sign on a zero
  }
  for (int b = 0; b < 4; ++b) out[b] = static_cast<unsigned char>((bits >> (8 * b)) & 0xff);
}

void encode_rotation_v2(const std::array<double, 4>& q, unsigned char* out) {
  const double s = q[3] < 0 ? -1.0 : 1.0;  // w >= 0, so that w follows from x, y, z
  for (int c = 0; c < 3; ++c) out[c] = to_byte((s * q[c] + 1.0) * 127.5);
}

// SH coefficient k (0-based, k < 3: degree 1) as a byte: 128 + x * 128 rounded to the
// nearest multiple of 8 (degree 1, 5 bits) or 16 (degrees 2 and 3, 4 bits), which leaves
// low bits at zero for gzip; the reader needs no knowledge of it.
std::uint8_t encode_sh(double x, int k) {
  const double bucket = k < 3 ? 8.0 : 16.0;
  const double q = 128.0 + bucket * std::round(x * 128.0 / bucket);
  return to_byte(std::clamp(q, 0.0, 255.0));
}

}  // namespace

int spz_fractional_bits(const GaussianModel& m, const std::string& name) {
  double lo = 0, hi = 0;
  for (float v : m.means) {
    lo = std::min(lo, static_cast<double>(v));
    hi = std::max(hi, static_cast<double>(v));
  }
  // 24-bit two's complement: -2^23 .. 2^23 - 1
  for (int bits = kDefaultFractionalBits; bits >= 0; --bits)
    if (std::round(std::ldexp(hi, bits)) <= 8388607.0 && std::round(std::ldexp(lo, bits)) >= -8388608.0) return bits;
  throw Error(name, "a splat position of " + std::to_string(std::abs(lo) > hi ? lo : hi) +
                        " does not fit .spz's 24-bit fixed point (-8388608 to 8388607)");
}

GaussianModel read_spz_bytes(const std::string& data, const std::string& name) {
  if (data.size() >= 4 && le32(reinterpret_cast<const unsigned char*>(data.data())) == kSpzMagic)
    throw Error(name, "an uncompressed SPZ container (version 4 or later), which this reader does not take; "
                      "versions 1 to 3 are gzip streams");
  GzipReader in(data, name);
  unsigned char raw[16];
  in.read(raw, sizeof raw, "16-byte header");
  Header h{le32(raw), le32(raw + 4), le32(raw + 8), raw[12], raw[13], raw[14], raw[15]};
  if (h.magic != kSpzMagic) throw Error(name, "not an .spz file (the gzip stream does not start with \"NGSP\")");
  if (h.version < 1 || h.version > 3)
    throw Error(name, "SPZ version " + std::to_string(h.version) + " is not supported (versions 1 to 3 are)");
  if (h.sh_degree > 4) throw Error(name, "SH degree " + std::to_string(h.sh_degree) + " is not in 0..4");
  if (h.flags & kFlagExtensions)
    throw Error(name, "has SPZ vendor extensions (header flag 0x2), which this reader does not take");
  if (h.version >= 2 && h.fractional_bits > 31)
    throw Error(name, "corrupted header: " + std::to_string(h.fractional_bits) + " fractional bits for 24-bit positions");

  const std::uint64_t per = splat_bytes(h.version, h.sh_degree);
  const std::uint64_t body = per * h.count;
  if (body / kMaxInflateRatio > in.compressed_left() + 64)
    throw Error(name, "corrupted file: " + std::to_string(h.count) + " splats (" + std::to_string(body) +
                          " bytes) cannot come from the " + std::to_string(in.compressed_left()) +
                          " compressed bytes left");

  const std::size_t n = h.count;
  const int file_coeffs = sh_coeffs(h.sh_degree);
  const int kept_degree = std::min<int>(h.sh_degree, kMaxShDegree);
  const int kept_coeffs = sh_coeffs(kept_degree);
  GaussianModel m;
  m.resize(n);
  m.sh_degree = kept_degree;
  m.antialiased = (h.flags & kFlagAntialiased) != 0;

  std::vector<unsigned char> buf;
  auto read_block = [&](std::size_t per_splat, const char* what) {
    buf.resize(n * per_splat);
    in.read(buf.data(), buf.size(), what);
  };

  read_block(static_cast<std::size_t>(position_bytes(h.version)), "positions");
  if (h.version == 1) {
    for (std::size_t i = 0; i < 3 * n; ++i) {
      const float v = half_to_float(static_cast<std::uint16_t>(buf[2 * i] | buf[2 * i + 1] << 8));
      if (!std::isfinite(v)) throw Error(name, "splat " + std::to_string(i / 3) + " has a non-finite position");
      m.means[i] = v;
    }
  } else {
    const double unit = std::ldexp(1.0, -static_cast<int>(h.fractional_bits));
    for (std::size_t i = 0; i < 3 * n; ++i) {
      const unsigned char* p = &buf[3 * i];
      std::int32_t v = static_cast<std::int32_t>(p[0] | p[1] << 8 | p[2] << 16);
      if (v & 0x800000) v -= 0x1000000;  // sign of the 24-bit value
      m.means[i] = static_cast<float>(v * unit);
    }
  }
  read_block(1, "opacities");
  for (std::size_t i = 0; i < n; ++i) {
    const double a = std::clamp(buf[i] / 255.0, kAlphaMin, kAlphaMax);
    m.opacity_logits[i] = static_cast<float>(std::log(a / (1.0 - a)));
  }
  read_block(3, "colours");
  for (std::size_t i = 0; i < 3 * n; ++i) m.sh_dc[i] = static_cast<float>((buf[i] / 255.0 - 0.5) / kColorScale);
  read_block(3, "scales");
  for (std::size_t i = 0; i < 3 * n; ++i) m.log_scales[i] = static_cast<float>(buf[i] / 16.0 - 10.0);
  const int rb = rotation_bytes(h.version);
  read_block(static_cast<std::size_t>(rb), "rotations");
  for (std::size_t i = 0; i < n; ++i) {
    if (rb == 4) decode_rotation_v3(&buf[4 * i], &m.quats[4 * i]);
    else decode_rotation_v2(&buf[3 * i], &m.quats[4 * i]);
  }
  read_block(3 * static_cast<std::size_t>(file_coeffs), "SH coefficients");
  for (std::size_t i = 0; i < n; ++i)
    for (int k = 0; k < kept_coeffs; ++k)
      for (int c = 0; c < 3; ++c)
        m.sh_rest[(i * kShRestCoeffs + static_cast<std::size_t>(k)) * 3 + static_cast<std::size_t>(c)] =
            static_cast<float>((buf[(i * static_cast<std::size_t>(file_coeffs) + static_cast<std::size_t>(k)) * 3 +
                                    static_cast<std::size_t>(c)] -
                                128.0) /
                               128.0);
  in.expect_end("splats");
  check_model_finite(m, name);
  return m;
}

GaussianModel read_spz(const std::string& path) { return read_spz_bytes(read_file_bytes(path), path); }

std::string write_spz_bytes(const GaussianModel& m, const std::string& name, const SpzWriteOptions& o) {
  check_model_shape(m, name);
  check_model_finite(m, name);
  if (o.version != 2 && o.version != 3) throw Error(name, "SPZ version " + std::to_string(o.version) + " cannot be written (2 or 3)");
  const int bits = o.fractional_bits >= 0 ? o.fractional_bits : spz_fractional_bits(m, name);
  if (bits > 31) throw Error(name, "at most 31 fractional bits for .spz positions");
  const std::size_t n = m.size();
  if (n > 0xffffffffu) throw Error(name, "too many splats for .spz (at most 2^32 - 1)");
  const auto version = static_cast<std::uint32_t>(o.version);
  const int coeffs = sh_coeffs(m.sh_degree);

  std::string raw;
  raw.reserve(16 + n * splat_bytes(version, m.sh_degree));
  put32(raw, kSpzMagic);
  put32(raw, version);
  put32(raw, static_cast<std::uint32_t>(n));
  raw.push_back(static_cast<char>(m.sh_degree));
  raw.push_back(static_cast<char>(bits));
  raw.push_back(static_cast<char>(m.antialiased ? kFlagAntialiased : 0));
  raw.push_back('\0');

  const double scale = std::ldexp(1.0, bits);
  for (std::size_t i = 0; i < 3 * n; ++i) {
    const double v = std::round(m.means[i] * scale);
    if (v > 8388607.0 || v < -8388608.0)
      throw Error(name, "splat " + std::to_string(i / 3) + "'s position " + std::to_string(m.means[i]) +
                            " does not fit 24 bits with " + std::to_string(bits) + " fractional bits");
    const auto fixed = static_cast<std::uint32_t>(static_cast<std::int32_t>(v));
    for (int b = 0; b < 3; ++b) raw.push_back(static_cast<char>((fixed >> (8 * b)) & 0xff));
  }
  for (std::size_t i = 0; i < n; ++i)
    raw.push_back(static_cast<char>(to_byte(255.0 / (1.0 + std::exp(-static_cast<double>(m.opacity_logits[i]))))));
  for (std::size_t i = 0; i < 3 * n; ++i)
    raw.push_back(static_cast<char>(to_byte(m.sh_dc[i] * (kColorScale * 255.0) + 127.5)));
  for (std::size_t i = 0; i < 3 * n; ++i)
    raw.push_back(static_cast<char>(to_byte((m.log_scales[i] + 10.0) * 16.0)));
  for (std::size_t i = 0; i < n; ++i) {
    unsigned char r[4];
    const std::array<double, 4> q = unit_xyzw(m, i);
    if (version >= 3) encode_rotation_v3(q, r);
    else encode_rotation_v2(q, r);
    raw.append(reinterpret_cast<const char*>(r), static_cast<std::size_t>(rotation_bytes(version)));
  }
  for (std::size_t i = 0; i < n; ++i)
    for (int k = 0; k < coeffs; ++k)
      for (int c = 0; c < 3; ++c)
        raw.push_back(static_cast<char>(
            encode_sh(m.sh_rest[(i * kShRestCoeffs + static_cast<std::size_t>(k)) * 3 + static_cast<std::size_t>(c)], k)));
  return gzip_compress(raw);
}

void write_spz(const std::string& path, const GaussianModel& m, const SpzWriteOptions& o) {
  write_file_atomic(path, write_spz_bytes(m, path, o));
}

}  // namespace glint

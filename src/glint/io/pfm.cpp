#include "glint/io/pfm.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "glint/core/error.h"
#include "glint/io/atomic_file.h"
#include "glint/io/file_bytes.h"

namespace glint {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Next whitespace-separated header token. PFM writers disagree on line breaks (some put
// "W H" and the scale on one line), so the header is read as tokens, not lines.
std::string next_token(const std::string& b, std::size_t& pos, const std::string& name, const char* what) {
  while (pos < b.size() && is_space(b[pos])) ++pos;
  std::size_t start = pos;
  while (pos < b.size() && !is_space(b[pos]) && pos - start < 64) ++pos;
  if (pos == start) throw Error(name, std::string("PFM header ends before the ") + what);
  if (pos >= b.size()) throw Error(name, std::string("PFM header ends after the ") + what + " (no pixel data)");
  if (!is_space(b[pos])) throw Error(name, std::string("PFM header: ") + what + " is too long");
  return b.substr(start, pos - start);
}

long parse_int(const std::string& s, const std::string& name, const char* what) {
  if (s.empty() || s.size() > 9) throw Error(name, std::string("PFM header: bad ") + what + " '" + s + "'");
  long v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') throw Error(name, std::string("PFM header: bad ") + what + " '" + s + "'");
    v = v * 10 + (c - '0');
  }
  return v;
}

std::uint32_t bswap32(std::uint32_t v) {
  return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
}

}  // namespace

ImageF decode_pfm(const std::string& b, const std::string& name) {
  std::size_t pos = 0;
  std::string magic = next_token(b, pos, name, "magic");
  int channels = 0;
  if (magic == "PF")
    channels = 3;
  else if (magic == "Pf")
    channels = 1;
  else
    throw Error(name, "not a PFM file (magic '" + magic.substr(0, 8) + "', expected PF or Pf)");
  long w = parse_int(next_token(b, pos, name, "width"), name, "width");
  long h = parse_int(next_token(b, pos, name, "height"), name, "height");
  if (w <= 0 || h <= 0 || w > kPfmMaxSide || h > kPfmMaxSide)
    throw Error(name, "PFM size " + std::to_string(w) + "x" + std::to_string(h) + " out of range (1.." +
                          std::to_string(kPfmMaxSide) + ")");
  std::string scale_s = next_token(b, pos, name, "scale");
  double scale = 0;
  try {
    std::size_t used = 0;
    scale = std::stod(scale_s, &used);
    if (used != scale_s.size()) throw std::invalid_argument("trailing");
  } catch (const std::exception&) {
    throw Error(name, "PFM header: bad scale '" + scale_s + "'");
  }
  if (!(scale != 0) || !std::isfinite(scale)) throw Error(name, "PFM header: scale must be finite and non-zero");
  ++pos;  // exactly one whitespace byte separates the header from the data
  const std::size_t count = static_cast<std::size_t>(w) * h * channels;
  const std::size_t need = count * 4;
  const std::size_t have = b.size() - pos;
  if (have < need)
    throw Error(name, "PFM data truncated: " + std::to_string(have) + " bytes, expected " + std::to_string(need));
  if (have > need)
    throw Error(name, "PFM has " + std::to_string(have - need) + " unexpected bytes after the pixel data");
  const bool swap = (scale < 0) != (std::endian::native == std::endian::little);
  ImageF img(static_cast<int>(w), static_cast<int>(h), channels);
  const std::size_t row_floats = static_cast<std::size_t>(w) * channels;
  for (long r = 0; r < h; ++r) {
    const char* src = b.data() + pos + static_cast<std::size_t>(h - 1 - r) * row_floats * 4;
    float* dst = img.data.data() + static_cast<std::size_t>(r) * row_floats;
    std::memcpy(dst, src, row_floats * 4);
    if (swap)
      for (std::size_t i = 0; i < row_floats; ++i) {
        std::uint32_t u;
        std::memcpy(&u, dst + i, 4);
        u = bswap32(u);
        std::memcpy(dst + i, &u, 4);
      }
  }
  return img;
}

ImageF read_pfm(const std::string& path) { return decode_pfm(read_file_bytes(path), path); }

std::string encode_pfm(const ImageF& img) {
  if (img.channels != 1 && img.channels != 3)
    throw Error("PFM stores 1 or 3 channels, not " + std::to_string(img.channels));
  if (img.width <= 0 || img.height <= 0) throw Error("PFM: empty image");
  std::string out = std::string(img.channels == 3 ? "PF" : "Pf") + "\n" + std::to_string(img.width) + " " +
                    std::to_string(img.height) + "\n-1.0\n";
  const std::size_t header = out.size();
  const std::size_t row_floats = static_cast<std::size_t>(img.width) * img.channels;
  out.resize(header + row_floats * img.height * 4);
  for (int r = 0; r < img.height; ++r) {
    char* dst = out.data() + header + static_cast<std::size_t>(img.height - 1 - r) * row_floats * 4;
    const float* src = img.data.data() + static_cast<std::size_t>(r) * row_floats;
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(dst, src, row_floats * 4);
    } else {
      for (std::size_t i = 0; i < row_floats; ++i) {
        std::uint32_t u;
        std::memcpy(&u, src + i, 4);
        u = bswap32(u);
        std::memcpy(dst + 4 * i, &u, 4);
      }
    }
  }
  return out;
}

void write_pfm(const std::string& path, const ImageF& image) {
  std::string bytes;
  try {
    bytes = encode_pfm(image);
  } catch (const Error& e) {
    throw Error(path, e.what());
  }
  write_file_atomic(path, bytes);
}

}  // namespace glint

// Writing graphdeco PLYs in the layout docs/ARCHITECTURE.md states, so the files open in every
// splat viewer and a write -> read -> write round trip is byte-identical.
#include <algorithm>
#include <bit>
#include <cstring>
#include <sstream>

#include "glint/io/atomic_file.h"
#include "glint/io/model_checks.h"
#include "glint/io/ply.h"

namespace glint {
namespace {

std::string header(const GaussianModel& m) {
  const int rest = sh_rest_count(m.sh_degree) * 3;
  std::string h = "ply\nformat binary_little_endian 1.0\n";
  if (m.antialiased) h += "comment " + std::string(kPlyAntialiasedComment) + "\n";
  h += "element vertex " + std::to_string(m.size()) + "\n";
  auto prop = [&](const std::string& n) { h += "property float " + n + "\n"; };
  for (const char* n : {"x", "y", "z", "nx", "ny", "nz", "f_dc_0", "f_dc_1", "f_dc_2"}) prop(n);
  for (int j = 0; j < rest; ++j) prop("f_rest_" + std::to_string(j));
  prop("opacity");
  for (int j = 0; j < 3; ++j) prop("scale_" + std::to_string(j));
  for (int j = 0; j < 4; ++j) prop("rot_" + std::to_string(j));
  return h + "end_header\n";
}

void put_le(char*& out, float v) {
  std::uint32_t u = std::bit_cast<std::uint32_t>(v);
  if constexpr (std::endian::native == std::endian::big)
    u = (u >> 24) | ((u >> 8) & 0xff00u) | ((u << 8) & 0xff0000u) | (u << 24);
  std::memcpy(out, &u, 4);
  out += 4;
}

void write_ply_to(std::ostream& out, const GaussianModel& m, const std::string& name) {
  check_model_shape(m, name);
  check_model_finite(m, name);
  const int per_channel = sh_rest_count(m.sh_degree);
  const std::size_t row_bytes = static_cast<std::size_t>(17 + 3 * per_channel) * 4;
  out << header(m);
  // Rows are encoded in batches so a large model streams without a second full copy in memory.
  constexpr std::size_t kBatch = 4096;
  std::vector<char> buf(kBatch * row_bytes);
  for (std::size_t start = 0; start < m.size(); start += kBatch) {
    const std::size_t end = std::min(m.size(), start + kBatch);
    char* p = buf.data();
    for (std::size_t i = start; i < end; ++i) {
      for (int c = 0; c < 3; ++c) put_le(p, m.means[i * 3 + c]);
      for (int c = 0; c < 3; ++c) put_le(p, 0.0f);
      for (int c = 0; c < 3; ++c) put_le(p, m.sh_dc[i * 3 + c]);
      // channel-major in the file: f_rest_(c*R + k)
      for (int c = 0; c < 3; ++c)
        for (int k = 0; k < per_channel; ++k) put_le(p, m.sh_rest[(i * kShRestCoeffs + k) * 3 + c]);
      put_le(p, m.opacity_logits[i]);
      for (int c = 0; c < 3; ++c) put_le(p, m.log_scales[i * 3 + c]);
      for (int c = 0; c < 4; ++c) put_le(p, m.quats[i * 4 + c]);
    }
    out.write(buf.data(), static_cast<std::streamsize>(p - buf.data()));
  }
}

}  // namespace

std::string write_ply_bytes(const GaussianModel& m, const std::string& name) {
  std::ostringstream out;
  write_ply_to(out, m, name);
  return std::move(out).str();
}

void write_ply(const std::string& path, const GaussianModel& m) {
  // Validate before touching the file system so a bad model leaves nothing behind.
  check_model_shape(m, path);
  check_model_finite(m, path);
  write_file_atomic(path, [&](std::ostream& out) { write_ply_to(out, m, path); });
}

}  // namespace glint

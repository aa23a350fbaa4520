#include "ply_builder.h"

#include <bit>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace glint::test {

std::vector<PlyProp> standard_props(int degree, const std::string& type) {
  std::vector<PlyProp> p;
  for (const char* n : {"x", "y", "z", "nx", "ny", "nz", "f_dc_0", "f_dc_1", "f_dc_2"}) p.push_back({type, n});
  for (int j = 0; j < 3 * sh_rest_count(degree); ++j) p.push_back({type, "f_rest_" + std::to_string(j)});
  p.push_back({type, "opacity"});
  for (int j = 0; j < 3; ++j) p.push_back({type, "scale_" + std::to_string(j)});
  for (int j = 0; j < 4; ++j) p.push_back({type, "rot_" + std::to_string(j)});
  return p;
}

namespace {

double value_of(const GaussianModel& m, std::size_t i, const std::string& n) {
  auto idx = [&](const std::string& prefix) { return std::stoi(n.substr(prefix.size())); };
  if (n == "x" || n == "y" || n == "z") return m.means[i * 3 + (n[0] - 'x')];
  if (n == "nx" || n == "ny" || n == "nz") return 0;
  if (n == "opacity") return m.opacity_logits[i];
  if (n.rfind("f_dc_", 0) == 0) return m.sh_dc[i * 3 + idx("f_dc_")];
  if (n.rfind("scale_", 0) == 0) return m.log_scales[i * 3 + idx("scale_")];
  if (n.rfind("rot_", 0) == 0) return m.quats[i * 4 + idx("rot_")];
  if (n.rfind("f_rest_", 0) == 0) {
    const int r = sh_rest_count(m.sh_degree), j = idx("f_rest_");
    return m.sh_rest[(i * kShRestCoeffs + j % r) * 3 + j / r];
  }
  return 7;
}

template <class T>
std::string bytes_of(T v, bool big) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  if (big == (std::endian::native == std::endian::little))
    for (std::size_t i = 0; i < sizeof(T) / 2; ++i) std::swap(b[i], b[sizeof(T) - 1 - i]);
  return std::string(b, sizeof(T));
}

}  // namespace

std::string encode_scalar(const std::string& t, double v, bool big) {
  if (t == "char" || t == "int8") return bytes_of(static_cast<std::int8_t>(v), big);
  if (t == "uchar" || t == "uint8") return bytes_of(static_cast<std::uint8_t>(v), big);
  if (t == "short" || t == "int16") return bytes_of(static_cast<std::int16_t>(v), big);
  if (t == "ushort" || t == "uint16") return bytes_of(static_cast<std::uint16_t>(v), big);
  if (t == "int" || t == "int32") return bytes_of(static_cast<std::int32_t>(v), big);
  if (t == "uint" || t == "uint32") return bytes_of(static_cast<std::uint32_t>(v), big);
  if (t == "float" || t == "float32") return bytes_of(static_cast<float>(v), big);
  if (t == "double" || t == "float64") return bytes_of(v, big);
  throw std::invalid_argument("unknown PLY type " + t);
}

std::string build_ply(const GaussianModel& m, const PlyBuild& b) {
  const std::string& e = b.eol;
  std::string h = "ply" + e + "format " + b.format + " 1.0" + e + b.extra_header_lines + b.element_before;
  h += "element vertex " + std::to_string(m.size()) + e;
  for (const auto& p : b.props) h += "property " + p.type + " " + p.name + e;
  h += b.element_after + "end_header" + e;

  std::string body;
  const bool ascii = b.format == "ascii", big = b.format == "binary_big_endian";
  for (std::size_t i = 0; i < m.size(); ++i) {
    std::ostringstream row;
    row.precision(17);
    for (std::size_t j = 0; j < b.props.size(); ++j) {
      const double v = value_of(m, i, b.props[j].name);
      if (ascii) row << (j ? " " : "") << v;
      else body += encode_scalar(b.props[j].type, v, big);
    }
    if (ascii) body += row.str() + "\n";
  }
  return h + b.body_before + body + b.body_after;
}

}  // namespace glint::test

// Reading splat PLYs. Every count in the header is checked against the bytes that are
// actually there before anything is allocated, so a corrupted header cannot make the reader
// allocate huge buffers, loop for ages or read past the end.
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include "glint/core/error.h"
#include "glint/io/file_bytes.h"
#include "glint/io/ply.h"
#include "glint/io/ply_body.h"
#include "glint/io/ply_header.h"

namespace glint {
namespace {

using ply::Element;
using ply::Format;
using ply::Property;
using ply::Type;

using ply::Target;

// Maps the vertex element's properties onto the model; also sizes the model's SH degree.
std::vector<Target> map_vertex(const Element& e, GaussianModel& m, const std::string& name) {
  int rest = 0;
  for (const auto& p : e.props) {
    if (p.is_list) throw Error(name, "vertex property " + ply::quote(p.name) + " is a list; splat PLYs have none");
    if (p.name.rfind("f_rest_", 0) == 0) ++rest;
  }
  switch (rest) {
    case 0: m.sh_degree = 0; break;
    case 9: m.sh_degree = 1; break;
    case 24: m.sh_degree = 2; break;
    case 45: m.sh_degree = 3; break;
    default:
      throw Error(name, std::to_string(rest) + " f_rest_* properties; SH degrees 0..3 need 0, 9, 24 or 45");
  }
  const int per_channel = rest / 3;

  std::vector<Target> targets(e.props.size());
  auto bind = [&](const std::string& prop, std::vector<float>& array, std::size_t offset, std::size_t stride) {
    for (std::size_t i = 0; i < e.props.size(); ++i)
      if (e.props[i].name == prop) {
        targets[i] = {&array, offset, stride};
        return;
      }
    throw Error(name, "vertex element lacks required property " + ply::quote(prop));
  };
  const char* xyz[3] = {"x", "y", "z"};
  for (int c = 0; c < 3; ++c) {
    bind(xyz[c], m.means, c, 3);
    bind("f_dc_" + std::to_string(c), m.sh_dc, c, 3);
    bind("scale_" + std::to_string(c), m.log_scales, c, 3);
  }
  for (int c = 0; c < 4; ++c) bind("rot_" + std::to_string(c), m.quats, c, 4);
  bind("opacity", m.opacity_logits, 0, 1);
  // The file stores f_rest channel-major (channel*R + k); the model keeps [N,15,3].
  for (int j = 0; j < rest; ++j) {
    const int c = j / per_channel, k = j % per_channel;
    bind("f_rest_" + std::to_string(j), m.sh_rest, static_cast<std::size_t>(k * 3 + c), kShRestCoeffs * 3);
  }
  return targets;
}

float to_float(double v, std::uint64_t row, const Property& p, const std::string& name) {
  if (!std::isfinite(v) || std::fabs(v) > std::numeric_limits<float>::max())
    throw Error(name, "vertex " + std::to_string(row) + ": property " + ply::quote(p.name) +
                          " is not a finite float value");
  return static_cast<float>(v);
}

// ---- binary bodies ----

template <class T>
T load(const char* p, bool swap) {
  using U = std::conditional_t<sizeof(T) == 1, std::uint8_t,
            std::conditional_t<sizeof(T) == 2, std::uint16_t,
            std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;
  U u;
  std::memcpy(&u, p, sizeof u);
  if (swap) {
    U r = 0;
    for (std::size_t i = 0; i < sizeof u; ++i) r = static_cast<U>((r << 8) | ((u >> (8 * i)) & 0xff));
    u = r;
  }
  return std::bit_cast<T>(u);
}

double load_scalar(const char* p, Type t, bool swap) {
  switch (t) {
    case Type::Int8: return load<std::int8_t>(p, swap);
    case Type::UInt8: return load<std::uint8_t>(p, swap);
    case Type::Int16: return load<std::int16_t>(p, swap);
    case Type::UInt16: return load<std::uint16_t>(p, swap);
    case Type::Int32: return load<std::int32_t>(p, swap);
    case Type::UInt32: return load<std::uint32_t>(p, swap);
    case Type::Float32: return load<float>(p, swap);
    case Type::Float64: return load<double>(p, swap);
  }
  return 0;
}

class BinaryBody {
 public:
  BinaryBody(std::string_view body, bool swap, const std::string& name) : body_(body), swap_(swap), name_(name) {}

  void read_vertices(const Element& e, const std::vector<Target>& targets, const std::function<void(std::size_t)>& resize) {
    const std::size_t row = e.fixed_row_size();
    if (e.count > remaining() / row)
      throw Error(name_, "file is truncated or its vertex count is wrong: " + std::to_string(e.count) +
                             " vertices of " + std::to_string(row) + " bytes, but only " +
                             std::to_string(remaining()) + " bytes follow the header");
    resize(static_cast<std::size_t>(e.count));
    std::vector<std::size_t> offsets;
    std::size_t off = 0;
    for (const auto& p : e.props) {
      offsets.push_back(off);
      off += static_cast<std::size_t>(ply::type_size(p.type));
    }
    for (std::uint64_t i = 0; i < e.count; ++i) {
      const char* r = body_.data() + pos_ + i * row;
      for (std::size_t j = 0; j < e.props.size(); ++j) {
        const Target& t = targets[j];
        if (!t.array) continue;
        const double v = load_scalar(r + offsets[j], e.props[j].type, swap_);
        (*t.array)[t.offset + i * t.stride] = to_float(v, i, e.props[j], name_);
      }
    }
    pos_ += static_cast<std::size_t>(e.count) * row;
  }

  void skip(const Element& e) {
    if (!e.has_lists()) {
      const std::size_t row = e.fixed_row_size();
      if (row && e.count > remaining() / row) truncated(e);
      pos_ += static_cast<std::size_t>(e.count * row);
      return;
    }
    // Every row with a list consumes at least one byte, so this loop ends with the data.
    for (std::uint64_t i = 0; i < e.count; ++i)
      for (const auto& p : e.props) {
        std::uint64_t items = 1;
        if (p.is_list) {
          take(ply::type_size(p.count_type), e);
          const double n = load_scalar(body_.data() + pos_ - ply::type_size(p.count_type), p.count_type, swap_);
          if (n < 0) throw Error(name_, "element " + ply::quote(e.name) + " has a negative list length");
          items = static_cast<std::uint64_t>(n);
        }
        const std::uint64_t size = static_cast<std::uint64_t>(ply::type_size(p.type));
        if (items > remaining() / size) truncated(e);
        pos_ += static_cast<std::size_t>(items * size);
      }
  }

 private:
  std::size_t remaining() const { return body_.size() - pos_; }
  void take(std::size_t n, const Element& e) {
    if (n > remaining()) truncated(e);
    pos_ += n;
  }
  [[noreturn]] void truncated(const Element& e) const {
    throw Error(name_, "file is truncated: element " + ply::quote(e.name) + " runs past the end of the data");
  }

  std::string_view body_;
  std::size_t pos_ = 0;
  bool swap_;
  const std::string& name_;
};

// ---- ASCII bodies: whitespace-separated tokens, one element row after another ----

class AsciiBody {
 public:
  AsciiBody(std::string_view body, const std::string& name) : body_(body), name_(name) {}

  void read_vertices(const Element& e, const std::vector<Target>& targets, const std::function<void(std::size_t)>& resize) {
    // n tokens need at least 2n-1 bytes; checked before allocating for the count.
    const std::size_t max_tokens = (remaining() + 1) / 2;
    if (e.count > max_tokens / e.props.size())
      throw Error(name_, "file is truncated or its vertex count is wrong: " + std::to_string(e.count) +
                             " vertices cannot fit in the " + std::to_string(remaining()) +
                             " bytes after the header");
    resize(static_cast<std::size_t>(e.count));
    for (std::uint64_t i = 0; i < e.count; ++i)
      for (std::size_t j = 0; j < e.props.size(); ++j) {
        const std::string_view tok = next(e);
        const Target& t = targets[j];
        if (!t.array) continue;
        (*t.array)[t.offset + i * t.stride] = to_float(number(tok, e), i, e.props[j], name_);
      }
  }

  void skip(const Element& e) {
    if (e.props.empty()) return;
    // Every row consumes at least one token, so this loop ends with the data.
    for (std::uint64_t i = 0; i < e.count; ++i)
      for (const auto& p : e.props) {
        const std::string_view tok = next(e);
        if (!p.is_list) continue;
        std::uint64_t items = 0;
        auto [ptr, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), items);
        if (ec != std::errc() || ptr != tok.data() + tok.size())
          throw Error(name_, "element " + ply::quote(e.name) + ": list length " + ply::quote(tok) + " is not a whole number");
        for (std::uint64_t k = 0; k < items; ++k) next(e);
      }
  }

 private:
  std::size_t remaining() const { return body_.size() - pos_; }
  static bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

  std::string_view next(const Element& e) {
    while (pos_ < body_.size() && space(body_[pos_])) ++pos_;
    const std::size_t start = pos_;
    while (pos_ < body_.size() && !space(body_[pos_])) ++pos_;
    if (pos_ == start)
      throw Error(name_, "file is truncated: element " + ply::quote(e.name) + " has fewer values than its count");
    return body_.substr(start, pos_ - start);
  }

  double number(std::string_view tok, const Element& e) const {
    std::string_view t = tok;
    if (!t.empty() && t[0] == '+') t.remove_prefix(1);
    double v = 0;
    auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ptr != t.data() + t.size() || (ec != std::errc() && ec != std::errc::result_out_of_range))
      throw Error(name_, "element " + ply::quote(e.name) + ": " + ply::quote(tok) + " is not a number");
    if (ec == std::errc::result_out_of_range) return std::numeric_limits<double>::infinity();
    return v;
  }

  std::string_view body_;
  std::size_t pos_ = 0;
  const std::string& name_;
};

template <class Body>
void read_body(Body& body, const ply::Header& h, std::size_t vertex, const std::vector<Target>& targets,
               const std::function<void(std::size_t)>& resize) {
  for (std::size_t i = 0; i < h.elements.size(); ++i) {
    if (i == vertex) body.read_vertices(h.elements[i], targets, resize);
    else body.skip(h.elements[i]);
  }
}

}  // namespace

namespace ply {

std::size_t vertex_element(const Header& h, const std::string& name) {
  for (std::size_t i = 0; i < h.elements.size(); ++i)
    if (h.elements[i].name == "vertex") return i;
  throw Error(name, "PLY file has no vertex element");
}

void read_vertex_body(const std::string& data, const Header& h, std::size_t vertex, const std::vector<Target>& targets,
                      const std::function<void(std::size_t)>& resize, const std::string& name) {
  const std::string_view body = std::string_view(data).substr(h.body_offset);
  if (h.format == Format::Ascii) {
    AsciiBody b(body, name);
    read_body(b, h, vertex, targets, resize);
  } else {
    const bool file_big = h.format == Format::BinaryBigEndian;
    BinaryBody b(body, file_big != (std::endian::native == std::endian::big), name);
    read_body(b, h, vertex, targets, resize);
  }
}

}  // namespace ply

GaussianModel read_ply_bytes(const std::string& data, const std::string& name) {
  const ply::Header h = ply::parse_header(data, name);
  const std::size_t vertex = ply::vertex_element(h, name);
  GaussianModel m;
  const std::vector<Target> targets = map_vertex(h.elements[vertex], m, name);
  ply::read_vertex_body(data, h, vertex, targets, [&m](std::size_t n) { m.resize(n); }, name);
  for (const std::string& c : h.comments)
    if (c == kPlyAntialiasedComment) m.antialiased = true;
  return m;
}

GaussianModel read_ply(const std::string& path) { return read_ply_bytes(read_file_bytes(path), path); }

}  // namespace glint

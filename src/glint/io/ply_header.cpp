#include "glint/io/ply_header.h"

#include <charconv>
#include <set>

#include "glint/core/error.h"

namespace glint::ply {

int type_size(Type t) {
  switch (t) {
    case Type::Int8:
    case Type::UInt8: return 1;
    case Type::Int16:
    case Type::UInt16: return 2;
    case Type::Int32:
    case Type::UInt32:
    case Type::Float32: return 4;
    case Type::Float64: return 8;
  }
  return 0;
}

bool is_integer(Type t) { return t != Type::Float32 && t != Type::Float64; }

bool Element::has_lists() const {
  for (const auto& p : props)
    if (p.is_list) return true;
  return false;
}

std::size_t Element::fixed_row_size() const {
  std::size_t s = 0;
  for (const auto& p : props) s += static_cast<std::size_t>(type_size(p.type));
  return s;
}

std::string quote(std::string_view text) {
  constexpr std::size_t kMax = 60;
  std::string out = "'";
  for (std::size_t i = 0; i < text.size() && i < kMax; ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    out += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
  }
  if (text.size() > kMax) out += "...";
  return out + "'";
}

namespace {

bool parse_type(std::string_view s, Type& t) {
  static const std::pair<std::string_view, Type> kNames[] = {
      {"char", Type::Int8},     {"int8", Type::Int8},       {"uchar", Type::UInt8},
      {"uint8", Type::UInt8},   {"short", Type::Int16},     {"int16", Type::Int16},
      {"ushort", Type::UInt16}, {"uint16", Type::UInt16},   {"int", Type::Int32},
      {"int32", Type::Int32},   {"uint", Type::UInt32},     {"uint32", Type::UInt32},
      {"float", Type::Float32}, {"float32", Type::Float32}, {"double", Type::Float64},
      {"float64", Type::Float64}};
  for (const auto& [n, v] : kNames)
    if (s == n) {
      t = v;
      return true;
    }
  return false;
}

std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    std::size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (j > i) words.push_back(line.substr(i, j - i));
    i = j;
  }
  return words;
}

}  // namespace

Header parse_header(std::string_view data, const std::string& name) {
  if (data.substr(0, 3) != "ply" || (data.size() > 3 && data[3] != '\n' && data[3] != '\r'))
    throw Error(name, "not a PLY file (it does not start with a 'ply' line)");
  Header h;
  bool have_format = false;
  std::set<std::string, std::less<>> element_names;
  std::size_t pos = 0;
  for (int line_no = 1;; ++line_no) {
    const std::size_t nl = data.find('\n', pos);
    if (nl == std::string_view::npos) throw Error(name, "PLY header has no end_header line");
    std::string_view line = data.substr(pos, nl - pos);
    pos = nl + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);  // CRLF headers
    if (line_no == 1) continue;  // the 'ply' magic, checked above
    const auto w = split_words(line);
    if (w.empty()) continue;
    const std::string where = "PLY header line " + std::to_string(line_no) + " " + quote(line);
    if (w[0] == "comment") {
      const std::size_t at = line.find("comment") + 7;
      std::string_view text = line.substr(at);
      while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
      h.comments.emplace_back(text);
      continue;
    }
    if (w[0] == "obj_info") continue;
    if (w[0] == "end_header") {
      if (!have_format) throw Error(name, "PLY header has no format line");
      h.body_offset = pos;
      return h;
    }
    if (w[0] == "format") {
      if (w.size() != 3) throw Error(name, where + ": expected 'format <type> 1.0'");
      if (w[1] == "ascii") h.format = Format::Ascii;
      else if (w[1] == "binary_little_endian") h.format = Format::BinaryLittleEndian;
      else if (w[1] == "binary_big_endian") h.format = Format::BinaryBigEndian;
      else throw Error(name, where + ": unknown PLY format " + quote(w[1]));
      if (w[2] != "1.0" && w[2] != "1") throw Error(name, where + ": unsupported PLY version " + quote(w[2]));
      have_format = true;
    } else if (w[0] == "element") {
      if (w.size() != 3) throw Error(name, where + ": expected 'element <name> <count>'");
      Element e;
      e.name = std::string(w[1]);
      const char* b = w[2].data();
      const char* end = b + w[2].size();
      auto [p, ec] = std::from_chars(b, end, e.count);
      if (ec != std::errc() || p != end)
        throw Error(name, where + ": element count " + quote(w[2]) + " is not a non-negative whole number");
      if (!element_names.insert(e.name).second) throw Error(name, where + ": element " + quote(e.name) + " appears twice");
      h.elements.push_back(std::move(e));
    } else if (w[0] == "property") {
      if (h.elements.empty()) throw Error(name, where + ": property before any element");
      Property prop;
      if (w.size() >= 2 && w[1] == "list") {
        if (w.size() != 5) throw Error(name, where + ": expected 'property list <count type> <type> <name>'");
        if (!parse_type(w[2], prop.count_type) || !is_integer(prop.count_type))
          throw Error(name, where + ": list count type " + quote(w[2]) + " is not an integer type");
        if (!parse_type(w[3], prop.type)) throw Error(name, where + ": unknown property type " + quote(w[3]));
        prop.is_list = true;
        prop.name = std::string(w[4]);
      } else {
        if (w.size() != 3) throw Error(name, where + ": expected 'property <type> <name>'");
        if (!parse_type(w[1], prop.type)) throw Error(name, where + ": unknown property type " + quote(w[1]));
        prop.name = std::string(w[2]);
      }
      for (const auto& other : h.elements.back().props)
        if (other.name == prop.name) throw Error(name, where + ": property " + quote(prop.name) + " appears twice");
      h.elements.back().props.push_back(std::move(prop));
    } else {
      throw Error(name, where + ": unknown header keyword " + quote(w[0]));
    }
  }
}

}  // namespace glint::ply

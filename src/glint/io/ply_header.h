#pragma once
// The PLY header as data: what the body holds and where it starts. Internal to the PLY
// reader; kept apart so the byte-level body code stays short.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace glint::ply {

enum class Format { Ascii, BinaryLittleEndian, BinaryBigEndian };
enum class Type { Int8, UInt8, Int16, UInt16, Int32, UInt32, Float32, Float64 };

int type_size(Type t);
bool is_integer(Type t);

struct Property {
  std::string name;
  Type type = Type::Float32;  // the item type, for a list
  bool is_list = false;
  Type count_type = Type::UInt8;  // lists only
};

struct Element {
  std::string name;
  std::uint64_t count = 0;
  std::vector<Property> props;
  bool has_lists() const;
  std::size_t fixed_row_size() const;  // bytes a row, when !has_lists()
};

struct Header {
  Format format = Format::BinaryLittleEndian;
  std::vector<Element> elements;
  std::size_t body_offset = 0;  // first byte after the end_header line
  std::vector<std::string> comments;  // the text after "comment ", in order
};

// Parses the header at the start of `data`; throws glint::Error(name, ...) if it is not one.
Header parse_header(std::string_view data, const std::string& name);

// A header fragment fit for a one-line error message: printable, bounded in length.
std::string quote(std::string_view text);

}  // namespace glint::ply

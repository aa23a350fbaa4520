#pragma once
// Bounds-checked little-endian reads from an in-memory file: every read past the end, and
// every element count larger than the bytes left could hold, becomes a glint::Error that
// names the file instead of a crash or a huge allocation.
#include <cstdint>
#include <cstring>
#include <string>

#include "glint/core/error.h"

namespace glint {

class ByteReader {
 public:
  ByteReader(const std::string& data, std::string name) : data_(data), name_(std::move(name)) {}

  template <class T>
  T read(const char* what) {
    need(sizeof(T), what);
    T v;
    std::memcpy(&v, data_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }

  // A NUL-terminated string.
  std::string read_cstring(const char* what) {
    std::size_t end = data_.find('\0', pos_);
    if (end == std::string::npos) throw Error(name_, std::string("truncated file: unterminated ") + what);
    std::string s = data_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return s;
  }

  void skip(std::uint64_t bytes, const char* what) {
    need(bytes, what);
    pos_ += static_cast<std::size_t>(bytes);
  }

  // Rejects a count of records of at least `min_record_bytes` each that cannot fit in what
  // is left of the file, before anyone allocates for it.
  void check_count(std::uint64_t count, std::uint64_t min_record_bytes, const char* what) const {
    if (min_record_bytes > 0 && count > remaining() / min_record_bytes)
      throw Error(name_, "corrupted file: " + std::to_string(count) + " " + what +
                             " cannot fit in the " + std::to_string(remaining()) + " bytes left");
  }

  std::size_t remaining() const { return data_.size() - pos_; }
  bool at_end() const { return pos_ == data_.size(); }
  const std::string& name() const { return name_; }

 private:
  void need(std::uint64_t bytes, const char* what) const {
    if (bytes > remaining()) throw Error(name_, std::string("truncated file while reading ") + what);
  }

  const std::string& data_;
  std::string name_;
  std::size_t pos_ = 0;
};

}  // namespace glint

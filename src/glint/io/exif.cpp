#include "glint/io/exif.h"

#include <cstdint>
#include <fstream>

#include "glint/core/error.h"

namespace glint {

namespace {

// A TIFF structure inside the EXIF segment: byte order from its header, every read
// checked against the segment's end (a bad offset ends the parse, not the program).
class Tiff {
 public:
  Tiff(const std::string& s, std::size_t begin, std::size_t end) : s_(s), begin_(begin), end_(end) {}

  bool ok(std::size_t off, std::size_t n) const { return off <= end_ - begin_ && n <= end_ - begin_ - off; }
  std::uint32_t u(std::size_t off, int bytes) const {
    std::uint32_t v = 0;
    for (int i = 0; i < bytes; ++i) {
      const auto b = static_cast<std::uint8_t>(s_[begin_ + off + static_cast<std::size_t>(little_ ? bytes - 1 - i : i)]);
      v = (v << 8) | b;
    }
    return v;
  }
  bool header(std::uint32_t& ifd0) {
    if (!ok(0, 8)) return false;
    if (s_.compare(begin_, 2, "II") == 0) {
      little_ = true;
    } else if (s_.compare(begin_, 2, "MM") == 0) {
      little_ = false;
    } else {
      return false;
    }
    if (u(2, 2) != 42) return false;
    ifd0 = u(4, 4);
    return true;
  }

  struct Entry {
    std::uint16_t tag, type;
    std::uint32_t count;
    std::size_t value_off;  // where the value is: inline in the entry or at its offset
  };

  // Calls f(entry) for each entry of the IFD at `off`.
  template <class F>
  void each(std::uint32_t off, F&& f) const {
    if (!ok(off, 2)) return;
    const std::uint32_t n = u(off, 2);
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::size_t e = off + 2 + 12 * std::size_t(i);
      if (!ok(e, 12)) return;
      Entry en{static_cast<std::uint16_t>(u(e, 2)), static_cast<std::uint16_t>(u(e + 2, 2)), u(e + 4, 4), e + 8};
      const std::size_t unit = en.type == 3 ? 2 : en.type == 4 ? 4 : en.type == 5 ? 8 : 1;
      if (std::uint64_t(unit) * en.count > 4) en.value_off = u(e + 8, 4);
      f(en);
    }
  }

  std::string ascii(const Entry& e) const {
    if (e.type != 2 || !ok(e.value_off, e.count)) return "";
    std::string v = s_.substr(begin_ + e.value_off, e.count);
    v = v.substr(0, v.find('\0'));
    while (!v.empty() && v.back() == ' ') v.pop_back();
    return v;
  }
  double number(const Entry& e) const {
    if (e.count < 1) return 0;
    if (e.type == 3 && ok(e.value_off, 2)) return u(e.value_off, 2);
    if (e.type == 4 && ok(e.value_off, 4)) return u(e.value_off, 4);
    if (e.type == 5 && ok(e.value_off, 8)) {
      const double den = u(e.value_off + 4, 4);
      return den > 0 ? u(e.value_off, 4) / den : 0;
    }
    return 0;
  }

 private:
  const std::string& s_;
  std::size_t begin_, end_;
  bool little_ = true;
};

}  // namespace

ExifInfo parse_exif(const std::string& b) {
  ExifInfo info;
  if (b.size() < 4 || static_cast<std::uint8_t>(b[0]) != 0xFF || static_cast<std::uint8_t>(b[1]) != 0xD8) return info;
  std::size_t p = 2;
  while (p + 4 <= b.size()) {
    if (static_cast<std::uint8_t>(b[p]) != 0xFF) return info;
    const auto marker = static_cast<std::uint8_t>(b[p + 1]);
    if (marker == 0xD8 || (marker >= 0xD0 && marker <= 0xD7) || marker == 0x01 || marker == 0xFF) {
      p += marker == 0xFF ? 1 : 2;  // fill bytes and markers without a length
      continue;
    }
    if (marker == 0xDA || marker == 0xD9) return info;  // image data: no EXIF came first
    const std::size_t len = (std::size_t(static_cast<std::uint8_t>(b[p + 2])) << 8) | static_cast<std::uint8_t>(b[p + 3]);
    if (len < 2 || p + 2 + len > b.size()) return info;
    const std::size_t body = p + 4, body_end = p + 2 + len;
    if (marker == 0xE1 && body_end - body >= 14 && b.compare(body, 6, std::string("Exif\0\0", 6)) == 0) {
      Tiff t(b, body + 6, body_end);
      std::uint32_t ifd0 = 0;
      if (!t.header(ifd0)) return info;
      std::uint32_t exif_ifd = 0;
      t.each(ifd0, [&](const Tiff::Entry& e) {
        if (e.tag == 0x010F) info.make = t.ascii(e);
        if (e.tag == 0x0110) info.model = t.ascii(e);
        if (e.tag == 0x8769) exif_ifd = static_cast<std::uint32_t>(t.number(e));
      });
      if (exif_ifd > 0 && exif_ifd != ifd0)
        t.each(exif_ifd, [&](const Tiff::Entry& e) {
          if (e.tag == 0x920A) info.focal_mm = t.number(e);
          if (e.tag == 0xA405) info.focal_35mm = t.number(e);
        });
      return info;
    }
    p = body_end;
  }
  return info;
}

ExifInfo read_exif(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path, "cannot open");
  // EXIF sits in the first segments; 256 KiB covers it with embedded thumbnails.
  std::string head(256 * 1024, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  return parse_exif(head);
}

}  // namespace glint

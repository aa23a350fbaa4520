#include "glint/io/exr.h"

#include <ImathBox.h>
#include <ImfChannelList.h>
#include <ImfFrameBuffer.h>
#include <ImfHeader.h>
#include <ImfIO.h>
#include <ImfInputFile.h>
#include <ImfVersion.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "glint/core/error.h"
#include "glint/io/file_bytes.h"

namespace glint {

namespace {

// The file's bytes as OpenEXR's input stream: the file is read once through
// read_file_bytes (its errors name the file), and a truncated file fails inside the
// library as a read past the end instead of a short read from disk.
class MemoryStream : public Imf::IStream {
 public:
  MemoryStream(const std::string& name, const std::string& bytes) : Imf::IStream(name.c_str()), bytes_(bytes) {}
  bool read(char c[], int n) override {
    if (n < 0 || pos_ + static_cast<std::uint64_t>(n) > bytes_.size()) throw std::runtime_error("unexpected end of file");
    std::memcpy(c, bytes_.data() + pos_, static_cast<std::size_t>(n));
    pos_ += static_cast<std::uint64_t>(n);
    return pos_ < bytes_.size();
  }
  std::uint64_t tellg() override { return pos_; }
  void seekg(std::uint64_t pos) override { pos_ = pos; }

 private:
  const std::string& bytes_;
  std::uint64_t pos_ = 0;
};

// Larger than any environment map or render, small enough that a corrupt header's data
// window cannot ask for an absurd allocation.
constexpr long long kMaxSide = 1 << 16;
constexpr long long kMaxPixels = 1LL << 28;

std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

}  // namespace

ImageF read_openexr(const std::string& path) {
  const std::string bytes = read_file_bytes(path);
  if (bytes.size() < 8 || !Imf::isImfMagic(bytes.data())) throw Error(path, "not an OpenEXR file (bad magic number)");
  try {
    MemoryStream stream(path, bytes);
    Imf::InputFile file(stream);
    const Imath::Box2i dw = file.header().dataWindow();
    const long long w = static_cast<long long>(dw.max.x) - dw.min.x + 1;
    const long long h = static_cast<long long>(dw.max.y) - dw.min.y + 1;
    if (w <= 0 || h <= 0 || w > kMaxSide || h > kMaxSide || w * h > kMaxPixels)
      throw Error(path, "OpenEXR data window " + std::to_string(w) + "x" + std::to_string(h) + " out of range");
    const Imf::ChannelList& ch = file.header().channels();
    const bool rgb = ch.findChannel("R") && ch.findChannel("G") && ch.findChannel("B");
    if (!rgb && !ch.findChannel("Y"))
      throw Error(path, "OpenEXR file has no R, G and B channels (nor a luminance channel Y)");
    for (const char* c : {"R", "G", "B", "Y"})
      if (const Imf::Channel* p = ch.findChannel(c); p && (p->xSampling != 1 || p->ySampling != 1))
        throw Error(path, std::string("OpenEXR channel ") + c + " is subsampled, which is not supported");
    ImageF img(static_cast<int>(w), static_cast<int>(h), 3);
    const std::size_t xs = 3 * sizeof(float), ys = xs * static_cast<std::size_t>(w);
    Imf::FrameBuffer fb;
    const char* names[3] = {"R", "G", "B"};
    for (int c = 0; c < (rgb ? 3 : 1); ++c)
      fb.insert(rgb ? names[c] : "Y", Imf::Slice::Make(Imf::FLOAT, img.data.data() + c, dw, xs, ys));
    file.setFrameBuffer(fb);
    file.readPixels(dw.min.y, dw.max.y);
    if (!rgb)
      for (std::size_t i = 0; i < img.data.size(); i += 3) img.data[i + 1] = img.data[i + 2] = img.data[i];
    return img;
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(path, "cannot decode OpenEXR: " + one_line(e.what()));
  }
}

}  // namespace glint

#include "glint/io/image_io.h"

#include <stb_image.h>
#include <stb_image_write.h>

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "glint/core/error.h"

namespace glint {

namespace {

// stb's reason for its last failure on this thread; it gives none for some broken files
// (a PNG cut short inside its pixel data: an empty string).
std::string stb_reason() {
  const char* r = stbi_failure_reason();
  return r && *r ? r : "corrupt or truncated data";
}

void check_exists(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw Error(path, "image file is missing");
}

}  // namespace

ImageInfo read_image_info(const std::string& path) {
  check_exists(path);
  ImageInfo info;
  if (!stbi_info(path.c_str(), &info.width, &info.height, &info.channels))
    throw Error(path, "not a readable image (" + stb_reason() + ")");
  return info;
}

Image8 read_image(const std::string& path) {
  check_exists(path);
  int w = 0, h = 0, c = 0;
  unsigned char* pixels = stbi_load(path.c_str(), &w, &h, &c, 0);
  if (!pixels) throw Error(path, "cannot decode image (" + stb_reason() + ")");
  Image8 img;
  img.width = w;
  img.height = h;
  img.channels = c;
  img.data.assign(pixels, pixels + static_cast<std::size_t>(w) * h * c);
  stbi_image_free(pixels);
  return img;
}

std::string encode_png(const Image8& image) {
  // stb tries all five row filters and keeps the smallest row; Paeth alone gives files
  // within a few per mille of that on rendered images and skips four trial encodings a row.
  static const bool paeth = (stbi_write_force_png_filter = 4, true);
  (void)paeth;
  std::string out;
  auto sink = [](void* ctx, void* data, int size) {
    static_cast<std::string*>(ctx)->append(static_cast<const char*>(data), static_cast<std::size_t>(size));
  };
  if (!stbi_write_png_to_func(sink, &out, image.width, image.height, image.channels, image.data.data(),
                              image.width * image.channels))
    throw Error("PNG encoder failed");
  return out;
}

std::string encode_jpeg(const Image8& image, int quality) {
  if (image.channels != 1 && image.channels != 3) throw Error("JPEG encoder: grey or RGB images only");
  std::string out;
  auto sink = [](void* ctx, void* data, int size) {
    static_cast<std::string*>(ctx)->append(static_cast<const char*>(data), static_cast<std::size_t>(size));
  };
  if (!stbi_write_jpg_to_func(sink, &out, image.width, image.height, image.channels, image.data.data(), quality))
    throw Error("JPEG encoder failed");
  return out;
}

namespace {

void put_u32(std::string& out, std::uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<char>((v >> s) & 0xff));
}

void put_chunk(std::string& out, const char type[4], const unsigned char* data, std::size_t size) {
  put_u32(out, static_cast<std::uint32_t>(size));
  const std::size_t start = out.size();
  out.append(type, 4);
  out.append(reinterpret_cast<const char*>(data), size);
  const uLong crc = crc32(0L, reinterpret_cast<const Bytef*>(out.data() + start), static_cast<uInt>(size + 4));
  put_u32(out, static_cast<std::uint32_t>(crc));
}

}  // namespace

std::string encode_png_fast(const Image8& image) {
  static const unsigned char kColourType[5] = {0, 0, 4, 2, 6};  // by channel count
  const int w = image.width, h = image.height, c = image.channels;
  if (w <= 0 || h <= 0 || c < 1 || c > 4 || image.data.size() != static_cast<std::size_t>(w) * h * c)
    throw Error("PNG encoder: an image of 1-4 channels and matching size expected");
  // Bands of rows, each filtered and deflated on its own thread as a piece of one zlib
  // stream: every band but the last ends on a byte boundary (a sync flush), so their raw
  // deflate data joins as it is, and the stream's Adler-32 combines the bands'. A band
  // starts without the previous one's window, which costs a few bytes. The band count
  // depends on the image alone, so the file's bytes do not depend on the thread count.
  const std::size_t stride = static_cast<std::size_t>(w) * c, line = stride + 1;
  const int bands = std::clamp(h / 128, 1, 4);
  struct Band {
    std::vector<unsigned char> z;
    uLong adler = 1, size = 0;
    bool ok = false;
  };
  std::vector<Band> band(static_cast<std::size_t>(bands));
#pragma omp parallel for schedule(dynamic, 1)
  for (int b = 0; b < bands; ++b) {
    const int y0 = static_cast<int>(static_cast<long>(h) * b / bands), y1 = static_cast<int>(static_cast<long>(h) * (b + 1) / bands);
    // Paeth filter (PNG type 4); the row above the first is zeros, as the format defines.
    std::vector<unsigned char> filtered(static_cast<std::size_t>(y1 - y0) * line);
    for (int y = y0; y < y1; ++y) {
      const unsigned char* row = image.data.data() + static_cast<std::size_t>(y) * stride;
      const unsigned char* up = y > 0 ? row - stride : nullptr;
      unsigned char* o = filtered.data() + static_cast<std::size_t>(y - y0) * line;
      o[0] = 4;
      for (std::size_t i = 0; i < stride; ++i) {
        const int a = i >= static_cast<std::size_t>(c) ? row[i - c] : 0, bb = up ? up[i] : 0,
                  d = (up && i >= static_cast<std::size_t>(c)) ? up[i - c] : 0;
        const int p = a + bb - d, pa = std::abs(p - a), pb = std::abs(p - bb), pd = std::abs(p - d);
        const int pred = pa <= pb && pa <= pd ? a : (pb <= pd ? bb : d);
        o[1 + i] = static_cast<unsigned char>(row[i] - pred);
      }
    }
    Band& out = band[static_cast<std::size_t>(b)];
    out.size = static_cast<uLong>(filtered.size());
    out.adler = adler32(1L, filtered.data(), static_cast<uInt>(filtered.size()));
    z_stream zs{};
    if (deflateInit2(&zs, Z_BEST_SPEED, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) continue;
    out.z.resize(deflateBound(&zs, out.size) + 16);
    zs.next_in = filtered.data();
    zs.avail_in = static_cast<uInt>(filtered.size());
    zs.next_out = out.z.data();
    zs.avail_out = static_cast<uInt>(out.z.size());
    const int flush = b + 1 == bands ? Z_FINISH : Z_SYNC_FLUSH;
    const int rc = deflate(&zs, flush);
    out.ok = (flush == Z_FINISH ? rc == Z_STREAM_END : rc == Z_OK) && zs.avail_in == 0;
    out.z.resize(out.z.size() - zs.avail_out);
    deflateEnd(&zs);
  }
  std::string idat("\x78\x01", 2);  // zlib header: deflate, 32 KiB window, fastest level
  uLong adler = 1;
  for (const Band& b : band) {
    if (!b.ok) throw Error("PNG encoder failed");
    idat.append(reinterpret_cast<const char*>(b.z.data()), b.z.size());
    adler = adler32_combine(adler, b.adler, static_cast<z_off_t>(b.size));
  }
  put_u32(idat, static_cast<std::uint32_t>(adler));
  std::string out("\x89PNG\r\n\x1a\n", 8);
  unsigned char ihdr[13] = {0, 0, 0, 0, 0, 0, 0, 0, 8, kColourType[c], 0, 0, 0};
  for (int k = 0; k < 4; ++k) {
    ihdr[k] = static_cast<unsigned char>((static_cast<std::uint32_t>(w) >> (24 - 8 * k)) & 0xff);
    ihdr[4 + k] = static_cast<unsigned char>((static_cast<std::uint32_t>(h) >> (24 - 8 * k)) & 0xff);
  }
  put_chunk(out, "IHDR", ihdr, sizeof(ihdr));
  put_chunk(out, "IDAT", reinterpret_cast<const unsigned char*>(idat.data()), idat.size());
  put_chunk(out, "IEND", nullptr, 0);
  return out;
}

}  // namespace glint

#include "glint/io/gzip.h"

#include <zlib.h>

#include <algorithm>
#include <climits>

#include "glint/core/error.h"

namespace glint {

namespace {
// windowBits 15 + 16: gzip framing (header and CRC-32 trailer), not zlib's.
constexpr int kGzipWindow = 15 + 16;
// zlib counts in uInt; feed it at most this much at a time.
constexpr std::size_t kChunk = std::size_t(1) << 30;
}  // namespace

std::string gzip_compress(const std::string& data) {
  z_stream z{};
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, kGzipWindow, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw Error("gzip: cannot start the compressor");
  std::string out(deflateBound(&z, static_cast<uLong>(std::min(data.size(), std::size_t(ULONG_MAX)))) + 64, '\0');
  std::size_t in_pos = 0, out_pos = 0;
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    if (out_pos == out.size()) out.resize(out.size() * 2);
    const std::size_t in_now = std::min(kChunk, data.size() - in_pos);
    const std::size_t out_now = std::min(kChunk, out.size() - out_pos);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data() + in_pos));
    z.avail_in = static_cast<uInt>(in_now);
    z.next_out = reinterpret_cast<Bytef*>(out.data() + out_pos);
    z.avail_out = static_cast<uInt>(out_now);
    rc = deflate(&z, in_pos + in_now == data.size() ? Z_FINISH : Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
      deflateEnd(&z);
      throw Error("gzip: compression failed");
    }
    in_pos += in_now - z.avail_in;
    out_pos += out_now - z.avail_out;
  }
  deflateEnd(&z);
  out.resize(out_pos);
  return out;
}

struct GzipReader::State {
  z_stream z{};
  const std::string* data = nullptr;
  std::size_t in_pos = 0;  // bytes of data handed to zlib so far
  bool ended = false;
};

GzipReader::GzipReader(const std::string& data, std::string name) : s_(std::make_unique<State>()), name_(std::move(name)) {
  s_->data = &data;
  if (data.size() < 2 || static_cast<unsigned char>(data[0]) != 0x1f || static_cast<unsigned char>(data[1]) != 0x8b)
    throw Error(name_, data.empty() ? "empty file" : "not a gzip stream (an .spz file is gzip-compressed)");
  if (inflateInit2(&s_->z, kGzipWindow) != Z_OK) throw Error(name_, "cannot start the gzip decompressor");
}

GzipReader::~GzipReader() { inflateEnd(&s_->z); }

std::size_t GzipReader::compressed_left() const { return s_->data->size() - s_->in_pos + s_->z.avail_in; }

void GzipReader::read(void* out, std::size_t bytes, const char* what) {
  auto* dst = static_cast<unsigned char*>(out);
  std::size_t done = 0;
  z_stream& z = s_->z;
  while (done < bytes) {
    if (s_->ended)
      throw Error(name_, "truncated file: the data ends after " + std::to_string(produced_) +
                             " bytes, inside the " + what);
    if (z.avail_in == 0 && s_->in_pos < s_->data->size()) {
      const std::size_t now = std::min(kChunk, s_->data->size() - s_->in_pos);
      z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(s_->data->data() + s_->in_pos));
      z.avail_in = static_cast<uInt>(now);
      s_->in_pos += now;
    }
    const std::size_t want = std::min(kChunk, bytes - done);
    z.next_out = dst + done;
    z.avail_out = static_cast<uInt>(want);
    const int rc = inflate(&z, Z_NO_FLUSH);
    const std::size_t got = want - z.avail_out;
    done += got;
    produced_ += got;
    if (rc == Z_STREAM_END) {
      s_->ended = true;
    } else if (rc == Z_BUF_ERROR || (rc == Z_OK && got == 0 && z.avail_in == 0)) {
      if (s_->in_pos >= s_->data->size() && z.avail_in == 0)
        throw Error(name_, std::string("truncated file: the gzip stream is cut off inside the ") + what);
    } else if (rc != Z_OK) {
      throw Error(name_, std::string("corrupt gzip data in the ") + what + (z.msg ? std::string(" (") + z.msg + ")" : ""));
    }
  }
}

void GzipReader::expect_end(const char* what) {
  unsigned char extra = 0;
  z_stream& z = s_->z;
  while (!s_->ended) {
    if (z.avail_in == 0 && s_->in_pos < s_->data->size()) {
      const std::size_t now = std::min(kChunk, s_->data->size() - s_->in_pos);
      z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(s_->data->data() + s_->in_pos));
      z.avail_in = static_cast<uInt>(now);
      s_->in_pos += now;
    }
    z.next_out = &extra;
    z.avail_out = 1;
    const int rc = inflate(&z, Z_NO_FLUSH);
    if (z.avail_out == 0)
      throw Error(name_, std::string("corrupted file: more data follows the ") + what +
                             " than the header accounts for");
    if (rc == Z_STREAM_END) {
      s_->ended = true;
    } else if (rc == Z_BUF_ERROR || (rc == Z_OK && z.avail_in == 0)) {
      if (s_->in_pos >= s_->data->size() && z.avail_in == 0)
        throw Error(name_, "truncated file: the gzip stream is cut off before its end");
    } else if (rc != Z_OK) {
      throw Error(name_, std::string("corrupt gzip data after the ") + what + (z.msg ? std::string(" (") + z.msg + ")" : ""));
    }
  }
  if (compressed_left() != 0)
    throw Error(name_, std::to_string(compressed_left()) + " unexpected bytes after the end of the gzip stream");
}

}  // namespace glint

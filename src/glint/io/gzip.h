#pragma once
// gzip streams through zlib: a whole buffer compressed, and a reader that inflates a file
// held in memory a piece at a time, so that a reader can check a header's counts before it
// allocates for the body. Every failure is a glint::Error naming the file.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace glint {

// One gzip member holding `data` (zlib's default level).
std::string gzip_compress(const std::string& data);

class GzipReader {
 public:
  // `data` must outlive the reader; `name` stands for the file in messages.
  GzipReader(const std::string& data, std::string name);
  ~GzipReader();
  GzipReader(const GzipReader&) = delete;
  GzipReader& operator=(const GzipReader&) = delete;

  // Exactly `bytes` decompressed bytes into out; `what` names them when the stream ends
  // or breaks first.
  void read(void* out, std::size_t bytes, const char* what);
  // Checks that the stream ends here (its checksum verified by zlib) and that no bytes
  // follow it in the file.
  void expect_end(const char* what);
  // Bytes of the file not yet consumed by the inflater.
  std::size_t compressed_left() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
  std::string name_;
  std::uint64_t produced_ = 0;
};

}  // namespace glint

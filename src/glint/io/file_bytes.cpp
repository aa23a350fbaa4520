#include "glint/io/file_bytes.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "glint/core/error.h"

namespace glint {

std::string read_file_bytes(const std::string& path) {
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(st)) throw Error(path, "no such file");
  if (std::filesystem::is_directory(st)) throw Error(path, "is a folder, not a file");
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path, std::string("cannot open file") + (errno ? std::string(": ") + std::strerror(errno) : ""));
  // Read at its size in one piece, where the size is known: growing a string while reading
  // copies it over and over, and touches twice its size of fresh memory.
  std::string data;
  if (std::filesystem::is_regular_file(st)) {
    const std::uintmax_t size = std::filesystem::file_size(path, ec);
    if (!ec && size > 0) {
      data.resize(static_cast<std::size_t>(size));
      in.read(data.data(), static_cast<std::streamsize>(size));
      data.resize(static_cast<std::size_t>(in.gcount()));
    }
  }
  // What is left: all of a stream of no known size (a pipe), or what a file grew by since.
  data.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (in.bad()) throw Error(path, "read failed");
  return data;
}

}  // namespace glint

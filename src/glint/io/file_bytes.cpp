#include "glint/io/file_bytes.h"

#include <cerrno>
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
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw Error(path, "read failed");
  return data;
}

}  // namespace glint

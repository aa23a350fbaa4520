#include "glint/io/byte_reader.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace glint {

std::string read_file_bytes(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw Error(path, "file not found");
  if (std::filesystem::is_directory(path, ec)) throw Error(path, "is a folder, expected a file");
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error(path, "cannot open file for reading");
  std::ostringstream ss;
  ss << f.rdbuf();
  if (f.bad()) throw Error(path, "read error");
  return ss.str();
}

}  // namespace glint

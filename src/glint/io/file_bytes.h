#pragma once
#include <string>

namespace glint {

// The whole content of a file; throws glint::Error(path, why) when it cannot be read.
std::string read_file_bytes(const std::string& path);

}  // namespace glint

#include "glint/io/json_file.h"

#include "glint/core/error.h"
#include "glint/io/file_bytes.h"

namespace glint {

nlohmann::json read_json_file(const std::string& path) {
  const std::string bytes = read_file_bytes(path);  // throws Error(path, ...) when unreadable
  try {
    return nlohmann::json::parse(bytes);
  } catch (const nlohmann::json::exception& e) {
    throw Error(path, std::string("invalid JSON: ") + e.what());
  }
}

}  // namespace glint

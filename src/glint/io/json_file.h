#pragma once
// A JSON file read whole, or glint::Error(path, "invalid JSON: ...") naming where it broke.
#include <nlohmann/json.hpp>
#include <string>

namespace glint {

nlohmann::json read_json_file(const std::string& path);

}  // namespace glint

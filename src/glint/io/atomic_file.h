#pragma once
// Every file the project writes goes through here, so a crash or a failed write never leaves
// a half-written result where a finished one (or the user's previous file) used to be.
#include <functional>
#include <ostream>
#include <string>

namespace glint {

// Writes `bytes` to `path` via a temporary file in the same folder and a rename over the
// target. On any failure the temporary is removed, the target is left untouched and a
// glint::Error naming `path` is thrown.
void write_file_atomic(const std::string& path, const std::string& bytes);

// Same, for writers that stream: `fill` writes the content to the given stream.
void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& fill);

}  // namespace glint

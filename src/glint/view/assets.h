#pragma once
// The viewer page's files, compiled into the binary from src/glint/view/page by
// cmake/EmbedFiles.cmake. Paths start with '/' and are exactly what the server answers.
#include <cstddef>
#include <span>
#include <string_view>

namespace glint::view {

struct Asset {
  const char* path;  // "/index.html", "/viewer.js", ...
  const unsigned char* data;
  std::size_t size;
};

std::span<const Asset> embedded_assets();

// MIME type from a path's extension (html, js, css, json, bin); "application/octet-stream"
// for anything else.
std::string_view mime_type_for(std::string_view path);

}  // namespace glint::view

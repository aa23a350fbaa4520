#include "glint/io/hdr.h"

#include <stb_image.h>

#include <algorithm>
#include <memory>

#include "glint/core/error.h"
#include "glint/io/file_bytes.h"

namespace glint {

ImageF read_radiance_hdr(const std::string& path) {
  const std::string bytes = read_file_bytes(path);
  const auto* p = reinterpret_cast<const stbi_uc*>(bytes.data());
  const int n = static_cast<int>(bytes.size());
  // stb would decode an 8-bit image as float too; an environment must be real HDR.
  if (!stbi_is_hdr_from_memory(p, n)) throw Error(path, "not a Radiance .hdr image");
  int w = 0, h = 0, c = 0;
  std::unique_ptr<float, void (*)(void*)> px(stbi_loadf_from_memory(p, n, &w, &h, &c, 3), stbi_image_free);
  if (!px) throw Error(path, std::string("cannot decode .hdr (") + (stbi_failure_reason() ? stbi_failure_reason() : "?") + ")");
  ImageF img(w, h, 3);
  std::copy_n(px.get(), img.data.size(), img.data.begin());
  return img;
}

}  // namespace glint

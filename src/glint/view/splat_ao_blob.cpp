#include "glint/view/splat_ao_blob.h"

#include <bit>
#include <cstring>

#include "glint/light/relighter.h"
#include "glint/light/splat_occlusion.h"

namespace glint::view {

static_assert(std::endian::native == std::endian::little, "the blob is written by memcpy as little endian");

AoParams page_ao_params() {
  AoParams p;
  p.depth = ShadowDepth::Expected;
  return p;
}

AoMaps render_page_ao_maps(Backend& backend, const GaussianModel& model) {
  return render_ao_maps(backend, model, robust_bounds(model), page_ao_params());
}

std::string encode_splat_ao_blob(const AoMaps& maps, const GaussianModel& model) {
  const std::vector<float> ao = splat_ambient_occlusion(maps, model);
  std::string out("GLAO", 4);
  const std::uint32_t head[2] = {kSplatAoBlobVersion, static_cast<std::uint32_t>(model.size())};
  out.append(reinterpret_cast<const char*>(head), sizeof head);
  out.append(reinterpret_cast<const char*>(ao.data()), ao.size() * sizeof(float));
  return out;
}

}  // namespace glint::view

#include "glint/view/model_blob.h"

#include <bit>
#include <cstring>

namespace glint::view {

static_assert(std::endian::native == std::endian::little, "the blob is written by memcpy as little endian");

namespace {

void put_u32(std::string& out, std::uint32_t v) {
  char b[4];
  std::memcpy(b, &v, 4);
  out.append(b, 4);
}
void put_floats(std::string& out, const float* p, std::size_t n) {
  out.append(reinterpret_cast<const char*>(p), n * sizeof(float));
}

}  // namespace

std::string encode_model_blob(const GaussianModel& m) {
  const std::size_t n = m.size();
  const int deg = m.sh_degree;
  const auto rest = static_cast<std::size_t>(sh_rest_count(deg));
  std::string out;
  out.reserve(20 + n * (14 + rest * 3) * sizeof(float));
  out.append("GLVW", 4);
  put_u32(out, kModelBlobVersion);
  put_u32(out, static_cast<std::uint32_t>(n));
  put_u32(out, static_cast<std::uint32_t>(deg));
  put_u32(out, m.antialiased ? kModelBlobAntialiased : 0u);
  put_floats(out, m.means.data(), n * 3);
  put_floats(out, m.log_scales.data(), n * 3);
  put_floats(out, m.quats.data(), n * 4);
  put_floats(out, m.opacity_logits.data(), n);
  put_floats(out, m.sh_dc.data(), n * 3);
  // Only the live coefficients: the model stores 15 a splat whatever its degree.
  for (std::size_t i = 0; i < n; ++i)
    put_floats(out, m.sh_rest.data() + i * kShRestCoeffs * 3, rest * 3);
  return out;
}

}  // namespace glint::view

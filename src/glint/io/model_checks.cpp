#include "glint/io/model_checks.h"

#include <cmath>

#include "glint/core/error.h"

namespace glint {

void check_model_shape(const GaussianModel& m, const std::string& name) {
  if (m.sh_degree < 0 || m.sh_degree > kMaxShDegree)
    throw Error(name, "SH degree " + std::to_string(m.sh_degree) + " is not in 0..3");
  const std::size_t n = m.size();
  auto want = [&](const std::vector<float>& v, std::size_t per, const char* what) {
    if (v.size() != n * per)
      throw Error(name, std::string("model array ") + what + " has " + std::to_string(v.size()) +
                            " values, expected " + std::to_string(n * per) + " for " + std::to_string(n) +
                            " splats");
  };
  want(m.means, 3, "means");
  want(m.log_scales, 3, "log_scales");
  want(m.quats, 4, "quats");
  want(m.sh_dc, 3, "sh_dc");
  want(m.sh_rest, kShRestCoeffs * 3, "sh_rest");
}

void check_model_finite(const GaussianModel& m, const std::string& name) {
  const std::size_t rest = static_cast<std::size_t>(sh_rest_count(m.sh_degree)) * 3;
  for (std::size_t i = 0; i < m.size(); ++i) {
    auto check = [&](const float* v, std::size_t count, const char* what) {
      for (std::size_t j = 0; j < count; ++j)
        if (!std::isfinite(v[j]))
          throw Error(name, "splat " + std::to_string(i) + " has a non-finite " + what + " value");
    };
    check(&m.means[i * 3], 3, "position");
    check(&m.log_scales[i * 3], 3, "scale");
    check(&m.quats[i * 4], 4, "rotation");
    check(&m.opacity_logits[i], 1, "opacity");
    check(&m.sh_dc[i * 3], 3, "colour (f_dc)");
    check(&m.sh_rest[i * kShRestCoeffs * 3], rest, "SH (f_rest)");
  }
}

}  // namespace glint

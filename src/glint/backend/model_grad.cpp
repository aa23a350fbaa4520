#include "glint/backend/backend.h"

namespace glint {

void ModelGrad::resize(std::size_t n, bool with_mean2d_abs) {
  means.resize(n * 3);
  log_scales.resize(n * 3);
  quats.resize(n * 4);
  opacity_logits.resize(n);
  sh_dc.resize(n * 3);
  sh_rest.resize(n * kShRestCoeffs * 3);
  mean2d.resize(n * 2);
  mean2d_abs.resize(with_mean2d_abs ? n : 0);
}

}  // namespace glint

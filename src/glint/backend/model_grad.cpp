#include "glint/backend/backend.h"

namespace glint {

void ModelGrad::resize(std::size_t n, bool with_mean2d_abs) {
  resize_splat_arrays(*this, n);
  mean2d.resize(n * 2);
  mean2d_abs.resize(with_mean2d_abs ? n : 0);
}

}  // namespace glint

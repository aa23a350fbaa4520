#pragma once
// One Adam update of one value, torch.optim.Adam's single-tensor form in float: the loop
// of train/adam.cpp and the CUDA backend's kernel both call this, so both compute it the
// same way.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "glint/core/hd.h"

namespace glint {

// What a group's step fixes for all its values (adam.cpp's prepare()).
struct AdamConsts {
  float b1, a1, b2, a2;  // beta1, 1 - beta1, beta2, 1 - beta2
  float bc2_sqrt;        // sqrt(1 - beta2^t)
  float eps;
  float step_size;       // lr / (1 - beta1^t)
};

// Updates p, m and v in place for gradient g; returns whether p is left non-finite (an
// all-ones exponent: an integer test, which vectorises where a float comparison may not).
GLINT_HD inline unsigned adam_value(float& p, float g, float& m, float& v, const AdamConsts& c) {
  const float mj = c.b1 * m + c.a1 * g;
  const float vj = c.b2 * v + c.a2 * g * g;
  m = mj;
  v = vj;
  const float denom = sqrtf(vj) / c.bc2_sqrt + c.eps;
  const float pj = p - c.step_size * (mj / denom);
  p = pj;
  std::uint32_t u;
  std::memcpy(&u, &pj, sizeof(u));
  return static_cast<unsigned>((u & 0x7f800000u) == 0x7f800000u);
}

}  // namespace glint

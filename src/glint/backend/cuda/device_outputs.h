#pragma once
// What the device renderer draws: colour and alpha. The other outputs of
// backend/render_outputs.h (and AbsGS's statistic) have no device kernels yet.
#include "glint/backend/backend.h"

namespace glint::cuda {

// The first output `s` asks for that the device renderer does not draw, or null.
inline const char* missing_device_output(const RenderSettings& s) {
  for (int i = 0; i < aov::kCount; ++i)
    if (i != aov::alpha && wants(s, aov::Id(i))) return aov::kInfo[i].name;
  if (s.want_mean2d_abs) return "mean2d_abs (AbsGS's statistic)";
  return nullptr;
}

}  // namespace glint::cuda

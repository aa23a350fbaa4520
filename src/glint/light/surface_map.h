#pragma once
// Per-pixel maps over a view's surface points: every visibility-like quantity (shadow map,
// transmittance, ambient occlusion) is a function of a world position and a unit normal,
// evaluated where the view has a surface (non-zero normal) and 1 elsewhere.
#include <cmath>

#include "glint/core/error.h"
#include "glint/core/image.h"
#include "glint/core/math.h"

namespace glint {

template <class F>
ImageF map_surface_pixels(const ImageF& pos, const ImageF& nrm, const char* what, F f) {
  if (pos.channels != 3 || nrm.channels != 3 || pos.width != nrm.width || pos.height != nrm.height)
    throw Error(std::string(what) + ": positions and normals must be [H,W,3] of one size");
  ImageF out(pos.width, pos.height, 1, 1.f);
  const long n = static_cast<long>(pos.width) * pos.height;
#pragma omp parallel for schedule(dynamic, 64)
  for (long i = 0; i < n; ++i) {
    const Vec3f nf = load3(nrm.data.data(), i);
    if (!(nf.x * nf.x + nf.y * nf.y + nf.z * nf.z > 0)) continue;
    const Vec3f pf = load3(pos.data.data(), i);
    out.data[static_cast<std::size_t>(i)] =
        static_cast<float>(f(Vec3d{pf.x, pf.y, pf.z}, normalize(Vec3d{nf.x, nf.y, nf.z})));
  }
  return out;
}

}  // namespace glint

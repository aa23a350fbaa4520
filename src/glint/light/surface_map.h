#pragma once
// Per-pixel maps over a view's surface points: every visibility-like quantity (shadow map,
// transmittance, ambient occlusion) is a function of a world position and a unit normal,
// evaluated where the view has a surface (non-zero normal) and 1 elsewhere. A colour
// quantity (f returns Vec3d, such as an environment's irradiance) gives [H,W,3], 0 elsewhere.
#include <cmath>
#include <type_traits>

#include "glint/core/error.h"
#include "glint/core/image.h"
#include "glint/core/math.h"

namespace glint {

inline void check_surface_images(const ImageF& pos, const ImageF& nrm, const char* what) {
  if (pos.channels != 3 || nrm.channels != 3 || pos.width != nrm.width || pos.height != nrm.height)
    throw Error(std::string(what) + ": positions and normals must be [H,W,3] of one size");
}

// f(i, x, n) for every surface pixel i, in parallel.
template <class F>
void for_surface_pixels(const ImageF& pos, const ImageF& nrm, const char* what, F f) {
  check_surface_images(pos, nrm, what);
  const long n = static_cast<long>(pos.width) * pos.height;
#pragma omp parallel for schedule(dynamic, 64)
  for (long i = 0; i < n; ++i) {
    const Vec3f nf = load3(nrm.data.data(), i);
    if (!(nf.x * nf.x + nf.y * nf.y + nf.z * nf.z > 0)) continue;
    const Vec3f pf = load3(pos.data.data(), i);
    f(i, Vec3d{pf.x, pf.y, pf.z}, normalize(Vec3d{nf.x, nf.y, nf.z}));
  }
}

template <class F>
ImageF map_surface_pixels(const ImageF& pos, const ImageF& nrm, const char* what, F f) {
  check_surface_images(pos, nrm, what);
  constexpr bool colour = std::is_same_v<std::invoke_result_t<F, Vec3d, Vec3d>, Vec3d>;
  ImageF out(pos.width, pos.height, colour ? 3 : 1, colour ? 0.f : 1.f);
  for_surface_pixels(pos, nrm, what, [&](long i, Vec3d x, Vec3d n) {
    const auto v = f(x, n);
    if constexpr (colour)
      store3(out.data.data(), i, Vec3f{static_cast<float>(v.x), static_cast<float>(v.y), static_cast<float>(v.z)});
    else
      out.data[static_cast<std::size_t>(i)] = static_cast<float>(v);
  });
  return out;
}

}  // namespace glint

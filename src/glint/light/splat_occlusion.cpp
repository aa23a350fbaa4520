#include "glint/light/splat_occlusion.h"

#include "glint/core/math.h"
#include "glint/render/project.h"

namespace glint {

SplatSurfel splat_surfel(const GaussianModel& m, std::size_t i) {
  const Vec3<float> ls{m.log_scales[3 * i], m.log_scales[3 * i + 1], m.log_scales[3 * i + 2]};
  const Quat<float> q{m.quats[4 * i], m.quats[4 * i + 1], m.quats[4 * i + 2], m.quats[4 * i + 3]};
  const Mat3<float> R = quat_to_rotmat(q);
  const int k = render::hd::shortest_axis(ls);
  return {Vec3d{m.means[3 * i], m.means[3 * i + 1], m.means[3 * i + 2]}, Vec3d{R.m[k], R.m[3 + k], R.m[6 + k]}};
}

std::vector<float> splat_ambient_occlusion(const AoMaps& maps, const GaussianModel& m) {
  const long n = static_cast<long>(m.size());
  std::vector<float> out(static_cast<std::size_t>(2 * n));
#pragma omp parallel for schedule(dynamic, 256)
  for (long i = 0; i < n; ++i) {
    const SplatSurfel s = splat_surfel(m, static_cast<std::size_t>(i));
    out[static_cast<std::size_t>(2 * i)] = static_cast<float>(ambient_occlusion(maps, s.centre, s.axis));
    out[static_cast<std::size_t>(2 * i + 1)] = static_cast<float>(ambient_occlusion(maps, s.centre, -1.0 * s.axis));
  }
  return out;
}

}  // namespace glint

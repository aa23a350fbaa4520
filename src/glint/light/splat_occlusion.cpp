#include "glint/light/splat_occlusion.h"

#include "glint/core/math.h"
#include "glint/render/project.h"

namespace glint {

std::vector<float> splat_ambient_occlusion(const AoMaps& maps, const GaussianModel& m) {
  const long n = static_cast<long>(m.size());
  std::vector<float> out(static_cast<std::size_t>(2 * n));
#pragma omp parallel for schedule(dynamic, 256)
  for (long i = 0; i < n; ++i) {
    const Vec3<float> ls{m.log_scales[3 * i], m.log_scales[3 * i + 1], m.log_scales[3 * i + 2]};
    const Quat<float> q{m.quats[4 * i], m.quats[4 * i + 1], m.quats[4 * i + 2], m.quats[4 * i + 3]};
    const Mat3<float> R = quat_to_rotmat(q);
    const int k = render::hd::shortest_axis(ls);
    const Vec3d axis{R.m[k], R.m[3 + k], R.m[6 + k]};
    const Vec3d x{m.means[3 * i], m.means[3 * i + 1], m.means[3 * i + 2]};
    out[static_cast<std::size_t>(2 * i)] = static_cast<float>(ambient_occlusion(maps, x, axis));
    out[static_cast<std::size_t>(2 * i + 1)] = static_cast<float>(ambient_occlusion(maps, x, -1.0 * axis));
  }
  return out;
}

}  // namespace glint

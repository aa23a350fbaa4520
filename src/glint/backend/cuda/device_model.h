#pragma once
// A SplatSet (train/splat_set.h) in device memory: the six parameter arrays, Adam's m and v
// of each and the three densification statistics, one row a splat as on the host. The
// scalars (SH degree, Adam's step counts and options) stay in the host's SplatSet; only
// load, state and the host round trips (device_training_session.cu) move the arrays
// between host and device, and refinement (refine_stages.h) changes their rows in place.
#include <array>
#include <cstddef>

#include "glint/backend/cuda/cuda_namespace.h"
#include "glint/backend/cuda/device_buffer.h"
#include "glint/backend/cuda/indexing.h"
#include "glint/backend/cuda/splat_geometry.h"
#include "glint/train/splat_set.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

struct DeviceModel {
  std::array<DeviceBuffer<float>, kNumParamGroups> params, m, v;
  DeviceBuffer<float> grad_accum, grad_count, max_radii;
  std::size_t n = 0;

  SplatGeometry geometry() const {
    return {params[kMeans].cspan(),   params[kLogScales].cspan(), params[kQuats].cspan(),
            params[kOpacity].cspan(), params[kShDc].cspan(),      params[kShRest].cspan()};
  }

  // Every array of `set` (which must be consistent: SplatSet::check_consistent, and no
  // larger than the backend indexes, kMaxSplats: refused before allocating).
  void upload_from(const SplatSet& set) {
    set.check_consistent();
    check_size("splats", set.size(), kMaxSplats);
    n = set.size();
    for (int g = 0; g < kNumParamGroups; ++g) {
      const auto gi = static_cast<std::size_t>(g);
      upload(params[gi], set.param(g));
      upload(m[gi], set.adam.groups()[gi].m);
      upload(v[gi], set.adam.groups()[gi].v);
    }
    upload(grad_accum, set.grad_accum);
    upload(grad_count, set.grad_count);
    upload(max_radii, set.max_radii);
  }

  // Every array into `set`, whose scalars are left as they are.
  void download_into(SplatSet& set) const {
    for (int g = 0; g < kNumParamGroups; ++g) {
      const auto gi = static_cast<std::size_t>(g);
      download(params[gi], set.param(g));
      download(m[gi], set.adam.groups()[gi].m);
      download(v[gi], set.adam.groups()[gi].v);
    }
    download(grad_accum, set.grad_accum);
    download(grad_count, set.grad_count);
    download(max_radii, set.max_radii);
  }
};

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda

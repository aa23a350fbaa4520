// Compiled at configure time (tests/CMakeLists.txt) once per GLINT_CASE: case 0 is a right
// argument list and must compile; every other case is a wrong one and must not.
#include <cstdint>

#include "glint/backend/cuda/device_span.h"
#include "glint/backend/cuda/launch.h"

using glint::cuda::DeviceSpan;

GLINT_KERNEL void scale_kernel(DeviceSpan<const float> in, float factor, std::uint64_t n, DeviceSpan<float> out) {
  const std::uint64_t i = glint::cuda::thread_index();
  if (i < n) out[i] = in[i] * factor;
}

void call(DeviceSpan<float> in, DeviceSpan<float> out) {
#if GLINT_CASE == 0
  glint::cuda::launch(scale_kernel, glint::cuda::shape_for(in.size), in.as_const(), 2.f, in.size, out);
#elif GLINT_CASE == 1  // a writable span where the kernel reads only
  glint::cuda::launch(scale_kernel, glint::cuda::shape_for(in.size), in, 2.f, in.size, out);
#elif GLINT_CASE == 2  // a uint32_t where the kernel takes a uint64_t
  glint::cuda::launch(scale_kernel, glint::cuda::shape_for(in.size), in.as_const(), 2.f, std::uint32_t(in.size), out);
#elif GLINT_CASE == 3  // a double where it takes a float
  glint::cuda::launch(scale_kernel, glint::cuda::shape_for(in.size), in.as_const(), 2.0, in.size, out);
#elif GLINT_CASE == 4  // one argument missing
  glint::cuda::launch(scale_kernel, glint::cuda::shape_for(in.size), in.as_const(), 2.f, out);
#elif GLINT_CASE == 5  // arguments swapped
  glint::cuda::launch(scale_kernel, glint::cuda::shape_for(in.size), in.as_const(), 2.f, out, in.size);
#endif
}

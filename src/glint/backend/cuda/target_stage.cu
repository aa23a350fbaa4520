#include "glint/backend/cuda/target_stage.h"

#include "glint/backend/cuda/device_buffer.h"
#include "glint/backend/cuda/indexing.h"
#include "glint/backend/cuda/kernels/downscale_kernel.h"
#include "glint/backend/cuda/kernels/target_kernel.h"
#include "glint/backend/cuda/launch.h"
#include "glint/core/error.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

void device_target(DeviceSpan<const std::uint8_t> src, int width, int height, int channels,
                   const std::array<float, 3>& background, DeviceSpan<float> out) {
  const auto pixels = static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(height);
  check_size("pixels in an image", pixels, kMaxPixels);
  if (channels < 1 || channels > 4 || src.size != pixels * static_cast<std::uint64_t>(channels) ||
      out.size != 3 * pixels)
    throw Error("target: image and buffer sizes differ");
  const TargetImage t{width, height, channels, {background[0], background[1], background[2]}};
  launch(target_kernel, shape_for(pixels), src, t, out);
  check_launches("target");
}

void device_area_downscale(DeviceSpan<const std::uint8_t> src, int src_width, int src_height, int channels,
                           int width, int height, DeviceSpan<std::uint8_t> out) {
  const auto src_values = static_cast<std::uint64_t>(src_width) * static_cast<std::uint64_t>(src_height) *
                          static_cast<std::uint64_t>(channels);
  check_size("pixels in an image", static_cast<std::uint64_t>(src_width) * static_cast<std::uint64_t>(src_height),
             kMaxPixels);
  if (channels < 1 || channels > 4 || width < 1 || height < 1 || width > src_width || height > src_height ||
      src.size != src_values ||
      out.size != static_cast<std::uint64_t>(width) * static_cast<std::uint64_t>(height) *
                      static_cast<std::uint64_t>(channels))
    throw Error("target: image and buffer sizes differ");
  launch(area_downscale_kernel, shape_for(out.size), src, AreaResize{src_width, src_height, channels, width, height},
         out);
  check_launches("downscale");
}

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda

// Compiled at configure time (tests/CMakeLists.txt) once per GLINT_CASE: case 0 is a right
// argument list for the scan shader and must compile; every other case is a wrong one and
// must not.
#include <cstdint>

#include "glint/backend/vulkan/shader_interfaces.h"

using namespace glint::vk;

void call(Stream& s, Array<std::uint32_t>& data, Array<std::uint32_t>& sums, Array<float>& f) {
  const CountPush push{};
  const Groups g{};
#if GLINT_CASE == 0
  dispatch<shaders::ScanAdd>(s, g, push, out(data), in(sums));
#elif GLINT_CASE == 1  // a read-only binding where the shader writes
  dispatch<shaders::ScanAdd>(s, g, push, in(data), in(sums));
#elif GLINT_CASE == 2  // float elements where the shader has uint
  dispatch<shaders::ScanAdd>(s, g, push, out(data), in(f));
#elif GLINT_CASE == 3  // one binding missing
  dispatch<shaders::ScanAdd>(s, g, push, out(data));
#elif GLINT_CASE == 4  // bindings swapped
  dispatch<shaders::ScanAdd>(s, g, push, in(sums), out(data));
#elif GLINT_CASE == 5  // another shader's push constants
  dispatch<shaders::ScanAdd>(s, g, BlendPush{}, out(data), in(sums));
#endif
}

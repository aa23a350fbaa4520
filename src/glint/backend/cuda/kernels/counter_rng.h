#pragma once
// Random numbers for the device's refinement kernels: a pure function of (key, stream,
// draw), where the key mixes a 64-bit seed drawn from the trainer's Rng with the step, the
// stream is a splat (or sample) index and the draw the number's position within it. Every
// thread computes its own numbers, so the results depend neither on thread order nor on
// the launch shape. A host loop over the same indices gets the same integers and uniforms
// (integer arithmetic); normals, through log, sqrt and cos in double, the same bits under
// the emulator and within the CUDA Math API's documented few ulps of them on a device,
// whose log and cos are not glibc's. The mixer is splitmix64's finaliser; normals are
// Box-Muller in double, as Rng::normal.
#include <cmath>
#include <cstdint>

#include "glint/backend/cuda/cuda_namespace.h"
#include "glint/core/hd.h"

namespace glint::cuda {
inline namespace GLINT_CUDA_NS {

GLINT_HD inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// The key of one refinement call: its seed and step.
GLINT_HD inline std::uint64_t counter_key(std::uint64_t seed, long step) {
  return mix64(seed ^ mix64(static_cast<std::uint64_t>(step) + 0x9e3779b97f4a7c15ULL));
}

GLINT_HD inline std::uint64_t counter_u64(std::uint64_t key, std::uint64_t stream, std::uint32_t draw) {
  return mix64(key ^ mix64(stream * 0x9e3779b97f4a7c15ULL + static_cast<std::uint64_t>(draw) + 1));
}

// Uniform in [0, 1) with 53 bits.
GLINT_HD inline double counter_uniform(std::uint64_t key, std::uint64_t stream, std::uint32_t draw) {
  return static_cast<double>(counter_u64(key, stream, draw) >> 11) * 0x1.0p-53;
}

// Uniform integer in [0, n): the high word of a 64x64-bit product (Rng::below's method).
GLINT_HD inline std::uint64_t counter_below(std::uint64_t key, std::uint64_t stream, std::uint32_t draw,
                                            std::uint64_t n) {
  const std::uint64_t u = counter_u64(key, stream, draw);
#if defined(__CUDA_ARCH__)
  return __umul64hi(u, n);
#else
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(u) * n) >> 64);
#endif
}

// Standard normal number `k` of a stream (draws 2k and 2k + 1).
GLINT_HD inline double counter_normal(std::uint64_t key, std::uint64_t stream, std::uint32_t k) {
  const double u1 = 1.0 - counter_uniform(key, stream, 2 * k);  // (0, 1]: the log stays finite
  const double u2 = counter_uniform(key, stream, 2 * k + 1);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

}  // namespace GLINT_CUDA_NS
}  // namespace glint::cuda

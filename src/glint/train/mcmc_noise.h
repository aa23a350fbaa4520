#pragma once
// The random numbers of 3DGS-MCMC's position noise (mcmc.cpp mcmc_add_noise), for a backend
// that applies the noise on its device with the CPU's numbers (the Vulkan session).
#include <cstddef>
#include <cstdint>

#include "glint/train/rng.h"

namespace glint {

// The three standard normals of splat i's own stream under the step's one draw `seed`.
inline void mcmc_noise_normals(std::uint64_t seed, std::size_t i, float z[3]) {
  Rng local(seed ^ (static_cast<std::uint64_t>(i) * 0x9e3779b97f4a7c15ULL));
  for (int k = 0; k < 3; ++k) z[k] = static_cast<float>(local.normal());
}

}  // namespace glint

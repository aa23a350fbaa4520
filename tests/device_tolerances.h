#pragma once
// Where the CUDA backend's results may differ from the CPU's, and by how much, stated once
// for the emulated tests and the GPU tests (docs/ARCHITECTURE.md, "Floating-point and
// indexing rules for GPU backends"). The rasterizer and the loss are built with
// contraction (--fmad=true): their floats are compared with tolerances everywhere, and a
// contracted product can move a ceil or a comparison, so a few splats' radii, tile counts
// and visibility (and the statistics that follow them) may differ. Refinement is built
// without, but its opacity tests go through expf, whose device version differs from glibc's
// by a few ulps. Without contraction the emulator runs the CPU's arithmetic and libm (the
// CPU backend's SIMD lanes differ only in their explicit fused steps, which leave the test
// scenes' counts alone): there the margins are zero and the tests demand the CPU's counts.
#include <cstddef>
#include <cstdint>

namespace glint::test {

// Whether the code under test rounds as a device may: a GPU (tests/gpu, built by nvcc), or
// the emulated suite built with nvcc's contraction (tests/contracted).
#if defined(__CUDACC__) || defined(GLINT_EMULATED_CONTRACTION)
inline constexpr bool kDeviceRounding = true;
#else
inline constexpr bool kDeviceRounding = false;
#endif

// Of n splats, how many may be decided otherwise than on the CPU: their radius, tile count,
// visibility, densification statistics, or (refinement) a threshold test.
inline std::size_t count_margin(std::size_t n) { return kDeviceRounding ? n / 5000 + 2 : 0; }

// How far a frame's tile-instance total may lie from the CPU's: the splats above, each a
// row or a column of tiles.
inline std::int64_t instance_margin(std::int64_t cpu_instances) {
  return kDeviceRounding ? cpu_instances / 20000 + 16 : 0;
}

// How many values of two per-splat arrays differ.
template <class A, class B>
std::size_t count_differing(const A& a, const B& b) {
  std::size_t n = a.size() > b.size() ? a.size() - b.size() : b.size() - a.size();
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) n += !(a[i] == b[i]);
  return n;
}

// |a - b| for counts.
inline std::int64_t count_gap(std::int64_t a, std::int64_t b) { return a > b ? a - b : b - a; }

}  // namespace glint::test

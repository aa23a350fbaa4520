#pragma once
// The splat model in structure-of-arrays order (docs/ARCHITECTURE.md). Storage is always sized for
// SH degree 3 (15 rest coefficients a splat) so kernels index it the same way whatever
// degree is active; `sh_degree` says how many of those coefficients carry data.
#include <cstddef>
#include <vector>

namespace glint {

inline constexpr int kMaxShDegree = 3;
inline constexpr int kShRestCoeffs = 15;  // (3+1)^2 - 1

// Number of SH coefficients besides DC for a degree.
inline constexpr int sh_rest_count(int degree) { return (degree + 1) * (degree + 1) - 1; }

// Sizes the six per-splat arrays of a model-shaped struct (the model, or its gradients) for
// n splats.
template <class M>
void resize_splat_arrays(M& m, std::size_t n) {
  m.means.resize(n * 3);
  m.log_scales.resize(n * 3);
  m.quats.resize(n * 4);
  m.opacity_logits.resize(n);
  m.sh_dc.resize(n * 3);
  m.sh_rest.resize(n * kShRestCoeffs * 3);
}

struct GaussianModel {
  int sh_degree = 0;
  std::vector<float> means;           // [N,3]
  std::vector<float> log_scales;      // [N,3]
  std::vector<float> quats;           // [N,4] w x y z, not normalised
  std::vector<float> opacity_logits;  // [N]
  std::vector<float> sh_dc;           // [N,3]
  std::vector<float> sh_rest;         // [N,15,3]: index (i*15 + k)*3 + channel
  // Trained with the Mip-Splatting 2D filter (--antialiased), so rendered with it: a PLY
  // comment line, which other readers skip (io/ply.h).
  bool antialiased = false;

  std::size_t size() const { return opacity_logits.size(); }
  void resize(std::size_t n) { resize_splat_arrays(*this, n); }
};

// SH degree-0 basis constant: colour = kShC0 * dc + 0.5.
inline constexpr float kShC0 = 0.28209479177387814f;

}  // namespace glint

#pragma once
// The slow reference rasterizer that defines correctness: double precision,
// one pixel at a time, every splat in depth order, no tiles. Its forward projection and
// blending are written independently of src/glint/render/; its backward blends pixel by
// pixel back to front and then calls the render/ projection and SH VJPs instantiated for
// double (those are checked against finite differences of this forward).
#include <vector>

#include "glint/backend/backend.h"
#include "glint/core/camera.h"
#include "glint/core/gaussians.h"

namespace glint::ref {

struct ModelD {
  int sh_degree = 0;
  std::vector<double> means, log_scales, quats, opacity_logits, sh_dc, sh_rest;
  std::size_t size() const { return opacity_logits.size(); }
  static ModelD from(const GaussianModel& m);
  // Every parameter as one flat list (for finite differences): pointers into the arrays.
  std::vector<double*> params();
};

struct Images {
  int width = 0, height = 0;
  std::vector<double> rgb, alpha, depth, median, normal, count, distortion;  // [H*W*C]
};

struct GradInD {  // empty = zero
  std::vector<double> d_rgb, d_alpha, d_depth, d_median, d_normal, d_distortion;
};

struct GradD {
  std::vector<double> means, log_scales, quats, opacity_logits, sh_dc, sh_rest, mean2d, mean2d_abs;
};

Images render(const ModelD& m, const Camera& cam, const RenderSettings& s);
GradD backward(const ModelD& m, const Camera& cam, const RenderSettings& s, const GradInD& g);

// sum of g . outputs, the loss whose gradient backward returns for upstream g
double linear_loss(const Images& img, const GradInD& g);

}  // namespace glint::ref

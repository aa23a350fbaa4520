#pragma once
// The strips along the borders between cells where merged cells meet: which splats lie in
// them and which pixels of a view show them. Cells are trained apart, each beside its own
// margin, so the splats on the two sides of a border were fitted next to other neighbours
// than the ones they meet in the merged model; the merge's seam polish
// (partition/seam_polish.h) trains the splats of the strip again on the pixels of the strip.
#include <cstddef>
#include <vector>

#include "glint/core/camera.h"
#include "glint/core/gaussians.h"
#include "glint/core/image.h"
#include "glint/partition/plan.h"

namespace glint::partition {

// Ground distances from a border (partition::border_distance): the splats trained, the
// pixels they are trained on (narrower, so that every splat a trained pixel shows is one
// of those trained), and the splats whose training is kept (narrower still: the outer
// trained splats had their outer neighbours left out, and go back as they were).
struct SeamWidths {
  double train = 0, supervise = 0, keep = 0;
};
// Shares of the shortest side of the plan's cores: 0.1, 0.075, 0.05 (on town's 2x2 plan,
// whose cores are about 59 x 39 m: 3.9, 2.9 and 2.0 m; the seam the merge leaves is about
// 2 m wide on each side). All 0 for a plan of one cell.
SeamWidths seam_widths(const Plan& plan);

// The rows of the splats whose centres lie within `width` of a border, in order.
std::vector<std::size_t> rows_near_borders(const Plan& plan, const GaussianModel& model, double width);

// The pixels of a view whose surface lies within `width` of a border: 255 there, 0
// elsewhere, one channel at the camera's size. `depth` is the model's expected view-space
// depth at the camera's size (0 where nothing is drawn: no surface, 0).
Image8 border_pixels(const Plan& plan, const Camera& camera, const ImageF& depth, double width);

}  // namespace glint::partition

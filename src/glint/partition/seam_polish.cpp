#include "glint/partition/seam_polish.h"

#include <algorithm>
#include <memory>
#include <stdexcept>

#include "glint/partition/cell_dataset.h"
#include "glint/partition/merge.h"
#include "glint/partition/seam_band.h"
#include "glint/train/fine_tune.h"

namespace glint::partition {

namespace {

// A view shows a border when this many of its pixels do: fewer hardly train anything.
constexpr std::size_t kMinPixels = 64;
// Pixels around the shown part that a view's cut keeps, for SSIM's window.
constexpr int kPad = 8;

void copy_row(GaussianModel& to, std::size_t to_row, const GaussianModel& from, std::size_t from_row) {
  const auto copy = [&](std::vector<float>& dst, const std::vector<float>& src) {
    const std::size_t w = src.size() / from.size();
    std::copy_n(src.begin() + static_cast<std::ptrdiff_t>(from_row * w), w,
                dst.begin() + static_cast<std::ptrdiff_t>(to_row * w));
  };
  copy(to.means, from.means);
  copy(to.log_scales, from.log_scales);
  copy(to.quats, from.quats);
  copy(to.opacity_logits, from.opacity_logits);
  copy(to.sh_dc, from.sh_dc);
  if (!from.sh_rest.empty()) copy(to.sh_rest, from.sh_rest);
}

// The part of `view` that shows the border strip, with the strip's pixels as its mask;
// false when it shows too little of it.
// `r` is the depth render's output, reused from view to view.
bool strip_view(const Plan& plan, const View& view, const GaussianModel& merged, double width, Backend& backend,
                RenderOutput& r, View& out) {
  // a mask made in memory is at the picture's size, which for a cut view is not the camera's
  if (view.full_width != 0) throw std::logic_error("polish_seams: the dataset's views must not be cut");
  RenderSettings rs;
  rs.for_backward = false;
  rs.want_rgb = false;
  rs.want_alpha = false;
  rs.want_depth = true;
  rs.sh_degree = 0;  // no colour is drawn: the projection need not evaluate the SH
  rs.antialiased = merged.antialiased;
  backend.forward_into(merged, view.camera, rs, r);
  Image8 mask = border_pixels(plan, view.camera, r.depth, width);
  const int w = view.camera.width, h = view.camera.height;
  int x0 = w, y0 = h, x1 = -1, y1 = -1;
  std::size_t n = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      if (mask.row(y)[x] != 0) {
        ++n;
        x0 = std::min(x0, x);
        x1 = std::max(x1, x);
        y0 = std::min(y0, y);
        y1 = std::max(y1, y);
      }
  if (n < kMinPixels) return false;
  if (view.mask_in_memory) {  // a mask of the dataset's own made in memory stays in force
    for (std::size_t i = 0; i < mask.data.size(); ++i)
      mask.data[i] = static_cast<std::uint8_t>((mask.data[i] * view.mask_in_memory->data[i] + 127) / 255);
  }
  // the strip's bounding box and kPad around it, at least kMinCropSide a side
  const auto window = [](int a, int b, int size, int& start, int& length) {
    a = std::max(0, a - kPad);
    b = std::min(size, b + 1 + kPad);
    const int side = std::min(kMinCropSide, size);
    if (b - a < side) {
      a = std::clamp((a + b - side) / 2, 0, size - side);
      b = a + side;
    }
    start = a;
    length = b - a;
  };
  int cx = 0, cw = 0, cy = 0, ch = 0;
  window(x0, x1, w, cx, cw);
  window(y0, y1, h, cy, ch);
  View masked = view;
  masked.mask_in_memory = std::make_shared<const Image8>(std::move(mask));
  out = cw == w && ch == h ? masked : crop_view(masked, cx, cy, cw, ch);
  return true;
}

}  // namespace

GaussianModel polish_seams(const Plan& plan, const GaussianModel& merged, const Dataset& data,
                           const TrainOptions& options, long steps, Backend& backend, SeamPolishReport* report,
                           const std::function<void(long)>& on_step) {
  SeamPolishReport rep;
  const SeamWidths widths = seam_widths(plan);
  if (steps <= 0 || !(widths.train > 0) || merged.size() == 0) {
    if (report) *report = rep;
    return merged;
  }
  const std::vector<std::size_t> rows = rows_near_borders(plan, merged, widths.train);
  Dataset strip;
  strip.root = data.root;
  strip.format = data.format;
  strip.background = data.background;
  strip.center = data.center;
  strip.radius = data.radius;  // the whole scene's: the merged model's learning rates
  strip.masks = "seam strips";
  RenderOutput depth;
  for (const View& v : data.train) {
    View cut;
    if (strip_view(plan, v, merged, widths.supervise, backend, depth, cut)) strip.train.push_back(std::move(cut));
  }
  rep.splats_trained = rows.size();
  rep.views = strip.train.size();
  if (rows.empty() || strip.train.empty()) {
    if (report) *report = rep;
    return merged;
  }
  const GaussianModel band = take_rows(merged, rows);
  // as the cells were trained, whatever the plan's stored flags say (a cell's own
  // command line may have added to them): the model's SH degree and 2D filter
  TrainOptions o = options;
  o.max_sh_degree = std::min(o.max_sh_degree, merged.sh_degree);
  o.antialiased = o.antialiased || merged.antialiased;
  const GaussianModel tuned = fine_tune(band, strip, o, steps, backend, on_step);
  GaussianModel out = merged;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const Vec3d p{band.means[3 * k], band.means[3 * k + 1], band.means[3 * k + 2]};
    if (border_distance(plan, p) >= widths.keep) continue;
    copy_row(out, rows[k], tuned, k);
    ++rep.splats_changed;
  }
  rep.steps = steps;
  if (report) *report = rep;
  return out;
}

}  // namespace glint::partition

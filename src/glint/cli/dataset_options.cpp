#include "glint/cli/dataset_options.h"

#include <sstream>

#include "glint/core/error.h"

namespace glint::cli {

void add_dataset_flags(CLI::App& cmd, DatasetFlags& f) {
  cmd.add_option("--images", f.options.images_dir, "COLMAP image folder (default: <dataset>/images)");
  cmd.add_option("--downscale", f.options.downscale, "Divide image resolution by this integer factor")
      ->check(CLI::PositiveNumber);
  cmd.add_option("--max-size", f.options.max_size, "Cap the longest image side at this many pixels (0 = no cap)")
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("--test-every", f.options.test_every,
                 "Hold out every Nth image for testing when the dataset has no test split (0 = none)")
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("--masks", f.options.masks_dir,
                 "Folder of per-image masks, black = ignore: NAME.png or <NAME without extension>.png for image NAME "
                 "(default: a masks folder beside the images, or a transforms.json frame's mask_path)");
  cmd.add_flag("--no-masks", f.options.no_masks, "Ignore the masks found by default");
  cmd.add_flag("--alpha-mask", f.options.alpha_mask,
               "Use an RGBA image's alpha as its mask (0 = ignore) instead of compositing it over the background");
  cmd.add_option("--background", f.background,
                 "Colour behind transparent pixels: white, black or R,G,B in [0,1] "
                 "(default: white for Blender sets, black otherwise)");
}

DatasetOptions resolve(const DatasetFlags& f) {
  DatasetOptions o = f.options;
  if (f.background.empty()) return o;
  o.has_background = true;
  if (f.background == "white") {
    o.background = {1, 1, 1};
  } else if (f.background == "black") {
    o.background = {0, 0, 0};
  } else {
    std::istringstream in(f.background);
    char c1 = 0, c2 = 0;
    if (!(in >> o.background[0] >> c1 >> o.background[1] >> c2 >> o.background[2]) || c1 != ',' || c2 != ',' ||
        !in.eof())
      throw Error("--background: expected white, black or R,G,B, got '" + f.background + "'");
    for (float v : o.background)
      if (!(v >= 0 && v <= 1)) throw Error("--background: components must be in [0,1]");
  }
  return o;
}

}  // namespace glint::cli

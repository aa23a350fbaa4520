#pragma once
// A posed-image dataset in any supported format, reduced to pinhole cameras in the OpenCV
// convention, a train/test split, sparse points and the scene's extent. Images are not
// decoded here (see image_cache.h); only their headers are checked.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "glint/core/camera.h"
#include "glint/core/image.h"
#include "glint/io/colmap.h"
#include "glint/io/posed_image.h"

namespace glint {

enum class DatasetFormat { ColmapBinary, ColmapText, Transforms, Blender };
const char* format_name(DatasetFormat f);

struct DatasetOptions {
  std::string images_dir;  // COLMAP image folder; default <root>/images
  int downscale = 1;       // integer factor applied at load
  int max_size = 0;        // longest image side cap in pixels (0 = none), applied after downscale
  int test_every = 8;      // hold out every Nth image when the dataset has no test split (0 = none)
  bool has_background = false;       // else white for Blender sets, black for others
  std::array<float, 3> background{1, 1, 1};
  int random_points = 100000;        // points sampled when the dataset has none
  std::uint64_t seed = 0;
  // Per-image masks (black = ignore): the folder of mask files; default: the dataset's own
  // (a transforms.json frame's mask_path) or a `masks` folder beside the images, when there
  // is one. A mask of image NAME is MASKS/NAME.png or MASKS/<NAME without extension>.png.
  std::string masks_dir;
  bool no_masks = false;    // ignore masks found by default
  bool alpha_mask = false;  // an image's alpha channel is its mask, and its colour is not composited
};

// One image of the dataset: the camera Glint renders with and how to produce its pixels.
struct View {
  Camera camera;         // pinhole at the loaded resolution
  PosedImage source;     // file and lens as the dataset describes them (sizes resolved)
  Intrinsics pinhole;    // the undistorted pinhole at the source resolution
  bool undistort = false;
  // A window of the picture (crop_view): the image is loaded at full_width x full_height
  // and cut to the camera's size at (crop_x, crop_y). full_width 0: the whole picture.
  int crop_x = 0, crop_y = 0, full_width = 0, full_height = 0;
  bool alpha_mask = false;  // the image's alpha is its mask (source.mask_path is then empty)
  // A mask made by a program rather than read from a file (one channel, at the size of
  // the picture as loaded: full_width x full_height for a cropped view, else the camera's),
  // multiplied into the view's other mask if it has one, and cropped with the view.
  std::shared_ptr<const Image8> mask_in_memory;
  bool has_mask() const { return alpha_mask || !source.mask_path.empty() || mask_in_memory != nullptr; }
};

// A view's pixels as training and evaluation use them: the image, and its mask (one
// channel, 0 = ignore, 255 = full weight; empty when the view has none), both at the
// camera's resolution.
struct ViewPixels {
  Image8 image, mask;
};

// The part [x, x + w) x [y, y + h) of a view's image (in its camera's pixels) as a view
// of its own: the camera's principal point moves, its size shrinks, and the image it loads
// is that part of the picture. Crops of crops compose. Throws glint::Error for a window
// outside the image or empty.
View crop_view(const View& view, int x, int y, int w, int h);

struct Dataset {
  std::string root;
  DatasetFormat format = DatasetFormat::Blender;
  std::vector<View> train, test;
  int val_count = 0;  // Blender val frames (not used for training or evaluation)
  PointCloud points;
  bool points_random = false;  // sampled because the dataset has none
  std::array<float, 3> background{0, 0, 0};
  Vec3d center{0, 0, 0};  // mean of the training camera centres
  double radius = 1;      // 1.1 x the largest distance of a training camera from `center`
  // Where the views' masks come from ("" when none has one): a folder, "mask_path" or "alpha".
  std::string masks;
  std::size_t masked_views() const;

  // Decoded, composited onto the background, undistorted and resized: RGB, 8-bit, at the
  // camera's resolution. With keep_alpha, images that have alpha stay RGBA (straight
  // alpha, for training on random backgrounds). Throws glint::Error naming the file.
  Image8 load_image(const View& view, bool keep_alpha = false) const;
  // The image as load_image gives it, with its mask (undistorted and resized alike; with
  // --alpha-mask the image's alpha, the colour then not composited). Throws glint::Error
  // naming the image or the mask file.
  ViewPixels load_view(const View& view, bool keep_alpha = false) const;
};

// Sets `center` and `radius` from the training views, as 3DGS defines the camera extent:
// the mean training camera centre and 1.1 x the farthest camera's distance from it.
// Learning rates and densification scale with it. load_dataset calls it; a caller that
// makes a dataset of some of another's views calls it again.
void scene_extent(Dataset& d);

// Detects the format of `path` (a folder, or a .json camera file) and loads it.
// Throws glint::Error naming the offending file for every kind of bad input.
Dataset load_dataset(const std::string& path, const DatasetOptions& options = {});

}  // namespace glint

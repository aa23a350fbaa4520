#pragma once
// A posed-image dataset in any supported format, reduced to pinhole cameras in the OpenCV
// convention, a train/test split, sparse points and the scene's extent. Images are not
// decoded here (see image_cache.h); only their headers are checked.
#include <array>
#include <cstdint>
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

  // Decoded, composited onto the background, undistorted and resized: RGB, 8-bit, at the
  // camera's resolution. With keep_alpha, images that have alpha stay RGBA (straight
  // alpha, for training on random backgrounds). Throws glint::Error naming the file.
  Image8 load_image(const View& view, bool keep_alpha = false) const;
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

#include "glint/io/dataset.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <random>
#include <tuple>

#include "glint/core/error.h"
#include "glint/io/image_io.h"
#include "glint/io/image_ops.h"
#include "glint/io/point_cloud_ply.h"
#include "glint/io/transforms_json.h"

namespace glint {

namespace fs = std::filesystem;

const char* format_name(DatasetFormat f) {
  switch (f) {
    case DatasetFormat::ColmapBinary: return "COLMAP (binary)";
    case DatasetFormat::ColmapText: return "COLMAP (text)";
    case DatasetFormat::Transforms: return "transforms.json (nerfstudio / instant-ngp)";
    case DatasetFormat::Blender: return "Blender / NeRF-synthetic";
  }
  return "?";
}

namespace {

bool path_exists(const fs::path& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

std::string colmap_dir(const fs::path& root) {
  for (const fs::path& d : {root / "sparse" / "0", root / "sparse", root})
    if (has_colmap_model(d.string())) return d.string();
  return "";
}

std::vector<PosedImage> posed_from_colmap(const ColmapModel& m, const fs::path& images_dir) {
  std::vector<PosedImage> out;
  for (const ColmapImage& im : m.images) {
    PosedImage p;
    p.name = im.name;
    p.path = (images_dir / im.name).string();
    p.lens = m.cameras.at(im.camera_id);
    p.R = quat_to_rotmat(im.q);
    p.t = im.t;
    out.push_back(std::move(p));
  }
  std::sort(out.begin(), out.end(), [](const PosedImage& a, const PosedImage& b) { return a.name < b.name; });
  return out;
}

// Fills in what only the image header can tell (size; focal from field of view) and
// checks that the file agrees with the camera. A uniformly scaled image (e.g. a folder
// of half-size images) rescales the intrinsics with it.
void resolve_with_header(PosedImage& p) {
  ImageInfo info = read_image_info(p.path);
  Intrinsics& k = p.lens.k;
  if (k.width == 0 || k.height == 0) {
    k.width = info.width;
    k.height = info.height;
  } else if (info.width != k.width || info.height != k.height) {
    double sx = static_cast<double>(info.width) / k.width, sy = static_cast<double>(info.height) / k.height;
    if (std::abs(sx - sy) * std::max(k.width, k.height) > 1.0)
      throw Error(p.path, "image is " + std::to_string(info.width) + "x" + std::to_string(info.height) +
                              " but its camera is " + std::to_string(k.width) + "x" + std::to_string(k.height));
    k.width = info.width;
    k.height = info.height;
    k.fx *= sx;
    k.fy *= sy;
    if (k.cx >= 0) k.cx *= sx;
    if (k.cy >= 0) k.cy *= sy;
  }
  if (p.focal_from_fov) {
    k.fx = 0.5 * k.width / std::tan(0.5 * p.fov_x);
    k.fy = p.fov_y > 0 ? 0.5 * k.height / std::tan(0.5 * p.fov_y) : k.fx;
    p.focal_from_fov = false;
  }
  if (k.cx < 0) k.cx = 0.5 * k.width;
  if (k.cy < 0) k.cy = 0.5 * k.height;
  if (!(info.channels >= 1 && info.channels <= 4)) throw Error(p.path, "unsupported channel count");
  p.channels = info.channels;
  if (!p.mask_path.empty()) {
    // a mask may be a uniformly scaled copy of its image (a full-size mask for a folder of
    // half-size images): it is resampled with the image
    const ImageInfo m = read_image_info(p.mask_path);
    const double sx = static_cast<double>(m.width) / info.width, sy = static_cast<double>(m.height) / info.height;
    if (std::abs(sx - sy) * std::max(info.width, info.height) > 1.0)
      throw Error(p.mask_path, "mask is " + std::to_string(m.width) + "x" + std::to_string(m.height) + " but its image " +
                                   p.name + " is " + std::to_string(info.width) + "x" + std::to_string(info.height));
  }
}

// Finds each image's mask in `dir`: for image NAME (its name as the dataset lists it),
// dir/NAME.png or dir/<NAME without extension>.png, then the same for its file name alone.
// Returns how many images got one.
std::size_t find_masks(std::vector<PosedImage>& posed, const fs::path& dir) {
  std::size_t found = 0;
  for (PosedImage& p : posed) {
    p.mask_path.clear();
    const fs::path name = fs::path(p.name).lexically_normal();
    const fs::path file = fs::path(p.path).filename();
    for (const fs::path& n : {name, file}) {
      fs::path with = dir / n;
      with += ".png";
      fs::path stem = dir / n;
      stem.replace_extension(".png");
      for (const fs::path& c : {with, stem})
        if (p.mask_path.empty() && path_exists(c)) p.mask_path = c.lexically_normal().string();
    }
    found += !p.mask_path.empty();
  }
  return found;
}

// Picks the views' masks (DatasetOptions: --masks, --no-masks, a dataset's own mask_path,
// a masks folder beside the images) and names their source in `source`.
void assign_masks(const std::vector<std::vector<PosedImage>*>& lists, const fs::path& default_dir,
                  const DatasetOptions& o, std::string& source) {
  if (o.alpha_mask && !o.masks_dir.empty()) throw Error("--alpha-mask and --masks: give one or the other");
  if (o.no_masks && !o.masks_dir.empty()) throw Error("--no-masks and --masks: give one or the other");
  const bool own = [&] {
    for (auto* l : lists)
      for (const PosedImage& p : *l)
        if (!p.mask_path.empty()) return true;
    return false;
  }();
  if (o.no_masks || o.alpha_mask || (own && o.masks_dir.empty())) {
    if (o.no_masks || o.alpha_mask)
      for (auto* l : lists)
        for (PosedImage& p : *l) p.mask_path.clear();
    if (own && !o.no_masks && !o.alpha_mask) source = "mask_path";
    return;
  }
  const fs::path dir = o.masks_dir.empty() ? default_dir : fs::path(o.masks_dir);
  if (!fs::is_directory(dir)) {
    if (!o.masks_dir.empty()) throw Error(o.masks_dir, "masks folder not found");
    return;
  }
  std::size_t found = 0;
  for (auto* l : lists) found += find_masks(*l, dir);
  if (found == 0) {
    const PosedImage* first = nullptr;
    for (auto* l : lists)
      if (!first && !l->empty()) first = &l->front();
    const std::string example = first ? " (image " + first->name + " would have " +
                                            (fs::path(first->name).lexically_normal().string() + ".png") + ")"
                                      : "";
    throw Error(dir.string(), "no mask in this masks folder matches an image" + example +
                                  "; pass --no-masks to train without masks");
  }
  source = dir.lexically_normal().string();
}

// Output size for a source size under --downscale and --max-size.
std::pair<int, int> target_size(int w, int h, const DatasetOptions& o) {
  double s = 1.0 / std::max(1, o.downscale);
  if (o.max_size > 0) s = std::min(s, static_cast<double>(o.max_size) / std::max(w, h));
  return {std::max(1, static_cast<int>(std::lround(w * s))), std::max(1, static_cast<int>(std::lround(h * s)))};
}

std::vector<View> make_views(std::vector<PosedImage>& posed, const DatasetOptions& o) {
  std::vector<View> views(posed.size());
  std::vector<std::string> errors(posed.size());
  // Header reads touch every file: do them in parallel, report the first failure in order.
#pragma omp parallel for schedule(dynamic)
  for (long i = 0; i < static_cast<long>(posed.size()); ++i) {
    try {
      resolve_with_header(posed[static_cast<std::size_t>(i)]);
    } catch (const Error& e) {
      errors[static_cast<std::size_t>(i)] = e.what();
    }
  }
  for (const auto& e : errors)
    if (!e.empty()) throw Error(e);

  std::map<std::tuple<int, int, double, double, double, double, double, double, double, double, double>, Intrinsics> memo;
  for (std::size_t i = 0; i < posed.size(); ++i) {
    View& v = views[i];
    v.source = posed[i];
    v.alpha_mask = o.alpha_mask && (v.source.channels == 2 || v.source.channels == 4);
    const SourceCamera& lens = v.source.lens;
    v.undistort = !lens.dist.is_identity();
    if (v.undistort) {
      const Distortion& d = lens.dist;
      auto key = std::make_tuple(lens.k.width, lens.k.height, lens.k.fx, lens.k.fy, lens.k.cx, lens.k.cy, d.k1,
                                 d.k2, d.k3, d.p1, d.p2);
      auto it = memo.find(key);
      if (it == memo.end()) it = memo.emplace(key, undistorted_intrinsics(lens, v.source.path)).first;
      v.pinhole = it->second;
    } else {
      v.pinhole = lens.k;
    }
    auto [w, h] = target_size(v.pinhole.width, v.pinhole.height, o);
    Camera c;
    c.name = fs::path(v.source.name).filename().string();
    c.width = v.pinhole.width;
    c.height = v.pinhole.height;
    c.fx = v.pinhole.fx;
    c.fy = v.pinhole.fy;
    c.cx = v.pinhole.cx;
    c.cy = v.pinhole.cy;
    c.R = v.source.R;
    c.t = v.source.t;
    v.camera = c.scaled_to(w, h);
  }
  return views;
}

void split_every(std::vector<View>& all, int every, std::vector<View>& train, std::vector<View>& test) {
  for (std::size_t i = 0; i < all.size(); ++i)
    (every > 0 && i % static_cast<std::size_t>(every) == 0 ? test : train).push_back(std::move(all[i]));
}

}  // namespace

void scene_extent(Dataset& d) {
  Vec3d sum{0, 0, 0};
  for (const View& v : d.train) sum = sum + v.camera.center();
  d.center = (1.0 / static_cast<double>(d.train.size())) * sum;
  double far = 0;
  for (const View& v : d.train) far = std::max(far, norm(v.camera.center() - d.center));
  d.radius = far > 0 ? 1.1 * far : 1.0;
}

namespace {

// Uniform random points inside the region that the training cameras see: sampled in a box
// around the point the cameras look at, kept when at least half of a subset of the
// cameras has them in view.
PointCloud sample_points(const std::vector<View>& views, int count, std::uint64_t seed, Vec3d center, double radius) {
  // Point nearest all optical axes (least squares): the focus of an inward-facing capture.
  double A[9] = {0}, b[3] = {0};
  for (const View& v : views) {
    Vec3d c = v.camera.center();
    Vec3d d = transpose(v.camera.R) * Vec3d{0, 0, 1};
    double P[9] = {1 - d.x * d.x, -d.x * d.y, -d.x * d.z, -d.y * d.x, 1 - d.y * d.y, -d.y * d.z,
                   -d.z * d.x, -d.z * d.y, 1 - d.z * d.z};
    for (int i = 0; i < 9; ++i) A[i] += P[i];
    for (int r = 0; r < 3; ++r) b[r] += P[r * 3] * c.x + P[r * 3 + 1] * c.y + P[r * 3 + 2] * c.z;
  }
  double det = A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) + A[2] * (A[3] * A[7] - A[4] * A[6]);
  Vec3d focus = center;
  if (std::abs(det) > 1e-6 * static_cast<double>(views.size() * views.size() * views.size())) {
    Mat3d M{{A[0], A[1], A[2], A[3], A[4], A[5], A[6], A[7], A[8]}};
    // Cramer's rule on the symmetric 3x3 system.
    auto solve = [&](int col) {
      Mat3d N = M;
      for (int r = 0; r < 3; ++r) N(r, col) = b[r];
      return (N(0, 0) * (N(1, 1) * N(2, 2) - N(1, 2) * N(2, 1)) - N(0, 1) * (N(1, 0) * N(2, 2) - N(1, 2) * N(2, 0)) +
              N(0, 2) * (N(1, 0) * N(2, 1) - N(1, 1) * N(2, 0))) / det;
    };
    focus = {solve(0), solve(1), solve(2)};
  }
  // Half-size of the box: how far the narrowest view reaches sideways at the focus.
  std::vector<double> reach;
  for (const View& v : views) {
    const Camera& c = v.camera;
    double tan_half = std::min(0.5 * c.width / c.fx, 0.5 * c.height / c.fy);
    reach.push_back(norm(c.center() - focus) * tan_half);
  }
  std::nth_element(reach.begin(), reach.begin() + static_cast<long>(reach.size() / 2), reach.end());
  double half = std::min(reach[reach.size() / 2], radius);

  std::vector<const Camera*> judges;
  std::size_t stride = std::max<std::size_t>(1, views.size() / 16);
  for (std::size_t i = 0; i < views.size(); i += stride) judges.push_back(&views[i].camera);

  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::uniform_int_distribution<int> colour(0, 255);
  PointCloud pc;
  const long max_tries = 200L * count;
  for (long tries = 0; static_cast<int>(pc.size()) < count && tries < max_tries; ++tries) {
    Vec3d p = focus + half * Vec3d{u(rng), u(rng), u(rng)};
    std::size_t seen = 0;
    for (const Camera* c : judges) {
      Vec3d q = c->world_to_camera(p);
      if (q.z <= 0) continue;
      Vec2d px = c->project(q);
      if (px.x >= 0 && px.y >= 0 && px.x < c->width && px.y < c->height) ++seen;
    }
    if (2 * seen < judges.size()) continue;
    pc.xyz.insert(pc.xyz.end(), {static_cast<float>(p.x), static_cast<float>(p.y), static_cast<float>(p.z)});
    pc.rgb.insert(pc.rgb.end(), {static_cast<std::uint8_t>(colour(rng)), static_cast<std::uint8_t>(colour(rng)),
                                 static_cast<std::uint8_t>(colour(rng))});
  }
  return pc;
}

void check_options(const DatasetOptions& o) {
  if (o.downscale < 1) throw Error("--downscale must be at least 1");
  if (o.max_size < 0) throw Error("--max-size must not be negative");
  if (o.test_every < 0) throw Error("--test-every must not be negative");
  if (o.random_points < 0) throw Error("the number of random points must not be negative");
}

}  // namespace

Dataset load_dataset(const std::string& path_in, const DatasetOptions& o) {
  check_options(o);
  fs::path path(path_in);
  if (!path_exists(path)) throw Error(path_in, "dataset not found");
  Dataset d;
  std::string json_file;  // a camera file named directly
  if (!fs::is_directory(path)) {
    if (path.extension() != ".json") throw Error(path_in, "not a dataset folder or a transforms .json file");
    json_file = path.string();
    path = path.parent_path();
    if (path.empty()) path = ".";
  }
  d.root = path.string();

  std::vector<PosedImage> train_posed, test_posed;
  fs::path masks_default = path / "masks";  // beside the images (COLMAP: beside their folder)
  bool own_test_split = false;
  std::string points_ply;
  std::string colmap = json_file.empty() ? colmap_dir(path) : "";
  const fs::path blender_train = path / "transforms_train.json";
  const bool blender = (json_file.empty() && path_exists(blender_train)) ||
                       (!json_file.empty() && fs::path(json_file).filename() == "transforms_train.json");
  if (blender) {
    d.format = DatasetFormat::Blender;
    train_posed = read_transforms_json(blender_train.string()).frames;
    if (path_exists(path / "transforms_test.json")) {
      test_posed = read_transforms_json((path / "transforms_test.json").string()).frames;
      own_test_split = true;
    }
    if (path_exists(path / "transforms_val.json"))
      d.val_count = static_cast<int>(read_transforms_json((path / "transforms_val.json").string()).frames.size());
    if (path_exists(path / "points3d.ply")) points_ply = (path / "points3d.ply").string();
  } else if (!json_file.empty() || path_exists(path / "transforms.json")) {
    d.format = DatasetFormat::Transforms;
    TransformsFile tf = read_transforms_json(json_file.empty() ? (path / "transforms.json").string() : json_file);
    train_posed = std::move(tf.frames);
    std::sort(train_posed.begin(), train_posed.end(),
              [](const PosedImage& a, const PosedImage& b) { return a.name < b.name; });
    points_ply = tf.ply_path;
  } else if (!colmap.empty()) {
    ColmapModel m = read_colmap_model(colmap);
    d.format = m.binary ? DatasetFormat::ColmapBinary : DatasetFormat::ColmapText;
    fs::path images = o.images_dir.empty() ? path / "images" : fs::path(o.images_dir);
    if (!fs::is_directory(images)) throw Error(images.string(), "image folder not found (use --images to point at it)");
    train_posed = posed_from_colmap(m, images);
    d.points = std::move(m.points);
    masks_default = images.lexically_normal();
    if (!masks_default.has_filename()) masks_default = masks_default.parent_path();
    masks_default = masks_default.parent_path() / "masks";
  } else {
    throw Error(path_in, "no dataset found: expected a COLMAP model (sparse/0/, sparse/ or cameras.bin/.txt), "
                         "transforms.json, or transforms_train.json");
  }

  if (!o.images_dir.empty() && d.format != DatasetFormat::ColmapBinary && d.format != DatasetFormat::ColmapText)
    throw Error("--images applies to COLMAP datasets only");
  d.background = o.has_background ? o.background
                                  : (d.format == DatasetFormat::Blender ? std::array<float, 3>{1, 1, 1}
                                                                        : std::array<float, 3>{0, 0, 0});

  assign_masks({&train_posed, &test_posed}, masks_default, o, d.masks);
  std::vector<View> train = make_views(train_posed, o);
  if (own_test_split) {
    d.train = std::move(train);
    d.test = make_views(test_posed, o);
  } else {
    split_every(train, o.test_every, d.train, d.test);
  }
  if (d.train.empty()) throw Error(path_in, "no training images (all of them went to the test split)");
  if (o.alpha_mask) {
    if (d.masked_views() == 0) throw Error(path_in, "--alpha-mask: no image of the dataset has an alpha channel");
    d.masks = "alpha";
  }
  scene_extent(d);

  if (!points_ply.empty()) {
    if (!path_exists(points_ply)) throw Error(points_ply, "point cloud file not found");
    d.points = read_point_cloud_ply(points_ply);
  }
  if (d.points.size() == 0) {
    d.points = sample_points(d.train, o.random_points, o.seed, d.center, d.radius);
    d.points_random = true;
  }
  return d;
}

std::size_t Dataset::masked_views() const {
  std::size_t n = 0;
  for (const auto* split : {&train, &test})
    for (const View& v : *split) n += v.has_mask();
  return n;
}

namespace {

// The window [x, x + w) x [y, y + h) of an image (crop_view's part of the picture).
Image8 crop_image(const Image8& img, int x, int y, int w, int h) {
  Image8 out{w, h, img.channels, {}};
  out.data.resize(static_cast<std::size_t>(w) * h * img.channels);
  const std::size_t row_bytes = static_cast<std::size_t>(w) * img.channels;
  for (int r = 0; r < h; ++r)
    std::copy_n(img.row(r + y) + static_cast<std::size_t>(x) * img.channels, row_bytes, out.row(r));
  return out;
}

}  // namespace

Image8 Dataset::load_image(const View& v, bool keep_alpha) const { return load_view(v, keep_alpha).image; }

ViewPixels Dataset::load_view(const View& v, bool keep_alpha) const {
  ViewPixels out;
  Image8 img = read_image(v.source.path);
  const Intrinsics& k = v.source.lens.k;
  if (img.width != k.width || img.height != k.height)
    throw Error(v.source.path, "image is " + std::to_string(img.width) + "x" + std::to_string(img.height) +
                                   ", expected " + std::to_string(k.width) + "x" + std::to_string(k.height) +
                                   " (did it change since the dataset was loaded?)");
  const bool alpha = img.channels == 2 || img.channels == 4;
  if (v.alpha_mask && alpha) {
    out.mask = channel_plane(img, img.channels - 1);
    img = drop_alpha(img);
  } else {
    img = keep_alpha && alpha ? to_rgba(img) : to_rgb(img, background);
  }
  if (!v.source.mask_path.empty()) {
    const Image8 m = read_image(v.source.mask_path);
    const double sx = static_cast<double>(m.width) / k.width, sy = static_cast<double>(m.height) / k.height;
    if (std::abs(sx - sy) * std::max(k.width, k.height) > 1.0)
      throw Error(v.source.mask_path, "mask is " + std::to_string(m.width) + "x" + std::to_string(m.height) +
                                          " but its image " + v.source.name + " is " + std::to_string(k.width) + "x" +
                                          std::to_string(k.height));
    // brought to the image's size first, so that undistortion samples it as the image
    out.mask = m.width == k.width && m.height == k.height ? mask_plane(m) : resize_area(mask_plane(m), k.width, k.height);
  }
  if (v.undistort) {
    img = undistort_image(img, v.source.lens, v.pinhole);
    if (!out.mask.data.empty()) out.mask = undistort_image(out.mask, v.source.lens, v.pinhole);
  }
  const int w = v.full_width == 0 ? v.camera.width : v.full_width, h = v.full_width == 0 ? v.camera.height : v.full_height;
  out.image = resize_area(img, w, h);
  if (!out.mask.data.empty()) out.mask = resize_area(out.mask, w, h);
  if (v.mask_in_memory) {
    const Image8& m = *v.mask_in_memory;
    if (m.width != w || m.height != h || m.channels != 1)
      throw Error(v.source.path, "its mask made in memory is " + std::to_string(m.width) + "x" + std::to_string(m.height) +
                                     "x" + std::to_string(m.channels) + ", not " + std::to_string(w) + "x" +
                                     std::to_string(h) + "x1");
    if (out.mask.data.empty()) {
      out.mask = m;
    } else {
      for (std::size_t i = 0; i < m.data.size(); ++i)
        out.mask.data[i] = static_cast<std::uint8_t>((out.mask.data[i] * m.data[i] + 127) / 255);
    }
  }
  if (v.full_width == 0) return out;
  out.image = crop_image(out.image, v.crop_x, v.crop_y, v.camera.width, v.camera.height);
  if (!out.mask.data.empty()) out.mask = crop_image(out.mask, v.crop_x, v.crop_y, v.camera.width, v.camera.height);
  return out;
}

View crop_view(const View& view, int x, int y, int w, int h) {
  const Camera& c = view.camera;
  if (w <= 0 || h <= 0 || x < 0 || y < 0 || x + w > c.width || y + h > c.height)
    throw Error(view.source.path, "crop window " + std::to_string(w) + "x" + std::to_string(h) + " at (" +
                                      std::to_string(x) + ", " + std::to_string(y) + ") is not inside the " +
                                      std::to_string(c.width) + "x" + std::to_string(c.height) + " image");
  View v = view;
  if (v.full_width == 0) {
    v.full_width = c.width;
    v.full_height = c.height;
  }
  v.crop_x += x;
  v.crop_y += y;
  v.camera.width = w;
  v.camera.height = h;
  v.camera.cx -= x;
  v.camera.cy -= y;
  return v;
}

}  // namespace glint

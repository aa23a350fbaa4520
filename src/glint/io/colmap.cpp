#include "glint/io/colmap.h"

#include <cmath>
#include <filesystem>
#include <sstream>

#include "glint/core/error.h"
#include "glint/io/byte_reader.h"
#include "glint/io/file_bytes.h"

namespace glint {

namespace {

struct ModelSpec {
  int id;
  const char* name;
  int num_params;
};

// COLMAP's model ids and parameter counts; the fisheye and FOV models are recognised only
// to give a precise "not supported" message.
constexpr ModelSpec kModels[] = {
    {0, "SIMPLE_PINHOLE", 3}, {1, "PINHOLE", 4},          {2, "SIMPLE_RADIAL", 4},
    {3, "RADIAL", 5},         {4, "OPENCV", 8},           {5, "OPENCV_FISHEYE", 8},
    {6, "FULL_OPENCV", 12},   {7, "FOV", 5},              {8, "SIMPLE_RADIAL_FISHEYE", 4},
    {9, "RADIAL_FISHEYE", 5}, {10, "THIN_PRISM_FISHEYE", 12}};

const ModelSpec* spec_by_id(int id) {
  for (const auto& s : kModels)
    if (s.id == id) return &s;
  return nullptr;
}
const ModelSpec* spec_by_name(const std::string& name) {
  for (const auto& s : kModels)
    if (name == s.name) return &s;
  return nullptr;
}

constexpr long long kMaxImageSide = 1 << 16;

std::string camera_label(const std::string& file, std::uint32_t id) {
  return file + ": camera " + std::to_string(id);
}

void check_pose(const ColmapImage& im, const std::string& file) {
  double qn = std::sqrt(im.q.w * im.q.w + im.q.x * im.q.x + im.q.y * im.q.y + im.q.z * im.q.z);
  bool finite = std::isfinite(qn) && std::isfinite(im.t.x) && std::isfinite(im.t.y) && std::isfinite(im.t.z);
  if (!finite) throw Error(file, "image " + std::to_string(im.id) + " (" + im.name + ") has a non-finite pose");
  if (qn < 1e-6) throw Error(file, "image " + std::to_string(im.id) + " (" + im.name + ") has a zero rotation quaternion");
  if (im.name.empty()) throw Error(file, "image " + std::to_string(im.id) + " has an empty file name");
}

}  // namespace

SourceCamera make_source_camera(const std::string& model, long long width, long long height,
                                const std::vector<double>& p, const std::string& what) {
  const ModelSpec* spec = spec_by_name(model);
  if (!spec) throw Error(what, "unknown camera model '" + model + "'");
  if (static_cast<int>(p.size()) != spec->num_params)
    throw Error(what, model + " needs " + std::to_string(spec->num_params) + " parameters, got " +
                          std::to_string(p.size()));
  if (width <= 0 || height <= 0 || width > kMaxImageSide || height > kMaxImageSide)
    throw Error(what, "invalid image size " + std::to_string(width) + "x" + std::to_string(height));
  for (double v : p)
    if (!std::isfinite(v)) throw Error(what, "non-finite intrinsic parameter");
  SourceCamera c;
  c.model = model;
  c.k.width = static_cast<int>(width);
  c.k.height = static_cast<int>(height);
  switch (spec->id) {
    case 0: c.k.fx = c.k.fy = p[0]; c.k.cx = p[1]; c.k.cy = p[2]; break;
    case 1: c.k.fx = p[0]; c.k.fy = p[1]; c.k.cx = p[2]; c.k.cy = p[3]; break;
    case 2: c.k.fx = c.k.fy = p[0]; c.k.cx = p[1]; c.k.cy = p[2]; c.dist.k1 = p[3]; break;
    case 3: c.k.fx = c.k.fy = p[0]; c.k.cx = p[1]; c.k.cy = p[2]; c.dist.k1 = p[3]; c.dist.k2 = p[4]; break;
    case 4:
      c.k.fx = p[0]; c.k.fy = p[1]; c.k.cx = p[2]; c.k.cy = p[3];
      c.dist.k1 = p[4]; c.dist.k2 = p[5]; c.dist.p1 = p[6]; c.dist.p2 = p[7];
      break;
    case 6:
      c.k.fx = p[0]; c.k.fy = p[1]; c.k.cx = p[2]; c.k.cy = p[3];
      c.dist.k1 = p[4]; c.dist.k2 = p[5]; c.dist.p1 = p[6]; c.dist.p2 = p[7];
      c.dist.k3 = p[8]; c.dist.k4 = p[9]; c.dist.k5 = p[10]; c.dist.k6 = p[11];
      break;
    default:
      throw Error(what, "camera model " + model +
                            " is not supported (supported: SIMPLE_PINHOLE, PINHOLE, SIMPLE_RADIAL, RADIAL, "
                            "OPENCV, FULL_OPENCV)");
  }
  if (!(c.k.fx > 0) || !(c.k.fy > 0)) throw Error(what, "focal length must be positive");
  return c;
}

std::map<std::uint32_t, SourceCamera> parse_cameras_bin(const std::string& bytes, const std::string& name) {
  ByteReader r(bytes, name);
  std::uint64_t n = r.read<std::uint64_t>("camera count");
  r.check_count(n, 24, "cameras");
  std::map<std::uint32_t, SourceCamera> cams;
  for (std::uint64_t i = 0; i < n; ++i) {
    std::uint32_t id = r.read<std::uint32_t>("camera id");
    int model_id = r.read<std::int32_t>("camera model");
    std::uint64_t w = r.read<std::uint64_t>("camera width");
    std::uint64_t h = r.read<std::uint64_t>("camera height");
    const ModelSpec* spec = spec_by_id(model_id);
    if (!spec) throw Error(camera_label(name, id), "unknown camera model id " + std::to_string(model_id));
    std::vector<double> params(static_cast<std::size_t>(spec->num_params));
    for (double& v : params) v = r.read<double>("camera parameters");
    long long wl = w > static_cast<std::uint64_t>(kMaxImageSide) ? -1 : static_cast<long long>(w);
    long long hl = h > static_cast<std::uint64_t>(kMaxImageSide) ? -1 : static_cast<long long>(h);
    cams[id] = make_source_camera(spec->name, wl, hl, params, camera_label(name, id));
  }
  if (!r.at_end()) throw Error(name, "unexpected trailing bytes after " + std::to_string(n) + " cameras");
  return cams;
}

std::vector<ColmapImage> parse_images_bin(const std::string& bytes, const std::string& name) {
  ByteReader r(bytes, name);
  std::uint64_t n = r.read<std::uint64_t>("image count");
  r.check_count(n, 4 + 7 * 8 + 4 + 1 + 8, "images");
  std::vector<ColmapImage> images;
  images.reserve(static_cast<std::size_t>(n));
  for (std::uint64_t i = 0; i < n; ++i) {
    ColmapImage im;
    im.id = r.read<std::uint32_t>("image id");
    im.q = {r.read<double>("qvec"), r.read<double>("qvec"), r.read<double>("qvec"), r.read<double>("qvec")};
    im.t = {r.read<double>("tvec"), r.read<double>("tvec"), r.read<double>("tvec")};
    im.camera_id = r.read<std::uint32_t>("image camera id");
    im.name = r.read_cstring("image name");
    std::uint64_t npts = r.read<std::uint64_t>("2D point count");
    r.check_count(npts, 24, "2D points");
    r.skip(npts * 24, "2D points");
    check_pose(im, name);
    images.push_back(std::move(im));
  }
  if (!r.at_end()) throw Error(name, "unexpected trailing bytes after " + std::to_string(n) + " images");
  return images;
}

PointCloud parse_points3d_bin(const std::string& bytes, const std::string& name) {
  ByteReader r(bytes, name);
  std::uint64_t n = r.read<std::uint64_t>("point count");
  r.check_count(n, 8 + 24 + 3 + 8 + 8, "points");
  PointCloud pc;
  pc.xyz.reserve(static_cast<std::size_t>(n) * 3);
  pc.rgb.reserve(static_cast<std::size_t>(n) * 3);
  for (std::uint64_t i = 0; i < n; ++i) {
    r.read<std::uint64_t>("point id");
    double x = r.read<double>("point xyz"), y = r.read<double>("point xyz"), z = r.read<double>("point xyz");
    std::uint8_t c[3] = {r.read<std::uint8_t>("point rgb"), r.read<std::uint8_t>("point rgb"),
                         r.read<std::uint8_t>("point rgb")};
    r.read<double>("point error");
    std::uint64_t track = r.read<std::uint64_t>("track length");
    r.check_count(track, 8, "track entries");
    r.skip(track * 8, "track");
    if (!std::isfinite(x) || !std::isfinite(y) || !std::isfinite(z))
      throw Error(name, "point " + std::to_string(i) + " has a non-finite position");
    pc.xyz.insert(pc.xyz.end(), {static_cast<float>(x), static_cast<float>(y), static_cast<float>(z)});
    pc.rgb.insert(pc.rgb.end(), {c[0], c[1], c[2]});
  }
  if (!r.at_end()) throw Error(name, "unexpected trailing bytes after " + std::to_string(n) + " points");
  return pc;
}

namespace {

// Lines of a COLMAP text file with their 1-based numbers; comment lines dropped.
struct TextLine {
  int number;
  std::string text;
};

std::vector<TextLine> data_lines(const std::string& text) {
  std::vector<TextLine> lines;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::size_t first = line.find_first_not_of(" \t");
    if (first != std::string::npos && line[first] == '#') continue;
    lines.push_back({number, line});
  }
  return lines;
}

bool blank(const std::string& s) { return s.find_first_not_of(" \t") == std::string::npos; }

std::string line_label(const std::string& name, int number) { return name + ":" + std::to_string(number); }

template <class T>
T parse_field(std::istringstream& in, const std::string& where, const char* what) {
  T v{};
  if (!(in >> v)) throw Error(where, std::string("cannot parse ") + what);
  return v;
}

}  // namespace

std::map<std::uint32_t, SourceCamera> parse_cameras_txt(const std::string& text, const std::string& name) {
  std::map<std::uint32_t, SourceCamera> cams;
  for (const auto& line : data_lines(text)) {
    if (blank(line.text)) continue;
    std::string where = line_label(name, line.number);
    std::istringstream in(line.text);
    auto id = parse_field<std::uint32_t>(in, where, "camera id");
    auto model = parse_field<std::string>(in, where, "camera model");
    auto w = parse_field<long long>(in, where, "camera width");
    auto h = parse_field<long long>(in, where, "camera height");
    std::vector<double> params;
    std::string tok;
    while (in >> tok) {
      try {
        std::size_t used = 0;
        params.push_back(std::stod(tok, &used));
        if (used != tok.size()) throw std::invalid_argument(tok);
      } catch (const std::exception&) {
        throw Error(where, "cannot parse camera parameter '" + tok + "'");
      }
    }
    cams[id] = make_source_camera(model, w, h, params, where);
  }
  return cams;
}

std::vector<ColmapImage> parse_images_txt(const std::string& text, const std::string& name) {
  std::vector<ColmapImage> images;
  std::vector<TextLine> lines = data_lines(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (blank(lines[i].text)) continue;  // stray blank line between records
    std::string where = line_label(name, lines[i].number);
    std::istringstream in(lines[i].text);
    ColmapImage im;
    im.id = parse_field<std::uint32_t>(in, where, "image id");
    im.q.w = parse_field<double>(in, where, "QW");
    im.q.x = parse_field<double>(in, where, "QX");
    im.q.y = parse_field<double>(in, where, "QY");
    im.q.z = parse_field<double>(in, where, "QZ");
    im.t.x = parse_field<double>(in, where, "TX");
    im.t.y = parse_field<double>(in, where, "TY");
    im.t.z = parse_field<double>(in, where, "TZ");
    im.camera_id = parse_field<std::uint32_t>(in, where, "camera id");
    // The name is the rest of the line: file names may contain spaces.
    std::string rest;
    std::getline(in, rest);
    std::size_t a = rest.find_first_not_of(" \t"), b = rest.find_last_not_of(" \t");
    im.name = a == std::string::npos ? "" : rest.substr(a, b - a + 1);
    check_pose(im, where);
    images.push_back(std::move(im));
    ++i;  // the POINTS2D line that follows belongs to this image (it may be empty or absent)
  }
  return images;
}

PointCloud parse_points3d_txt(const std::string& text, const std::string& name) {
  PointCloud pc;
  for (const auto& line : data_lines(text)) {
    if (blank(line.text)) continue;
    std::string where = line_label(name, line.number);
    std::istringstream in(line.text);
    parse_field<std::uint64_t>(in, where, "point id");
    double x = parse_field<double>(in, where, "X"), y = parse_field<double>(in, where, "Y"),
           z = parse_field<double>(in, where, "Z");
    int r = parse_field<int>(in, where, "R"), g = parse_field<int>(in, where, "G"), b = parse_field<int>(in, where, "B");
    if (!std::isfinite(x) || !std::isfinite(y) || !std::isfinite(z)) throw Error(where, "non-finite point position");
    if (r < 0 || r > 255 || g < 0 || g > 255 || b < 0 || b > 255) throw Error(where, "colour out of 0..255");
    pc.xyz.insert(pc.xyz.end(), {static_cast<float>(x), static_cast<float>(y), static_cast<float>(z)});
    pc.rgb.insert(pc.rgb.end(), {static_cast<std::uint8_t>(r), static_cast<std::uint8_t>(g), static_cast<std::uint8_t>(b)});
  }
  return pc;
}

bool has_colmap_model(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  return fs::exists(fs::path(dir) / "cameras.bin", ec) || fs::exists(fs::path(dir) / "cameras.txt", ec);
}

ColmapModel read_colmap_model(const std::string& dir) {
  namespace fs = std::filesystem;
  ColmapModel m;
  std::error_code ec;
  m.binary = fs::exists(fs::path(dir) / "cameras.bin", ec);
  auto path = [&](const char* stem) { return (fs::path(dir) / (std::string(stem) + (m.binary ? ".bin" : ".txt"))).string(); };
  std::string cam_path = path("cameras"), img_path = path("images"), pts_path = path("points3D");
  if (m.binary) {
    m.cameras = parse_cameras_bin(read_file_bytes(cam_path), cam_path);
    m.images = parse_images_bin(read_file_bytes(img_path), img_path);
  } else {
    m.cameras = parse_cameras_txt(read_file_bytes(cam_path), cam_path);
    m.images = parse_images_txt(read_file_bytes(img_path), img_path);
  }
  // points3D is optional: a model without it still trains from random points.
  if (fs::exists(pts_path, ec)) {
    m.points = m.binary ? parse_points3d_bin(read_file_bytes(pts_path), pts_path)
                        : parse_points3d_txt(read_file_bytes(pts_path), pts_path);
    if (m.points.size() == 0) throw Error(pts_path, "point cloud is empty (0 points); remove the file to start from random points");
  }
  if (m.cameras.empty()) throw Error(cam_path, "no cameras in the model");
  if (m.images.empty()) throw Error(img_path, "no registered images in the model");
  for (const auto& im : m.images)
    if (!m.cameras.count(im.camera_id))
      throw Error(img_path, "image '" + im.name + "' refers to camera " + std::to_string(im.camera_id) +
                                ", which " + cam_path + " does not define");
  return m;
}

}  // namespace glint

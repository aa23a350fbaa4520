#include "support/scene_builder.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "glint/io/image_io.h"
#include "test_support.h"

namespace glint::test {

namespace {

template <class T>
void put(std::string& s, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  s.append(b, sizeof(T));
}

// Camera on a circle of radius 4 around the origin at height 1, looking at the origin.
void look_at_origin(int i, int n, Mat3d& R, Vec3d& t) {
  double a = 2 * M_PI * i / n;
  Vec3d c{4 * std::cos(a), 4 * std::sin(a), 1.0};
  Vec3d z = normalize(-c);
  Vec3d x = normalize(cross(z, Vec3d{0, 0, -1}));
  Vec3d y = cross(z, x);
  R = {{x.x, x.y, x.z, y.x, y.y, y.z, z.x, z.y, z.z}};
  t = -(R * c);
}

}  // namespace

std::string cameras_bin(const std::vector<FakeCamera>& cams) {
  std::string s;
  put<std::uint64_t>(s, cams.size());
  for (const auto& c : cams) {
    put<std::uint32_t>(s, c.id);
    put<std::int32_t>(s, c.model_id);
    put<std::uint64_t>(s, c.width);
    put<std::uint64_t>(s, c.height);
    for (double p : c.params) put<double>(s, p);
  }
  return s;
}

std::string images_bin(const std::vector<FakeImage>& ims) {
  std::string s;
  put<std::uint64_t>(s, ims.size());
  for (const auto& im : ims) {
    put<std::uint32_t>(s, im.id);
    for (double v : {im.q.w, im.q.x, im.q.y, im.q.z, im.t.x, im.t.y, im.t.z}) put<double>(s, v);
    put<std::uint32_t>(s, im.camera_id);
    s += im.name;
    s += '\0';
    put<std::uint64_t>(s, 1);  // one 2D point
    put<double>(s, 1.0);
    put<double>(s, 2.0);
    put<std::int64_t>(s, -1);
  }
  return s;
}

std::string points_bin(const std::vector<FakePoint>& pts) {
  std::string s;
  put<std::uint64_t>(s, pts.size());
  std::uint64_t id = 1;
  for (const auto& p : pts) {
    put<std::uint64_t>(s, id++);
    put<double>(s, p.x);
    put<double>(s, p.y);
    put<double>(s, p.z);
    put<std::uint8_t>(s, p.r);
    put<std::uint8_t>(s, p.g);
    put<std::uint8_t>(s, p.b);
    put<double>(s, 0.5);
    put<std::uint64_t>(s, 1);
    put<std::uint32_t>(s, 1);
    put<std::uint32_t>(s, 0);
  }
  return s;
}

std::string cameras_txt(const std::vector<FakeCamera>& cams) {
  std::ostringstream o;
  o.precision(17);
  o << "# Camera list with one line of data per camera:\n";
  for (const auto& c : cams) {
    o << c.id << " " << c.model << " " << c.width << " " << c.height;
    for (double p : c.params) o << " " << p;
    o << "\n";
  }
  return o.str();
}

std::string images_txt(const std::vector<FakeImage>& ims) {
  std::ostringstream o;
  o.precision(17);
  o << "# Image list with two lines of data per image:\n";
  for (const auto& im : ims) {
    o << im.id << " " << im.q.w << " " << im.q.x << " " << im.q.y << " " << im.q.z << " " << im.t.x << " " << im.t.y
      << " " << im.t.z << " " << im.camera_id << " " << im.name << "\n";
    o << "1 2 -1\n";
  }
  return o.str();
}

std::string points_txt(const std::vector<FakePoint>& pts) {
  std::ostringstream o;
  o.precision(17);
  o << "# 3D point list\n";
  int id = 1;
  for (const auto& p : pts)
    o << id++ << " " << p.x << " " << p.y << " " << p.z << " " << int(p.r) << " " << int(p.g) << " " << int(p.b)
      << " 0.5 1 0\n";
  return o.str();
}

Image8 pattern_image(int width, int height, int channels, int index) {
  Image8 img;
  img.width = width;
  img.height = height;
  img.channels = channels;
  img.data.resize(static_cast<std::size_t>(width) * height * channels);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < channels; ++c)
        img.row(y)[x * channels + c] =
            static_cast<std::uint8_t>((x * 7 + y * 3 + c * 50 + index * 31) % 256);
  return img;
}

std::vector<FakeImage> write_colmap_dataset(const std::string& root, int n, bool text) {
  namespace fs = std::filesystem;
  fs::create_directories(fs::path(root) / "sparse" / "0");
  fs::create_directories(fs::path(root) / "images");
  std::vector<FakeCamera> cams{FakeCamera{}};
  std::vector<FakeImage> ims;
  for (int i = 0; i < n; ++i) {
    FakeImage im;
    im.id = static_cast<std::uint32_t>(i + 1);
    Mat3d R;
    look_at_origin(i, n, R, im.t);
    im.q = rotmat_to_quat(R);
    im.name = "img_" + std::to_string(i) + ".png";
    ims.push_back(im);
    write_file((fs::path(root) / "images" / im.name).string(), encode_png(pattern_image(32, 24, 3, i)));
  }
  std::vector<FakePoint> pts{{0, 0, 0}, {0.1, 0.2, 0.3, 10, 20, 30}, {-0.2, 0.1, 0.0}};
  std::string sp = (fs::path(root) / "sparse" / "0").string();
  if (text) {
    write_file(sp + "/cameras.txt", cameras_txt(cams));
    write_file(sp + "/images.txt", images_txt(ims));
    write_file(sp + "/points3D.txt", points_txt(pts));
  } else {
    write_file(sp + "/cameras.bin", cameras_bin(cams));
    write_file(sp + "/images.bin", images_bin(ims));
    write_file(sp + "/points3D.bin", points_bin(pts));
  }
  return ims;
}

void write_transforms_dataset(const std::string& root, int n) {
  namespace fs = std::filesystem;
  fs::create_directories(fs::path(root) / "images");
  nlohmann::json j;
  j["fl_x"] = 30.0;
  j["fl_y"] = 31.0;
  j["cx"] = 16.0;
  j["cy"] = 12.0;
  j["w"] = 32;
  j["h"] = 24;
  j["frames"] = nlohmann::json::array();
  for (int i = 0; i < n; ++i) {
    Mat3d R;
    Vec3d t;
    look_at_origin(i, n, R, t);
    Mat3d Rc = transpose(R);  // camera-to-world, OpenCV axes
    Vec3d C = -(Rc * t);
    nlohmann::json m = nlohmann::json::array();
    for (int r = 0; r < 3; ++r)  // OpenGL axes: negate the y and z columns
      m.push_back({Rc(r, 0), -Rc(r, 1), -Rc(r, 2), r == 0 ? C.x : (r == 1 ? C.y : C.z)});
    m.push_back({0, 0, 0, 1});
    std::string name = "images/f_" + std::to_string(i) + ".png";
    j["frames"].push_back({{"file_path", name}, {"transform_matrix", m}});
    write_file((fs::path(root) / name).string(), encode_png(pattern_image(32, 24, 3, i)));
  }
  write_file((fs::path(root) / "transforms.json").string(), j.dump(2));
}

}  // namespace glint::test

#include "glint/cli/aov_output.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "glint/io/atomic_file.h"
#include "glint/io/image_io.h"
#include "glint/io/image_ops.h"
#include "glint/io/pfm.h"

namespace glint::cli {

namespace {

// Depth as grey: near is bright, far dark, over the covered pixels' range; no depth is black.
ImageF depth_visual(const ImageF& depth) {
  float lo = 1e30f, hi = 0;
  for (float z : depth.data)
    if (z > 0) {
      lo = std::min(lo, z);
      hi = std::max(hi, z);
    }
  ImageF v(depth.width, depth.height, 1);
  for (std::size_t i = 0; i < depth.data.size(); ++i) {
    float z = depth.data[i];
    v.data[i] = z > 0 ? (hi > lo ? 0.1f + 0.9f * (hi - z) / (hi - lo) : 1.f) : 0.f;
  }
  return v;
}

// A non-negative quantity as grey: 0 black, the 99th percentile of the nonzero values and
// above white (a few pixels along depth edges would otherwise make the rest black).
ImageF magnitude_visual(const ImageF& d) {
  std::vector<float> v;
  for (float x : d.data)
    if (x > 0) v.push_back(x);
  ImageF out(d.width, d.height, 1);
  if (v.empty()) return out;
  auto k = v.begin() + static_cast<std::ptrdiff_t>((v.size() - 1) * 99 / 100);
  std::nth_element(v.begin(), k, v.end());
  const float hi = *k;
  for (std::size_t i = 0; i < d.data.size(); ++i) out.data[i] = std::min(1.f, d.data[i] / hi);
  return out;
}

// Unit vectors as colour (n + 1) / 2; zero (no surface) stays black.
ImageF normal_visual(const ImageF& n) {
  ImageF v(n.width, n.height, 3);
  for (std::size_t p = 0; p < n.data.size() / 3; ++p) {
    float x = n.data[p * 3], y = n.data[p * 3 + 1], z = n.data[p * 3 + 2];
    float len = std::sqrt(x * x + y * y + z * z);
    if (len < 1e-8f) continue;
    v.data[p * 3] = 0.5f * (x / len + 1);
    v.data[p * 3 + 1] = 0.5f * (y / len + 1);
    v.data[p * 3 + 2] = 0.5f * (z / len + 1);
  }
  return v;
}

ImageF unit_normals(const ImageF& n) {
  ImageF u = n;
  for (std::size_t p = 0; p < n.data.size() / 3; ++p) {
    float* q = &u.data[p * 3];
    float len = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
    for (int c = 0; c < 3; ++c) q[c] = len > 1e-8f ? q[c] / len : 0.f;
  }
  return u;
}

}  // namespace

std::vector<std::string> aov_names() {
  std::vector<std::string> n{"rgb"};
  for (const aov::Info& o : aov::kInfo) n.push_back(o.name);
  n.push_back("depth_normal");
  return n;
}

AovSet parse_aovs(const std::vector<std::string>& names) {
  AovSet a;
  for (const std::string& n : names) {
    if (n == "rgb") a.rgb = true;
    if (n == "depth_normal") a.depth_normal = true;
    for (int i = 0; i < aov::kCount; ++i)
      if (n == aov::kInfo[i].name) a.output[i] = true;
  }
  return a;
}

void set_wanted_outputs(const AovSet& a, RenderSettings& rs) {
  for (int i = 0; i < aov::kCount; ++i) set_want(rs, aov::Id(i), a.output[i]);
  if (a.depth_normal) {
    rs.want_alpha = true;
    rs.want_depth = true;
  }
}

std::vector<std::string> aov_files(const AovSet& a, const std::string& s) {
  std::vector<std::string> f;
  if (a.rgb) f.push_back(s + ".png");
  auto both = [&](const std::string& name) {
    f.push_back(s + "_" + name + ".png");
    f.push_back(s + "_" + name + ".pfm");
  };
  for (int i = 0; i < aov::kCount; ++i)
    if (a.output[i]) both(aov::kInfo[i].name);
  if (a.depth_normal) both("depth_normal");
  return f;
}

void write_aovs(const AovSet& a, const std::string& dir, const std::string& s, const Camera& camera,
                const RenderOutput& o, const DepthFilterParams& filter) {
  auto path = [&](const std::string& name) { return (std::filesystem::path(dir) / name).string(); };
  auto png = [&](const std::string& name, const ImageF& img) { write_file_atomic(path(name), encode_png(to_image8(img))); };
  if (a.rgb) png(s + ".png", o.rgb);
  for (int i = 0; i < aov::kCount; ++i) {
    if (!a.output[i]) continue;
    const aov::Info& info = aov::kInfo[i];
    const std::string stem = s + "_" + info.name;
    const ImageF& img = image_of(o, aov::Id(i));
    switch (info.look) {
      case aov::Look::opacity:
        png(stem + ".png", img);
        write_pfm(path(stem + ".pfm"), img);
        break;
      case aov::Look::depth:
        png(stem + ".png", depth_visual(img));
        write_pfm(path(stem + ".pfm"), img);
        break;
      case aov::Look::direction: {
        ImageF n = unit_normals(img);
        png(stem + ".png", normal_visual(n));
        write_pfm(path(stem + ".pfm"), n);
        break;
      }
      case aov::Look::magnitude:
        png(stem + ".png", magnitude_visual(img));
        write_pfm(path(stem + ".pfm"), img);
        break;
    }
  }
  if (a.depth_normal) {
    ImageF filtered = joint_bilateral_depth(o.depth, o.rgb, &o.alpha, filter);
    ImageF n = world_normals_from_depth(camera, filtered, &o.alpha);
    png(s + "_depth_normal.png", normal_visual(n));
    write_pfm(path(s + "_depth_normal.pfm"), n);
  }
}

}  // namespace glint::cli

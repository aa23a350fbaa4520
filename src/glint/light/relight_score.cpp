#include "glint/light/relight_score.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <numbers>

#include "glint/core/error.h"
#include "glint/io/file_bytes.h"
#include "glint/io/image_io.h"
#include "glint/light/lights.h"

namespace glint {

std::vector<double> composite_srgb(const Image8& img, double bg, std::vector<double>* alpha_out) {
  const std::size_t n = static_cast<std::size_t>(img.width) * img.height;
  const int C = img.channels;
  if (C < 1 || C > 4) throw Error("composite: unsupported channel count " + std::to_string(C));
  std::vector<double> out(n * 3);
  if (alpha_out) alpha_out->assign(n, 1.0);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint8_t* p = img.data.data() + i * C;
    const bool has_alpha = C == 2 || C == 4;
    const double a = has_alpha ? p[C - 1] / 255.0 : 1.0;
    for (int c = 0; c < 3; ++c) {
      const double v = (C <= 2 ? p[0] : p[c]) / 255.0;
      out[i * 3 + c] = has_alpha ? v * a + bg * (1 - a) : v;
    }
    if (alpha_out) (*alpha_out)[i] = a;
  }
  return out;
}

double psnr(const std::vector<double>& a, const std::vector<double>& b, const std::vector<unsigned char>* mask) {
  if (a.size() != b.size()) throw Error("psnr: sizes differ");
  double s = 0;
  std::size_t count = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (mask && !(*mask)[i / 3]) continue;
    const double d = a[i] - b[i];
    s += d * d;
    ++count;
  }
  if (count == 0) return std::numeric_limits<double>::quiet_NaN();
  const double mse = s / count;
  return mse == 0 ? std::numeric_limits<double>::infinity() : 10 * std::log10(1.0 / mse);
}

RelitViewScore score_view(const Image8& pred, const Image8& gt, double bg) {
  if (pred.width != gt.width || pred.height != gt.height)
    throw Error("score: prediction is " + std::to_string(pred.width) + "x" + std::to_string(pred.height) +
                ", ground truth " + std::to_string(gt.width) + "x" + std::to_string(gt.height));
  std::vector<double> ga;
  auto P = composite_srgb(pred, bg);
  auto G = composite_srgb(gt, bg, &ga);
  std::vector<unsigned char> m(ga.size());
  for (std::size_t i = 0; i < m.size(); ++i) m[i] = ga[i] > 0.5;
  return {psnr(P, G), psnr(P, G, &m)};
}

namespace {

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / v.size();
}

int test_view_count(const std::string& dataset) {
  const std::string path = dataset + "/capture/transforms_test.json";
  try {
    auto j = nlohmann::json::parse(read_file_bytes(path));
    return static_cast<int>(j.at("frames").size());
  } catch (const nlohmann::json::exception& e) {
    throw Error(path, std::string("cannot count test frames: ") + e.what());
  }
}

}  // namespace

RelightScore score_relight(const std::string& dataset, const std::string& pred_dir,
                           const std::vector<std::string>& setups_in, double bg) {
  std::vector<std::string> setups = setups_in;
  if (setups.empty())
    for (const auto& s : read_lights_json(dataset + "/relit/lights.json")) setups.push_back(s.name);
  const int n = test_view_count(dataset);
  RelightScore res;
  for (const auto& s : setups) {
    SetupScore ss;
    ss.setup = s;
    std::vector<double> masked, ns;
    for (int i = 0; i < n; ++i) {
      const std::string name = "r_" + std::to_string(i) + ".png";
      const std::string p = pred_dir + "/" + s + "/" + name;
      if (!std::filesystem::exists(p)) throw Error(p, "missing prediction");
      const Image8 pred = read_image(p);
      const Image8 gt = read_image(dataset + "/relit/" + s + "/" + name);
      RelitViewScore v;
      try {
        v = score_view(pred, gt, bg);
      } catch (const Error& e) {
        throw Error(p, e.what());
      }
      ss.per_view.push_back(v.psnr);
      masked.push_back(v.psnr_masked);
      const std::string nsp = dataset + "/relit/" + s + "_noshadow/" + name;
      if (std::filesystem::exists(nsp)) ns.push_back(score_view(pred, read_image(nsp), bg).psnr);
    }
    ss.psnr = mean(ss.per_view);
    ss.psnr_masked = mean(masked);
    if (!ns.empty()) ss.psnr_vs_noshadow = mean(ns);
    res.setups.push_back(ss);
  }
  double m = 0;
  for (const auto& s : res.setups) m += s.psnr;
  res.mean_psnr = res.setups.empty() ? 0 : m / res.setups.size();
  return res;
}

std::string relight_score_json(const RelightScore& score) {
  nlohmann::ordered_json j;
  for (const auto& s : score.setups) {
    nlohmann::ordered_json o;
    o["psnr"] = s.psnr;
    o["psnr_masked"] = s.psnr_masked;
    o["psnr_vs_noshadow"] = s.psnr_vs_noshadow ? nlohmann::ordered_json(*s.psnr_vs_noshadow) : nullptr;
    o["per_view"] = s.per_view;
    j[s.setup] = o;
  }
  j["mean_psnr"] = score.mean_psnr;
  return j.dump(2);
}

NormalError normal_angle_error(const ImageF& pred, const ImageF& gt, const Image8& mask, int border) {
  const int W = gt.width, H = gt.height;
  if (pred.width != W || pred.height != H || pred.channels != 3 || gt.channels != 3 || mask.width != W ||
      mask.height != H || mask.channels < 1)
    throw Error("normal error: images must share one size, normals 3 channels");
  auto covered = [&](int x, int y) { return mask.row(y)[x * mask.channels] == 255; };
  std::vector<double> ang;
  NormalError r;
  for (int y = border; y < H - border; ++y)
    for (int x = border; x < W - border; ++x) {
      bool all = true;
      for (int dy = -border; dy <= border && all; ++dy)
        for (int dx = -border; dx <= border && all; ++dx) all = covered(x + dx, y + dy);
      if (!all) continue;
      const Vec3d g{gt.at(x, y, 0), gt.at(x, y, 1), gt.at(x, y, 2)};
      const Vec3d p{pred.at(x, y, 0), pred.at(x, y, 1), pred.at(x, y, 2)};
      if (!(norm(g) > 0.5)) continue;  // GT without a normal: nothing to compare to
      if (!(norm(p) > 0)) {
        ++r.missing;
        continue;
      }
      const double c = std::clamp(dot(g, p) / (norm(g) * norm(p)), -1.0, 1.0);
      ang.push_back(std::acos(c) * 180 / std::numbers::pi);
    }
  r.pixels = static_cast<long>(ang.size());
  if (!ang.empty()) {
    r.mean_deg = mean(ang);
    std::nth_element(ang.begin(), ang.begin() + ang.size() / 2, ang.end());
    r.median_deg = ang[ang.size() / 2];
  }
  return r;
}

}  // namespace glint

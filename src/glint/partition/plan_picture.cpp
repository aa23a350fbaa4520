#include "glint/partition/plan_picture.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

namespace glint::partition {

namespace {

using Rgb = std::array<int, 3>;

const Rgb kPalette[] = {{230, 80, 60},  {60, 150, 230}, {90, 200, 90},  {240, 190, 40},
                        {190, 90, 220}, {40, 200, 200}, {250, 130, 180}, {160, 160, 60}};

Rgb cell_colour(std::size_t k) { return kPalette[k % (sizeof kPalette / sizeof kPalette[0])]; }

// 5x7 digits, one row of 5 bits per entry, top row first.
const unsigned char kDigits[10][7] = {
    {14, 17, 19, 21, 25, 17, 14}, {4, 12, 4, 4, 4, 4, 14},    {14, 17, 1, 2, 4, 8, 31},  {31, 2, 4, 2, 1, 17, 14},
    {2, 6, 10, 18, 31, 2, 2},     {31, 16, 30, 1, 1, 17, 14}, {6, 8, 16, 30, 17, 17, 14}, {31, 1, 2, 4, 8, 8, 8},
    {14, 17, 17, 14, 17, 17, 14}, {14, 17, 17, 15, 1, 2, 12}};

class Canvas {
 public:
  Canvas(int w, int h) { img_ = {w, h, 3, std::vector<std::uint8_t>(static_cast<std::size_t>(w) * h * 3, 28)}; }
  void set(int x, int y, Rgb c, double alpha = 1) {
    if (x < 0 || y < 0 || x >= img_.width || y >= img_.height) return;
    std::uint8_t* p = img_.row(y) + 3 * x;
    for (int i = 0; i < 3; ++i) p[i] = static_cast<std::uint8_t>(std::lround(p[i] * (1 - alpha) + c[static_cast<std::size_t>(i)] * alpha));
  }
  void dot(int x, int y, int r, Rgb c) {
    for (int dy = -r; dy <= r; ++dy)
      for (int dx = -r; dx <= r; ++dx)
        if (dx * dx + dy * dy <= r * r + r) set(x + dx, y + dy, c);
  }
  void line(double x0, double y0, double x1, double y1, Rgb c, int dash = 0) {
    const int n = static_cast<int>(std::ceil(std::max(std::abs(x1 - x0), std::abs(y1 - y0)))) + 1;
    for (int i = 0; i <= n; ++i) {
      if (dash > 0 && (i / dash) % 2 == 1) continue;
      const double t = static_cast<double>(i) / n;
      set(static_cast<int>(std::lround(x0 + t * (x1 - x0))), static_cast<int>(std::lround(y0 + t * (y1 - y0))), c);
    }
  }
  void text(int x, int y, const std::string& digits, int scale, Rgb c) {
    for (char ch : digits) {
      if (ch < '0' || ch > '9') continue;
      for (int r = 0; r < 7; ++r)
        for (int b = 0; b < 5; ++b)
          if (kDigits[ch - '0'][r] & (16 >> b))
            for (int sy = 0; sy < scale; ++sy)
              for (int sx = 0; sx < scale; ++sx) set(x + b * scale + sx, y + r * scale + sy, c);
      x += 6 * scale;
    }
  }
  Image8& image() { return img_; }

 private:
  Image8 img_;
};

}  // namespace

Image8 draw_plan(const Plan& plan, const Dataset& data, int max_side) {
  // The bounds with a margin, mapped to pixels with v up.
  const GroundRect view = plan.bounds.grown(0.03 * plan.bounds.width(), 0.03 * plan.bounds.depth());
  const double scale = max_side / std::max(view.width(), view.depth());
  const int w = std::max(16, static_cast<int>(std::lround(view.width() * scale)));
  const int h = std::max(16, static_cast<int>(std::lround(view.depth() * scale)));
  const auto px = [&](double u) { return (u - view.u0) * scale; };
  const auto py = [&](double v) { return (view.v1 - v) * scale; };
  Canvas cv(w, h);

  // Points: the highest one in each pixel, brighter for higher.
  std::vector<float> top(static_cast<std::size_t>(w) * h, -1e30f);
  double h_max = 1e-9;
  for (const Cell& c : plan.cells) h_max = std::max(h_max, c.top);
  for (std::size_t i = 0; i < data.points.size(); ++i) {
    const Vec3d l = plan.frame.to_local({data.points.xyz[3 * i], data.points.xyz[3 * i + 1], data.points.xyz[3 * i + 2]});
    const int x = static_cast<int>(px(l.x)), y = static_cast<int>(py(l.y));
    if (x < 0 || y < 0 || x >= w || y >= h) continue;
    float& t = top[static_cast<std::size_t>(y) * w + x];
    t = std::max(t, static_cast<float>(l.z));
  }
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const float t = top[static_cast<std::size_t>(y) * w + x];
      if (t < -1e29f) continue;
      const int g = 70 + static_cast<int>(150 * std::clamp(t / h_max, 0.0, 1.0));
      cv.set(x, y, {g, g, g});
    }

  for (std::size_t k = 0; k < plan.cells.size(); ++k) {
    const Cell& c = plan.cells[k];
    const Rgb col = cell_colour(k);
    for (int y = static_cast<int>(py(c.core.v1)); y < static_cast<int>(py(c.core.v0)); ++y)
      for (int x = static_cast<int>(px(c.core.u0)); x < static_cast<int>(px(c.core.u1)); ++x) cv.set(x, y, col, 0.12);
    const GroundRect& e = c.expanded;
    for (int d = 0; d < 2; ++d) {
      const double o = d;  // two pixels wide
      cv.line(px(c.core.u0) + o, py(c.core.v0), px(c.core.u0) + o, py(c.core.v1), col);
      cv.line(px(c.core.u1) - o, py(c.core.v0), px(c.core.u1) - o, py(c.core.v1), col);
      cv.line(px(c.core.u0), py(c.core.v0) - o, px(c.core.u1), py(c.core.v0) - o, col);
      cv.line(px(c.core.u0), py(c.core.v1) + o, px(c.core.u1), py(c.core.v1) + o, col);
    }
    cv.line(px(e.u0), py(e.v0), px(e.u0), py(e.v1), col, 6);
    cv.line(px(e.u1), py(e.v0), px(e.u1), py(e.v1), col, 6);
    cv.line(px(e.u0), py(e.v0), px(e.u1), py(e.v0), col, 6);
    cv.line(px(e.u0), py(e.v1), px(e.u1), py(e.v1), col, 6);
  }

  const double tick = std::max(6.0, 0.012 * max_side);
  for (const View& v : data.train) {
    const Camera& cam = v.camera;
    const Vec3d c = plan.frame.to_local(cam.center());
    const CameraPose pose = camera_pose(cam);
    Vec2d dir{dot(pose.forward, plan.frame.u), dot(pose.forward, plan.frame.v)};
    const double len = std::hypot(dir.x, dir.y);
    const Rgb col = cell_colour(plan.owner(cam.center()));
    if (len > 1e-6) cv.line(px(c.x), py(c.y), px(c.x) + tick * dir.x / len, py(c.y) - tick * dir.y / len, col);
    cv.dot(static_cast<int>(std::lround(px(c.x))), static_cast<int>(std::lround(py(c.y))), 2, col);
  }

  // Cell numbers, at the centre of the cameras' part of each core.
  const int digit_scale = std::max(2, max_side / 250);
  for (std::size_t k = 0; k < plan.cells.size(); ++k) {
    const Cell& c = plan.cells[k];
    const std::string label = std::to_string(k);
    const int tw = static_cast<int>(label.size()) * 6 * digit_scale, th = 7 * digit_scale;
    const int x = static_cast<int>(px(0.5 * (c.core.u0 + c.core.u1))) - tw / 2;
    const int y = static_cast<int>(py(0.5 * (c.core.v0 + c.core.v1))) - th / 2;
    for (int dy = -digit_scale; dy < th + digit_scale; ++dy)
      for (int dx = -digit_scale; dx < tw; ++dx) cv.set(x + dx, y + dy, {0, 0, 0}, 0.6);
    cv.text(x, y, label, digit_scale, cell_colour(k));
  }
  return std::move(cv.image());
}

}  // namespace glint::partition

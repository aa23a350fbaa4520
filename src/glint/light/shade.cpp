#include "glint/light/shade.h"

#include <numbers>

#include "glint/core/error.h"

namespace glint {
namespace {

void check(const ImageF* img, int w, int h, int c, const char* what) {
  if (!img) return;
  if (img->width != w || img->height != h || img->channels != c ||
      img->data.size() != static_cast<std::size_t>(w) * h * c)
    throw Error(std::string("shade: ") + what + " is " + std::to_string(img->width) + "x" +
                std::to_string(img->height) + "x" + std::to_string(img->channels) + ", expected " +
                std::to_string(w) + "x" + std::to_string(h) + "x" + std::to_string(c));
}

}  // namespace

ImageF shade(const LightSetup& setup, const ShadeInputs& in) {
  if (!in.albedo || !in.normal || !in.position) throw Error("shade: albedo, normal and position are required");
  const int w = in.albedo->width, h = in.albedo->height;
  check(in.albedo, w, h, 3, "albedo");
  check(in.normal, w, h, 3, "normal");
  check(in.position, w, h, 3, "position");
  check(in.ao, w, h, 1, "ambient occlusion");
  check(in.ambient_albedo, w, h, 3, "ambient albedo");
  if (!in.visibility.empty() && in.visibility.size() != setup.lights.size())
    throw Error("shade: " + std::to_string(in.visibility.size()) + " visibility images for " +
                std::to_string(setup.lights.size()) + " lights");
  for (const ImageF* v : in.visibility) check(v, w, h, 1, "visibility");
  check(in.irradiance, w, h, 3, "irradiance");
  for (const Light& l : setup.lights)
    if (l.type == LightType::Environment)
      throw Error("shade: setup '" + setup.name + "' has an environment light; expand it first (environment_light.h)");

  ImageF out = ImageF::uninitialized(w, h, 3);  // every pixel is written below
  const Vec3d amb = setup.ambient();
  const long n = static_cast<long>(w) * h;
  // Dynamic: a pixel without a surface costs next to nothing, one with many lights (an
  // environment's suns) a lot, and a view's surface is rarely spread evenly over its rows.
#pragma omp parallel for schedule(dynamic, 2048)
  for (long i = 0; i < n; ++i) {
    const Vec3f a = load3(in.albedo->data.data(), i);
    const Vec3f nf = load3(in.normal->data.data(), i);
    const Vec3f pf = load3(in.position->data.data(), i);
    const Vec3d nn{nf.x, nf.y, nf.z}, x{pf.x, pf.y, pf.z};
    // Direct light summed as colour * E * V before the albedo, so one multiply per channel.
    Vec3d direct{0, 0, 0};
    if (dot(nn, nn) > 0) {
      for (std::size_t l = 0; l < setup.lights.size(); ++l) {
        double v = (in.visibility.empty() || !in.visibility[l]) ? 1.0 : in.visibility[l]->data[i];
        if (v <= 0) continue;
        const Light& light = setup.lights[l];
        direct = direct + (irradiance(light, x, nn) * v / std::numbers::pi) * light.color;
      }
    }
    if (in.irradiance) {
      const Vec3f e = load3(in.irradiance->data.data(), i);
      direct = direct + (1 / std::numbers::pi) * Vec3d{e.x, e.y, e.z};
    }
    Vec3d amb_src;
    if (in.ambient_albedo) {
      const Vec3f c = load3(in.ambient_albedo->data.data(), i);
      amb_src = {c.x, c.y, c.z};
    } else {
      const double ao = in.ao ? in.ao->data[i] : 1.0;
      amb_src = ao * Vec3d{a.x, a.y, a.z};
    }
    const Vec3d L = mul(amb_src, amb) + mul(Vec3d{a.x, a.y, a.z}, direct);
    store3(out.data.data(), i, Vec3f{float(L.x), float(L.y), float(L.z)});
  }
  return out;
}

void add_irradiance(const Light& light, const ImageF* visibility, const ImageF& position, const ImageF& normal,
                    ImageF& E) {
  const int w = normal.width, h = normal.height;
  check(&normal, w, h, 3, "normal");
  check(&position, w, h, 3, "position");
  check(visibility, w, h, 1, "visibility");
  if (light.type == LightType::Environment)
    throw Error("shade: an environment light's irradiance is its suns' and its residual's (environment_light.h)");
  if (E.data.empty()) E = ImageF(w, h, 3);
  check(&E, w, h, 3, "irradiance");
  const long n = static_cast<long>(w) * h;
  // A sun's irradiance does not depend on the position: the pass then reads no positions
  // (an environment's sixteen suns each make a pass over the whole view).
  const bool by_position = light.type != LightType::Sun;
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) {
    const double v = visibility ? visibility->data[i] : 1.0;
    if (!(v > 0)) continue;
    const Vec3f nf = load3(normal.data.data(), i);
    const Vec3d nn{nf.x, nf.y, nf.z};
    if (!(dot(nn, nn) > 0)) continue;
    const Vec3f pf = by_position ? load3(position.data.data(), i) : Vec3f{0.f, 0.f, 0.f};
    const Vec3d e = (irradiance(light, Vec3d{pf.x, pf.y, pf.z}, nn) * v) * light.color;
    float* out = E.data.data() + 3 * i;
    out[0] += static_cast<float>(e.x);
    out[1] += static_cast<float>(e.y);
    out[2] += static_cast<float>(e.z);
  }
}

}  // namespace glint

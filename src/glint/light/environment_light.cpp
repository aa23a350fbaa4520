#include "glint/light/environment_light.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>

#include "glint/core/error.h"
#include "glint/light/shadow_map.h"
#include "glint/light/surface_map.h"

namespace glint {
namespace {

constexpr double kPi = std::numbers::pi;

double luminance(Vec3d c) { return 0.2126 * c.x + 0.7152 * c.y + 0.0722 * c.z; }

Vec3d lat_long(double phi, double e) { return {std::cos(e) * std::cos(phi), std::cos(e) * std::sin(phi), std::sin(e)}; }

// integral of w dw over the map-frame rectangle phi in [p0,p1], elevation in [e0,e1].
Vec3d rect_moment(double p0, double p1, double e0, double e1) {
  const double cc = 0.5 * (e1 - e0) + 0.25 * (std::sin(2 * e1) - std::sin(2 * e0));
  const double sc = 0.5 * (std::sin(e1) * std::sin(e1) - std::sin(e0) * std::sin(e0));
  return {cc * (std::sin(p1) - std::sin(p0)), cc * (std::cos(p0) - std::cos(p1)), sc * (p1 - p0)};
}

// Per texel, world frame: first moment, its unit direction, solid angle, and the sine of an
// angular radius bounding the texel around that direction (for the horizon test).
struct TexelGeometry {
  int W = 0, H = 0;
  double rot = 0;
  std::vector<Vec3d> moment, centre;
  std::vector<double> solid_angle, sin_radius;
  // Per row, the moments of the kSub x kSub sub-cells of its column-0 texel in the map frame;
  // column c is the same rectangle turned by -c 2pi/W about +Z.
  static constexpr int kSub = 4;
  std::vector<Vec3d> sub_moment;
  // Per column c, cos and sin of the turn that takes its texels to column 0's frame:
  // clamped_cosine needs it for every texel a horizon crosses, thousands of times a map.
  std::vector<double> to_col0_cos, to_col0_sin;

  explicit TexelGeometry(const EnvironmentMap& env) : W(env.width()), H(env.height()), rot(env.rotation_z) {
    const std::size_t n = static_cast<std::size_t>(W) * H;
    moment.resize(n);
    centre.resize(n);
    solid_angle.resize(n);
    sin_radius.resize(n);
    sub_moment.resize(static_cast<std::size_t>(H) * kSub * kSub);
    for (int c = 0; c < W; ++c) {
      const double a = -(rot - c * 2 * kPi / W);
      to_col0_cos.push_back(std::cos(a));
      to_col0_sin.push_back(std::sin(a));
    }
#pragma omp parallel for schedule(static)
    for (int r = 0; r < H; ++r) {
      double p0, p1, e0, e1;
      bounds(r, 0, p0, p1, e0, e1);
      // Angular radius is the same for every texel of a row; measured on column 0.
      const Vec3d m0 = rect_moment(p0, p1, e0, e1), c0 = normalize(m0);
      double cos_min = 1;
      for (double pp : {p0, 0.5 * (p0 + p1), p1})
        for (double ee : {e0, 0.5 * (e0 + e1), e1}) cos_min = std::min(cos_min, dot(c0, lat_long(pp, ee)));
      // 10% margin: the corners and edge midpoints bound the rectangle closely, not exactly.
      const double radius = std::min(0.5 * kPi, 1.1 * std::acos(std::clamp(cos_min, -1.0, 1.0)));
      const double sa = env_texel_solid_angle(W, H, r), sr = std::sin(radius);
      Vec3d* sub = &sub_moment[static_cast<std::size_t>(r) * kSub * kSub];
      for (int a = 0; a < kSub; ++a)
        for (int b = 0; b < kSub; ++b)
          sub[a * kSub + b] = rect_moment(p0 + (p1 - p0) * a / kSub, p0 + (p1 - p0) * (a + 1) / kSub,
                                          e0 + (e1 - e0) * b / kSub, e0 + (e1 - e0) * (b + 1) / kSub);
      // Column c is column 0's rectangle moved by -c 2pi/W in azimuth, so its moment is
      // column 0's turned by that angle (and by the map's rotation): the turn back to
      // column 0 inverted.
      for (int c = 0; c < W; ++c) {
        const std::size_t i = static_cast<std::size_t>(r) * W + c;
        const double cs = to_col0_cos[static_cast<std::size_t>(c)], sn = -to_col0_sin[static_cast<std::size_t>(c)];
        moment[i] = {cs * m0.x - sn * m0.y, sn * m0.x + cs * m0.y, m0.z};
        centre[i] = normalize(moment[i]);
        solid_angle[i] = sa;
        sin_radius[i] = sr;
      }
    }
  }
  void bounds(int r, int c, double& p0, double& p1, double& e0, double& e1) const {
    p0 = (0.5 - (c + 1.0) / W) * 2 * kPi;
    p1 = (0.5 - static_cast<double>(c) / W) * 2 * kPi;
    e0 = (0.5 - (r + 1.0) / H) * kPi;
    e1 = (0.5 - static_cast<double>(r) / H) * kPi;
  }
  // integral over texel i of max(0, n.w) dw.
  double clamped_cosine(std::size_t i, Vec3d n) const {
    const double nc = dot(n, centre[i]);
    if (nc >= sin_radius[i]) return dot(n, moment[i]);
    if (nc <= -sin_radius[i]) return 0;
    const int r = static_cast<int>(i / W), c = static_cast<int>(i % W);
    // n in the frame where this texel is row r's column-0 rectangle (turned about +Z by the
    // column's angle, its cosine and sine from the table).
    const double cs = to_col0_cos[static_cast<std::size_t>(c)], sn = to_col0_sin[static_cast<std::size_t>(c)];
    const Vec3d nl{cs * n.x - sn * n.y, sn * n.x + cs * n.y, n.z};
    const Vec3d* m = &sub_moment[static_cast<std::size_t>(r) * kSub * kSub];
    double sum = 0;
    for (int k = 0; k < kSub * kSub; ++k) sum += std::max(0.0, dot(nl, m[k]));
    return sum;
  }
};

Vec3d texel(const EnvironmentMap& env, std::size_t i) {
  const float* p = &env.texels.data[i * 3];
  return {p[0], p[1], p[2]};
}

// The texels an irradiance sums over (not skipped, not black), with what the sum reads of
// each packed together (a table of irradiances visits them thousands of times), grouped in
// patches of kPatch x kPatch texels of the map. A patch wholly above a normal's horizon
// adds n . sum(L m) of its texels, one whole below adds nothing: only the patches the
// horizon crosses are summed texel by texel.
struct LitTexels {
  static constexpr int kPatch = 4;
  struct Patch {
    std::size_t begin = 0, end = 0;  // its texels in index / radiance
    Vec3d moment_r{0, 0, 0}, moment_g{0, 0, 0}, moment_b{0, 0, 0};  // sum of L_c m over them
    Vec3d centre{0, 0, 0};
    double sin_radius = 1;  // sine of an angle bounding every texel of it around centre
  };
  std::vector<std::uint32_t> index;
  std::vector<Vec3d> radiance;
  std::vector<Patch> patches;
  LitTexels(const EnvironmentMap& env, const TexelGeometry& g, const std::vector<char>* skip) {
    for (int r0 = 0; r0 < g.H; r0 += kPatch)
      for (int c0 = 0; c0 < g.W; c0 += kPatch) {
        Patch p;
        p.begin = index.size();
        Vec3d m{0, 0, 0};
        for (int r = r0; r < std::min(g.H, r0 + kPatch); ++r)
          for (int c = c0; c < std::min(g.W, c0 + kPatch); ++c) {
            const std::size_t i = static_cast<std::size_t>(r) * g.W + c;
            if (skip && (*skip)[i]) continue;
            const Vec3d L = texel(env, i);
            if (L.x == 0 && L.y == 0 && L.z == 0) continue;
            index.push_back(static_cast<std::uint32_t>(i));
            radiance.push_back(L);
            p.moment_r = p.moment_r + L.x * g.moment[i];
            p.moment_g = p.moment_g + L.y * g.moment[i];
            p.moment_b = p.moment_b + L.z * g.moment[i];
            m = m + g.moment[i];
          }
        p.end = index.size();
        if (p.end == p.begin) continue;
        // Angle to the farthest texel centre plus that texel's own radius (the triangle
        // inequality then keeps every texel on the patch's side of a horizon).
        p.centre = normalize(m);
        double R = 0;
        for (std::size_t j = p.begin; j < p.end; ++j) {
          const std::size_t i = index[j];
          R = std::max(R, std::acos(std::clamp(dot(p.centre, g.centre[i]), -1.0, 1.0)) + std::asin(g.sin_radius[i]));
        }
        p.sin_radius = R >= 0.5 * kPi ? 1.0 : std::sin(R);
        patches.push_back(p);
      }
  }
};

// The irradiance of count (at most kNormalBlock) normals, summed over the texels in one
// pass: a table's sums read the texel geometry from memory once per block, not per normal.
constexpr int kNormalBlock = 8;
void irradiance_block(const EnvironmentMap& env, const TexelGeometry& g, const Vec3d* n, int count,
                      const LitTexels& lit, Vec3d* E) {
  for (int b = 0; b < count; ++b) E[b] = {0, 0, 0};
  for (const LitTexels::Patch& p : lit.patches)
    for (int b = 0; b < count; ++b) {
      const double nc = dot(n[b], p.centre);
      if (nc <= -p.sin_radius) continue;
      if (nc >= p.sin_radius) {
        E[b] = E[b] + Vec3d{dot(n[b], p.moment_r), dot(n[b], p.moment_g), dot(n[b], p.moment_b)};
        continue;
      }
      for (std::size_t j = p.begin; j < p.end; ++j) {
        const double k = g.clamped_cosine(lit.index[j], n[b]);
        if (k > 0) E[b] = E[b] + k * lit.radiance[j];
      }
    }
  for (int b = 0; b < count; ++b) E[b] = env.strength * E[b];
}

}  // namespace

Vec3d IrradianceTable::lookup(Vec3d n) const {
  if (E.empty()) return {0, 0, 0};
  double phi = std::atan2(n.y, n.x);
  if (phi < 0) phi += 2 * kPi;
  const double fi = phi / (2 * kPi) * width;
  const double fj = (std::asin(std::clamp(n.z / norm(n), -1.0, 1.0)) + 0.5 * kPi) / kPi * (height - 1);
  const int i0 = std::min(static_cast<int>(std::floor(fi)), width - 1), i1 = (i0 + 1) % width;
  const int j0 = std::clamp(static_cast<int>(std::floor(fj)), 0, height - 2), j1 = j0 + 1;
  const double a = fi - i0, b = fj - j0;
  auto at = [&](int i, int j) { return E[static_cast<std::size_t>(j) * width + i]; };
  return (1 - b) * ((1 - a) * at(i0, j0) + a * at(i1, j0)) + b * ((1 - a) * at(i0, j1) + a * at(i1, j1));
}

Vec3d env_irradiance_exact(const EnvironmentMap& env, Vec3d n, const std::vector<char>* skip) {
  TexelGeometry g(env);
  const Vec3d nn = normalize(n);
  Vec3d E;
  irradiance_block(env, g, &nn, 1, LitTexels(env, g, skip), &E);
  return E;
}

EnvLighting decompose_environment(const EnvironmentMap& env, const std::vector<Vec3d>& dirs, const EnvLightParams& p) {
  check_environment_map(env, env.file.empty() ? "environment map" : env.file);
  if (p.max_suns < 0) throw Error("environment light: max_suns must be >= 0");
  if (p.table_width < 4 || p.table_width % 2) throw Error("environment light: table width must be even and >= 4");
  const TexelGeometry g(env);
  const std::size_t n = g.moment.size();
  std::vector<double> lum(n);
  double mean = 0;
  for (std::size_t i = 0; i < n; ++i) {
    lum[i] = luminance(texel(env, i));
    mean += lum[i] * g.solid_angle[i];
  }
  mean /= 4 * kPi;

  EnvLighting out;
  std::vector<char> removed(n, 0), candidate(n, 0);
  for (std::size_t i = 0; i < n; ++i) candidate[i] = lum[i] > p.bright_ratio * mean && lum[i] > 0;
  const double cos_radius = std::cos(p.cluster_radius_deg * kPi / 180);
  for (int s = 0; s < p.max_suns; ++s) {
    std::size_t peak = n;
    for (std::size_t i = 0; i < n; ++i)
      if (candidate[i] && (peak == n || lum[i] > lum[peak])) peak = i;
    if (peak == n) break;
    Vec3d Mr{0, 0, 0}, Mg{0, 0, 0}, Mb{0, 0, 0}, Ml{0, 0, 0};
    for (std::size_t i = 0; i < n; ++i) {
      if (!candidate[i] || dot(g.centre[i], g.centre[peak]) < cos_radius) continue;
      const Vec3d L = texel(env, i);
      Mr = Mr + L.x * g.moment[i];
      Mg = Mg + L.y * g.moment[i];
      Mb = Mb + L.z * g.moment[i];
      Ml = Ml + lum[i] * g.moment[i];
      candidate[i] = 0;
      removed[i] = 1;
    }
    const Vec3d dir = normalize(Ml);
    const Vec3d comp = env.strength * Vec3d{dot(Mr, dir), dot(Mg, dir), dot(Mb, dir)};
    const double strength = std::max({comp.x, comp.y, comp.z});
    if (!(strength > 0)) continue;
    out.suns.push_back(Light::sun(dir, strength, (1 / strength) * comp));
  }

  // Residual weights: mean radiance of the remaining texels nearest to each direction.
  out.residual_directions = dirs;
  std::vector<Vec3d> sum(dirs.size(), Vec3d{0, 0, 0});
  std::vector<double> area(dirs.size(), 0);
  // Each texel's nearest direction on every thread, then the sums in texel order.
  std::vector<std::uint32_t> nearest(dirs.empty() ? 0 : n);
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < nearest.size(); ++i) {
    std::size_t best = 0;
    double bd = -2;
    for (std::size_t k = 0; k < dirs.size(); ++k)
      if (double d = dot(g.centre[i], dirs[k]); d > bd) bd = d, best = k;
    nearest[i] = static_cast<std::uint32_t>(best);
  }
  for (std::size_t i = 0; i < nearest.size(); ++i) {
    const std::size_t best = nearest[i];
    area[best] += g.solid_angle[i];
    if (!removed[i]) sum[best] = sum[best] + g.solid_angle[i] * texel(env, i);
  }
  for (std::size_t k = 0; k < dirs.size(); ++k)
    out.residual_weights.push_back(area[k] > 0 ? (env.strength / area[k]) * sum[k] : Vec3d{0, 0, 0});

  IrradianceTable& t = out.residual;
  t.width = p.table_width;
  t.height = p.table_width / 2 + 1;
  t.E.assign(static_cast<std::size_t>(t.width) * t.height, Vec3d{0, 0, 0});
  const long cells = static_cast<long>(t.E.size());
  const LitTexels lit(env, g, &removed);
  const long blocks = (cells + kNormalBlock - 1) / kNormalBlock;
#pragma omp parallel for schedule(dynamic, 1)
  for (long blk = 0; blk < blocks; ++blk) {
    const long c0 = blk * kNormalBlock;
    const int count = static_cast<int>(std::min<long>(kNormalBlock, cells - c0));
    Vec3d nn[kNormalBlock];
    for (int b = 0; b < count; ++b) {
      const long c = c0 + b;
      const int i = static_cast<int>(c % t.width), j = static_cast<int>(c / t.width);
      nn[b] = lat_long(2 * kPi * i / t.width, -0.5 * kPi + kPi * j / (t.height - 1));
    }
    irradiance_block(env, g, nn, count, lit, &t.E[static_cast<std::size_t>(c0)]);
  }
  return out;
}

Vec3f ResidualSums::visibility() const {
  const auto ratio = [](double a, double b) { return b > 0 ? static_cast<float>(a / b) : 1.f; };
  return {ratio(num.x, den.x), ratio(num.y, den.y), ratio(num.z, den.z)};
}

Vec3d ResidualSums::irradiance(const EnvLighting& env, Vec3d n) const {
  return env.residual_irradiance(n, visibility());
}

Vec3d env_residual_irradiance(const EnvLighting& env, const AoMaps* ao, Vec3d x, Vec3d n) {
  if (!ao) return env.residual.lookup(n);
  ResidualSums sums;
  for (std::size_t k = 0; k < ao->maps.size(); ++k) {
    const double c = dot(n, ao->directions[k].direction);
    if (c <= 0) continue;
    const Vec3d w = ResidualSums::weight(env, k, c);
    if (ResidualSums::is_zero(w)) continue;
    sums.add(w, shadow_visibility(ao->maps[k], ao->directions[k], x, n));
  }
  return sums.irradiance(env, n);
}

ImageF env_residual_irradiance_image(const EnvLighting& env, const AoMaps* ao, const ImageF& pos, const ImageF& nrm) {
  if (ao && ao->maps.size() != env.residual_weights.size())
    throw Error("environment residual: " + std::to_string(ao->maps.size()) + " AO maps for " +
                std::to_string(env.residual_weights.size()) + " residual directions");
  return map_surface_pixels(pos, nrm, "environment residual",
                            [&](Vec3d x, Vec3d n) { return env_residual_irradiance(env, ao, x, n); });
}

EnvLighting tinted_environment(const Light& l, const std::vector<Vec3d>& dirs, const EnvLightParams& p) {
  if (!l.environment) throw Error("environment light without a map");
  EnvLighting r = decompose_environment(*l.environment, dirs, p);
  // The light's colour tints the whole map.
  for (Light& sun : r.suns) sun.color = mul(sun.color, l.color);
  for (Vec3d& w : r.residual_weights) w = mul(w, l.color);
  for (Vec3d& e : r.residual.E) e = mul(e, l.color);
  return r;
}

LightSetup expand_environment_lights(const LightSetup& setup, const std::vector<Vec3d>& dirs, const EnvLightParams& p,
                                     std::vector<EnvLighting>& residuals) {
  LightSetup out = setup;
  out.lights.clear();
  for (const Light& l : setup.lights) {
    if (l.type != LightType::Environment) {
      out.lights.push_back(l);
      continue;
    }
    residuals.push_back(tinted_environment(l, dirs, p));
    for (const Light& sun : residuals.back().suns) out.lights.push_back(sun);
  }
  return out;
}

}  // namespace glint

#include "reference/reference_renderer.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

#include "glint/render/project.h"
#include "glint/render/sh.h"
#include "glint/render/view.h"

namespace glint::ref {

ModelD ModelD::from(const GaussianModel& m) {
  ModelD d;
  d.sh_degree = m.sh_degree;
  auto cp = [](const std::vector<float>& v) { return std::vector<double>(v.begin(), v.end()); };
  d.means = cp(m.means);
  d.log_scales = cp(m.log_scales);
  d.quats = cp(m.quats);
  d.opacity_logits = cp(m.opacity_logits);
  d.sh_dc = cp(m.sh_dc);
  d.sh_rest = cp(m.sh_rest);
  return d;
}

std::vector<double*> ModelD::params() {
  std::vector<double*> p;
  for (auto* v : {&means, &log_scales, &quats, &opacity_logits, &sh_dc, &sh_rest})
    for (auto& x : *v) p.push_back(&x);
  return p;
}

namespace {

struct Splat {
  std::size_t id;
  double mx, my, A, B, C, opac, cut, z;
  double col[3], n[3];
};

Mat3d rot_from_quat(double w, double x, double y, double z) {
  double n = std::sqrt(w * w + x * x + y * y + z * z);
  if (n == 0) return identity3<double>();
  w /= n, x /= n, y /= n, z /= n;
  return {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y), 2 * (x * y + w * z),
           1 - 2 * (x * x + z * z), 2 * (y * z - w * x), 2 * (x * z - w * y), 2 * (y * z + w * x),
           1 - 2 * (x * x + y * y)}};
}

// graphdeco computeColorFromSH, written out as in the paper's code.
void sh_eval(int deg, const double* dc, const double* rest, double x, double y, double z, double* out) {
  const double C0 = 0.28209479177387814, C1 = 0.4886025119029199;
  const double C2[5] = {1.0925484305920792, -1.0925484305920792, 0.31539156525252005, -1.0925484305920792,
                        0.5462742152960396};
  const double C3[7] = {-0.5900435899266435, 2.890611442640554, -0.4570457994644658, 0.3731763325901154,
                        -0.4570457994644658, 1.445305721320277,  -0.5900435899266435};
  for (int c = 0; c < 3; ++c) {
    auto sh = [&](int k) { return k == 0 ? dc[c] : rest[(k - 1) * 3 + c]; };
    double r = C0 * sh(0);
    if (deg > 0) {
      r += -C1 * y * sh(1) + C1 * z * sh(2) - C1 * x * sh(3);
      if (deg > 1) {
        double xx = x * x, yy = y * y, zz = z * z, xy = x * y, yz = y * z, xz = x * z;
        r += C2[0] * xy * sh(4) + C2[1] * yz * sh(5) + C2[2] * (2 * zz - xx - yy) * sh(6) + C2[3] * xz * sh(7) +
             C2[4] * (xx - yy) * sh(8);
        if (deg > 2) {
          r += C3[0] * y * (3 * xx - yy) * sh(9) + C3[1] * xy * z * sh(10) + C3[2] * y * (4 * zz - xx - yy) * sh(11) +
               C3[3] * z * (2 * zz - 3 * xx - 3 * yy) * sh(12) + C3[4] * x * (4 * zz - xx - yy) * sh(13) +
               C3[5] * z * (xx - yy) * sh(14) + C3[6] * x * (xx - 3 * yy) * sh(15);
        }
      }
    }
    out[c] = std::max(0.0, r + 0.5);
  }
}

int active_degree(const ModelD& m, const RenderSettings& s) {
  return std::clamp(s.sh_degree >= 0 ? s.sh_degree : m.sh_degree, 0, 3);
}

// Independent projection (full matrices, no shared code with render/project.h).
bool project(const ModelD& m, std::size_t i, const Camera& cam, const RenderSettings& s, int deg, Splat& o) {
  Vec3d mean{m.means[3 * i], m.means[3 * i + 1], m.means[3 * i + 2]};
  Vec3d pc = cam.world_to_camera(mean);
  if (!(pc.z >= double(s.near_plane))) return false;
  Mat3d Rq = rot_from_quat(m.quats[4 * i], m.quats[4 * i + 1], m.quats[4 * i + 2], m.quats[4 * i + 3]);
  Mat3d S2{};
  for (int k = 0; k < 3; ++k) S2.m[k * 4] = std::exp(2 * m.log_scales[3 * i + k]);
  Mat3d Sigma = Rq * S2 * transpose(Rq);
  double limxn = 1.3 * cam.cx / cam.fx, limxp = 1.3 * (cam.width - cam.cx) / cam.fx;
  double limyn = 1.3 * cam.cy / cam.fy, limyp = 1.3 * (cam.height - cam.cy) / cam.fy;
  double tx = pc.z * std::clamp(pc.x / pc.z, -limxn, limxp), ty = pc.z * std::clamp(pc.y / pc.z, -limyn, limyp);
  Mat3d J{{cam.fx / pc.z, 0, -cam.fx * tx / (pc.z * pc.z), 0, cam.fy / pc.z, -cam.fy * ty / (pc.z * pc.z), 0, 0, 0}};
  Mat3d Tm = J * cam.R;
  Mat3d cov = Tm * Sigma * transpose(Tm);
  double a = cov.m[0], b = cov.m[1], c = cov.m[4];
  double ad = a + 0.3, cd = c + 0.3, det = ad * cd - b * b;
  if (!(det > 0) || !std::isfinite(det)) return false;
  double op = 1.0 / (1.0 + std::exp(-m.opacity_logits[i]));
  if (s.antialiased) op *= std::sqrt(std::max(0.0, (a * c - b * b) / det));
  if (!(op >= 1.0 / 255.0)) return false;
  o.id = i;
  o.A = cd / det;
  o.B = -b / det;
  o.C = ad / det;
  o.opac = op;
  o.cut = 0.5 * std::clamp(2 * std::log(255 * op), 0.0, 9.0);
  o.z = pc.z;
  Vec2d p = cam.project(pc);
  o.mx = p.x;
  o.my = p.y;
  Vec3d campos = cam.center();
  Vec3d dir = normalize(mean - campos);
  sh_eval(deg, &m.sh_dc[3 * i], &m.sh_rest[45 * i], dir.x, dir.y, dir.z, o.col);
  const double* ls = &m.log_scales[3 * i];
  int k = 0;
  for (int j = 1; j < 3; ++j)
    if (ls[j] < ls[k]) k = j;
  Vec3d n{Rq.m[k], Rq.m[3 + k], Rq.m[6 + k]};
  if (dot(n, mean - campos) > 0) n = -n;
  o.n[0] = n.x, o.n[1] = n.y, o.n[2] = n.z;
  return true;
}

struct Step {
  std::size_t s;  // index into splats
  double alpha, G, T;
  bool clamped;
};

std::vector<Splat> project_all(const ModelD& m, const Camera& cam, const RenderSettings& s) {
  std::vector<Splat> sp;
  int deg = active_degree(m, s);
  for (std::size_t i = 0; i < m.size(); ++i) {
    Splat o;
    if (project(m, i, cam, s, deg, o)) sp.push_back(o);
  }
  std::stable_sort(sp.begin(), sp.end(), [](const Splat& a, const Splat& b) { return a.z < b.z; });
  return sp;
}

// The blend steps of one pixel, front to back; returns the final transmittance.
double pixel_steps(const std::vector<Splat>& sp, double px, double py, std::vector<Step>& steps, long& median) {
  steps.clear();
  median = -1;
  double T = 1;
  for (std::size_t j = 0; j < sp.size(); ++j) {
    const Splat& s = sp[j];
    double dx = px - s.mx, dy = py - s.my;
    double power = 0.5 * (s.A * dx * dx + s.C * dy * dy) + s.B * dx * dy;
    if (power > s.cut) continue;
    double G = std::exp(-power);
    double a = s.opac * G;
    bool clamped = a > 0.99;
    if (clamped) a = 0.99;
    if (a < 1.0 / 255.0) continue;
    double Tn = T * (1 - a);
    if (Tn < 1e-4) break;
    if (T >= 0.5 && Tn < 0.5) median = long(steps.size());
    steps.push_back({j, a, G, T, clamped});
    T = Tn;
  }
  return T;
}

// The depth distortion by its definition: every ordered pair of blended steps.
double distortion(const std::vector<Splat>& sp, const std::vector<Step>& steps) {
  double L = 0;
  for (const Step& a : steps)
    for (const Step& b : steps) L += a.alpha * a.T * b.alpha * b.T * std::fabs(sp[a.s].z - sp[b.s].z);
  return L;
}

}  // namespace

Images render(const ModelD& m, const Camera& cam, const RenderSettings& s) {
  const int W = cam.width, H = cam.height;
  Images img;
  img.width = W;
  img.height = H;
  std::size_t P = std::size_t(W) * H;
  img.rgb.assign(3 * P, 0);
  img.alpha.assign(P, 0);
  img.depth.assign(P, 0);
  img.median.assign(P, 0);
  img.normal.assign(3 * P, 0);
  img.count.assign(P, 0);
  img.distortion.assign(P, 0);
  auto sp = project_all(m, cam, s);
  std::vector<Step> steps;
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      std::size_t p = std::size_t(y) * W + x;
      long med;
      double T = pixel_steps(sp, x + 0.5, y + 0.5, steps, med);
      double C[3] = {0, 0, 0}, N[3] = {0, 0, 0}, S = 0;
      for (auto& st : steps) {
        double w = st.alpha * st.T;
        for (int c = 0; c < 3; ++c) {
          C[c] += w * sp[st.s].col[c];
          N[c] += w * sp[st.s].n[c];
        }
        S += w * sp[st.s].z;
      }
      for (int c = 0; c < 3; ++c) {
        img.rgb[3 * p + c] = C[c] + T * s.background[c];
        img.normal[3 * p + c] = N[c];
      }
      double A = 1 - T;
      img.alpha[p] = A;
      img.depth[p] = A > 0 ? S / A : 0;
      img.median[p] = med >= 0 ? sp[steps[std::size_t(med)].s].z : 0;
      img.count[p] = double(steps.size());
      if (s.want_distortion) img.distortion[p] = distortion(sp, steps);  // O(steps^2): only when asked
    }
  return img;
}

static double at(const std::vector<double>& v, std::size_t i) { return v.empty() ? 0.0 : v[i]; }

double linear_loss(const Images& img, const GradInD& g) {
  double L = 0;
  for (std::size_t i = 0; i < g.d_rgb.size(); ++i) L += g.d_rgb[i] * img.rgb[i];
  for (std::size_t i = 0; i < g.d_alpha.size(); ++i) L += g.d_alpha[i] * img.alpha[i];
  for (std::size_t i = 0; i < g.d_depth.size(); ++i) L += g.d_depth[i] * img.depth[i];
  for (std::size_t i = 0; i < g.d_median.size(); ++i) L += g.d_median[i] * img.median[i];
  for (std::size_t i = 0; i < g.d_normal.size(); ++i) L += g.d_normal[i] * img.normal[i];
  for (std::size_t i = 0; i < g.d_distortion.size(); ++i) L += g.d_distortion[i] * img.distortion[i];
  return L;
}

GradD backward(const ModelD& m, const Camera& cam, const RenderSettings& s, const GradInD& g) {
  const int W = cam.width, H = cam.height;
  const std::size_t n = m.size();
  auto sp = project_all(m, cam, s);
  // per projected splat: mean2d(2), conic(3), opacity, colour(3), z, normal(3), abs(2)
  std::vector<std::array<double, 15>> acc(sp.size());
  for (auto& a : acc) a.fill(0);
  std::vector<Step> steps;
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      const std::size_t p = std::size_t(y) * W + x;
      long med;
      const double px = x + 0.5, py = y + 0.5;
      const double Tf = pixel_steps(sp, px, py, steps, med);
      double gc[3], gn[3];
      for (int c = 0; c < 3; ++c) {
        gc[c] = at(g.d_rgb, 3 * p + c);
        gn[c] = at(g.d_normal, 3 * p + c);
      }
      double S = 0;
      for (auto& st : steps) S += st.alpha * st.T * sp[st.s].z;
      const double A = 1 - Tf;
      double gA = at(g.d_alpha, p) - (gc[0] * s.background[0] + gc[1] * s.background[1] + gc[2] * s.background[2]);
      double gS = 0;
      if (A > 0) {
        gS = at(g.d_depth, p) / A;
        gA -= at(g.d_depth, p) * (S / A) / A;
      }
      const double gM = at(g.d_median, p);
      // distortion, pair by pair: dL/dw_i = 2 sum_j w_j |z_i - z_j|,
      // dL/dz_i = 2 w_i sum_j w_j sign(z_i - z_j)
      const double gL = at(g.d_distortion, p);
      std::vector<double> dLdw(steps.size(), 0.0), dLdz(steps.size(), 0.0);
      for (std::size_t i = 0; gL != 0 && i < steps.size(); ++i)
        for (std::size_t j = 0; j < steps.size(); ++j) {
          const double wj = steps[j].alpha * steps[j].T, dz = sp[steps[i].s].z - sp[steps[j].s].z;
          dLdw[i] += 2 * wj * std::fabs(dz);
          dLdz[i] += 2 * steps[i].alpha * steps[i].T * wj * (dz > 0 ? 1.0 : dz < 0 ? -1.0 : 0.0);
        }
      // back to front: `after` = what later steps added to each channel
      double afterC[3] = {0, 0, 0}, afterN[3] = {0, 0, 0}, afterS = 0, afterL = 0;
      for (long k = long(steps.size()) - 1; k >= 0; --k) {
        const Step& st = steps[std::size_t(k)];
        const Splat& sj = sp[st.s];
        auto& r = acc[st.s];
        const double a = st.alpha, T = st.T, w = a * T, inv = 1 / (1 - a);
        double dA = gA * Tf * inv + gS * (sj.z * T - afterS * inv) + gL * (dLdw[std::size_t(k)] * T - afterL * inv);
        afterL += w * dLdw[std::size_t(k)];
        for (int c = 0; c < 3; ++c)
          dA += gc[c] * (sj.col[c] * T - afterC[c] * inv) + gn[c] * (sj.n[c] * T - afterN[c] * inv);
        for (int c = 0; c < 3; ++c) {
          afterC[c] += w * sj.col[c];
          afterN[c] += w * sj.n[c];
          r[6 + c] += gc[c] * w;
          r[10 + c] += gn[c] * w;
        }
        afterS += w * sj.z;
        r[9] += gS * w + (k == med ? gM : 0.0) + gL * dLdz[std::size_t(k)];
        if (st.clamped) dA = 0;
        const double dx = px - sj.mx, dy = py - sj.my;
        r[5] += st.G * dA;
        const double dpow = -sj.opac * st.G * dA;
        const double dmx = -dpow * (sj.A * dx + sj.B * dy), dmy = -dpow * (sj.B * dx + sj.C * dy);
        r[0] += dmx;
        r[1] += dmy;
        r[2] += 0.5 * dpow * dx * dx;
        r[3] += dpow * dx * dy;
        r[4] += 0.5 * dpow * dy * dy;
        r[13] += std::fabs(dmx);
        r[14] += std::fabs(dmy);
      }
    }
  GradD out;
  out.means.assign(3 * n, 0);
  out.log_scales.assign(3 * n, 0);
  out.quats.assign(4 * n, 0);
  out.opacity_logits.assign(n, 0);
  out.sh_dc.assign(3 * n, 0);
  out.sh_rest.assign(45 * n, 0);
  out.mean2d.assign(2 * n, 0);
  out.mean2d_abs.assign(n, 0);
  const auto view = render::make_view<double>(cam, double(s.near_plane));
  const int deg = active_degree(m, s);
  for (std::size_t j = 0; j < sp.size(); ++j) {
    const std::size_t i = sp[j].id;
    const auto& r = acc[j];
    render::ProjectedGrad<double> pg{{r[0], r[1]}, {r[2], r[3], r[4]}, r[5], r[9], {r[10], r[11], r[12]}};
    render::SplatGeomGrad<double> sg;
    Vec3d mean = load3(m.means.data(), long(i)), ls = load3(m.log_scales.data(), long(i));
    Quatd q = load_quat(m.quats.data(), long(i));
    render::project_splat_vjp(view, mean, ls, q, m.opacity_logits[i], s.antialiased, pg, sg);
    render::sh_color_vjp(deg, mean, view.campos, &m.sh_dc[3 * i], &m.sh_rest[45 * i], Vec3d{r[6], r[7], r[8]},
                         &out.sh_dc[3 * i], &out.sh_rest[45 * i], sg.mean);
    store3(out.means.data(), long(i), sg.mean);
    store3(out.log_scales.data(), long(i), sg.log_scale);
    store_quat(out.quats.data(), long(i), sg.quat);
    out.opacity_logits[i] = sg.opacity_logit;
    out.mean2d[2 * i] = r[0];
    out.mean2d[2 * i + 1] = r[1];
    out.mean2d_abs[i] = std::hypot(r[13], r[14]);
  }
  return out;
}

}  // namespace glint::ref

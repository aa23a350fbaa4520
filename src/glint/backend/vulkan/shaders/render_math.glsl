// The per-element math of src/glint/render/ (view.h, project.h, sh.h, tile.h, blend.h) for
// T = float, as GLSL, which cannot include the C++ headers. render/ is the definition: every
// function here is that function's operations in that order, and tests/vulkan_math_test.cpp
// runs each one (math_check.comp) against render/ on randomized inputs, so a drift fails a
// test. The blend step's functions mark their results `precise` (SPIR-V NoContraction): the
// backward re-evaluates a step's alpha and must make the forward's decisions, whatever
// multiply-adds the driver's compiler would otherwise fuse.
#ifndef GLINT_RENDER_MATH_GLSL
#define GLINT_RENDER_MATH_GLSL

const int kTileSize = 16;
const float kDilation = 0.3;
const float kMinAlpha = 0.00392156862745098;  // 1/255
const float kMaxAlpha = 0.99;
const float kTransmittanceStop = 1e-4;
const float kMaxSigmaCutSq = 9.0;
const float kCutSlackRel = 1e-3;
const float kCutSlackAbs = 1e-3;

struct Quat {
  float w;
  float x;
  float y;
  float z;
};

bool finite_val(float x) { return !(isnan(x) || isinf(x)); }
float clampv(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }
float sigmoid(float x) { return 1.0 / (1.0 + exp(-x)); }
float dot3(vec3 a, vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

// ---- view.h
vec3 view_rotate(ViewParams v, vec3 p) {
  return vec3(v.R[0] * p.x + v.R[1] * p.y + v.R[2] * p.z, v.R[3] * p.x + v.R[4] * p.y + v.R[5] * p.z,
              v.R[6] * p.x + v.R[7] * p.y + v.R[8] * p.z);
}
vec3 view_rotate_t(ViewParams v, vec3 p) {
  return vec3(v.R[0] * p.x + v.R[3] * p.y + v.R[6] * p.z, v.R[1] * p.x + v.R[4] * p.y + v.R[7] * p.z,
              v.R[2] * p.x + v.R[5] * p.y + v.R[8] * p.z);
}
vec3 world_to_view(ViewParams v, vec3 p) {
  vec3 r = view_rotate(v, p);
  return vec3(r.x + v.t[0], r.y + v.t[1], r.z + v.t[2]);
}

// ---- core/math.h
void quat_to_rotmat(Quat q, out float M[9]) {
  float n2 = q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z;
  bool ok = n2 > 0.0;
  float s = 1.0 / sqrt(ok ? n2 : 1.0);
  float w = ok ? q.w * s : 1.0, x = ok ? q.x * s : 0.0, y = ok ? q.y * s : 0.0, z = ok ? q.z * s : 0.0;
  M[0] = 1.0 - 2.0 * (y * y + z * z);
  M[1] = 2.0 * (x * y - w * z);
  M[2] = 2.0 * (x * z + w * y);
  M[3] = 2.0 * (x * y + w * z);
  M[4] = 1.0 - 2.0 * (x * x + z * z);
  M[5] = 2.0 * (y * z - w * x);
  M[6] = 2.0 * (x * z - w * y);
  M[7] = 2.0 * (y * z + w * x);
  M[8] = 1.0 - 2.0 * (x * x + y * y);
}

// ---- project.h
struct Projected {
  float mx;
  float my;
  float conic[3];
  float cov[3];
  float depth;
  float opacity;
  float power_cut;
  float ext_x;
  float ext_y;
};

void covariance3d(vec3 log_scale, Quat q, out float cov6[6], out float R[9], out float s[3]) {
  quat_to_rotmat(q, R);
  s[0] = exp(log_scale.x);
  s[1] = exp(log_scale.y);
  s[2] = exp(log_scale.z);
  float M[9];
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) M[r * 3 + c] = R[r * 3 + c] * s[c];
  int k = 0;
  for (int r = 0; r < 3; ++r)
    for (int c = r; c < 3; ++c) {
      cov6[k] = M[r * 3] * M[c * 3] + M[r * 3 + 1] * M[c * 3 + 1] + M[r * 3 + 2] * M[c * 3 + 2];
      k++;
    }
}

void projection_jacobian(ViewParams v, vec3 pc, out float Tm[6]) {
  float z = pc.z;
  float tx = z * clampv(pc.x / z, -v.lim_x_neg, v.lim_x_pos);
  float ty = z * clampv(pc.y / z, -v.lim_y_neg, v.lim_y_pos);
  float J00 = v.fx / z, J02 = -v.fx * tx / (z * z), J11 = v.fy / z, J12 = -v.fy * ty / (z * z);
  for (int c = 0; c < 3; ++c) {
    Tm[c] = J00 * v.R[c] + J02 * v.R[6 + c];
    Tm[3 + c] = J11 * v.R[3 + c] + J12 * v.R[6 + c];
  }
}

void project_covariance(float Tm[6], float S[9], out float TS[6], out float a, out float b, out float c) {
  for (int r = 0; r < 2; ++r)
    for (int k = 0; k < 3; ++k) TS[r * 3 + k] = Tm[r * 3] * S[k] + Tm[r * 3 + 1] * S[3 + k] + Tm[r * 3 + 2] * S[6 + k];
  a = TS[0] * Tm[0] + TS[1] * Tm[1] + TS[2] * Tm[2];
  b = TS[0] * Tm[3] + TS[1] * Tm[4] + TS[2] * Tm[5];
  c = TS[3] * Tm[3] + TS[4] * Tm[4] + TS[5] * Tm[5];
}

bool project_splat(ViewParams v, vec3 mean, vec3 log_scale, Quat q, float opacity_logit, bool antialiased,
                   out Projected o) {
  vec3 pc = world_to_view(v, mean);
  bool keep = pc.z >= v.near_plane;
  float cov3[6], scale[3], R[9];
  covariance3d(log_scale, q, cov3, R, scale);
  float Tm[6];
  projection_jacobian(v, pc, Tm);
  float S[9] = float[9](cov3[0], cov3[1], cov3[2], cov3[1], cov3[3], cov3[4], cov3[2], cov3[4], cov3[5]);
  float TS[6], a, b, c;
  project_covariance(Tm, S, TS, a, b, c);
  float ad = a + kDilation, cd = c + kDilation;
  float det = ad * cd - b * b;
  keep = keep && (det > 0.0) && finite_val(det);
  float op = sigmoid(opacity_logit);
  if (antialiased) {
    float det0 = a * c - b * b;
    float r = det0 / det;
    op *= r > 0.0 ? sqrt(r > 0.0 ? r : 1.0) : 0.0;
  }
  keep = keep && (op >= kMinAlpha);
  float inv = 1.0 / det;
  o.conic[0] = cd * inv;
  o.conic[1] = -b * inv;
  o.conic[2] = ad * inv;
  o.cov[0] = ad;
  o.cov[1] = b;
  o.cov[2] = cd;
  o.depth = pc.z;
  o.opacity = op;
  float ksq = 2.0 * log(255.0 * op);
  ksq = ksq > kMaxSigmaCutSq ? kMaxSigmaCutSq : ksq;
  ksq = ksq < 0.0 ? 0.0 : ksq;
  o.power_cut = 0.5 * ksq;
  o.ext_x = sqrt(ksq * ad);
  o.ext_y = sqrt(ksq * cd);
  o.mx = v.fx * pc.x / pc.z + v.cx;
  o.my = v.fy * pc.y / pc.z + v.cy;
  keep = keep && finite_val(o.mx) && finite_val(o.my) && finite_val(o.ext_x) && finite_val(o.ext_y);
  float gx = o.ext_x * 1.001 + 0.01, gy = o.ext_y * 1.001 + 0.01;
  keep = keep && !(o.mx + gx < 0.5) && !(o.mx - gx > float(v.width) - 0.5);
  keep = keep && !(o.my + gy < 0.5) && !(o.my - gy > float(v.height) - 0.5);
  return keep;
}

int shortest_axis(vec3 ls) {
  int k = 0;
  if (ls.y < ls.x) k = 1;
  if (ls.z < (k == 0 ? ls.x : ls.y)) k = 2;
  return k;
}

vec3 splat_normal(ViewParams v, vec3 mean, vec3 log_scale, Quat q) {
  float R[9];
  quat_to_rotmat(q, R);
  int k = shortest_axis(log_scale);
  vec3 n = vec3(R[k], R[3 + k], R[6 + k]);
  float toward = n.x * (mean.x - v.campos[0]) + n.y * (mean.y - v.campos[1]) + n.z * (mean.z - v.campos[2]);
  float s = toward > 0.0 ? -1.0 : 1.0;
  return vec3(s * n.x, s * n.y, s * n.z);
}

Quat quat_to_rotmat_vjp(Quat q, float G[9]) {
  float n2 = q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z;
  bool ok = n2 > 0.0;
  float inv = 1.0 / sqrt(ok ? n2 : 1.0);
  float w = q.w * inv, x = q.x * inv, y = q.y * inv, z = q.z * inv;
  float gw = 2.0 * (-z * G[1] + y * G[2] + z * G[3] - x * G[5] - y * G[6] + x * G[7]);
  float gx = 2.0 * (y * G[1] + z * G[2] + y * G[3] - 2.0 * x * G[4] - w * G[5] + z * G[6] + w * G[7] -
                    2.0 * x * G[8]);
  float gy = 2.0 * (-2.0 * y * G[0] + x * G[1] + w * G[2] + x * G[3] + z * G[5] - w * G[6] + z * G[7] -
                    2.0 * y * G[8]);
  float gz = 2.0 * (-2.0 * z * G[0] - w * G[1] + x * G[2] + w * G[3] - 2.0 * z * G[4] + y * G[5] +
                    x * G[6] + y * G[7]);
  float d = w * gw + x * gx + y * gy + z * gz;
  return Quat(ok ? (gw - w * d) * inv : 0.0, ok ? (gx - x * d) * inv : 0.0, ok ? (gy - y * d) * inv : 0.0,
              ok ? (gz - z * d) * inv : 0.0);
}

struct ProjectedGrad {
  float mean2d[2];
  float conic[3];
  float opacity;
  float depth;
  float normal[3];
};

struct SplatGeomGrad {
  vec3 mean;
  vec3 log_scale;
  Quat quat;
  float opacity_logit;
};

SplatGeomGrad project_splat_vjp(ViewParams v, vec3 mean, vec3 log_scale, Quat q, float opacity_logit,
                                bool antialiased, ProjectedGrad g) {
  SplatGeomGrad o;
  vec3 pc = world_to_view(v, mean);
  float z = pc.z;
  float cov3[6], s[3], R[9];
  covariance3d(log_scale, q, cov3, R, s);
  float S[9] = float[9](cov3[0], cov3[1], cov3[2], cov3[1], cov3[3], cov3[4], cov3[2], cov3[4], cov3[5]);
  float ux = pc.x / z, uy = pc.y / z;
  bool clx = (ux < -v.lim_x_neg) || (ux > v.lim_x_pos);
  bool cly = (uy < -v.lim_y_neg) || (uy > v.lim_y_pos);
  float cux = clampv(ux, -v.lim_x_neg, v.lim_x_pos), cuy = clampv(uy, -v.lim_y_neg, v.lim_y_pos);
  float tx = z * cux, ty = z * cuy;
  float Tm[6];
  projection_jacobian(v, pc, Tm);
  float TS[6], a, b, c;
  project_covariance(Tm, S, TS, a, b, c);
  float ad = a + kDilation, cd = c + kDilation;
  float det = ad * cd - b * b;
  float inv = 1.0 / det;
  float sig = sigmoid(opacity_logit);
  float comp = 1.0;
  float ratio = 0.0;
  if (antialiased) {
    ratio = (a * c - b * b) * inv;
    comp = ratio > 0.0 ? sqrt(ratio > 0.0 ? ratio : 1.0) : 0.0;
  }
  o.opacity_logit = g.opacity * comp * sig * (1.0 - sig);
  float M00 = cd * inv, M01 = -b * inv, M11 = ad * inv;
  float G00 = g.conic[0], G01 = 0.5 * g.conic[1], G11 = g.conic[2];
  float P00 = M00 * G00 + M01 * G01, P01 = M00 * G01 + M01 * G11;
  float P10 = M01 * G00 + M11 * G01, P11 = M01 * G01 + M11 * G11;
  float ga = -(P00 * M00 + P01 * M01);
  float gb = -2.0 * (P00 * M01 + P01 * M11);
  float gc = -(P10 * M01 + P11 * M11);
  if (antialiased) {
    bool pos = ratio > 0.0;
    float dr = g.opacity * sig * 0.5 / (pos ? comp : 1.0);
    ga += pos ? dr * (c - ratio * cd) * inv : 0.0;
    gc += pos ? dr * (a - ratio * ad) * inv : 0.0;
    gb += pos ? dr * (-2.0 * b + ratio * 2.0 * b) * inv : 0.0;
  }
  float G2[4] = float[4](ga, 0.5 * gb, 0.5 * gb, gc);
  float GT[6];
  for (int r = 0; r < 2; ++r)
    for (int k = 0; k < 3; ++k) GT[r * 3 + k] = G2[r * 2] * Tm[k] + G2[r * 2 + 1] * Tm[3 + k];
  float dS[9];
  for (int r = 0; r < 3; ++r)
    for (int k = 0; k < 3; ++k) dS[r * 3 + k] = Tm[r] * GT[k] + Tm[3 + r] * GT[3 + k];
  float dTm[6];
  for (int r = 0; r < 2; ++r)
    for (int k = 0; k < 3; ++k)
      dTm[r * 3 + k] = 2.0 * (GT[r * 3] * S[k] + GT[r * 3 + 1] * S[3 + k] + GT[r * 3 + 2] * S[6 + k]);
  float dJ00 = dTm[0] * v.R[0] + dTm[1] * v.R[1] + dTm[2] * v.R[2];
  float dJ02 = dTm[0] * v.R[6] + dTm[1] * v.R[7] + dTm[2] * v.R[8];
  float dJ11 = dTm[3] * v.R[3] + dTm[4] * v.R[4] + dTm[5] * v.R[5];
  float dJ12 = dTm[3] * v.R[6] + dTm[4] * v.R[7] + dTm[5] * v.R[8];
  float z2 = z * z, z3 = z2 * z;
  vec3 dpc = vec3(0.0);
  dpc.z += -dJ00 * v.fx / z2 + dJ02 * 2.0 * v.fx * tx / z3 - dJ11 * v.fy / z2 + dJ12 * 2.0 * v.fy * ty / z3;
  float dtx = -dJ02 * v.fx / z2, dty = -dJ12 * v.fy / z2;
  dpc.z += clx ? dtx * cux : 0.0;
  dpc.x += clx ? 0.0 : dtx;
  dpc.z += cly ? dty * cuy : 0.0;
  dpc.y += cly ? 0.0 : dty;
  dpc.x += g.mean2d[0] * v.fx / z;
  dpc.y += g.mean2d[1] * v.fy / z;
  dpc.z += -g.mean2d[0] * v.fx * pc.x / z2 - g.mean2d[1] * v.fy * pc.y / z2 + g.depth;
  o.mean = view_rotate_t(v, dpc);
  float Mm[9];
  for (int r = 0; r < 3; ++r)
    for (int k = 0; k < 3; ++k) Mm[r * 3 + k] = R[r * 3 + k] * s[k];
  float dR[9];
  float ds[3] = float[3](0.0, 0.0, 0.0);
  for (int r = 0; r < 3; ++r)
    for (int k = 0; k < 3; ++k) {
      float dM = 2.0 * (dS[r * 3] * Mm[k] + dS[r * 3 + 1] * Mm[3 + k] + dS[r * 3 + 2] * Mm[6 + k]);
      dR[r * 3 + k] = dM * s[k];
      ds[k] += dM * R[r * 3 + k];
    }
  o.log_scale = vec3(ds[0] * s[0], ds[1] * s[1], ds[2] * s[2]);
  bool k1 = log_scale.y < log_scale.x;
  bool k2 = log_scale.z < (k1 ? log_scale.y : log_scale.x);
  bool is0 = !k1 && !k2, is1 = k1 && !k2;
  vec3 n;
  n.x = k2 ? R[2] : (k1 ? R[1] : R[0]);
  n.y = k2 ? R[5] : (k1 ? R[4] : R[3]);
  n.z = k2 ? R[8] : (k1 ? R[7] : R[6]);
  float toward = n.x * (mean.x - v.campos[0]) + n.y * (mean.y - v.campos[1]) + n.z * (mean.z - v.campos[2]);
  float sg = toward > 0.0 ? -1.0 : 1.0;
  for (int r = 0; r < 3; ++r) {
    float gn = sg * g.normal[r];
    dR[r * 3] += is0 ? gn : 0.0;
    dR[r * 3 + 1] += is1 ? gn : 0.0;
    dR[r * 3 + 2] += k2 ? gn : 0.0;
  }
  o.quat = quat_to_rotmat_vjp(q, dR);
  return o;
}

// ---- sh.h
const float kShC0 = 0.28209479177387814, kShC1 = 0.4886025119029199;
const float kShC2_0 = 1.0925484305920792, kShC2_1 = -1.0925484305920792, kShC2_2 = 0.31539156525252005,
            kShC2_3 = -1.0925484305920792, kShC2_4 = 0.5462742152960396;
const float kShC3_0 = -0.5900435899266435, kShC3_1 = 2.890611442640554, kShC3_2 = -0.4570457994644658,
            kShC3_3 = 0.3731763325901154, kShC3_4 = -0.4570457994644658, kShC3_5 = 1.445305721320277,
            kShC3_6 = -0.5900435899266435;

int sh_coeff_count(int degree) { return (degree + 1) * (degree + 1); }

void sh_basis(int deg, vec3 d, out float b[16]) {
  for (int k = 0; k < 16; ++k) b[k] = 0.0;
  b[0] = kShC0;
  if (deg < 1) return;
  float x = d.x, y = d.y, z = d.z;
  b[1] = -kShC1 * y;
  b[2] = kShC1 * z;
  b[3] = -kShC1 * x;
  if (deg < 2) return;
  float xx = x * x, yy = y * y, zz = z * z;
  b[4] = kShC2_0 * x * y;
  b[5] = kShC2_1 * y * z;
  b[6] = kShC2_2 * (2.0 * zz - xx - yy);
  b[7] = kShC2_3 * x * z;
  b[8] = kShC2_4 * (xx - yy);
  if (deg < 3) return;
  b[9] = kShC3_0 * y * (3.0 * xx - yy);
  b[10] = kShC3_1 * x * y * z;
  b[11] = kShC3_2 * y * (4.0 * zz - xx - yy);
  b[12] = kShC3_3 * z * (2.0 * zz - 3.0 * xx - 3.0 * yy);
  b[13] = kShC3_4 * x * (4.0 * zz - xx - yy);
  b[14] = kShC3_5 * z * (xx - yy);
  b[15] = kShC3_6 * x * (xx - 3.0 * yy);
}

void sh_basis_grad(int deg, vec3 d, out vec3 g[16]) {
  for (int k = 0; k < 16; ++k) g[k] = vec3(0.0);
  if (deg < 1) return;
  float x = d.x, y = d.y, z = d.z;
  g[1] = vec3(0.0, -kShC1, 0.0);
  g[2] = vec3(0.0, 0.0, kShC1);
  g[3] = vec3(-kShC1, 0.0, 0.0);
  if (deg < 2) return;
  float xx = x * x, yy = y * y, zz = z * z;
  float a0 = kShC2_0, a1 = kShC2_1, a2 = kShC2_2, a3 = kShC2_3, a4 = kShC2_4;
  g[4] = vec3(a0 * y, a0 * x, 0.0);
  g[5] = vec3(0.0, a1 * z, a1 * y);
  g[6] = vec3(-2.0 * a2 * x, -2.0 * a2 * y, 4.0 * a2 * z);
  g[7] = vec3(a3 * z, 0.0, a3 * x);
  g[8] = vec3(2.0 * a4 * x, -2.0 * a4 * y, 0.0);
  if (deg < 3) return;
  float c0 = kShC3_0, c1 = kShC3_1, c2 = kShC3_2, c3 = kShC3_3, c4 = kShC3_4, c5 = kShC3_5, c6 = kShC3_6;
  g[9] = vec3(6.0 * c0 * x * y, c0 * (3.0 * xx - 3.0 * yy), 0.0);
  g[10] = vec3(c1 * y * z, c1 * x * z, c1 * x * y);
  g[11] = vec3(-2.0 * c2 * x * y, c2 * (4.0 * zz - xx - 3.0 * yy), 8.0 * c2 * y * z);
  g[12] = vec3(-6.0 * c3 * x * z, -6.0 * c3 * y * z, c3 * (6.0 * zz - 3.0 * xx - 3.0 * yy));
  g[13] = vec3(c4 * (4.0 * zz - 3.0 * xx - yy), -2.0 * c4 * x * y, 8.0 * c4 * x * z);
  g[14] = vec3(2.0 * c5 * x * z, -2.0 * c5 * y * z, c5 * (xx - yy));
  g[15] = vec3(c6 * (3.0 * xx - 3.0 * yy), -6.0 * c6 * x * y, 0.0);
}

// A splat's coefficients: dc[3] (k = 0) and rest[45] laid out (k - 1) * 3 + channel.
float sh_coeff(float dc[3], float rest[45], int k, int c) { return k == 0 ? dc[c] : rest[(k - 1) * 3 + c]; }

vec3 normalize3(vec3 a) {
  float n = sqrt(dot3(a, a));
  return n > 0.0 ? vec3((1.0 / n) * a.x, (1.0 / n) * a.y, (1.0 / n) * a.z) : vec3(0.0, 0.0, 1.0);
}

vec3 view_dir(vec3 mean, float campos[3]) {
  return normalize3(vec3(mean.x - campos[0], mean.y - campos[1], mean.z - campos[2]));
}

vec3 sh_color(int deg, vec3 d, float dc[3], float rest[45], out uint clamped) {
  float b[16];
  sh_basis(deg, d, b);
  float r[3];
  uint bits = 0u;
  for (int c = 0; c < 3; ++c) {
    float s = 0.0;
    for (int k = 0; k < sh_coeff_count(deg); ++k) s += b[k] * sh_coeff(dc, rest, k, c);
    s += 0.5;
    bool keep = s > 0.0;
    bits |= uint(!keep) << uint(c);
    r[c] = keep ? s : 0.0;
  }
  clamped = bits;
  return vec3(r[0], r[1], r[2]);
}

void sh_linear_vjp(int deg, vec3 mean, float campos[3], float rest[45], vec3 d_color, out float d_dc[3],
                   out float d_rest[45], inout vec3 d_mean) {
  vec3 v = vec3(mean.x - campos[0], mean.y - campos[1], mean.z - campos[2]);
  float len = sqrt(dot3(v, v));
  bool pos = len > 0.0;
  float inv_len = 1.0 / (pos ? len : 1.0);
  vec3 d = vec3(pos ? inv_len * v.x : 0.0, pos ? inv_len * v.y : 0.0, pos ? inv_len * v.z : 1.0);
  float b[16];
  sh_basis(deg, d, b);
  int nk = sh_coeff_count(deg);
  float g[3] = float[3](d_color.x, d_color.y, d_color.z);
  for (int c = 0; c < 3; ++c) d_dc[c] = b[0] * g[c];
  for (int k = 1; k < 16; ++k)
    for (int c = 0; c < 3; ++c) d_rest[(k - 1) * 3 + c] = k < nk ? b[k] * g[c] : 0.0;
  if (deg < 1) return;
  vec3 gb[16];
  sh_basis_grad(deg, d, gb);
  vec3 dd = vec3(0.0);
  for (int k = 1; k < nk; ++k) {
    float w = g[0] * rest[(k - 1) * 3] + g[1] * rest[(k - 1) * 3 + 1] + g[2] * rest[(k - 1) * 3 + 2];
    dd = vec3(dd.x + w * gb[k].x, dd.y + w * gb[k].y, dd.z + w * gb[k].z);
  }
  float dp = dot3(d, dd);
  vec3 dv = vec3(inv_len * (dd.x - dp * d.x), inv_len * (dd.y - dp * d.y), inv_len * (dd.z - dp * d.z));
  d_mean = vec3(d_mean.x + (pos ? dv.x : 0.0), d_mean.y + (pos ? dv.y : 0.0), d_mean.z + (pos ? dv.z : 0.0));
}

void sh_color_vjp(int deg, vec3 mean, float campos[3], float dc[3], float rest[45], vec3 d_color,
                  out float d_dc[3], out float d_rest[45], inout vec3 d_mean) {
  uint clamped;
  sh_color(deg, view_dir(mean, campos), dc, rest, clamped);
  vec3 g = vec3((clamped & 1u) != 0u ? 0.0 : d_color.x, (clamped & 2u) != 0u ? 0.0 : d_color.y,
                (clamped & 4u) != 0u ? 0.0 : d_color.z);
  sh_linear_vjp(deg, mean, campos, rest, g, d_dc, d_rest, d_mean);
}

// ---- blend.h
const float kExp2C0 = 1.000000075e+00, kExp2C1 = 6.931471880e-01, kExp2C2 = 2.402210749e-01,
            kExp2C3 = 5.550357114e-02, kExp2C4 = 9.676031918e-03, kExp2C5 = 1.339086336e-03;

float fast_exp(float xin) {
  precise float x = xin < -87.0 ? -87.0 : (xin > 88.0 ? 88.0 : xin);
  const float kMagic = 12582912.0;
  precise float t = x * 1.44269504088896341;
  precise float n = (t + kMagic) - kMagic;
  precise float f = t - n;
  precise float y = ((((kExp2C5 * f + kExp2C4) * f + kExp2C3) * f + kExp2C2) * f + kExp2C1) * f + kExp2C0;
  int e = int(n);
  int e1 = e >> 1, e2 = e - e1;
  precise float r = y * intBitsToFloat((e1 + 127) << 23) * intBitsToFloat((e2 + 127) << 23);
  return r;
}

float splat_power(float A, float B, float C, float dx, float dy) {
  precise float p = 0.5 * (A * dx * dx + C * dy * dy) + B * dx * dy;
  return p;
}

float blend_alpha(float opacity, float power, float power_cut, out float G, out bool clamped) {
  G = fast_exp(-power);
  precise float a = opacity * G;
  clamped = a > kMaxAlpha;
  a = clamped ? kMaxAlpha : a;
  bool ok = (power <= power_cut) && (a >= kMinAlpha);
  return ok ? a : 0.0;
}

float blend_dalpha_channel(float c, float t, float after, float inv_one_minus_a) {
  precise float r = c * t - after * inv_one_minus_a;
  return r;
}

struct AlphaMoments {
  float p;
  float px;
  float py;
  float pxx;
  float pxy;
  float pyy;
};

void blend_alpha_moments_add(float g, float G, float dx, float dy, inout AlphaMoments m) {
  precise float p = g * G;
  precise float px = p * dx, py = p * dy;
  precise float mp = m.p + p, mpx = m.px + px, mpy = m.py + py;
  precise float mxx = px * dx + m.pxx, mxy = px * dy + m.pxy, myy = py * dy + m.pyy;
  m.p = mp;
  m.px = mpx;
  m.py = mpy;
  m.pxx = mxx;
  m.pxy = mxy;
  m.pyy = myy;
}

void blend_alpha_moments_grad(AlphaMoments m, float opacity, float A, float B, float C, out float d_opacity,
                              out float d_mx, out float d_my, out float d_A, out float d_B, out float d_C) {
  d_opacity = m.p;
  d_mx = opacity * (A * m.px + B * m.py);
  d_my = opacity * (B * m.px + C * m.py);
  d_A = -0.5 * opacity * m.pxx;
  d_B = -opacity * m.pxy;
  d_C = -0.5 * opacity * m.pyy;
}

float distortion_half_step(float w, float z, float a_before, float b_before) {
  precise float r = w * (z * a_before - b_before);
  return r;
}
float distortion_dw(float z, float a_before, float b_before, float w_after, float b_after) {
  precise float h = (z * a_before - b_before) + (b_after - z * w_after);
  return h + h;
}
float distortion_dz(float w, float a_before, float w_after) {
  precise float r = (w + w) * (a_before - w_after);
  return r;
}

// ---- tile.h
bool pixel_span(float m, float ext, int origin, int n, out int i0, out int i1) {
  float g = ext * 1.001 + 0.01;
  float f0 = m - g - 0.5 - float(origin), f1 = m + g - 0.5 - float(origin);
  float N = float(n);
  f0 = f0 < -1.0 ? -1.0 : (f0 > N ? N : f0);
  f1 = f1 < -1.0 ? -1.0 : (f1 > N ? N : f1);
  i0 = int(ceil(f0));
  i1 = int(floor(f1));
  if (i0 < 0) i0 = 0;
  if (i1 > n - 1) i1 = n - 1;
  return i0 <= i1;
}

// (x0, y0, x1, y1), inclusive; empty when x0 > x1 or y0 > y1
ivec4 splat_pixel_rect(float mx, float my, float ext_x, float ext_y, int width, int height) {
  ivec4 r;
  pixel_span(mx, ext_x, 0, width, r.x, r.z);
  pixel_span(my, ext_y, 0, height, r.y, r.w);
  return r;
}

void tile_centre_span(int t, int p0, int p1, out float c0, out float c1) {
  int a = t * kTileSize, b = a + kTileSize - 1;
  c0 = float(a > p0 ? a : p0) + 0.5;
  c1 = float(b < p1 ? b : p1) + 0.5;
}

float quad_min_on_vertical(float A, float B, float C, float nb_over_c, float X, float y0, float y1) {
  float y = nb_over_c * X;
  y = y < y0 ? y0 : (y > y1 ? y1 : y);
  float t0 = A * X * X, t1 = 2.0 * B * X * y, t2 = C * y * y;
  float mag = t0 + (t1 < 0.0 ? -t1 : t1) + t2;
  return t0 + t1 + t2 - 1e-5 * mag;
}

struct RectTestPrep {
  float A;
  float B;
  float C;
  float lim;
  float nb_over_c;
  float nb_over_a;
};

RectTestPrep rect_test_prep(float A, float B, float C, float power_cut) {
  RectTestPrep p;
  p.A = A;
  p.B = B;
  p.C = C;
  p.lim = 2.0 * power_cut * (1.0 + kCutSlackRel) + kCutSlackAbs;
  p.nb_over_c = C > 0.0 ? -B / C : 0.0;
  p.nb_over_a = A > 0.0 ? -B / A : 0.0;
  return p;
}

bool ellipse_hits_rect(RectTestPrep p, float mx, float my, float px0, float px1, float py0, float py1) {
  float x0 = px0 - mx, x1 = px1 - mx, y0 = py0 - my, y1 = py1 - my;
  bool inside = (x0 <= 0.0) && (x1 >= 0.0) && (y0 <= 0.0) && (y1 >= 0.0);
  float m = quad_min_on_vertical(p.A, p.B, p.C, p.nb_over_c, x0, y0, y1);
  float t = quad_min_on_vertical(p.A, p.B, p.C, p.nb_over_c, x1, y0, y1);
  m = t < m ? t : m;
  t = quad_min_on_vertical(p.C, p.B, p.A, p.nb_over_a, y0, x0, x1);
  m = t < m ? t : m;
  t = quad_min_on_vertical(p.C, p.B, p.A, p.nb_over_a, y1, x0, x1);
  m = t < m ? t : m;
  return inside || (m <= p.lim);
}

#endif

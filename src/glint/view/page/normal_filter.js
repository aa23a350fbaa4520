// The lit view's shading normals from its G-buffer, as glint relight makes them:
//  * 'fit' (its default, light/normal_plane_fit.cpp): the normal of the weighted
//    least-squares plane through the window's surface positions (sigma 4 px, half size 8,
//    every second pixel of every second row), samples weighted by pixel distance, by their
//    distance from the pixel's tangent plane over its depth (sigma 0.6%) and by the angle
//    between the splat normals (sigma 10 degrees); oriented like the splat normals; where
//    the window holds a crease (variance across the plane over the mean variance along it,
//    q) the fit gives way to the smoothed splat normals: its share is exp(-q / 0.1);
//  * 'smooth' (--normals splats, light/normal_filter.cpp): the normalised sum of the
//    window's splat normals weighted by pixel distance (sigma 2 px, half size 4), relative
//    depth difference (sigma 1%) and angle (sigma 20 degrees).
import { link } from './splat_renderer.js';
import { fullscreenVertexShader } from './lighting_shaders.js';
import { cameraCenter } from './camera.js';

export const kNormalFilter = { sigmaPx: 2, radius: 4, sigmaDepthRel: 0.01, sigmaAngleDeg: 20 };
export const kPlaneFit = { sigmaPx: 4, radius: 8, stride: 2, sigmaPlaneRel: 0.006, sigmaAngleDeg: 10, planarity: 0.1 };
export const NORMAL_MODES = ['fit', 'smooth', 'raw'];

// First pass: each pixel's facing unit normal and depth (zero without a surface), so that
// the filter's taps read one texel each instead of rebuilding a neighbour's normal per tap.
// With u_planar (the fit, as glint relight's --fit-depth planar) the depth is the planar
// depth (light/plane_depth.h): the blended plane distances (the depth target's blue) over
// the blended normals' component against the pixel's ray, the expected depth where no
// plane faces the ray.
const surfaceShader = `#version 300 es
precision highp float;
precision highp int;
uniform sampler2D u_depth, u_normal;
uniform vec3 u_R0, u_R1, u_R2, u_t;
uniform vec4 u_intr;
uniform vec2 u_size;
uniform vec3 u_eye;
uniform int u_planar;
out vec4 o_surface;

// The relighter's normal of pixel p (GL rows): zero without a surface (coverage < 0.5).
void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  vec4 d = texelFetch(u_depth, p, 0);
  float z = d.a >= 0.5 ? d.r / d.a : 0.0;
  vec3 s = texelFetch(u_normal, p, 0).rgb;
  float len = length(s);
  if (!(z > 0.0) || len < 1e-8) { o_surface = vec4(0.0); return; }
  vec2 uv = vec2(float(p.x) + 0.5, u_size.y - float(p.y) - 0.5);
  vec3 xc = z * vec3((uv.x - u_intr.z) / u_intr.x, (uv.y - u_intr.w) / u_intr.y, 1.0) - u_t;
  vec3 x = xc.x * u_R0 + xc.y * u_R1 + xc.z * u_R2;
  vec3 n = s / len;
  if (u_planar == 1) {
    vec3 rc = vec3((uv.x - u_intr.z) / u_intr.x, (uv.y - u_intr.w) / u_intr.y, 1.0);
    vec3 r = rc.x * u_R0 + rc.y * u_R1 + rc.z * u_R2;
    float facing = -dot(s, r);
    if (facing > 1e-3 * len * length(r)) z = d.b / facing;
  }
  o_surface = vec4(dot(n, u_eye - x) < 0.0 ? -n : n, z);
}
`;

const fragmentShader = `#version 300 es
precision highp float;
precision highp int;
uniform sampler2D u_surface;  // (facing unit normal, depth), zero without a surface
uniform vec2 u_size;
uniform int u_radius;
uniform float u_invSpatial, u_invDepth, u_invAngle;
out vec4 o_normal;

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  vec4 si = texelFetch(u_surface, p, 0);
  float zi = si.w;
  if (!(zi > 0.0)) { o_normal = vec4(0.0); return; }
  vec3 ni = si.xyz;
  ivec2 size = ivec2(u_size);
  vec3 s = vec3(0.0);
  for (int dy = -u_radius; dy <= u_radius; ++dy)
    for (int dx = -u_radius; dx <= u_radius; ++dx) {
      ivec2 q = p + ivec2(dx, dy);
      if (q.x < 0 || q.y < 0 || q.x >= size.x || q.y >= size.y) continue;
      vec4 sj = texelFetch(u_surface, q, 0);
      float zj = sj.w;
      if (!(zj > 0.0)) continue;
      vec3 nj = sj.xyz;
      float c = dot(ni, nj);
      if (c <= 0.0) continue;
      float dz = (zj - zi) / zi;
      s += exp(-float(dx * dx + dy * dy) * u_invSpatial - dz * dz * u_invDepth - (1.0 - c) * u_invAngle) * nj;
    }
  float len = length(s);
  o_normal = len > 0.0 ? vec4(s / len, 1.0) : vec4(0.0);
}
`;

// The plane fit. World offsets of the samples over the pixel's depth; the smallest
// eigenvector of their weighted covariance by inverse iteration through the adjugate (no
// division, so a singular covariance still gives the normal nearest the guide).
const fitFragmentShader = `#version 300 es
precision highp float;
precision highp int;
uniform sampler2D u_surface;  // (facing unit normal, depth), zero without a surface
uniform vec2 u_size;
uniform int u_radius, u_stride;
uniform float u_invSpatial, u_invPlane, u_invAngle, u_planarity;
uniform vec3 u_R0, u_R1, u_R2;  // world -> camera rows
uniform vec4 u_intr;
out vec4 o_normal;

vec3 cameraRay(ivec2 q) {
  vec2 uv = vec2(float(q.x) + 0.5, u_size.y - float(q.y) - 0.5);
  return vec3((uv.x - u_intr.z) / u_intr.x, (uv.y - u_intr.w) / u_intr.y, 1.0);
}

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  vec4 si = texelFetch(u_surface, p, 0);
  float zi = si.w;
  if (!(zi > 0.0)) { o_normal = vec4(0.0); return; }
  vec3 ni = si.xyz;
  vec3 ci = zi * cameraRay(p);
  ivec2 size = ivec2(u_size);
  float sw = 0.0;
  vec3 m = vec3(0.0), sn = vec3(0.0);
  mat3 c = mat3(0.0);
  for (int dy = -u_radius; dy <= u_radius; dy += u_stride)
    for (int dx = -u_radius; dx <= u_radius; dx += u_stride) {
      ivec2 q = p + ivec2(dx, dy);
      if (q.x < 0 || q.y < 0 || q.x >= size.x || q.y >= size.y) continue;
      vec4 sj = texelFetch(u_surface, q, 0);
      if (!(sj.w > 0.0)) continue;
      float cosine = dot(ni, sj.xyz);
      if (cosine <= 0.0) continue;
      vec3 dc = (sj.w * cameraRay(q) - ci) / zi;
      vec3 d = dc.x * u_R0 + dc.y * u_R1 + dc.z * u_R2;
      float off = dot(ni, d);
      float power = off * off * u_invPlane + (1.0 - cosine) * u_invAngle;
      if (power > 20.0) continue;  // as light/normal_plane_fit.cpp: no weight, and no 0 * inf
      float w = exp(-float(dx * dx + dy * dy) * u_invSpatial - power);
      sw += w;
      m += w * d;
      sn += w * sj.xyz;
      c += w * outerProduct(d, d);
    }
  float ln = length(sn);
  if (!(sw > 0.0) || !(ln > 0.0)) { o_normal = vec4(0.0); return; }
  vec3 guide = sn / ln;
  m /= sw;
  mat3 cov = c / sw - outerProduct(m, m);
  float e = 1e-6 * (cov[0][0] + cov[1][1] + cov[2][2]);
  vec3 a = cov[0] + vec3(e, 0.0, 0.0), b = cov[1] + vec3(0.0, e, 0.0), k = cov[2] + vec3(0.0, 0.0, e);
  vec3 bc = cross(b, k), ca = cross(k, a), ab = cross(a, b);
  vec3 v = guide;
  for (int it = 0; it < 4; ++it) {
    vec3 u = bc * v.x + ca * v.y + ab * v.z;
    float l = length(u);
    if (!(l > 0.0) || isinf(l)) { v = guide; break; }
    v = u / l;
  }
  if (dot(v, guide) < 0.0) v = -v;
  float across = max(dot(v, cov * v), 0.0);  // rounding can leave it just below 0
  float along = 0.5 * (cov[0][0] + cov[1][1] + cov[2][2] - across);
  float agree = dot(v, guide);
  float share = along > 0.0 ? exp(-across / (along * u_planarity)) * agree * agree : 0.0;
  o_normal = vec4(normalize(share * v + (1.0 - share) * guide), 1.0);
}
`;

export class NormalFilter {
  constructor(gl) {
    this.gl = gl;
    this.surfaceProg = link(gl, fullscreenVertexShader, surfaceShader);
    this.prog = link(gl, fullscreenVertexShader, fragmentShader);
    this.fitProg = link(gl, fullscreenVertexShader, fitFragmentShader);
    this.size = [0, 0];
  }

  ensureSurface(w, h) {
    const gl = this.gl;
    if (this.surface && this.size[0] === w && this.size[1] === h) return;
    if (this.surface) {
      gl.deleteTexture(this.surface);
      gl.deleteFramebuffer(this.surfaceFbo);
    }
    this.surface = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, this.surface);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
    gl.texStorage2D(gl.TEXTURE_2D, 1, gl.RGBA32F, w, h);
    this.surfaceFbo = gl.createFramebuffer();
    gl.bindFramebuffer(gl.FRAMEBUFFER, this.surfaceFbo);
    gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, this.surface, 0);
    this.size = [w, h];
  }

  // Writes the fitted ('fit') or smoothed ('smooth') normals of the G-buffer (depth, normal
  // textures) for `cam` into `fbo`.
  run(cam, depthTex, normalTex, fbo, vao, mode = 'fit') {
    const gl = this.gl;
    this.ensureSurface(cam.width, cam.height);
    gl.disable(gl.BLEND);
    gl.bindVertexArray(vao);
    let { program, u } = this.surfaceProg;
    gl.bindFramebuffer(gl.FRAMEBUFFER, this.surfaceFbo);
    gl.viewport(0, 0, cam.width, cam.height);
    gl.useProgram(program);
    gl.activeTexture(gl.TEXTURE0);
    gl.bindTexture(gl.TEXTURE_2D, depthTex);
    gl.uniform1i(u.u_depth, 0);
    gl.activeTexture(gl.TEXTURE1);
    gl.bindTexture(gl.TEXTURE_2D, normalTex);
    gl.uniform1i(u.u_normal, 1);
    const R = cam.R;
    gl.uniform3f(u.u_R0, R[0], R[1], R[2]);
    gl.uniform3f(u.u_R1, R[3], R[4], R[5]);
    gl.uniform3f(u.u_R2, R[6], R[7], R[8]);
    gl.uniform3f(u.u_t, cam.t[0], cam.t[1], cam.t[2]);
    gl.uniform4f(u.u_intr, cam.fx, cam.fy, cam.cx, cam.cy);
    gl.uniform2f(u.u_size, cam.width, cam.height);
    gl.uniform3fv(u.u_eye, cameraCenter(cam));
    const fit = mode === 'fit';
    gl.uniform1i(u.u_planar, fit ? 1 : 0);
    gl.drawArrays(gl.TRIANGLES, 0, 3);

    const p = fit ? kPlaneFit : kNormalFilter;
    ({ program, u } = fit ? this.fitProg : this.prog);
    gl.bindFramebuffer(gl.FRAMEBUFFER, fbo);
    gl.useProgram(program);
    gl.activeTexture(gl.TEXTURE0);
    gl.bindTexture(gl.TEXTURE_2D, this.surface);
    gl.uniform1i(u.u_surface, 0);
    gl.uniform2f(u.u_size, cam.width, cam.height);
    gl.uniform1i(u.u_radius, p.radius);
    gl.uniform1f(u.u_invSpatial, 1 / (2 * p.sigmaPx * p.sigmaPx));
    const sa = p.sigmaAngleDeg * Math.PI / 180;
    gl.uniform1f(u.u_invAngle, 1 / (sa * sa));
    if (fit) {
      gl.uniform1i(u.u_stride, p.stride);
      gl.uniform1f(u.u_invPlane, 1 / (2 * p.sigmaPlaneRel * p.sigmaPlaneRel));
      gl.uniform1f(u.u_planarity, p.planarity);
      gl.uniform3f(u.u_R0, R[0], R[1], R[2]);
      gl.uniform3f(u.u_R1, R[3], R[4], R[5]);
      gl.uniform3f(u.u_R2, R[6], R[7], R[8]);
      gl.uniform4f(u.u_intr, cam.fx, cam.fy, cam.cx, cam.cy);
    } else {
      gl.uniform1f(u.u_invDepth, 1 / (2 * p.sigmaDepthRel * p.sigmaDepthRel));
    }
    gl.drawArrays(gl.TRIANGLES, 0, 3);
    gl.bindVertexArray(null);
  }
}

// Edge-aware smoothing of the lit view's shading normals, light/normal_filter.cpp on the
// G-buffer: each surface pixel's unit normal (blended splat normals, turned to the camera)
// becomes the normalised sum of its window's normals weighted by pixel distance (sigma
// 2 px, half size 4), relative depth difference (sigma 1%) and angle (sigma 20 degrees),
// as glint relight does by default (--normal-smooth 2).
import { link } from './splat_renderer.js';
import { fullscreenVertexShader } from './lighting_shaders.js';
import { cameraCenter } from './camera.js';

export const kNormalFilter = { sigmaPx: 2, radius: 4, sigmaDepthRel: 0.01, sigmaAngleDeg: 20 };

const fragmentShader = `#version 300 es
precision highp float;
precision highp int;
uniform sampler2D u_depth, u_normal;
uniform vec3 u_R0, u_R1, u_R2, u_t;
uniform vec4 u_intr;
uniform vec2 u_size;
uniform vec3 u_eye;
uniform int u_radius;
uniform float u_invSpatial, u_invDepth, u_invAngle;
out vec4 o_normal;

// The relighter's normal of pixel p (GL rows): zero without a surface (coverage < 0.5).
vec3 surfaceNormal(ivec2 p, out float z) {
  vec4 d = texelFetch(u_depth, p, 0);
  z = d.a >= 0.5 ? d.r / d.a : 0.0;
  vec3 s = texelFetch(u_normal, p, 0).rgb;
  float len = length(s);
  if (!(z > 0.0) || len < 1e-8) { z = 0.0; return vec3(0.0); }
  vec2 uv = vec2(float(p.x) + 0.5, u_size.y - float(p.y) - 0.5);
  vec3 xc = z * vec3((uv.x - u_intr.z) / u_intr.x, (uv.y - u_intr.w) / u_intr.y, 1.0) - u_t;
  vec3 x = xc.x * u_R0 + xc.y * u_R1 + xc.z * u_R2;
  vec3 n = s / len;
  return dot(n, u_eye - x) < 0.0 ? -n : n;
}

void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  float zi;
  vec3 ni = surfaceNormal(p, zi);
  if (!(zi > 0.0)) { o_normal = vec4(0.0); return; }
  ivec2 size = ivec2(u_size);
  vec3 s = vec3(0.0);
  for (int dy = -u_radius; dy <= u_radius; ++dy)
    for (int dx = -u_radius; dx <= u_radius; ++dx) {
      ivec2 q = p + ivec2(dx, dy);
      if (q.x < 0 || q.y < 0 || q.x >= size.x || q.y >= size.y) continue;
      float zj;
      vec3 nj = surfaceNormal(q, zj);
      if (!(zj > 0.0)) continue;
      float c = dot(ni, nj);
      if (c <= 0.0) continue;
      float dz = (zj - zi) / zi;
      s += exp(-float(dx * dx + dy * dy) * u_invSpatial - dz * dz * u_invDepth - (1.0 - c) * u_invAngle) * nj;
    }
  float len = length(s);
  o_normal = len > 0.0 ? vec4(s / len, 1.0) : vec4(0.0);
}
`;

export class NormalFilter {
  constructor(gl) {
    this.gl = gl;
    this.prog = link(gl, fullscreenVertexShader, fragmentShader);
  }

  // Writes the smoothed normals of the G-buffer (depth, normal textures) for `cam` into `fbo`.
  run(cam, depthTex, normalTex, fbo, vao) {
    const gl = this.gl;
    const { program, u } = this.prog;
    const p = kNormalFilter;
    gl.bindFramebuffer(gl.FRAMEBUFFER, fbo);
    gl.viewport(0, 0, cam.width, cam.height);
    gl.disable(gl.BLEND);
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
    gl.uniform1i(u.u_radius, p.radius);
    gl.uniform1f(u.u_invSpatial, 1 / (2 * p.sigmaPx * p.sigmaPx));
    gl.uniform1f(u.u_invDepth, 1 / (2 * p.sigmaDepthRel * p.sigmaDepthRel));
    const sa = p.sigmaAngleDeg * Math.PI / 180;
    gl.uniform1f(u.u_invAngle, 1 / (sa * sa));
    gl.bindVertexArray(vao);
    gl.drawArrays(gl.TRIANGLES, 0, 3);
    gl.bindVertexArray(null);
  }
}

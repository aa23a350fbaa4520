// GLSL of the splat passes.
// 1. projectVertexShader, once per splat per camera (transform feedback, nothing drawn):
//    src/glint/render/project.h and sh.h line for line where it matters for parity with
//    `glint render`: the same EWA covariance, Jacobian clamp to 1.3x the field of view,
//    0.3 px dilation, culling, opacity-aware cut and SH colour.
// 2. quadVertexShader + splatFragmentShader, per splat in back-to-front order: the cut
//    ellipse's quad, and one blend step of render/blend.h written premultiplied, so that
//    back-to-front "over" blending equals the renderer's front-to-back compositing.
//
// Modes share the geometry and differ only in the value a splat blends (chosen at the end
// of projectVertexShader), so that a lit mode adds a value there (albedo times light, from
// a per-splat normal) without touching the projection or the blend.

export const MODE_COLOR = 0;
export const MODE_DEPTH = 1;
export const MODE_ALPHA = 2;
export const MODE_NORMAL = 3;
// The lit view's environment pass: the residual's visibility factor (r, g, b) of the splat's
// camera-facing side, baked per splat by glint view (view/page_environment.h).
export const MODE_ENV_VIS = 7;

export const projectVertexShader = `#version 300 es
precision highp float;
precision highp int;
precision highp sampler2D;

uniform sampler2D u_splats;  // RGBA32F; splat i owns texels [i*u_stride, (i+1)*u_stride)
uniform int u_stride;
uniform int u_texWidth;
uniform int u_shDegree;
uniform int u_mode;
uniform vec3 u_R0, u_R1, u_R2;  // rows of the world-to-camera rotation
uniform vec3 u_t;
uniform vec3 u_campos;
uniform int u_antialiased;  // the Mip-Splatting 2D filter's opacity compensation (render/project.h)
uniform vec4 u_intr;  // fx fy cx cy (pixels, centres at +0.5)
uniform vec4 u_lim;   // Jacobian clamp of x/z and y/z: -neg_x, pos_x, -neg_y, pos_y
uniform vec2 u_size;  // width, height in pixels
uniform float u_near;
uniform sampler2D u_ao;  // RG32F, one texel a splat (AO along +axis, -axis), 4096 a row
uniform sampler2D u_envVis;  // RGBA32F, two texels a splat (+axis, -axis), 4096 a row

// One vertex per splat (gl_VertexID = splat index), captured by transform feedback:
out vec4 p_mean_ext;   // 2D mean in pixels (y down), half extents of the quad; z < 0: culled
out vec4 p_conic_op;   // A, B, C (power = A dx^2/2 + B dx dy + C dy^2/2), opacity
out vec4 p_value_cut;  // what the splat blends (colour, depth or 1), power_cut
// Captured only by the lit view's G-buffer program (one pass, three targets):
out vec4 p_gbuf0;      // camera-facing normal, z
out vec4 p_gbuf1;      // AO of the facing side (baked per splat by glint view: view/splat_ao_blob.h; 1 without),
                       // |n . (mean - eye)|, the distance of the splat's plane from the eye (light/plane_depth.h)

const float kDilation = 0.3;
const float kMinAlpha = 1.0 / 255.0;
const float kMaxSigmaCutSq = 9.0;

vec4 fetch(int k) {
  int i = gl_VertexID * u_stride + k;
  return texelFetch(u_splats, ivec2(i % u_texWidth, i / u_texWidth), 0);
}

mat3 quatToRotmat(vec4 q) {  // q = (w, x, y, z); rows as in core/math.h
  float n2 = dot(q, q);
  bool ok = n2 > 0.0;
  float s = 1.0 / sqrt(ok ? n2 : 1.0);
  float w = ok ? q.x * s : 1.0, x = ok ? q.y * s : 0.0, y = ok ? q.z * s : 0.0, z = ok ? q.w * s : 0.0;
  // GLSL matrices are column-major: m[c][r]
  return mat3(1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + w * z), 2.0 * (x * z - w * y),
              2.0 * (x * y - w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z + w * x),
              2.0 * (x * z + w * y), 2.0 * (y * z - w * x), 1.0 - 2.0 * (x * x + y * y));
}

float shCoeff(int j) {  // j-th float of dc[3] followed by rest[R*3]
  vec4 t = fetch(3 + j / 4);
  int c = j % 4;
  return c == 0 ? t.x : (c == 1 ? t.y : (c == 2 ? t.z : t.w));
}

vec3 shColor(vec3 d) {
  float b[16];
  b[0] = 0.28209479177387814;
  int nk = (u_shDegree + 1) * (u_shDegree + 1);
  if (u_shDegree >= 1) {
    const float C1 = 0.4886025119029199;
    b[1] = -C1 * d.y;
    b[2] = C1 * d.z;
    b[3] = -C1 * d.x;
  }
  if (u_shDegree >= 2) {
    float xx = d.x * d.x, yy = d.y * d.y, zz = d.z * d.z;
    b[4] = 1.0925484305920792 * d.x * d.y;
    b[5] = -1.0925484305920792 * d.y * d.z;
    b[6] = 0.31539156525252005 * (2.0 * zz - xx - yy);
    b[7] = -1.0925484305920792 * d.x * d.z;
    b[8] = 0.5462742152960396 * (xx - yy);
    if (u_shDegree >= 3) {
      b[9] = -0.5900435899266435 * d.y * (3.0 * xx - yy);
      b[10] = 2.890611442640554 * d.x * d.y * d.z;
      b[11] = -0.4570457994644658 * d.y * (4.0 * zz - xx - yy);
      b[12] = 0.3731763325901154 * d.z * (2.0 * zz - 3.0 * xx - 3.0 * yy);
      b[13] = -0.4570457994644658 * d.x * (4.0 * zz - xx - yy);
      b[14] = 1.445305721320277 * d.z * (xx - yy);
      b[15] = -0.5900435899266435 * d.x * (xx - 3.0 * yy);
    }
  }
  vec3 s = vec3(0.0);
  for (int k = 0; k < 16; ++k) {
    if (k >= nk) break;
    s += b[k] * vec3(shCoeff(3 * k), shCoeff(3 * k + 1), shCoeff(3 * k + 2));
  }
  return max(s + 0.5, vec3(0.0));
}

// splat_normal of render/project.h: the axis of the smallest scale (first on ties), turned
// to face the camera.
vec3 splatAxis(mat3 R, vec3 ls) {
  int k = 0;
  if (ls.y < ls.x) k = 1;
  if (ls.z < (k == 0 ? ls.x : ls.y)) k = 2;
  return R[k];  // column k
}
vec3 splatNormal(mat3 R, vec3 ls, vec3 mean) {
  vec3 n = splatAxis(R, ls);
  return dot(n, mean - u_campos) > 0.0 ? -n : n;
}
vec3 facingEnvVis(mat3 R, vec3 ls, vec3 mean) {
  int i = 2 * gl_VertexID + (dot(splatAxis(R, ls), mean - u_campos) > 0.0 ? 1 : 0);
  return texelFetch(u_envVis, ivec2(i % 4096, i / 4096), 0).rgb;
}
float facingAo(mat3 R, vec3 ls, vec3 mean) {
  vec2 ao = texelFetch(u_ao, ivec2(gl_VertexID % 4096, gl_VertexID / 4096), 0).rg;
  return dot(splatAxis(R, ls), mean - u_campos) > 0.0 ? ao.y : ao.x;
}

void cull() {
  p_mean_ext = vec4(0.0, 0.0, -1.0, -1.0);
  p_conic_op = vec4(0.0);
  p_value_cut = vec4(0.0);
  p_gbuf0 = vec4(0.0);
  p_gbuf1 = vec4(0.0);
}

void main() {
  gl_Position = vec4(0.0, 0.0, 0.0, 1.0);  // nothing is rasterized (RASTERIZER_DISCARD)
  gl_PointSize = 1.0;
  vec4 t0 = fetch(0), t1 = fetch(1), t2 = fetch(2);
  vec3 mean = t0.xyz;
  float opacityLogit = t0.w;
  vec3 pc = vec3(dot(u_R0, mean), dot(u_R1, mean), dot(u_R2, mean)) + u_t;
  if (!(pc.z >= u_near)) { cull(); return; }

  mat3 R = quatToRotmat(t2);
  vec3 s = exp(t1.xyz);
  mat3 M = R * mat3(s.x, 0.0, 0.0, 0.0, s.y, 0.0, 0.0, 0.0, s.z);
  mat3 Sigma = M * transpose(M);

  float z = pc.z;
  float tx = z * clamp(pc.x / z, -u_lim.x, u_lim.y);
  float ty = z * clamp(pc.y / z, -u_lim.z, u_lim.w);
  float fx = u_intr.x, fy = u_intr.y;
  float J00 = fx / z, J02 = -fx * tx / (z * z), J11 = fy / z, J12 = -fy * ty / (z * z);
  vec3 T0 = J00 * u_R0 + J02 * u_R2;  // rows of J W
  vec3 T1 = J11 * u_R1 + J12 * u_R2;
  vec3 ST0 = Sigma * T0, ST1 = Sigma * T1;
  float a = dot(T0, ST0), b = dot(T0, ST1), c = dot(T1, ST1);
  float ad = a + kDilation, cd = c + kDilation;
  float det = ad * cd - b * b;
  if (!(det > 0.0) || isinf(det) || isnan(det)) { cull(); return; }
  float op = 1.0 / (1.0 + exp(-opacityLogit));
  if (u_antialiased == 1) {
    float r = (a * c - b * b) / det;
    op *= r > 0.0 ? sqrt(r) : 0.0;
  }
  if (!(op >= kMinAlpha)) { cull(); return; }
  float inv = 1.0 / det;
  p_conic_op = vec4(cd * inv, -b * inv, ad * inv, op);
  float ksq = clamp(2.0 * log(255.0 * op), 0.0, kMaxSigmaCutSq);
  float extX = sqrt(ksq * ad), extY = sqrt(ksq * cd);
  vec2 m2 = vec2(fx * pc.x / pc.z + u_intr.z, fy * pc.y / pc.z + u_intr.w);
  if (isinf(m2.x) || isnan(m2.x) || isinf(m2.y) || isnan(m2.y) || isinf(extX) || isinf(extY)) { cull(); return; }
  float gx = extX * 1.001 + 0.01, gy = extY * 1.001 + 0.01;
  if (m2.x + gx < 0.5 || m2.x - gx > u_size.x - 0.5 || m2.y + gy < 0.5 || m2.y - gy > u_size.y - 0.5) { cull(); return; }
  vec3 value;
  if (u_mode == 1) value = vec3(z);
  else if (u_mode == 2) value = vec3(1.0);
  else if (u_mode == 3) value = splatNormal(R, t1.xyz, mean);
  else if (u_mode == 7) value = facingEnvVis(R, t1.xyz, mean);
  else value = shColor(normalize(mean - u_campos));
  p_mean_ext = vec4(m2, gx, gy);
  p_value_cut = vec4(value, 0.5 * ksq);
  vec3 facing = splatNormal(R, t1.xyz, mean);
  p_gbuf0 = vec4(facing, z);
  p_gbuf1 = vec4(facingAo(R, t1.xyz, mean), abs(dot(facing, mean - u_campos)), 0.0, 0.0);
}
`;

// A dummy fragment stage for the projection program (its vertices are never rasterized).
export const projectFragmentShader = `#version 300 es
precision highp float;
out vec4 o_color;
void main() { o_color = vec4(0.0); }
`;

// No instancing and no vertex attributes: vertex 4*slot + corner of an indexed draw is a
// corner of the quad of the slot-th splat in back-to-front order, read from u_order.
// (SwiftShader pays a fixed cost for every instance of an instanced draw, several times
// what this form costs a splat; docs/BENCHMARKS.md has the figures.)
export const quadVertexShader = `#version 300 es
precision highp float;
precision highp int;
precision highp sampler2D;

uniform sampler2D u_projected;     // RGBA32F, three texels a splat (projectVertexShader's outputs)
uniform highp usampler2D u_order;  // R32UI, kOrderWidth texels a row
uniform int u_projWidth;
uniform int u_projStride;  // texels a splat: 3, or 5 with the G-buffer's normal, z and AO
uniform vec2 u_size;
uniform float u_subpixel;  // 2^SUBPIXEL_BITS
const int kOrderWidth = 4096;

flat out vec4 v_gbuf0;
flat out float v_plane;
flat out float v_ao;
out vec2 v_w;
flat out float v_opacity;
flat out float v_cut;
flat out vec3 v_value;

vec4 fetch(int index, int k) {
  int i = index * u_projStride + k;
  return texelFetch(u_projected, ivec2(i % u_projWidth, i / u_projWidth), 0);
}

void main() {
  int slot = gl_VertexID >> 2;
  int index = int(texelFetch(u_order, ivec2(slot % kOrderWidth, slot / kOrderWidth), 0).r);
  vec4 a = fetch(index, 0);
  if (a.z < 0.0) {  // culled: a degenerate quad outside the clip volume draws nothing
    gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
    return;
  }
  vec4 b = fetch(index, 1), c = fetch(index, 2);
  v_opacity = b.w;
  v_value = c.xyz;
  v_cut = c.w;
  if (u_projStride == 5) {
    v_gbuf0 = fetch(index, 3);
    vec4 g1 = fetch(index, 4);
    v_ao = g1.x;
    v_plane = g1.y;
  } else {
    v_gbuf0 = vec4(0.0);
    v_ao = 0.0;
    v_plane = 0.0;
  }
  // The quad is the cut ellipse's own rectangle (along the eigenvectors of the conic
  // Q = [A B; B C], power = d^T Q d / 2 <= cut), which covers fewer pixels than its bounding
  // box, grown by a quarter pixel plus the most the corners' snapping below can move an
  // edge, so that it holds every pixel centre of the ellipse; the fragment shader decides
  // every pixel with the renderer's own test. v_w is the offset in the ellipse's whitened
  // frame (power = |v_w|^2 / 2), affine in the pixel position, so it is interpolated
  // exactly instead of recomputed per fragment.
  float A = b.x, B = b.y, C = b.z;
  float disc = sqrt(0.25 * (A - C) * (A - C) + B * B);
  float mu1 = 0.5 * (A + C) + disc;
  float mu2 = (A * C - B * B) / mu1;  // the smaller eigenvalue without cancellation
  vec2 e1 = A >= C ? vec2(mu1 - C, B) : vec2(B, mu1 - A);  // the larger of two eigenvector forms
  float len = length(e1);
  e1 = len > 0.0 ? e1 / len : vec2(1.0, 0.0);  // a circle: any axes
  vec2 e2 = vec2(-e1.y, e1.x);
  float r1 = sqrt(2.0 * v_cut / mu1), r2 = sqrt(2.0 * v_cut / mu2);
  vec2 corner = vec2((gl_VertexID & 1) != 0 ? 1.0 : -1.0, (gl_VertexID & 2) != 0 ? 1.0 : -1.0);
  vec2 h = corner * (vec2(r1, r2) + (0.25 + 1.0 / u_subpixel));
  // The rasterizer snaps a vertex to its sub-pixel grid and interpolates from there: a
  // corner on that grid already makes v_w exact at every pixel centre.
  vec2 p = round((a.xy + h.x * e1 + h.y * e2) * u_subpixel) / u_subpixel;
  vec2 d = p - a.xy;
  v_w = vec2(sqrt(mu1) * dot(d, e1), sqrt(mu2) * dot(d, e2));
  gl_Position = vec4(2.0 * p.x / u_size.x - 1.0, 1.0 - 2.0 * p.y / u_size.y, 0.0, 1.0);
}
`;

// The renderer's per-pixel test and alpha of a splat (render/blend.h), shared by the colour
// and the G-buffer fragment shaders: declarations, then the body that defines `alpha` or
// discards the fragment.
const splatAlphaDecls = `
in vec2 v_w;  // the pixel's offset from the mean, whitened by the conic
flat in float v_opacity;
flat in float v_cut;
flat in vec3 v_value;

const float kMinAlpha = 1.0 / 255.0;
const float kMaxAlpha = 0.99;
`;
const splatAlphaBody = `
  float power = 0.5 * dot(v_w, v_w);
  if (power > v_cut) discard;
  float alpha = min(kMaxAlpha, v_opacity * exp(-power));
  if (alpha < kMinAlpha) discard;
`;

export const splatFragmentShader = `#version 300 es
precision highp float;
${splatAlphaDecls}
out vec4 o_color;

void main() {${splatAlphaBody}
  o_color = vec4(v_value * alpha, alpha);
}
`;

// The lit view's G-buffer in one pass (three draw buffers, each blended premultiplied
// "over" with the splat's alpha): colour, (z, AO, plane distance), the facing normal.
export const splatGBufferFragmentShader = `#version 300 es
precision highp float;
${splatAlphaDecls}
flat in vec4 v_gbuf0;
flat in float v_ao;
flat in float v_plane;

layout(location = 0) out vec4 o_color;
layout(location = 1) out vec4 o_depth;
layout(location = 2) out vec4 o_normal;

void main() {${splatAlphaBody}
  o_color = vec4(v_value * alpha, alpha);
  o_depth = vec4(vec3(v_gbuf0.w, v_ao, v_plane) * alpha, alpha);
  o_normal = vec4(v_gbuf0.xyz * alpha, alpha);
}
`;

// Full-screen pass from the float target to the canvas: colour as is, depth divided by
// alpha and mapped to grey between the near and far depths seen, alpha as grey, normals
// normalised and mapped from [-1, 1] to [0, 1].
export const displayVertexShader = `#version 300 es
const vec2 kPos[3] = vec2[3](vec2(-1.0, -1.0), vec2(3.0, -1.0), vec2(-1.0, 3.0));
void main() { gl_Position = vec4(kPos[gl_VertexID], 0.0, 1.0); }
`;

export const displayFragmentShader = `#version 300 es
precision highp float;
uniform sampler2D u_image;
uniform int u_mode;
uniform vec2 u_depthRange;  // near, far for the depth view
out vec4 o_color;
void main() {
  vec4 v = texelFetch(u_image, ivec2(gl_FragCoord.xy), 0);
  vec3 c;
  if (u_mode == 1) {
    float z = v.a > 0.0 ? v.r / v.a : u_depthRange.y;
    c = vec3(1.0 - clamp((z - u_depthRange.x) / max(u_depthRange.y - u_depthRange.x, 1e-6), 0.0, 1.0));
  } else if (u_mode == 2) {
    c = vec3(v.a);
  } else if (u_mode == 3) {
    float n = length(v.rgb);  // world normal, as glint render's normal PNG shows it
    c = n > 0.0 ? 0.5 * v.rgb / n + 0.5 : vec3(0.0);
  } else {
    c = v.rgb;
  }
  o_color = vec4(clamp(c, 0.0, 1.0), 1.0);
}
`;

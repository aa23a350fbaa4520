// GLSL of the lit view: full-screen passes over the G-buffer the splat passes left
// (premultiplied colour on black, sum w z with alpha, sum w n), in linear colour, with the
// relighter's model (light/relighter.cpp prepare() and relight(), light/shade.cpp):
//   L = ambient * capture + sum_l albedo * colour_l * E_l * V_l / pi,  albedo = capture
// (glint relight --no-delight), capture = sRGB-decoded straight colour. Only pixels of
// coverage >= 0.5 carry a surface (relighter's alpha threshold), and silhouette pixels
// take one beside them (kFringeFill); both receive lamp light.

// How far a silhouette pixel looks for its surface (light/fringe_fill.h, glint relight
// --fringe-px), and the least coverage it needs.
export const kFringeFill = { radiusPx: 1, minAlpha: 1 / 255 };

// The G-buffer's surface at pixel p, as the relighter reads a view (coverage >= 0.5, a
// positive depth and a normal): its world position and unit normal, turned to the eye
// unless smoothing turned it already. A pixel covered less (but at least minAlpha) takes
// the surface of the most covered surface pixel within radiusPx (ties: the nearest, then
// the first in image row order), as glint relight fills its silhouette pixels. Needs
// u_depth, u_normal, u_size, u_intr, u_R0..2, u_t, u_eye and u_smoothed declared before it.
const gbufferSurfaceGlsl = `
bool ownSurface(ivec2 p, out vec3 x, out vec3 n) {
  vec4 dz = texelFetch(u_depth, p, 0);
  if (!(dz.a >= 0.5)) return false;
  float z = dz.r / dz.a;
  vec3 ns = texelFetch(u_normal, p, 0).rgb;
  float len = length(ns);
  if (!(z > 0.0) || len < 1e-8) return false;
  vec2 uv = vec2(float(p.x) + 0.5, u_size.y - float(p.y) - 0.5);  // pixel index + 0.5, rows top down
  vec3 xc = z * vec3((uv.x - u_intr.z) / u_intr.x, (uv.y - u_intr.w) / u_intr.y, 1.0) - u_t;
  x = xc.x * u_R0 + xc.y * u_R1 + xc.z * u_R2;
  n = ns / len;
  if (u_smoothed == 0 && dot(n, u_eye - x) < 0.0) n = -n;
  return true;
}
bool gbufferSurface(ivec2 p, out vec3 x, out vec3 n) {
  if (ownSurface(p, x, n)) return true;
  if (!(texelFetch(u_depth, p, 0).a >= ${kFringeFill.minAlpha})) return false;
  const int r = ${kFringeFill.radiusPx};
  ivec2 size = ivec2(u_size);
  bool found = false;
  float bestA = 0.0;
  int bestD = 0;
  for (int j = -r; j <= r; ++j)  // image rows top down are GL rows bottom up
    for (int i = -r; i <= r; ++i) {
      ivec2 q = p + ivec2(i, -j);
      vec3 qx, qn;
      if (q.x < 0 || q.y < 0 || q.x >= size.x || q.y >= size.y || !ownSurface(q, qx, qn)) continue;
      float qa = texelFetch(u_depth, q, 0).a;
      int d = i * i + j * j;
      if (!found || qa > bestA || (qa == bestA && d < bestD)) {
        found = true;
        bestA = qa;
        bestD = d;
        x = qx;
        n = qn;
      }
    }
  return found;
}
`;

export const fullscreenVertexShader = `#version 300 es
const vec2 kPos[3] = vec2[3](vec2(-1.0, -1.0), vec2(3.0, -1.0), vec2(-1.0, 3.0));
void main() { gl_Position = vec4(kPos[gl_VertexID], 0.0, 1.0); }
`;

const srgbGlsl = `
vec3 srgbToLinear(vec3 c) {
  return mix(pow((c + 0.055) / 1.055, vec3(2.4)), c / 12.92, vec3(lessThanEqual(c, vec3(0.04045))));
}
vec3 linearToSrgb(vec3 l) {
  return mix(1.055 * pow(l, vec3(1.0 / 2.4)) - 0.055, l * 12.92, vec3(lessThanEqual(l, vec3(0.0031308))));
}
vec3 capture(vec4 c) {  // straight colour, clamped, linear; 0 where nothing covers
  return c.a > 1e-4 ? srgbToLinear(clamp(c.rgb / c.a, 0.0, 1.0)) : vec3(0.0);
}
`;

// The albedo of a pixel: the capture, de-lit (glint relight's default) by the AO of the
// per-pixel AO target or of the per-splat AO blended into the depth target.
const delightGlsl = `
uniform sampler2D u_color;
uniform int u_delight;   // 0: albedo = capture (--no-delight); else capture / max(AO, u_minAo), clamped, AO from
uniform sampler2D u_ao;  // 1: (sum w V, sum w) over the AO directions; 2: the depth target (z a, AO a, 0, a)
uniform float u_minAo;
vec3 albedoAt(ivec2 p) {
  vec3 albedo = capture(texelFetch(u_color, p, 0));
  if (u_delight == 0) return albedo;
  vec4 t = texelFetch(u_ao, p, 0);
  float ao = u_delight == 1 ? (t.y > 0.0 ? t.x / t.y : 1.0) : (t.a > 0.0 ? t.y / t.a : 1.0);
  return clamp(albedo / max(ao, u_minAo), 0.0, 1.0);
}
`;

// Initialises the lit target: ambient * capture (the capture of a scene under a white world
// is albedo * AO, so this keeps the occlusion it holds), and the coverage.
export const ambientFragmentShader = `#version 300 es
precision highp float;
uniform sampler2D u_color;
uniform vec3 u_ambient;
out vec4 o_color;
${srgbGlsl}
void main() {
  vec4 c = texelFetch(u_color, ivec2(gl_FragCoord.xy), 0);
  o_color = vec4(u_ambient * capture(c), c.a);
}
`;

// One lamp, added to the lit target (blending ONE, ONE on colour; alpha kept).
export const lampFragmentShader = `#version 300 es
precision highp float;
precision highp int;
precision highp sampler2DArray;
${srgbGlsl}
uniform sampler2D u_depth, u_normal;
uniform vec3 u_R0, u_R1, u_R2, u_t;  // the view camera, world to camera
uniform vec4 u_intr;                 // fx fy cx cy
uniform vec2 u_size;
uniform vec3 u_eye;
uniform int u_smoothed;  // 1: u_normal holds normal_filter.js's unit normals (already facing the camera)
uniform int u_aoPass;    // 1: one direction of the ambient occlusion: out (w V, w), w = max(0, n.d)
${delightGlsl}

uniform int u_type;       // 0 point, 1 spot, 2 sun
uniform vec3 u_lightPos;  // point, spot
uniform vec3 u_lightDir;  // sun: towards the light; spot: the way it points
uniform vec3 u_radiance;  // colour * intensity (point, spot) or colour * strength (sun)
uniform float u_cosOuter, u_cosInner;

uniform int u_shadow;     // 0 none, 1 shadow map (PCF), 2 transmittance
uniform int u_cube;       // 1: six faces chosen by the major axis of x - light
uniform vec3 u_fr0[6], u_fr1[6], u_fr2[6], u_ft[6];  // face cameras (rows of R, t)
uniform float u_f, u_c, u_res, u_guard;  // every face: focal, principal point, size, guard band
uniform float u_faceSwitch;  // cube: tan past a face's edge within which faceFacing may switch
uniform float u_constBias, u_slopeBias, u_normalOffset;
uniform int u_pcf;
uniform sampler2DArray u_map;  // shadow map: (sum w z, -, -, alpha) a face; transmittance: alpha a plane in .r
uniform vec4 u_planeZ[64];     // transmittance: plane depths, face after face
uniform int u_planeBase[6], u_planeCount[6];

out vec4 o_color;

float planeZ(int i) { vec4 v = u_planeZ[i / 4]; int k = i % 4; return k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : v.w; }

vec3 toFace(int f, vec3 x) { return vec3(dot(u_fr0[f], x), dot(u_fr1[f], x), dot(u_fr2[f], x)) + u_ft[f]; }

// light_views.cpp face_of: the major axis for a cube; else inside the nominal frustum.
int faceOf(vec3 x) {
  if (u_cube == 1) {
    vec3 w = x - u_lightPos, a = abs(w);
    if (a.x >= a.y && a.x >= a.z) return w.x >= 0.0 ? 0 : 1;
    if (a.y >= a.z) return w.y >= 0.0 ? 2 : 3;
    return w.z >= 0.0 ? 4 : 5;
  }
  vec3 pc = toFace(0, x);
  if (!(pc.z > 0.0)) return -1;
  vec2 uv = u_f * pc.xy / pc.z + u_c;
  if (uv.x < u_guard || uv.y < u_guard || uv.x > u_res - u_guard || uv.y > u_res - u_guard) return -1;
  return 0;
}

// light_views.cpp face_facing: a face whose grown frustum holds x and whose axis is
// closer to n, else \`face\`.
int faceFacing(vec3 x, vec3 n, int face) {
  if (u_cube != 1 || u_faceSwitch <= 0.0 || face < 0) return face;
  vec3 w = x - u_lightPos, a = abs(w), an = abs(n);
  float major = max(a.x, max(a.y, a.z));
  int best = face;
  float align = an[face / 2];
  for (int k = 0; k < 3; ++k) {
    if (k == face / 2 || !(a[k] > 0.0) || major > (1.0 + u_faceSwitch) * a[k]) continue;
    if (an[k] > align + 1e-9) {
      align = an[k];
      best = 2 * k + (w[k] >= 0.0 ? 0 : 1);
    }
  }
  return best;
}

vec3 toLight(vec3 x) { return u_type == 2 ? u_lightDir : normalize(u_lightPos - x); }

// The face's texel (tx, ty) in image rows (top down); the map was drawn with rows bottom up.
vec4 tap(int tx, int ty, int layer) {
  int r = int(u_res);
  return texelFetch(u_map, ivec3(clamp(tx, 0, r - 1), r - 1 - clamp(ty, 0, r - 1), layer), 0);
}

// light_map.cpp shadow_lookup, then shadow_map.cpp / transmittance_shadow.cpp visibility.
float visibility(vec3 x, vec3 n) {
  int face = faceOf(x);
  if (face < 0) return 1.0;
  float z0 = toFace(face, x).z;
  float texel = z0 / u_f;
  float c = clamp(dot(n, toLight(x)), 1e-3, 1.0);
  float tanT = min(10.0, sqrt(1.0 - c * c) / c);
  x += (u_normalOffset * texel) * n;
  int f2 = faceOf(x);
  if (f2 >= 0) face = f2;
  face = faceFacing(x, n, face);
  vec3 pc = toFace(face, x);
  vec2 uv = u_f * pc.xy / pc.z + u_c;
  float z = pc.z - (u_constBias + u_slopeBias * tanT) * texel;
  int r = u_pcf / 2;
  int cx = int(floor(uv.x)), cy = int(floor(uv.y));
  int layer = face;
  if (u_shadow == 2) {
    int k = 0;  // planes in front of the point
    for (int i = 0; i < u_planeCount[face]; ++i) if (planeZ(u_planeBase[face] + i) <= z) k = i + 1;
    if (k == 0) return 1.0;
    layer = u_planeBase[face] + k - 1;
  }
  float sum = 0.0;
  for (int dy = -r; dy <= r; ++dy)
    for (int dx = -r; dx <= r; ++dx) {
      vec4 m = tap(cx + dx, cy + dy, layer);
      if (u_shadow == 2) sum += 1.0 - m.r;
      else {
        float occ = m.a >= 0.5 ? m.r / m.a : 0.0;
        sum += (!(occ > 0.0) || z <= occ) ? 1.0 : 0.0;
      }
    }
  return sum / float((2 * r + 1) * (2 * r + 1));
}

float spotFactor(vec3 x) {
  if (u_type != 1) return 1.0;
  float c = dot(u_lightDir, normalize(x - u_lightPos));
  if (c <= u_cosOuter) return 0.0;
  if (c >= u_cosInner) return c;
  float t = (c - u_cosOuter) / (u_cosInner - u_cosOuter);
  return c * t * t * (3.0 - 2.0 * t);
}

float irradiance(vec3 x, vec3 n) {
  if (u_type == 2) return max(0.0, dot(n, u_lightDir));
  vec3 d = u_lightPos - x;
  float d2 = dot(d, d);
  if (!(d2 > 0.0)) return 0.0;
  float cosT = dot(n, d) / sqrt(d2);
  if (cosT <= 0.0) return 0.0;
  return cosT / d2 * spotFactor(x);
}

${gbufferSurfaceGlsl}
void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  vec3 x, n;
  if (!gbufferSurface(p, x, n)) discard;
  if (u_aoPass == 1) {
    float w = dot(n, u_lightDir);
    if (w <= 0.0) discard;
    o_color = vec4(w * visibility(x, n), w, 0.0, 0.0);
    return;
  }
  float e = irradiance(x, n);
  if (e <= 0.0) discard;
  float v = u_shadow == 0 ? 1.0 : visibility(x, n);
  vec3 albedo = albedoAt(p);
  o_color = vec4(albedo * u_radiance * (e * v / 3.141592653589793), 0.0);
}
`;

// An environment light's residual, added to the lit target (environment_light.h):
//   albedo * E_res(n) * factor / pi,  E_res from the light's table (bilinear, as
// IrradianceTable::lookup), factor the per-splat visibility blended into u_envVis (rgb a,
// a), 1 without shadows.
export const residualFragmentShader = `#version 300 es
precision highp float;
precision highp int;
${srgbGlsl}
${delightGlsl}
uniform sampler2D u_depth, u_normal, u_envVis, u_table;
uniform vec3 u_R0, u_R1, u_R2, u_t;
uniform vec4 u_intr;
uniform vec2 u_size;
uniform vec3 u_eye;
uniform int u_smoothed;
uniform int u_shadowed;
uniform float u_scale;
out vec4 o_color;
const float kPi = 3.141592653589793;
vec3 tableAt(int i, int j) { return texelFetch(u_table, ivec2(i, j), 0).rgb; }
vec3 lookup(vec3 n) {
  ivec2 size = textureSize(u_table, 0);
  int W = size.x, H = size.y;
  float phi = atan(n.y, n.x);
  if (phi < 0.0) phi += 2.0 * kPi;
  float fi = phi / (2.0 * kPi) * float(W);
  float fj = (asin(clamp(n.z / length(n), -1.0, 1.0)) + 0.5 * kPi) / kPi * float(H - 1);
  int i0 = min(int(floor(fi)), W - 1), i1 = (i0 + 1) % W;
  int j0 = clamp(int(floor(fj)), 0, H - 2), j1 = j0 + 1;
  float a = fi - float(i0), b = fj - float(j0);
  return (1.0 - b) * ((1.0 - a) * tableAt(i0, j0) + a * tableAt(i1, j0)) + b * ((1.0 - a) * tableAt(i0, j1) + a * tableAt(i1, j1));
}
${gbufferSurfaceGlsl}
void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  vec3 x, n;
  if (!gbufferSurface(p, x, n)) discard;
  vec3 f = vec3(1.0);
  if (u_shadowed == 1) {
    vec4 v = texelFetch(u_envVis, p, 0);
    f = v.a > 0.0 ? v.rgb / v.a : vec3(1.0);
  }
  o_color = vec4(albedoAt(p) * u_scale * lookup(n) * f / kPi, 0.0);
}
`;

// The view's de-lit albedo and coverage into the lit target (the albedo view).
export const albedoFragmentShader = `#version 300 es
precision highp float;
${srgbGlsl}
${delightGlsl}
uniform sampler2D u_depth;
out vec4 o_color;
// A surface pixel, or a silhouette pixel that takes one (gbufferSurface) and is de-lit
// with it.
bool lit(ivec2 p, float a) {
  if (a >= 0.5) return true;
  if (!(a >= ${kFringeFill.minAlpha})) return false;
  const int r = ${kFringeFill.radiusPx};
  ivec2 size = textureSize(u_depth, 0);
  for (int j = -r; j <= r; ++j)
    for (int i = -r; i <= r; ++i) {
      ivec2 q = p + ivec2(i, j);
      if (q.x < 0 || q.y < 0 || q.x >= size.x || q.y >= size.y) continue;
      vec4 dz = texelFetch(u_depth, q, 0);
      if (dz.a >= 0.5 && dz.r > 0.0) return true;
    }
  return false;
}
void main() {
  ivec2 p = ivec2(gl_FragCoord.xy);
  vec4 c = texelFetch(u_color, p, 0);
  o_color = vec4(lit(p, c.a) ? albedoAt(p) : capture(c), c.a);
}
`;

// The lit target onto the canvas: sRGB-encoded straight colour over the background.
export const litDisplayFragmentShader = `#version 300 es
precision highp float;
uniform sampler2D u_image;
uniform vec3 u_background;
out vec4 o_color;
${srgbGlsl}
void main() {
  vec4 v = texelFetch(u_image, ivec2(gl_FragCoord.xy), 0);
  vec3 c = linearToSrgb(clamp(v.rgb, 0.0, 1.0));
  o_color = vec4(c * v.a + u_background * (1.0 - v.a), 1.0);
}
`;

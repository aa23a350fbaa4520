// The cameras a light sees the scene with, as src/glint/light/light_views.cpp and
// light_map.cpp make them, so that the page's shadow maps have the texels of glint
// relight's: a cube of six 90 degree faces for a point light (and a spot wider than 120
// degrees), one perspective camera around a spot's cone, and for a sun an orthographic view
// emulated by a perspective camera 1000 scene radii away. Every face keeps a guard band of
// pcf/2 + ceil(normal offset) + 2 texels beyond its nominal frustum, a cube's faces
// ceil(faceSwitch * res/2) more: a lookup that far past its face's edge may use the
// neighbouring face when that face's axis is closer to the surface normal (light_map.h).

const sub = (a, b) => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const normalize = (a) => {
  const n = Math.hypot(a[0], a[1], a[2]);
  return [a[0] / n, a[1] / n, a[2] / n];
};

// What glint relight's light maps use by default (light/shadow_map.h, transmittance_shadow.h).
export const kShadowMapParams = { resolution: 384, pcf: 3, constantBias: 1, slopeBias: 2, normalOffset: 0.5,
                                  faceSwitch: 0.1 };
export const kTransmittanceParams = { resolution: 256, pcf: 1, constantBias: 1, slopeBias: 2, normalOffset: 1.5,
                                      faceSwitch: 0, planes: 12 };
// The map side of a sun split from an environment light (EnvLightParams::sun_shadow_resolution).
export const kEnvSunResolution = 256;
const kSunDistanceFactor = 1000;

// light/relighter.cpp robust_bounds: the sphere around the mean centre holding 99% of the
// splats (bounds_of_points pads the farthest by 5%).
export function robustBounds(means) {
  const n = means.length / 3;
  const c = [0, 0, 0];
  for (let i = 0; i < n; ++i) for (let k = 0; k < 3; ++k) c[k] += means[3 * i + k];
  for (let k = 0; k < 3; ++k) c[k] /= Math.max(n, 1);
  const d = new Float64Array(n);
  let r = 0;
  for (let i = 0; i < n; ++i) {
    d[i] = Math.hypot(means[3 * i] - c[0], means[3 * i + 1] - c[1], means[3 * i + 2] - c[2]);
    r = Math.max(r, d[i]);
  }
  let radius = Math.max(1.05 * r, 1e-6);
  if (n >= 100) {
    d.sort();
    radius = Math.min(radius, 1.05 * d[Math.floor(0.99 * n)]);
  }
  return { center: c, radius };
}

// Rows (right, down, forward), right = down x forward (OpenCV axes).
function oriented(eye, fwd, down, res, f) {
  const r = cross(down, fwd);
  const R = [r[0], r[1], r[2], down[0], down[1], down[2], fwd[0], fwd[1], fwd[2]];
  const t = [-(R[0] * eye[0] + R[1] * eye[1] + R[2] * eye[2]), -(R[3] * eye[0] + R[4] * eye[1] + R[5] * eye[2]),
             -(R[6] * eye[0] + R[7] * eye[1] + R[8] * eye[2])];
  return { width: res, height: res, fx: f, fy: f, cx: res / 2, cy: res / 2, R, t };
}

function lookCamera(eye, forward, res, f) {
  const fw = normalize(forward);
  const ref = Math.abs(fw[2]) < 0.9 ? [0, 0, -1] : [0, -1, 0];
  const k = dot(ref, fw);
  return oriented(eye, fw, normalize(sub(ref, [k * fw[0], k * fw[1], k * fw[2]])), res, f);
}

const kCubeAxes = [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]];
const kCubeDowns = [[0, 0, -1], [0, 0, -1], [0, 0, -1], [0, 0, -1], [0, 1, 0], [0, -1, 0]];

// light/light_views.h spot_map_resolution: a spot's shadow map has texels at its centre of
// the mean solid angle of a cube face's at `res`.
export function spotMapResolution(res, coneRad, guard) {
  const side = res * 2 * Math.tan(0.5 * coneRad) / Math.sqrt(4 * Math.PI / 6);
  const lo = Math.min(res, 4 * guard + 8);
  return Math.min(res, Math.max(lo, Math.round(side)));
}

// { kind: 'cube' | 'perspective' | 'ortho', faces: [camera], guard } for a light of
// lights_state.js and map parameters as above.
export function lightViews(light, bounds, params) {
  const res = params.resolution;
  const spotCube = light.type === 'spot' && light.coneDeg * Math.PI / 180 > 2 * Math.PI / 3;
  const cube = light.type === 'point' || spotCube;
  const switchPx = cube && params.faceSwitch ? Math.ceil(params.faceSwitch * res / 2) : 0;
  const guard = Math.floor(params.pcf / 2) + Math.ceil(params.normalOffset) + 2 + switchPx;
  const halfPx = res / 2 - guard;
  if (cube)
    return { kind: 'cube', guard, faceSwitchTan: switchPx / halfPx,
             faces: kCubeAxes.map((a, k) => oriented(light.position, a, kCubeDowns[k], res, halfPx)) };
  if (light.type === 'spot') {
    const f = halfPx / Math.tan(0.5 * light.coneDeg * Math.PI / 180);
    return { kind: 'perspective', guard, faces: [lookCamera(light.position, light.direction, res, f)] };
  }
  const dist = kSunDistanceFactor * bounds.radius;
  const d = normalize(light.direction);
  const eye = [bounds.center[0] + dist * d[0], bounds.center[1] + dist * d[1], bounds.center[2] + dist * d[2]];
  return { kind: 'ortho', guard, faces: [lookCamera(eye, [-d[0], -d[1], -d[2]], res, halfPx * dist / bounds.radius)] };
}

// light/ambient_occlusion.cpp: glint relight's ambient occlusion, K suns of a Fibonacci
// lattice over the whole sphere (up = +Z), median-depth maps looked up with these biases.
export const kAoParams = { directions: 64, resolution: 128, pcf: 5, constantBias: 2, slopeBias: 3, normalOffset: 0.5,
                           minAo: 0.2 };

export function fibonacciDirections(count) {
  const up = [0, 0, 1];
  const ex = normalize(cross([1, 0, 0], up)), ey = cross(up, ex);
  const golden = Math.PI * (3 - Math.sqrt(5));
  const out = [];
  for (let i = 0; i < count; ++i) {
    const z = 1 - (2 * i + 1) / count;
    const r = Math.sqrt(Math.max(0, 1 - z * z)), phi = golden * i;
    out.push([0, 1, 2].map((k) => r * Math.cos(phi) * ex[k] + r * Math.sin(phi) * ey[k] + z * up[k]));
  }
  return out;
}

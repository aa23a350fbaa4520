// Visibility maps of the lights, rendered in the browser from the splats through the
// splat passes, with the face cameras of light_views.js:
//   shadow map: per face the depth view (sum w z and alpha); the lookup takes the
//     alpha-normalised expected depth where alpha >= 0.5 (glint relight --shadow-depth
//     expected; the CPU's default median depth needs the transmittance while blending,
//     which "over" blending does not give).
//   transmittance: per face K planes at quantiles of the depths of the splats the face
//     sees; per plane the alpha of every splat whose centre lies in front of it (a tail of
//     the back-to-front order), which needs no sort: alpha accumulates the same in any order.
// A light's maps are re-rendered only when that light (its version), the kind of map or
// the model changed; `renders` counts the re-renders per light id for the tests.
import { MODE_ALPHA, MODE_DEPTH } from './splat_shaders.js';
import { kNearPlane } from './splat_renderer.js';
import { fibonacciDirections, kAoParams, kEnvSunResolution, kShadowMapParams, kTransmittanceParams, lightViews,
         spotMapResolution } from './light_views.js';
import { countBelow, lightOrder, transmittancePlanes } from './light_sort.js';

const kMaxPlaneFloats = 256;  // u_planeZ of the lamp shader: 64 vec4

export class ShadowMaps {
  constructor(gl, renderer, model, bounds) {
    this.gl = gl;
    this.renderer = renderer;
    this.model = model;
    this.bounds = bounds;
    this.modelVersion = 0;
    this.maps = new Map();     // light id -> map
    this.renders = new Map();  // light id -> number of times its maps were rendered
    this.lastMs = 0;           // time of the last re-render of one light's maps
    this.fbo = gl.createFramebuffer();
  }

  // The model changed: every map is stale.
  setModel(renderer, model, bounds) {
    this.renderer = renderer;
    this.model = model;
    this.bounds = bounds;
    this.modelVersion++;
  }

  // The map of `light` for `kind` ('pcf' or 'transmittance'), rendered if stale.
  get(light, kind) {
    const key = `${kind}|${light.version}|${this.modelVersion}`;
    const old = this.maps.get(light.id);
    if (old && old.key === key) return old;
    if (old) this.gl.deleteTexture(old.texture);
    const t0 = performance.now();
    const map = kind === 'pcf' ? this.renderShadowMap(light) : this.renderTransmittance(light);
    const sync = new Float32Array(4);  // waits for the GPU, so that lastMs is the work's time
    this.gl.bindFramebuffer(this.gl.FRAMEBUFFER, this.fbo);
    this.gl.readPixels(0, 0, 1, 1, this.gl.RGBA, this.gl.FLOAT, sync);
    this.lastMs = performance.now() - t0;
    map.key = key;
    this.maps.set(light.id, map);
    this.renders.set(light.id, (this.renders.get(light.id) || 0) + 1);
    return map;
  }

  // Drops the maps of lights no longer in `lights`.
  retain(lights) {
    const ids = new Set(lights.map((l) => l.id));
    for (const [id, m] of this.maps)
      if (!ids.has(id)) {
        this.gl.deleteTexture(m.texture);
        this.maps.delete(id);
      }
  }

  allocate(res, layers, internal) {
    const gl = this.gl;
    const tex = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D_ARRAY, tex);
    gl.texParameteri(gl.TEXTURE_2D_ARRAY, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D_ARRAY, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
    gl.texStorage3D(gl.TEXTURE_2D_ARRAY, 1, internal, res, res, Math.max(1, layers));
    return tex;
  }

  drawInto(texture, layer, cam, mode, first, count) {
    const gl = this.gl;
    gl.bindFramebuffer(gl.FRAMEBUFFER, this.fbo);
    gl.framebufferTextureLayer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, texture, 0, layer);
    this.renderer.render(cam, mode, [0, 0, 0], { fbo: this.fbo, first, count });
  }

  // Renders with the light's own depth order, then gives the camera its order back.
  withOrders(fn) {
    const saved = this.renderer.order;
    try {
      fn();
    } finally {
      if (saved) this.renderer.setOrder(saved);
    }
  }

  // The ambient-occlusion maps of the model (kAoParams): a sun map a direction, rendered
  // once per model.
  aoMaps() {
    if (this.ao && this.ao.modelVersion === this.modelVersion) return this.ao.maps;
    if (this.ao) for (const m of this.ao.maps) this.gl.deleteTexture(m.texture);
    const t0 = performance.now();
    const maps = fibonacciDirections(kAoParams.directions).map((d) => ({
      ...this.renderShadowMap({ type: 'sun', direction: d }, kAoParams), direction: d }));
    this.ao = { modelVersion: this.modelVersion, maps };
    this.aoMs = performance.now() - t0;
    return maps;
  }

  renderShadowMap(light, p = light.envSun ? { ...kShadowMapParams, resolution: kEnvSunResolution } : kShadowMapParams) {
    let views = lightViews(light, this.bounds, p);
    if (views.kind === 'perspective') {  // a spot: texels of a cube face's solid angle, as light/shadow_map.cpp
      p = { ...p, resolution: spotMapResolution(p.resolution, light.coneDeg * Math.PI / 180, views.guard) };
      views = lightViews(light, this.bounds, p);
    }
    const texture = this.allocate(p.resolution, views.faces.length, this.gl.RGBA32F);
    this.withOrders(() => views.faces.forEach((cam, f) => {
      const { order } = lightOrder(this.model.means, cam, kNearPlane);
      this.renderer.setOrder(order);
      this.drawInto(texture, f, cam, MODE_DEPTH, 0, order.length);
    }));
    return { kind: 'pcf', params: p, views, texture };
  }

  renderTransmittance(light) {
    const p = light.envSun ? { ...kTransmittanceParams, resolution: kEnvSunResolution } : kTransmittanceParams;
    const views = lightViews(light, this.bounds, p);
    const planes = views.faces.map((cam) => transmittancePlanes(this.model.means, cam, p.planes, this.bounds.radius));
    const total = planes.reduce((s, z) => s + z.length, 0);
    if (total > kMaxPlaneFloats) throw new Error(`transmittance: ${total} planes, the page holds ${kMaxPlaneFloats}`);
    // Only alpha is kept, in the red channel (the alpha view blends the value 1).
    const texture = this.allocate(p.resolution, total, this.gl.R16F);
    const base = [];
    let at = 0;
    this.withOrders(() => views.faces.forEach((cam, f) => {
      base.push(at);
      const { order, depth } = lightOrder(this.model.means, cam, kNearPlane);
      this.renderer.setOrder(order);
      for (const z of planes[f]) {
        const count = countBelow(depth, z);  // the splats in front: the last `count` slots
        this.drawInto(texture, at++, cam, MODE_ALPHA, order.length - count, count);
      }
    }));
    const planeZ = new Float32Array(kMaxPlaneFloats);
    planes.flat().forEach((z, i) => { planeZ[i] = z; });
    return { kind: 'transmittance', params: p, views, texture, planeZ, planeBase: base,
             planeCount: planes.map((z) => z.length) };
  }

  renderCount(id) { return this.renders.get(id) || 0; }
}

// The lit view, deferred: the splat passes fill a G-buffer for the camera (colour on black,
// depth, normals: three float targets), then full-screen passes light it into a float
// target, one pass for the ambient term and one a lamp, each lamp with its visibility map
// from shadow_maps.js (rendered only when its light changed).
import { MODE_COLOR, MODE_ENV_VIS } from './splat_shaders.js';
import { shadedLamps } from './lights_state.js';
import { link } from './splat_renderer.js';
import { cameraCenter } from './camera.js';
import { fullscreenVertexShader, ambientFragmentShader, lampFragmentShader, albedoFragmentShader,
         residualFragmentShader,
         litDisplayFragmentShader } from './lighting_shaders.js';
import { ShadowMaps } from './shadow_maps.js';
import { kAoParams, robustBounds } from './light_views.js';
import { NormalFilter } from './normal_filter.js';

const kTypes = { point: 0, spot: 1, sun: 2 };
export const SHADOW_KINDS = ['pcf', 'transmittance', 'none'];

export class LitRenderer {
  constructor(gl, renderer, model) {
    this.gl = gl;
    this.renderer = renderer;
    this.ambient = link(gl, fullscreenVertexShader, ambientFragmentShader);
    this.lamp = link(gl, fullscreenVertexShader, lampFragmentShader);
    this.albedo = link(gl, fullscreenVertexShader, albedoFragmentShader);
    this.residual = link(gl, fullscreenVertexShader, residualFragmentShader);
    this.envGpu = new WeakMap();  // environment light's visibility data -> its textures
    this.display = link(gl, fullscreenVertexShader, litDisplayFragmentShader);
    this.vao = gl.createVertexArray();
    this.shadows = new ShadowMaps(gl, renderer, model, robustBounds(model.means));
    this.shadowKind = 'pcf';
    this.normalFilter = new NormalFilter(gl);
    this.normals = 'fit';       // glint relight's default (--normals fit); 'smooth', 'raw' (normal_filter.js)
    this.delight = true;        // glint relight's default (--no-delight turns it off)
    this.size = [0, 0];
    this.targets = null;
  }

  // A new model (live reload) drawn by a new splat renderer: every map and the view's
  // G-buffer are stale.
  setModel(renderer, model) {
    this.renderer = renderer;
    this.viewCache = null;
    this.shadows.setModel(renderer, model, robustBounds(model.means));
  }

  target(w, h) {
    const gl = this.gl;
    const tex = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, tex);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
    gl.texStorage2D(gl.TEXTURE_2D, 1, gl.RGBA32F, w, h);
    const fbo = gl.createFramebuffer();
    gl.bindFramebuffer(gl.FRAMEBUFFER, fbo);
    gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex, 0);
    return { tex, fbo };
  }

  ensureTargets(w, h) {
    if (this.targets && this.size[0] === w && this.size[1] === h) return;
    const gl = this.gl;
    if (this.targets) for (const t of Object.values(this.targets)) {
      gl.deleteTexture(t.tex);
      gl.deleteFramebuffer(t.fbo);
    }
    this.targets = { color: this.target(w, h), depth: this.target(w, h), normal: this.target(w, h), smooth: this.target(w, h),
                     ao: this.target(w, h), envVis: this.target(w, h), lit: this.target(w, h) };
    // The G-buffer's three targets drawn by one splat pass.
    const t = this.targets;
    if (this.gFbo) gl.deleteFramebuffer(this.gFbo);
    this.gFbo = gl.createFramebuffer();
    gl.bindFramebuffer(gl.FRAMEBUFFER, this.gFbo);
    [t.color, t.depth, t.normal].forEach((x, k) =>
      gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0 + k, gl.TEXTURE_2D, x.tex, 0));
    gl.drawBuffers([gl.COLOR_ATTACHMENT0, gl.COLOR_ATTACHMENT1, gl.COLOR_ATTACHMENT2]);
    this.size = [w, h];
  }

  // The G-buffer of `cam` (colour, depth, normals; with `delight` the AO: baked per splat
  // into the depth target's g channel, or per pixel into the AO target where glint sent no
  // per-splat AO) unless it is still that of the same view. Returns { fresh, aoSource }:
  // aoSource 0 none, 1 the AO target, 2 the depth target.
  prepareView(cam, delight) {
    const gl = this.gl;
    const baked = this.renderer.hasAo;
    const aoSource = !delight ? 0 : baked ? 2 : 1;
    const aoMaps = aoSource === 1 ? this.shadows.aoMaps() : null;  // before the G-buffer: they draw splats too
    this.ensureTargets(cam.width, cam.height);
    const t = this.targets;
    // The G-buffer and the AO depend on the view only: a light's edit reuses them (the
    // camera's order is part of the key, as a new sort redraws the same camera).
    const viewKey = JSON.stringify([cam, this.normals, delight, this.shadows.modelVersion]);
    const fresh = !this.viewCache || this.viewCache.key !== viewKey || this.viewCache.order !== this.renderer.order ||
                  this.viewCache.targets !== t || this.viewCache.renderer !== this.renderer;
    if (fresh) {
      // colour, (z, AO, 0) and the facing normal in one pass (the AO is 1 without baked AO)
      this.renderer.render(cam, MODE_COLOR, [0, 0, 0], { fbo: this.gFbo, gbuffer: true });
      if (this.normals !== 'raw') this.normalFilter.run(cam, t.depth.tex, t.normal.tex, t.smooth.fbo, this.vao, this.normals);
    }
    this.viewCache = { key: viewKey, order: this.renderer.order, targets: t, renderer: this.renderer };
    gl.bindVertexArray(this.vao);
    const p = this.lamp;
    gl.useProgram(p.program);
    this.setViewUniforms(p, cam);
    if (aoSource === 1 && fresh) {
      // Per pixel AO = sum w V / sum w over the directions, w = max(0, n.d): one additive
      // pass a direction into the AO target, read back by the lamps.
      gl.bindFramebuffer(gl.FRAMEBUFFER, t.ao.fbo);
      gl.viewport(0, 0, cam.width, cam.height);
      gl.clearColor(0, 0, 0, 0);
      gl.clear(gl.COLOR_BUFFER_BIT);
      gl.enable(gl.BLEND);
      gl.blendEquation(gl.FUNC_ADD);
      gl.blendFuncSeparate(gl.ONE, gl.ONE, gl.ONE, gl.ONE);
      this.bindTexture(4, t.color.tex, p.u.u_ao);  // not the target being drawn
      gl.uniform1i(p.u.u_aoPass, 1);
      for (const m of aoMaps)
        this.drawLamp({ type: 'sun', direction: m.direction, strength: 1, color: [1, 1, 1] }, m);
      gl.uniform1i(p.u.u_aoPass, 0);
      gl.disable(gl.BLEND);
    }
    gl.bindVertexArray(null);
    return { fresh, aoSource };
  }

  // The view's uniforms of a full-screen program over the G-buffer (lamp or albedo).
  setViewUniforms(p, cam) {
    const gl = this.gl;
    const t = this.targets;
    this.bindTexture(0, t.color.tex, p.u.u_color);
    this.bindTexture(1, t.depth.tex, p.u.u_depth);
    const filtered = this.normals !== 'raw';
    if (p.u.u_normal) this.bindTexture(2, filtered ? t.smooth.tex : t.normal.tex, p.u.u_normal);
    if (p.u.u_smoothed) gl.uniform1i(p.u.u_smoothed, filtered ? 1 : 0);
    const R = cam.R;
    gl.uniform3f(p.u.u_R0, R[0], R[1], R[2]);
    gl.uniform3f(p.u.u_R1, R[3], R[4], R[5]);
    gl.uniform3f(p.u.u_R2, R[6], R[7], R[8]);
    gl.uniform3f(p.u.u_t, cam.t[0], cam.t[1], cam.t[2]);
    gl.uniform4f(p.u.u_intr, cam.fx, cam.fy, cam.cx, cam.cy);
    gl.uniform2f(p.u.u_size, cam.width, cam.height);
    gl.uniform3fv(p.u.u_eye, cameraCenter(cam));
    if (p.u.u_aoPass) gl.uniform1i(p.u.u_aoPass, 0);
  }

  // Binds the AO the albedo is divided by (prepareView's aoSource) to program `p`.
  bindAo(p, aoSource) {
    const gl = this.gl;
    this.bindTexture(4, aoSource === 1 ? this.targets.ao.tex : this.targets.depth.tex, p.u.u_ao);
    gl.uniform1i(p.u.u_delight, aoSource);
    gl.uniform1f(p.u.u_minAo, kAoParams.minAo);
  }

  // Lights `cam`'s view under `state` (lights_state.js) into the lit target: linear
  // radiance (straight) and coverage. Returns the time spent on visibility maps.
  render(cam, state) {
    const gl = this.gl;
    const all = state.lights.flatMap(shadedLamps);  // an environment light shades as its suns
    const lamps = all.filter((l) => l.enabled && l.type in kTypes);
    const envs = state.lights.filter((l) => l.enabled && l.type === 'environment');
    this.shadows.retain(all);
    let shadowMs = 0;
    const maps = lamps.map((l) => {
      if (this.shadowKind === 'none') return null;
      const before = this.shadows.renderCount(l.id);
      const m = this.shadows.get(l, this.shadowKind);
      if (this.shadows.renderCount(l.id) !== before) shadowMs += this.shadows.lastMs;
      return m;
    });
    const { aoSource } = this.prepareView(cam, this.delight);
    this.aoSource = aoSource;  // for the tests: which AO the frame de-lit with
    const t = this.targets;

    gl.bindFramebuffer(gl.FRAMEBUFFER, t.lit.fbo);
    gl.viewport(0, 0, cam.width, cam.height);
    gl.bindVertexArray(this.vao);
    gl.disable(gl.BLEND);
    const a = this.ambient;
    gl.useProgram(a.program);
    this.bindTexture(0, t.color.tex, a.u.u_color);
    const amb = state.ambient;
    gl.uniform3f(a.u.u_ambient, amb.strength * amb.color[0], amb.strength * amb.color[1], amb.strength * amb.color[2]);
    gl.drawArrays(gl.TRIANGLES, 0, 3);

    gl.enable(gl.BLEND);
    gl.blendEquation(gl.FUNC_ADD);
    gl.blendFuncSeparate(gl.ONE, gl.ONE, gl.ZERO, gl.ONE);
    const p = this.lamp;
    gl.useProgram(p.program);
    this.setViewUniforms(p, cam);
    this.bindAo(p, aoSource);
    lamps.forEach((l, i) => this.drawLamp(l, maps[i]));
    for (const e of envs) this.drawResidual(cam, e, aoSource);
    gl.disable(gl.BLEND);
    gl.bindVertexArray(null);
    return shadowMs;
  }

  // Adds environment light e's residual (its suns are lamps): its per-splat visibility
  // blended for the view (kept while the view and the light's data are), then one pass.
  drawResidual(cam, e, aoSource) {
    const gl = this.gl;
    const t = this.targets;
    const shadowed = this.shadowKind !== 'none';
    // Kept per light data (a setup loaded again makes new light objects over the same data).
    let gpu = this.envGpu.get(e.visibilityData);
    if (!gpu || gpu.renderer !== this.renderer) {
      const r = e.residual;
      const table = gl.createTexture();
      gl.bindTexture(gl.TEXTURE_2D, table);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
      gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGB32F, r.width, r.height, 0, gl.RGB, gl.FLOAT, Float32Array.from(r.irradiance));
      if (gpu) for (const t of [gpu.table, gpu.vis]) gl.deleteTexture(t);
      gpu = { renderer: this.renderer, table, vis: this.renderer.splatTexture(e.visibilityData, 2) };
      this.envGpu.set(e.visibilityData, gpu);
    }
    if (shadowed) {
      const key = JSON.stringify([this.viewCache.key, e.id]);
      if (this.envCache !== key || this.envCacheOrder !== this.renderer.order) {
        gl.disable(gl.BLEND);
        this.renderer.render(cam, MODE_ENV_VIS, [0, 0, 0], { fbo: t.envVis.fbo, splatData: { texture: gpu.vis, key: e.id } });
        this.envCache = key;
        this.envCacheOrder = this.renderer.order;
      }
      gl.bindFramebuffer(gl.FRAMEBUFFER, t.lit.fbo);
      gl.viewport(0, 0, cam.width, cam.height);
      gl.enable(gl.BLEND);
      gl.blendEquation(gl.FUNC_ADD);
      gl.blendFuncSeparate(gl.ONE, gl.ONE, gl.ZERO, gl.ONE);
      gl.bindVertexArray(this.vao);
    }
    const p = this.residual;
    gl.useProgram(p.program);
    this.setViewUniforms(p, cam);
    this.bindAo(p, aoSource);
    this.bindTexture(5, t.envVis.tex, p.u.u_envVis);
    this.bindTexture(6, gpu.table, p.u.u_table);
    gl.uniform1i(p.u.u_shadowed, shadowed ? 1 : 0);
    gl.uniform1f(p.u.u_scale, e.baseStrength > 0 ? e.strength / e.baseStrength : 0);
    gl.drawArrays(gl.TRIANGLES, 0, 3);
  }

  // The de-lit albedo of `cam`'s view into the lit target: capture / max(AO, minAo),
  // clamped (glint relight's de-lighting), and the coverage.
  renderAlbedo(cam) {
    const gl = this.gl;
    const { aoSource } = this.prepareView(cam, true);
    gl.bindFramebuffer(gl.FRAMEBUFFER, this.targets.lit.fbo);
    gl.viewport(0, 0, cam.width, cam.height);
    gl.bindVertexArray(this.vao);
    gl.disable(gl.BLEND);
    const p = this.albedo;
    gl.useProgram(p.program);
    this.setViewUniforms(p, cam);
    this.bindAo(p, aoSource);
    gl.drawArrays(gl.TRIANGLES, 0, 3);
    gl.bindVertexArray(null);
  }

  bindTexture(unit, tex, loc, target = this.gl.TEXTURE_2D) {
    const gl = this.gl;
    gl.activeTexture(gl.TEXTURE0 + unit);
    gl.bindTexture(target, tex);
    gl.uniform1i(loc, unit);
  }

  drawLamp(l, map) {
    const gl = this.gl;
    const u = this.lamp.u;
    gl.uniform1i(u.u_type, kTypes[l.type]);
    const k = l.type === 'sun' ? l.strength : l.intensity;
    gl.uniform3f(u.u_radiance, k * l.color[0], k * l.color[1], k * l.color[2]);
    if (l.type !== 'sun') gl.uniform3fv(u.u_lightPos, l.position);
    const d = l.direction || [0, 0, 1];
    const dn = Math.hypot(d[0], d[1], d[2]) || 1;
    gl.uniform3f(u.u_lightDir, d[0] / dn, d[1] / dn, d[2] / dn);
    if (l.type === 'spot') {
      const cosOuter = Math.cos(0.5 * l.coneDeg * Math.PI / 180);
      gl.uniform1f(u.u_cosOuter, cosOuter);
      gl.uniform1f(u.u_cosInner, cosOuter + l.blend * (1 - cosOuter));
    }
    gl.uniform1i(u.u_shadow, map ? (map.kind === 'pcf' ? 1 : 2) : 0);
    if (map) {
      const faces = map.views.faces;
      const rows = (r) => faces.flatMap((c) => [c.R[3 * r], c.R[3 * r + 1], c.R[3 * r + 2]]);
      gl.uniform1i(u.u_cube, map.views.kind === 'cube' ? 1 : 0);
      gl.uniform3fv(u['u_fr0[0]'], rows(0));
      gl.uniform3fv(u['u_fr1[0]'], rows(1));
      gl.uniform3fv(u['u_fr2[0]'], rows(2));
      gl.uniform3fv(u['u_ft[0]'], faces.flatMap((c) => c.t));
      gl.uniform1f(u.u_f, faces[0].fx);
      gl.uniform1f(u.u_c, faces[0].cx);
      gl.uniform1f(u.u_res, faces[0].width);
      gl.uniform1f(u.u_guard, map.views.guard);
      gl.uniform1f(u.u_faceSwitch, map.views.faceSwitchTan || 0);
      gl.uniform1f(u.u_constBias, map.params.constantBias);
      gl.uniform1f(u.u_slopeBias, map.params.slopeBias);
      gl.uniform1f(u.u_normalOffset, map.params.normalOffset);
      gl.uniform1i(u.u_pcf, map.params.pcf);
      this.bindTexture(3, map.texture, u.u_map, gl.TEXTURE_2D_ARRAY);
      if (map.kind === 'transmittance') {
        gl.uniform4fv(u['u_planeZ[0]'], map.planeZ);
        const pad = (a) => Int32Array.from({ length: 6 }, (_, i) => a[i] || 0);
        gl.uniform1iv(u['u_planeBase[0]'], pad(map.planeBase));
        gl.uniform1iv(u['u_planeCount[0]'], pad(map.planeCount));
      }
    } else {
      // No map bound to unit 3 would leave the sampler on whatever texture is there.
      gl.uniform1i(u.u_map, 3);
    }
    gl.drawArrays(gl.TRIANGLES, 0, 3);
  }

  present(background) {
    const gl = this.gl;
    gl.bindFramebuffer(gl.FRAMEBUFFER, null);
    gl.viewport(0, 0, this.size[0], this.size[1]);
    const d = this.display;
    gl.useProgram(d.program);
    this.bindTexture(0, this.targets.lit.tex, d.u.u_image);
    gl.uniform3f(d.u.u_background, background[0], background[1], background[2]);
    gl.bindVertexArray(this.vao);
    gl.drawArrays(gl.TRIANGLES, 0, 3);
    gl.bindVertexArray(null);
  }

  // RGBA floats of the lit target, rows top to bottom: linear radiance and coverage.
  readTarget() {
    const gl = this.gl;
    const [w, h] = this.size;
    gl.bindFramebuffer(gl.FRAMEBUFFER, this.targets.lit.fbo);
    const px = new Float32Array(w * h * 4);
    gl.readPixels(0, 0, w, h, gl.RGBA, gl.FLOAT, px);
    const out = new Float32Array(w * h * 4);
    for (let y = 0; y < h; ++y) out.set(px.subarray((h - 1 - y) * w * 4, (h - y) * w * 4), y * w * 4);
    return out;
  }
}

// The page of `glint view`: loads the model, cameras and lights the server was given,
// draws on demand (after a camera change and when a new sort arrives), and exposes
// window.glintTest for the browser tests (set a camera, render, read the float target).
import { LiveReload, fetchModel, isLive, waitForModel } from './live_reload.js';
import { parseEnvVisibility } from './model_blob.js';
import { SplatRenderer, kNearPlane } from './splat_renderer.js';
import { MODE_COLOR, MODE_DEPTH, MODE_ALPHA, MODE_NORMAL } from './splat_shaders.js';
import { OrbitController, cameraCenter, upFromCameras } from './camera.js';
import { applyViewState, encodeViewState, trackViewState } from './url_state.js';
import { attachScreenshot } from './screenshot.js';
import { LitView, MODE_LIT, MODE_ALBEDO, installLitTestHook } from './lit_view.js';

const kStaleLitMs = 500;

const MODES = { color: MODE_COLOR, depth: MODE_DEPTH, alpha: MODE_ALPHA, normal: MODE_NORMAL, albedo: MODE_ALBEDO,
                lit: MODE_LIT };

function showError(msg) {
  const el = document.getElementById('error');
  el.textContent = msg;
  el.hidden = false;
  console.error(msg);
}

async function fetchOk(path) {
  const r = await fetch(path);
  if (!r.ok) throw new Error(`${path}: HTTP ${r.status}`);
  return r.json();
}

function sceneBounds(means) {
  const n = means.length / 3;
  const c = [0, 0, 0];
  for (let i = 0; i < n; ++i) for (let k = 0; k < 3; ++k) c[k] += means[3 * i + k] / n;
  let s = 0;
  for (let i = 0; i < n; ++i)
    s += (means[3 * i] - c[0]) ** 2 + (means[3 * i + 1] - c[1]) ** 2 + (means[3 * i + 2] - c[2]) ** 2;
  return { center: c, radius: Math.sqrt(s / Math.max(n, 1)) };
}

class Viewer {
  constructor(canvas, model, scene, lightSetups) {
    this.canvas = canvas;
    this.model = model;
    this.cameras = scene.cameras;
    this.background = scene.background;
    const gl = canvas.getContext('webgl2', { antialias: false, depth: false, premultipliedAlpha: false,
                                             preserveDrawingBuffer: true });
    if (!gl) throw new Error('this page needs WebGL2, which the browser did not give');
    this.gl = gl;
    this.renderer = new SplatRenderer(gl, model);
    this.bounds = sceneBounds(model.means);
    this.lit = new LitView(this, lightSetups);
    this.modeName = this.lit.hasLights() ? 'lit' : 'color';
    this.mode = MODES[this.modeName];
    this.onViewChange = null;  // url_state.js
    this.stats = { frameMs: 0, sortMs: 0, drawn: 0 };
    this.drawnAt = -Infinity;  // when the last frame was done (performance.now())
    this.syncPixel = new Uint8Array(4);
    this.camVersion = 0;
    this.sortedVersion = -1;
    this.sortInFlight = false;
    this.sortWaiters = [];
    this.modelFirstSort = 0;  // sorts with a lower id are of a model replaced since
    this.worker = new Worker('sort_worker.js');
    this.worker.onmessage = (e) => this.onSorted(e.data);
    this.worker.onerror = (e) => showError('sort worker: ' + e.message);
    this.worker.postMessage({ type: 'model', means: model.means.slice() });

    const up = this.cameras.length ? upFromCameras(this.cameras) : [0, 0, 1];
    this.orbit = new OrbitController(up, this.bounds.center, 3 * this.bounds.radius);
    this.fovY = 50 * Math.PI / 180;
    this.snapped = -1;
    if (this.cameras.length) this.snapTo(0);
    else this.cam = this.orbit.camera(this.freeIntrinsics());
  }

  freeIntrinsics() {
    const stage = document.getElementById('stage');
    const w = Math.max(64, Math.min(1920, Math.floor(stage.clientWidth || 640)));
    const h = Math.max(64, Math.min(1080, Math.floor(stage.clientHeight || 480)));
    const f = 0.5 * h / Math.tan(0.5 * this.fovY);
    return { width: w, height: h, fx: f, fy: f, cx: w / 2, cy: h / 2 };
  }

  setCamera(cam) {
    this.cam = { width: cam.width, height: cam.height, fx: cam.fx, fy: cam.fy, cx: cam.cx, cy: cam.cy,
                 R: cam.R.slice(), t: cam.t.slice() };
    this.camVersion++;
    this.requestSort();
    this.requestFrame();
    if (this.onViewChange) this.onViewChange();
  }

  setMode(name) {
    if (!(name in MODES)) return false;
    this.mode = MODES[name];
    this.modeName = name;
    document.getElementById('mode').value = name;
    this.requestFrame();
    if (this.onViewChange) this.onViewChange();
    return true;
  }

  snapTo(i) {
    const c = this.cameras[i];
    this.snapped = i;
    const centre = cameraCenter(c);
    const f = [c.R[6], c.R[7], c.R[8]];
    const toScene = this.bounds.center.map((v, k) => v - centre[k]);
    const focus = Math.max(0.1 * this.bounds.radius, toScene[0] * f[0] + toScene[1] * f[1] + toScene[2] * f[2]);
    this.orbit.setFromCamera(c, focus);
    this.fovY = 2 * Math.atan(0.5 * c.height / c.fy);
    document.getElementById('camera').value = String(i);
    this.setCamera(c);
  }

  // A free camera from the orbit controller (leaves any snapped dataset camera).
  moved() {
    this.snapped = -1;
    document.getElementById('camera').value = '-1';
    this.setCamera(this.orbit.camera(this.freeIntrinsics()));
  }

  requestSort() {
    if (this.sortInFlight) return;
    this.sortInFlight = true;
    const R = this.cam.R;
    this.worker.postMessage({ type: 'sort', id: this.camVersion, r2: [R[6], R[7], R[8]], tz: this.cam.t[2],
                              near: kNearPlane });
  }

  onSorted(m) {
    this.sortInFlight = false;
    if (m.id < this.modelFirstSort) {
      this.requestSort();
      return;
    }
    if (this.nextRenderer) {  // the new model's first order: draw it from now on
      this.renderer.dispose();
      this.renderer = this.nextRenderer;
      this.nextRenderer = null;
      if (this.lit.renderer) this.lit.renderer.setModel(this.renderer, this.model);
    }
    this.renderer.setOrder(m.order);
    this.sortedVersion = m.id;
    this.stats.sortMs = m.ms;
    this.stats.drawn = m.order.length;
    if (this.sortedVersion !== this.camVersion) this.requestSort();
    else for (const w of this.sortWaiters.splice(0)) w();
    this.requestFrame();
  }

  // A new version of the model (live view): same camera and mode; the old model stays on
  // screen until the new one's first sort has arrived. Resolves once it is drawn.
  setModel(model) {
    if (this.nextRenderer) this.nextRenderer.dispose();
    this.nextRenderer = new SplatRenderer(this.gl, model);
    this.model = model;
    this.worker.postMessage({ type: 'model', means: model.means.slice() });
    this.camVersion++;
    this.modelFirstSort = this.camVersion;
    this.requestSort();
    return this.sorted();
  }

  sorted() {  // resolves once the order matches the current camera
    if (this.sortedVersion === this.camVersion) return Promise.resolve();
    return new Promise((resolve) => this.sortWaiters.push(resolve));
  }

  requestFrame() {
    if (this.framePending) return;
    this.framePending = true;
    requestAnimationFrame(() => {
      this.framePending = false;
      if (this.waitsForOrder()) return;  // onSorted asks again
      this.draw();
    });
  }

  // A lit frame (its G-buffer) costs many unlit ones, and drawn with the order of an older
  // camera it is drawn again when the new order comes, moments later: so the lit views draw
  // a stale order only when nothing has been drawn for kStaleLitMs (a drag that never lets
  // the sort catch up still shows frames).
  waitsForOrder() {
    if (this.mode !== MODE_LIT && this.mode !== MODE_ALBEDO) return false;
    return this.sortedVersion !== this.camVersion && performance.now() - this.drawnAt < kStaleLitMs;
  }

  draw() {
    const gl = this.gl;
    const t0 = performance.now();
    if (this.canvas.width !== this.cam.width || this.canvas.height !== this.cam.height) {
      this.canvas.width = this.cam.width;
      this.canvas.height = this.cam.height;
    }
    // shown as large as the stage allows, in the image's aspect (a 200x200 dataset view too)
    const stage = document.getElementById('stage');
    const k = Math.min(stage.clientWidth / this.cam.width, stage.clientHeight / this.cam.height) || 1;
    this.canvas.style.width = `${Math.floor(this.cam.width * k)}px`;
    this.canvas.style.height = `${Math.floor(this.cam.height * k)}px`;
    if (this.mode === MODE_LIT) {
      this.lit.draw();
    } else if (this.mode === MODE_ALBEDO) {
      this.lit.drawAlbedo();
    } else {
      this.renderer.render(this.cam, this.mode, this.background);
      const near = Math.max(kNearPlane, this.orbit.distance - 2 * this.bounds.radius);
      this.renderer.present(this.mode, [near, this.orbit.distance + 2 * this.bounds.radius]);
    }
    // finish() returns before a GPU process has drawn; a one-pixel read waits for it.
    gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, this.syncPixel);
    this.drawnAt = performance.now();
    this.stats.frameMs = this.drawnAt - t0;
    const err = gl.getError();
    if (err !== gl.NO_ERROR) showError(`WebGL error 0x${err.toString(16)}`);
    document.getElementById('stats').textContent =
      `frame ${this.stats.frameMs.toFixed(1)} ms\nsort  ${this.stats.sortMs.toFixed(1)} ms\n` +
      `drawn ${this.stats.drawn} / ${this.model.count}\n${this.cam.width}x${this.cam.height} ${this.renderer.target.name}` +
      (this.mode === MODE_LIT ? this.lit.statsText() : '');
  }

  attachControls() {
    const c = this.canvas;
    let drag = null;
    c.addEventListener('contextmenu', (e) => e.preventDefault());
    c.addEventListener('pointerdown', (e) => {
      drag = { x: e.clientX, y: e.clientY, pan: e.button === 2 || e.shiftKey };
      c.setPointerCapture(e.pointerId);
    });
    c.addEventListener('pointermove', (e) => {
      if (!drag) return;
      const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      drag.x = e.clientX;
      drag.y = e.clientY;
      const k = this.cam.width / Math.max(1, c.clientWidth);  // CSS pixels to image pixels
      if (drag.pan) this.orbit.pan(this.cam, dx * k, dy * k);
      else this.orbit.orbit(dx, dy);
      this.moved();
    });
    c.addEventListener('pointerup', () => { drag = null; });
    c.addEventListener('wheel', (e) => {
      e.preventDefault();
      this.orbit.zoom(Math.sign(e.deltaY));
      this.moved();
    }, { passive: false });
    window.addEventListener('keydown', (e) => {
      const step = 0.05 * this.orbit.distance;
      const keys = { w: [1, 0], s: [-1, 0], a: [0, -1], d: [0, 1] };
      const k = keys[e.key.toLowerCase()];
      if (!k || e.target.tagName === 'SELECT') return;
      this.orbit.fly(this.cam, k[0], k[1], step);
      this.moved();
    });
    window.addEventListener('resize', () => { if (this.snapped < 0) this.moved(); });
    const sel = document.getElementById('camera');
    this.cameras.forEach((cam, i) => {
      const o = document.createElement('option');
      o.value = String(i);
      o.textContent = `${cam.split && cam.split !== "cameras" ? cam.split + "/" : ""}${cam.name || "camera " + i}`;
      sel.appendChild(o);
    });
    sel.value = String(this.snapped);
    sel.addEventListener('change', () => {
      const i = Number(sel.value);
      if (i >= 0) this.snapTo(i);
      else this.moved();
    });
    const mode = document.getElementById('mode');
    mode.value = this.modeName;
    mode.addEventListener('change', () => this.setMode(mode.value));
  }
}

function toBase64(f32) {
  const bytes = new Uint8Array(f32.buffer, f32.byteOffset, f32.byteLength);
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

// For the browser tests: every call renders synchronously after the sort for the camera
// has arrived, so a test never depends on animation frames.
function installTestHook(v) {
  window.glintTest = {
    info: () => {
      const dbg = v.gl.getExtension('WEBGL_debug_renderer_info');
      return { webgl2: v.gl instanceof WebGL2RenderingContext, target: v.renderer.target.name,
               splats: v.renderer.model.count, shDegree: v.renderer.model.shDegree, cameras: v.cameras.length,
               splatAo: v.renderer.hasAo,
               renderer: v.gl.getParameter(dbg ? dbg.UNMASKED_RENDERER_WEBGL : v.gl.RENDERER) };
    },
    cameras: () => v.cameras,
    live: () => (v.live ? { version: v.live.version, loads: v.live.loads, status: v.live.status,
                            lastLoad: v.live.lastLoad } : null),
    pollLive: async () => { if (v.live) await v.live.poll(); },
    camera: () => v.cam,
    setCamera: (cam) => v.setCamera(cam),
    snapTo: (i) => v.snapTo(i),
    setMode: (name) => {
      if (!v.setMode(name)) throw new Error('unknown mode ' + name);
    },
    urlState: () => encodeViewState(v),
    async render() {
      await v.sorted();
      v.draw();
      return { ...v.stats };
    },
    readTarget() {
      const px = v.renderer.readTarget();
      return { width: v.renderer.fboSize[0], height: v.renderer.fboSize[1], rgba: toBase64(px) };
    },
  };
}

async function main() {
  const first = await waitForModel();
  // api/light_setups.json, not the light file as given: that may hold the NaN of Python's
  // JSON (the relight dataset's files do), which JSON.parse refuses.
  // Every model comes with its per-splat AO (a live one where the server baked it; without,
  // the lit view estimates AO per pixel).
  const [{ model, version }, scene, lightSetups] = await Promise.all([
    fetchModel({ requireAo: !isLive(first.status) }), fetchOk('api/cameras.json'), fetchOk('api/light_setups.json')]);
  // Environment lights' per-splat visibility: a fixed model's only.
  if (!isLive(first.status)) {
    for (const s of Object.values(lightSetups && lightSetups.setups ? lightSetups.setups : {}))
      for (const l of s.lights)
        if (l.type === 'environment' && l.visibility) {
          const e = await fetch(l.visibility);
          if (!e.ok) throw new Error(`${l.visibility}: HTTP ${e.status}`);
          l.visibilityData = parseEnvVisibility(await e.arrayBuffer(), model.count, l.visibility);
        }
  }
  const v = new Viewer(document.getElementById('canvas'), model, scene, lightSetups);
  v.attachControls();
  v.lit.attachControls();
  attachScreenshot(v);
  installTestHook(v);
  installLitTestHook(v);
  const problems = location.hash ? applyViewState(v, location.hash) : [];
  if (problems.length) console.warn('URL: not understood: ' + problems.join(', '));
  trackViewState(v);
  if (v.snapped < 0) v.setCamera(v.cam);
  await v.sorted();
  if (isLive(first.status)) {
    v.live = new LiveReload(v, version, first.status);
    v.live.start();
  }
  document.body.dataset.ready = 'true';
}

main().catch((e) => {
  showError(String(e && e.message ? e.message : e));
  document.body.dataset.ready = 'error';
});

// The lit view of the page: the light setups glint view was given (lights_state.js),
// lit by lighting_pass.js, the bar's controls for them, and the test hooks.
import { LightsState } from './lights_state.js';
import { LitRenderer, SHADOW_KINDS } from './lighting_pass.js';
import { wireLightEditor } from './light_editor.js';
import { NORMAL_MODES } from './normal_filter.js';

export const MODE_LIT = 4;  // after splat_shaders.js's unlit modes
export const MODE_ALBEDO = 6;  // the de-lit albedo, drawn through the lit view's G-buffer

export class LitView {
  constructor(viewer, setupsDoc) {
    this.viewer = viewer;
    this.state = new LightsState(setupsDoc);
    this.renderer = null;  // made on first use: the unlit views need none of it
    this.shadowMs = 0;
  }

  hasLights() { return this.state.names.length > 0; }

  lit() {
    if (!this.renderer) this.renderer = new LitRenderer(this.viewer.gl, this.viewer.renderer, this.viewer.model);
    return this.renderer;
  }

  draw() {
    const v = this.viewer;
    const r = this.lit();
    const ms = r.render(v.cam, this.state);
    if (ms > 0) this.shadowMs = ms;
    v.stats.shadowMs = this.shadowMs;  // the last re-render of a light's maps
    v.stats.ao = ['none', 'pixel', 'splat'][r.aoSource];  // the AO de-lit with (prepareView's aoSource)
    r.present(v.background);
  }

  drawAlbedo() {
    const r = this.lit();
    r.renderAlbedo(this.viewer.cam);
    r.present(this.viewer.background);
  }

  statsText() {
    const r = this.lit();
    const skipped = this.state.skipped ? `\n${this.state.skipped} environment light(s) not shaded here` : '';
    return `\nlights ${this.state.lights.filter((l) => l.enabled).length} (${this.state.name}), shadows ${r.shadowKind}` +
           `\nshadow maps ${this.shadowMs.toFixed(1)} ms (last re-render)${skipped}`;
  }

  changed() { this.viewer.requestFrame(); }

  attachControls() {
    const bar = document.getElementById('lit-bar');
    const setup = document.createElement('select');
    setup.id = 'setup';
    for (const n of this.state.names) setup.add(new Option(n, n));
    setup.addEventListener('change', () => {
      this.state.load(setup.value);
      this.editor.refresh();
      this.changed();
    });
    const shadows = document.createElement('select');
    shadows.id = 'shadows';
    for (const k of SHADOW_KINDS) shadows.add(new Option(k, k));
    shadows.addEventListener('change', () => {
      this.lit().shadowKind = shadows.value;
      this.changed();
    });
    const label = (text, el) => {
      const l = document.createElement('label');
      l.append(text + ' ', el);
      return l;
    };
    const normals = document.createElement('select');
    normals.id = 'normals';
    for (const k of NORMAL_MODES) normals.add(new Option(k, k));
    normals.addEventListener('change', () => {
      this.lit().normals = normals.value;
      this.changed();
    });
    const delight = document.createElement('input');
    delight.type = 'checkbox';
    delight.id = 'delight';
    delight.checked = true;
    delight.addEventListener('change', () => {
      this.lit().delight = delight.checked;
      this.changed();
    });
    bar.append(label('lights', setup), label('shadows', shadows), label('normals', normals),
               label('de-light', delight));
    this.editor = wireLightEditor(this, bar);
  }
}

// Lit additions to window.glintTest (viewer.js installs the rest first).
export function installLitTestHook(v) {
  const t = window.glintTest;
  const lit = v.lit;
  const unlitRead = t.readTarget;
  Object.assign(t, {
    setups: () => lit.state.names,
    loadSetup: (name) => lit.state.load(name),
    lights: () => lit.state.toJson(),
    lightIds: () => lit.state.lights.map((l) => l.id),
    updateLight: (i, patch) => lit.state.update(i, patch),
    addLight: (json) => lit.state.add(json),
    removeLight: (i) => lit.state.remove(i),
    setShadows: (kind) => {
      if (!SHADOW_KINDS.includes(kind)) throw new Error('unknown shadow kind ' + kind);
      lit.lit().shadowKind = kind;
    },
    setNormals: (mode) => {
      if (!NORMAL_MODES.includes(mode)) throw new Error('unknown normals mode ' + mode);
      lit.lit().normals = mode;
    },
    setDelight: (on) => { lit.lit().delight = Boolean(on); },
    // Times each light's maps were rendered, by light index.
    shadowRenders: () => lit.state.lights.map((l) => lit.lit().shadows.renderCount(l.id)),
    readTarget() {
      if (v.mode !== MODE_LIT && v.mode !== MODE_ALBEDO) return unlitRead();
      const r = lit.lit();
      const px = r.readTarget();
      const bytes = new Uint8Array(px.buffer);
      let s = '';
      for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
      return { width: r.size[0], height: r.size[1], rgba: btoa(s) };
    },
  });
}

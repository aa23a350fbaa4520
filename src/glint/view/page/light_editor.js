// Editing the lights in the bar: select, switch on and off, add and remove, colour,
// intensity, a spot's cone and blend; with "move" checked a drag on the view moves the
// selected light in the image plane at its depth (a sun: turns its direction); "save"
// downloads the setup as a lights.json glint relight reads.
import { cameraCenter } from './camera.js';

const kDefaults = {
  point: { type: 'point', position: [0, 0, 2], intensity_W_per_sr: 10, color: [1, 1, 1] },
  spot: { type: 'spot', position: [0, 0, 3], direction: [0, 0, -1], intensity_W_per_sr: 20, cone_angle_deg: 45,
          blend: 0.15, color: [1, 1, 1] },
  sun: { type: 'sun', direction_to_light: [0.4, -0.3, 0.87], strength_W_per_m2: 3, color: [1, 1, 1] },
};

const hex = (c) => '#' + c.map((v) => Math.round(255 * Math.min(1, Math.max(0, v))).toString(16).padStart(2, '0')).join('');
const unhex = (h) => [1, 3, 5].map((k) => parseInt(h.slice(k, k + 2), 16) / 255);

function el(tag, props = {}) {
  const e = document.createElement(tag);
  Object.assign(e, props);
  return e;
}

// Moves light `l` by (dx, dy) image pixels of camera `cam`.
export function dragLight(l, cam, dx, dy) {
  if (l.type === 'environment') return {};  // its map turns only in the light file
  const right = [cam.R[0], cam.R[1], cam.R[2]], down = [cam.R[3], cam.R[4], cam.R[5]];
  if (l.type === 'sun') {
    const k = 0.005;
    const d = l.direction.map((v, i) => v - k * (dx * right[i] + dy * down[i]));
    const n = Math.hypot(...d);
    return { direction: d.map((v) => v / n) };
  }
  const c = cameraCenter(cam);
  const f = [cam.R[6], cam.R[7], cam.R[8]];
  const z = Math.max(1e-3, f.reduce((s, fi, i) => s + fi * (l.position[i] - c[i]), 0));
  return { position: l.position.map((p, i) => p + (dx * z / cam.fx) * right[i] + (dy * z / cam.fy) * down[i]) };
}

export function wireLightEditor(lit, bar) {
  const state = lit.state;
  const pick = el('select', { id: 'light' });
  const on = el('input', { type: 'checkbox', id: 'light-on', title: 'on' });
  const color = el('input', { type: 'color', id: 'light-color' });
  const power = el('input', { type: 'number', id: 'light-power', step: 'any', min: 0, title: 'W/sr (sun: W/m²)' });
  const cone = el('input', { type: 'number', id: 'light-cone', step: 'any', min: 1, max: 180, title: 'cone °' });
  const blend = el('input', { type: 'number', id: 'light-blend', step: 0.05, min: 0, max: 1, title: 'blend' });
  const add = el('select', { id: 'light-add' });
  add.add(new Option('add…', ''));
  for (const k of Object.keys(kDefaults)) add.add(new Option(k, k));
  const remove = el('button', { id: 'light-remove', textContent: 'remove' });
  const move = el('input', { type: 'checkbox', id: 'light-move', title: 'drag moves the light' });
  const save = el('button', { id: 'lights-save', textContent: 'save lights.json' });
  const ambient = el('input', { type: 'number', id: 'ambient', step: 0.05, min: 0, title: 'ambient strength' });
  const label = (t, e) => { const l = el('label'); l.append(t + ' ', e); return l; };
  bar.append(label('ambient', ambient), label('light', pick), on, color, power, cone, blend, add, remove, label('move', move), save);

  const current = () => state.lights[Number(pick.value)];
  function refresh(keep) {
    pick.replaceChildren(...state.lights.map((l, i) => new Option(`${i} ${l.type}`, String(i))));
    if (keep !== undefined) pick.value = String(keep);
    show();
  }
  function show() {
    ambient.value = String(state.ambient.strength);
    const l = current();
    for (const e of [on, color, power, remove, move]) e.disabled = !l;
    cone.disabled = blend.disabled = !l || l.type !== 'spot';
    if (!l) return;
    on.checked = l.enabled;
    color.value = hex(l.color);
    power.value = String(l.type === 'sun' || l.type === 'environment' ? l.strength : l.intensity);
    if (l.type === 'spot') {
      cone.value = String(l.coneDeg);
      blend.value = String(l.blend);
    }
  }
  const edit = (patch) => {
    state.update(Number(pick.value), patch);
    lit.changed();
  };
  pick.addEventListener('change', show);
  ambient.addEventListener('change', () => {
    const v = Number(ambient.value);
    if (Number.isFinite(v) && v >= 0) {
      state.setAmbient(v);
      lit.changed();
    }
  });
  on.addEventListener('change', () => edit({ enabled: on.checked }));
  color.addEventListener('input', () => edit({ color: unhex(color.value) }));
  power.addEventListener('change', () => {
    const v = Number(power.value);
    if (Number.isFinite(v) && v >= 0) edit(current().type === 'sun' || current().type === 'environment' ? { strength: v } : { intensity: v });
  });
  cone.addEventListener('change', () => {
    const v = Number(cone.value);
    if (v > 0 && v <= 180) edit({ coneDeg: v });
  });
  blend.addEventListener('change', () => {
    const v = Number(blend.value);
    if (v >= 0 && v <= 1) edit({ blend: v });
  });
  add.addEventListener('change', () => {
    if (!add.value) return;
    const i = state.add(structuredClone(kDefaults[add.value]));
    add.value = '';
    refresh(i);
    lit.changed();
  });
  remove.addEventListener('click', () => {
    state.remove(Number(pick.value));
    refresh(0);
    lit.changed();
  });
  save.addEventListener('click', () => {
    const blob = new Blob([JSON.stringify(state.toJson(), null, 2) + '\n'], { type: 'application/json' });
    const a = el('a', { href: URL.createObjectURL(blob), download: 'lights.json' });
    a.click();
    URL.revokeObjectURL(a.href);
  });

  // Capture phase on the stage, so that with "move" checked the orbit controls of the
  // canvas never see the drag.
  const stage = document.getElementById('stage');
  const canvas = lit.viewer.canvas;
  let drag = null;
  stage.addEventListener('pointerdown', (e) => {
    if (!move.checked || !current()) return;
    e.stopPropagation();
    drag = { x: e.clientX, y: e.clientY };
    stage.setPointerCapture(e.pointerId);
  }, { capture: true });
  stage.addEventListener('pointermove', (e) => {
    if (!drag) return;
    e.stopPropagation();
    const k = lit.viewer.cam.width / Math.max(1, canvas.clientWidth);
    const dx = (e.clientX - drag.x) * k, dy = (e.clientY - drag.y) * k;
    drag = { x: e.clientX, y: e.clientY };
    edit(dragLight(current(), lit.viewer.cam, dx, dy));
  }, { capture: true });
  stage.addEventListener('pointerup', (e) => {
    if (drag) e.stopPropagation();
    drag = null;
  }, { capture: true });
  refresh(0);
  return { refresh: () => refresh(0) };
}

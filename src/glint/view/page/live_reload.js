// The live view of a model that changes while it is served (glint train --view): polls
// api/version and, when the version has moved on, fetches the model again and hands it to
// the viewer, which keeps its camera and view mode. A page served a fixed model (status
// null) never polls.
import { parseModelBlob, parseSplatAo } from './model_blob.js';

export const kPollMs = 1000;
const kRetryMs = 5000;  // after a failed poll: the server has gone, and may come back

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export async function fetchVersion() {
  const r = await fetch('api/version', { cache: 'no-store' });
  if (!r.ok) throw new Error(`api/version: HTTP ${r.status}`);
  return r.json();
}

// The model and the version it belongs to (the server sends it with every reply), with its
// per-splat AO (model.splatAo) when the server baked one for that same version: a model
// and its AO are published together, so a reply of another version means that a newer
// model has replaced both between the two requests, and the pair is fetched again.
// `requireAo`: a missing AO is an error (a fixed model always has one).
export async function fetchModel({ requireAo = false } = {}) {
  for (let attempt = 0; ; ++attempt) {
    const r = await fetch('api/model.bin', { cache: 'no-store' });
    if (!r.ok) throw new Error(`api/model.bin: HTTP ${r.status}`);
    const model = parseModelBlob(await r.arrayBuffer());
    const version = Number(r.headers.get('X-Glint-Version') || 0);
    const a = await fetch('api/splat_ao.bin', { cache: 'no-store' });
    if (!a.ok) {
      if (requireAo) throw new Error(`api/splat_ao.bin: HTTP ${a.status}`);
      return { model, version };
    }
    if (Number(a.headers.get('X-Glint-Version') || 0) === version) {
      model.splatAo = parseSplatAo(await a.arrayBuffer(), model.count);
      return { model, version };
    }
    if (attempt >= 2) return { model, version };  // publications faster than two fetches: no AO this time
  }
}

export function isLive(status) { return !!(status && status.live); }

export function describeStatus(s) {
  if (!isLive(s)) return '';
  if (s.state === 'starting') return 'training: waiting for the first step';
  if (s.state === 'watching') return `${s.file} · ${s.splats} splats · reloaded when the run writes it`;
  const psnr = s.test_psnr > 0 ? ` · test ${s.test_psnr.toFixed(2)} dB` : '';
  return `${s.state} · step ${s.step}/${s.steps} · ${s.splats} splats · loss ${s.loss.toFixed(4)}${psnr}`;
}

function show(status) {
  const el = document.getElementById('live');
  el.textContent = describeStatus(status);
  el.hidden = !isLive(status);
}

// Resolves with the first version that has a model (a run before its first step has none).
export async function waitForModel() {
  for (;;) {
    const v = await fetchVersion();
    show(v.status);
    if (!(isLive(v.status) && v.status.state === 'starting')) return v;
    await sleep(kPollMs);
  }
}

export class LiveReload {
  // `version`: the version of the model the viewer shows.
  constructor(viewer, version, status) {
    this.viewer = viewer;
    this.version = version;
    this.status = status;
    this.loads = 0;  // models fetched after the first
    this.lastLoad = null;  // the last one's fetch + parse, and its upload + first sort, ms
    this.busy = null;
    this.connected = true;
    show(status);
  }

  start() {
    const loop = async () => {
      await this.poll();
      this.timer = setTimeout(loop, this.connected ? kPollMs : kRetryMs);
    };
    this.timer = setTimeout(loop, kPollMs);
  }

  // One poll; a second call while one runs waits for that one.
  poll() {
    if (!this.busy) this.busy = this.pollOnce().finally(() => { this.busy = null; });
    return this.busy;
  }

  async pollOnce() {
    let v;
    try {
      v = await fetchVersion();
    } catch (e) {  // the run has ended and its server with it: say so, keep the last model
      this.connected = false;
      document.getElementById('live').textContent = 'disconnected: showing the last model';
      return;
    }
    this.connected = true;
    this.status = v.status;
    show(v.status);
    if (v.version <= this.version) return;
    const t0 = performance.now();
    const { model, version } = await fetchModel();
    const t1 = performance.now();
    await this.viewer.setModel(model);
    this.version = version;
    this.loads++;
    this.lastLoad = { fetchMs: t1 - t0, swapMs: performance.now() - t1 };
  }
}

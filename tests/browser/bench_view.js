// Frame and sort times of the viewer page in headless Chromium (SwiftShader here; on a
// machine with a GPU, drop --use-angle=swiftshader via CHROMIUM_GPU=1 to measure the GPU).
// A benchmark, never asserted:
//   node tests/browser/bench_view.js MODEL [--cameras DATASET] [--size WxH] [--frames N] [--mode color|depth|alpha|normal|albedo]
//   node tests/browser/bench_view.js MODEL --mode lit --lights LIGHTS.json [--setup NAME] [--shadows pcf|transmittance|none]
//        [--move-light] [--no-delight] [--normals fit|smooth|raw]   (the lit view; --move-light moves light 0 every frame, re-rendering
//        its maps; --no-delight shades with the capture as the albedo; --normals: how the shading normals are made, default fit)
//   node tests/browser/bench_view.js MODEL --mode albedo   (the de-lit albedo view)
//   node tests/browser/bench_view.js --random N [--size WxH] [--frames N]   (a random scene at the demo cameras)
// Each frame moves the camera a little (so every frame sorts), waits for the sort, draws
// and waits for the GPU; prints the median and the range of each over the frames, and
// (Linux) the CPU time Chromium's GPU process (SwiftShader) spent a frame, which other
// jobs on the machine move much less than the wall time.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { repoRoot, startView } from './lib/glint.js';
import { launchBrowser, openViewer } from './lib/browser.js';
import { randomSplats, writeSplatPly } from './lib/splat_ply.js';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const frames = Number(opt('--frames', '10'));
const size = opt('--size', '');
const mode = opt('--mode', 'color');
let model = args[0] && !args[0].startsWith('--') ? args[0] : null;
let cameras = opt('--cameras', model ? null : path.join(repoRoot, 'data/demo'));
let tmp = null;
if (!model) {
  const n = Number(opt('--random', '20000'));
  tmp = mkdtempSync(path.join(tmpdir(), 'glint-bench-view-'));
  model = path.join(tmp, 'random.ply');
  writeSplatPly(model, randomSplats({ count: n, lo: [-1.3, -1.3, -0.2], hi: [1.3, 1.3, 1.2], shDegree: 3, seed: 1 }));
}

// CPU ms (user + system) of this process's descendants that are Chromium GPU processes; null
// where /proc cannot tell.
function gpuProcessCpuMs() {
  try {
    const procs = new Map();
    for (const d of readdirSync('/proc')) {
      if (!/^\d+$/.test(d)) continue;
      try {
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8');
        procs.set(Number(d), { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]), gpu: cmd.includes('--type=gpu-process') });
      } catch { /* gone meanwhile */ }
    }
    const mine = (pid) => {
      for (let p = pid, k = 0; p > 1 && k < 8; p = procs.get(p)?.ppid ?? 0, ++k) if (p === process.pid) return true;
      return false;
    };
    let ticks = 0, found = false;
    for (const [pid, p] of procs) if (p.gpu && mine(pid)) { ticks += p.ticks; found = true; }
    return found ? ticks * 10 : null;  // USER_HZ 100
  } catch {
    return null;
  }
}

const lights = opt('--lights', null);
const lit = { setup: opt('--setup', null), shadows: opt('--shadows', 'pcf'), moveLight: args.includes('--move-light'),
              delight: !args.includes('--no-delight'), normals: opt('--normals', 'fit') };
const server = await startView([model, ...(cameras ? ['--cameras', cameras] : []), ...(lights ? ['--lights', lights] : [])]);
const browser = await launchBrowser();
try {
  const { page, errors } = await openViewer(browser.context, server.url);
  const info = await page.evaluate(() => window.glintTest.info());
  await page.evaluate(async ({ frames, size, mode, lit }) => {
    const t = window.glintTest;
    t.setMode(mode);
    if (mode === 'lit') {
      if (lit.setup) t.loadSetup(lit.setup);
      t.setShadows(lit.shadows);
      t.setDelight(lit.delight);
      t.setNormals(lit.normals);
    }
    const cams = t.cameras();
    let cam = cams.length ? { ...cams[0] } : t.camera();
    if (size) {
      const [w, h] = size.split('x').map(Number);
      const s = h / cam.height;  // keep the vertical field of view
      cam = { ...cam, width: w, height: h, fx: cam.fx * s, fy: cam.fy * s, cx: w / 2, cy: h / 2 };
    }
    window.__bench = { cam, lit };
    return null;
  }, { frames, size, mode, lit });
  const frame = (f) => page.evaluate(async ({ f }) => {
    const t = window.glintTest;
    const { cam, lit } = window.__bench;
    // a small turn about the camera's y axis: a new order every frame
    const a = 0.002 * f, c = Math.cos(a), s = Math.sin(a);
    const R = cam.R;
    const R2 = [c * R[0] - s * R[6], c * R[1] - s * R[7], c * R[2] - s * R[8], R[3], R[4], R[5],
                s * R[0] + c * R[6], s * R[1] + c * R[7], s * R[2] + c * R[8]];
    t.setCamera({ ...cam, R: R2 });
    if (lit.moveLight && t.lightIds().length) {
      const l = t.lights().lights[0];
      if (l.type === 'sun') t.updateLight(0, { direction: l.direction_to_light.map((v, k) => v + (k === 0 ? 1e-3 : 0)) });
      else t.updateLight(0, { position: l.position.map((v, k) => v + (k === 0 ? 1e-3 : 0)) });
    }
    return { st: await t.render(), width: cam.width, height: cam.height };
  }, { f });
  await frame(0);  // the first frame also compiles and warms up (and renders the shadow maps)
  const cpu0 = gpuProcessCpuMs();
  const result = { out: [] };
  for (let f = 1; f <= frames; ++f) {
    const r = await frame(f);
    result.out.push(r.st);
    result.width = r.width;
    result.height = r.height;
  }
  const cpu1 = gpuProcessCpuMs();
  const stat = (k) => {
    const v = result.out.map((s) => s[k]).sort((a, b) => a - b);
    return `${v[Math.floor(v.length / 2)].toFixed(1)} ms (${v[0].toFixed(1)}..${v[v.length - 1].toFixed(1)})`;
  };
  console.log(`${path.basename(model)}: ${info.splats} splats, SH ${info.shDegree}, ${result.width}x${result.height}, ` +
              `${info.renderer}`);
  console.log(`  ${mode}: frame ${stat('frameMs')}, sort ${stat('sortMs')}, drawn ${result.out[0].drawn}, ${frames} frames`);
  if (cpu0 !== null && cpu1 !== null)
    console.log(`  GPU process CPU time ${((cpu1 - cpu0) / frames).toFixed(0)} ms a frame (mean; all its threads)`);
  if (mode === 'lit')
    console.log(`  shadows ${lit.shadows}, de-light ${lit.delight}: shadow maps ${stat('shadowMs')} of the frame`);
  if (errors.length) console.log('  page errors:', errors);
} finally {
  await browser.close();
  await server.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
}

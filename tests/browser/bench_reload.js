// What a live-view reload costs the page (glint train --view, glint view RUN_FOLDER), in
// headless Chromium (SwiftShader here; CHROMIUM_GPU=1 for the machine's own GPU). A
// benchmark, never asserted:
//   node tests/browser/bench_reload.js [--splats N] [--sh-degree D] [--reloads K]
// Serves a run folder of N random splats at the demo cameras, rewrites its scene.ply K
// times, and prints each reload's fetch + parse time and its swap time (new textures,
// programs and the new model's first sort, until it is drawn).
import { mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { repoRoot, startView } from './lib/glint.js';
import { launchBrowser, openViewer } from './lib/browser.js';
import { randomSplats, writeSplatPly } from './lib/splat_ply.js';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const n = opt('--splats', 100000), degree = opt('--sh-degree', 3), reloads = opt('--reloads', 3);
const dir = mkdtempSync(path.join(tmpdir(), 'glint-bench-reload-'));
const write = (seed) => {
  const tmp = path.join(dir, 'scene.ply.tmp');
  writeSplatPly(tmp, randomSplats({ count: n, lo: [-1.3, -1.3, -0.2], hi: [1.3, 1.3, 1.2], shDegree: degree, seed }));
  renameSync(tmp, path.join(dir, 'scene.ply'));  // as glint train writes it
};
write(1);
const server = await startView([dir, '--cameras', path.join(repoRoot, 'data/demo')]);
const browser = await launchBrowser();
try {
  const { page } = await openViewer(browser.context, server.url);
  await page.evaluate(() => window.glintTest.snapTo(0));
  await page.evaluate(() => window.glintTest.render());
  for (let k = 1; k <= reloads; ++k) {
    write(1 + k);
    const r = await page.waitForFunction((want) => {
      const l = window.glintTest.live();
      return l.loads >= want && l.lastLoad;
    }, k, { timeout: 120000, polling: 50 });
    const last = await r.jsonValue();
    console.log(`reload ${k}: ${n} splats, SH ${degree}: fetch + parse ${last.fetchMs.toFixed(0)} ms, ` +
                `swap ${last.swapMs.toFixed(0)} ms`);
  }
} finally {
  await browser.close();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}

// PSNR of the viewer page against `glint render` at every test camera of a dataset, for any
// model (the browser test does the same on its own scene with thresholds):
//   node tests/browser/parity_view.js MODEL DATASET
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { runGlint, startView } from './lib/glint.js';
import { launchBrowser, openViewer, readTarget } from './lib/browser.js';
import { readPng, readPfm, parityWithRender } from './lib/images.js';

const [model, dataset] = process.argv.slice(2);
const out = mkdtempSync(path.join(tmpdir(), 'glint-parity-'));
const r = runGlint(['render', model, dataset, '-o', out, '--split', 'test', '--aov', 'rgb,alpha', '-f']);
if (r.code !== 0) throw new Error(r.stderr);
const server = await startView([model, '--cameras', dataset]);
const browser = await launchBrowser();
try {
  const { page, errors } = await openViewer(browser.context, server.url);
  const cams = await page.evaluate(() => window.glintTest.cameras());
  let k = 0;
  for (let i = 0; i < cams.length; ++i) {
    if (cams[i].split !== 'test') continue;
    const stem = path.parse(cams[i].name).name;
    const file = (suffix) => path.join(out, `${stem}${suffix}`);
    await page.evaluate((j) => window.glintTest.snapTo(j), i);
    await page.evaluate(() => window.glintTest.render());
    const t = await readTarget(page);
    const png = readPng(file('.png')), alpha = readPfm(file('_alpha.pfm'));
    const db = parityWithRender(t, png, alpha);
    console.log(`${cams[i].name}: RGB ${db.rgb.toFixed(1)} dB, alpha ${db.alpha.toFixed(1)} dB`);
    ++k;
  }
  console.log(`${k} test views${errors.length ? '; page errors: ' + errors.join('; ') : ''}`);
} finally {
  await browser.close();
  await server.stop();
  rmSync(out, { recursive: true, force: true });
}

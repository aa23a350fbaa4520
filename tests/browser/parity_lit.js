// PSNR of the viewer page's lit view against `glint relight` at every test camera of a
// dataset, per light setup, for any model (lit.test.js does the same on its own scene):
//   node tests/browser/parity_lit.js MODEL DATASET LIGHTS.json [glint relight flags...]
// The page de-lights as glint relight does, renders expected-depth maps and puts every
// pixel at its expected depth, so pass --shadow-depth expected --mixed-depth 0 for
// like-for-like; --shadows (default pcf), --no-delight and
// --normals splats (with --normal-smooth 0: the page's raw normals) are also applied to the
// page. Setups the page has no light of are skipped (environment
// lights of a live model, which glint view does not split).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { runGlint, startView } from './lib/glint.js';
import { launchBrowser, openViewer, readTarget } from './lib/browser.js';
import { readPng, litPsnr } from './lib/images.js';

const [model, dataset, lights, ...flags] = process.argv.slice(2);
const at = flags.indexOf('--shadows');
const shadows = at >= 0 ? flags[at + 1] : 'pcf';
const delight = !flags.includes('--no-delight');
const nat = flags.indexOf('--normals');
const sat = flags.indexOf('--normal-smooth');
const normals = nat < 0 || flags[nat + 1] === 'fit' ? 'fit' : sat >= 0 && Number(flags[sat + 1]) === 0 ? 'raw' : 'smooth';
const out = mkdtempSync(path.join(tmpdir(), 'glint-lit-parity-'));
const r = runGlint(['relight', model, '--cameras', dataset, '--lights', lights, '--split', 'test', '-o', out, '-f',
                    ...flags]);
if (r.code !== 0) throw new Error(r.stderr);
const server = await startView([model, '--cameras', dataset, '--lights', lights]);
const browser = await launchBrowser();
try {
  const { page, errors } = await openViewer(browser.context, server.url);
  const cams = await page.evaluate(() => window.glintTest.cameras());
  const setups = await page.evaluate(() => window.glintTest.setups());
  for (const setup of setups) {
    const skipped = await page.evaluate((s) => {
      window.glintTest.loadSetup(s);
      return window.glintTest.lights().lights.length === 0;
    }, setup);
    if (skipped) {
      console.log(`${setup}: skipped (no light the page shades)`);
      continue;
    }
    const dbs = [];
    for (let i = 0; i < cams.length; ++i) {
      if (cams[i].split !== 'test') continue;
      await page.evaluate(({ s, k, i, delight, normals }) => {
        const g = window.glintTest;
        g.setMode('lit');
        g.loadSetup(s);
        g.setShadows(k);
        g.setDelight(delight);
        g.setNormals(normals);
        g.snapTo(i);
      }, { s: setup, k: shadows, i, delight, normals });
      await page.evaluate(() => window.glintTest.render());
      const t = await readTarget(page);
      dbs.push(litPsnr(t, readPng(path.join(out, setup, `${path.parse(cams[i].name).name}.png`))));
    }
    const mean = dbs.reduce((s, v) => s + v, 0) / dbs.length;
    console.log(`${setup} (${shadows}): mean ${mean.toFixed(2)} dB, min ${Math.min(...dbs).toFixed(2)} dB over ` +
                `${dbs.length} test views`);
  }
  if (errors.length) console.log('page errors: ' + errors.join('; '));
} finally {
  await browser.close();
  await server.stop();
  rmSync(out, { recursive: true, force: true });
}

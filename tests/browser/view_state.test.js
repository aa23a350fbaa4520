// What a person keeps of a view: the URL (camera and mode round-trip through its hash, so
// that reloading it gives the same pixels) and a screenshot PNG.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { repoRoot, startView } from './lib/glint.js';
import { launchBrowser, openViewer, readTarget } from './lib/browser.js';
import { randomSplats, writeSplatPly } from './lib/splat_ply.js';
import { readPng } from './lib/images.js';

const demo = path.join(repoRoot, 'data/demo');
let dir, browser, server;

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'glint-view-state-'));
  const model = path.join(dir, 'scene.ply');
  writeSplatPly(model, randomSplats({ count: 2000, lo: [-1.3, -1.3, -0.2], hi: [1.3, 1.3, 1.2], shDegree: 1, seed: 11 }));
  server = await startView([model, '--cameras', demo]);
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const sameBytes = (a, b) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));

async function waitForHash(page, wanted) {
  await page.waitForFunction((w) => location.hash === '#' + w, wanted, { timeout: 10000 });
}

test('URL state: an orbit camera and a view mode reload to the same pixels', async () => {
  const { page, errors } = await openViewer(browser.context, server.url);
  const box = await page.locator('#canvas').boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 + 70, box.y + box.height / 2 - 25, { steps: 5 });
  await page.mouse.up();
  await page.mouse.wheel(0, -200);
  await page.selectOption('#mode', 'depth');
  const state = await page.evaluate(() => window.glintTest.urlState());
  assert.match(state, /^mode=depth&orbit=/);
  await waitForHash(page, state);
  await page.evaluate(() => window.glintTest.render());
  const before = await readTarget(page);
  const cam = await page.evaluate(() => window.glintTest.camera());
  const url = page.url();
  await page.close();

  const again = await openViewer(browser.context, url);
  assert.equal(await again.page.inputValue('#mode'), 'depth');
  assert.equal(await again.page.inputValue('#camera'), '-1');
  assert.deepEqual(await again.page.evaluate(() => window.glintTest.camera()), cam);
  await again.page.evaluate(() => window.glintTest.render());
  const after = await readTarget(again.page);
  assert.ok(before.rgba.some((v, k) => k % 4 === 3 && v > 0.5), 'nothing drawn');
  assert.ok(sameBytes(before.rgba, after.rgba), 'the reloaded URL gives other pixels');
  assert.deepEqual([...errors, ...again.errors], []);
  await again.page.close();
});

test('URL state: a dataset camera and the normals view; a bad hash is reported, not fatal', async () => {
  const { page, errors } = await openViewer(browser.context, server.url + '#mode=normal&cam=65');
  assert.equal(await page.inputValue('#mode'), 'normal');
  assert.equal(await page.inputValue('#camera'), '65');
  const cams = await page.evaluate(() => window.glintTest.cameras());
  const cam = await page.evaluate(() => window.glintTest.camera());
  assert.deepEqual(cam.R, cams[65].R);
  await page.evaluate(() => window.glintTest.render());
  const first = await readTarget(page);
  await page.selectOption('#camera', '2');
  await waitForHash(page, 'mode=normal&cam=2');
  await page.evaluate(() => { location.hash = 'mode=normal&cam=65'; });  // typed into the address bar
  await page.waitForFunction(() => document.getElementById('camera').value === '65');
  await page.evaluate(() => window.glintTest.render());
  assert.ok(sameBytes(first.rgba, (await readTarget(page)).rgba));
  assert.deepEqual(errors, []);
  await page.close();

  const warned = [];
  const bad = await browser.context.newPage();
  bad.on('console', (m) => { if (m.type() === 'warning') warned.push(m.text()); });
  await bad.goto(server.url + '#mode=sepia&cam=999&orbit=1,2');
  await bad.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 120000 });
  assert.equal(await bad.inputValue('#mode'), 'color');
  assert.ok(warned.some((w) => w.includes('mode=sepia') && w.includes('cam=999')), warned.join('; '));
  await bad.close();
});

test('screenshot: the button downloads a PNG of the view at the camera image size', async () => {
  const { page, errors } = await openViewer(browser.context, server.url + '#mode=color&cam=60');
  const cam = await page.evaluate(() => window.glintTest.camera());
  await page.evaluate(() => window.glintTest.render());
  const target = await readTarget(page);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#shot')]);
  assert.match(download.suggestedFilename(), /^glint-color-.*\.png$/);
  const file = path.join(dir, 'shot.png');
  await download.saveAs(file);
  const png = readPng(file);
  assert.equal(png.width, cam.width);
  assert.equal(png.height, cam.height);
  // The PNG is what the canvas shows: the float target clamped to 8 bits.
  let worst = 0;
  for (let p = 0; p < png.width * png.height; ++p)
    for (let c = 0; c < 3; ++c) {
      const want = Math.round(255 * Math.min(1, Math.max(0, target.rgba[4 * p + c])));
      worst = Math.max(worst, Math.abs(Math.round(255 * png.data[p * png.channels + c]) - want));
    }
  assert.ok(worst <= 1, `screenshot differs from the target by ${worst}/255`);
  // The P key saves one too.
  const [second] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('p')]);
  assert.match(second.suggestedFilename(), /\.png$/);
  assert.deepEqual(errors, []);
  await page.close();
});

// The live view of a training run (glint train --view): the page follows the run's model
// as it trains, keeping its camera; training's Ctrl-C still checkpoints.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import net from 'node:net';
import path from 'node:path';

import { repoRoot, runGlint, startTrainView, startView } from './lib/glint.js';
import { launchBrowser, openViewer } from './lib/browser.js';
import { randomSplats, writeSplatPly } from './lib/splat_ply.js';

const demo = path.join(repoRoot, 'data/demo');
let dir, browser;

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'glint-live-test-'));
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function getJson(url) {
  const r = await fetch(url);
  assert.equal(r.status, 200, url);
  return r.json();
}

test('train --view: the page picks up new model versions, keeps its camera, and ends on the final model', async () => {
  const out = path.join(dir, 'run');
  // Densification from step 20 every 20 steps: the splat count changes while the page watches.
  const run = await startTrainView([demo, '-o', out, '--steps', '240', '--schedule-steps', '240', '--densify-from', '20',
                                    '--densify-every', '20', '--view-every', '0.3', '-q', '--threads', '1']);
  try {
    const { page, errors } = await openViewer(browser.context, run.url);
    assert.equal(await page.evaluate(() => document.body.dataset.ready), 'true', errors.join('; '));
    const first = await page.evaluate(() => window.glintTest.live());
    assert.ok(first, 'the page did not start its live reload');
    assert.equal(first.status.live, true);
    await page.evaluate(() => window.glintTest.snapTo(3));
    const cam = await page.evaluate(() => window.glintTest.camera());
    // Polls by hand (the page's own timer polls too) until a newer model has been drawn.
    let now = first;
    for (let k = 0; k < 600 && now.loads === 0; ++k) {
      await page.evaluate(() => window.glintTest.pollLive());
      now = await page.evaluate(() => window.glintTest.live());
      if (now.loads === 0) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(now.loads > 0 && now.version > first.version, `no new model: ${JSON.stringify(now)}`);
    assert.ok(now.status.step > first.status.step, `step ${first.status.step} -> ${now.status.step}`);
    assert.deepEqual(await page.evaluate(() => window.glintTest.camera()), cam, 'the camera changed with the model');
    const stats = await page.evaluate(() => window.glintTest.render());
    assert.ok(stats.drawn > 0);

    // The run ends: the page ends on the final model, the one scene.ply holds.
    for (let k = 0; k < 1200 && now.status.state !== 'done'; ++k) {
      await new Promise((r) => setTimeout(r, 100));
      await page.evaluate(() => window.glintTest.pollLive());
      now = await page.evaluate(() => window.glintTest.live());
    }
    assert.equal(now.status.state, 'done', JSON.stringify(now.status));
    assert.equal(now.status.step, 240);
    const info = await page.evaluate(() => window.glintTest.info());
    assert.equal(info.splats, now.status.splats);
    // Each snapshot is served with its per-splat AO (baked off the training thread), the
    // pair under one version, and the page took it (the lit views de-light with it).
    assert.equal(info.splatAo, true);
    const [m, ao] = await Promise.all([fetch(run.url + 'api/model.bin'), fetch(run.url + 'api/splat_ao.bin')]);
    assert.equal(ao.status, 200);
    assert.equal(ao.headers.get('X-Glint-Version'), m.headers.get('X-Glint-Version'));
    assert.equal(new DataView(await ao.arrayBuffer()).getUint32(8, true), info.splats);
    await page.evaluate(() => window.glintTest.setMode('lit'));
    assert.equal((await page.evaluate(() => window.glintTest.render())).ao, 'splat');
    await page.evaluate(() => window.glintTest.setMode('color'));
    // The server keeps serving after training until Ctrl-C.
    for (let k = 0; k < 600 && !run.output().includes('serving the final model'); ++k)
      await new Promise((r) => setTimeout(r, 100));
    assert.match(run.output(), /serving the final model/);
    assert.ok(existsSync(path.join(out, 'scene.ply')));
    const v = await getJson(run.url + 'api/version');
    assert.equal(v.status.state, 'done');
    console.log(`live: ${now.loads} reloads seen, versions ${first.version} -> ${now.version}, ` +
                `splats ${first.status.splats} -> ${now.status.splats}`);
    assert.deepEqual(errors, []);
    await page.close();
    run.proc.kill('SIGINT');
    const { code } = await run.exited;
    assert.equal(code, 0, run.output());
  } finally {
    run.proc.kill('SIGKILL');
  }
});

test('train --view: Ctrl-C while training still writes the checkpoint and exits 130', async () => {
  const out = path.join(dir, 'interrupted');
  const run = await startTrainView([demo, '-o', out, '--steps', '100000', '--view-every', '0.2', '-q', '--threads', '1']);
  try {
    let v;
    for (let k = 0; k < 600; ++k) {
      v = await getJson(run.url + 'api/version');
      if (v.status.state === 'training') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(v.status.state, 'training');
    run.proc.kill('SIGINT');
    const { code } = await run.exited;
    assert.equal(code, 130, run.output());
    assert.match(run.output(), /interrupted at step \d+/);
    assert.ok(existsSync(path.join(out, 'checkpoint.glintckp')), run.output());
    assert.ok(existsSync(path.join(out, 'scene.ply')));
  } finally {
    run.proc.kill('SIGKILL');
  }
});

// Which AO a lit frame of the page de-lit with ('splat': baked per splat by the server,
// 'pixel': the per-pixel passes), and whether the model drawn came with its AO.
async function litAo(page) {
  const mode = await page.evaluate(() => document.getElementById('mode').value);
  await page.evaluate(() => window.glintTest.setMode('lit'));
  const stats = await page.evaluate(() => window.glintTest.render());
  await page.evaluate((m) => window.glintTest.setMode(m), mode);
  return { ao: stats.ao, splatAo: (await page.evaluate(() => window.glintTest.info())).splatAo };
}

test('view RUN_FOLDER: serves the newest model of the folder and reloads it when the run writes a new one', async () => {
  const run = path.join(dir, 'folder');
  mkdirSync(run);
  const ply = path.join(run, 'scene.ply');
  writeSplatPly(ply, randomSplats({ count: 300, lo: [-1, -1, -0.2], hi: [1, 1, 1], shDegree: 0, seed: 5 }));
  const server = await startView([run, '--cameras', demo, '--lights', path.join(demo, 'lights.json')]);
  try {
    const { page, errors } = await openViewer(browser.context, server.url);
    const first = await page.evaluate(() => window.glintTest.live());
    assert.equal(first.status.state, 'watching');
    assert.equal(first.status.splats, 300);
    // Each model is served with its per-splat AO, which the lit view de-lights with (no
    // per-pixel AO passes).
    assert.deepEqual(await litAo(page), { ao: 'splat', splatAo: true });
    const ao = await (await fetch(server.url + 'api/splat_ao.bin')).arrayBuffer();
    assert.equal(new DataView(ao).getUint32(8, true), 300);
    await page.evaluate(() => window.glintTest.snapTo(1));
    const cam = await page.evaluate(() => window.glintTest.camera());
    // As glint train writes it: a whole file renamed into place.
    const tmp = path.join(run, 'scene.ply.tmp');
    writeSplatPly(tmp, randomSplats({ count: 500, lo: [-1, -1, -0.2], hi: [1, 1, 1], shDegree: 1, seed: 6 }));
    renameSync(tmp, ply);
    let now = first;
    for (let k = 0; k < 300 && now.loads === 0; ++k) {
      await new Promise((r) => setTimeout(r, 100));
      await page.evaluate(() => window.glintTest.pollLive());
      now = await page.evaluate(() => window.glintTest.live());
    }
    assert.equal(now.loads, 1, JSON.stringify(now));
    const info = await page.evaluate(() => window.glintTest.info());
    assert.equal(info.splats, 500);
    assert.equal(info.shDegree, 1);
    assert.deepEqual(await litAo(page), { ao: 'splat', splatAo: true });
    const ao2 = await fetch(server.url + 'api/splat_ao.bin');
    const model2 = await fetch(server.url + 'api/model.bin');
    assert.equal(ao2.headers.get('X-Glint-Version'), model2.headers.get('X-Glint-Version'));
    assert.equal(new DataView(await ao2.arrayBuffer()).getUint32(8, true), 500);
    assert.deepEqual(await page.evaluate(() => window.glintTest.camera()), cam);
    // all 500 are in front of the camera, and the order drawn is the new model's
    assert.equal((await page.evaluate(() => window.glintTest.render())).drawn, 500);
    assert.match(server.output(), /reloaded .*scene\.ply \(500 splats\)/);
    assert.deepEqual(errors, []);
    // The server goes: the page says so and keeps drawing the last model.
    const { code } = await server.stop();
    assert.equal(code, 0);
    await page.evaluate(() => window.glintTest.pollLive());
    assert.match(await page.textContent('#live'), /disconnected/);
    assert.equal((await page.evaluate(() => window.glintTest.render())).drawn, 500);
    await page.close();
  } finally {
    if (server.proc.exitCode === null) await server.stop();
  }
  // A folder with no model is a one-line error and exit 2.
  const empty = path.join(dir, 'empty');
  mkdirSync(empty);
  const r = runGlint(['view', empty, '--port', '0']);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr.trim(), /^glint: error: .*empty.*not a glint train output/);
});

test('train --view on a port that is taken: one line naming it, exit 2, no training', async () => {
  const taken = net.createServer();
  await new Promise((r) => taken.listen(0, '127.0.0.1', r));
  const port = taken.address().port;
  try {
    const r = runGlint(['train', demo, '-o', path.join(dir, 'taken'), '--steps', '10', '--view', '--view-port', String(port)]);
    assert.equal(r.code, 2, r.stderr);
    const lines = r.stderr.trim().split('\n').filter((l) => !l.startsWith('dataset:') && !l.startsWith('glint: --backend auto:'));
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0], new RegExp(`^glint: error: .*--view-port ${port}.*cannot bind`));
    assert.ok(!existsSync(path.join(dir, 'taken', 'scene.ply')));
  } finally {
    taken.close();
  }
});

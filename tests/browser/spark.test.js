// Glint's .spz in a real third-party reader: Spark (npm @sparkjsdev/spark, on three.js) in
// headless Chromium draws the .spz `glint convert` writes as it draws the PLY Glint writes of
// the same model, and Glint reads the .spz that Spark's own encoder writes back within the
// format's bounds. The page's modules are served from node_modules through playwright's
// routing, so nothing reaches the network.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { launchBrowser } from './lib/browser.js';
import { runGlint, startView } from './lib/glint.js';
import { psnr, readPng } from './lib/images.js';
import { randomSplats, writeSplatPly } from './lib/splat_ply.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const modules = path.join(here, 'node_modules');
const SIZE = 200;

const page = `<!doctype html><html><body style="margin:0">
<script type="importmap">{"imports": {"three": "/three/build/three.module.js", "three/addons/": "/three/examples/jsm/"}}</script>
<script type="module">
import * as THREE from 'three';
import { SparkRenderer, SplatMesh, transcodeSpz } from '/spark/dist/spark.module.js';
const renderer = new THREE.WebGLRenderer({ antialias: false, preserveDrawingBuffer: true });
renderer.setSize(${SIZE}, ${SIZE});
renderer.setClearColor(0x000000, 1);
document.body.appendChild(renderer.domElement);
// The pixels of the model at url, seen from (0, 0, 4) looking at the origin.
window.draw = async (url) => {
  const scene = new THREE.Scene();
  scene.add(new SparkRenderer({ renderer }));
  const camera = new THREE.PerspectiveCamera(50, 1, 0.05, 100);
  camera.position.set(0, 0, 4);
  camera.lookAt(0, 0, 0);
  const mesh = new SplatMesh({ url });
  await mesh.initialized;
  scene.add(mesh);
  // frames until the picture settles: the sort runs in a worker and lands on a later frame
  const gl = renderer.getContext();
  const px = new Uint8Array(${SIZE} * ${SIZE} * 4);
  let last = -1, same = 0;
  for (let i = 0; i < 100 && same < 2; ++i) {
    renderer.render(scene, camera);
    gl.readPixels(0, 0, ${SIZE}, ${SIZE}, gl.RGBA, gl.UNSIGNED_BYTE, px);
    let sum = 0;
    for (let k = 0; k < px.length; k += 4) sum += px[k] + px[k + 1] + px[k + 2];
    same = sum > 0 && sum === last ? same + 1 : 0;
    last = sum;
    await new Promise((r) => setTimeout(r, 30));
  }
  scene.remove(mesh);
  mesh.dispose();
  return Array.from(px);
};
// Spark's own .spz of the file at url, as bytes (base64).
window.transcode = async (url) => {
  const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
  const { fileBytes } = await transcodeSpz({ inputs: [{ fileBytes: bytes, pathOrUrl: url }], maxSh: 3 });
  let s = '';
  for (const b of fileBytes) s += String.fromCharCode(b);
  return btoa(s);
};
window.ready = true;
</script></body></html>`;

async function openSpark(context, files) {
  const p = await context.newPage();
  const errors = [];
  p.on('pageerror', (e) => errors.push(String(e)));
  await p.route('http://spark.test/**', async (route) => {
    const url = new URL(route.request().url());
    const types = { '.js': 'text/javascript', '.html': 'text/html' };
    if (url.pathname === '/') return route.fulfill({ body: page, contentType: 'text/html' });
    if (files[url.pathname]) return route.fulfill({ body: readFileSync(files[url.pathname]), contentType: 'application/octet-stream' });
    const m = /^\/(three|spark)\/(.*)$/.exec(url.pathname);
    if (m) {
      const root = m[1] === 'three' ? path.join(modules, 'three') : path.join(modules, '@sparkjsdev/spark');
      const file = path.join(root, m[2]);
      if (file.startsWith(root)) {
        try {
          return route.fulfill({ body: readFileSync(file), contentType: types[path.extname(file)] || 'application/octet-stream' });
        } catch { /* fall through: 404 */ }
      }
    }
    return route.fulfill({ status: 404, body: 'not found' });
  });
  await p.goto('http://spark.test/');
  await p.waitForFunction(() => window.ready === true, null, { timeout: 60000 });
  return { page: p, errors };
}

// The fraction of pixels anything was drawn on, and the PSNR of b against a (RGB).
function compare(a, b) {
  let lit = 0, litB = 0, se = 0;
  for (let i = 0; i < a.length; i += 4) {
    if (a[i] + a[i + 1] + a[i + 2] > 6) ++lit;
    if (b[i] + b[i + 1] + b[i + 2] > 6) ++litB;
    for (let c = 0; c < 3; ++c) se += ((a[i + c] - b[i + c]) / 255) ** 2;
  }
  const mse = se / (3 * (a.length / 4));
  return { lit: lit / (a.length / 4), litB: litB / (a.length / 4), psnr: 10 * Math.log10(1 / mse) };
}

test('Spark draws the .spz Glint writes as it draws Glint\'s PLY of the model, and Glint reads Spark\'s .spz', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'glint-spark-'));
  const browser = await launchBrowser();
  try {
    const model = randomSplats({ count: 1500, lo: [-1, -1, -1], hi: [1, 1, 1], shDegree: 3, seed: 7 });
    writeSplatPly(path.join(dir, 'in.ply'), model);
    for (const out of ['model.ply', 'model.spz']) {
      const r = runGlint(['convert', path.join(dir, 'in.ply'), path.join(dir, out)]);
      assert.equal(r.code, 0, r.stderr);
    }
    const { page: p, errors } = await openSpark(browser.context, {
      '/model.ply': path.join(dir, 'model.ply'), '/model.spz': path.join(dir, 'model.spz'),
    });
    const ply = await p.evaluate(() => window.draw('/model.ply'));
    const spz = await p.evaluate(() => window.draw('/model.spz'));
    const c = compare(ply, spz);
    console.log(`Spark, ${SIZE}x${SIZE}: PLY lit ${(100 * c.lit).toFixed(1)}%, .spz lit ${(100 * c.litB).toFixed(1)}%, ` +
                `.spz against PLY ${c.psnr.toFixed(2)} dB`);
    assert.ok(c.lit > 0.2, `Spark drew too little of the PLY: ${c.lit}`);
    assert.ok(Math.abs(c.litB - c.lit) < 0.02, `coverage differs: ${c.lit} vs ${c.litB}`);
    assert.ok(c.psnr > 30, `Spark's .spz render differs from its PLY render: ${c.psnr} dB`);

    // Spark's encoder writes a .spz of the PLY; Glint reads it
    const b64 = await p.evaluate(() => window.transcode('/model.ply'));
    writeFileSync(path.join(dir, 'spark.spz'), Buffer.from(b64, 'base64'));
    const info = runGlint(['info', path.join(dir, 'spark.spz')]);
    assert.equal(info.code, 0, info.stderr);
    assert.match(info.stdout, /splats\s+1500/);
    assert.match(info.stdout, /SH degree\s+3/);
    // ... as the model it came from: glint render draws Spark's .spz as the PLY
    const cams = path.join(dir, 'cameras.json');
    writeFileSync(cams, JSON.stringify([{ id: 0, img_name: 'front', width: 160, height: 160, position: [0, 0, -4],
                                          rotation: [[1, 0, 0], [0, 1, 0], [0, 0, 1]], fx: 170, fy: 170 }]));
    for (const m of ['model.ply', 'spark.spz']) {
      const r = runGlint(['render', path.join(dir, m), cams, '-o', path.join(dir, `render_${m}`)]);
      assert.equal(r.code, 0, r.stderr);
    }
    const d = psnr(readPng(path.join(dir, 'render_model.ply/front.png')).data,
                   readPng(path.join(dir, 'render_spark.spz/front.png')).data);
    console.log(`glint render of Spark's .spz against the PLY: ${d.toFixed(2)} dB`);
    assert.ok(d > 30, `Glint reads Spark's .spz wrong: ${d} dB against the PLY`);
    assert.deepEqual(errors, []);
    await p.close();
    // glint view serves a .spz as any model
    const view = await startView([path.join(dir, 'model.spz')]);
    assert.match(view.output(), /1500 splats/);
    assert.equal((await view.stop()).code, 0);
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

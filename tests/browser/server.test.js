// `glint view` as a server, without a browser: bad input never serves, nothing outside the
// served files is reachable, and Ctrl-C stops it cleanly.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync, readFileSync, chmodSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import http from 'node:http';
import path from 'node:path';

import { repoRoot, runGlint, startView } from './lib/glint.js';
import { randomSplats, writeSplatPly } from './lib/splat_ply.js';

let dir, model;

before(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'glint-view-server-'));
  model = path.join(dir, 'scene.ply');
  writeSplatPly(model, randomSplats({ count: 50, lo: [-1, -1, -1], hi: [1, 1, 1], shDegree: 0, seed: 3 }));
});
after(() => rmSync(dir, { recursive: true, force: true }));

// A raw request: the path goes out byte for byte (no client-side normalisation of '..').
function rawGet(url, rawPath, { method = 'GET', headers = {}, body } = {}) {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, method, path: rawPath, headers, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('latin1') }));
    });
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

test('a bad or missing model: one line naming the file, exit 2, no server', () => {
  const truncated = path.join(dir, 'truncated.ply');
  writeFileSync(truncated, readFileSync(model).subarray(0, 900));
  const notSplats = path.join(repoRoot, 'data/demo/points3d.ply');  // a point cloud, no f_dc_*
  const wrongExt = path.join(dir, 'scene.txt');
  writeFileSync(wrongExt, 'hello');
  for (const bad of [path.join(dir, 'missing.ply'), truncated, notSplats, wrongExt]) {
    const r = runGlint(['view', bad, '--port', '0']);
    assert.equal(r.code, 2, `${bad}: exit ${r.code}, ${r.stderr}`);
    assert.doesNotMatch(r.stdout, /http:\/\//, `${bad}: it served`);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0], /^glint: error: /);
    assert.ok(lines[0].includes(bad), `${lines[0]} does not name ${bad}`);
  }
});

test('a .splat file is served as the same model blob layout', async () => {
  const splat = path.join(dir, 'scene.splat');
  const c = runGlint(['convert', model, splat]);
  assert.equal(c.code, 0, c.stderr);
  const s = await startView([splat]);
  try {
    const r = await new Promise((resolve, reject) => {
      http.get(s.url + 'api/model.bin', { agent: false }, (res) => {
        const chunks = [];
        res.on('data', (d) => chunks.push(d));
        res.on('end', () => resolve(Buffer.concat(chunks)));
      }).on('error', reject);
    });
    assert.equal(r.toString('latin1', 0, 4), 'GLVW');
    assert.equal(r.readUInt32LE(8), 50);  // splats
    assert.equal(r.readUInt32LE(12), 0);  // .splat carries SH degree 0
    assert.equal(r.readUInt32LE(16), 0);  // flags: not antialiased
    assert.equal(r.length, 20 + 50 * 14 * 4);
  } finally {
    assert.equal((await s.stop()).code, 0);
  }
});

test('--cameras cameras.json: its cameras are served in the renderer\'s convention', async () => {
  const cams = path.join(dir, 'cameras.json');
  // graphdeco layout: rotation is camera-to-world, position the camera centre
  writeFileSync(cams, JSON.stringify([
    { id: 0, img_name: 'front', width: 64, height: 48, position: [0, 0, -4], rotation: [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
      fx: 50, fy: 50 },
    { id: 1, img_name: 'side', width: 64, height: 48, position: [4, 0, 0], rotation: [[0, 0, -1], [0, 1, 0], [1, 0, 0]],
      fx: 50, fy: 50, cx: 30, cy: 20 },
  ]));
  const s = await startView([model, '--cameras', cams]);
  try {
    const r = await new Promise((resolve, reject) => {
      http.get(s.url + 'api/cameras.json', { agent: false }, (res) => {
        let body = '';
        res.on('data', (d) => { body += d; });
        res.on('end', () => resolve(JSON.parse(body)));
      }).on('error', reject);
    });
    assert.equal(r.cameras.length, 2);
    const [a, b] = r.cameras;
    assert.equal(a.name, 'front');
    assert.equal(a.split, 'cameras');
    assert.deepEqual([a.width, a.height, a.fx, a.cx, a.cy], [64, 48, 50, 32, 24]);  // centred when cx/cy are absent
    const near = (x, y, what) => x.forEach((v, k) => assert.ok(Math.abs(v - y[k]) < 1e-12, `${what}[${k}] = ${v}`));
    near(a.R, [1, 0, 0, 0, 1, 0, 0, 0, 1], 'front R');
    near(a.t, [0, 0, 4], 'front t');  // t = -R c
    near(b.R, [0, 0, 1, 0, 1, 0, -1, 0, 0], 'side R');  // world-to-camera: the transpose
    assert.deepEqual([b.cx, b.cy], [30, 20]);
    for (let k = 0; k < 3; ++k) {
      const t = -(b.R[3 * k] * 4);  // -R c with c = (4, 0, 0)
      assert.ok(Math.abs(b.t[k] - t) < 1e-12, `t[${k}] = ${b.t[k]}`);
    }
  } finally {
    assert.equal((await s.stop()).code, 0);
  }
});

test('a port already being served: exit 2, naming the port; free again after Ctrl-C', async () => {
  const s = await startView([model]);
  const port = new URL(s.url).port;
  try {
    const r = runGlint(['view', model, '--port', port]);
    assert.equal(r.code, 2, `exit ${r.code}: ${r.stdout} ${r.stderr}`);
    assert.doesNotMatch(r.stdout, /http:\/\//);
    assert.match(r.stderr, new RegExp(`^glint: error: --port ${port}: cannot bind`));
    assert.equal((await rawGet(s.url, '/')).status, 200);  // served a request, so it has connections behind it
  } finally {
    assert.equal((await s.stop()).code, 0);
  }
  const again = await startView([model], { port });
  assert.equal(new URL(again.url).port, port);
  assert.equal((await again.stop()).code, 0);
});

test('bad --lights or --cameras: exit 2 before serving', () => {
  const lights = path.join(dir, 'lights.json');
  writeFileSync(lights, '{"lights": [{"type": "lamp"}]}');
  for (const args of [['--lights', lights], ['--lights', path.join(dir, 'nope.json')], ['--cameras', path.join(dir, 'nope')]]) {
    const r = runGlint(['view', model, ...args, '--port', '0']);
    assert.equal(r.code, 2, `${args}: exit ${r.code} ${r.stderr}`);
    assert.doesNotMatch(r.stdout, /http:\/\//);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  }
});

test('only its own files are served: traversal, listings and other methods are refused; Ctrl-C exits 0', async () => {
  const lights = path.join(repoRoot, 'data/demo/lights.json');
  const s = await startView([model, '--lights', lights]);
  try {
    assert.match(s.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    const ok = await rawGet(s.url, '/');
    assert.equal(ok.status, 200);
    assert.match(ok.body, /<canvas/);
    assert.equal((await rawGet(s.url, '/api/model.bin')).status, 200);
    const l = await rawGet(s.url, '/api/lights.json');
    assert.equal(l.status, 200);
    assert.equal(l.body, readFileSync(lights, 'latin1'));  // handed over as given
    const cmake = readFileSync(path.join(repoRoot, 'CMakeLists.txt'), 'latin1').slice(0, 40);
    for (const p of ['/../CMakeLists.txt', '/%2e%2e/CMakeLists.txt', '/..%2fCMakeLists.txt', '/%2e%2e%2f%2e%2e%2fetc%2fpasswd',
                     '/../../../../etc/passwd', '/api/', '/api', '/page/', '//index.html', '/index.html/..',
                     '/src/glint/view/page/index.html', '/CMakeLists.txt']) {
      const r = await rawGet(s.url, p);
      assert.equal(r.status, 404, `${p}: ${r.status}`);
      assert.ok(!r.body.includes(cmake) && !r.body.includes('root:'), `${p} leaked a file`);
    }
    assert.equal((await rawGet(s.url, '/index.html', { method: 'POST', body: 'x' })).status, 405);
    const big = await rawGet(s.url, '/index.html', { method: 'POST', body: Buffer.alloc(1 << 20) }).catch(() => ({ status: 0 }));
    assert.ok(big.status === 405 || big.status === 413 || big.status === 0, `1 MB body: ${big.status}`);
    const longHeader = await rawGet(s.url, '/', { headers: { 'X-Long': 'a'.repeat(20000) } }).catch(() => ({ status: 0 }));
    assert.notEqual(longHeader.status, 200, 'a 20 KB header was accepted');
    // a loopback server answers only requests addressed to a loopback name
    assert.equal((await rawGet(s.url, '/', { headers: { Host: 'attacker.example' } })).status, 403);
  } finally {
    const { code, signal } = await s.stop();
    assert.equal(signal, null);
    assert.equal(code, 0, s.output());
    assert.match(s.output(), /glint view: stopped/);
  }
});

test('--open hands the page\'s URL to xdg-open, and without one says how to open it', async () => {
  // A stand-in xdg-open that records its argument.
  const bin = path.join(dir, 'bin');
  const seen = path.join(dir, 'opened.txt');
  rmSync(bin, { recursive: true, force: true });
  mkdirSync(bin);
  writeFileSync(path.join(bin, 'xdg-open'), `#!/bin/sh\necho "$1" > '${seen}'\n`);
  chmodSync(path.join(bin, 'xdg-open'), 0o755);
  const v = await startView([model, '--open'], { env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } });
  try {
    for (let i = 0; i < 100 && !existsSync(seen); i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(readFileSync(seen, 'utf8').trim(), v.url);
  } finally {
    assert.equal((await v.stop()).code, 0);
  }
  // No opener on PATH: the server still runs and says what to do.
  const empty = path.join(dir, 'empty-bin');
  mkdirSync(empty, { recursive: true });
  const w = await startView([model, '--open'], { env: { ...process.env, PATH: empty } });
  try {
    for (let i = 0; i < 40 && !/xdg-open/.test(w.output()); i++) await new Promise((r) => setTimeout(r, 50));
    assert.match(w.output(), /could not start xdg-open .* open http:\/\/127\.0\.0\.1:\d+\/ in a browser/);
  } finally {
    assert.equal((await w.stop()).code, 0);
  }
});

test('Ctrl-C and SIGTERM stop the server cleanly also after loading a dataset (threads already running)', async () => {
  // Loading --cameras starts OpenMP's threads before the server exists; a stop signal the
  // kernel hands to one of them must still stop the server, not kill the process.
  for (const sig of ['SIGINT', 'SIGTERM']) {
    const s = await startView([model, '--cameras', path.join(repoRoot, 'data/demo')]);
    await new Promise((r) => setTimeout(r, 200));
    s.proc.kill(sig);
    const { code, signal } = await new Promise((resolve) => s.proc.on('exit', (c, g) => resolve({ code: c, signal: g })));
    assert.equal(signal, null, `${sig}: killed by ${signal}`);
    assert.equal(code, 0, s.output());
    assert.match(s.output(), /glint view: stopped/);
  }
  // A Ctrl-C the moment the URL is printed stops it cleanly too (the signal is caught
  // before the URL goes out).
  for (let k = 0; k < 10; ++k) {
    const s = await startView([model]);
    s.proc.kill('SIGINT');
    const { code, signal } = await new Promise((resolve) => s.proc.on('exit', (c, g) => resolve({ code: c, signal: g })));
    assert.deepEqual({ code, signal }, { code: 0, signal: null }, s.output());
  }
});

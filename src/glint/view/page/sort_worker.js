// Back-to-front order of the splats for one camera, off the page's main thread.
// Keys are the 32 bits of each splat's view-space depth made order-preserving as unsigned
// integers; a stable LSD radix sort (two 16-bit passes) sorts them ascending, ties in
// splat-index order, and the result is read backwards: far to near, and on equal depth the
// higher index first, so that blending "over" reproduces the renderer's front-to-back
// order, which breaks depth ties by the lower index.
'use strict';

let means = null;  // Float32Array [N*3]
let keys = null, keysTmp = null, idx = null, idxTmp = null;
const hist = new Uint32Array(65536);

function radixPass(srcKeys, srcIdx, dstKeys, dstIdx, n, shift) {
  hist.fill(0);
  for (let i = 0; i < n; ++i) hist[(srcKeys[i] >>> shift) & 0xffff]++;
  let sum = 0;
  for (let b = 0; b < 65536; ++b) {
    const c = hist[b];
    hist[b] = sum;
    sum += c;
  }
  for (let i = 0; i < n; ++i) {
    const k = srcKeys[i];
    const at = hist[(k >>> shift) & 0xffff]++;
    dstKeys[at] = k;
    dstIdx[at] = srcIdx[i];
  }
}

function sortFor(r2, tz, near) {
  const total = means.length / 3;
  const depth = new Float32Array(1);
  const bits = new Uint32Array(depth.buffer);
  let n = 0;
  for (let i = 0; i < total; ++i) {
    const z = r2[0] * means[3 * i] + r2[1] * means[3 * i + 1] + r2[2] * means[3 * i + 2] + tz;
    if (!(z >= near)) continue;  // culled by the vertex shader anyway; not drawn at all
    depth[0] = z;
    const u = bits[0];
    keys[n] = (u & 0x80000000) ? ~u >>> 0 : (u | 0x80000000) >>> 0;
    idx[n] = i;
    ++n;
  }
  radixPass(keys, idx, keysTmp, idxTmp, n, 0);
  radixPass(keysTmp, idxTmp, keys, idx, n, 16);
  const order = new Uint32Array(n);
  for (let i = 0; i < n; ++i) order[i] = idx[n - 1 - i];
  return order;
}

self.onmessage = (e) => {
  const m = e.data;
  if (m.type === 'model') {
    means = m.means;
    const n = means.length / 3;
    keys = new Uint32Array(n);
    keysTmp = new Uint32Array(n);
    idx = new Uint32Array(n);
    idxTmp = new Uint32Array(n);
  } else if (m.type === 'sort') {
    const t0 = performance.now();
    const order = sortFor(m.r2, m.tz, m.near);
    const ms = performance.now() - t0;
    self.postMessage({ type: 'sorted', id: m.id, order, ms }, [order.buffer]);
  }
};

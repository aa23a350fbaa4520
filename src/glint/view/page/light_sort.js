// Depth order of the splats for a light's face camera, on the main thread: shadow maps are
// rendered only when a light or the model changes, so this runs rarely. The order is the
// sort worker's (float depth ascending, ties by index, read backwards: back to front),
// and the depths come along so that "every splat in front of a plane" is a tail of it.

const kPackedMax = 2 ** 21;  // splats whose index fits beside 32 depth bits in a double's 53

// { order: Uint32Array back to front, depth: Float64Array ascending (the same splats,
//   front to back) } of the splats at or beyond `near`.
export function lightOrder(means, cam, near) {
  const n = means.length / 3;
  const R = cam.R, tz = cam.t[2];
  const z32 = new Float32Array(n);
  const bits = new Uint32Array(z32.buffer);
  let idx = [];
  for (let i = 0; i < n; ++i) {
    const z = R[6] * means[3 * i] + R[7] * means[3 * i + 1] + R[8] * means[3 * i + 2] + tz;
    z32[i] = z;
    if (z >= near) idx.push(i);
  }
  if (n <= kPackedMax) {
    // One exact double a splat, (order-preserving depth bits) * 2^21 + index, sorted natively:
    // the same order as the comparator below, several times faster.
    const keys = new Float64Array(idx.length);
    idx.forEach((i, k) => {
      const u = bits[i];
      keys[k] = ((u & 0x80000000) ? ~u >>> 0 : (u | 0x80000000) >>> 0) * kPackedMax + i;
    });
    keys.sort();
    idx = Array.from(keys, (key) => key % kPackedMax);
  } else {
    idx.sort((a, b) => (z32[a] - z32[b]) || (a - b));
  }
  const order = new Uint32Array(idx.length);
  const depth = new Float64Array(idx.length);
  for (let k = 0; k < idx.length; ++k) {
    order[k] = idx[idx.length - 1 - k];
    depth[k] = z32[idx[k]];
  }
  return { order, depth };
}

// Number of entries of the ascending `depth` below z.
export function countBelow(depth, z) {
  let lo = 0, hi = depth.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (depth[mid] < z) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// light/transmittance_shadow.cpp's planes for one face: quantiles of the centre depths of
// the splats the face sees (their centre projects into it), a group of splats at one depth
// bracketed by a plane on each side. Returns the plane depths, ascending.
export function transmittancePlanes(means, cam, planes, boundsRadius) {
  const n = means.length / 3;
  const R = cam.R, t = cam.t;
  const z = new Float64Array(n);
  const seen = [];
  for (let i = 0; i < n; ++i) {
    const x = means[3 * i], y = means[3 * i + 1], w = means[3 * i + 2];
    const px = R[0] * x + R[1] * y + R[2] * w + t[0];
    const py = R[3] * x + R[4] * y + R[5] * w + t[1];
    const pz = R[6] * x + R[7] * y + R[8] * w + t[2];
    z[i] = pz;
    if (!(pz > 0)) continue;
    const u = cam.fx * px / pz + cam.cx, v = cam.fy * py / pz + cam.cy;
    if (u >= 0 && v >= 0 && u <= cam.width && v <= cam.height) seen.push(i);
  }
  seen.sort((a, b) => (z[a] - z[b]) || (a - b));
  const m = seen.length;
  const counts = new Set();
  for (let k = 1; k <= planes && m > 0; ++k) {
    const at = Math.min(m - 1, Math.floor((m * k + planes - 1) / planes) - 1);
    let g0 = at, g1 = at + 1;
    while (g0 > 0 && z[seen[g0 - 1]] === z[seen[at]]) --g0;
    while (g1 < m && z[seen[g1]] === z[seen[at]]) ++g1;
    if (g0 > 0) counts.add(g0);
    counts.add(g1);
  }
  return [...counts].sort((a, b) => a - b).map((c) =>
    c < m ? 0.5 * (z[seen[c - 1]] + z[seen[c]]) : z[seen[m - 1]] + 1e-3 * boundsRadius + 1e-6);
}

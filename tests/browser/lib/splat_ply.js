// Writes a graphdeco-style splat PLY (binary little endian) of random splats: the test
// scene, built here so that the tests need no trained model.
import { writeFileSync } from 'node:fs';

// Deterministic numbers (mulberry32) so that every run draws the same scene.
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// `count` splats in the box [lo, hi], anisotropic, rotated, with opacities from faint to
// opaque and SH up to `shDegree` (view-dependent colour exercised through every band).
export function randomSplats({ count, lo, hi, shDegree, seed }) {
  const r = rng(seed);
  const u = (a, b) => a + (b - a) * r();
  const rest = (shDegree + 1) * (shDegree + 1) - 1;
  const splats = [];
  for (let i = 0; i < count; ++i) {
    splats.push({
      mean: [u(lo[0], hi[0]), u(lo[1], hi[1]), u(lo[2], hi[2])],
      logScale: [Math.log(u(0.01, 0.12)), Math.log(u(0.01, 0.12)), Math.log(u(0.003, 0.08))],
      quat: [u(-1, 1), u(-1, 1), u(-1, 1), u(-1, 1)],
      opacityLogit: u(-3, 5),
      dc: [u(-1.6, 1.6), u(-1.6, 1.6), u(-1.6, 1.6)],
      rest: Array.from({ length: rest * 3 }, () => u(-0.25, 0.25)),  // [k][channel]
    });
  }
  return { shDegree, splats };
}

// `comments`: header comment lines (io/ply.h: "glint antialiased" marks a model trained
// with the 2D filter).
export function writeSplatPly(path, { shDegree, splats }, comments = []) {
  const rest = (shDegree + 1) * (shDegree + 1) - 1;
  const props = ['x', 'y', 'z', 'nx', 'ny', 'nz', 'f_dc_0', 'f_dc_1', 'f_dc_2'];
  for (let j = 0; j < rest * 3; ++j) props.push(`f_rest_${j}`);
  props.push('opacity', 'scale_0', 'scale_1', 'scale_2', 'rot_0', 'rot_1', 'rot_2', 'rot_3');
  const header = `ply\nformat binary_little_endian 1.0\n` + comments.map((c) => `comment ${c}\n`).join('') +
    `element vertex ${splats.length}\n` +
    props.map((p) => `property float ${p}\n`).join('') + 'end_header\n';
  const body = new Float32Array(splats.length * props.length);
  let o = 0;
  for (const s of splats) {
    body.set([...s.mean, 0, 0, 0, ...s.dc], o);
    o += 9;
    // graphdeco files store f_rest channel-major: f_rest_(c*R + k)
    for (let c = 0; c < 3; ++c) for (let k = 0; k < rest; ++k) body[o++] = s.rest[k * 3 + c];
    body.set([s.opacityLogit, ...s.logScale, ...s.quat], o);
    o += 8;
  }
  writeFileSync(path, Buffer.concat([Buffer.from(header, 'latin1'), Buffer.from(body.buffer)]));
}

// Reads the model blob of src/glint/view/model_blob.h.
export function parseModelBlob(buffer) {
  const head = new DataView(buffer, 0, Math.min(buffer.byteLength, 20));
  if (buffer.byteLength < 20 || String.fromCharCode(head.getUint8(0), head.getUint8(1), head.getUint8(2), head.getUint8(3)) !== 'GLVW')
    throw new Error('model.bin: not a Glint view blob');
  const version = head.getUint32(4, true);
  if (version !== 2) throw new Error(`model.bin: version ${version}, this page reads 2`);
  const n = head.getUint32(8, true);
  const shDegree = head.getUint32(12, true);
  const flags = head.getUint32(16, true);
  const rest = (shDegree + 1) * (shDegree + 1) - 1;
  const floats = n * (14 + rest * 3);
  if (shDegree > 3 || buffer.byteLength !== 20 + floats * 4) throw new Error('model.bin: size does not match its header');
  let at = 20;
  const take = (count) => {
    const a = new Float32Array(buffer, at, count);
    at += count * 4;
    return a;
  };
  return {
    count: n,
    shDegree,
    antialiased: (flags & 1) !== 0,  // the Mip-Splatting 2D filter, as render/project.h
    means: take(n * 3),
    logScales: take(n * 3),
    quats: take(n * 4),
    opacityLogits: take(n),
    shDc: take(n * 3),
    shRest: take(n * rest * 3),
  };
}

// Reads the per-splat ambient occlusion of src/glint/view/splat_ao_blob.h: [N*2] floats,
// AO with the splat's normal along +axis, then along -axis.
export function parseSplatAo(buffer, count) {
  const head = new DataView(buffer, 0, Math.min(buffer.byteLength, 12));
  if (buffer.byteLength < 12 || String.fromCharCode(head.getUint8(0), head.getUint8(1), head.getUint8(2), head.getUint8(3)) !== 'GLAO')
    throw new Error('splat_ao.bin: not a Glint AO blob');
  const version = head.getUint32(4, true);
  if (version !== 1) throw new Error(`splat_ao.bin: version ${version}, this page reads 1`);
  const n = head.getUint32(8, true);
  if (n !== count || buffer.byteLength !== 12 + n * 8) throw new Error(`splat_ao.bin: ${n} splats, the model has ${count}`);
  return new Float32Array(buffer, 12, 2 * n);
}

// Reads an environment light's per-splat residual visibility (view/page_environment.h):
// [N*8] floats, (r, g, b, 0) along +axis then along -axis, a splat after another.
export function parseEnvVisibility(buffer, count, name) {
  const head = new DataView(buffer, 0, Math.min(buffer.byteLength, 12));
  if (buffer.byteLength < 12 || String.fromCharCode(head.getUint8(0), head.getUint8(1), head.getUint8(2), head.getUint8(3)) !== 'GLEV')
    throw new Error(`${name}: not a Glint environment visibility blob`);
  const n = head.getUint32(8, true);
  if (head.getUint32(4, true) !== 1 || n !== count || buffer.byteLength !== 12 + n * 32)
    throw new Error(`${name}: ${n} splats, the model has ${count}`);
  return new Float32Array(buffer, 12, 8 * n);
}

// Readers for what `glint render` writes: 8-bit PNG (non-interlaced, RGB or RGBA) and
// little-endian PFM, both to float arrays with rows top to bottom.
import { readFileSync } from 'node:fs';
import { inflateSync } from 'node:zlib';

export function readPng(path) {
  const b = readFileSync(path);
  if (b.readUInt32BE(0) !== 0x89504e47) throw new Error(`${path}: not a PNG`);
  let at = 8, width = 0, height = 0, channels = 0;
  const idat = [];
  while (at < b.length) {
    const len = b.readUInt32BE(at);
    const type = b.toString('latin1', at + 4, at + 8);
    const data = b.subarray(at + 8, at + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      const depth = data[8], color = data[9], interlace = data[12];
      if (depth !== 8 || interlace !== 0 || (color !== 2 && color !== 6 && color !== 0))
        throw new Error(`${path}: PNG kind not read here (depth ${depth}, colour ${color}, interlace ${interlace})`);
      channels = color === 2 ? 3 : color === 6 ? 4 : 1;
    } else if (type === 'IDAT') idat.push(data);
    at += 12 + len;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const px = new Uint8Array(height * stride);
  for (let y = 0; y < height; ++y) {
    const f = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; ++x) {
      const a = x >= channels ? px[y * stride + x - channels] : 0;
      const up = y > 0 ? px[(y - 1) * stride + x] : 0;
      const ul = y > 0 && x >= channels ? px[(y - 1) * stride + x - channels] : 0;
      let v = line[x];
      if (f === 1) v += a;
      else if (f === 2) v += up;
      else if (f === 3) v += (a + up) >> 1;
      else if (f === 4) {
        const p = a + up - ul, pa = Math.abs(p - a), pb = Math.abs(p - up), pc = Math.abs(p - ul);
        v += pa <= pb && pa <= pc ? a : pb <= pc ? up : ul;
      } else if (f !== 0) throw new Error(`${path}: bad PNG filter ${f}`);
      px[y * stride + x] = v & 0xff;
    }
  }
  const data = new Float32Array(px.length);
  for (let i = 0; i < px.length; ++i) data[i] = px[i] / 255;
  return { width, height, channels, data };
}

export function readPfm(path) {
  const b = readFileSync(path);
  const text = b.toString('latin1', 0, Math.min(b.length, 64));
  const m = /^(P[Ff])\s+(\d+)\s+(\d+)\s+(\S+)\s/.exec(text);
  if (!m) throw new Error(`${path}: not a PFM`);
  const channels = m[1] === 'PF' ? 3 : 1, width = Number(m[2]), height = Number(m[3]);
  if (Number(m[4]) >= 0) throw new Error(`${path}: big-endian PFM not read here`);
  const start = m[0].length;
  const raw = new Float32Array(b.buffer.slice(b.byteOffset + start, b.byteOffset + start + width * height * channels * 4));
  const data = new Float32Array(raw.length);
  const row = width * channels;
  for (let y = 0; y < height; ++y) data.set(raw.subarray((height - 1 - y) * row, (height - y) * row), y * row);
  return { width, height, channels, data };
}

// PSNR in dB of two equally long arrays of values in [0, 1].
export function psnr(a, b) {
  if (a.length !== b.length) throw new Error(`psnr: ${a.length} vs ${b.length} values`);
  let se = 0;
  for (let i = 0; i < a.length; ++i) se += (a[i] - b[i]) ** 2;
  const mse = se / a.length;
  return mse === 0 ? Infinity : 10 * Math.log10(1 / mse);
}

// PSNR of the page's float target against `glint render`'s PNG and alpha PFM: the colour
// clamped and rounded to 8 bits as the PNG holds it, the alpha as it is.
export function parityWithRender(target, png, alpha) {
  const n = target.width * target.height;
  const rgbPage = new Float32Array(n * 3), rgbCpu = new Float32Array(n * 3), aPage = new Float32Array(n);
  for (let p = 0; p < n; ++p) {
    for (let c = 0; c < 3; ++c) {
      rgbPage[3 * p + c] = Math.round(Math.min(1, Math.max(0, target.rgba[4 * p + c])) * 255) / 255;
      rgbCpu[3 * p + c] = png.data[png.channels * p + c];
    }
    aPage[p] = target.rgba[4 * p + 3];
  }
  return { rgb: psnr(rgbPage, rgbCpu), alpha: psnr(aPage, alpha.data) };
}

const srgbEncode = (l) => {
  const c = Math.min(1, Math.max(0, l));
  return c <= 0.0031308 ? 12.92 * c : 1.055 * Math.pow(c, 1 / 2.4) - 0.055;
};

// PSNR of the page's lit target (linear straight radiance, coverage) against a `glint
// relight` RGBA PNG, by the relight dataset's protocol: sRGB-encoded straight colour times
// coverage (composited on black), the page's rounded to 8 bits as the PNG's are.
export function litPsnr(target, png) {
  const n = target.width * target.height;
  const a = new Float32Array(3 * n), b = new Float32Array(3 * n);
  for (let p = 0; p < n; ++p) {
    const alpha = Math.round(255 * Math.min(1, Math.max(0, target.rgba[4 * p + 3]))) / 255;
    for (let c = 0; c < 3; ++c) {
      a[3 * p + c] = (Math.round(255 * srgbEncode(target.rgba[4 * p + c])) / 255) * alpha;
      b[3 * p + c] = png.data[4 * p + c] * png.data[4 * p + 3];
    }
  }
  return psnr(a, b);
}

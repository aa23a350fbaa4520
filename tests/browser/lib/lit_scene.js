// A small scene for the lit view's tests: a ground of flat splats on z = 0, an opaque box
// of splats standing on it and, off to one side, a semi-transparent sheet floating above
// the ground; and a light file with a point, a spot and a sun setup over it.
import { rng } from './splat_ply.js';

const logit = (p) => Math.log(p / (1 - p));

export function litScene({ sheetAlpha = 0.25 } = {}) {
  const r = rng(11);
  const splats = [];
  const flat = (mean, size, opacity, dc) =>
    splats.push({ mean, logScale: [Math.log(size), Math.log(size), Math.log(0.002)], quat: [1, 0, 0, 0],
                  opacityLogit: logit(opacity), dc, rest: [] });
  // Ground: colour varies slowly so that the capture is not flat.
  for (let y = -1.6; y <= 1.6 + 1e-9; y += 0.05)
    for (let x = -1.6; x <= 1.6 + 1e-9; x += 0.05)
      flat([x + 0.01 * r(), y + 0.01 * r(), 0], 0.035, 0.98,
           [0.6 + 0.3 * Math.sin(2 * x), 0.5 + 0.3 * Math.cos(3 * y), 0.2 + 0.2 * r()]);
  // Box [-0.35, 0.35]^2 x [0, 0.7]: flat splats on its four sides and top, facing out.
  const q = { x: [Math.SQRT1_2, 0, Math.SQRT1_2, 0], y: [Math.SQRT1_2, Math.SQRT1_2, 0, 0], z: [1, 0, 0, 0] };
  const face = (axis, fixed, a, b) => {
    for (let u = -0.35; u <= 0.35 + 1e-9; u += 0.04)
      for (let v = 0; v <= 0.7 + 1e-9; v += 0.04) {
        const p = axis === 'x' ? [fixed, u, v] : axis === 'y' ? [u, fixed, v] : [u, v - 0.35, 0.7];
        splats.push({ mean: p, logScale: [Math.log(0.03), Math.log(0.03), Math.log(0.002)], quat: q[axis],
                      opacityLogit: logit(0.99), dc: [a, b, 0.8], rest: [] });
      }
  };
  face('x', 0.35, 0.9, 0.2); face('x', -0.35, 0.9, 0.3); face('y', 0.35, 0.3, 0.9); face('y', -0.35, 0.4, 0.9);
  face('z', 0.7, 0.9, 0.9);
  // Sheet over [0.7, 1.3] x [-1.2, -0.6] at z = 0.5, of one opacity.
  for (let y = -1.2; y <= -0.6 + 1e-9; y += 0.04)
    for (let x = 0.7; x <= 1.3 + 1e-9; x += 0.04) flat([x, y, 0.5], 0.03, sheetAlpha, [1.2, 1.2, 1.2]);
  return { shDegree: 0, splats };
}

export const litLights = {
  setups: {
    point: { ambient: { type: 'uniform_world', strength: 0.15, color: [1, 1, 1] },
             lights: [{ type: 'point', position: [1.4, -0.9, 2.2], power_W: 350, color: [1, 0.95, 0.9] }] },
    spot: { ambient: { type: 'uniform_world', strength: 0.1, color: [1, 1, 1] },
            lights: [{ type: 'spot', position: [-1.0, 1.2, 2.4], direction: [0.4, -0.48, -0.96], cone_angle_deg: 55,
                       blend: 0.2, power_W: 600 }] },
    sun: { ambient: { type: 'uniform_world', strength: 0.15, color: [1, 1, 1] },
           lights: [{ type: 'sun', direction_to_light: [-0.5, -0.35, 0.8], strength_W_per_m2: 3.2,
                      color: [1, 0.9, 0.8] }] },
  },
};

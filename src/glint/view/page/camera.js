// Cameras in Glint's convention (core/camera.h): OpenCV axes (x right, y down, z forward),
// world-to-camera R (row-major, 9 numbers) and t, pinhole fx fy cx cy in pixels, and the
// image size. The orbit controller turns target / distance / yaw / pitch into such a camera.

const sub = (a, b) => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const add = (a, b) => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
const scale = (a, s) => [a[0] * s, a[1] * s, a[2] * s];
const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const normalize = (a) => {
  const n = Math.hypot(a[0], a[1], a[2]);
  return n > 0 ? scale(a, 1 / n) : [0, 0, 1];
};

export function cameraCenter(cam) {  // -R^T t
  const R = cam.R, t = cam.t;
  return [-(R[0] * t[0] + R[3] * t[1] + R[6] * t[2]), -(R[1] * t[0] + R[4] * t[1] + R[7] * t[2]),
          -(R[2] * t[0] + R[5] * t[1] + R[8] * t[2])];
}

// The Jacobian clamp of render/view.h (make_view): 1.3x the tan-fov on each side.
export function jacobianLimits(cam) {
  return [1.3 * cam.cx / cam.fx, 1.3 * (cam.width - cam.cx) / cam.fx, 1.3 * cam.cy / cam.fy,
          1.3 * (cam.height - cam.cy) / cam.fy];
}

// A camera at `pos` looking at `target`, `up` roughly up in the image.
export function lookAt(pos, target, up, intr) {
  const f = normalize(sub(target, pos));
  let r = cross(f, up);
  if (Math.hypot(r[0], r[1], r[2]) < 1e-9) r = cross(f, Math.abs(f[0]) < 0.9 ? [1, 0, 0] : [0, 1, 0]);
  r = normalize(r);
  const d = cross(f, r);  // image down
  const R = [r[0], r[1], r[2], d[0], d[1], d[2], f[0], f[1], f[2]];
  const t = [-dot(r, pos), -dot(d, pos), -dot(f, pos)];
  return { ...intr, R, t };
}

export class OrbitController {
  constructor(up, target, distance) {
    this.up = normalize(up);
    // a basis (e1, e2, up) for yaw and pitch
    const helper = Math.abs(this.up[0]) < 0.9 ? [1, 0, 0] : [0, 1, 0];
    this.e1 = normalize(cross(helper, this.up));
    this.e2 = cross(this.up, this.e1);
    this.target = target.slice();
    this.distance = distance;
    this.yaw = 0;
    this.pitch = 0.3;
  }

  position() {
    const cp = Math.cos(this.pitch);
    const dir = add(add(scale(this.e1, cp * Math.cos(this.yaw)), scale(this.e2, cp * Math.sin(this.yaw))),
                    scale(this.up, Math.sin(this.pitch)));
    return add(this.target, scale(dir, this.distance));
  }

  camera(intr) { return lookAt(this.position(), this.target, this.up, intr); }

  // Takes over a camera's position and view direction (its roll is dropped on the next move).
  setFromCamera(cam, focusDistance) {
    const c = cameraCenter(cam);
    const f = [cam.R[6], cam.R[7], cam.R[8]];
    this.distance = Math.max(focusDistance, 1e-3);
    this.target = add(c, scale(f, this.distance));
    const back = scale(f, -1);
    this.pitch = Math.asin(Math.max(-1, Math.min(1, dot(back, this.up))));
    this.yaw = Math.atan2(dot(back, this.e2), dot(back, this.e1));
  }

  orbit(dx, dy) {
    this.yaw -= dx * 0.005;
    this.pitch = Math.max(-1.55, Math.min(1.55, this.pitch + dy * 0.005));
  }

  // Moves the target in the image plane of `cam` by a pixel offset.
  pan(cam, dx, dy) {
    const s = this.distance / cam.fx;
    const r = [cam.R[0], cam.R[1], cam.R[2]], d = [cam.R[3], cam.R[4], cam.R[5]];
    this.target = add(this.target, add(scale(r, -dx * s), scale(d, -dy * s)));
  }

  zoom(steps) { this.distance *= Math.pow(1.1, steps); }

  // Fly: moves target and camera together along the view direction / right axis.
  fly(cam, forward, right, amount) {
    const f = [cam.R[6], cam.R[7], cam.R[8]], r = [cam.R[0], cam.R[1], cam.R[2]];
    this.target = add(this.target, add(scale(f, forward * amount), scale(r, right * amount)));
  }
}

// Up direction of a set of dataset cameras: the mean of their image-up axes (-y rows).
export function upFromCameras(cams) {
  let u = [0, 0, 0];
  for (const c of cams) u = add(u, [-c.R[3], -c.R[4], -c.R[5]]);
  return Math.hypot(u[0], u[1], u[2]) > 1e-6 ? normalize(u) : [0, 0, 1];
}

// The view state in the URL's hash, so that a reloaded or shared URL shows the same view
// (the same pixels, at the same window size):
//   #mode=depth&cam=5                                  a dataset camera of --cameras
//   #mode=color&orbit=tx,ty,tz,distance,yaw,pitch,fovY  the orbit camera (radians)
// Numbers are written as JavaScript prints them, which reads back to the same double.
// Other parts of the page add their own keys with registerUrlState.

const extra = new Map();  // key -> { get: () => string | null, set: (string) => void }

export function registerUrlState(key, get, set) { extra.set(key, { get, set }); }

export function encodeViewState(v) {
  const p = new URLSearchParams();
  p.set('mode', v.modeName);
  if (v.snapped >= 0) p.set('cam', String(v.snapped));
  else {
    const o = v.orbit;
    p.set('orbit', [...o.target, o.distance, o.yaw, o.pitch, v.fovY].map(String).join(','));
  }
  for (const [key, { get }] of extra) {
    const value = get();
    if (value !== null && value !== undefined) p.set(key, value);
  }
  return p.toString();
}

// Applies a hash to the viewer; returns a list of what it could not read (empty: all).
export function applyViewState(v, hash) {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  const problems = [];
  if (p.has('mode')) {
    if (!v.setMode(p.get('mode'))) problems.push(`mode=${p.get('mode')}`);
  }
  if (p.has('cam')) {
    const i = Number(p.get('cam'));
    if (Number.isInteger(i) && i >= 0 && i < v.cameras.length) v.snapTo(i);
    else problems.push(`cam=${p.get('cam')}`);
  } else if (p.has('orbit')) {
    const n = p.get('orbit').split(',').map(Number);
    if (n.length === 7 && n.every(Number.isFinite) && n[3] > 0 && n[6] > 0 && n[6] < Math.PI) {
      const o = v.orbit;
      o.target = n.slice(0, 3);
      [o.distance, o.yaw, o.pitch, v.fovY] = n.slice(3);
      v.moved();
    } else problems.push('orbit');
  }
  for (const [key, { set }] of extra) if (p.has(key)) set(p.get(key));
  return problems;
}

// Keeps the hash up to date as the view changes (replaceState: no history entry a move),
// and applies a hash that is typed or pasted into the address bar.
export function trackViewState(v) {
  window.addEventListener('hashchange', () => {
    const problems = applyViewState(v, location.hash);
    if (problems.length) console.warn('URL: not understood: ' + problems.join(', '));
  });
  let timer = null;
  v.onViewChange = () => {
    if (timer) return;
    timer = setTimeout(() => {
      timer = null;
      history.replaceState(null, '', '#' + encodeViewState(v));
    }, 200);
  };
}

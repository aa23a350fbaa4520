// The lights the page shades with: one setup of the file glint view was given (served as
// api/light_setups.json, already checked and in one spelling by the server), editable,
// with a version per light so that a light's shadow map is re-rendered only when that
// light changed. toJson() writes the setup in the light-file format glint relight reads
// (docs/LIGHTING.md).

let nextId = 1;
const kDefaultAmbient = 0.3;

function fromJson(l) {
  const base = { id: nextId++, version: 0, enabled: true, type: l.type, color: (l.color || [1, 1, 1]).slice() };
  if (l.type === 'sun') return { ...base, direction: l.direction_to_light.slice(), strength: l.strength_W_per_m2 };
  if (l.type === 'point') return { ...base, position: l.position.slice(), intensity: l.intensity_W_per_sr };
  if (l.type === 'spot')
    return { ...base, position: l.position.slice(), intensity: l.intensity_W_per_sr, direction: l.direction.slice(),
             coneDeg: l.cone_angle_deg, blend: l.blend || 0 };
  // An environment light split by glint view (view/page_environment.h): its suns, the
  // residual's irradiance table and per-splat visibility. Without them (a live model) it is
  // not shaded.
  if (l.type === 'environment' && l.suns && l.visibilityData)
    return { ...base, file: l.file, strength: l.strength, baseStrength: l.strength, rotationDeg: l.rotation_z_deg,
             suns: l.suns.map((s) => ({ id: nextId++, direction: s.direction_to_light.slice(),
                                        strength: s.strength_W_per_m2, color: s.color.slice() })),
             residual: l.residual, visibilityData: l.visibilityData };
  return null;
}

// What the renderer shades for light l: itself, or an environment light's suns (its
// strength scales them and the residual; its version is theirs).
export function shadedLamps(l) {
  if (l.type !== 'environment') return [l];
  const k = l.baseStrength > 0 ? l.strength / l.baseStrength : 0;
  return l.suns.map((s) => ({ id: s.id, version: l.version, enabled: l.enabled, type: 'sun', direction: s.direction,
                              strength: k * s.strength, color: s.color, envSun: true }));
}

function toJson(l) {
  const j = { type: l.type };
  if (l.type === 'environment') {
    // The light's colour is already in its suns and residual (glint view split it tinted).
    return { type: 'environment', file: l.file, strength: l.strength, rotation_z_deg: l.rotationDeg,
             color: l.color.slice() };
  }
  if (l.type === 'sun') {
    j.direction_to_light = l.direction.slice();
    j.strength_W_per_m2 = l.strength;
  } else {
    j.position = l.position.slice();
    j.intensity_W_per_sr = l.intensity;
    if (l.type === 'spot') {
      j.direction = l.direction.slice();
      j.cone_angle_deg = l.coneDeg;
      j.blend = l.blend;
    }
  }
  j.color = l.color.slice();
  return j;
}

export class LightsState {
  constructor(doc) {
    this.setups = doc && doc.setups ? doc.setups : {};
    this.names = Object.keys(this.setups);
    this.skipped = 0;  // environment lights of the chosen setup
    this.load(this.names.length ? this.names[0] : null);
  }

  load(name) {
    const s = name ? this.setups[name] : null;
    if (name && !s) throw new Error(`no light setup '${name}' (have: ${this.names.join(', ')})`);
    this.name = name || 'page';
    // Without a setup, some ambient light so that the lit view starts as the capture, dimmed.
    const amb = s ? s.ambient || { strength: 0 } : { strength: kDefaultAmbient, color: [1, 1, 1] };
    this.ambient = { strength: amb.strength || 0, color: (amb.color || [1, 1, 1]).slice() };
    this.lights = [];
    this.skipped = 0;
    for (const l of s ? s.lights : []) {
      const m = fromJson(l);
      if (m) this.lights.push(m);
      else this.skipped++;
    }
    this.version = (this.version || 0) + 1;
  }

  // Applies `patch` (keys of the light model above) to light i; its shadow map is then stale.
  update(i, patch) {
    const l = this.lights[i];
    if (!l) throw new Error(`no light ${i}`);
    for (const [k, v] of Object.entries(patch)) l[k] = Array.isArray(v) ? v.slice() : v;
    l.version++;
    this.version++;
  }

  setAmbient(strength) {
    this.ambient.strength = strength;
    this.version++;
  }

  add(json) {
    const l = fromJson(json);
    if (!l) throw new Error(`cannot add a light of type '${json.type}'`);
    this.lights.push(l);
    this.version++;
    return this.lights.length - 1;
  }

  remove(i) {
    this.lights.splice(i, 1);
    this.version++;
  }

  // The setup as a light file (the enabled lights only): what glint relight --lights reads.
  toJson() {
    return {
      name: this.name,
      ambient: { type: 'uniform_world', strength: this.ambient.strength, color: this.ambient.color.slice() },
      lights: this.lights.filter((l) => l.enabled).map(toJson),
    };
  }
}

// FRAMEs in one shape, whichever wire format brought them: n points base to tip, flat
// Float32Arrays (position x0,y0,z0,x1,...; rotation 9 numbers per point, row-major; kappa and
// nu 3 per point), energy {kinetic, elastic, gravity} and volume_change (V/V0 - 1).
// Also the quantities the plots derive from a frame.
//
// A model of several rods: f.rods holds one such frame per rod ({name, n, s, position, ...}, in
// the spec's order), and f's own per-point fields are the selected rod's (selectRod; the first
// by default, f.rod its name), so that the colours and plots follow the rod the user picked
// while the view draws them all.

/** The per-point fields in the daemon's order (its binary field mask bits 0..6), with their widths. */
const FIELDS = [
  ["s", 1],
  ["position", 3],
  ["rotation", 9],
  ["rho", 1],
  ["radius", 1],
  ["kappa", 3],
  ["nu", 3],
];
const ENERGY_BIT = 1 << 7;
const VOLUME_BIT = 1 << 8;
const MAGIC = 0x46444f52; // the bytes "RODF" read as a little-endian u32

let selectedRod = null; // the rod whose fields a frame of several rods shows and plots

/** Picks the rod (by name) whose per-point fields frames of several rods carry from now on. */
export function selectRod(name) {
  selectedRod = name || null;
}

/** The rod names of a frame of several rods; [] for one rod. */
export function rodNames(f) {
  return f?.rods ? f.rods.map((r) => r.name) : [];
}

/** Copies the selected rod's per-point fields (the first rod's when none or an unknown one is) onto f. */
export function withSelectedRod(f) {
  if (!f.rods?.length) return f;
  const r = f.rods.find((x) => x.name === selectedRod) || f.rods[0];
  f.rod = r.name;
  f.n = r.n;
  for (const [name] of FIELDS) if (r[name]) f[name] = r[name];
  return f;
}

/** Version 2 (several rods): per rod u32 n, u32 name bytes, the name padded to 4 bytes, its arrays. */
function decodeRods(buf, dv, header, nrods, mask) {
  const rods = [];
  let off = header;
  const fail = () => {
    throw new Error("binary frame of several rods shorter than its rods say");
  };
  for (let k = 0; k < nrods; k++) {
    if (off + 8 > buf.byteLength) fail();
    const n = dv.getUint32(off, true);
    const len = dv.getUint32(off + 4, true);
    off += 8;
    if (off + len > buf.byteLength) fail();
    const r = { name: new TextDecoder().decode(new Uint8Array(buf, off, len)), n };
    off += 4 * Math.ceil(len / 4);
    FIELDS.forEach(([name, w], bit) => {
      if (!(mask & (1 << bit))) return;
      if (off + 4 * w * n > buf.byteLength) fail();
      r[name] = new Float32Array(buf, off, w * n);
      off += 4 * w * n;
    });
    rods.push(r);
  }
  if (off + (mask & ENERGY_BIT ? 12 : 0) + (mask & VOLUME_BIT ? 4 : 0) > buf.byteLength) fail();
  return { rods, off };
}

/**
 * A binary frame: magic "RODF", u16 version, u16 header bytes, u64 seq, f64 t, u32 n, u32 field
 * mask, then float32 arrays for the bits set, all little-endian. The arrays are views into buf.
 */
export function decodeBinaryFrame(buf) {
  if (buf.byteLength < 32) throw new Error(`binary frame of ${buf.byteLength} bytes, shorter than its header`);
  const dv = new DataView(buf);
  if (dv.getUint32(0, true) !== MAGIC) throw new Error("binary message is not a RODF frame");
  const header = dv.getUint16(6, true);
  const n = dv.getUint32(24, true);
  const mask = dv.getUint32(28, true);
  if (dv.getUint16(4, true) === 2) {
    const { rods, off } = decodeRods(buf, dv, header, n, mask);
    const f = { seq: Number(dv.getBigUint64(8, true)), t: dv.getFloat64(16, true), n: 0, rods };
    if (mask & ENERGY_BIT) f.energy = { kinetic: dv.getFloat32(off, true), elastic: dv.getFloat32(off + 4, true), gravity: dv.getFloat32(off + 8, true) };
    if (mask & VOLUME_BIT) f.volume_change = dv.getFloat32(off + (mask & ENERGY_BIT ? 12 : 0), true);
    return withSelectedRod(f);
  }
  let need = header;
  FIELDS.forEach(([, w], bit) => {
    if (mask & (1 << bit)) need += 4 * w * n;
  });
  need += (mask & ENERGY_BIT ? 12 : 0) + (mask & VOLUME_BIT ? 4 : 0);
  if (header % 4 !== 0 || need > buf.byteLength) throw new Error("binary frame shorter than its field mask says");
  const f = { seq: Number(dv.getBigUint64(8, true)), t: dv.getFloat64(16, true), n };
  let off = header;
  FIELDS.forEach(([name, w], bit) => {
    if (!(mask & (1 << bit))) return;
    f[name] = new Float32Array(buf, off, w * n);
    off += 4 * w * n;
  });
  if (mask & ENERGY_BIT) {
    f.energy = { kinetic: dv.getFloat32(off, true), elastic: dv.getFloat32(off + 4, true), gravity: dv.getFloat32(off + 8, true) };
    off += 12;
  }
  if (mask & VOLUME_BIT) f.volume_change = dv.getFloat32(off, true);
  return f;
}

/** A JSON frame ({"op": "frame", "position": [[x, y, z], ...], ...}); null (non-finite) becomes NaN. */
export function decodeJsonFrame(m) {
  const f = pointFields(m, { seq: m.seq, t: m.t });
  // several rods: each rod's points and, for a joined (free) rod, its base's pose as sent
  if (Array.isArray(m.rods)) f.rods = m.rods.map((r) => pointFields(r, r.base ? { name: r.name, base: r.base } : { name: r.name }));
  if (m.energy) {
    const e = m.energy;
    f.energy = { kinetic: e.kinetic ?? NaN, elastic: e.elastic ?? NaN, gravity: e.gravity ?? NaN };
  }
  if ("volume_change" in m) f.volume_change = m.volume_change ?? NaN;
  // a moving base's pose, attached bodies, constraints (targets and reactions), contacts: as sent
  if (m.base) f.base = m.base;
  if (m.bodies) f.bodies = m.bodies;
  if (m.constraints) f.constraints = m.constraints;
  if (m.contacts) f.contacts = m.contacts;
  return withSelectedRod(f);
}

/** The per-point fields of m (a FRAME, or one rod of it) into f as Float32Arrays, and f.n. */
function pointFields(m, f) {
  const n = (m.s || m.position || m.rho || []).length;
  f.n = n;
  for (const [name, w] of FIELDS) {
    const a = m[name];
    if (!Array.isArray(a)) continue;
    const out = new Float32Array(w * n);
    for (let i = 0; i < n; i++) {
      if (w === 1) out[i] = a[i] ?? NaN;
      else for (let k = 0; k < w; k++) out[w * i + k] = a[i]?.[k] ?? NaN;
    }
    f[name] = out;
  }
  return f;
}

/** The arm's length: the integral of |nu| ds along s (trapezoids), i.e. the deformed centreline's length. */
export function armLength(f) {
  const { s, nu, n } = f;
  let L = 0;
  let prev = Math.hypot(nu[0], nu[1], nu[2]);
  for (let i = 1; i < n; i++) {
    const cur = Math.hypot(nu[3 * i], nu[3 * i + 1], nu[3 * i + 2]);
    L += 0.5 * (prev + cur) * (s[i] - s[i - 1]);
    prev = cur;
  }
  return L;
}

/** [x, y, z] of the last point. */
export function tipPosition(f) {
  const i = 3 * (f.n - 1);
  return [f.position[i], f.position[i + 1], f.position[i + 2]];
}

/** The fields the rod can be coloured by, each a value per point. */
export const COLOR_FIELDS = {
  rho: { label: "ρ (inflation)", unit: "", minSpan: 0.01, value: (f, i) => f.rho[i] },
  kappa: {
    label: "|κ| (curvature)",
    unit: "1/m",
    minSpan: 0.1,
    value: (f, i) => Math.hypot(f.kappa[3 * i], f.kappa[3 * i + 1], f.kappa[3 * i + 2]),
  },
  strain: {
    label: "|ν| − 1 (strain)",
    unit: "",
    minSpan: 0.002,
    value: (f, i) => Math.hypot(f.nu[3 * i], f.nu[3 * i + 1], f.nu[3 * i + 2]) - 1,
  },
};

/** The chosen field at every point, into out (a Float32Array of at least n). */
export function fieldValues(f, field, out = new Float32Array(f.n)) {
  const get = COLOR_FIELDS[field].value;
  for (let i = 0; i < f.n; i++) out[i] = get(f, i);
  return out;
}

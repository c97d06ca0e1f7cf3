// FRAMEs in one shape, whichever wire format brought them: n points base to tip, flat
// Float32Arrays (position x0,y0,z0,x1,...; rotation 9 numbers per point, row-major; kappa and
// nu 3 per point), energy {kinetic, elastic, gravity} and volume_change (V/V0 - 1).
// Also the quantities the plots derive from a frame.

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
  const n = (m.s || m.position || m.rho || []).length;
  const f = { seq: m.seq, t: m.t, n };
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
  if (m.energy) {
    const e = m.energy;
    f.energy = { kinetic: e.kinetic ?? NaN, elastic: e.elastic ?? NaN, gravity: e.gravity ?? NaN };
  }
  if ("volume_change" in m) f.volume_change = m.volume_change ?? NaN;
  // a moving base's pose, attached bodies, constraints (targets and reactions), contact
  // forces: as sent
  if (m.base) f.base = m.base;
  if (m.bodies) f.bodies = m.bodies;
  if (m.constraints) f.constraints = m.constraints;
  if (m.contacts) f.contacts = m.contacts;
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

// Recordings as the viewer's frames (frame.js's shape): NDJSON, one FRAME a line (what
// GET /v1/sessions/{id}/recording gives, or `rodd run` prints), and HDF5 in rodd's layout
// (README's "Exports", read by jsfive). Checked as they are read: a bad file is refused with
// what is wrong and where (the line, the dataset), never half shown.

import * as hdf5 from "jsfive";
import { decodeJsonFrame, withSelectedRod } from "./frame.js";

export class RecordingError extends Error {}

const HDF5_SIGNATURE = [0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a];
// what the 3D view cannot go without; the plots show gaps where other fields are missing
const NEEDED = ["s", "position", "rotation", "radius"];
const PER_POINT = { s: 1, position: 3, rotation: 9, rho: 1, radius: 1, kappa: 3, nu: 3 };

/** Frames (oldest first) and the spec when the file has one, from a file's bytes: HDF5 or NDJSON. */
export function readRecording(buffer) {
  const head = new Uint8Array(buffer, 0, Math.min(8, buffer.byteLength));
  if (HDF5_SIGNATURE.every((b, i) => head[i] === b)) return parseHdf5(buffer);
  let text;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(buffer);
  } catch {
    throw new RecordingError("neither HDF5 nor text: a recording is NDJSON (one FRAME a line) or rodd's HDF5");
  }
  return parseNdjson(text);
}

/** Fills what the view needs in a decoded frame, or says what is missing. */
function complete(f, where) {
  for (const k of NEEDED) {
    if (!f[k]) throw new RecordingError(`${where} has no ${k}: the 3D view needs ${NEEDED.join(", ")}`);
  }
  for (const [k, w] of Object.entries(PER_POINT)) {
    if (!f[k]) f[k] = new Float32Array(w * f.n).fill(NaN);
  }
  return f;
}

function checkOrder(frames, f, where) {
  const prev = frames[frames.length - 1];
  if (!prev) return;
  if (f.n !== prev.n) throw new RecordingError(`${where} has ${f.n} points, the frames before it ${prev.n}`);
  if (!(f.t >= prev.t)) throw new RecordingError(`${where} goes back in time (t = ${f.t} after ${prev.t})`);
}

/** NDJSON text: { frames, spec: null }. */
export function parseNdjson(text) {
  const frames = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (!line) continue;
    const where = `line ${i + 1}`;
    let m;
    try {
      m = JSON.parse(line);
    } catch (e) {
      throw new RecordingError(`${where} is not JSON (${e.message})`);
    }
    if (!m || typeof m !== "object" || Array.isArray(m) || typeof m.t !== "number" || !Number.isFinite(m.t)) {
      throw new RecordingError(`${where} is not a FRAME: it needs a number "t"`);
    }
    const positions = (p) => Array.isArray(p) && p.length >= 2 && p.every((x) => Array.isArray(x) && x.length === 3);
    if (Array.isArray(m.rods) && m.rods.length) { // several rods: each rod's points
      const bad = m.rods.find((r) => !positions(r?.position));
      if (bad) throw new RecordingError(`${where} is not a FRAME: rod ${JSON.stringify(bad?.name ?? null)}'s "position" must be two or more [x, y, z]`);
    } else if (!positions(m.position)) {
      throw new RecordingError(`${where} is not a FRAME: "position" must be two or more [x, y, z]`);
    }
    const f = complete(decodeJsonFrame(m), where);
    checkOrder(frames, f, where);
    frames.push(f);
  }
  if (!frames.length) throw new RecordingError("the file has no frames");
  return { frames, spec: null };
}

/** rodd's HDF5 layout: { frames, spec }. */
export function parseHdf5(buffer) {
  let file;
  try {
    file = new hdf5.File(buffer, "recording.h5");
  } catch (e) {
    throw new RecordingError(`an HDF5 file that cannot be read (${e.message})`);
  }
  if (file.attrs.format !== "rodd frames") {
    throw new RecordingError(`an HDF5 file, but not rodd's frames (its "format" attribute is ${JSON.stringify(file.attrs.format ?? null)})`);
  }
  const has = (path) => {
    const parts = path.split("/");
    let g = file;
    for (const p of parts) {
      if (!g.keys?.includes(p)) return false;
      g = g.get(p);
    }
    return true;
  };
  const read = (path) => {
    try {
      return Float64Array.from(file.get(path).value, Number); // int64 counts may come as BigInt
    } catch (e) {
      throw new RecordingError(`the dataset ${path} cannot be read (${e.message})`);
    }
  };
  const t = read("t");
  const F = t.length;
  const n = Number(file.attrs.points);
  if (!F) throw new RecordingError("the file has no frames");
  const perPoint = (prefix) => {
    const out = {};
    for (const [k, w] of Object.entries(PER_POINT)) {
      if (!has(prefix + k)) continue;
      out[k] = read(prefix + k);
      if (out[k].length !== F * n * w) throw new RecordingError(`${prefix + k} holds ${out[k].length} numbers, not frames x points x ${w} = ${F * n * w}`);
    }
    return out;
  };
  const per = perPoint("");
  // several rods: rods/NAME/FIELD, in the spec's order (the group's "order" attribute)
  const rodNames = has("rods") ? String(file.get("rods").attrs.order ?? file.get("rods").keys.join(",")).split(",") : [];
  const rods = rodNames.map((name) => [name, perPoint(`rods/${name}/`),
    has(`rods/${name}/base`) ? { position: read(`rods/${name}/base/position`), rotation: read(`rods/${name}/base/rotation`) } : null]);
  const scalar = (path) => (has(path) ? read(path) : null);
  const energy = ["kinetic", "elastic", "gravity"].map((e) => scalar(`energy/${e}`));
  const volume = scalar("volume_change");
  const vec = (v, k, w) => Array.from(v.subarray(w * k, w * (k + 1)));
  const base = has("base") ? { position: read("base/position"), rotation: read("base/rotation") } : null;
  const group = (name) => (has(name) ? file.get(name).keys : []);
  const bodies = group("bodies").map((b) => [b, read(`bodies/${b}/position`)]);
  const constraints = group("constraints").map((c) => [c, Object.fromEntries(file.get(`constraints/${c}`).keys.map((k) => [k, read(`constraints/${c}/${k}`)]))]);
  let contacts = null;
  if (has("contacts")) {
    contacts = { count: read("contacts/count"), s: read("contacts/s"), point: read("contacts/point"), force: read("contacts/force") };
  }
  const frames = [];
  let row = 0;
  for (let k = 0; k < F; k++) {
    const f = { seq: k + 1, t: t[k], n };
    for (const [name, v] of Object.entries(per)) f[name] = v.subarray(PER_POINT[name] * n * k, PER_POINT[name] * n * (k + 1));
    if (rods.length) {
      f.rods = rods.map(([name, fields, rodBase]) => {
        const r = { name, n };
        for (const [key, v] of Object.entries(fields)) r[key] = v.subarray(PER_POINT[key] * n * k, PER_POINT[key] * n * (k + 1));
        if (rodBase) r.base = { position: vec(rodBase.position, k, 3), rotation: vec(rodBase.rotation, k, 9) }; // a joined rod's
        return r;
      });
      withSelectedRod(f);
    }
    if (energy.some(Boolean)) f.energy = { kinetic: energy[0]?.[k] ?? NaN, elastic: energy[1]?.[k] ?? NaN, gravity: energy[2]?.[k] ?? NaN };
    if (volume) f.volume_change = volume[k];
    if (base) f.base = { position: vec(base.position, k, 3), rotation: vec(base.rotation, k, 9) };
    if (bodies.length) f.bodies = Object.fromEntries(bodies.map(([b, v]) => [b, { position: vec(v, k, 3) }]));
    if (constraints.length) {
      f.constraints = Object.fromEntries(constraints.map(([c, sets]) => [c, Object.fromEntries(Object.entries(sets).map(([key, v]) => [key, v.length === F ? v[k] : vec(v, k, 3)]))]));
    }
    if (contacts) {
      f.contacts = [];
      for (let j = 0; j < contacts.count[k]; j++, row++) {
        f.contacts.push({ s: contacts.s[row], point: vec(contacts.point, row, 3), force: vec(contacts.force, row, 3) });
      }
    }
    frames.push(complete(f, `frame ${k}`));
  }
  let spec = null;
  try {
    spec = file.attrs.spec ? JSON.parse(file.attrs.spec) : null;
  } catch {
    // a spec that is not JSON: the replay goes without it
  }
  return { frames, spec };
}

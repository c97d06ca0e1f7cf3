// The viewer's pure modules in node (no browser): frame decoding (binary and JSON alike),
// derived quantities, the history's window and scrubbing, spec error placement, the colour range.
import assert from "node:assert/strict";
import { test } from "node:test";
import { streamUrlForPage } from "../../web/src/api.js";
import { ColorRange, viridis } from "../../web/src/colormap.js";
import { armLength, decodeBinaryFrame, decodeJsonFrame, fieldValues, rodNames, selectRod, tipPosition, withSelectedRod } from "../../web/src/frame.js";
import { fmtClock } from "../../web/src/dom.js";
import { History } from "../../web/src/history.js";
import { tickLabels, yRange } from "../../web/src/plot.js";
import { poller } from "../../web/src/poller.js";
import { parseNdjson, readRecording, RecordingError } from "../../web/src/recording.js";
import { linesWithPaths, placeErrors } from "../../web/src/specmap.js";

/** A JSON FRAME of a straight rod of length L stretched by (1 + e), n points. */
function jsonFrame({ n = 5, L = 0.5, e = 0, t = 0, seq = 1 } = {}) {
  const s = Array.from({ length: n }, (_, i) => (L * i) / (n - 1));
  return {
    op: "frame",
    seq,
    t,
    s,
    position: s.map((x) => [0, 0, (1 + e) * x]),
    rotation: s.map(() => [1, 0, 0, 0, 1, 0, 0, 0, 1]),
    rho: s.map(() => 1),
    radius: s.map(() => 0.01),
    kappa: s.map((x) => [0, 2 * x, 0]),
    nu: s.map(() => [0, 0, 1 + e]),
    energy: { kinetic: 1, elastic: 2, gravity: null },
    volume_change: -0.01,
  };
}

/** The same frame in the daemon's binary layout (stream_codec.c, stream_frame_payload). */
function binaryFrame(m) {
  const n = m.s.length;
  const arrays = [m.s, m.position.flat(), m.rotation.flat(), m.rho, m.radius, m.kappa.flat(), m.nu.flat()];
  const floats = arrays.reduce((k, a) => k + a.length, 0) + 4;
  const buf = new ArrayBuffer(32 + 4 * floats);
  const dv = new DataView(buf);
  [..."RODF"].forEach((c, i) => dv.setUint8(i, c.charCodeAt(0)));
  dv.setUint16(4, 1, true);
  dv.setUint16(6, 32, true);
  dv.setBigUint64(8, BigInt(m.seq), true);
  dv.setFloat64(16, m.t, true);
  dv.setUint32(24, n, true);
  dv.setUint32(28, (1 << 9) - 1, true);
  let off = 32;
  for (const v of [...arrays.flat(), m.energy.kinetic, m.energy.elastic, NaN, m.volume_change]) {
    dv.setFloat32(off, v, true);
    off += 4;
  }
  return buf;
}

test("binary and JSON frames decode to the same thing", () => {
  const m = jsonFrame({ n: 7, e: 0.1, t: 1.25, seq: 42 });
  const a = decodeJsonFrame(m);
  const b = decodeBinaryFrame(binaryFrame(m));
  assert.equal(b.seq, 42);
  assert.equal(b.t, 1.25);
  assert.equal(b.n, 7);
  for (const k of ["s", "position", "rotation", "rho", "radius", "kappa", "nu"]) {
    assert.equal(a[k].length, b[k].length, k);
    a[k].forEach((v, i) => assert.ok(Math.abs(v - b[k][i]) < 1e-6, `${k}[${i}]`));
  }
  assert.equal(a.energy.kinetic, 1);
  assert.ok(Number.isNaN(a.energy.gravity), "null is NaN");
  assert.ok(Number.isNaN(b.energy.gravity));
  assert.ok(Math.abs(b.volume_change + 0.01) < 1e-7);
});

test("a binary frame with fewer fields or too few bytes", () => {
  const buf = new ArrayBuffer(32 + 4 * 3);
  const dv = new DataView(buf);
  [..."RODF"].forEach((c, i) => dv.setUint8(i, c.charCodeAt(0)));
  dv.setUint16(6, 32, true);
  dv.setUint32(24, 3, true);
  dv.setUint32(28, 1 << 3, true); // rho only
  [0.9, 1, 1.1].forEach((v, i) => dv.setFloat32(32 + 4 * i, v, true));
  const f = decodeBinaryFrame(buf);
  assert.deepEqual([...f.rho].map((v) => Number(v.toFixed(5))), [0.9, 1, 1.1]);
  assert.equal(f.position, undefined);
  dv.setUint32(28, 1 << 1, true); // position: 9 floats, only 3 there
  assert.throws(() => decodeBinaryFrame(buf), /shorter/);
  assert.throws(() => decodeBinaryFrame(new ArrayBuffer(8)), /shorter/);
  assert.throws(() => decodeBinaryFrame(new ArrayBuffer(40)), /RODF/);
});

test("arm length, tip and the colour fields", () => {
  const f = decodeJsonFrame(jsonFrame({ n: 11, L: 0.5, e: 0.2 }));
  assert.ok(Math.abs(armLength(f) - 0.6) < 1e-6);
  assert.ok(Math.abs(tipPosition(f)[2] - 0.6) < 1e-6);
  const strain = fieldValues(f, "strain");
  assert.ok(Math.abs(strain[3] - 0.2) < 1e-6);
  const kappa = fieldValues(f, "kappa");
  assert.ok(Math.abs(kappa[10] - 1.0) < 1e-6);
  assert.deepEqual([...fieldValues(f, "rho")], Array(11).fill(1));
});

test("the history keeps a minute of simulated time and starts over when time goes back", () => {
  const h = new History({ window: 60, capacity: 10000, frameSpacing: 0.05 });
  for (let k = 0; k <= 3000; k++) h.push(decodeJsonFrame(jsonFrame({ t: k / 30 })));
  assert.ok(Math.abs(h.last("t") - 100) < 1e-9);
  assert.ok(h.value("t", 0) >= 40 - 1e-9 && h.value("t", 0) < 40.05);
  // 30 Hz frames, at least 0.05 s apart: every other one, 15 per simulated second
  assert.ok(Math.abs(h.frames.length - 900) <= 2, `${h.frames.length} frames kept`);
  assert.ok(Math.abs(h.frameNear(55.01).t - 55) < 0.05);
  assert.equal(h.frameNear(-5).t, h.frames[0].t);
  h.push(decodeJsonFrame(jsonFrame({ t: 0 }))); // a reset
  assert.equal(h.count, 1);
  assert.equal(h.frames.length, 1);
});

test("the history's capacity bounds it whatever the time step", () => {
  const h = new History({ window: 60, capacity: 100, frameSpacing: 0.05 });
  for (let k = 0; k < 1000; k++) h.push(decodeJsonFrame(jsonFrame({ t: k * 1e-3 })));
  assert.equal(h.count, 100);
  assert.ok(Math.abs(h.value("t", 0) - 0.9) < 1e-9);
});

test("spec errors land on the line of their path, or of the nearest enclosing value", () => {
  const spec = { model: "extended", rod: { length: 0.5, "a/b": 1, radius: { base: 0.01 } }, actuators: [{ name: "LM1" }] };
  const lines = linesWithPaths(spec);
  assert.equal(lines.map((l) => l.text).join("\n"), JSON.stringify(spec, null, 2));
  const placed = placeErrors(lines, [
    { path: "/rod/length", message: "too short" },
    { path: "/rod/a~1b", message: "odd key" },
    { path: "/actuators/0/tension", message: "is required" },
    { path: "/strains", message: "is required" },
    { path: "", message: "everything is wrong" },
  ]);
  const at = (i) => lines[placed[i].line];
  assert.equal(at(0).path, "/rod/length");
  assert.match(at(0).text, /"length": 0.5/);
  assert.equal(at(1).path, "/rod/a~1b");
  assert.equal(at(2).path, "/actuators/0");
  assert.equal(placed[2].message, "tension: is required");
  assert.equal(placed[3].line, 0);
  assert.equal(placed[3].message, "strains: is required");
  assert.equal(placed[4].line, 0);
});

test("the colour range grows, keeps a minimum span and maps into viridis", () => {
  const r = new ColorRange(0.1);
  r.include([1, 1, 1]);
  assert.deepEqual(r.bounds().map((v) => Number(v.toFixed(6))), [0.95, 1.05]);
  r.include([0, 2]);
  assert.deepEqual(r.bounds(), [0, 2]);
  assert.equal(r.normalize(1), 0.5);
  const c = new Float32Array(3);
  viridis(0, c);
  assert.deepEqual([...c].map((v) => Math.round(255 * v)), [68, 1, 84]);
  viridis(1, c);
  assert.deepEqual([...c].map((v) => Math.round(255 * v)), [253, 231, 37]);
  viridis(NaN, c); // no colour is NaN
  assert.ok(c.every(Number.isFinite));
});

test("a poll never overlaps itself, and now() during a run runs it once more right after", async () => {
  let running = 0;
  let most = 0;
  let runs = 0;
  const p = poller(10000, async () => {
    running++;
    most = Math.max(most, running);
    runs++;
    await new Promise((r) => setTimeout(r, 30));
    running--;
  });
  p.now();
  p.now(); // while the first is in flight
  p.now();
  await new Promise((r) => setTimeout(r, 150));
  p.stop();
  assert.equal(most, 1);
  assert.equal(runs, 2);
  p.now(); // stopped: nothing
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(runs, 2);
});

test("plot ticks: the decimals their step needs, a whole minus sign, exactly 0, exponents only at the extremes", () => {
  assert.deepEqual(tickLabels([-2.98, -2.97, -2.96], 0.01), ["-2.98", "-2.97", "-2.96"]);
  assert.deepEqual(tickLabels([0.5536, 0.5538, 0.554], 0.0002), ["0.5536", "0.5538", "0.5540"]);
  assert.deepEqual(tickLabels([-2.8e-17, 0.5, 1], 0.5), ["0", "0.5", "1.0"]);
  assert.deepEqual(tickLabels([0, 2e-7, 4e-7], 2e-7), ["0", "2.0e-7", "4.0e-7"]);
  assert.deepEqual(tickLabels([0, 50000, 100000], 50000), ["0", "5.0e+4", "1.0e+5"]);
  // a constant series gets a span of 1e-3 of its level, not one of float noise
  const [lo, hi] = yRange(0.553703, 0.553703);
  assert.ok(Math.abs(hi - lo - 0.553703e-3) < 1e-12 && lo < 0.553703 && hi > 0.553703);
  assert.deepEqual(yRange(0, 0, 0.1), [-0.05, 0.05], "a zero series spans the plot's floor");
  const [a, b] = yRange(-2.98, -2.9);
  assert.ok(a < -2.98 && b > -2.9 && b - a < 0.1);
});

test("JSON frames keep a moving base's pose, the bodies and the constraints for the view", () => {
  const m = jsonFrame({ n: 3 });
  m.base = { position: [0.1, 0, 0], rotation: [1, 0, 0, 0, 1, 0, 0, 0, 1] };
  m.bodies = { payload: { position: [0.1, 0, 0.5] } };
  m.constraints = {
    tip: { force: [1, 0, 0], moment: [0, 0, 0], point: [0.1, 0, 0.5], target: [0.1, 0, 0.5], violation: 0 },
    V: { pressure: 200, violation: 1e-14 },
  };
  const f = decodeJsonFrame(m);
  assert.deepEqual(f.base.position, [0.1, 0, 0]);
  assert.deepEqual(f.bodies.payload.position, [0.1, 0, 0.5]);
  assert.deepEqual(f.constraints.tip.target, [0.1, 0, 0.5]);
  assert.equal(f.constraints.V.pressure, 200);
  assert.equal(decodeJsonFrame(jsonFrame()).constraints, undefined, "absent when the frame has none");
});

test("recordings: NDJSON frames with their contacts, fields the plots lack as gaps, bad lines named", () => {
  const a = { ...jsonFrame({ t: 0 }), contacts: [] };
  const b = { ...jsonFrame({ t: 0.1, e: 0.01 }), contacts: [{ s: 0.25, point: [0, 0.01, 0.25], force: [0, -1e-3, 0] }] };
  delete b.op;
  const { frames, spec } = parseNdjson(`${JSON.stringify(a)}\n\n${JSON.stringify(b)}\n`);
  assert.equal(spec, null);
  assert.deepEqual(frames.map((f) => f.t), [0, 0.1]);
  assert.deepEqual(frames[1].contacts, b.contacts);
  assert.ok(Math.abs(frames[1].position[3 * 4 + 2] - 0.505) < 1e-6);
  // only what the 3D view needs: rho, kappa and nu are NaN (gaps in the plots), not made up
  const bare = { t: 0, s: [0, 1], position: [[0, 0, 0], [0, 0, 1]], rotation: [[1, 0, 0, 0, 1, 0, 0, 0, 1], [1, 0, 0, 0, 1, 0, 0, 0, 1]], radius: [0.01, 0.01] };
  const [f] = parseNdjson(JSON.stringify(bare)).frames;
  assert.ok(Number.isNaN(f.rho[0]) && Number.isNaN(f.kappa[5]) && f.nu.length === 6);
  const refused = (text, message) => assert.throws(() => readRecording(new TextEncoder().encode(text).buffer), (e) => e instanceof RecordingError && message.test(e.message));
  refused(`${JSON.stringify(a)}\n{"t": 0.2,`, /^line 2 is not JSON/);
  refused(`${JSON.stringify(b)}\n${JSON.stringify(a)}`, /^line 2 goes back in time \(t = 0 after 0\.1\)/);
  refused(`${JSON.stringify({ ...bare, t: "0" })}`, /^line 1 is not a FRAME: it needs a number "t"/);
  refused(`${JSON.stringify({ ...bare, radius: undefined })}`, /^line 1 has no radius: the 3D view needs s, position, rotation, radius/);
  refused("", /^the file has no frames/);
  assert.throws(() => readRecording(new Uint8Array([0xff, 0xfe, 0x00, 0x41]).buffer), /neither HDF5 nor text/);
});

test("an https page opens its stream as wss, on the announced host and port", () => {
  const u = "ws://lab.example.org:8443/v1/sessions/r0-1/stream?ticket=abc";
  assert.equal(streamUrlForPage(u, "https:"), "wss://lab.example.org:8443/v1/sessions/r0-1/stream?ticket=abc");
  assert.equal(streamUrlForPage(u, "http:"), u);
  assert.equal(streamUrlForPage("wss://x/v1/sessions/r0-1/stream", "https:"), "wss://x/v1/sessions/r0-1/stream");
  assert.equal(streamUrlForPage("wss://x/v1/sessions/r0-1/stream", "http:"), "wss://x/v1/sessions/r0-1/stream");
});

test("the clock shows the session's error estimate after the time when it has one", () => {
  assert.equal(fmtClock(1.234), "1.23 s");
  assert.equal(fmtClock(1.234, undefined), "1.23 s");
  assert.equal(fmtClock(0.5, 0.019), "0.50 s · tip error ≈ 1.9 cm");
  assert.equal(fmtClock(0.5, 3.2e-4), "0.50 s · tip error ≈ 0.32 mm");
  assert.equal(fmtClock(0.5, NaN), "0.50 s");
});

/** A frame of several rods in the binary layout's version 2 (server/io/frame_codec.c): rods [{name, m}]. */
function binaryRods(rods, t = 0.5) {
  const parts = [];
  const mask = 0x7f | (1 << 7);
  for (const { name, m } of rods) {
    const bytes = new TextEncoder().encode(name);
    const head = new ArrayBuffer(8 + 4 * Math.ceil(bytes.length / 4));
    const dv = new DataView(head);
    dv.setUint32(0, m.s.length, true);
    dv.setUint32(4, bytes.length, true);
    new Uint8Array(head, 8).set(bytes);
    parts.push(head);
    const arrays = [m.s, m.position.flat(), m.rotation.flat(), m.rho, m.radius, m.kappa.flat(), m.nu.flat()];
    parts.push(Float32Array.from(arrays.flat()).buffer);
  }
  parts.push(Float32Array.from([1, 2, 3]).buffer);
  const header = new ArrayBuffer(32);
  const dv = new DataView(header);
  dv.setUint32(0, 0x46444f52, true);
  dv.setUint16(4, 2, true);
  dv.setUint16(6, 32, true);
  dv.setBigUint64(8, 7n, true);
  dv.setFloat64(16, t, true);
  dv.setUint32(24, rods.length, true);
  dv.setUint32(28, mask, true);
  const all = [header, ...parts];
  const out = new Uint8Array(all.reduce((k, b) => k + b.byteLength, 0));
  let at = 0;
  for (const b of all) {
    out.set(new Uint8Array(b), at);
    at += b.byteLength;
  }
  return out.buffer;
}

test("frames of several rods: every rod kept, the selected rod's fields on the frame, binary and JSON alike", () => {
  const a = jsonFrame({ n: 3, L: 0.3 });
  const b = jsonFrame({ n: 5, L: 0.5, e: 0.1 });
  const strip = ({ op, seq, t, energy, volume_change, ...rest }) => rest;
  const json = { op: "frame", seq: 7, t: 0.5, rods: [{ name: "arm1", ...strip(a) }, { name: "arm2", ...strip(b) }], energy: { kinetic: 1, elastic: 2, gravity: 3 } };
  try {
    for (const f of [decodeJsonFrame(json), decodeBinaryFrame(binaryRods([{ name: "arm1", m: a }, { name: "arm2", m: b }]))]) {
      assert.deepEqual(rodNames(f), ["arm1", "arm2"]);
      assert.equal(f.rod, "arm1", "the first rod by default");
      assert.equal(f.n, 3);
      assert.ok(Math.abs(tipPosition(f)[2] - 0.3) < 1e-6);
      assert.equal(f.rods[1].n, 5);
      assert.equal(f.energy.gravity, 3);
      selectRod("arm2");
      withSelectedRod(f);
      assert.equal(f.rod, "arm2");
      assert.equal(f.n, 5);
      assert.ok(Math.abs(tipPosition(f)[2] - 0.55) < 1e-6);
      selectRod(null);
    }
    assert.throws(() => decodeBinaryFrame(binaryRods([{ name: "arm1", m: a }]).slice(0, 60)), /shorter/);
    assert.deepEqual(rodNames(decodeJsonFrame(jsonFrame())), [], "one rod: no rods");
  } finally {
    selectRod(null);
  }
});

test("an HDF5 recording of several rods (rodd run of two-rods-joined): rods/NAME and a joined rod's base read, the first rod shown", async (t) => {
  const { spawnSync } = await import("node:child_process");
  const fs = await import("node:fs");
  const os = await import("node:os");
  const path = await import("node:path");
  const top = path.resolve(path.dirname(new URL(import.meta.url).pathname), "../..");
  const rodd = path.resolve(top, process.env.RODD || "build/rodd");
  if (!fs.existsSync(rodd)) return t.skip(`${rodd} is not built`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rodd-rods-"));
  try {
    const out = path.join(dir, "two.h5");
    const run = (fmt, file) => spawnSync(rodd, ["run", path.join(top, "api/examples/two-rods-joined.json"), "--until", "0.01", "--every", "0.005", "--points", "5", "--format", fmt, ...(file ? ["--out", file] : [])], { encoding: fmt === "hdf5" ? undefined : "utf8" });
    assert.equal(run("hdf5", out).status, 0);
    const nd = parseNdjson(run("ndjson").stdout).frames;
    const buf = fs.readFileSync(out);
    const { frames } = readRecording(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
    assert.equal(frames.length, 3);
    const [h, j] = [frames[2], nd[2]];
    assert.deepEqual(rodNames(h), rodNames(j));
    assert.equal(h.rod, rodNames(j)[0]);
    for (let r = 0; r < 2; r++) {
      for (let i = 0; i < 15; i++) assert.ok(Math.abs(h.rods[r].position[i] - j.rods[r].position[i]) < 1e-6, `rod ${r} position ${i}`);
    }
    assert.ok(h.constraints && Object.keys(h.constraints).length >= 1);
    // the joined rod's base pose (rods/NAME/base), as the NDJSON's rods[].base
    const joined = j.rods.findIndex((r) => r.base);
    assert.ok(joined >= 0 && !h.rods[0].base === !j.rods[0].base, "a joined rod has a base");
    for (const [k, w] of [["position", 3], ["rotation", 9]])
      for (let i = 0; i < w; i++) assert.ok(Math.abs(h.rods[joined].base[k][i] - j.rods[joined].base[k][i]) < 1e-9, `base ${k} ${i}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

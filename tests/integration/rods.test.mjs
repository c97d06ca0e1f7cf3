// A session of several rods (issue 29) on the daemon: GET .../frame, the stream's whole JSON
// FRAME, its chosen fields and its binary frames (version 2, decoded by the viewer's own
// decoder) all carry every rod by name; the recording exports them as CSV with a rod column, and
// keeps the joined rod's base pose.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { api, openStream, startDaemon } from "./daemon.mjs";
import { decodeBinaryFrame } from "../../web/src/frame.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const spec = JSON.parse(fs.readFileSync(path.join(here, "../cli/rods.json"), "utf8"));
delete spec.duration; // runs until deleted

test("a session of two rods: REST, stream JSON, chosen fields, binary version 2 and the recording", async () => {
  const d = await startDaemon();
  try {
    const r = await api(d, "POST", "/v1/sessions", { spec, start: true, points: 7, recording: { enabled: true, rate: 50 } });
    assert.equal(r.status, 201, JSON.stringify(r.json));
    const id = r.json.id;
    const f = (await api(d, "GET", `/v1/sessions/${id}/frame`)).json;
    assert.deepEqual(f.rods.map((x) => x.name), ["upper", "lower"]);
    assert.equal(f.rods[1].position.length, 7);
    assert.ok(!("position" in f), "no top-level per-point fields");
    assert.ok(f.constraints["lower.base"], "the joint's reaction");

    const c = openStream(r.json.stream_url);
    await c.ready;
    assert.ok(await c.waitFor((k) => k.frames.length >= 2));
    const whole = c.frames[c.frames.length - 1];
    assert.deepEqual(whole.rods.map((x) => x.name), ["upper", "lower"]);
    assert.ok(whole.constraints["lower.base"]);

    c.send({ op: "subscribe", fields: ["position"] });
    await c.waitFor((k) => k.messages.some((m) => m.op === "subscribed"));
    const n0 = c.frames.length;
    assert.ok(await c.waitFor((k) => k.frames.length >= n0 + 2));
    const chosen = c.frames[c.frames.length - 1];
    assert.deepEqual(Object.keys(chosen.rods[0]).sort(), ["name", "position"]);
    assert.ok(!("constraints" in chosen), "chosen fields leave the mechanics out");

    c.send({ op: "subscribe", format: "binary", fields: ["position", "radius", "energy"] });
    assert.ok(await c.waitFor((k) => k.binary.length >= 2, 5000));
    const b = c.binary[c.binary.length - 1].data;
    assert.equal(b.readUInt16LE(4), 2, "version 2");
    const ab = b.buffer.slice(b.byteOffset, b.byteOffset + b.length);
    const g = decodeBinaryFrame(ab);
    assert.deepEqual(g.rods.map((x) => x.name), ["upper", "lower"]);
    assert.equal(g.rods[1].n, 7);
    // the lower rod hangs from the upper one's tip (a fixed joint), to float32
    for (let k = 0; k < 3; k++) assert.ok(Math.abs(g.rods[0].position[18 + k] - g.rods[1].position[k]) < 1e-5);
    assert.ok(Number.isFinite(g.energy.kinetic));
    c.close();

    const csv = await fetch(`http://127.0.0.1:${d.http}/v1/sessions/${id}/recording?format=csv`);
    assert.equal(csv.status, 200);
    const lines = (await csv.text()).trim().split("\n");
    assert.ok(lines[0].startsWith("t,rod,point,"), lines[0]);
    assert.ok(lines.length > 1 + 14, `${lines.length} lines`);
    assert.deepEqual([...new Set(lines.slice(1).map((l) => l.split(",")[1]))], ["upper", "lower"]);
    // the joined rod's base pose is recorded: on each frame where the joint holds it, at the
    // upper rod's tip (the NDJSON download), and in the CSV's base columns of its rows only
    const rec = (await (await fetch(`http://127.0.0.1:${d.http}/v1/sessions/${id}/recording`)).text()).trim().split("\n");
    for (const line of rec) {
      const fr = JSON.parse(line);
      assert.ok(!("base" in fr.rods[0]) && fr.rods[1].base, line.slice(0, 200));
      const tip = fr.rods[0].position.at(-1);
      for (let k = 0; k < 3; k++) assert.ok(Math.abs(fr.rods[1].base.position[k] - tip[k]) < 1e-6, line.slice(0, 200));
      assert.equal(fr.rods[1].base.rotation.length, 9);
    }
    const head = lines[0].split(","), bx = head.indexOf("base.x");
    assert.ok(bx > 0, lines[0]);
    for (const l of lines.slice(1)) assert.equal(l.split(",")[bx] === "", l.split(",")[1] === "upper", l);
  } finally {
    await d.stop();
    d.cleanup();
  }
});

// Inputs on the first rod (whose model is the assembly's own) and one input name in two rods:
// such a POST killed the daemon (a recursion in the publish), its description hung; a profile
// for a.lift answered 404; a checkpoint answered 500 "out of memory" (checkpoints of several rods were not written yet).
test("two rods with inputs of one name: create, command each, profiles, checkpoint", async () => {
  const d = await startDaemon();
  try {
    const lift = (v) => [{ name: "lift", type: "cable", route: { offset: [-0.8, 0], relative_to_radius: true }, tension: v }];
    const two = structuredClone(spec);
    two.rods[0].name = "a";
    two.rods[1].name = "b";
    two.rods[1].base.to.rod = "a";
    two.rods[0].actuators = lift(0);
    two.rods[1].actuators = lift("0.1*t");
    const r = await api(d, "POST", "/v1/sessions", { spec: two, points: 5 });
    assert.equal(r.status, 201, JSON.stringify(r.json));
    const id = r.json.id;
    assert.deepEqual(r.json.inputs.map((x) => [x.name, x.type, x.profile]), [["a.lift", "cable", false], ["b.lift", "cable", true]]);
    let p = await api(d, "PATCH", `/v1/sessions/${id}/actuators`, { "a.lift": 0.5, "b.lift": 0.2 });
    assert.equal(p.status, 200, JSON.stringify(p.json));
    p = await api(d, "PUT", `/v1/sessions/${id}/actuators/a.lift`, { value: "0.1*t" });
    assert.equal(p.status, 200, JSON.stringify(p.json));
    p = await api(d, "PATCH", `/v1/sessions/${id}/actuators`, { lift: 0.1 });
    assert.equal(p.status, 404);
    const a = await api(d, "POST", `/v1/sessions/${id}:advance`, { by: 0.02 });
    assert.equal(a.status, 200, JSON.stringify(a.json));
    assert.equal(a.json.state, "paused", JSON.stringify(a.json.failure));
    const c = await api(d, "GET", `/v1/sessions/${id}/checkpoint`);
    assert.equal(c.status, 200, JSON.stringify(c.json));
    assert.ok(JSON.stringify(c.json).includes("\"rods\""), "each rod's own checkpoint under rods");
    assert.equal((await api(d, "GET", "/livez")).status, 200);
  } finally {
    await d.stop();
  }
});

// Foxglove and MCAP (issue 33, item 1): a recording downloaded as MCAP (?format=mcap and Accept:
// application/x-mcap) is read back by @mcap/core, every message valid against its schema and
// equal to the NDJSON download of the same frames (mcap_check.mjs); a client that asks for
// foxglove.websocket.v1 at the stream URL (the REST port's and the stream port's) is served by
// Foxglove's own client library: serverInfo first, the channels advertised, subscribe and
// unsubscribe, messages valid against their schemas and equal to rodd's own stream's frames.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Ajv from "ajv";
import foxglove from "@foxglove/ws-protocol";
import WebSocket from "ws";
import { api, cableSpec, openStream, sleep, startDaemon } from "./daemon.mjs";

const { FoxgloveClient } = foxglove;

const here = path.dirname(new URL(import.meta.url).pathname);
let d, id, tmp;
before(async () => {
  d = await startDaemon();
  id = (await api(d, "POST", "/v1/sessions", { spec: cableSpec(), start: true, points: 11 })).json.id;
  tmp = mkdtempSync(path.join(os.tmpdir(), "rodd-fox-"));
  await sleep(400);
});
after(async () => {
  if (d) await d.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const bytes = async (p, headers = {}) => {
  const r = await fetch(d.url(p), { headers });
  return { status: r.status, type: r.headers.get("content-type"), disposition: r.headers.get("content-disposition"),
    body: Buffer.from(await r.arrayBuffer()) };
};

test("a recording as MCAP: every frame read back by @mcap/core, equal to the NDJSON", async () => {
  // a fixed range, so both downloads hold the same frames while the session runs on
  const s = await api(d, "GET", `/v1/sessions/${id}`);
  const to = s.json.t;
  assert.ok(to > 0, "the session has run");
  const ndjson = await bytes(`/v1/sessions/${id}/recording?to=${to}`);
  const mcap = await bytes(`/v1/sessions/${id}/recording?format=mcap&to=${to}`);
  assert.equal(mcap.status, 200);
  assert.equal(mcap.type, "application/x-mcap");
  assert.match(mcap.disposition, /\.mcap"$/);
  const byAccept = await bytes(`/v1/sessions/${id}/recording?to=${to}`, { accept: "application/x-mcap" });
  assert.equal(byAccept.type, "application/x-mcap");
  assert.deepEqual(byAccept.body, mcap.body, "the same file either way");
  writeFileSync(path.join(tmp, "r.mcap"), mcap.body);
  writeFileSync(path.join(tmp, "r.ndjson"), ndjson.body);
  const out = execFileSync("node", [path.join(here, "mcap_check.mjs"), path.join(tmp, "r.mcap"), path.join(tmp, "r.ndjson")],
    { encoding: "utf8" });
  const frames = ndjson.body.toString().trim().split("\n").length;
  assert.match(out, new RegExp(`all ${frames} frames read back`), out);
  assert.match(out, /channels: \/rod\/energy \/rod\/scene \/rod\/tip \/rod\/volume_change/, out);
});

test("?format= names mcap among the formats it allows", async () => {
  const r = await api(d, "GET", `/v1/sessions/${id}/recording?format=mcap2`);
  assert.equal(r.status, 400);
  assert.match(r.text, /ndjson, csv, hdf5 or mcap/);
});

// Foxglove's client on a stream URL: every event in order, messages decoded as JSON.
function foxClient(url) {
  const ws = new WebSocket(url, [FoxgloveClient.SUPPORTED_SUBPROTOCOL]);
  const client = new FoxgloveClient({ ws });
  const f = { ws, client, events: [], channels: [], messages: [], statuses: [] };
  client.on("serverInfo", (i) => f.events.push(["serverInfo", i]));
  client.on("advertise", (chs) => {
    f.events.push(["advertise", chs]);
    f.channels.push(...chs);
  });
  client.on("status", (st) => f.statuses.push(st));
  client.on("message", ({ subscriptionId, timestamp, data }) =>
    f.messages.push({ sub: subscriptionId, timestamp, msg: JSON.parse(new TextDecoder().decode(data)) }));
  f.until = async (pred, ms = 5000) => {
    for (const t0 = Date.now(); Date.now() - t0 < ms; await sleep(20)) if (pred()) return true;
    return false;
  };
  return f;
}

for (const port of ["rest", "stream"]) {
  test(`foxglove.websocket.v1 on the ${port} port: Foxglove's client gets rodd's channels and frames`, async () => {
    const where = `/v1/sessions/${id}/stream`;
    const url = port === "rest" ? d.restWsUrl(where) : d.wsUrl(where);
    const own = openStream(url); // rodd's own protocol beside it, on the same URL
    const f = foxClient(url);
    try {
      assert.ok(await f.until(() => f.channels.length === 5), "five channels advertised");
      assert.equal(f.ws.protocol, "foxglove.websocket.v1");
      assert.equal(f.events[0][0], "serverInfo", "serverInfo first");
      assert.equal(f.events[0][1].name, "rodd");
      assert.deepEqual(f.events[0][1].capabilities, []);
      assert.deepEqual(f.channels.map((c) => c.topic), ["/rod/scene", "/rod/tip", "/rod/energy", "/rod/volume_change", "/rod/inputs"]);
      assert.equal(f.channels[0].schemaName, "foxglove.SceneUpdate");
      const ajv = new Ajv({ strict: false });
      const subs = new Map();
      for (const c of f.channels) {
        assert.equal(c.encoding, "json");
        assert.equal(c.schemaEncoding, "jsonschema");
        subs.set(f.client.subscribe(c.id), { topic: c.topic, validate: ajv.compile(JSON.parse(c.schema)) });
      }
      await own.ready;
      assert.ok(await f.until(() => f.messages.length >= 40), `messages came (${f.messages.length})`);
      for (const m of f.messages) {
        const s = subs.get(m.sub);
        assert.ok(s, `subscription ${m.sub} is one of the client's`);
        assert.ok(s.validate(m.msg), `${s.topic}: ${ajv.errorsText(s.validate.errors)}`);
        // the simulated time in ns: the scene's own stamp exactly, t (10 digits) nearly
        const stamp = m.msg.entities?.[0].timestamp;
        if (stamp) assert.equal(m.timestamp, BigInt(stamp.sec) * 1000000000n + BigInt(stamp.nsec));
        else assert.ok(Math.abs(Number(m.timestamp) - m.msg.t * 1e9) <= Math.abs(m.msg.t) * 0.6 + 1, "timestamp = t");
      }
      // a frame's data equal to rodd's own stream's: the same t on both, the same numbers
      const tipSub = [...subs].find(([, s]) => s.topic === "/rod/tip")[0];
      const sceneSub = [...subs].find(([, s]) => s.topic === "/rod/scene")[0];
      let same = null;
      assert.ok(await own.waitFor(() => {
        for (const fr of own.frames) {
          const tip = f.messages.find((m) => m.sub === tipSub && m.msg.t === fr.t);
          if (tip) return (same = { fr, tip });
        }
        return false;
      }), "a frame on both streams");
      const end = same.fr.position.at(-1);
      assert.deepEqual([same.tip.msg.x, same.tip.msg.y, same.tip.msg.z], end);
      const scene = f.messages.find((m) => m.sub === sceneSub && m.timestamp === same.tip.timestamp).msg.entities[0];
      assert.deepEqual(scene.lines[0].points.map((p) => [p.x, p.y, p.z]), same.fr.position);
      assert.equal(scene.cylinders.length, same.fr.position.length - 1);
      assert.equal(scene.frame_id, "world");

      // the inputs' channel follows a command
      const inputsSub = [...subs].find(([, s]) => s.topic === "/rod/inputs")[0];
      const lm1 = port === "rest" ? 0.03 : 0.04;
      assert.equal((await api(d, "PUT", `/v1/sessions/${id}/actuators/LM1`, { value: lm1 })).status, 200);
      assert.ok(await f.until(() => f.messages.some((m) => m.sub === inputsSub && m.msg.LM1 === lm1 && m.msg.TM === 0)),
        JSON.stringify(f.messages.filter((m) => m.sub === inputsSub).at(-1)?.msg));

      // unsubscribe: that channel stops, the others go on
      f.client.unsubscribe(tipSub);
      await sleep(150);
      const tips = f.messages.filter((m) => m.sub === tipSub).length, all = f.messages.length;
      assert.ok(await f.until(() => f.messages.length >= all + 12));
      assert.equal(f.messages.filter((m) => m.sub === tipSub).length, tips, "no tip after unsubscribe");

      // frames keep coming at the stream's rate (30 Hz by default): none stalls behind the
      // messages of the one before
      const before = new Set(f.messages.filter((m) => m.sub === sceneSub).map((m) => m.timestamp)).size;
      await sleep(1500);
      const frames = new Set(f.messages.filter((m) => m.sub === sceneSub).map((m) => m.timestamp)).size - before;
      assert.ok(frames >= 15, `${frames} frames in 1.5 s`);

      // a subscription to no channel is answered with an error status
      f.ws.send(JSON.stringify({ op: "subscribe", subscriptions: [{ id: 77, channelId: 99 }] }));
      assert.ok(await f.until(() => f.statuses.some((st) => st.level === 2 && /no channel 99/.test(st.message))),
        JSON.stringify(f.statuses));
      assert.equal(own.messages[0].op, "hello", "rodd's own protocol is still the default");
    } finally {
      f.client.close();
      own.close();
    }
  });
}

// Several rods (issue 29): the MCAP export's topics live, each rod's scene and tip and the
// joined rod's base on channels of their own, no /rod/tip (it showed the first rod's); each
// message equal to rodd's own stream's frame of the same t.
test("foxglove.websocket.v1, several rods: /rods/NAME/{scene,tip,base}, each rod's own", async () => {
  const spec = JSON.parse(readFileSync(path.join(here, "../cli/rods.json"), "utf8"));
  delete spec.duration;
  const r = await api(d, "POST", "/v1/sessions", { spec, start: true, points: 6 });
  assert.equal(r.status, 201, JSON.stringify(r.json));
  const own = openStream(r.json.stream_url);
  const f = foxClient(r.json.stream_url);
  try {
    assert.ok(await f.until(() => f.channels.length === 7), JSON.stringify(f.channels.map((c) => c.topic)));
    assert.deepEqual(f.channels.map((c) => [c.id, c.topic]), [[3, "/rod/energy"], [4, "/rod/volume_change"],
      [6, "/rods/upper/scene"], [7, "/rods/upper/tip"], [9, "/rods/lower/scene"], [10, "/rods/lower/tip"], [11, "/rods/lower/base"]]);
    const ajv = new Ajv({ strict: false });
    const subs = new Map(f.channels.map((c) => [f.client.subscribe(c.id), { topic: c.topic, validate: ajv.compile(JSON.parse(c.schema)) }]));
    const sub = (topic) => [...subs].find(([, s]) => s.topic === topic)[0];
    await own.ready;
    assert.ok(await f.until(() => f.messages.length >= 40), `messages came (${f.messages.length})`);
    for (const m of f.messages) assert.ok(subs.get(m.sub).validate(m.msg), `${subs.get(m.sub).topic}: ${ajv.errorsText(subs.get(m.sub).validate.errors)}`);
    // a frame whose message came on every rod's channel (a frame's messages come channel after
    // channel, and a slow reader's may be dropped)
    const find = (topic, stamp) => f.messages.find((m) => m.sub === sub(topic) && m.timestamp === stamp);
    const others = ["/rods/upper/tip", "/rods/upper/scene", "/rods/lower/scene", "/rods/lower/base"];
    let same = null;
    assert.ok(await own.waitFor(() => {
      for (const fr of own.frames) {
        const tip = f.messages.find((m) => m.sub === sub("/rods/lower/tip") && m.msg.t === fr.t);
        if (tip && others.every((topic) => find(topic, tip.timestamp))) return (same = { fr, tip });
      }
      return false;
    }), "a frame on both streams");
    const [upper, lower] = same.fr.rods;
    assert.deepEqual([same.tip.msg.x, same.tip.msg.y, same.tip.msg.z], lower.position.at(-1), "the lower rod's tip");
    const at = (topic) => find(topic, same.tip.timestamp).msg;
    assert.deepEqual((({ x, y, z }) => [x, y, z])(at("/rods/upper/tip")), upper.position.at(-1), "the upper rod's tip");
    assert.deepEqual(at("/rods/upper/scene").entities[0].lines[0].points.map((p) => [p.x, p.y, p.z]), upper.position);
    assert.equal(at("/rods/lower/scene").entities[0].id, "lower");
    const pose = at("/rods/lower/base").pose;
    assert.deepEqual([pose.position.x, pose.position.y, pose.position.z], lower.base.position, "the joined rod's base");
    const { x, y, z, w } = pose.orientation; // the quaternion's matrix is the frame's rotation
    const R = [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w), 2 * (x * y + z * w), 1 - 2 * (x * x + z * z),
      2 * (y * z - x * w), 2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)];
    R.forEach((v, i) => assert.ok(Math.abs(v - lower.base.rotation[i]) < 1e-8, `R[${i}] ${v} vs ${lower.base.rotation[i]}`));
    f.ws.send(JSON.stringify({ op: "subscribe", subscriptions: [{ id: 77, channelId: 2 }] }));
    assert.ok(await f.until(() => f.statuses.some((st) => st.level === 2 && /no channel 2 \(channels are 3\.\.4, 6\.\.7, 9\.\.11\)/.test(st.message))),
      JSON.stringify(f.statuses));
  } finally {
    f.client.close();
    own.close();
    await api(d, "DELETE", `/v1/sessions/${r.json.id}`);
  }
});

// A subscription too long for a message (100,000 fields; 100,000 Foxglove subscriptions) was
// closed with 1009 and its rest unread, so the connection was reset and clients often saw no
// answer (a 1006): it is now read to its end, dropped, and answered with an error naming the
// limit, and the stream goes on (rodd's protocol and Foxglove's). Ten times each: the reset
// was one in a dozen.
test("a subscribe over ws_max_message: an error naming the limit, and the stream goes on", async () => {
  const where = `/v1/sessions/${id}/stream`;
  for (let i = 0; i < 10; i++) {
    const own = openStream(i % 2 ? d.restWsUrl(where) : d.wsUrl(where));
    try {
      await own.ready;
      const n = JSON.stringify({ op: "subscribe", fields: Array(100000).fill("position") }).length;
      own.send({ op: "subscribe", fields: Array(100000).fill("position") });
      assert.ok(await own.waitFor((k) => k.messages.some((m) => m.op === "status" && m.level === "error"), 5000),
        JSON.stringify({ closed: own.closed, msgs: own.messages.filter((m) => m.op !== "frame").slice(-3) }));
      const st = own.messages.find((m) => m.op === "status" && m.level === "error");
      assert.equal(st.message, `a message is at most 4096 bytes (the daemon's ws_max_message, RODD_WS_MAX_MESSAGE); this one had ${n} and was dropped`);
      own.send({ op: "subscribe", fields: ["position"] });
      assert.ok(await own.waitFor((k) => k.messages.some((m) => m.op === "subscribed"), 5000), "answered after");
      assert.equal(own.closed, null);
    } finally {
      own.close();
    }
  }
  const f = foxClient(d.restWsUrl(where));
  try {
    assert.ok(await f.until(() => f.channels.length >= 4));
    f.ws.send(JSON.stringify({ op: "subscribe", subscriptions: Array.from({ length: 100000 }, (_, i) => ({ id: i, channelId: 1 })) }));
    assert.ok(await f.until(() => f.statuses.some((s) => s.level === 2 && /at most 4096 bytes .* was dropped/.test(s.message))),
      JSON.stringify(f.statuses));
    const sub = f.client.subscribe(f.channels[0].id);
    assert.ok(await f.until(() => f.messages.some((m) => m.sub === sub)), "messages after");
  } finally {
    f.client.close();
  }
});

// A stream client's frames on the REST port are held to RFC 6455's framing rules (the stream
// server behind it, libwebsockets, takes unmasked client frames among others): the first frame
// that breaks a rule closes that stream with 1002 and its reason, and nothing the client sent
// after it reaches the stream server; other streams and the REST API go on. Frames are built
// here byte by byte from the RFC's layout over a raw socket. Wall-clock limits scale with
// RODD_TEST_TIME_SCALE.
import { test } from "node:test";
import assert from "node:assert/strict";
import crypto from "node:crypto";
import net from "node:net";
import { api, cableSpec, openStream, startDaemon } from "./daemon.mjs";

const SCALE = Number(process.env.RODD_TEST_TIME_SCALE ?? 1);

// A client frame: FIN, opcode, mask bit and key as asked, the payload masked when it is.
function frame({ fin = true, rsv = 0, op, masked = true, payload = Buffer.alloc(0) }) {
  const n = payload.length;
  const head = [((fin ? 0x80 : 0) | (rsv << 4) | op) & 0xff];
  const m = masked ? 0x80 : 0;
  if (n < 126) head.push(m | n);
  else head.push(m | 126, n >> 8, n & 0xff);
  const key = Buffer.from([0x11, 0x22, 0x33, 0x44]);
  const body = Buffer.from(payload);
  if (masked) for (let i = 0; i < n; i++) body[i] ^= key[i % 4];
  return Buffer.concat([Buffer.from(head), masked ? key : Buffer.alloc(0), body]);
}

// The server's frames (unmasked, RFC 6455 5.1) as they arrive: opcode and payload.
function serverFrames(buf) {
  const out = [];
  let p = 0;
  while (buf.length - p >= 2) {
    let n = buf[p + 1] & 0x7f, h = 2;
    if (n === 126) (n = buf.readUInt16BE(p + 2)), (h = 4);
    else if (n === 127) (n = Number(buf.readBigUInt64BE(p + 2))), (h = 10);
    if (buf.length - p < h + n) break;
    out.push({ op: buf[p] & 0x0f, payload: buf.subarray(p + h, p + h + n) });
    p += h + n;
  }
  return out;
}

// A raw WebSocket on the REST port, handshake done by hand; what the server sends, parsed.
function rawStream(d, path) {
  return new Promise((resolve, reject) => {
    const s = net.connect({ port: d.http, host: "127.0.0.1" });
    const key = crypto.randomBytes(16).toString("base64");
    let got = Buffer.alloc(0), upgraded = false;
    const c = { s, frames: [], ended: false, send: (b) => s.write(b) };
    c.waitFor = async (pred, ms) => {
      const until = Date.now() + ms;
      while (Date.now() < until) {
        if (pred(c)) return true;
        await new Promise((r) => setTimeout(r, 20));
      }
      return pred(c);
    };
    s.on("error", () => {});
    s.on("close", () => (c.ended = true));
    s.on("data", (chunk) => {
      got = Buffer.concat([got, chunk]);
      if (!upgraded) {
        const i = got.indexOf("\r\n\r\n");
        if (i < 0) return;
        const head = got.subarray(0, i).toString();
        if (!/^HTTP\/1\.1 101/.test(head)) return reject(new Error(head));
        upgraded = true;
        got = got.subarray(i + 4);
        resolve(c);
      }
      c.frames = serverFrames(got);
    });
    s.write(
      `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${d.http}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    );
  });
}

const texts = (c) => c.frames.filter((f) => f.op === 1).map((f) => JSON.parse(f.payload.toString()));
const closeOf = (c) => {
  const f = c.frames.find((x) => x.op === 8);
  return f && { code: f.payload.length >= 2 ? f.payload.readUInt16BE(0) : null, reason: f.payload.subarray(2).toString() };
};

test("a client frame that breaks RFC 6455 closes its stream with 1002; other streams and the API go on", async () => {
  const d = await startDaemon({ streamPort: false });
  try {
    const id = (await api(d, "POST", "/v1/sessions", { spec: cableSpec(), start: true, points: 11 })).json.id;
    const path = `/v1/sessions/${id}/stream`;
    const bystander = openStream(d.restWsUrl(path));
    await bystander.ready;
    const cases = [
      { why: /unmasked/, bad: frame({ op: 1, masked: false, payload: Buffer.from('{"op":"ping"}') }) },
      { why: /reserved bits/, bad: frame({ op: 1, rsv: 4, payload: Buffer.from('{"op":"ping"}') }) },
      { why: /unknown opcode/, bad: frame({ op: 3 }) },
      { why: /control frame/, bad: frame({ op: 9, fin: false }) },
      { why: /continuation/, bad: frame({ op: 0, payload: Buffer.from("x") }) },
    ];
    for (const { why, bad } of cases) {
      const c = await rawStream(d, path);
      assert.ok(await c.waitFor((k) => texts(k).some((m) => m.op === "description"), 3000 * SCALE), "hello and description");
      // a good ping first: answered, so the splice carries masked frames both ways
      c.send(frame({ op: 1, payload: Buffer.from('{"op":"ping"}') }));
      assert.ok(await c.waitFor((k) => texts(k).some((m) => m.op === "pong"), 3000 * SCALE), "pong");
      // the bad frame, and a good ping after it that must not be answered
      c.send(Buffer.concat([bad, frame({ op: 1, payload: Buffer.from('{"op":"ping"}') })]));
      assert.ok(await c.waitFor((k) => closeOf(k), 3000 * SCALE), `a Close for ${why}`);
      const cl = closeOf(c);
      assert.equal(cl.code, 1002, JSON.stringify(cl));
      assert.match(cl.reason, why);
      assert.equal(texts(c).filter((m) => m.op === "pong").length, 1, "nothing after the bad frame was read");
      assert.ok(await c.waitFor((k) => k.ended, 3000 * SCALE), "and the connection ends");
    }
    // a bad frame cut across writes is refused as whole; a good one cut anywhere passes
    const c = await rawStream(d, path);
    const ping = frame({ op: 1, payload: Buffer.from('{"op":"ping"}') });
    for (const b of ping) {
      c.send(Buffer.from([b]));
      await new Promise((r) => setTimeout(r, 2));
    }
    assert.ok(await c.waitFor((k) => texts(k).some((m) => m.op === "pong"), 3000 * SCALE), "a ping sent byte by byte");
    c.send(Buffer.from([0x81]));
    await new Promise((r) => setTimeout(r, 50));
    c.send(Buffer.from([0x05, 0x68, 0x65, 0x6c, 0x6c, 0x6f])); /* unmasked "hello" */
    assert.ok(await c.waitFor((k) => closeOf(k), 3000 * SCALE));
    assert.equal(closeOf(c).code, 1002);
    // the bystander kept getting frames, and the API answers
    const before = bystander.frames.length;
    assert.ok(await bystander.waitFor((k) => k.frames.length > before + 5, 3000 * SCALE), "the other stream goes on");
    assert.equal(bystander.closed, null);
    assert.equal((await api(d, "GET", `/v1/sessions/${id}`)).status, 200);
    bystander.close();
  } finally {
    await d.stop();
    d.cleanup();
  }
});

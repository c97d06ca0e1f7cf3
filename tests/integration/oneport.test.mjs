// One port for everything (issue 15, item 5): streams on the REST port, admitted by the same
// rules as on the stream port of their own (Host, Origin, token or ticket), announced in
// stream_url as the client addressed the daemon, bounded by the REST port's connection limits
// but by none of its request deadlines, and closed in time by a SIGTERM on both ports.
// Wall-clock limits scale with RODD_TEST_TIME_SCALE.
import { test } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import WebSocket from "ws";
import { api, cableSpec, openStream, sleep, startDaemon } from "./daemon.mjs";

const SCALE = Number(process.env.RODD_TEST_TIME_SCALE ?? 1);
const streamPath = (id) => `/v1/sessions/${id}/stream`;

// The handshake's outcome: 101 when it opened (then closed), else the refusal's status.
const handshake = (url, opts = {}) =>
  new Promise((resolve) => {
    const ws = new WebSocket(url, opts);
    ws.on("open", () => {
      ws.close();
      resolve(101);
    });
    ws.on("unexpected-response", (req, res) => {
      resolve(res.statusCode);
      req.destroy();
    });
    ws.on("error", () => resolve(-1));
  });

// A GET with the headers given, raw: the answer's JSON body (or null).
function rawGet(port, path, headers) {
  return new Promise((resolve) => {
    const s = net.connect({ port, host: "127.0.0.1" });
    let got = "";
    const timer = setTimeout(() => s.destroy(), 5000 * SCALE);
    s.on("data", (d) => (got += d.toString()));
    s.on("close", () => {
      clearTimeout(timer);
      const i = got.indexOf("\r\n\r\n");
      try {
        resolve(JSON.parse(got.slice(i + 4)));
      } catch {
        resolve(null);
      }
    });
    s.write(`GET ${path} HTTP/1.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("")}Connection: close\r\n\r\n`);
  });
}

// GET /livez from a chosen local loopback address: its status, or -1 when refused.
const livezFrom = (from, port) =>
  new Promise((resolve) => {
    const s = net.connect({ port, host: "127.0.0.1", localAddress: from });
    let got = "";
    const timer = setTimeout(() => s.destroy(), 5000 * SCALE);
    s.on("data", (d) => (got += d.toString()));
    s.on("error", () => {});
    s.on("close", () => {
      clearTimeout(timer);
      const m = /^HTTP\/1\.1 (\d+)/.exec(got);
      resolve(m ? Number(m[1]) : -1);
    });
    s.write(`GET /livez HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
  });

const binaryFrame = (b) => ({
  magic: b.toString("latin1", 0, 4),
  seq: Number(b.readBigUInt64LE(8)),
  t: b.readDoubleLE(16),
  n: b.readUInt32LE(24),
  mask: b.readUInt32LE(28),
});

test("a stream on the REST port: hello, description, JSON and binary frames, as on the stream port", async () => {
  const d = await startDaemon();
  try {
    const r = await api(d, "POST", "/v1/sessions", { spec: cableSpec(), start: true, points: 11 });
    assert.equal(r.status, 201, r.text);
    const id = r.json.id;
    const rest = openStream(d.restWsUrl(streamPath(id)));
    const port = openStream(d.wsUrl(streamPath(id)));
    await rest.ready;
    await port.ready;
    assert.ok(await rest.waitFor((k) => k.frames.length >= 10, 5000 * SCALE), `REST-port frames: ${rest.frames.length}`);
    assert.ok(await port.waitFor((k) => k.frames.length >= 10, 5000 * SCALE));
    assert.deepEqual(rest.messages.slice(0, 2).map((m) => m.op), ["hello", "description"]);
    assert.equal(rest.messages[1].session.id, id);
    // what does not move while it runs (time, counters and the recording do)
    const stable = ({ session: { id: sid, model, inputs, stream_path }, fields, formats, subscription, binary_layout }) =>
      ({ sid, model, inputs, stream_path, fields, formats, subscription, binary_layout });
    assert.deepEqual(stable(rest.messages[1]), stable(port.messages[1]), "the same description on both ports");
    const f = rest.frames;
    for (let i = 1; i < f.length; i++) assert.ok(f[i].seq > f[i - 1].seq && f[i].t >= f[i - 1].t);
    assert.equal(f[0].position.length, 11);
    // binary, asked in the URL: the first frame already binary
    const bin = openStream(`${d.restWsUrl(streamPath(id))}?format=binary&rate=60&fields=position,rho`);
    await bin.ready;
    assert.ok(await bin.waitFor((k) => k.binary.length >= 10, 5000 * SCALE), `binary frames: ${bin.binary.length}`);
    assert.equal(bin.frames.length, 0, "no JSON frame before the binary ones");
    const frames = bin.binary.map((x) => binaryFrame(x.data));
    for (const b of frames) {
      assert.equal(b.magic, "RODF");
      assert.equal(b.n, 11);
      assert.equal(b.mask, (1 << 1) | (1 << 3));
    }
    for (let i = 1; i < frames.length; i++) assert.ok(frames[i].seq > frames[i - 1].seq && frames[i].t >= frames[i - 1].t);
    // and switched by a subscribe message, both ways of the splice working
    rest.send({ op: "subscribe", format: "binary", rate: 20, fields: ["rho"] });
    assert.ok(await rest.waitFor((k) => k.messages.some((m) => m.op === "subscribed"), 3000 * SCALE));
    assert.ok(await rest.waitFor((k) => k.binary.length >= 3, 3000 * SCALE));
    assert.equal(binaryFrame(rest.binary.at(-1).data).mask, 1 << 3);
    rest.send({ op: "ping" });
    assert.ok(await rest.waitFor((k) => k.messages.some((m) => m.op === "pong"), 3000 * SCALE));
    // text that is not UTF-8 closes the stream with 1007, on both ports
    for (const c of [rest, port]) {
      c.ws.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { binary: false });
      assert.ok(await c.waitFor((k) => k.closed, 3000 * SCALE), "closed");
      assert.equal(c.closed.code, 1007, JSON.stringify(c.closed));
    }
    for (const c of [rest, port, bin]) c.close();
    // a plain GET of the stream path says what it is
    const g = await fetch(d.url(streamPath(id)));
    assert.equal(g.status, 426);
    assert.equal(g.headers.get("upgrade"), "websocket");
    assert.match((await g.json()).type, /upgrade-required/);
  } finally {
    await d.stop();
    d.cleanup();
  }
});

test("stream_url names the REST port as the client addressed it; public_stream_url overrides it", async () => {
  const d = await startDaemon({ streamPort: false });
  try {
    assert.match(d.log(), /event=listening http=\S+ streams=ws:\/\/127\.0\.0\.1:\d+\/ version/, "no stream port by default");
    assert.doesNotMatch(d.log(), /stream_port=/);
    const id = (await api(d, "POST", "/v1/sessions", { spec: cableSpec() })).json.id;
    const url = async (headers) => (await rawGet(d.http, `/v1/sessions/${id}`, headers))?.stream_url;
    assert.equal(await url({ Host: `127.0.0.1:${d.http}` }), `ws://127.0.0.1:${d.http}${streamPath(id)}`);
    // a port mapping (podman run -p 28180:8080) or a tunnel: the port the client used
    assert.equal(await url({ Host: "localhost:28180" }), `ws://localhost:28180${streamPath(id)}`);
    // a TLS proxy that says so
    assert.equal(await url({ Host: "127.0.0.1:8443", "X-Forwarded-Proto": "https" }), `wss://127.0.0.1:8443${streamPath(id)}`);
    assert.equal(await url({ Host: "localhost", "X-Forwarded-Proto": "http" }), `ws://localhost${streamPath(id)}`);
    // what it names works, with only the REST port listening
    const announced = (await api(d, "GET", `/v1/sessions/${id}`)).json.stream_url;
    const c = openStream(announced);
    await c.ready;
    assert.ok(await c.waitFor((k) => k.messages.some((m) => m.op === "description"), 3000 * SCALE));
    c.close();
    const t = await api(d, "POST", "/v1/stream-tickets", { session: id });
    assert.ok(t.json.stream_url.startsWith(`ws://127.0.0.1:${d.http}${streamPath(id)}?ticket=`), t.json.stream_url);
  } finally {
    await d.stop();
    d.cleanup();
  }
  const e = await startDaemon({ env: { RODD_PUBLIC_STREAM_URL: "wss://lab.example.org/rodd" } });
  try {
    const r = await api(e, "POST", "/v1/sessions", { spec: cableSpec() });
    assert.equal(r.json.stream_url, `wss://lab.example.org/rodd${streamPath(r.json.id)}`);
  } finally {
    await e.stop();
    e.cleanup();
  }
});

test("a cross-site Origin, a foreign Host, a bad subscription or session: refused on the REST port as on the stream port", async () => {
  const d = await startDaemon({ env: { RODD_MAX_STREAMS: "3" } });
  try {
    const id = (await api(d, "POST", "/v1/sessions", { spec: cableSpec(), start: true })).json.id;
    const both = async (path, opts = {}) => [
      await handshake(d.restWsUrl(path), typeof opts === "function" ? opts(d.http) : opts),
      await handshake(d.wsUrl(path), typeof opts === "function" ? opts(d.ws) : opts),
    ];
    assert.deepEqual(await both(streamPath(id), { origin: "http://evil.example" }), [403, 403], "a cross-site page");
    assert.deepEqual(await both(streamPath(id), (p) => ({ headers: { Host: `rebind.evil:${p}` } })), [403, 403], "DNS rebinding");
    assert.deepEqual(await both(streamPath(id), { origin: `http://127.0.0.1:${d.http}` }), [101, 101], "the viewer's own page");
    assert.deepEqual(await both(streamPath("r0-000000000000")), [404, 404], "no such session");
    assert.deepEqual(await both(`${streamPath(id)}?rate=fast`), [400, 400], "a bad subscription in the URL");
    // max_streams counts both ports' streams together
    const held = [openStream(d.restWsUrl(streamPath(id))), openStream(d.wsUrl(streamPath(id))), openStream(d.restWsUrl(streamPath(id)))];
    for (const c of held) await c.ready;
    assert.deepEqual(await both(streamPath(id)), [503, 503], "max_streams");
    for (const c of held) c.close();
  } finally {
    await d.stop();
    d.cleanup();
  }
});

test("tokens and tickets work on the REST port as on the stream port", async () => {
  const d = await startDaemon({ env: { RODD_TOKENS: "operator:op-secret-1,viewer:view-secret-1" } });
  try {
    const op = { authorization: "Bearer op-secret-1" }, view = { authorization: "Bearer view-secret-1" };
    const a = (await api(d, "POST", "/v1/sessions", { spec: cableSpec(), start: true }, op)).json.id;
    const b = (await api(d, "POST", "/v1/sessions", { spec: cableSpec() }, op)).json.id;
    for (const url of [d.restWsUrl(streamPath(a)), d.wsUrl(streamPath(a))]) {
      assert.equal(await handshake(url), 401, `no credentials: ${url}`);
      assert.equal(await handshake(url, { headers: { authorization: "Bearer wrong" } }), 401);
      assert.equal(await handshake(url, { headers: view }), 101, `a viewer token: ${url}`);
    }
    const ticket = async (id) => (await api(d, "POST", "/v1/stream-tickets", { session: id }, view)).json;
    let t = await ticket(a);
    assert.ok(t.stream_url.startsWith(`ws://127.0.0.1:${d.http}/`), t.stream_url);
    const c = openStream(t.stream_url);
    await c.ready;
    assert.ok(await c.waitFor((k) => k.frames.length > 2, 5000 * SCALE));
    c.close();
    assert.equal(await handshake(t.stream_url), 401, "a ticket is good once");
    assert.equal(await handshake(`${d.wsUrl(streamPath(a))}?ticket=${t.ticket}`), 401, "on either port");
    t = await ticket(a);
    assert.equal(await handshake(`${d.restWsUrl(streamPath(b))}?ticket=${t.ticket}`), 401, "a ticket names its session");
    t = await ticket(a);
    assert.equal(await handshake(`${d.wsUrl(streamPath(a))}?ticket=${t.ticket}`), 101, "the stream port takes it too");
    t = await ticket(a);
    assert.equal(await handshake(t.stream_url, { origin: "http://evil.example" }), 403);
  } finally {
    await d.stop();
    d.cleanup();
  }
});

test("a REST-port stream keeps its connection slot but no request deadline", async () => {
  const d = await startDaemon({ env: { RODD_REQUEST_TIMEOUT: "1", RODD_CONNECTION_TIMEOUT: "1", RODD_PER_IP_CONNECTIONS: "3" } });
  try {
    const id = (await api(d, "POST", "/v1/sessions", { spec: cableSpec(), start: true })).json.id;
    const c = openStream(d.restWsUrl(streamPath(id)));
    await c.ready;
    await sleep(3000 * SCALE); // past request_timeout and connection_timeout
    const n = c.frames.length;
    assert.ok(await c.waitFor((k) => k.frames.length > n + 5, 3000 * SCALE), "frames still flow");
    assert.equal(c.closed, null, `closed: ${JSON.stringify(c.closed)}`);
    // three connections from this address: the stream and two more
    const more = [openStream(d.restWsUrl(streamPath(id))), openStream(d.restWsUrl(streamPath(id)))];
    for (const k of more) await k.ready;
    await assert.rejects(fetch(d.url("/livez")), "per_ip_connections counts the streams");
    assert.equal(await livezFrom("127.0.0.2", d.http), 200, "another address gets in");
    more[0].close();
    const until = Date.now() + 3000 * SCALE;
    let ok = false;
    while (!ok && Date.now() < until) {
      ok = await fetch(d.url("/livez")).then((r) => r.status === 200, () => false);
      if (!ok) await sleep(100);
    }
    assert.ok(ok, "a closed stream gives its slot back");
    c.close();
    more[1].close();
  } finally {
    await d.stop();
    d.cleanup();
  }
});

test("a stream client that stops reading holds no REST thread and is not waited for", async () => {
  const d = await startDaemon();
  try {
    const id = (await api(d, "POST", "/v1/sessions", { spec: cableSpec(), start: true, points: 2001 })).json.id;
    const stalled = [];
    for (let i = 0; i < 4; i++) {
      const c = openStream(`${d.restWsUrl(streamPath(id))}?rate=60&format=binary`);
      await c.ready;
      await c.waitFor((k) => k.binary.length > 2, 5000 * SCALE);
      c.ws._socket.pause(); // TCP fills, then the pump's buffer, then the socketpair
      stalled.push(c);
    }
    await sleep(2000 * SCALE);
    const t0 = Date.now();
    for (let i = 0; i < 10; i++) assert.equal((await api(d, "GET", `/v1/sessions/${id}`)).status, 200);
    assert.ok(Date.now() - t0 < 5000 * SCALE, `10 reads took ${Date.now() - t0} ms beside 4 stalled streams`);
    const dropped = Number((await api(d, "GET", "/metrics")).text.match(/rodd_frames_dropped_total (\d+)/)[1]);
    assert.ok(dropped > 0, "the stream server drops the stalled clients' frames (latest wins)");
    stalled[0].ws._socket.resume();
    assert.ok(await stalled[0].waitFor((k) => k.statuses.some((m) => m.level === "warning" && m.dropped > 0), 5000 * SCALE),
      "and tells the client once it reads again");
    const { code } = await d.stop("SIGTERM");
    assert.equal(code, 0);
  } finally {
    await d.stop();
    d.cleanup();
  }
});

test("SIGTERM exits within drain_timeout + 2 s with streams open on both ports", async () => {
  const DRAIN = 3;
  const d = await startDaemon({ env: { RODD_DRAIN_TIMEOUT: String(DRAIN), RODD_CHECKPOINT_PERIOD: "1000" } });
  try {
    const id = (await api(d, "POST", "/v1/sessions", { spec: cableSpec(), start: true, points: 2001 })).json.id;
    const reading = [
      openStream(d.restWsUrl(streamPath(id))),
      openStream(`${d.restWsUrl(streamPath(id))}?format=binary`),
      openStream(d.wsUrl(streamPath(id))),
    ];
    const stalled = [openStream(d.restWsUrl(streamPath(id))), openStream(d.wsUrl(streamPath(id)))];
    for (const c of [...reading, ...stalled]) await c.ready;
    for (const c of stalled) {
      await c.waitFor((k) => k.frames.length > 0, 5000 * SCALE);
      c.ws._socket.pause();
    }
    await sleep(1500 * SCALE);
    const t0 = Date.now();
    const { code, signal } = await d.stop("SIGTERM");
    const ms = Date.now() - t0;
    assert.equal(signal, null);
    assert.equal(code, 0, d.log().slice(-2000));
    assert.ok(ms < (DRAIN + 2) * 1000 * SCALE, `exited ${ms} ms after SIGTERM`);
    await sleep(200);
    for (const c of reading) {
      assert.equal(c.closed?.code, 1001, `close: ${JSON.stringify(c.closed)}`);
      assert.equal(c.closed.reason, "server shutting down");
    }
    for (const c of stalled) c.ws.terminate();
  } finally {
    await d.stop();
    d.cleanup();
  }
});

// Hostile clients over real sockets (issue 10, items 5, 6, 9): slowloris from many loopback
// addresses, token-less bodies, cross-site and DNS-rebinding requests. Wall-clock limits scale
// with RODD_TEST_TIME_SCALE.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import net from "node:net";
import WebSocket from "ws";
import { api, cableSpec, sleep, startDaemon } from "./daemon.mjs";

const SCALE = Number(process.env.RODD_TEST_TIME_SCALE ?? 1);

// One raw HTTP/1.1 exchange: the status line's code, the headers and the body (or null when
// the connection closed first). `from` picks the local loopback address.
function raw(port, text, { from = "127.0.0.1", timeout = 5000 } = {}) {
  return new Promise((resolve) => {
    const s = net.connect({ port, host: "127.0.0.1", localAddress: from });
    let got = "";
    const done = (v) => {
      clearTimeout(timer);
      s.destroy();
      resolve(v);
    };
    const timer = setTimeout(() => done({ status: null, text: got, timedOut: true }), timeout);
    s.on("data", (d) => {
      got += d.toString();
      const m = /^HTTP\/1\.[01] (\d+)/.exec(got);
      const end = got.indexOf("\r\n\r\n");
      if (m && end >= 0) {
        const len = /content-length: (\d+)/i.exec(got.slice(0, end));
        if (!len || got.length >= end + 4 + Number(len[1])) done({ status: Number(m[1]), text: got, body: got.slice(end + 4) });
      }
    });
    s.on("error", () => done({ status: null, text: got }));
    s.on("close", () => done({ status: null, text: got }));
    s.write(text);
  });
}

const rssKiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]);

test("slowloris from ten addresses holds neither the slots nor a peer from elsewhere", async () => {
  const d = await startDaemon({
    env: { RODD_MAX_CONNECTIONS: "200", RODD_PER_IP_CONNECTIONS: "24", RODD_REQUEST_TIMEOUT: "3" },
  });
  const socks = [];
  try {
    // 10 addresses x 24 partial requests = 240 sockets, over the 200 slots, each under the
    // per-address limit; each gets a header line every second, which resets an idle timeout
    for (let a = 2; a <= 11; a++)
      for (let i = 0; i < 24; i++) {
        const s = net.connect({ port: d.http, host: "127.0.0.1", localAddress: `127.0.0.${a}` });
        s.on("error", () => {});
        s.closedByServer = false;
        s.on("close", () => (s.closedByServer = true));
        s.write("GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        socks.push(s);
      }
    const feeder = setInterval(() => {
      for (const s of socks) if (!s.destroyed) s.write(`X-Slow-${Date.now() % 1000}: 1\r\n`);
    }, 1000);
    try {
      await sleep(1000);
      const t0 = Date.now();
      const r = await raw(d.http, "GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", {
        from: "127.0.0.12",
        timeout: 3000 * SCALE,
      });
      assert.equal(r.status, 200, `a peer from another address got ${JSON.stringify(r.text.slice(0, 80))}`);
      assert.ok(Date.now() - t0 < 3000 * SCALE);
      // the request deadline cuts the dribbling requests however often they send a line
      await sleep((3 + 3) * 1000 * SCALE);
      const open = socks.filter((s) => !s.closedByServer).length;
      assert.equal(open, 0, `${open} of ${socks.length} partial requests still open past the request deadline`);
      assert.equal((await api(d, "GET", "/livez")).status, 200);
    } finally {
      clearInterval(feeder);
    }
  } finally {
    for (const s of socks) s.destroy();
    await d.stop();
    d.cleanup();
  }
});

test("a token-less body is refused from its headers, and bodies in flight are bounded", async () => {
  const MB = 1 << 20;
  const d = await startDaemon({
    env: { RODD_TOKENS: "operator:op-secret", RODD_MAX_BODY: String(MB), RODD_MAX_BODIES_IN_FLIGHT: String(3 * MB) },
  });
  try {
    const rss0 = rssKiB(d.proc.pid);
    const body = Buffer.alloc(MB - 1, 0x20);
    const head = (n) => `POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${n}\r\n\r\n`;
    // the headers alone announcing a body of max_body - 1 bytes are answered 401: the refusal
    // does not wait for the body (asked 50 times at once)
    const early = await Promise.all(
      Array.from({ length: 50 }, () =>
        new Promise((resolve) => {
          const s = net.connect({ port: d.http, host: "127.0.0.1" });
          let got = "";
          const timer = setTimeout(() => s.destroy(), 10000 * SCALE);
          s.on("data", (x) => {
            got += x.toString();
            if (got.includes("\r\n\r\n")) s.destroy();
          });
          s.on("error", () => {});
          s.on("close", () => {
            clearTimeout(timer);
            resolve(got);
          });
          s.write(head(body.length));
        }),
      ),
    );
    assert.deepEqual(early.filter((t) => !/^HTTP\/1\.1 401/.test(t)).map((t) => t.slice(0, 40)), [],
      "every token-less POST is answered 401 before its body is sent");
    // 50 token-less POSTs, each sending that whole body: the daemon must not hold them
    const rs = await Promise.all(
      Array.from({ length: 50 }, () =>
        new Promise((resolve) => {
          const s = net.connect({ port: d.http, host: "127.0.0.1" });
          let got = "";
          s.on("data", (x) => (got += x.toString()));
          s.on("error", () => {});
          s.on("close", () => resolve(got));
          s.write(head(body.length));
          s.write(body, () => s.end());
          setTimeout(() => s.destroy(), 10000 * SCALE);
        }),
      ),
    );
    // 401, or a reset: closing a socket with unread data resets it, which may lose the answer
    const other = rs.filter((t) => t !== "" && !/^HTTP\/1\.1 401/.test(t));
    assert.deepEqual(other.map((t) => t.slice(0, 40)), [], "every answer is 401");
    const grew = rssKiB(d.proc.pid) - rss0;
    assert.ok(grew < 20 * 1024, `the daemon grew by ${grew} KiB for 50 refused MiB-sized bodies`);
    // an operator's bodies: three of a MiB fit in flight, a fourth waits for room (503 busy)
    const auth = "Authorization: Bearer op-secret\r\n";
    const held = [];
    for (let i = 0; i < 3; i++) {
      const s = net.connect({ port: d.http, host: "127.0.0.1" });
      s.on("error", () => {});
      s.write(head(MB - 10).replace("Host:", `${auth}Host:`) + "{");
      held.push(s);
    }
    await sleep(300);
    const r = await raw(d.http, head(MB - 10).replace("Host:", `${auth}Host:`) + "{", { timeout: 3000 * SCALE });
    assert.equal(r.status, 503, r.text.slice(0, 200));
    assert.match(r.body, /problems\/busy/);
    for (const s of held) s.destroy();
    await sleep(300);
    const ok = await api(d, "GET", "/v1/sessions", undefined, { authorization: "Bearer op-secret" });
    assert.equal(ok.status, 200, "the room comes back when those requests end");
    const small = await api(d, "POST", "/v1/sessions", { spec: cableSpec() }, { authorization: "Bearer op-secret" });
    assert.equal(small.status, 201, small.text);
  } finally {
    await d.stop();
    d.cleanup();
  }
});

test("a page on another site cannot drive a loopback daemon: Host, Origin and Content-Type", async () => {
  const d = await startDaemon();
  try {
    const create = JSON.stringify({ spec: cableSpec() });
    const post = (headers) =>
      raw(d.http, `POST /v1/sessions HTTP/1.1\r\n${headers}Content-Length: ${Buffer.byteLength(create)}\r\nConnection: close\r\n\r\n${create}`);
    let r = await post(`Host: 127.0.0.1:${d.http}\r\nOrigin: http://evil.example\r\nContent-Type: text/plain\r\n`);
    assert.equal(r.status, 403, r.text.slice(0, 200));
    assert.match(r.body, /origin-not-allowed/);
    r = await post(`Host: 127.0.0.1:${d.http}\r\nContent-Type: text/plain\r\n`);
    assert.equal(r.status, 415);
    assert.match(r.body, /unsupported-media-type/);
    for (const host of ["rebind.evil", `rebind.evil:${d.http}`, "127.0.0.1.nip.io", "localhost.evil.example"]) {
      r = await raw(d.http, `GET /v1/sessions HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      assert.equal(r.status, 403, `Host: ${host}`);
      assert.match(r.body, /host-not-allowed/);
    }
    // the daemon's own page, by any loopback name, works
    for (const [host, origin] of [[`127.0.0.1:${d.http}`, `http://127.0.0.1:${d.http}`], [`localhost:${d.http}`, `http://localhost:${d.http}`]]) {
      r = await post(`Host: ${host}\r\nOrigin: ${origin}\r\nContent-Type: application/json\r\n`);
      assert.equal(r.status, 201, `${host} ${origin}: ${r.text.slice(0, 200)}`);
    }
    const id = JSON.parse(r.body).id;
    // streams: the same checks on the handshake, with the Host an attacker picks
    const refused = (headers) =>
      new Promise((resolve) => {
        const ws = new WebSocket(d.wsUrl(`/v1/sessions/${id}/stream`), { headers });
        ws.on("open", () => {
          ws.close();
          resolve(null);
        });
        ws.on("unexpected-response", (req, res) => resolve(res.statusCode));
        ws.on("error", () => resolve(-1));
      });
    assert.equal(await refused({ Origin: "http://evil.example" }), 403);
    assert.equal(await refused({ Origin: "http://rebind.evil", Host: `rebind.evil:${d.ws}` }), 403);
    assert.equal(await refused({ Host: `rebind.evil:${d.ws}` }), 403);
    assert.equal(await refused({ Origin: `http://127.0.0.1:${d.http}` }), null, "the viewer's own page may stream");
  } finally {
    await d.stop();
    d.cleanup();
  }
});

test("one viewer asking for 1030 stream tickets cancels only its own", async () => {
  const d = await startDaemon({ env: { RODD_TOKENS: "operator:op-secret,viewer:viewer-a,viewer:viewer-b" } });
  try {
    const op = { authorization: "Bearer op-secret" };
    const id = (await api(d, "POST", "/v1/sessions", { spec: cableSpec() }, op)).json.id;
    const ticket = async (who) => (await api(d, "POST", "/v1/stream-tickets", { session: id }, { authorization: `Bearer ${who}` })).json;
    const b = await ticket("viewer-b");
    assert.ok(b.ticket, JSON.stringify(b));
    for (let i = 0; i < 1029; i += 7) await Promise.all(Array.from({ length: Math.min(7, 1029 - i) }, () => ticket("viewer-a")));
    const last = await ticket("viewer-a");
    const open = (t) =>
      new Promise((resolve) => {
        const ws = new WebSocket(`${d.wsUrl(`/v1/sessions/${id}/stream`)}?ticket=${t}`);
        ws.on("open", () => {
          ws.close();
          resolve(101);
        });
        ws.on("unexpected-response", (req, res) => resolve(res.statusCode));
        ws.on("error", () => resolve(-1));
      });
    assert.equal(await open(b.ticket), 101, "the other viewer's ticket still works");
    assert.equal(await open(last.ticket), 101, "and so does the many-ticket viewer's latest");
  } finally {
    await d.stop();
    d.cleanup();
  }
});

// A stream URL whose query holds %00 (a NUL once decoded): 400 naming it, where the stream server
// dropped the handshake and the REST port answered 503 "did not answer" with a Retry-After.
test("a NUL in a stream URL's query is a 400", async () => {
  const http = await import("node:http");
  const d = await startDaemon();
  try {
    const r = await api(d, "POST", "/v1/sessions", { example: "euler-column" });
    assert.equal(r.status, 201);
    for (const q of ["fields=%00", "fields=position%00kappa", "rate=%00"]) {
      const status = await new Promise((resolve, reject) => {
        const rq = http.request(d.url(`/v1/sessions/${r.json.id}/stream?${q}`), {
          headers: { Connection: "Upgrade", Upgrade: "websocket", "Sec-WebSocket-Version": "13",
                     "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==" },
        });
        rq.on("response", (res) => { res.resume(); resolve(res.statusCode); });
        rq.on("upgrade", (res, sock) => { sock.destroy(); resolve(101); });
        rq.on("error", reject);
        rq.end();
      });
      assert.equal(status, 400, q);
    }
    assert.equal((await api(d, "GET", "/livez")).status, 200);
  } finally {
    await d.stop();
  }
});

// Standard WebSocket clients on both ports (issue 27, items 3 and 10): Node's built-in
// WebSocket (undici), Python's websocket-client and websockets each receive a JSON frame and a
// binary frame; the handshake is RFC 6455's (one "Connection: Upgrade", 426 with the version
// for another version, 400 for a bad key or two Host headers, 414 for an overlong query), and
// a message over ws_max_message (declared in one header, or in continuations) is closed 1009 at
// once. Chromium is the viewer tests' (tests/browser).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import net from "node:net";
import path from "node:path";
import { api, cableSpec, startDaemon } from "./daemon.mjs";

const SCALE = Number(process.env.RODD_TEST_TIME_SCALE ?? 1);
const here = path.dirname(new URL(import.meta.url).pathname);
// the Debian packages python3-websocket and python3-websockets are the system Python's
const PYTHON = "/usr/bin/python3";

let d, id;
before(async () => {
  d = await startDaemon();
  id = (await api(d, "POST", "/v1/sessions", { spec: cableSpec(), start: true, points: 11 })).json.id;
});
after(async () => d && (await d.stop()));

const ports = () => [
  ["the REST port", d.http],
  ["the stream port", d.ws],
];
const streamPath = () => `/v1/sessions/${id}/stream`;

function run(cmd, args) {
  return new Promise((resolve) => {
    const p = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    p.stdout.on("data", (b) => (out += b));
    p.stderr.on("data", (b) => (out += b));
    const timer = setTimeout(() => p.kill("SIGKILL"), 30000 * SCALE);
    p.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

const clients = [
  ["Node's built-in WebSocket", (url) => run(process.execPath, ["--experimental-websocket", "--no-warnings", path.join(here, "clients/node_builtin.mjs"), url])],
  ["Python websocket-client", (url) => run(PYTHON, [path.join(here, "clients/websocket_client.py"), url])],
  ["Python websockets", (url) => run(PYTHON, [path.join(here, "clients/websockets_client.py"), url])],
];

for (const [name, client] of clients)
  test(`${name} receives JSON and binary frames on both ports`, async () => {
    for (const [where, port] of ports()) {
      const r = await client(`ws://127.0.0.1:${port}${streamPath()}`);
      assert.equal(r.code, 0, `${name} on ${where}: ${r.out}`);
      assert.match(r.out, /json [1-9]\d* binary [1-9]/, `${name} on ${where}`);
    }
  });

// A raw exchange: sends `text`, collects what comes back until the peer closes or `ms` pass.
function exchange(port, text, { ms = 3000, then } = {}) {
  return new Promise((resolve) => {
    const s = net.connect({ port, host: "127.0.0.1" });
    let got = Buffer.alloc(0);
    const timer = setTimeout(() => s.destroy(), ms * SCALE);
    s.on("data", (b) => {
      got = Buffer.concat([got, b]);
      if (then && got.includes("\r\n\r\n")) {
        const t = then;
        then = null;
        t(s);
      }
    });
    s.on("error", () => {});
    s.on("close", () => {
      clearTimeout(timer);
      resolve(got);
    });
    s.write(text);
  });
}

const key = () => crypto.randomBytes(16).toString("base64");
const upgrade = (port, { version = "13", k = key(), extra = "", query = "" } = {}) =>
  `GET ${streamPath()}${query} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
  `Sec-WebSocket-Key: ${k}\r\nSec-WebSocket-Version: ${version}\r\n${extra}\r\n`;
const head = (buf) => {
  const text = buf.toString("latin1");
  const end = text.indexOf("\r\n\r\n");
  const lines = text.slice(0, end < 0 ? text.length : end).split("\r\n");
  const headers = lines.slice(1).map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]);
  return { status: Number(lines[0].split(" ")[1]), all: (n) => headers.filter(([h]) => h === n).map(([, v]) => v) };
};

test("the 101 carries one Connection: Upgrade and the right Sec-WebSocket-Accept on both ports", async () => {
  for (const [where, port] of ports()) {
    const k = key();
    const h = head(await exchange(port, upgrade(port, { k }), { ms: 500 }));
    assert.equal(h.status, 101, where);
    assert.deepEqual(h.all("connection"), ["Upgrade"], where);
    assert.deepEqual(h.all("upgrade").map((v) => v.toLowerCase()), ["websocket"], where);
    const accept = crypto.createHash("sha1").update(k + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest("base64");
    assert.deepEqual(h.all("sec-websocket-accept"), [accept], where);
  }
});

test("another WebSocket version is answered 426 with Sec-WebSocket-Version: 13 on both ports", async () => {
  for (const [where, port] of ports())
    for (const version of ["8", "12", "13, 8", "abc"]) {
      const h = head(await exchange(port, upgrade(port, { version })));
      assert.equal(h.status, 426, `${where}, version ${version}`);
      assert.deepEqual(h.all("sec-websocket-version"), ["13"], `${where}, version ${version}`);
    }
});

test("a key that is not base64 of 16 bytes is answered 400 on both ports", async () => {
  for (const [where, port] of ports())
    for (const k of ["short", "dGhlIHNhbXBsZSBub25jZR==", crypto.randomBytes(18).toString("base64"), "!!!!!!!!!!!!!!!!!!!!!!=="]) {
      const h = head(await exchange(port, upgrade(port, { k })));
      assert.equal(h.status, 400, `${where}, key ${k}`);
    }
});

test("two Host headers are answered 400 (RFC 9112), on a stream on both ports and on REST", async () => {
  for (const [where, port] of ports()) {
    const h = head(await exchange(port, upgrade(port, { extra: "Host: evil.example\r\n" })));
    assert.equal(h.status, 400, where);
  }
  const h = head(await exchange(d.http, `GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`));
  assert.equal(h.status, 400);
});

test("an unknown field in ?fields= is refused at any length; a query over 2048 characters is 414", async () => {
  for (const [where, port] of ports()) {
    for (const n of [200, 800, 2000]) {
      const h = head(await exchange(port, upgrade(port, { query: `?fields=${"x".repeat(n)}` })));
      assert.equal(h.status, 400, `${where}, a field name of ${n} characters`);
    }
    const h = head(await exchange(port, upgrade(port, { query: `?fields=${"x".repeat(5000)}` })));
    assert.equal(h.status, 414, `${where}, a query of 5000 characters`);
  }
});

// A masked client frame header: opcode, FIN, the declared length (a BigInt for 64 bits).
function frameHead(opcode, fin, len) {
  const mask = Buffer.from([1, 2, 3, 4]);
  const first = (fin ? 0x80 : 0) | opcode;
  if (len < 126) return Buffer.concat([Buffer.from([first, 0x80 | Number(len)]), mask]);
  if (len < 65536) {
    const b = Buffer.from([first, 0x80 | 126, 0, 0]);
    b.writeUInt16BE(Number(len), 2);
    return Buffer.concat([b, mask]);
  }
  const b = Buffer.alloc(10);
  b[0] = first;
  b[1] = 0x80 | 127;
  b.writeBigUInt64BE(BigInt(len), 2);
  return Buffer.concat([b, mask]);
}

// The close code in the first Close frame the server sent after its 101, or null.
function closeCode(buf) {
  let i = buf.indexOf("\r\n\r\n") + 4;
  while (i > 3 && i + 2 <= buf.length) {
    const op = buf[i] & 0x0f;
    let len = buf[i + 1] & 0x7f, at = i + 2;
    if (len === 126) (len = buf.readUInt16BE(at)), (at += 2);
    else if (len === 127) (len = Number(buf.readBigUInt64BE(at))), (at += 8);
    if (op === 8) return len >= 2 && at + 2 <= buf.length ? buf.readUInt16BE(at) : null;
    i = at + len;
  }
  return null;
}

test("a frame declaring 2^62 bytes, or continuations past ws_max_message, are closed 1009 at once", async () => {
  for (const [where, port] of ports()) {
    const huge = await exchange(port, upgrade(port), {
      then: (s) => s.write(Buffer.concat([frameHead(1, true, 2n ** 62n), Buffer.alloc(64)])),
    });
    // on a failure, what the daemon said last (a close without any frame was seen once in CI)
    const said = () => d.log().trim().split("\n").slice(-12).join("\n");
    assert.equal(closeCode(huge), 1009, `${where}: 2^62 declared; got ${huge.length} bytes; the daemon said:\n${said()}`);
    const pieces = await exchange(port, upgrade(port), {
      // a text message begun and continued 1 KiB at a time, never finished: 8 KiB is over the
      // 4 KiB ws_max_message (50 MB behaves the same, only slower to send)
      then: (s) => {
        s.write(Buffer.concat([frameHead(1, false, 1024), Buffer.alloc(1024, 0x61)]));
        for (let i = 0; i < 8; i++) s.write(Buffer.concat([frameHead(0, false, 1024), Buffer.alloc(1024, 0x61)]));
      },
    });
    assert.equal(closeCode(pieces), 1009,
      `${where}: continuations; got ${pieces.length} bytes ending ${pieces.subarray(-40).toString("hex")}; the daemon said:\n${said()}`);
  }
});

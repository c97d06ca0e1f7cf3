// Starts the real rodd daemon on free loopback ports for a test, and small HTTP/WS helpers.
import { spawn } from "node:child_process";
import { after } from "node:test";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import WebSocket from "ws";

const top = path.resolve(new URL("../..", import.meta.url).pathname);
export const rodd = process.env.RODD ? path.resolve(process.env.RODD) : path.join(top, "build/rodd");

export async function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

// Every daemon a test file started: one that a failed assertion left running would keep the
// test process alive (node:test waits for it forever) and go on burning a core, so whatever is
// still alive after the file's last test is killed.
// (Only under node --test: the bench scripts import this file too.)
const live = new Set();
if (process.env.NODE_TEST_CONTEXT)
  after(() => {
    for (const p of live) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
  });
const STOP_GRACE_MS = 30000 * Number(process.env.RODD_TEST_TIME_SCALE ?? 1);

// streamPort: false leaves the stream port off (the default of `rodd serve`): the REST port
// alone carries everything.
export async function startDaemon({ env = {}, args = [], stateDir, streamPort = true } = {}) {
  const http = await freePort();
  let ws = await freePort();
  while (ws === http) ws = await freePort();
  const dir = stateDir ?? mkdtempSync(path.join(os.tmpdir(), "rodd-it-"));
  // RODD_WRAP runs the daemon under a tool, e.g. "valgrind --error-exitcode=99 --leak-check=full"
  const wrap = (process.env.RODD_WRAP ?? "").split(/\s+/).filter(Boolean);
  const argv = ["serve", "--listen", `127.0.0.1:${http}`, ...(streamPort ? ["--ws-port", String(ws)] : []),
    "--state-dir", dir, ...args];
  const proc = spawn(wrap[0] ?? rodd, wrap.length ? [...wrap.slice(1), rodd, ...argv] : argv, {
    cwd: top,
    env: { ...process.env, RODD_WORKERS: "2", ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  live.add(proc);
  let log = "";
  proc.stderr.on("data", (d) => (log += d.toString()));
  // A daemon that dies when no one signalled it, or with a sanitizer's report, says so on the
  // test's stderr with its last log lines: a test that then sees "fetch failed" or a dropped
  // stream shows why in CI's output.
  const exited = new Promise((resolve) =>
    proc.on("exit", (code, signal) => {
      live.delete(proc);
      if (!proc.killed || /Sanitizer|runtime error/.test(log))
        console.error(`rodd daemon (ports ${http}/${ws}) exited code=${code} signal=${signal}` +
          `${proc.killed ? "" : " with no signal sent"}; its last log lines:\n` +
          log.split("\n").slice(-40).join("\n"));
      resolve({ code, signal });
    }),
  );
  const base = `http://127.0.0.1:${http}`;
  for (let i = 0; i < (wrap.length ? 1200 : 100); i++) {
    try {
      const r = await fetch(`${base}/readyz`);
      if (r.status === 200) break;
    } catch {}
    await sleep(50);
  }
  const d = {
    proc, http, ws, dir, base, exited,
    log: () => log,
    url: (p) => `${base}${p}`,
    // a stream on the REST port (what stream_url names), and on the stream port of its own
    restWsUrl: (p) => `ws://127.0.0.1:${http}${p}`,
    wsUrl: (p) => `ws://127.0.0.1:${ws}${p}`,
    // a daemon that does not exit on its signal is killed after STOP_GRACE_MS: the test that
    // sent it sees the SIGKILL in the exit it gets back
    async stop(signal = "SIGTERM") {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill(signal);
        const grace = setTimeout(() => proc.kill("SIGKILL"), STOP_GRACE_MS);
        await exited;
        clearTimeout(grace);
      }
      return exited;
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return d;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// A request that fails below HTTP (refused, reset, closed early) throws with the socket's own
// error and the daemon's last log lines: "fetch failed" alone says neither which nor why.
export async function api(d, method, p, body, headers = {}) {
  let r;
  try {
    r = await fetch(d.url(p), {
      method,
      headers: { "content-type": "application/json", ...headers },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
  } catch (e) {
    const c = e.cause ?? {};
    const state = !d.proc ? "not ours" : d.proc.exitCode === null && d.proc.signalCode === null ? "alive" : "gone";
    throw new Error(`${method} ${p}: ${e.message} (${c.code ?? ""} ${c.message ?? c}); the daemon is ` +
      `${state}; its last log lines:\n${d.log ? d.log().split("\n").slice(-20).join("\n") : "(none)"}`,
      { cause: e });
  }
  const text = await r.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {}
  return { status: r.status, json, text, headers: r.headers };
}

// A stream client that records what it gets.
export function openStream(url, opts = {}) {
  const ws = new WebSocket(url, opts);
  const c = { ws, messages: [], frames: [], binary: [], statuses: [], open: false, closed: null };
  c.ready = new Promise((resolve, reject) => {
    ws.on("open", () => {
      c.open = true;
      resolve(c);
    });
    ws.on("error", reject);
    ws.on("unexpected-response", (req, res) => reject(new Error(`refused with HTTP ${res.statusCode}`)));
  });
  ws.on("message", (data, isBinary) => {
    const at = performance.timeOrigin + performance.now(); // ms since the epoch, to the microsecond
    if (isBinary) {
      c.binary.push({ at, data: Buffer.from(data) });
      return;
    }
    const m = JSON.parse(data.toString());
    m._at = at;
    c.messages.push(m);
    if (m.op === "frame") c.frames.push(m);
    if (m.op === "status") c.statuses.push(m);
  });
  ws.on("close", (code, reason) => (c.closed = { code, reason: reason.toString() }));
  c.waitFor = async (pred, ms = 5000) => {
    const t0 = Date.now();
    while (Date.now() - t0 < ms) {
      if (pred(c)) return true;
      await sleep(20);
    }
    return false;
  };
  c.send = (o) => ws.send(JSON.stringify(o));
  c.close = () => ws.close();
  return c;
}

export const cableSpec = (extra = {}) => ({
  model: "extended",
  rod: { length: 0.5, radius: { base: 0.015, tip: 0.006 }, density: 1000, youngs_modulus: 5000, poisson_ratio: 0.49, shear_viscosity: 200 },
  strains: { bend2: 4, stretch: 2 },
  inflation: { pieces: 2, boundary: "neumann" },
  actuators: [
    { name: "LM1", type: "cable", route: { offset: [0.8, 0], relative_to_radius: true }, tension: 0 },
    { name: "TM", type: "transverse", pressure: 0 },
  ],
  ...extra,
});

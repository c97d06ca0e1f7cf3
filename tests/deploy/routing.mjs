// Session routing, tested for real: two rodd daemons (ordinals 0 and 1, as pods rodd-0 and
// rodd-1 would be) behind nginx running deploy/router/nginx.conf, the same rules the
// Kubernetes router uses, with a backends.conf for this machine in place of the cluster's.
// The daemons listen on 127.0.0.2 and 127.0.0.3 and the router on 127.0.0.1, all on the same
// one port, as pods and their router do, so the stream URLs the daemons give out (built from
// the Host header, port and all) lead back through the router.
// Checked: sessions created through the router land on both daemons; every later request,
// command, stream ticket and stream for a session reaches its owner, every time; GET
// /v1/sessions lists both daemons' sessions whichever answers (RODD_PEERS), in pages too.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

const top = path.resolve(new URL("../..", import.meta.url).pathname);
const rodd = path.resolve(process.env.RODD || path.join(top, "build/rodd"));
const nginx = process.env.NGINX || "/usr/sbin/nginx";
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const TOKEN = "routing-test-operator-token";
const spec = {
  model: "classic",
  rod: { length: 0.5, radius: 0.01, density: 1000, youngs_modulus: 1e5, poisson_ratio: 0.45, shear_viscosity: 100 },
  strains: { bend2: 2 },
  actuators: [{ name: "c", type: "cable", route: { offset: [0.005, 0] }, tension: 0 }],
};

function bindable(host, port) {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once("error", () => resolve(false));
    s.listen(port, host, () => s.close(() => resolve(true)));
  });
}
async function portFreeOnAll(hosts) {
  for (;;) {
    const port = 20000 + Math.floor(Math.random() * 40000);
    let ok = true;
    for (const h of hosts) ok = ok && (await bindable(h, port));
    if (ok) return port;
  }
}

const hosts = ["127.0.0.1", "127.0.0.2", "127.0.0.3"];
const httpPort = await portFreeOnAll(hosts);
const work = mkdtempSync(path.join(os.tmpdir(), "rodd-routing-"));
const procs = [];
const logs = {};
function start(name, cmd, args, env = {}) {
  const p = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "pipe"] });
  logs[name] = "";
  p.stderr.on("data", (d) => (logs[name] += d));
  procs.push(p);
  return p;
}
async function until(what, fn, ms = 20000) {
  const t0 = Date.now();
  for (;;) {
    try {
      if (await fn()) return;
    } catch {
      // not up yet
    }
    if (Date.now() - t0 > ms) throw new Error(`${what} did not happen in ${ms} ms\n${JSON.stringify(logs, null, 1)}`);
    await sleep(100);
  }
}

let failed = 0;
try {
  // the two daemons
  for (const [ordinal, host] of [[0, "127.0.0.2"], [1, "127.0.0.3"]]) {
    start(`rodd-${ordinal}`, rodd, ["serve", "--listen", `${host}:${httpPort}`,
      "--state-dir", path.join(work, `state-${ordinal}`)], { RODD_ORDINAL: String(ordinal), RODD_WORKERS: "1", RODD_TOKENS: `operator:${TOKEN}`,
        RODD_PEERS: `127.0.0.2:${httpPort},127.0.0.3:${httpPort}` });
  }
  // the router: the shipped rules; ports, scratch paths and backends for this machine
  const conf = readFileSync(path.join(top, "deploy/router/nginx.conf"), "utf8")
    .replace("listen 8080;", `listen 127.0.0.1:${httpPort};`)
    .replaceAll("/tmp/rodd-router", path.join(work, "router"));
  assert.ok(conf.includes(`listen 127.0.0.1:${httpPort};`) && conf.includes("include backends.conf;"));
  assert.equal(conf.match(/^\s*listen /gm).length, 1, "the router listens on one port");
  writeFileSync(path.join(work, "nginx.conf"), conf);
  writeFileSync(path.join(work, "backends.conf"), `
upstream rodd_any_http { server 127.0.0.2:${httpPort}; server 127.0.0.3:${httpPort}; }
map $rodd_ordinal $rodd_http { "" rodd_any_http; 0 127.0.0.2:${httpPort}; 1 127.0.0.3:${httpPort}; default 127.0.0.1:9; }
`);
  const globals = `daemon off;${process.getuid?.() === 0 ? " user root;" : ""}`;
  const test = spawnSync(nginx, ["-t", "-p", work, "-c", path.join(work, "nginx.conf"), "-g", globals], { encoding: "utf8" });
  assert.equal(test.status, 0, `nginx -t: ${test.stderr}`);
  start("nginx", nginx, ["-p", work, "-c", path.join(work, "nginx.conf"), "-g", globals]);
  const base = `http://127.0.0.1:${httpPort}`;
  const auth = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
  for (const h of ["127.0.0.2", "127.0.0.3", "127.0.0.1"]) {
    await until(`${h} ready`, async () => (await fetch(`http://${h}:${httpPort}/readyz`)).status === 200);
  }

  // sessions created through the router land on both daemons
  const sessions = [];
  for (let i = 0; i < 6; i++) {
    const r = await fetch(`${base}/v1/sessions`, { method: "POST", headers: auth, body: JSON.stringify({ spec, start: true, name: `s${i}` }) });
    const text = await r.text();
    assert.equal(r.status, 201, text);
    sessions.push(JSON.parse(text));
  }
  const owners = new Set(sessions.map((s) => s.id.split("-")[0]));
  assert.deepEqual([...owners].sort(), ["r0", "r1"], `created on both daemons: ${sessions.map((s) => s.id)}`);
  console.log(`ok   6 sessions created through the router, on ${[...owners].sort().join(" and ")}`);

  // the list is the group's, whichever daemon the router asks, and pages the same everywhere
  const ids = sessions.map((s) => s.id).sort();
  for (let k = 0; k < 6; k++) {
    const l = await (await fetch(`${base}/v1/sessions`, { headers: auth })).json();
    assert.deepEqual(l.sessions.map((s) => s.id).sort(), ids, `list ${k}: ${l.sessions.map((s) => s.id)}`);
    assert.equal(l.total, 6);
    assert.ok(l.sessions.every((s) => s.stream_url.startsWith(`ws://127.0.0.1:${httpPort}/`)), "URLs through the router");
    const p2 = await (await fetch(`${base}/v1/sessions?page_size=4&page_token=4`, { headers: auth })).json();
    assert.deepEqual(p2.sessions.map((s) => s.id), l.sessions.slice(4).map((s) => s.id), "page 2 is the rest");
  }
  for (const h of ["127.0.0.2", "127.0.0.3"]) {
    const local = await (await fetch(`http://${h}:${httpPort}/v1/sessions?scope=local`, { headers: auth })).json();
    assert.ok(local.sessions.length > 0 && local.sessions.length < 6, `${h} alone: ${local.sessions.length}`);
  }
  console.log("ok   GET /v1/sessions lists both daemons' sessions through the router, pages included; ?scope=local one's");

  // every request for a session reaches its owner (round robin alone would miss half)
  let reqs = 0;
  for (const s of sessions) {
    for (let k = 0; k < 5; k++) {
      const g = await fetch(`${base}/v1/sessions/${s.id}`, { headers: auth });
      assert.equal(g.status, 200, `GET ${s.id}: ${g.status}`);
      assert.equal((await g.json()).id, s.id);
      const put = await fetch(`${base}/v1/sessions/${s.id}/actuators/c`, { method: "PUT", headers: auth, body: JSON.stringify({ value: 0.01 * k }) });
      assert.equal(put.status, 200, `PUT ${s.id}: ${put.status}`);
      reqs += 2;
    }
  }
  console.log(`ok   ${reqs} requests and commands, each answered by its session's owner`);
  // what the routing saves them from: the other daemon does not know the session
  for (const s of sessions) {
    const other = s.id.startsWith("r0-") ? "127.0.0.3" : "127.0.0.2";
    assert.equal((await fetch(`http://${other}:${httpPort}/v1/sessions/${s.id}`, { headers: auth })).status, 404);
  }
  console.log("ok   (and the daemon that does not own a session answers 404 for it)");

  // stream tickets (named by ?session=) and the streams they open, through the router
  for (const s of sessions) {
    const t = await fetch(`${base}/v1/stream-tickets?session=${s.id}`, { method: "POST", headers: auth, body: JSON.stringify({ session: s.id }) });
    assert.equal(t.status, 201, `ticket for ${s.id}: ${t.status}`);
    const { stream_url: url } = await t.json();
    assert.ok(url.startsWith(`ws://127.0.0.1:${httpPort}/v1/sessions/${s.id}/stream?ticket=`), url);
    const ws = new WebSocket(url);
    let frames = 0;
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no frames from ${s.id}'s stream\n${JSON.stringify(logs)}`)), 15000);
      ws.onmessage = (m) => {
        const msg = typeof m.data === "string" ? JSON.parse(m.data) : null;
        if (msg?.op === "frame" && ++frames >= 3) {
          clearTimeout(timer);
          resolve();
        }
      };
      ws.onerror = () => reject(new Error(`stream ${s.id} failed\n${JSON.stringify(logs)}`));
    });
    ws.close();
  }
  console.log("ok   6 stream tickets and streams, each from its session's owner");
} catch (e) {
  failed = 1;
  console.error(`FAIL ${e.stack || e}`);
} finally {
  for (const p of procs) p.kill("SIGTERM");
  await sleep(500);
  for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
  rmSync(work, { recursive: true, force: true });
}
process.exit(failed);

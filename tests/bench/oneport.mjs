// make bench-oneport: what a stream costs on the REST port (the handshake relayed, then every
// byte copied by the pump thread, server/stream/splice.c) against the stream port of its own: the
// frame latency (publication to arrival at the client) and the daemon's CPU per stream.
//
//   node tests/bench/oneport.mjs [--clients 16] [--seconds 10] [--rounds 2] [--format json|binary]
//
// Real-time cable-arm sessions (51 points) publish at 60 Hz; each client subscribes at 60 Hz
// to all fields. Phases alternate (idle, stream port, REST port, both) so that a change in the
// machine's load falls on each. CPU is the daemon's user + system time over the phase (from
// /proc), less the idle phase's (the simulation itself), per client; the pump thread's and
// the stream thread's own shares come from /proc/PID/task. Clients run in this process: their
// parsing is on the same cores, which widens both ports' latencies alike. The "both" phase
// pairs a REST-port client with a stream-port client on the same session: the difference of
// their arrival times for the same frame (seq) is the REST path's own added latency, free of
// the machine's load, which on a shared machine moves each phase's latency far more.
import { readdirSync, readFileSync } from "node:fs";
import { api, cableSpec, openStream, sleep, startDaemon } from "../integration/daemon.mjs";

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const CLIENTS = Number(arg("clients", 16));
const SECONDS = Number(arg("seconds", 10));
const ROUNDS = Number(arg("rounds", 2));
const FORMAT = arg("format", "json");
const SESSIONS = 2;
const TICK = 100; // clock ticks per second in /proc (USER_HZ)

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
};
const ticks = (statLine) => {
  const f = statLine.slice(statLine.lastIndexOf(")") + 2).split(" ");
  return Number(f[11]) + Number(f[12]); // utime + stime
};
const cpuOf = (pid) => ticks(readFileSync(`/proc/${pid}/stat`, "utf8")) / TICK;
const threads = (pid) => {
  const out = {};
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim();
      out[name] = (out[name] ?? 0) + ticks(readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8")) / TICK;
    } catch {} // a thread that ended meanwhile
  }
  return out;
};

const d = await startDaemon({ env: { RODD_MAX_RATE: "60", RODD_WORKERS: "2" } });
const rows = [];
try {
  const ids = [];
  for (let i = 0; i < SESSIONS; i++) {
    const r = await api(d, "POST", "/v1/sessions", { spec: cableSpec(), start: true, pace: 1, points: 51 });
    if (r.status !== 201) throw new Error(`create: ${r.status} ${r.text}`);
    ids.push(r.json.id);
  }
  await sleep(1000);
  const phase = async (port) => {
    const clients = [];
    for (let i = 0; i < (port === "idle" ? 0 : CLIENTS); i++) {
      const path = `/v1/sessions/${ids[Math.floor(i / (port === "both" ? 2 : 1)) % SESSIONS]}/stream?rate=60&format=${FORMAT}`;
      const rest = port === "rest" || (port === "both" && i % 2 === 0);
      const c = openStream(rest ? d.restWsUrl(path) : d.wsUrl(path));
      await c.ready;
      clients.push(c);
    }
    await sleep(1000); // settle
    const n0 = clients.map((c) => (FORMAT === "json" ? c.frames.length : c.binary.length));
    const cpu0 = cpuOf(d.proc.pid), th0 = threads(d.proc.pid), t0 = Date.now();
    await sleep(SECONDS * 1000);
    const cpu1 = cpuOf(d.proc.pid), th1 = threads(d.proc.pid), wall = (Date.now() - t0) / 1000;
    const latency = [];
    let frames = 0;
    clients.forEach((c, i) => {
      if (FORMAT === "json") {
        const fs = c.frames.slice(n0[i]);
        frames += fs.length;
        for (const f of fs) latency.push(f._at - f.published * 1000);
      } else {
        frames += c.binary.length - n0[i];
      }
    });
    // paired: client 2k on the REST port, 2k + 1 on the stream port, the same session
    const added = [];
    if (port === "both" && FORMAT === "json")
      for (let k = 0; k + 1 < clients.length; k += 2) {
        const at = new Map(clients[k + 1].frames.slice(n0[k + 1]).map((f) => [f.seq, f._at]));
        for (const f of clients[k].frames.slice(n0[k])) if (at.has(f.seq)) added.push(f._at - at.get(f.seq));
      }
    for (const c of clients) c.close();
    await sleep(500);
    const share = (name) => Number((((th1[name] ?? 0) - (th0[name] ?? 0)) / wall).toFixed(4));
    return {
      port, clients: clients.length, wall_s: Number(wall.toFixed(2)),
      cpu_cores: Number(((cpu1 - cpu0) / wall).toFixed(4)),
      pump_cores: share("rodd-splice"), streams_thread_cores: share("rodd-streams"),
      frames_per_client_s: clients.length ? Number((frames / clients.length / wall).toFixed(1)) : 0,
      latency_ms_p50: Number(pct(latency, 50).toFixed(2)), latency_ms_p99: Number(pct(latency, 99).toFixed(2)),
      ...(added.length ? { rest_minus_stream_ms_p10: Number(pct(added, 10).toFixed(2)),
        rest_minus_stream_ms_p50: Number(pct(added, 50).toFixed(2)), rest_minus_stream_ms_p90: Number(pct(added, 90).toFixed(2)),
        paired_frames: added.length } : {}),
    };
  };
  for (let r = 0; r < ROUNDS; r++)
    for (const port of ["idle", "stream", "rest", "both"]) {
      const row = await phase(port);
      rows.push(row);
      console.log(JSON.stringify(row));
    }
} finally {
  await d.stop();
  d.cleanup();
}
const mean = (port, k) => {
  const xs = rows.filter((r) => r.port === port).map((r) => r[k]);
  return xs.reduce((a, b) => a + b, 0) / xs.length;
};
const idle = mean("idle", "cpu_cores");
if (FORMAT === "json")
  console.log(`the same frame on both ports at once: the REST port's arrives ${mean("both", "rest_minus_stream_ms_p50").toFixed(3)} ms ` +
    `later (median; p10 ${mean("both", "rest_minus_stream_ms_p10").toFixed(3)}, p90 ${mean("both", "rest_minus_stream_ms_p90").toFixed(3)} ms)`);
for (const port of ["stream", "rest"]) {
  const per = ((mean(port, "cpu_cores") - idle) / CLIENTS) * 1000;
  console.log(`${port === "rest" ? "REST port  " : "stream port"}: ${per.toFixed(2)} ms CPU per client per second ` +
    `(${CLIENTS} clients, ${FORMAT}, 60 Hz), pump ${(mean(port, "pump_cores") * 1000 / CLIENTS).toFixed(2)} ms, ` +
    `frame latency p50 ${mean(port, "latency_ms_p50").toFixed(2)} ms, p99 ${mean(port, "latency_ms_p99").toFixed(2)} ms`);
}

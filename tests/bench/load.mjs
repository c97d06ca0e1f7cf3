// make bench-load: how many real-time reaching-arm sessions, each watched by two stream
// clients at 30 Hz, this machine's daemon holds while every session keeps real time; with the
// frame latency (publication to arrival), the REST latency under that load and the resident
// memory each added session costs.
//
//   node tests/bench/load.mjs [--levels 1,2,4,6,8,10,12] [--seconds 8] [--warmup 2]
//   node tests/bench/load.mjs --reach [--levels 1,2,4,8,16,24,32,48,64] [--example NAME --until T]
//
// A level passes when every session's simulated time advanced at least 0.97 of the wall time
// between its first and last frame of the window (the publication times the frames carry).
// The levels stop at the first that fails. The daemon is build/rodd (or $RODD), with its
// workers one per core. Clients are plain JSON stream clients (the full FRAME), in this
// process: on a small machine they take CPU from the daemon, so the count is conservative.
//
// --reach (issue 12's goal): N sessions started together, one binary 30 Hz client each, run
// through the 3.5 s reach (until 3.5, the costly part). A level passes when every session's
// simulated time advanced at least 0.95 of the wall time from its first frame to its frame at
// 3.5 s, that wall time measured as the lag its frames' arrival built up (binary frames carry no
// publication time; see reachLevel). LOAD_CK=SECONDS sets the daemon's checkpoint period (0:
// none). Alongside, JSON probe clients on a tenth of the sessions, on a worker thread
// (LOAD_FRAME_DUMP=FILE writes each frame's latency and publication time), give the frame latency
// (publication to arrival) and an open-loop REST load (--rest-rate, 500 GET .../frame a second)
// its latency (LOAD_REST_DUMP=FILE writes each request's send time and latency), beside the
// daemon's own time for them from /metrics; the RSS the level's sessions added, per session.
// Each level also prints the daemon's CPU seconds per simulated second per session over the
// reach, and the load average of the machine: on a shared machine that figure, times the sessions, against the cores it
// had, is what extrapolates.
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import os from "node:os";
import { Worker } from "node:worker_threads";
import { api, openStream, sleep, startDaemon } from "../integration/daemon.mjs";

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const levels = arg("levels", "1,2,4,6,8,10,12,14,16").split(",").map(Number);
const seconds = Number(arg("seconds", 8));
const warmup = Number(arg("warmup", 2));
const VIEWERS = 2;
const RATE = 30;

const pct = (xs, p) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const rssKiB = (pid) => Number(readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/)[1]);

const reach = process.argv.includes("--reach");
/* the daemon's user + system CPU seconds (/proc/PID/stat fields 14 and 15, clock ticks) */
const cpuSeconds = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(f[11]) + Number(f[12])) / 100;
};
/* --example and --until put another shipped example through the same measure (issue 30: the
 * snake, `--reach --example snake-lateral-undulation --until 4`) */
const EXAMPLE = arg("example", "octopus-reaching");
const REACH = Number(arg("until", 3.5));
const REST_RATE = Number(arg("rest-rate", 500));
const WARM_REST = 0.5;
const REST_CLIENT = arg("rest-client", "c");

/* the C open-loop client (tests/bench/rest_load.c): { record(), stop(), done }. Its result is
 * read on "close" (stdout drained), and a failure to start or a death rejects done, which the
 * caller awaits (the level fails and the daemon is stopped). */
function cRestLoad(d, paths) {
  const u = new URL(d.base);
  const bin = process.env.RODD_REST_LOAD ?? path.join(path.dirname(process.env.RODD ?? "build/rodd"), "bench_rest_load");
  const p = spawn(bin, [u.hostname, u.port, String(REST_RATE)], { stdio: ["pipe", "pipe", "inherit"] });
  let out = "";
  p.stdout.on("data", (b) => (out += b));
  p.stdin.on("error", () => {}); // a client that died: "close" says so
  const done = new Promise((resolve, reject) => {
    p.on("error", reject);
    p.on("close", (code) => {
      if (code !== 0) return reject(new Error(`bench_rest_load (${bin}) exited ${code}`));
      try {
        const r = JSON.parse(out.slice(out.indexOf("{")));
        resolve({ latencies: r.latencies_ms, sentAt: r.sent_at_s, sent: r.sent, failed: r.failed, wall: r.wall_s, cpu: r.cpu_s, connections: r.connections });
      } catch (e) {
        reject(new Error(`bench_rest_load's result: ${e.message}`));
      }
    });
  });
  done.catch(() => {}); // awaited later; not an unhandled rejection meanwhile
  p.stdin.write(paths.join("\n") + "\n\n");
  return { record: () => p.stdin.write("record\n"), stop: () => p.stdin.end("stop\n"), done };
}

/* the node client (tests/bench/rest_load.mjs) on a worker thread of this process */
function nodeRestLoad(d, paths) {
  const w = new Worker(new URL("./rest_load.mjs", import.meta.url), { workerData: { urls: paths.map((p) => d.url(p)), rate: REST_RATE } });
  const done = new Promise((resolve, reject) => {
    w.once("message", resolve);
    w.once("error", reject);
  }).finally(() => w.terminate());
  return { record: () => w.postMessage("record"), stop: () => w.postMessage("stop"), done };
}

/* rodd_http_request_duration_seconds' cumulative buckets: [[le (s), count], ...] */
async function requestHistogram(d) {
  const m = (await api(d, "GET", "/metrics")).text;
  return [...m.matchAll(/^rodd_http_request_duration_seconds_bucket\{le="([^"]+)"\} (\d+)$/gm)].map((x) => [Number(x[1]), Number(x[2])]);
}

/* The daemon's own time for the REST requests between two readings (the GET .../frame load
 * once the :start requests are answered, and the two /metrics readings): the bound of the
 * bucket the 99th percentile falls in, and the share over 10 ms. The client's latency adds the
 * wait for a connection thread and the client's own scheduling to it. */
function daemonRequestTimes(h0, h1) {
  const d = h1.map(([le, c], i) => [le, c - h0[i][1]]);
  const total = d[d.length - 1][1];
  const p99 = d.find(([, c]) => c >= 0.99 * total);
  const at10 = d.find(([le]) => le >= 0.01);
  return {
    daemon_request_ms_p99_under: p99 ? p99[0] * 1000 : NaN,
    daemon_requests_over_10ms: Number((1 - at10[1] / total).toFixed(4)),
  };
}

/* one level of --reach: n sessions, created paused, one binary client each, started together */
async function reachLevel(d, n) {
  const rss0 = rssKiB(d.proc.pid);
  const ids = [];
  for (let i = 0; i < n; i++) {
    const r = await api(d, "POST", "/v1/sessions", { example: EXAMPLE, pace: 1, until: REACH, ...(process.env.LOAD_NOREC ? { recording: false } : {}) });
    if (r.status !== 201) throw new Error(`create: ${r.status} ${r.text}`);
    ids.push(r.json);
  }
  const clients = [];
  for (const s of ids) {
    const url = `${s.stream_url}${s.stream_url.includes("?") ? "&" : "?"}format=binary&rate=${RATE}`;
    const c = openStream(url);
    await c.ready;
    clients.push(c);
  }
  /* binary frames carry no publication time: the latency is read off JSON probes (the full
   * FRAME, heavier than the binary one) on a tenth of the sessions, over the same reach, on a
   * thread of their own (tests/bench/probe_streams.mjs) */
  const probes = new Worker(new URL("./probe_streams.mjs", import.meta.url), {
    workerData: { urls: ids.slice(0, Math.max(1, Math.round(n / 10))).map((s) => s.stream_url), rate: RATE },
  });
  const probeMessage = () =>
    new Promise((resolve, reject) => {
      probes.once("message", resolve);
      probes.once("error", reject);
    });
  await probeMessage(); // "ready"
  /* REST meanwhile, open loop: GET .../frame of the sessions in turn, from WARM_REST s before the
   * start (its connections and code warm; the sessions still paused), recorded from the start
   * on; by build/bench_rest_load (C, a few ms of CPU a second), or with --rest-client node by
   * fetch on a worker thread of this process, as before (it cost about as much CPU as the
   * requests it timed) */
  const paths = ids.map((s) => `/v1/sessions/${s.id}/frame`);
  const restLoad = REST_CLIENT === "node" ? nodeRestLoad(d, paths) : cRestLoad(d, paths);
  await sleep(WARM_REST * 1000);
  const load0 = os.loadavg()[0], cpu0 = cpuSeconds(d.proc.pid), from = clients.map((c) => c.binary.length);
  const clientCpu0 = process.cpuUsage();
  const t0 = performance.now();
  restLoad.record();
  probes.postMessage("record");
  const started = await Promise.all(ids.map((s) => api(d, "POST", `/v1/sessions/${s.id}:start`)));
  for (const r of started) if (r.status !== 200) throw new Error(`start: ${r.status} ${r.text}`);
  const hist0 = await requestHistogram(d); // from here the GET .../frame load alone
  const tOf = (b) => b.data.readDoubleLE(16);
  const done = () => clients.every((c) => c.binary.length && tOf(c.binary[c.binary.length - 1]) >= REACH - 1e-9);
  while (!done() && performance.now() - t0 < (REACH / 0.25) * 1000) await sleep(50);
  const wall = (performance.now() - t0) / 1000, cpu = cpuSeconds(d.proc.pid) - cpu0;
  const clientCpu = process.cpuUsage(clientCpu0);
  const rss1 = rssKiB(d.proc.pid);
  restLoad.stop();
  const probed = probeMessage();
  probes.postMessage("stop");
  const probeFrames = await probed;
  await probes.terminate();
  const hist1 = await requestHistogram(d);
  const { latencies: rest, sentAt: restAt, sent: restSent, failed: restFailed, wall: restWall, cpu: restCpu, connections: restConnections } = await restLoad.done;
  if (process.env.LOAD_REST_DUMP) writeFileSync(process.env.LOAD_REST_DUMP, JSON.stringify({ rest, restAt }));
  const reachFrames = probeFrames.filter((f) => f.t <= REACH + 1e-9), latency = reachFrames.map((f) => f.latency);
  if (process.env.LOAD_FRAME_DUMP) writeFileSync(process.env.LOAD_FRAME_DUMP, JSON.stringify(reachFrames));
  /* A frame's offset is its arrival (wall s) minus its simulated time. A session that keeps
   * its pace keeps its offset, up to the delivery's jitter; one that falls behind carries the
   * lag to the end (a session more than 0.25 s behind slips its anchor and never catches up).
   * The lag over the reach is the median offset of its last 0.3 s of frames minus that of its
   * first 0.3 s: a stall of this client process itself (under load a single-threaded reader of
   * every stream) delays a few frames' arrival and recovers, and the medians leave it out. */
  const median = (xs) => {
    const v = [...xs].sort((a, b) => a - b);
    return v.length ? v[Math.floor(v.length / 2)] : NaN;
  };
  let worst = Infinity, frames = 0, lagMax = 0;
  clients.forEach((c, i) => {
    const fs = c.binary.slice(from[i]);
    frames += fs.length;
    const end = fs.findIndex((b) => tOf(b) >= REACH - 1e-9);
    if (fs.length < 2 || end < 1) {
      worst = 0;
      return;
    }
    const reachFs = fs.slice(0, end + 1), t0f = tOf(fs[0]), t1f = tOf(fs[end]);
    const offset = (b) => b.at / 1000 - tOf(b);
    const head = median(reachFs.filter((b) => tOf(b) <= t0f + 0.3).map(offset));
    const tail = median(reachFs.filter((b) => tOf(b) >= t1f - 0.3).map(offset));
    const lag = Math.max(0, tail - head);
    lagMax = Math.max(lagMax, lag);
    worst = Math.min(worst, (t1f - t0f) / (t1f - t0f + lag));
  });
  const row = {
    sessions: n,
    binary_clients: clients.length,
    keeps_real_time: worst >= 0.95,
    slowest_real_time_factor: Number(worst.toFixed(3)),
    reach_wall_s: Number(wall.toFixed(2)),
    largest_lag_s: Number(lagMax.toFixed(3)),
    frames_per_client_per_s: Number((frames / clients.length / wall).toFixed(1)),
    daemon_cpu_s: Number(cpu.toFixed(2)),
    cpu_s_per_simulated_s_per_session: Number((cpu / (n * REACH)).toFixed(4)),
    clients_cpu_s: Number(((clientCpu.user + clientCpu.system) / 1e6).toFixed(2)), // this process: streams, probes (and REST with --rest-client node)
    rest_client: REST_CLIENT,
    rest_client_cpu_s: restCpu === undefined ? null : Number(restCpu.toFixed(3)),
    rest_client_connections: restConnections ?? null,
    frame_latency_ms_p50: Number(pct(latency, 50).toFixed(1)),
    frame_latency_ms_p99: Number(pct(latency, 99).toFixed(1)),
    latency_probe_frames: latency.length,
    rest_frame_requests_per_s: Number((restSent / restWall).toFixed(0)),
    rest_frame_ms_p50: Number(pct(rest, 50).toFixed(1)),
    rest_frame_ms_p99: Number(pct(rest, 99).toFixed(1)),
    rest_frame_failed: restFailed,
    ...daemonRequestTimes(hist0, hist1),
    rss_per_session_kib: Math.round((rss1 - rss0) / n),
    load_average_before: Number(load0.toFixed(2)),
    load_average_after: Number(os.loadavg()[0].toFixed(2)),
  };
  for (const c of clients) c.close();
  for (const s of ids) await api(d, "DELETE", `/v1/sessions/${s.id}`);
  await sleep(500);
  return row;
}

/* Every client here is one loopback address, and a stream holds its connection slot on the REST
 * port: the per-address limit (64, against one host's flood) is raised as a lab would for a
 * machine that drives many sessions. */
const d = await startDaemon({ env: { RODD_WORKERS: String(os.availableParallelism()), RODD_PER_IP_CONNECTIONS: "400", RODD_MAX_SESSIONS: "256", ...(process.env.LOAD_CK ? { RODD_CHECKPOINT_PERIOD: process.env.LOAD_CK } : {}) } });
const results = [];
if (reach) {
  try {
    for (const n of arg("levels", "1,2,4,8,16,24,32,48,64,80,100").split(",").map(Number)) {
      const row = await reachLevel(d, n);
      results.push(row);
      console.log(JSON.stringify(row));
      if (!row.keeps_real_time) break;
    }
  } finally {
    await d.stop();
    d.cleanup();
  }
  const held = results.filter((r) => r.keeps_real_time).map((r) => r.sessions);
  const per = results.map((r) => r.cpu_s_per_simulated_s_per_session).sort((a, b) => a - b);
  console.log(`load: ${held.length ? Math.max(...held) : 0} ${EXAMPLE} sessions started together kept >= 0.95x real time ` +
    `through ${REACH} simulated s with one binary ${RATE} Hz client each, on ${os.availableParallelism()} cores; ` +
    `daemon CPU per session ${per[Math.floor(per.length / 2)]} s per simulated s (median over the levels)`);
  process.exit(0);
}
try {
  await sleep(500);
  const rss0 = rssKiB(d.proc.pid);
  // memory: sessions added one by one (created, not running); the slope of RSS over count
  {
    const made = [];
    const xs = [], ys = [];
    for (let i = 1; i <= 16; i++) {
      const r = await api(d, "POST", "/v1/sessions", { example: "octopus-reaching" });
      if (r.status !== 201) throw new Error(`create: ${r.status} ${r.text}`);
      made.push(r.json.id);
      xs.push(i);
      ys.push(rssKiB(d.proc.pid));
    }
    const mx = xs.reduce((a, b) => a + b) / xs.length, my = ys.reduce((a, b) => a + b) / ys.length;
    const slope = xs.reduce((a, x, i) => a + (x - mx) * (ys[i] - my), 0) / xs.reduce((a, x) => a + (x - mx) ** 2, 0);
    console.log(JSON.stringify({ memory: "16 reaching sessions added one by one", rss_before_mib: Number((rss0 / 1024).toFixed(1)),
      rss_after_mib: Number((ys[ys.length - 1] / 1024).toFixed(1)), rss_per_session_kib: Math.round(slope) }));
    for (const id of made) await api(d, "DELETE", `/v1/sessions/${id}`);
  }
  for (const n of levels) {
    const ids = [];
    for (let i = 0; i < n; i++) {
      const r = await api(d, "POST", "/v1/sessions", { example: "octopus-reaching", start: true, pace: 1 });
      if (r.status !== 201) throw new Error(`create: ${r.status} ${r.text}`);
      ids.push(r.json);
    }
    const clients = [];
    for (const s of ids)
      for (let v = 0; v < VIEWERS; v++) {
        const c = openStream(s.stream_url);
        await c.ready;
        c.send({ op: "subscribe", rate: RATE, format: "json" });
        clients.push({ c, id: s.id });
      }
    await sleep(warmup * 1000);
    const from = clients.map(({ c }) => c.frames.length);
    // REST meanwhile: four loops reading a session or commanding its TM, a request each 50 ms
    const rest = [];
    const end = Date.now() + seconds * 1000;
    const loop = async (k) => {
      for (let j = k; Date.now() < end; j++) {
        const s = ids[j % ids.length];
        const t0 = performance.now();
        const r = j % 2
          ? await api(d, "GET", `/v1/sessions/${s.id}`)
          : await api(d, "PUT", `/v1/sessions/${s.id}/actuators/TM`, { value: 790 });
        rest.push(performance.now() - t0);
        if (r.status !== 200) throw new Error(`REST ${r.status}: ${r.text}`);
        await sleep(50);
      }
    };
    await Promise.all([0, 1, 2, 3].map(loop));
    const rss = rssKiB(d.proc.pid);
    // per client: the frames of the window
    const latency = [];
    let worst = Infinity;
    let received = 0;
    clients.forEach(({ c }, i) => {
      const fs = c.frames.slice(from[i]);
      received += fs.length;
      for (const f of fs) latency.push(f._at - f.published * 1000);
      if (fs.length >= 2) {
        const a = fs[0], b = fs[fs.length - 1];
        worst = Math.min(worst, (b.t - a.t) / (b.published - a.published));
      } else worst = 0;
    });
    const row = {
      sessions: n,
      clients: clients.length,
      keeps_real_time: worst >= 0.97,
      slowest_real_time_factor: Number(worst.toFixed(3)),
      frames_per_client_per_s: Number((received / clients.length / seconds).toFixed(1)),
      frame_latency_ms_p50: Number(pct(latency, 50).toFixed(1)),
      frame_latency_ms_p99: Number(pct(latency, 99).toFixed(1)),
      rest_ms_p50: Number(pct(rest, 50).toFixed(1)),
      rest_ms_p99: Number(pct(rest, 99).toFixed(1)),
      rest_requests: rest.length,
      rss_mib: Number((rss / 1024).toFixed(1)),
    };
    results.push(row);
    console.log(JSON.stringify(row));
    for (const { c } of clients) c.close();
    for (const s of ids) await api(d, "DELETE", `/v1/sessions/${s.id}`);
    await sleep(500);
    if (!row.keeps_real_time) break;
  }
} finally {
  await d.stop();
  d.cleanup();
}
const held = results.filter((r) => r.keeps_real_time).map((r) => r.sessions);
console.log(`load: ${held.length ? Math.max(...held) : 0} real-time reaching sessions with ${VIEWERS} viewers each at ${RATE} Hz held`);

// make bench-isolation: what a commanded or a failing session costs itself and the others.
//
//   node tests/bench/isolation.mjs [--seconds 6] [--rates 0,10,50,100]
//
// 1. One real-time reaching session commanded over REST at each rate (PUT of the TM pressure,
//    alternating between two values): the simulated time it kept per wall second, and its
//    integrator's steps and RHS evaluations per simulated second.
// 2. Four real-time reaching sessions while a fifth is driven past what it can follow (LM1 =
//    1e300, and LM1 = 3e4 that grinds): the four's simulated seconds per wall second.
import { readFileSync } from "node:fs";
import os from "node:os";
import { api, sleep, startDaemon } from "../integration/daemon.mjs";

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const seconds = Number(arg("seconds", 6));
const rates = arg("rates", "0,10,50,100").split(",").map(Number);
const load = () => os.loadavg()[0].toFixed(2);
// the daemon's CPU seconds so far (user + system, /proc/PID/stat fields 14 and 15)
const cpuSeconds = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(f[11]) + Number(f[12])) / 100;
};

const d = await startDaemon({ env: { RODD_WORKERS: String(os.availableParallelism()), RODD_CHECKPOINT_PERIOD: "1000" } });
const describe = async (id) => (await api(d, "GET", `/v1/sessions/${id}`)).json;
try {
  for (const rate of rates) {
    const s = (await api(d, "POST", "/v1/sessions", { example: "octopus-reaching", start: true, pace: 1 })).json;
    await sleep(1000);
    const a = await describe(s.id);
    const c0 = cpuSeconds(d.proc.pid);
    const w0 = Date.now();
    let sent = 0, late = 0;
    const lat = [], pending = [];
    // a controller's clock: a command every 1/rate s whether or not the last one has been
    // answered (a PUT on a running session answers when the worker applies it, up to a frame
    // period later)
    while (Date.now() - w0 < seconds * 1000) {
      if (rate > 0) {
        const t0 = performance.now();
        pending.push(api(d, "PUT", `/v1/sessions/${s.id}/actuators/TM`, { value: sent % 2 ? 800 : 790 }).then((r) => {
          lat.push(performance.now() - t0);
          if (r.status !== 200 && r.status !== 202) throw new Error(`PUT: ${r.status} ${r.text}`);
        }));
        sent++;
        const wait = w0 + (sent * 1000) / rate - Date.now();
        if (wait > 0) await sleep(wait);
        else late++;
      } else await sleep(100);
    }
    await Promise.all(pending);
    const b = await describe(s.id);
    const wall = (Date.now() - w0) / 1000, sim = b.t - a.t;
    const cpu = cpuSeconds(d.proc.pid) - c0;
    lat.sort((x, y) => x - y);
    console.log(JSON.stringify({
      case: "commanded", rate_per_s: rate, sent, late, sim_per_wall: Number((sim / wall).toFixed(3)),
      steps_per_sim_s: Math.round((b.stats.steps - a.stats.steps) / sim),
      rhs_per_sim_s: Math.round((b.stats.rhs_evals - a.stats.rhs_evals) / sim),
      jacobians_per_sim_s: Math.round((b.stats.jacobians - a.stats.jacobians) / sim),
      daemon_cpu_per_sim_s: Number((cpu / sim).toFixed(3)),
      put_p50_ms: lat.length ? Number(lat[Math.floor(lat.length / 2)].toFixed(2)) : null,
      load: load(),
    }));
    await api(d, "DELETE", `/v1/sessions/${s.id}`);
  }
  for (const bad of [null, 1e300, 3e4]) {
    const ids = [];
    for (let i = 0; i < 4; i++) ids.push((await api(d, "POST", "/v1/sessions", { example: "octopus-reaching", start: true, pace: 1 })).json.id);
    await sleep(1000);
    let badId = null;
    if (bad !== null) {
      badId = (await api(d, "POST", "/v1/sessions", { example: "octopus-reaching" })).json.id;
      await api(d, "POST", `/v1/sessions/${badId}:advance`, { by: 0.3 });
      await api(d, "PUT", `/v1/sessions/${badId}/actuators/LM1`, { value: bad });
      await api(d, "POST", `/v1/sessions/${badId}:start`);
    }
    const a = await Promise.all(ids.map(describe));
    const w0 = Date.now();
    await sleep(seconds * 1000);
    const b = await Promise.all(ids.map(describe));
    const wall = (Date.now() - w0) / 1000;
    const rtf = b.map((x, i) => (x.t - a[i].t) / wall);
    const badState = badId ? await describe(badId) : null;
    console.log(JSON.stringify({
      case: "four beside a failing one", lm1: bad, others_min_sim_per_wall: Number(Math.min(...rtf).toFixed(3)),
      others_mean_sim_per_wall: Number((rtf.reduce((x, y) => x + y) / rtf.length).toFixed(3)),
      bad_state: badState ? badState.state : null, bad_failure: badState ? (badState.failure ?? "").slice(0, 60) : null, load: load(),
    }));
    for (const id of [...ids, ...(badId ? [badId] : [])]) await api(d, "DELETE", `/v1/sessions/${id}`);
  }
} finally {
  await d.stop("SIGKILL");
  d.cleanup();
}

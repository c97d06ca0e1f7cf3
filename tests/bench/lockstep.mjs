// make bench-lockstep: a controller that owns the clock (issue 15 item 4). POST :step with the
// inputs and by = 0.01 s on the reaching arm, one after another, answered with the frame; the
// round trip's median and p90 over N steps, with the daemon's CPU per step, against the old
// way (PUT, :advance, GET frame) and :step with every command a restart (command_ramp 0); then
// the same :step through the project's clients: Python (Session.step) and Octave (rodd_step),
// each lane skipped with a note when its interpreter is missing.
//   node tests/bench/lockstep.mjs [--steps 200]
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { api, startDaemon } from "../integration/daemon.mjs";

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const steps = Number(arg("steps", 200));
const cpuSeconds = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(f[11]) + Number(f[12])) / 100;
};
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];

const d = await startDaemon({ env: { RODD_CHECKPOINT_PERIOD: "1000" } });
try {
  const reaching = JSON.parse(readFileSync(new URL("../../api/examples/octopus-reaching.json", import.meta.url)));
  const stepNoRamp = { ...reaching, solver: { ...reaching.solver, command_ramp: 0 } };
  for (const way of ["step", "step, command_ramp 0", "put+advance+frame"]) {
    const spec = way === "step, command_ramp 0" ? stepNoRamp : reaching;
    const s = (await api(d, "POST", "/v1/sessions", { spec, recording: false })).json;
    await api(d, "POST", `/v1/sessions/${s.id}:advance`, { by: 0.05 });
    const ms = [];
    const c0 = cpuSeconds(d.proc.pid);
    for (let k = 0; k < steps; k++) {
      const tm = 700 + 100 * Math.sin(k / 10);
      const t0 = performance.now();
      if (way.startsWith("step")) {
        const r = await api(d, "POST", `/v1/sessions/${s.id}:step`, { inputs: { TM: tm }, by: 0.01 });
        if (r.status !== 200) throw new Error(`:step ${r.status} ${r.text}`);
      } else {
        await api(d, "PUT", `/v1/sessions/${s.id}/actuators/TM`, { value: tm });
        await api(d, "POST", `/v1/sessions/${s.id}:advance`, { by: 0.01 });
        await api(d, "GET", `/v1/sessions/${s.id}/frame`);
      }
      ms.push(performance.now() - t0);
    }
    const cpu = cpuSeconds(d.proc.pid) - c0;
    console.log(JSON.stringify({ way, steps, round_trip_p50_ms: Number(pct(ms, 0.5).toFixed(2)),
      round_trip_p90_ms: Number(pct(ms, 0.9).toFixed(2)), daemon_cpu_ms_per_step: Number(((1000 * cpu) / steps).toFixed(2)),
      load: Number((readFileSync("/proc/loadavg", "utf8").split(" ")[0])) }));
    await api(d, "DELETE", `/v1/sessions/${s.id}`);
  }
  const here = new URL(".", import.meta.url).pathname;
  const matlab = new URL("../../clients/matlab", import.meta.url).pathname;
  const lanes = [
    // Debian's python3 has the client's NumPy (deploy/setup.sh); one first on PATH may not
    [existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3", [`${here}lockstep_python.py`, d.base, String(steps)]],
    // the default (a kept-alive socket), then the curl process per request it replaced
    ...["", "curl"].map((transport) => ["octave-cli", ["--no-gui", "--norc", "-q", "--eval",
      `addpath('${matlab}'); addpath('${here}'); lockstep_octave('${d.base}', ${steps}, '${transport}')`]]),
  ];
  for (const [cmd, argv] of lanes) {
    const r = spawnSync(cmd, argv, { encoding: "utf8", timeout: 600000 });
    if (r.error?.code === "ENOENT") console.log(JSON.stringify({ way: cmd, skipped: "not installed" }));
    else if (r.status !== 0) throw new Error(`${cmd} lane: ${r.status} ${r.stderr}`);
    else {
      const line = r.stdout.trim().split("\n").pop();
      console.log(JSON.stringify({ ...JSON.parse(line), load: Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0]) }));
    }
  }
} finally {
  await d.stop("SIGKILL");
  d.cleanup();
}

// A model driven past what it can follow (issue 10, item 1): the octopus-reaching example with
// LM1 = 3e4 N takes steps of ~1e-8 s. It must fail with a reason instead of freezing while a
// core grinds; :advance on it answers within its limit; DELETE stops its work and its
// checkpoint is never written again (item 2); SIGTERM exits within drain_timeout + 2 s
// whatever it is doing (items 1 and 4). Wall-clock limits scale with RODD_TEST_TIME_SCALE.
// Every test stops its daemon with SIGKILL in its finally: after a failed assertion, one left
// grinding would hold the test file open.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { api, sleep, startDaemon } from "./daemon.mjs";

const SCALE = Number(process.env.RODD_TEST_TIME_SCALE ?? 1);
const WINDOW = 3; // s of computing the rate floor is measured over (RODD_SIM_RATE_WINDOW)
const LIMIT = 2; // RODD_ADVANCE_LIMIT
const DRAIN = 3; // RODD_DRAIN_TIMEOUT

const env = {
  RODD_CHECKPOINT_PERIOD: "1",
  RODD_SIM_RATE_WINDOW: String(WINDOW),
  RODD_ADVANCE_LIMIT: String(LIMIT),
  RODD_DRAIN_TIMEOUT: String(DRAIN),
};

const timed = async (what) => {
  const t0 = Date.now();
  const r = await what();
  return { r, ms: Date.now() - t0 };
};

// A running octopus whose next piece of simulation is a runaway one. The command lands at a
// fixed simulated time (0.3 s, reached by :advance): applied wherever a real-time slice happened
// to end, the same command sometimes drives the arm to a non-finite force instead of to
// ever-smaller steps, which is a different failure.
async function runaway(d) {
  const r = await api(d, "POST", "/v1/sessions", { example: "octopus-reaching" });
  assert.equal(r.status, 201, r.text);
  const id = r.json.id;
  const a = await api(d, "POST", `/v1/sessions/${id}:advance`, { by: 0.3 });
  assert.equal(a.status, 200, a.text);
  const c = await api(d, "PUT", `/v1/sessions/${id}/actuators/LM1`, { value: 3e4 });
  assert.ok(c.status === 200 || c.status === 202, c.text);
  const s = await api(d, "POST", `/v1/sessions/${id}:start`);
  assert.equal(s.status, 200, s.text);
  return id;
}

// A model that grinds by its size, not by chaos: the reaching arm at 1000 Gauss points x 19
// substeps (20,000 Zanna steps a kinematic pass) and rtol 1e-10 takes about 7 s of computing
// for 0.01 s here, every time. The LM1 = 3e4 runaway above is chaotic: restarted from a
// different slice it grinds once and fails with a non-finite force the next, so the tests that
// need a piece still running when they act use this one.
const reaching = JSON.parse(readFileSync(new URL("../../api/examples/octopus-reaching.json", import.meta.url)));
const heavySpec = {
  ...reaching,
  initial: "rest",
  discretization: { points: 1000, substeps: 19 },
  solver: { ...reaching.solver, rtol: 1e-10, atol: 1e-12, rate_time_scale: 1 },
};
async function heavy(d, { start }) {
  const r = await api(d, "POST", "/v1/sessions", { spec: heavySpec, start });
  assert.equal(r.status, 201, r.text);
  return r.json.id;
}

const checkpointFile = (d, id) => path.join(d.dir, "sessions", `${id}.json`);

test("a runaway session fails with the reason, and the others keep running", async () => {
  const d = await startDaemon({ env });
  try {
    const other = (await api(d, "POST", "/v1/sessions", { example: "octopus-reaching", start: true })).json.id;
    const id = await runaway(d);
    let s = null;
    const t0 = Date.now();
    while (Date.now() - t0 < (WINDOW + 20) * 1000 * SCALE) {
      s = (await api(d, "GET", `/v1/sessions/${id}`)).json;
      if (s.state === "failed") break;
      await sleep(200);
    }
    assert.equal(s.state, "failed", `still ${s.state} at t = ${s.t}`);
    // the floor's "too slow", the stuck-step test, or, when the watchdog's restart of the
    // interrupted integrator throws the arm past what the forces can express, a non-finite force:
    // all three are this model failing with its reason instead of grinding on
    assert.match(s.failure, /too slow|integrator is stuck|non-finite force/);
    const o = (await api(d, "GET", `/v1/sessions/${other}`)).json;
    assert.equal(o.state, "running");
    const f0 = (await api(d, "GET", `/v1/sessions/${other}/frame`)).json;
    await sleep(500);
    const f1 = (await api(d, "GET", `/v1/sessions/${other}/frame`)).json;
    assert.ok(f1.seq > f0.seq && f1.t > f0.t, "the other session goes on");
  } finally {
    await d.stop();
    d.cleanup();
  }
});

test(":advance on a runaway session answers within its limit; DELETE stops it and it never comes back", async () => {
  let d = await startDaemon({ env });
  const dir = d.dir;
  let id;
  try {
    id = await heavy(d, { start: true });
    await sleep(500); // a worker is in its first piece
    const p = await api(d, "POST", `/v1/sessions/${id}:pause`);
    assert.equal(p.status, 200, p.text);
    const { r, ms } = await timed(() => api(d, "POST", `/v1/sessions/${id}:advance`, { by: 0.01 }));
    assert.equal(r.status, 200, r.text);
    assert.ok(ms < (LIMIT + 2) * 1000 * SCALE, `:advance answered in ${ms} ms with a ${LIMIT} s limit`);
    assert.ok(r.json.t < p.json.t + 0.01, "the limit cut it short");
    // another :advance, deleted while its piece runs
    const pending = timed(() => api(d, "POST", `/v1/sessions/${id}:advance`, { by: 0.01 }));
    await sleep(500);
    const del = await api(d, "DELETE", `/v1/sessions/${id}`);
    assert.equal(del.status, 204);
    const { ms: ms2 } = await pending;
    assert.ok(ms2 < 1500 * SCALE, `the :advance stopped ${ms2} ms after it began, soon after the DELETE`);
    assert.equal(existsSync(checkpointFile(d, id)), false, "the checkpoint is gone");
    await sleep(3000);
    assert.equal(existsSync(checkpointFile(d, id)), false, "and not written again");
    assert.equal((await api(d, "GET", `/v1/sessions/${id}`)).status, 404);
    await d.stop("SIGKILL");
    d = await startDaemon({ env, stateDir: dir });
    assert.equal((await api(d, "GET", `/v1/sessions/${id}`)).status, 404, "not restored after a restart");
  } finally {
    await d.stop("SIGKILL");
    d.cleanup();
  }
});

test("a drain keeps an :advance to its advance_limit: SIGTERM does not wait the whole drain_timeout for it", async () => {
  const drain = 12; // well past LIMIT: the limit, not the drain, must end the :advance
  const d = await startDaemon({ env: { ...env, RODD_SIM_RATE_WINDOW: "1000", RODD_DRAIN_TIMEOUT: String(drain) } });
  try {
    const a = await heavy(d, { start: false });
    const pending = timed(() => api(d, "POST", `/v1/sessions/${a}:advance`, { by: 0.01 }).catch(() => null));
    await sleep(500);
    const { r: exit, ms } = await timed(() => d.stop("SIGTERM"));
    assert.equal(exit.code, 0);
    assert.ok(ms < (LIMIT + 2) * 1000 * SCALE, `exited ${ms} ms after SIGTERM (advance_limit ${LIMIT} s, drain_timeout ${drain} s)`);
    const { ms: adv } = await pending;
    assert.ok(adv < (LIMIT + 2) * 1000 * SCALE, `the :advance took ${adv} ms`);
  } finally {
    await d.stop("SIGKILL");
  }
});

test("SIGTERM exits within drain_timeout + 2 s while a runaway :advance and a runaway worker run", async () => {
  const d = await startDaemon({ env: { ...env, RODD_SIM_RATE_WINDOW: "1000", RODD_ADVANCE_LIMIT: "1000" } });
  try {
    const a = await heavy(d, { start: false });
    await heavy(d, { start: true }); // left running: a worker is in its piece
    const pending = api(d, "POST", `/v1/sessions/${a}:advance`, { by: 0.01 }).catch(() => null);
    await sleep(500);
    const { r: exit, ms } = await timed(() => d.stop("SIGTERM"));
    assert.equal(exit.code, 0);
    assert.ok(ms < (DRAIN + 2) * 1000 * SCALE, `exited ${ms} ms after SIGTERM`);
    await pending;
  } finally {
    await d.stop("SIGKILL"); // only if an assertion above left it running
    d.cleanup();
  }
});

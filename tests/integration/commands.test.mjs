// Commands and reads from several clients at once on one session: every :advance and :step
// answered 200 did its own work, one after another (issue 27, item 5); an export during a
// change of the recording's layout answers the recording as it was (item 6).
import { test } from "node:test";
import assert from "node:assert/strict";
import { api, cableSpec, sleep, startDaemon } from "./daemon.mjs";

// the daemon's SIGTERM drain ends by exiting 0: a sanitizer's report (a leak, a race) changes that
async function cleanExit(d) {
  const { code, signal } = await d.stop("SIGTERM");
  assert.equal(signal, null, d.log().slice(-3000));
  assert.equal(code, 0, `the daemon exits 0\n${d.log().slice(-3000)}`);
}

const near = (a, b) => Math.abs(a - b) < 1e-9;

test("four concurrent :advance {by} each advance the session: it ends at four times by", async () => {
  const d = await startDaemon();
  try {
    const r = await api(d, "POST", "/v1/sessions", { spec: cableSpec(), points: 5 });
    assert.equal(r.status, 201, r.text);
    const id = r.json.id;
    const by = 0.05;
    const answers = await Promise.all([0, 1, 2, 3].map(() => api(d, "POST", `/v1/sessions/${id}:advance`, { by })));
    for (const a of answers) assert.equal(a.status, 200, a.text);
    // each answer reports the time its own advance reached: by, 2 by, 3 by, 4 by in some order
    const ts = answers.map((a) => a.json.t).sort((x, y) => x - y);
    ts.forEach((t, i) => assert.ok(near(t, (i + 1) * by), `answers at ${ts}`));
    const end = await api(d, "GET", `/v1/sessions/${id}`);
    assert.ok(near(end.json.t, 4 * by), `the session ends at ${end.json.t}, not ${4 * by}`);
    assert.equal(end.json.state, "paused");
    await cleanExit(d);
  } finally {
    await d.stop();
    d.cleanup();
  }
});

test("four concurrent :step each set their own inputs and advance from where the one before left", async () => {
  const d = await startDaemon();
  try {
    const r = await api(d, "POST", "/v1/sessions", { spec: cableSpec(), points: 5 });
    const id = r.json.id;
    const by = 0.05;
    const answers = await Promise.all([1, 2, 3, 4].map((k) =>
      api(d, "POST", `/v1/sessions/${id}:step`, { by, inputs: { LM1: k * 0.01 } }).then((a) => ({ k, ...a }))));
    for (const a of answers) assert.equal(a.status, 200, a.text);
    const byT = [...answers].sort((x, y) => x.json.t - y.json.t);
    byT.forEach((a, i) => {
      assert.ok(near(a.json.t, (i + 1) * by), `step ${a.k} answered t = ${a.json.t}`);
      // its inputs took over within its own advance (at its first solver step), not another's
      assert.ok(a.json.applied_at >= i * by - 1e-9 && a.json.applied_at < (i + 1) * by,
        `step ${a.k} applied at ${a.json.applied_at}, advanced to ${a.json.t}`);
    });
    const acts = (await api(d, "GET", `/v1/sessions/${id}/actuators`)).json;
    assert.ok(near(acts.t, 4 * by), `the session ends at ${acts.t}`);
    // the last step's inputs are the ones in force
    assert.equal(acts.actuators.find((a) => a.name === "LM1").value, byT[3].k * 0.01);
    await cleanExit(d);
  } finally {
    await d.stop();
    d.cleanup();
  }
});

test("an :advance that waits its turn longer than the limit answers 503 and does nothing; :start meanwhile is refused", async () => {
  const d = await startDaemon({ env: { RODD_ADVANCE_LIMIT: "1" } });
  try {
    const r = await api(d, "POST", "/v1/sessions", { spec: cableSpec(), points: 5 });
    const id = r.json.id;
    // each of the first two runs its whole 1 s limit; the third is still in line at its own 1 s
    const first = api(d, "POST", `/v1/sessions/${id}:advance`, { by: 1e6 });
    await sleep(200);
    const second = api(d, "POST", `/v1/sessions/${id}:advance`, { by: 1e6 });
    await sleep(200);
    const third = api(d, "POST", `/v1/sessions/${id}:advance`, { by: 1e6 });
    await sleep(200);
    const start = await api(d, "POST", `/v1/sessions/${id}:start`);
    assert.equal(start.status, 409, start.text);
    const [a, b, c] = await Promise.all([first, second, third]);
    assert.equal(a.status, 200, a.text);
    assert.equal(b.status, 200, b.text);
    assert.ok(b.json.t > a.json.t, `the second went on from the first: ${a.json.t} then ${b.json.t}`);
    assert.equal(c.status, 503, c.text);
    assert.equal(c.json.type, "/problems/not-ready");
    const end = await api(d, "GET", `/v1/sessions/${id}`);
    assert.equal(end.json.t, b.json.t, "the refused one did not step");
    await cleanExit(d);
  } finally {
    await d.stop();
    d.cleanup();
  }
});

test(":reset takes its turn too: after the :advance before it, before the :advance after it", async () => {
  const d = await startDaemon({ env: { RODD_ADVANCE_LIMIT: "1" } });
  try {
    const r = await api(d, "POST", "/v1/sessions", { spec: cableSpec(), points: 5 });
    const id = r.json.id;
    const long = api(d, "POST", `/v1/sessions/${id}:advance`, { by: 1e6 }); // its whole 1 s
    // the reset may wait 1 s from its arrival: sent late in the long one's second, it has the
    // rest of that second as margin for the long one's overrun of its limit on a loaded machine
    // (sent at 150 ms, a 150 ms overrun answered it 503 at load 4)
    await sleep(600);
    const reset = api(d, "POST", `/v1/sessions/${id}:reset`);
    await sleep(150);
    const after = api(d, "POST", `/v1/sessions/${id}:advance`, { by: 0.05 });
    const [a, b, c] = await Promise.all([long, reset, after]);
    assert.equal(a.status, 200, a.text);
    assert.ok(a.json.t > 0.05, `the first advanced its whole second: t = ${a.json.t}`);
    assert.equal(b.status, 200, b.text);
    assert.equal(b.json.t, 0, "the reset answers the session it reset");
    assert.equal(c.status, 200, c.text);
    assert.ok(near(c.json.t, 0.05), `the last advanced from the reset: t = ${c.json.t}`);
    await cleanExit(d);
  } finally {
    await d.stop();
    d.cleanup();
  }
});

test("a DELETE ends the :advance in progress and refuses the ones in line at once", async () => {
  // the limit far above the bound, so that a DELETE that did not end the :advance (it would run
  // to the limit) cannot pass for one that did on a loaded machine (3.4 s seen at load 9)
  const d = await startDaemon({ env: { RODD_ADVANCE_LIMIT: "30" } });
  try {
    const r = await api(d, "POST", "/v1/sessions", { spec: cableSpec(), points: 5 });
    const id = r.json.id;
    const t0 = Date.now();
    const first = api(d, "POST", `/v1/sessions/${id}:advance`, { by: 1e6 });
    await sleep(200);
    const second = api(d, "POST", `/v1/sessions/${id}:advance`, { by: 1e6 });
    await sleep(200);
    assert.equal((await api(d, "DELETE", `/v1/sessions/${id}`)).status, 204);
    const [a, b] = await Promise.all([first, second]);
    assert.ok(Date.now() - t0 < 12000, `both answered ${Date.now() - t0} ms after the first began (limit 30 s each)`);
    assert.equal(a.status, 200, a.text);
    assert.equal(b.status, 409, b.text);
    assert.match(b.json.detail, /deleted/);
    await cleanExit(d);
  } finally {
    await d.stop();
    d.cleanup();
  }
});

test("exports during PATCHes that change the recording's layout answer whole recordings, never a 500", async () => {
  const d = await startDaemon();
  try {
    const r = await api(d, "POST", "/v1/sessions", {
      spec: cableSpec(), points: 11, start: true, pace: "max", recording: { rate: 500, max_bytes: 1000000 } });
    assert.equal(r.status, 201, r.text);
    const id = r.json.id;
    const layouts = [["position", "rho"], []];
    let patches = 0, stop = false;
    const patcher = (async () => {
      while (!stop) {
        const p = await api(d, "PATCH", `/v1/sessions/${id}/recording`, { fields: layouts[patches++ % 2] });
        assert.equal(p.status, 200, p.text);
      }
    })();
    const statuses = {};
    // at least 120 reads and at least 10 layout changes among them, however fast each side runs
    // (under ASan the exports outran the PATCHes: 8 changes in 120 reads); 1200 at most
    let reads = 0;
    for (; (reads < 120 || patches < 10) && reads < 1200; reads += 4) {
      const got = await Promise.all([0, 1, 2, 3].map(() => api(d, "GET", `/v1/sessions/${id}/recording?format=ndjson`)));
      for (const g of got) {
        statuses[g.status] = (statuses[g.status] ?? 0) + 1;
        if (g.status !== 200) continue; // counted: the end says how many of each
        // one layout throughout, times increasing: a snapshot, not two files mixed
        const frames = g.text.split("\n").filter(Boolean).map((l) => JSON.parse(l));
        const keys = frames.length ? Object.keys(frames[0]).sort().join() : "";
        for (let k = 1; k < frames.length; k++) {
          assert.equal(Object.keys(frames[k]).sort().join(), keys, "one layout in one export");
          assert.ok(frames[k].t > frames[k - 1].t, "times increase");
        }
      }
    }
    stop = true;
    await patcher;
    assert.ok(patches >= 10, `${patches} layout changes during the ${reads} exports`);
    assert.deepEqual(statuses, { 200: reads });
    await cleanExit(d);
  } finally {
    await d.stop();
    d.cleanup();
  }
});

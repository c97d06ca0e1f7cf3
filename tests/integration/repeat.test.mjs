// A session's "repeat" option: the daemon starts a running session again from its beginning
// when its time reaches `every`, with no client asking (issue 27, item 7: the viewers used
// to reset it from each page).
import { test } from "node:test";
import assert from "node:assert/strict";
import { api, cableSpec, sleep, startDaemon } from "./daemon.mjs";

// the daemon's SIGTERM drain ends by exiting 0: a sanitizer's report (a leak, a race) changes that
async function cleanExit(d) {
  const { code, signal } = await d.stop("SIGTERM");
  assert.equal(signal, null, d.log().slice(-3000));
  assert.equal(code, 0, `the daemon exits 0\n${d.log().slice(-3000)}`);
}

const SCALE = Number(process.env.RODD_TEST_TIME_SCALE ?? 1);

// the session's times, polled every 40 ms until done(times) or for at most ms milliseconds
async function times(d, id, ms, done = () => false) {
  const ts = [];
  for (const end = Date.now() + ms * SCALE; Date.now() < end && !done(ts); await sleep(40)) {
    const r = await api(d, "GET", `/v1/sessions/${id}`);
    assert.equal(r.json.state, "running", r.text);
    ts.push(r.json.t);
  }
  return ts;
}
const wraps = (ts) => ts.filter((t, i) => i > 0 && t < ts[i - 1]).length;

test("a running session with repeat starts again by itself; PATCH turns it off and on; a checkpoint keeps it", async () => {
  const d = await startDaemon();
  try {
    let r = await api(d, "POST", "/v1/sessions", { spec: cableSpec(), points: 5, start: true, pace: 2, repeat: { every: 0.3 } });
    assert.equal(r.status, 201, r.text);
    const id = r.json.id;
    assert.deepEqual(r.json.repeat, { every: 0.3 });
    // at pace 2, 0.15 s of wall time a pass: three of them in well under 10 s
    let ts = await times(d, id, 10000, (t) => wraps(t) >= 3);
    assert.ok(Math.max(...ts) <= 0.3 + 1e-9, `never past 0.3 s: ${Math.max(...ts)}`);
    assert.ok(wraps(ts) >= 3, `started again ${wraps(ts)} times: ${ts.map((t) => t.toFixed(2))}`);

    const ck = await api(d, "GET", `/v1/sessions/${id}/checkpoint`);
    assert.equal(ck.json.repeat, 0.3);

    r = await api(d, "PATCH", `/v1/sessions/${id}`, { repeat: null });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.repeat, null);
    ts = await times(d, id, 10000, (t) => Math.max(...t) > 0.35);
    assert.ok(Math.max(...ts) > 0.3, `runs on past 0.3 s: ${Math.max(...ts)}`);

    r = await api(d, "PATCH", `/v1/sessions/${id}`, { repeat: { every: 0.2 } });
    assert.deepEqual(r.json.repeat, { every: 0.2 });
    // the next slice starts it again (it was past 0.2 s): from then on never past 0.2 s
    ts = await times(d, id, 600);
    assert.ok(ts.slice(3).every((t) => t <= 0.2 + 1e-9), `back under 0.2 s at once: ${ts}`);

    // a copy from the checkpoint repeats as the original did
    r = await api(d, "POST", "/v1/sessions", { checkpoint: ck.json, start: true });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.json.repeat, { every: 0.3 });

    for (const bad of [{ every: 0 }, { every: -1 }, { every: "1" }, { every: 1, at: 2 }, 3, true]) {
      r = await api(d, "PATCH", `/v1/sessions/${id}`, { repeat: bad });
      assert.equal(r.status, 422, `${JSON.stringify(bad)}: ${r.text}`);
      assert.equal(r.json.errors[0].path, "/repeat");
      r = await api(d, "POST", "/v1/sessions", { spec: cableSpec(), repeat: bad });
      assert.equal(r.status, 422, `${JSON.stringify(bad)}: ${r.text}`);
      assert.equal(r.json.errors[0].path, "/repeat");
    }
    await cleanExit(d);
  } finally {
    await d.stop();
    d.cleanup();
  }
});

test("rodd serve --example repeats the example at its spec's duration, and a restart keeps it", async () => {
  const d = await startDaemon({ args: ["--example", "octopus-reaching"] });
  try {
    const list = await api(d, "GET", "/v1/sessions");
    assert.equal(list.json.sessions.length, 1, list.text);
    assert.deepEqual(list.json.sessions[0].repeat, { every: 3.5 });
  } finally {
    await d.stop();
  }
  const again = await startDaemon({ stateDir: d.dir });
  try {
    const list = await api(again, "GET", "/v1/sessions");
    assert.deepEqual(list.json.sessions[0].repeat, { every: 3.5 });
  } finally {
    await again.stop();
    again.cleanup();
  }
});

// A pause that comes while the worker starts the session again (the loop reads the status,
// then restarts in a second lock window) stays a pause: the restart used to set it running.
test("a pause as the session loops back stays a pause", async () => {
  const d = await startDaemon();
  try {
    // looping all the time: 20 ms of simulated time a pass, as fast as it goes, each pass
    // starting with a static solve (the restart's window as wide as it gets)
    const spec = cableSpec({ initial: "static" });
    spec.actuators[0].tension = 0.05;
    const r = await api(d, "POST", "/v1/sessions", { spec, points: 5, pace: "max", repeat: { every: 0.02 } });
    assert.equal(r.status, 201, r.text);
    const id = r.json.id;
    const lost = [];
    for (let i = 0; i < 40; i++) {
      const s = await api(d, "POST", `/v1/sessions/${id}:start`); // 409 when the last pause was lost
      if (s.status !== 200) lost.push(`${i}: :start ${s.status} ${s.json?.detail}`);
      await sleep(5 + (i % 7) * 3);
      const p = await api(d, "POST", `/v1/sessions/${id}:pause`);
      assert.equal(p.status, 200, p.text);
      await sleep(30);
      const g = await api(d, "GET", `/v1/sessions/${id}`);
      if (g.json.state !== "paused") lost.push(`${i}: ${g.json.state}`);
    }
    assert.deepEqual(lost, [], "every pause held");
    await cleanExit(d);
  } finally {
    await d.stop();
    d.cleanup();
  }
});

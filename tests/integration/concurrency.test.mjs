// Many sessions, commands and stream clients at once, for the thread checkers: `make tsan`
// runs it against a ThreadSanitizer build and `make valgrind-daemon` under valgrind (both with
// RODD_WRAP/RODD set by the Makefile); the normal integration run includes it too. Whatever
// the build, the daemon must answer every request with a documented status, keep its streams
// going, and exit 0 from a SIGTERM drain (a sanitizer or valgrind report turns the exit code).
import { test } from "node:test";
import assert from "node:assert/strict";
import { api, cableSpec, openStream, sleep, startDaemon } from "./daemon.mjs";

const SESSIONS = 6;
const SECONDS = Number(process.env.RODD_CONCURRENCY_SECONDS ?? (process.env.RODD_WRAP ? 10 : 4)); // valgrind is slow

test("sessions, commands and stream clients at once; then a clean drain", async () => {
  const d = await startDaemon({ env: { RODD_WORKERS: "3", RODD_CHECKPOINT_PERIOD: "1" } });
  let stopped = false;
  try {
    const ids = [];
    for (let i = 0; i < SESSIONS; i++) {
      const r = await api(d, "POST", "/v1/sessions", { spec: cableSpec(), start: i % 3 !== 2, points: 11, pace: i % 2 ? "max" : 1 });
      assert.equal(r.status, 201, r.text);
      ids.push(r.json.id);
    }
    // two clients per session, one JSON and one binary with a field subset
    const clients = [];
    for (const id of ids) {
      const url = (await api(d, "GET", `/v1/sessions/${id}`)).json.stream_url;
      const a = openStream(url);
      const b = openStream(url);
      await Promise.all([a.ready, b.ready]);
      b.send({ op: "subscribe", rate: 20, fields: ["position", "rho"], format: "binary" });
      clients.push(a, b);
    }
    const statuses = new Map();
    const count = (s) => statuses.set(s, (statuses.get(s) ?? 0) + 1);
    const end = Date.now() + SECONDS * 1000;
    let n = 0;
    // four concurrent request loops, each doing a different mix
    const loop = async (k) => {
      while (Date.now() < end) {
        const id = ids[(n++ + k) % ids.length];
        let r;
        switch ((n + k) % 9) {
          case 0: r = await api(d, "PUT", `/v1/sessions/${id}/actuators/LM1`, { value: (n % 5) * 0.01 }); break;
          case 1: r = await api(d, "PATCH", `/v1/sessions/${id}/actuators`, { LM1: 0.01, TM: (n % 3) * 100 }); break;
          case 2: r = await api(d, "POST", `/v1/sessions/${id}:pause`); break;
          case 3: r = await api(d, "POST", `/v1/sessions/${id}:start`); break;
          case 4: r = await api(d, "POST", `/v1/sessions/${id}:advance`, { by: 0.02 }); break;
          case 5: r = await api(d, "GET", `/v1/sessions/${id}/frame`); break;
          case 6: r = await api(d, "GET", `/v1/sessions/${id}/checkpoint`); break;
          case 7: r = await api(d, "GET", "/v1/sessions"); break;
          default: r = await api(d, "PATCH", `/v1/sessions/${id}`, { pace: n % 2 ? 2 : "max" });
        }
        count(r.status);
        // 409: wrong state for pause/start/advance at that moment; 202: a command queued
        assert.ok([200, 202, 409].includes(r.status), `${r.status}: ${r.text}`);
      }
    };
    // meanwhile, a session is created, streamed and deleted over and over
    const churn = async () => {
      while (Date.now() < end) {
        const r = await api(d, "POST", "/v1/sessions", { spec: cableSpec(), start: true, points: 5 });
        assert.equal(r.status, 201, r.text);
        const c = openStream(r.json.stream_url);
        await c.ready;
        await c.waitFor((k) => k.frames.length >= 1, 5000);
        assert.equal((await api(d, "DELETE", `/v1/sessions/${r.json.id}`)).status, 204);
        await c.waitFor((k) => k.closed !== null, 5000);
        count("churn");
      }
    };
    await Promise.all([loop(0), loop(1), loop(2), loop(3), churn()]);
    assert.ok(n > 20, `${n} requests`); // every kind of request more than twice
    assert.ok(statuses.get("churn") >= 1, "sessions were created and deleted meanwhile");
    for (const c of clients) {
      assert.ok(c.frames.length + c.binary.length >= 1, "every client got frames");
      c.close();
    }
    const { code, signal } = await d.stop("SIGTERM");
    stopped = true;
    assert.equal(signal, null, `the drain ends by exiting, not by ${signal}\n${d.log().slice(-4000)}`);
    assert.equal(code, 0, `the drain exits 0 (a sanitizer or valgrind report changes that)\n${d.log().slice(-4000)}`);
  } finally {
    if (!stopped) await d.stop();
    d.cleanup();
  }
});

// kill -9 in a loop (issue 10): 20 restarts on one state directory, with sessions created,
// advanced, renamed and deleted between them. After each restart no session is lost, none
// deleted comes back, and none is older than the last checkpoint an answer promised.
import { test } from "node:test";
import assert from "node:assert/strict";
import { api, cableSpec, startDaemon } from "./daemon.mjs";

const ROUNDS = Number(process.env.RODD_RESTART_ROUNDS ?? 20);

test(`kill -9, ${ROUNDS} times: nothing lost, nothing resurrected, nothing older than promised`, async () => {
  let d = await startDaemon({ env: { RODD_CHECKPOINT_PERIOD: "0.2" } });
  const dir = d.dir;
  const alive = new Map(); // id -> {t, name} as the last answer that wrote a checkpoint said
  const deleted = new Set();
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const list = (await api(d, "GET", "/v1/sessions?page_size=1000")).json.sessions;
      const ids = new Set(list.map((s) => s.id));
      for (const id of alive.keys()) assert.ok(ids.has(id), `round ${round}: ${id} was lost`);
      for (const id of deleted) assert.ok(!ids.has(id), `round ${round}: deleted ${id} came back`);
      for (const s of list) {
        const want = alive.get(s.id);
        assert.ok(want, `round ${round}: ${s.id} is not one of ours`);
        assert.ok(s.t >= want.t - 1e-12, `round ${round}: ${s.id} at t = ${s.t}, older than the promised ${want.t}`);
        assert.equal(s.name, want.name, `round ${round}: ${s.id} lost its rename`);
      }
      // this round's changes, each answered after its checkpoint was written
      const c = await api(d, "POST", "/v1/sessions", { spec: cableSpec(), name: `r${round}`, points: 5 });
      assert.equal(c.status, 201, c.text);
      alive.set(c.json.id, { t: 0, name: `r${round}` });
      for (const [id, s] of alive) {
        const a = await api(d, "POST", `/v1/sessions/${id}:advance`, { by: 0.01 });
        assert.equal(a.status, 200, a.text);
        s.t = a.json.t;
      }
      const some = [...alive.keys()][round % alive.size];
      const p = await api(d, "PATCH", `/v1/sessions/${some}`, { name: `renamed-${round}` });
      assert.equal(p.status, 200);
      alive.get(some).name = `renamed-${round}`;
      if (alive.size > 3) {
        const gone = [...alive.keys()][0];
        assert.equal((await api(d, "DELETE", `/v1/sessions/${gone}`)).status, 204);
        alive.delete(gone);
        deleted.add(gone);
      }
      await d.stop("SIGKILL");
      d = await startDaemon({ stateDir: dir, env: { RODD_CHECKPOINT_PERIOD: "0.2" } });
    }
  } finally {
    await d.stop();
    d.cleanup();
  }
});

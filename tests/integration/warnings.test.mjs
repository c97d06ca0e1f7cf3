// A session's `warnings` (issue 33 item 5): the spec's own (path and advice, as rodd check
// prints them) from creation, and a penetration past the obstacle's max_penetration once a
// frame shows it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { api, sleep, startDaemon } from "./daemon.mjs";

const top = path.resolve(new URL("../..", import.meta.url).pathname);
const incline = JSON.parse(readFileSync(path.join(top, "api/examples/rod-rolling-incline.json"), "utf8"));

test("a soft wall warns at creation and again when the rod sinks; the example's wall does not", async () => {
  const d = await startDaemon();
  try {
    const soft = structuredClone(incline);
    soft.environment.obstacles[0].stiffness = 10;
    const s = await api(d, "POST", "/v1/sessions", { spec: soft, pace: "max", until: 0.05 });
    assert.equal(s.status, 201, s.text);
    assert.deepEqual(s.json.warnings.map((w) => w.path), ["/environment/obstacles/0/stiffness"]);
    assert.match(s.json.warnings[0].message, /too soft for the rod's weight/);
    await api(d, "POST", `/v1/sessions/${s.json.id}:start`);
    let g;
    for (let k = 0; k < 200; k++, await sleep(50)) {
      g = await api(d, "GET", `/v1/sessions/${s.json.id}`);
      if (g.json.state !== "running" && g.json.state !== "created") break;
    }
    assert.equal(g.json.state, "finished", g.text);
    const pen = g.json.warnings.filter((w) => /^penetration at t = /.test(w.message));
    assert.equal(pen.length, 1, g.text);
    assert.equal(pen[0].path, "/environment/obstacles/0/stiffness");

    const ok = await api(d, "POST", "/v1/sessions", { spec: incline, pace: "max", until: 0.05, start: true });
    for (let k = 0; k < 200; k++, await sleep(50)) {
      g = await api(d, "GET", `/v1/sessions/${ok.json.id}`);
      if (g.json.state === "finished") break;
    }
    assert.equal(g.json.state, "finished", g.text);
    assert.deepEqual(g.json.warnings, []);
  } finally {
    // the drain exits 0: a sanitizer's report (a leak) changes that
    const { code } = await d.stop("SIGTERM");
    assert.equal(code, 0, d.log().slice(-3000));
  }
});

// Bad input at every door (issue 10, items 7, 8, 11): checkpoint files with hostile ids or
// values are quarantined, not restored and not written through; text that is not UTF-8 is
// refused; a bad configuration or a non-loopback listen without tokens stops the start.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { api, cableSpec, rodd, startDaemon } from "./daemon.mjs";

test("hostile checkpoint files are quarantined with the reason; good ones come back", async () => {
  let d = await startDaemon();
  const dir = d.dir;
  const outside = mkdtempSync(path.join(os.tmpdir(), "rodd-victim-"));
  let good;
  try {
    const r = await api(d, "POST", "/v1/sessions", { spec: cableSpec(), name: "good" });
    good = r.json.id;
    const ck = (await api(d, "GET", `/v1/sessions/${good}/checkpoint`)).json;
    await d.stop();
    const sessions = path.join(dir, "sessions");
    const put = (name, o) => writeFileSync(path.join(sessions, name), JSON.stringify(o));
    // an id of "/.." segments then a directory outside the state dir: at start the daemon
    // used to write victim.json there
    put("traversal.json", { ...ck, id: `${"/..".repeat(12)}${outside}/victim` });
    put("r0-000000000001.json", { ...ck, id: "r0-000000000001", pace: -3 });
    put("r0-000000000002.json", { ...ck, id: "r0-000000000002", pace: 1e308 });
    put("r0-000000000003.json", { ...ck, id: "r0-000000000003", state: { ...ck.state, t: 1e308 } });
    put("r0-000000000004.json", { ...ck, id: "r0-000000000099" });
    writeFileSync(path.join(sessions, "r0-000000000005.json"), "{not json");
    const [pre, post] = JSON.stringify({ ...ck, id: "r0-000000000006", name: "@@" }).split("@@");
    writeFileSync(path.join(sessions, "r0-000000000006.json"), Buffer.concat([Buffer.from(pre), Buffer.from([0xff, 0xfe]), Buffer.from(post)]));
    d = await startDaemon({ stateDir: dir });
    const list = (await api(d, "GET", "/v1/sessions")).json.sessions;
    assert.deepEqual(list.map((s) => s.id), [good], "only the good checkpoint is restored");
    assert.equal(existsSync(path.join(outside, "victim.json")), false, "nothing written outside the state dir");
    const rejected = readdirSync(path.join(dir, "rejected")).sort();
    assert.deepEqual(rejected, [
      "r0-000000000001.json", "r0-000000000002.json", "r0-000000000003.json", "r0-000000000004.json",
      "r0-000000000005.json", "r0-000000000006.json", "traversal.json",
    ]);
    const log = d.log();
    assert.match(log, /checkpoint_rejected file="[^"]*r0-000000000001\.json" reason="\/pace: must be a number in \[0, 1e\+06\]"/);
    assert.match(log, /checkpoint_rejected file="[^"]*r0-000000000003\.json" reason="\/state\/t: /);
    assert.match(log, /checkpoint_rejected file="[^"]*r0-000000000004\.json" reason="\/id: /);
    assert.match(log, /checkpoint_rejected file="[^"]*traversal\.json" reason="\/id: must be a session id/);
    assert.deepEqual(readdirSync(path.join(dir, "sessions")).sort(), [`${good}.json`]);
  } finally {
    await d.stop();
    d.cleanup();
    rmSync(outside, { recursive: true, force: true });
  }
});

test("text that is not UTF-8 is refused at the door (422 with its JSON pointer)", async () => {
  const d = await startDaemon();
  try {
    const spec = JSON.stringify(cableSpec());
    const body = Buffer.concat([Buffer.from(`{"spec": ${spec}, "name": "ok`), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
    const r = await fetch(d.url("/v1/sessions"), { method: "POST", headers: { "content-type": "application/json" }, body });
    assert.equal(r.status, 422);
    const p = await r.json();
    assert.equal(p.errors[0].path, "/name");
    const ok = await api(d, "POST", "/v1/sessions", { spec: cableSpec(), name: "ok" });
    const patch = Buffer.concat([Buffer.from('{"name": "'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]);
    const r2 = await fetch(d.url(`/v1/sessions/${ok.json.id}`), { method: "PATCH", headers: { "content-type": "application/json" }, body: patch });
    assert.equal(r2.status, 422, "a UTF-8-encoded surrogate is not UTF-8 either");
    const list = await fetch(d.url("/v1/sessions"));
    const text = Buffer.from(await list.arrayBuffer());
    assert.equal(new TextDecoder("utf-8", { fatal: true }).decode(text).length > 0, true);
    assert.equal(JSON.parse(text).sessions.length, 1);
  } finally {
    await d.stop();
    d.cleanup();
  }
});

test("a bad configuration or a non-loopback listen without tokens stops the start with the reason", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "rodd-cfg-"));
  try {
    const start = (env, args = []) =>
      spawnSync(rodd, ["serve", "--listen", "127.0.0.1:0", "--state-dir", dir, ...args], {
        env: { ...process.env, ...env },
        encoding: "utf8",
        timeout: 10000,
      });
    for (const [k, v] of [["RODD_CHECKPOINT_PERIOD", "nan"], ["RODD_DRAIN_TIMEOUT", "inf"], ["RODD_WORKERS", "1e20"],
                          ["RODD_MAX_BODY", "1e300"], ["RODD_MAX_SESSIONS", "2147483648"]]) {
      const r = start({ [k]: v });
      assert.equal(r.status, 64, `${k}=${v}: exit ${r.status} ${r.stderr}`);
      assert.match(r.stderr, /must be a finite/);
    }
    mkdirSync(path.join(dir, "cfg"), { recursive: true });
    writeFileSync(path.join(dir, "cfg", "c.json"), '{"advance_limit": 1e400}');
    let r = start({}, ["--config", path.join(dir, "cfg", "c.json")]);
    assert.equal(r.status, 64, r.stderr);
    r = spawnSync(rodd, ["serve", "--listen", "0.0.0.0:0", "--state-dir", dir], { encoding: "utf8", timeout: 10000, env: { ...process.env, RODD_TOKENS: "" } });
    assert.equal(r.status, 64, r.stderr);
    assert.match(r.stderr, /not loopback and no tokens/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

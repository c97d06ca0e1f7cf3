// Bad configuration is refused at the start, never taken half-read and never a hang (issue 27,
// item 8): every number from a flag, a RODD_* variable or the config file is checked against
// its range in one table (server/daemon/config.c) and the error names the option as it was given;
// state files that are not regular files are quarantined, not read.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { api, cableSpec, rodd, startDaemon } from "./daemon.mjs";

const SCALE = Number(process.env.RODD_TEST_TIME_SCALE ?? 1);

// `rodd serve` that must stop by itself, at once: a timeout (a hang) fails the test
function serve(args, env = {}, opts = {}) {
  const r = spawnSync(rodd, ["serve", "--listen", "127.0.0.1:0", ...args], {
    env: { ...process.env, RODD_WORKERS: "2", ...env },
    encoding: "utf8",
    timeout: 10000 * SCALE,
    ...opts,
  });
  assert.equal(r.error, undefined, `rodd serve ${args.join(" ")} did not exit: ${r.error}`);
  return r;
}

test("--ws-port and the listen port take whole numbers in [0, 65535] and nothing else", () => {
  for (const v of ["70000", "-1", "abc", "8080x", "0x10", "", "1e3.5", " 8080"]) {
    const r = serve(["--ws-port", v]);
    assert.equal(r.status, 64, `--ws-port "${v}": exit ${r.status} ${r.stderr}`);
    assert.match(r.stderr, /--ws-port: must be a finite whole number in \[0, 65535\]/, `--ws-port "${v}"`);
  }
  for (const v of ["127.0.0.1:8080x", "127.0.0.1:99999", "127.0.0.1:-5", "127.0.0.1:"]) {
    const r = spawnSync(rodd, ["serve", "--listen", v], { encoding: "utf8", timeout: 10000 * SCALE });
    assert.equal(r.status, 64, `--listen ${v}: exit ${r.status} ${r.stderr}`);
    assert.match(r.stderr, /listen address .*: its port: must be a finite whole number in \[0, 65535\]/);
  }
  const r = serve([], { RODD_HTTP_PORT: "8080x" });
  assert.equal(r.status, 64, r.stderr);
  assert.match(r.stderr, /RODD_HTTP_PORT: must be a finite whole number/);
});

test("RODD_WORKERS=100000 is refused at once, naming the variable and its range", () => {
  const t0 = Date.now();
  const r = serve([], { RODD_WORKERS: "100000" });
  assert.equal(r.status, 64, r.stderr);
  assert.match(r.stderr, /RODD_WORKERS: must be a finite whole number in \[1, 1024\], not "100000"/);
  assert.ok(Date.now() - t0 < 5000 * SCALE, `took ${Date.now() - t0} ms`);
  for (const [k, v, re] of [
    ["RODD_WORKERS", "0", /RODD_WORKERS: .*\[1, 1024\]/],
    ["RODD_MAX_STREAMS", "0", /RODD_MAX_STREAMS: .*\[1, 65536\]/],
    ["RODD_STREAM_IDLE_TIMEOUT", "100000", /RODD_STREAM_IDLE_TIMEOUT: must be a finite number in \[1, 3600\]/],
    ["RODD_ORDINAL", "abc", /RODD_ORDINAL: must be a finite whole number/],
    ["RODD_MAX_BODY", "0x100000", /RODD_MAX_BODY: must be a finite whole number/],
    ["RODD_REQUEST_TIMEOUT", "0", /RODD_REQUEST_TIMEOUT: must be a finite number in \[0.1, 3600\]/],
  ]) {
    const r2 = serve([], { [k]: v });
    assert.equal(r2.status, 64, `${k}=${v}: exit ${r2.status} ${r2.stderr}`);
    assert.match(r2.stderr, re, `${k}=${v}`);
  }
});

test("a config file's numbers are held to the same ranges, named by file and key", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "rodd-cfg-"));
  try {
    const file = path.join(dir, "c.json");
    for (const [cfg, re] of [
      [{ workers: 100000 }, /config .*c\.json: workers: must be a finite whole number in \[1, 1024\], not 100000/],
      [{ ws_port: 70000 }, /config .*c\.json: ws_port: must be a finite whole number in \[0, 65535\]/],
      [{ ws_port: "8080x" }, /config .*c\.json: ws_port: .*not "8080x"/],
      [{ max_points: 1 }, /max_points: must be a finite whole number in \[2, 100000\]/],
      [{ state_dir: 5 }, /state_dir: must be a string/],
      [{ default_rate: 100, max_rate: 60 }, /default_rate 100 is above max_rate 60/],
    ]) {
      writeFileSync(file, JSON.stringify(cfg));
      const r = serve(["--config", file]);
      assert.equal(r.status, 64, `${JSON.stringify(cfg)}: exit ${r.status} ${r.stderr}`);
      assert.match(r.stderr, re, JSON.stringify(cfg));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// A sanitizer's shadow memory needs more address space than the limit leaves.
const sanitized = (() => {
  try {
    return /lib[at]san/.test(execFileSync("ldd", [rodd], { encoding: "utf8" })) || !!process.env.RODD_WRAP;
  } catch {
    return true;
  }
})();

test("workers the system cannot start stop the daemon with the reason, not a half-started hang", { skip: sanitized && "a sanitized or wrapped daemon" }, () => {
  // 1024 workers of 8 MiB stacks in 2 GB of address space: pthread_create fails part way
  const r = spawnSync("bash", ["-c", `ulimit -v 2000000 && exec "$0" serve --listen 127.0.0.1:0`, rodd], {
    env: { ...process.env, RODD_WORKERS: "1024" },
    encoding: "utf8",
    timeout: 10000 * SCALE,
  });
  assert.equal(r.error, undefined, `did not exit: ${r.error}`);
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /cannot start 1024 worker threads \(workers, RODD_WORKERS\)/);
});

test("a FIFO or a symlink where a checkpoint belongs is quarantined; the start does not wait on it", async () => {
  let d = await startDaemon({ env: { RODD_CHECKPOINT_PERIOD: "1000" } });
  const dir = d.dir;
  try {
    const id = (await api(d, "POST", "/v1/sessions", { spec: cableSpec(), name: "kept" })).json.id;
    await d.stop();
    const sessions = path.join(dir, "sessions");
    execFileSync("mkfifo", [path.join(sessions, "r0-fifo00000001.json")]);
    execFileSync("ln", ["-s", "/dev/zero", path.join(sessions, "r0-link00000001.json")]);
    mkdirSync(path.join(sessions, "r0-dir000000001.json"));
    d = await startDaemon({ stateDir: dir, env: { RODD_CHECKPOINT_PERIOD: "1000" } });
    const ready = await fetch(d.url("/readyz")).then((r) => r.status, () => 0);
    assert.equal(ready, 200, `not ready: ${d.log()}`);
    const list = (await api(d, "GET", "/v1/sessions")).json.sessions.map((s) => s.id);
    assert.deepEqual(list, [id], "the good checkpoint comes back beside them");
    for (const name of ["r0-fifo00000001.json", "r0-link00000001.json", "r0-dir000000001.json"]) {
      assert.ok(!existsSync(path.join(sessions, name)) || !lstatSync(path.join(sessions, name)).isFIFO(), name);
      assert.ok(lstatSync(path.join(dir, "rejected", name)), `${name} quarantined`);
      assert.match(d.log(), new RegExp(`checkpoint_rejected file="[^"]*${name}" reason="not a regular file"`));
    }
  } finally {
    await d.stop();
    d.cleanup();
  }
});

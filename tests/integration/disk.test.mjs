// Disk (issue 27.9): every recording together within the daemon's recording_budget, and a
// full disk met by a small tmpfs: sessions run on, a recording stops with the reason in its
// status, a checkpoint that cannot be written leaves the previous one whole, an export
// answers 507, and once there is room a PATCH of the recording goes on and a restart restores
// everything.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { api, cableSpec, sleep, startDaemon } from "./daemon.mjs";

async function until(what, pred, ms = 10000) {
  const t0 = Date.now();
  for (;;) {
    const v = await pred();
    if (v) return v;
    if (Date.now() - t0 > ms) assert.fail(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

const status = async (d, id) => (await api(d, "GET", `/v1/sessions/${id}`)).json;

// a recording that fills fast: 51 points of every field (8.6 kB a frame), 300 frames per
// simulated second at 10x real time, about 26 MB/s
const filling = (extra = {}) => ({ spec: cableSpec(), points: 51, start: true, pace: 10, recording: { rate: 300, ...extra } });

test("the recording budget: recordings stop at it, sessions run on, room made is used again", async () => {
  const budget = 400000;
  let d = await startDaemon({ env: { RODD_RECORDING_BUDGET: String(budget) } });
  try {
    assert.match(d.log(), new RegExp(`recording_budget.*bytes=${budget}`));
    // a ring of 150 kB that keeps within its own cap, then one that takes the rest
    const a = await api(d, "POST", "/v1/sessions", filling({ max_bytes: 150000 }));
    assert.equal(a.status, 201, a.text);
    await until("the ring to fill", async () => (await status(d, a.json.id)).recording.bytes > 140000);
    const b = await api(d, "POST", "/v1/sessions", filling({ max_bytes: 10e6 }));
    assert.equal(b.status, 201, b.text);
    const full = await until("the second recording stopped by the budget", async () => {
      const s = await status(d, b.json.id);
      return s.recording.state === "full" && s;
    });
    assert.match(full.recording.error, /recording budget is used up \(\d+ of 400000 bytes.*recording_budget/);
    const said = new RegExp(`level=warn event=recording_stopped file="\\S*${b.json.id}\\.rec" error="the daemon's recording budget`);
    await until("the stop in the log", () => said.test(d.log()));
    const ring = await status(d, a.json.id);
    assert.equal(ring.recording.state, "recording", "the ring within its cap records on");
    const bytes = ring.recording.bytes + full.recording.bytes + 2 * 64; // the frames and the files' headers
    assert.ok(bytes <= budget, `${bytes} bytes recorded past the budget of ${budget}`);
    assert.ok(bytes > budget - 2 * full.recording.frame_bytes, `${bytes}: the budget was used up`);
    // the session carries on
    await until("the session's time to go on", async () => (await status(d, b.json.id)).t > full.t + 0.5);
    assert.equal((await status(d, b.json.id)).state, "running");
    // room made (the ring's session deleted) is taken again once asked to go on; the file's
    // bytes come back when its last user lets go of it (a worker may hold it one step more),
    // so the PATCH is repeated until they have
    assert.equal((await api(d, "DELETE", `/v1/sessions/${a.json.id}`)).status, 204);
    await until("frames recorded again", async () => {
      const p = await api(d, "PATCH", `/v1/sessions/${b.json.id}/recording`, {});
      assert.equal(p.status, 200, p.text);
      await sleep(100);
      return (await status(d, b.json.id)).recording.frames > full.recording.frames;
    });
    const again = await until("the budget used up again", async () => {
      const s = await status(d, b.json.id);
      return s.recording.state === "full" && s;
    });
    assert.ok(again.recording.bytes + 64 <= budget && again.recording.bytes + 64 > budget - 2 * again.recording.frame_bytes,
      `the whole budget, and no more: ${again.recording.bytes}`);
    const metrics = (await api(d, "GET", "/metrics")).text;
    assert.match(metrics, /^rodd_recording_budget_bytes 400000$/m);
    const used = Number(/^rodd_recording_bytes (\d+)$/m.exec(metrics)?.[1]);
    assert.equal(used, again.recording.bytes + 64, "the metric counts the one file left, header and frames");
    const e = await api(d, "GET", `/v1/sessions/${b.json.id}/recording?format=ndjson`);
    assert.equal(e.status, 200, e.text);
    assert.equal(e.text.trim().split("\n").length, again.recording.frames);
    assert.deepEqual(await d.stop(), { code: 0, signal: null }, d.log());
    // restarted with a smaller budget: the restored file keeps its frames (it is on the disk
    // already) and counts past the budget; nothing more is recorded
    d = await startDaemon({ stateDir: d.dir, env: { RODD_RECORDING_BUDGET: "100000" } });
    const back = await status(d, b.json.id);
    assert.equal(back.recording.frames, again.recording.frames, "the restored recording keeps its frames");
    assert.match((await api(d, "GET", "/metrics")).text, new RegExp(`^rodd_recording_bytes ${again.recording.bytes + 64}$`, "m"));
    await api(d, "POST", `/v1/sessions/${b.json.id}:start`);
    const stopped = await until("the restored recording stopped by the smaller budget", async () => {
      const s = await status(d, b.json.id);
      return s.recording.state === "full" && s;
    });
    assert.equal(stopped.recording.frames, again.recording.frames);
    assert.match(stopped.recording.error, /of 100000 bytes/);
    assert.deepEqual(await d.stop(), { code: 0, signal: null }, d.log());
  } finally {
    await d.stop();
    d.cleanup();
  }
});

test("the default budget is sized from the state directory's free space, and said", async () => {
  const d = await startDaemon();
  try {
    assert.match(d.log(), /recording_budget.*bytes=\d+.*3\/4 of \(\d+ bytes free \+ \d+ in recordings\) - \d+ for checkpoints/);
  } finally {
    await d.stop();
    d.cleanup();
  }
});

test("a full disk (an 8 MiB tmpfs): the session runs on, the recording stops saying why, checkpoints stay whole", async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "rodd-full-"));
  const m = spawnSync("mount", ["-t", "tmpfs", "-o", "size=8m", "tmpfs", dir], { encoding: "utf8" });
  if (m.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    t.skip(`cannot mount a tmpfs here (needs root, or CAP_SYS_ADMIN): ${(m.stderr || m.error?.message || "").trim()}`);
    return;
  }
  const env = { RODD_RECORDING_BUDGET: String(1 << 30), RODD_CHECKPOINT_PERIOD: "0.3" };
  let d;
  const filler = path.join(dir, "filler");
  try {
    d = await startDaemon({ stateDir: dir, env });
    // ballast, taken away later to make room: one for the recording, one for an export
    const ballast = [path.join(dir, "ballast1"), path.join(dir, "ballast2")];
    for (const b of ballast) writeFileSync(b, Buffer.alloc(1 << 20, 1));
    const c = await api(d, "POST", "/v1/sessions", filling({ max_bytes: 100e6 }));
    assert.equal(c.status, 201, c.text);
    const id = c.json.id;
    const failed = await until("the recording to meet the full disk", async () => {
      const s = await status(d, id);
      return s.recording.state === "failed" && s;
    });
    assert.match(failed.recording.error, /cannot write the recording: No space left on device: the disk is full/);
    await until("the stop in the log", () => /event=recording_stopped .*No space left on device/.test(d.log()));
    assert.equal(failed.state, "running", "the session runs on");
    await until("the session's time to go on", async () => (await status(d, id)).t > failed.t + 0.5);
    // the disk to the last byte, so that a checkpoint cannot be written either
    const fd = openSync(filler, "w");
    const page = Buffer.alloc(4096, 1);
    try {
      for (;;) writeSync(fd, page);
    } catch (e) {
      assert.equal(e.code, "ENOSPC");
    } finally {
      closeSync(fd);
    }
    const ckpt = path.join(dir, "sessions", `${id}.json`);
    const old = readFileSync(ckpt, "utf8");
    const logged = d.log().length;
    await until("a checkpoint to fail", async () => /checkpoint_failed.*No space left on device/.test(d.log().slice(logged)));
    const kept = JSON.parse(readFileSync(ckpt, "utf8")); // whole, and still the session's
    assert.equal(kept.id, id);
    assert.equal(readFileSync(ckpt, "utf8"), old, "the previous checkpoint is left as it was");
    assert.deepEqual(readdirSync(path.join(dir, "sessions")).filter((f) => f.endsWith(".tmp")), [], "no temporary file left");
    // an export needs a temporary file on the same disk: 507, saying so
    const x = await api(d, "GET", `/v1/sessions/${id}/recording?format=ndjson`);
    assert.equal(x.status, 507, x.text);
    assert.equal(x.json.type, "/problems/insufficient-storage");
    assert.match(x.json.detail, /No space left on device/);
    assert.equal((await status(d, id)).state, "running", "the session still runs");
    // room again: the recording goes on when asked, the export works
    rmSync(filler);
    rmSync(ballast[0]);
    const frames = (await status(d, id)).recording.frames;
    const p = await api(d, "PATCH", `/v1/sessions/${id}/recording`, { enabled: true });
    assert.equal(p.status, 200, p.text);
    assert.equal(p.json.state, "recording");
    // it fills the MiB at once, and stops again as before
    const refilled = await until("frames recorded again, to the full disk", async () => {
      const s = await status(d, id);
      return s.recording.frames > frames + 100 && s.recording.state === "failed" && s;
    });
    assert.match(refilled.recording.error, /the disk is full/);
    await api(d, "POST", `/v1/sessions/${id}:pause`);
    rmSync(ballast[1]);
    const nd = await api(d, "GET", `/v1/sessions/${id}/recording?format=ndjson&from=0&to=0.1`);
    assert.equal(nd.status, 200, nd.text);
    assert.equal(nd.text.trim().split("\n").length, 31, "0 to 0.1 s at 300 Hz");
    // kill -9 and start again on the same disk: the session and its recording come back, and
    // an export's temporary file that a kill left behind is removed
    await d.stop("SIGKILL");
    const stale = path.join(dir, ".rodd-export-AbC123");
    writeFileSync(stale, Buffer.alloc(100000, 1));
    d = await startDaemon({ stateDir: dir, env });
    assert.ok(!existsSync(stale), "the stale export is gone");
    assert.match(d.log(), /event=stale_export_removed file="?\S*\.rodd-export-AbC123"? bytes=100000/);
    const back = await status(d, id);
    assert.ok(back && back.id === id, `${id} restored`);
    assert.ok(back.recording.frames > 0, "with its recording");
    assert.deepEqual(await d.stop(), { code: 0, signal: null }, d.log());
  } finally {
    if (d) await d.stop();
    spawnSync("umount", [dir]);
    rmSync(dir, { recursive: true, force: true });
  }
});

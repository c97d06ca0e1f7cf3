// Replay in Debian's Chromium against the real daemon: a finished session's recording opens
// from its page, the scrub bar puts the rod of the recorded frame on the 3D view (checked
// against the recording's NDJSON), the plots span the whole recording, play, speed and the
// arrow keys step through it; recording files (NDJSON and rodd's HDF5) open and play; bad
// files and a session without frames give a readable error.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { cableSpec, daemonAndBrowser } from "./fixture.mjs";
import { artifactPath, openPage, top, waitInPage } from "./harness.mjs";

const RODD = process.env.RODD ? path.resolve(process.env.RODD) : path.join(top, "build/rodd");

let daemon;
let browser;
daemonAndBrowser((d, b) => { daemon = d; browser = b; });

// the cable pulls harder as time goes on: the rod bends and shortens frame after frame
const bending = { ...cableSpec, actuators: [{ ...cableSpec.actuators[0], tension: "0.6*t" }] };

async function finishedSession(body) {
  const { status, json: s } = await daemon.api("POST", "/v1/sessions", body);
  assert.equal(status, 201, JSON.stringify(s));
  for (let i = 0; i < 600; i++) {
    const { json } = await daemon.api("GET", `/v1/sessions/${s.id}`);
    if (json.state === "finished") return json;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`session ${s.id} did not finish`);
}

async function ndjson(id) {
  const r = await fetch(`${daemon.base}/v1/sessions/${id}/recording?format=ndjson`);
  assert.equal(r.status, 200);
  return (await r.text()).trim().split("\n").map((l) => JSON.parse(l));
}

const near = (a, b, tol = 1e-6) => a.length === b.length && a.every((x, i) => Math.abs(x - b[i]) <= tol);

test("a finished session's recording replays: the scrub bar shows the recorded frame, the plots span it all", async () => {
  const s = await finishedSession({ spec: bending, name: "bending", points: 11, pace: "max", until: 1.5, start: true, recording: { rate: 20 } });
  const frames = await ndjson(s.id);
  assert.equal(frames.length, 31); // 0 to 1.5 s at 20 Hz
  const page = await openPage(browser);
  await page.goto(`${daemon.base}/#/sessions/${s.id}`);
  await page.waitForSelector("#s-state[data-state=finished]");
  await page.click("#b-replay");
  await page.waitForFunction((id) => location.hash === `#/sessions/${id}/replay`, s.id);
  await waitInPage(page, () => window.__roddViewer.replay?.frames === 31);
  assert.ok(await page.isHidden("#b-start"), "the live controls are away in a replay");
  assert.ok(await page.isVisible("#pl-slider"));

  // the scrub bar: frame k on the 3D view, its tip where the recording has it
  for (const k of [20, 5, 30]) {
    await page.locator("#pl-slider").fill(String(k));
    const want = frames[k];
    const got = await waitInPage(page, (t) => window.__roddViewer.drawn?.t === t && window.__roddViewer.drawn, want.t);
    assert.ok(near(got.tip, want.position[10]), `frame ${k}: tip ${got.tip} vs the recording's ${want.position[10]}`);
    assert.equal(await page.evaluate(() => window.__roddViewer.shown.t), want.t);
  }
  const moved = Math.hypot(...frames[30].position[10].map((x, a) => x - frames[5].position[10][a]));
  assert.ok(moved > 0.05, `the rod moves as it runs, so the scrub moved it: ${moved} m`);
  assert.match(await page.textContent("#pl-label"), /1\.50 s of 1\.50 s · frame 31\/31/);

  // the time series span the whole recording, one point per frame
  const span = await waitInPage(page, () => {
    const d = window.__roddViewer.plots.all.tip.data;
    return d[0].length === 31 && { n: d[0].length, t0: d[0][0], t1: d[0][d[0].length - 1], x: d[1][20] };
  });
  assert.deepEqual([span.t0, span.t1], [0, 1.5]);
  assert.ok(Math.abs(span.x - frames[20].position[10][0]) < 1e-6, `the tip plot at frame 20: ${span.x}`);

  // play to the end (1.5 s of recording at 1x); the arrows step frames, Home and End jump
  await page.selectOption("#pl-speed", "10");
  assert.equal(await page.evaluate(() => window.__roddViewer.replay.speed), 10);
  await page.selectOption("#pl-speed", "1");
  await page.locator("#pl-slider").fill("0");
  await page.click("#pl-play");
  const midway = await waitInPage(page, () => window.__roddViewer.replay.playing && window.__roddViewer.replay.index > 0 && window.__roddViewer.replay);
  assert.ok(midway.index < 30, `it plays through the frames: at ${midway.index}`);
  const end = await waitInPage(page, () => !window.__roddViewer.replay.playing && window.__roddViewer.replay, undefined, 20000);
  assert.equal(end.index, 30, "play stops at the last frame");
  await page.keyboard.press("ArrowLeft");
  assert.equal(await page.evaluate(() => window.__roddViewer.replay.index), 29);
  await page.keyboard.press("Shift+ArrowLeft");
  assert.equal(await page.evaluate(() => window.__roddViewer.replay.index), 19);
  await page.keyboard.press("Home");
  assert.equal(await page.evaluate(() => window.__roddViewer.drawn.t), 0);
  await page.keyboard.press("ArrowRight");
  assert.equal(await page.evaluate(() => window.__roddViewer.replay.t), frames[1].t);
  await page.keyboard.press("Space");
  await waitInPage(page, () => window.__roddViewer.replay.index > 1);
  await page.keyboard.press("Space");
  assert.equal(await page.evaluate(() => window.__roddViewer.replay.playing), false);
  const download = page.waitForEvent("download");
  await page.keyboard.press("s"); // a screenshot of the replayed frame
  assert.match((await download).suggestedFilename(), new RegExp(`^rodd-${s.id}-replay-t\\d+\\.\\d\\ds\\.png$`));
  await page.screenshot({ path: artifactPath("replay.png") });

  // back to the live session
  await page.click("#r-live");
  await page.waitForFunction((id) => location.hash === `#/sessions/${id}`, s.id);
  await page.waitForSelector("#b-start", { state: "visible" });
  assert.equal(await page.evaluate(() => window.__roddViewer.replay), null);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test("recording files open and play: NDJSON and rodd's HDF5, the same frames", async () => {
  const spec = path.join(top, "api/examples/shaken-rod-with-payload.json");
  const run = (fmt, out) => {
    const r = spawnSync(RODD, ["run", spec, "--until", "0.5", "--every", "0.02", "--points", "9", "--format", fmt, "--out", out]);
    assert.equal(r.status, 0, String(r.stderr));
  };
  const nd = artifactPath("shaken.ndjson");
  const h5 = artifactPath("shaken.h5");
  run("ndjson", nd);
  run("hdf5", h5);
  const frames = readFileSync(nd, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(frames.length, 26);
  const page = await openPage(browser);
  await page.goto(`${daemon.base}/`);
  await page.waitForSelector("body[data-ready=true]");
  for (const file of [nd, h5]) {
    await page.setInputFiles("#open-recording", file);
    await page.waitForFunction(() => location.hash === "#/replay");
    const r = await waitInPage(page, (name) => window.__roddViewer.replay?.source?.file === name && window.__roddViewer.replay, path.basename(file));
    assert.equal(r.frames, 26, file);
    await page.locator("#pl-slider").fill("13");
    const got = await waitInPage(page, (t) => window.__roddViewer.drawn?.t === t && window.__roddViewer.shown, frames[13].t);
    const i = 3 * 8;
    assert.ok(near(Array.from(got.position).slice(i, i + 3), frames[13].position[8]), `${file}: the tip of frame 13`);
    // the moving base comes along: the view carries it (the payload is drawn as a body)
    assert.ok(near(got.base.position, frames[13].base.position), `${file}: the base's pose`);
    assert.ok(await page.evaluate(() => window.__roddViewer.attached) >= 1, "the payload is drawn");
    await page.click("#pl-play");
    await waitInPage(page, () => !window.__roddViewer.replay.playing && window.__roddViewer.replay.index === 25, undefined, 20000);
  }
  assert.match(await page.textContent("#legend-gravity"), /gravity \(0, 0, -9\.81\)/, "the HDF5 file's spec gives gravity");
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test("a bad file, or a session with no frames, gives a readable error", async () => {
  const page = await openPage(browser);
  await page.goto(`${daemon.base}/`);
  await page.waitForSelector("body[data-ready=true]");
  const cases = [
    ["garbage.ndjson", "this is not a recording\n", /garbage\.ndjson cannot be replayed: line 1 is not JSON/],
    ["points.ndjson", `${JSON.stringify({ t: 0, s: [0, 1], position: [[0, 0, 0], [0, 0, 1]], rotation: [[1, 0, 0, 0, 1, 0, 0, 0, 1], [1, 0, 0, 0, 1, 0, 0, 0, 1]], radius: [0.01, 0.01] })}\n${JSON.stringify({ t: 0.1, s: [0, 0.5, 1], position: [[0, 0, 0], [0, 0, 0.5], [0, 0, 1]], rotation: [[1, 0, 0, 0, 1, 0, 0, 0, 1], [1, 0, 0, 0, 1, 0, 0, 0, 1], [1, 0, 0, 0, 1, 0, 0, 0, 1]], radius: [0.01, 0.01, 0.01] })}\n`, /line 2 has 3 points, the frames before it 2/],
    ["fields.ndjson", `${JSON.stringify({ t: 0, position: [[0, 0, 0], [0, 0, 1]] })}\n`, /line 1 has no s: the 3D view needs s, position, rotation, radius/],
    ["empty.ndjson", "\n\n", /the file has no frames/],
    ["cut.h5", Buffer.concat([Buffer.from([0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(200)]), /an HDF5 file that cannot be read/],
  ];
  for (const [name, content, message] of cases) {
    const file = artifactPath(name);
    writeFileSync(file, content);
    await page.setInputFiles("#open-recording", file);
    // the previous case's message stays up until this file is read: wait for this file's own
    await page.waitForFunction((n) => {
      const e = document.querySelector("#replay-error");
      return !e.hidden && e.textContent.startsWith(`${n} cannot be replayed:`);
    }, name);
    const text = await page.textContent("#replay-error");
    assert.match(text, message);
    assert.ok(text.startsWith(`${name} cannot be replayed:`), text);
    assert.equal(await page.evaluate(() => window.__roddViewer.replay), null, "nothing half opened");
  }
  // a session that records nothing
  const s = await finishedSession({ spec: cableSpec, pace: "max", until: 0.1, start: true, recording: false });
  await page.goto(`${daemon.base}/#/sessions/${s.id}/replay`);
  await page.waitForSelector("#replay-error:not([hidden])");
  assert.match(await page.textContent("#replay-error"), new RegExp(`cannot replay ${s.id}: the session has recorded no frames`));
  await page.goto(`${daemon.base}/#/sessions/no-such-session/replay`);
  await page.waitForFunction(() => /cannot replay no-such-session: /.test(document.querySelector("#replay-error").textContent));
  assert.ok(page.problems.every((p) => /Failed to load resource/.test(p)), page.problems.join("\n")); // the 404 itself
  await page.context().close();
});

// The viewer's first-hour features in Debian's Chromium against the real daemon: a first visit
// opens the newest running session; keyboard shortcuts, camera presets and the screenshot;
// the plots' readout, zoom and export; the light theme; the create dialog inside a small
// window; two sessions side by side; "repeat", the session's own loop, which two viewers
// watch without ever commanding the session.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { cableSpec, daemonAndBrowser, networkNoise, openSession } from "./fixture.mjs";
import { artifactPath, countPixels, openPage, sleep, waitInPage } from "./harness.mjs";

const LIGHT_BACKGROUND = [0xf3, 0xf5, 0xf8]; // the 3D view's clear colour in the light theme (theme.js)

let daemon;
let browser;
daemonAndBrowser((d, b) => { daemon = d; browser = b; });

/** A download the page starts with act(): its file name and bytes. */
async function downloaded(page, act) {
  const [d] = await Promise.all([page.waitForEvent("download"), act()]);
  return { name: d.suggestedFilename(), bytes: readFileSync(await d.path()) };
}
const isPng = (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));

test("a first visit opens the newest running session; keys, camera presets, screenshot, plot readout, zoom and export", async () => {
  const { json: s } = await daemon.api("POST", "/v1/sessions", { spec: cableSpec, name: "first-visit", start: true });
  const page = await openPage(browser);
  await page.goto(`${daemon.base}/`);
  await page.waitForFunction((id) => location.hash === `#/sessions/${id}`, s.id);
  await waitInPage(page, () => window.__roddViewer.frames >= 20 && window.__roddViewer.history.entries >= 10);

  // space pauses and starts; the arrows scrub back, End goes live
  await page.keyboard.press(" ");
  await page.waitForSelector("#s-state[data-state=paused]");
  await page.keyboard.press(" ");
  await page.waitForSelector("#s-state[data-state=running]");
  await page.keyboard.press("Shift+ArrowLeft");
  const scrub = await page.evaluate(() => ({ tl: window.__roddViewer.timeline, latest: window.__roddViewer.frame.t }));
  assert.ok(scrub.tl.frozen && scrub.tl.t < scrub.latest, `scrubbed back: ${JSON.stringify(scrub)}`);
  await page.keyboard.press("End");
  assert.equal((await page.evaluate(() => window.__roddViewer.timeline)).frozen, false);

  // camera presets: side looks from +x, top from +z; the tip preset keeps the tip in its sights
  await page.keyboard.press("2");
  let cam = await page.evaluate(() => window.__roddViewer.camera);
  assert.equal(cam.preset, "side");
  assert.ok(cam.position[0] - cam.target[0] > 5 * Math.abs(cam.position[1] - cam.target[1]), JSON.stringify(cam));
  await page.click("#cam-top");
  cam = await page.evaluate(() => window.__roddViewer.camera);
  assert.ok(cam.position[2] - cam.target[2] > 5 * Math.hypot(cam.position[0] - cam.target[0], cam.position[1] - cam.target[1]), JSON.stringify(cam));
  await page.keyboard.press("4");
  await sleep(300);
  const follow = await page.evaluate(() => {
    const f = window.__roddViewer.shown;
    const i = 3 * (f.n - 1);
    return { target: window.__roddViewer.camera.target, tip: [f.position[i], f.position[i + 1], f.position[i + 2]] };
  });
  assert.ok(Math.hypot(...follow.target.map((v, k) => v - follow.tip[k])) < 1e-6, JSON.stringify(follow));
  assert.equal(await page.getAttribute("#cam-tip", "aria-pressed"), "true");

  // a screenshot of the 3D view, as a PNG named for the session
  const shot = await downloaded(page, () => page.keyboard.press("s"));
  assert.match(shot.name, /^rodd-first-visit-t\d+\.\d\ds\.png$/);
  assert.ok(isPng(shot.bytes) && shot.bytes.length > 2000, `${shot.name}: ${shot.bytes.length} bytes`);

  // the plots: six, each with a legend that reads the value under the pointer
  assert.equal(await page.locator(".plot-box .u-over").count(), 6);
  const over = page.locator('.plot-box[data-plot="rho"] .u-over');
  const box = await over.boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  const rho = await page.locator('.plot-box[data-plot="rho"] .u-series:nth-child(2) .u-value').textContent();
  assert.match(rho, /^-?\d/, `the legend reads rho under the pointer: ${rho}`);
  // drag across the arm-length plot zooms into that time; its CSV then holds that window only
  const arm = page.locator('.plot-box[data-plot="arm"]');
  const armBox = await arm.locator(".u-over").boundingBox();
  const full = await downloaded(page, () => arm.getByText("CSV").click());
  await page.mouse.move(armBox.x + 0.3 * armBox.width, armBox.y + armBox.height / 2);
  await page.mouse.down();
  await page.mouse.move(armBox.x + 0.6 * armBox.width, armBox.y + armBox.height / 2, { steps: 4 });
  await page.mouse.up();
  await arm.getByText("fit").waitFor();
  const zoomed = await downloaded(page, () => arm.getByText("CSV").click());
  const rows = (b) => b.toString().trim().split("\n").slice(2);
  assert.equal(full.name, "rodd-arm.csv");
  assert.match(full.bytes.toString(), /^# arm length .*\n"t \(s\)","length"\n/);
  assert.ok(rows(zoomed.bytes).length > 0 && rows(zoomed.bytes).length < rows(full.bytes).length,
    `zoomed ${rows(zoomed.bytes).length} rows of ${rows(full.bytes).length}`);
  for (const r of rows(full.bytes)) assert.match(r, /^-?[\d.e+-]+,-?[\d.e+-]+$/);
  await page.dblclick('.plot-box[data-plot="arm"] .u-over');
  await arm.getByText("fit").waitFor({ state: "hidden" });
  const png = await downloaded(page, () => page.locator('.plot-box[data-plot="kappa"]').getByText("PNG").click());
  assert.ok(png.name === "rodd-kappa.png" && isPng(png.bytes));

  // ? shows the shortcuts
  await page.keyboard.press("?");
  assert.ok(await page.locator("#help-dialog").evaluate((d) => d.open));
  await page.keyboard.press("Escape");
  await page.screenshot({ path: artifactPath("first-visit.png") });
  assert.deepEqual(page.problems, []);
  await page.context().close();
  await daemon.api("DELETE", `/v1/sessions/${s.id}`);
});

test("the light theme; the create dialog and the page fit the window; two sessions side by side", async () => {
  const { json: a } = await daemon.api("POST", "/v1/sessions", { spec: { ...cableSpec, duration: 0.8, description: "a slack cable" }, name: "left", start: true, repeat: { every: 0.8 } });
  const { json: b } = await daemon.api("POST", "/v1/sessions", { spec: { ...cableSpec, environment: { gravity: [0, 0, -9.81] } }, name: "right", start: true });
  const page = await openPage(browser, { width: 1000, height: 640, colorScheme: "light" });
  await openSession(page, daemon, a.id);
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), "light");
  // the spec's description under the title; the session's repeat in the box: past 0.8 s it starts over
  await page.waitForSelector("#s-desc:not([hidden])");
  assert.equal(await page.textContent("#s-desc"), "a slack cable");
  assert.ok(await page.isChecked("#s-repeat"));
  assert.equal(await page.inputValue("#s-repeat-t"), "0.8");
  await waitInPage(page, () => {
    const t = window.__roddViewer.frame.t;
    window.__maxT = Math.max(window.__maxT || 0, t);
    return window.__maxT >= 0.6 && t < 0.4; // the daemon starts it again at 0.8 s: no frame comes later
  }, undefined, 20000);
  await sleep(300);
  const px = await countPixels(page, await page.locator("#view canvas").screenshot({ path: artifactPath("light.png") }), LIGHT_BACKGROUND);
  assert.ok(px.background > 0.4 * px.total, `a light 3D view: ${JSON.stringify(px)}`);
  // the page scrolls to the bottom row of plots, whole
  const last = page.locator('.plot-box[data-plot="volume"]');
  await last.scrollIntoViewIfNeeded();
  const lb = await last.boundingBox();
  assert.ok(lb.y >= 0 && lb.y + lb.height <= 640 + 1, `the last plot is in view: ${JSON.stringify(lb)}`);

  // a refused spec's errors: the dialog stays inside the window and Create stays in reach
  await page.keyboard.press("n");
  const bad = structuredClone(cableSpec);
  Object.assign(bad.rod, { poisson_ratio: 0.7, colour: "red", poison_ratio: 0.3, density: -1, length: "long" });
  await page.fill("#c-spec", JSON.stringify(bad, null, 2));
  await page.click("#c-submit");
  await page.locator(".spec-line .spec-error").first().waitFor();
  assert.match(await page.textContent(".error-list"), /did you mean "poisson_ratio"/);
  const dlg = await page.locator("#create-dialog").boundingBox();
  assert.ok(dlg.x >= 0 && dlg.y >= 0 && dlg.x + dlg.width <= 1000 && dlg.y + dlg.height <= 640, `dialog ${JSON.stringify(dlg)}`);
  const submit = await page.locator("#c-submit").boundingBox();
  assert.ok(submit.y >= 0 && submit.y + submit.height <= 640 && submit.x + submit.width <= 1000, `Create ${JSON.stringify(submit)}`);
  await page.click("#c-cancel");

  // compare: each session in its own pane, each streaming
  await page.selectOption("#s-compare", b.id);
  await page.waitForFunction(() => location.hash.startsWith("#/compare/"));
  const panes = await Promise.all(["#compare-a", "#compare-b"].map(async (sel) => (await page.locator(sel).elementHandle()).contentFrame()));
  for (const [frame, id] of [[panes[0], a.id], [panes[1], b.id]]) {
    await frame.waitForFunction((want) => window.__roddViewer?.session === want && window.__roddViewer.frames >= 5, id, { timeout: 20000 });
  }
  const [ba, bb] = await Promise.all(["#compare-a", "#compare-b"].map((sel) => page.locator(sel).boundingBox()));
  assert.ok(ba.x + ba.width <= bb.x + 1 && Math.abs(ba.y - bb.y) < 1, `side by side: ${JSON.stringify({ ba, bb })}`);
  await page.screenshot({ path: artifactPath("compare.png") });
  assert.deepEqual(page.problems.filter((p) => !networkNoise(p)), []);
  await page.context().close();
});

test("two viewers of a repeating session (a page and the compare view) never command it: the daemon loops it; the box changes it for both", async () => {
  const { json: s } = await daemon.api("POST", "/v1/sessions", { spec: { ...cableSpec, duration: 0.4 }, name: "loop", start: true, repeat: { every: 0.4 } });
  const { json: other } = await daemon.api("POST", "/v1/sessions", { spec: cableSpec, name: "other", start: true });
  const tab = await openPage(browser);
  const cmp = await openPage(browser);
  const commands = []; // every request but a read, from both pages and their frames
  for (const p of [tab, cmp])
    p.on("request", (r) => { if (!["GET", "HEAD"].includes(r.method())) commands.push(`${r.method()} ${r.url()}`); });
  await openSession(tab, daemon, s.id);
  await cmp.goto(`${daemon.base}/#/compare/${s.id}/${other.id}`);
  const pane = await (await cmp.locator("#compare-a").elementHandle()).contentFrame();
  await pane.waitForFunction((want) => window.__roddViewer?.session === want && window.__roddViewer.frames >= 3, s.id, { timeout: 20000 });
  // both watch it start over three times: the daemon's doing, no page's
  const wrapped = (n) => {
    const t = window.__roddViewer.frame?.t;
    if (t !== undefined) {
      if (window.__lastT !== undefined && t < window.__lastT - 0.1) window.__wraps = (window.__wraps || 0) + 1;
      window.__lastT = t;
    }
    return (window.__wraps || 0) >= n;
  };
  await Promise.all([tab.waitForFunction(wrapped, 3, { timeout: 30000, polling: 20 }),
    pane.waitForFunction(wrapped, 3, { timeout: 30000, polling: 20 })]);
  assert.deepEqual(commands, [], "watching sends no command");
  assert.ok(await tab.isChecked("#s-repeat"));
  assert.equal(await tab.inputValue("#s-repeat-t"), "0.4");
  // unticking is a change of the session, for every viewer: one PATCH, and the other page follows
  await tab.uncheck("#s-repeat");
  await tab.waitForFunction(() => window.__roddViewer.frame.t > 0.6, undefined, { timeout: 20000 });
  assert.deepEqual(commands.map((c) => c.replace(/^(\S+) .*(\/v1\/sessions\/[^/?]+).*$/, "$1 $2")), [`PATCH /v1/sessions/${s.id}`]);
  assert.equal((await daemon.api("GET", `/v1/sessions/${s.id}`)).json.repeat, null);
  await pane.waitForFunction(() => !document.querySelector("#s-repeat").checked, undefined, { timeout: 5000 });
  // another session in the same page: its own repeat (none) and no time left over from the first
  await openSession(tab, daemon, other.id);
  assert.ok(!(await tab.isChecked("#s-repeat")));
  assert.equal(await tab.inputValue("#s-repeat-t"), "");
  assert.equal(commands.length, 1, commands.join("\n"));
  for (const p of [tab, cmp]) {
    assert.deepEqual(p.problems.filter((x) => !networkNoise(x)), []);
    await p.context().close();
  }
  for (const id of [s.id, other.id]) await daemon.api("DELETE", `/v1/sessions/${id}`);
});

test("a description asked for before a pace change answered does not turn the pace select back", async () => {
  const { json: s } = await daemon.api("POST", "/v1/sessions", { spec: cableSpec, name: "pace", start: true, pace: 1 });
  const page = await openPage(browser);
  await openSession(page, daemon, s.id);
  assert.equal(await page.inputValue("#s-pace"), "1");
  // hold the next poll of the description (it still says pace 1) until the PATCH has answered
  let release;
  const released = new Promise((r) => (release = r));
  let held;
  const heldOne = new Promise((r) => (held = r));
  const described = new RegExp(`/v1/sessions/${s.id}$`);
  let fulfilled;
  const answeredStale = new Promise((r) => (fulfilled = r));
  let holding = false;
  await page.route(described, async (route) => {
    if (route.request().method() !== "GET" || holding) return route.continue();
    holding = true;
    const stale = await route.fetch(); // answered now, with the old pace
    held();
    await released;
    await route.fulfill({ response: stale });
    fulfilled();
  });
  await heldOne;
  const patched = page.waitForResponse((r) => r.request().method() === "PATCH" && described.test(r.url()));
  await page.selectOption("#s-pace", "max");
  assert.equal((await patched).status(), 200);
  await page.evaluate(() => document.activeElement?.blur()); // a focused select is never rewritten
  release();
  await answeredStale;
  await sleep(400); // the stale description has reached the page
  assert.equal(await page.inputValue("#s-pace"), "max");
  assert.equal((await daemon.api("GET", `/v1/sessions/${s.id}`)).json.pace, "max");
  assert.deepEqual(page.problems.filter((x) => !networkNoise(x)), []);
  await page.context().close();
  await daemon.api("DELETE", `/v1/sessions/${s.id}`);
});

// The viewer in Debian's Chromium against the real daemon: loads clean, shows a rod from an
// example, sends actuator commands from its sliders, shows spec errors by their JSON path,
// reconnects after the daemon restarts, and works with tokens (bearer REST, stream tickets).
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { cableSpec, daemonAndBrowser, networkNoise, openSession } from "./fixture.mjs";
import { artifactPath, countPixels, Daemon, openPage, sleep, waitInPage } from "./harness.mjs";

const BACKGROUND = [0x0e, 0x14, 0x1b]; // the 3D view's clear colour in the dark theme (theme.js)

const tipOf = (page) => page.evaluate(() => {
  const f = window.__roddViewer.frame;
  const i = 3 * (f.n - 1);
  return { t: f.t, x: f.position[i], y: f.position[i + 1], z: f.position[i + 2] };
});

let daemon;
let browser;
daemonAndBrowser((d, b) => { daemon = d; browser = b; });

test("the page loads with no console errors", async () => {
  const page = await openPage(browser);
  const response = await page.goto(`${daemon.base}/`);
  assert.equal(response.status(), 200);
  assert.equal(await page.title(), "rodd viewer");
  await page.waitForSelector("body[data-ready=true]");
  await waitInPage(page, () => window.__roddViewer.renders > 0); // WebGL draws
  await sleep(500); // anything late (a favicon, a module) has had its chance to fail
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test("creating a session from an example shows a rod", async () => {
  const page = await openPage(browser);
  const wire = { binary: 0, json: 0 };
  page.on("websocket", (ws) => ws.on("framereceived", ({ payload }) => (typeof payload === "string" ? wire.json++ : wire.binary++)));
  await page.goto(`${daemon.base}/`);
  await page.waitForSelector("body[data-ready=true]");
  await page.click("#new-session");
  await page.waitForSelector("#c-example option[value=octopus-reaching]", { state: "attached" });
  await page.selectOption("#c-example", "octopus-reaching");
  await page.waitForFunction(() => document.querySelector("#c-spec").value.includes("octopus-reaching"));
  await page.click("#c-submit");
  await page.waitForFunction(() => location.hash.startsWith("#/sessions/"));
  await waitInPage(page, () => window.__roddViewer.frames >= 10);
  const id = await page.evaluate(() => window.__roddViewer.session);
  await page.waitForSelector(`#sessions li[data-session="${id}"] .state[data-state=running]`);

  await sleep(300); // the last frame drawn
  const png = await page.locator("#view canvas").screenshot({ path: artifactPath("example-rod.png") });
  const px = await countPixels(page, png, BACKGROUND);
  // the rod in viridis colours is a few thousand pixels here; grid, plate and axes are grey or thin
  assert.ok(px.colorful > 1500, `rod pixels: ${JSON.stringify(px)}`);
  assert.ok(px.background > 0.5 * px.total, `the view is mostly background: ${JSON.stringify(px)}`);
  await page.screenshot({ path: artifactPath("viewer.png") });
  assert.ok(wire.binary >= 5, `frames come in the binary format the viewer subscribes to: ${JSON.stringify(wire)}`);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test("moving an actuator slider changes the rod's shape in the next frames", async () => {
  const { json: s } = await daemon.api("POST", "/v1/sessions", { spec: cableSpec, name: "cable", start: true });
  const page = await openPage(browser);
  await openSession(page, daemon, s.id);
  await sleep(500);
  const before = await tipOf(page);
  assert.ok(Math.abs(before.x) < 1e-3, `straight to begin with: ${JSON.stringify(before)}`);
  const shotBefore = await page.locator("#view canvas").screenshot();

  const slider = page.locator('.input-row[data-input="LM1"] input[type=range]');
  const box = await slider.boundingBox();
  const put = page.waitForResponse((r) => r.request().method() === "PUT" && r.url().endsWith("/actuators/LM1"));
  await page.mouse.move(box.x + 3, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + 0.4 * box.width, box.y + box.height / 2, { steps: 8 });
  await page.mouse.up();
  assert.equal((await put).status(), 200);
  const value = Number(await slider.inputValue());
  assert.ok(value > 0.2, `the slider moved: ${value}`);

  // the cable pulls: the rod bends in the x-z plane within a few frames
  await waitInPage(page, () => {
    const f = window.__roddViewer.frame;
    return Math.abs(f.position[3 * (f.n - 1)]) > 0.02;
  }, undefined, 10000);
  const after = await tipOf(page);
  assert.ok(after.t > before.t);
  // the daemon reports the value the slider sent (REST poll or the PUT's answer)
  await page.waitForFunction(
    (v) => {
      const out = document.querySelector('.input-row[data-input="LM1"] .reported').value;
      return Math.abs(parseFloat(out) - v) < 1e-3 * Math.max(1, v);
    },
    Number(await page.locator('.input-row[data-input="LM1"] input[type=number]').inputValue()),
  );
  await sleep(300);
  const shotAfter = await page.locator("#view canvas").screenshot({ path: artifactPath("slider-bent.png") });
  const [a, b] = await Promise.all([countPixels(page, shotBefore, BACKGROUND), countPixels(page, shotAfter, BACKGROUND)]);
  assert.ok(Math.abs(a.background - b.background) > 200 || Math.abs(a.colorful - b.colorful) > 200,
    `the picture changed: ${JSON.stringify({ a, b })}`);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test("start, pause, reset and delete from the toolbar; pause and scrub the view", async () => {
  const { json: s } = await daemon.api("POST", "/v1/sessions", { spec: cableSpec, name: "lifecycle" });
  const page = await openPage(browser);
  await page.goto(`${daemon.base}/#/sessions/${s.id}`);
  await page.waitForSelector("#s-state[data-state=created]");
  assert.ok(await page.isDisabled("#b-pause"));
  await page.click("#b-start");
  await page.waitForSelector("#s-state[data-state=running]");
  await waitInPage(page, () => window.__roddViewer.frame?.t > 2.5, undefined, 10000);

  // pause the view: the history stops where it was; the slider goes back in it
  await page.click("#tl-pause");
  const slider = page.locator("#tl-slider");
  await slider.fill("0"); // the oldest recorded instant
  const shown = await page.evaluate(() => ({ shown: window.__roddViewer.shown.t, latest: window.__roddViewer.frame.t }));
  assert.ok(shown.shown < shown.latest - 2, `scrubbed back: ${JSON.stringify(shown)}`);
  assert.match(await page.textContent("#tl-label"), /\(-\d+\.\d\d s\)/);
  await page.click("#tl-live");
  await waitInPage(page, () => window.__roddViewer.shown === window.__roddViewer.frame);

  await page.click("#b-pause");
  await page.waitForSelector("#s-state[data-state=paused]");
  await page.waitForSelector(`#sessions li[data-session="${s.id}"] .state[data-state=paused]`);
  await page.click("#b-reset");
  await page.waitForSelector("#s-state[data-state=created]");
  await waitInPage(page, () => window.__roddViewer.frame.t === 0);
  await page.click("#b-delete");
  assert.match(await page.textContent("#b-delete"), /again/); // a second click is needed
  await page.click("#b-delete");
  await page.waitForFunction(() => location.hash === "");
  await page.waitForSelector(`#sessions li[data-session="${s.id}"]`, { state: "detached" });
  assert.equal((await daemon.api("GET", `/v1/sessions/${s.id}`)).status, 404);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test("a failed session shows the solver's message", async () => {
  const spec = structuredClone(cableSpec);
  spec.actuators[0].tension = "t > 0.2 ? 1/0 : 0.01"; // infinite from t = 0.2 s: the solver gives up
  const { json: s } = await daemon.api("POST", "/v1/sessions", { spec });
  const page = await openPage(browser);
  await page.goto(`${daemon.base}/#/sessions/${s.id}`);
  await page.waitForSelector("#s-state[data-state=created]");
  await page.click("#b-start");
  await page.waitForSelector("#failure:not([hidden])");
  assert.match(await page.textContent("#failure"), /failed: .*not finite/);
  assert.equal(await page.getAttribute("#s-state", "data-state"), "failed");
  assert.match(await page.textContent("#st-message"), /not finite/);
  assert.ok(await page.isDisabled("#b-start"));
  await page.waitForSelector(`#sessions li[data-session="${s.id}"] .state[data-state=failed]`);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test("the material frame on demand, and the gravity direction", async () => {
  // hanging along +z under gravity: stretched, straight, stable
  const spec = { ...cableSpec, environment: { gravity: [0, 0, 9.81] } };
  const { json: s } = await daemon.api("POST", "/v1/sessions", { spec, start: true });
  const page = await openPage(browser);
  await openSession(page, daemon, s.id);
  assert.match(await page.textContent("#legend-gravity"), /gravity \(0, 0, 9\.81\) m\/s²/);
  await sleep(300);
  const off = await countPixels(page, await page.locator("#view canvas").screenshot(), BACKGROUND);
  await page.check("#directors");
  await sleep(300);
  const on = await countPixels(page, await page.locator("#view canvas").screenshot({ path: artifactPath("directors.png") }), BACKGROUND);
  assert.ok(on.colorful > off.colorful + 100, `the directors add coloured lines: ${JSON.stringify({ off, on })}`);
  await page.click("#reset-view");
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test("a spec error is shown next to its JSON path", async () => {
  const page = await openPage(browser);
  await page.goto(`${daemon.base}/`);
  await page.waitForSelector("body[data-ready=true]");
  const count = (await daemon.api("GET", "/v1/sessions")).json.total;
  await page.click("#new-session");

  // not JSON at all: said before anything is sent
  await page.fill("#c-spec", '{ "model": "extended", }');
  await page.click("#c-submit");
  await page.waitForSelector("#c-summary:not([hidden])");
  assert.match(await page.textContent("#c-summary"), /not JSON/);

  const bad = structuredClone(cableSpec);
  bad.rod.poisson_ratio = 0.7;
  bad.rod.colour = "red";
  delete bad.inflation;
  // uploaded from a file this time
  await page.setInputFiles("#c-file", { name: "bad.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(bad, null, 1)) });
  await page.waitForFunction(() => document.querySelector("#c-spec").value.includes("colour"));
  assert.equal(await page.inputValue("#c-name"), "bad");
  await page.click("#c-submit");
  const line = page.locator('.spec-line[data-path="/rod/poisson_ratio"]');
  await line.locator(".spec-error").waitFor();
  assert.match(await line.locator(".spec-code").textContent(), /"poisson_ratio": 0\.7/);
  assert.match(await line.locator(".spec-error").textContent(), /must be in \(-1, 0\.5\)/);
  assert.match(await page.locator('.spec-line[data-path="/rod/colour"] .spec-error').textContent(), /unknown key/);
  // a missing member sits on the line of the object that lacks it
  assert.match(await page.locator('.spec-line[data-path=""] .spec-error').first().textContent(), /^inflation: is required/);
  assert.match(await page.textContent(".error-list"), /\/spec\/rod\/poisson_ratio must be in/);
  await page.locator("#c-spec-errors").screenshot({ path: artifactPath("spec-errors.png") });
  assert.ok(await page.locator("#create-dialog").evaluate((d) => d.open), "the dialog stays open");
  assert.equal((await daemon.api("GET", "/v1/sessions")).json.total, count, "no session was made");
  // the 422 itself is logged by Chromium as a failed resource; nothing else may be
  assert.deepEqual(page.problems.filter((p) => !networkNoise(p)), []);
  await page.context().close();
});

test("the page reconnects by itself after the daemon restarts", async () => {
  const { json: s } = await daemon.api("POST", "/v1/sessions", { spec: cableSpec, name: "restart", start: true });
  const page = await openPage(browser);
  await openSession(page, daemon, s.id);
  await waitInPage(page, () => window.__roddViewer.frames >= 10);

  const stopped = await daemon.stop("SIGTERM");
  assert.equal(stopped.code, 0, `rodd drained and exited: ${JSON.stringify(stopped)}\n${daemon.log}`);
  await waitInPage(page, () => window.__roddViewer.connection !== "open", undefined, 5000);
  const atStop = await page.evaluate(() => ({ frames: window.__roddViewer.frames, t: window.__roddViewer.frame.t }));
  assert.match(await page.textContent("#conn"), /reconnecting|connecting/);
  await sleep(1500); // down for a while: a few failed attempts, backing off

  await daemon.start(); // same ports, same state directory: the session is restored
  const t0 = Date.now();
  await waitInPage(page, (n) => window.__roddViewer.connection === "open" && window.__roddViewer.frames >= n + 10,
    atStop.frames, 20000);
  const back = await page.evaluate(() => ({ frames: window.__roddViewer.frames, t: window.__roddViewer.frame.t }));
  assert.ok(back.t >= atStop.t - 0.1, `the restored session goes on from its checkpoint: ${JSON.stringify({ atStop, back })}`);
  assert.equal(await page.textContent("#conn"), "live");
  writeFileSync(artifactPath("reconnect.txt"), `reconnected ${Date.now() - t0} ms after the restart\n`);
  assert.deepEqual(page.problems.filter((p) => !networkNoise(p)), []);
  await page.context().close();
});

describe("with tokens", () => {
  let secured;
  before(async () => {
    secured = await new Daemon({ env: { RODD_TOKENS: "operator:op-secret-123,viewer:view-secret-456" } }).start();
  });
  after(async () => {
    await secured?.stop();
    secured?.cleanup();
  });

  test("asks for a token, then uses it for REST and a ticket for the stream", async () => {
    secured.token = "op-secret-123";
    const { json: s } = await secured.api("POST", "/v1/sessions", { spec: cableSpec, start: true });
    const page = await openPage(browser);
    await page.goto(`${secured.base}/#/sessions/${s.id}`);
    await page.waitForSelector("#token-form:not([hidden])");
    await page.waitForSelector("#sessions-error:not([hidden])");
    await page.fill("#token", "view-secret-456");
    // the ticket request names its session in the query too, for a router in front of several daemons
    const ticket = page.waitForResponse((r) => r.url().endsWith(`/v1/stream-tickets?session=${s.id}`) && r.status() === 201);
    await page.click("#token-form button");
    await ticket;
    await waitInPage(page, () => window.__roddViewer.connection === "open" && window.__roddViewer.frames >= 5);
    await page.waitForSelector(`#sessions li[data-session="${s.id}"]`);
    assert.equal(await page.evaluate(() => localStorage.getItem("rodd.token")), "view-secret-456");
    // a viewer may watch but not command: the slider's PUT is refused and says so
    const slider = page.locator('.input-row[data-input="LM1"] input[type=number]');
    await slider.fill("0.3");
    await slider.press("Enter");
    await page.waitForSelector('.input-row[data-input="LM1"] .input-error:not([hidden])');
    assert.match(await page.textContent('.input-row[data-input="LM1"] .input-error'), /operator/);

    // tickets are single-use: a reconnection after a restart must fetch a fresh one
    let tickets = 0;
    page.on("response", (r) => r.url().includes("/v1/stream-tickets?") && r.status() === 201 && tickets++);
    await secured.stop();
    await waitInPage(page, () => window.__roddViewer.connection !== "open", undefined, 5000);
    const frames = await page.evaluate(() => window.__roddViewer.frames);
    await secured.start();
    await waitInPage(page, (n) => window.__roddViewer.connection === "open" && window.__roddViewer.frames >= n + 5, frames, 20000);
    assert.ok(tickets >= 1, "a new ticket for the new connection");
    assert.deepEqual(page.problems.filter((p) => !networkNoise(p)), []);
    await page.context().close();
  });
});

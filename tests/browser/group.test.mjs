// The viewer a group shares (issue 33 item 6): sessions titled by their spec's name, the
// spec's warnings shown with their JSON path, the sidebar's time the header's, actuator fields
// that show their digits, and a compare view whose panes keep their bar on one line and show
// their plots.
import assert from "node:assert/strict";
import { test } from "node:test";
import { cableSpec, daemonAndBrowser, openSession } from "./fixture.mjs";
import { artifactPath, openPage, sleep, waitInPage } from "./harness.mjs";

let daemon;
let browser;
daemonAndBrowser((d, b) => { daemon = d; browser = b; });

const named = (name, extra = {}) => ({ ...cableSpec, name, ...extra, rod: { ...cableSpec.rod, ...(extra.rod || {}) } });

test("a session is titled by its spec's name, and the spec's warnings are shown by path", async () => {
  const { json: a } = await daemon.api("POST", "/v1/sessions", { spec: named("arm-a") });
  assert.equal(a.name, "arm-a", "the spec's name titles an unnamed session");
  assert.deepEqual(a.warnings, []);
  const { json: b } = await daemon.api("POST", "/v1/sessions", { spec: named("radius-in-mm", { rod: { radius: 20 } }) });
  assert.equal(b.warnings[0].path, "/rod/radius");
  const page = await openPage(browser);
  await page.goto(`${daemon.base}/#/sessions/${b.id}`);
  await waitInPage(page, () => document.querySelector("#s-title").textContent === "radius-in-mm");
  await page.waitForSelector("#s-warnings:not([hidden])");
  const text = await page.textContent("#s-warnings");
  assert.match(text, /\/rod\/radius: .*not slender/);
  await page.screenshot({ path: artifactPath("group-warning.png") });
  await page.goto(`${daemon.base}/#/sessions/${a.id}`);
  await waitInPage(page, () => document.querySelector("#s-title").textContent === "arm-a");
  await waitInPage(page, () => document.querySelector("#s-warnings").hidden);
  assert.equal(await page.textContent(`li[data-session="${a.id}"] .s-name`), "arm-a");
  await page.context().close();
});

test("the sidebar's time is the header's while a session runs; actuator fields show six digits", async () => {
  const { json: s } = await daemon.api("POST", "/v1/sessions", { spec: named("clock"), start: true, pace: 1 });
  const page = await openPage(browser);
  await openSession(page, daemon, s.id);
  await daemon.api("PUT", `/v1/sessions/${s.id}/actuators/LM1`, { value: 0.123456 });
  await sleep(1500);
  for (let k = 0; k < 5; k++) {
    const [head, side] = await page.evaluate((id) => [document.querySelector("#s-time").textContent,
      document.querySelector(`li[data-session="${id}"] .s-time`).textContent], s.id);
    const d = Math.abs(parseFloat(head) - parseFloat(side));
    assert.ok(d <= 0.1, `header ${head}, sidebar ${side}`);
    await sleep(300);
  }
  const fits = await page.$eval('input[aria-label="LM1 value"]', (i) => i.value === "0.123456" && i.scrollWidth <= i.clientWidth);
  assert.ok(fits, "the actuator's field shows 0.123456 whole");
  await page.context().close();
});

test("the compare view titles by name, keeps each pane's bar on one line and shows plots", async () => {
  const { json: a } = await daemon.api("POST", "/v1/sessions", { spec: named("left arm"), start: true });
  const { json: b } = await daemon.api("POST", "/v1/sessions", { spec: named("right arm"), start: true });
  const page = await openPage(browser, { width: 1400, height: 900 });
  await page.goto(`${daemon.base}/#/compare/${a.id}/${b.id}`);
  await waitInPage(page, () => document.querySelector("#compare-title").textContent === "left arm and right arm");
  for (const pane of ["#compare-a", "#compare-b"]) {
    const frame = await (await page.$(pane)).contentFrame();
    await frame.waitForFunction(() => window.__roddViewer?.frames >= 5, undefined, { timeout: 30000 });
    const bar = await frame.$eval("#session .session-bar", (e) => e.getBoundingClientRect().height);
    await page.screenshot({ path: artifactPath("group-compare.png") });
    assert.ok(bar < 45, `${pane}'s bar is ${bar} px high: on one line`);
    const plots = await frame.$eval("#plots", (e) => {
      const r = e.getBoundingClientRect();
      return { n: e.querySelectorAll("canvas").length, top: r.top, bottom: innerHeight };
    });
    assert.ok(plots.n > 0 && plots.top < plots.bottom, `${pane} shows its plots: ${JSON.stringify(plots)}`);
  }
  await sleep(1000);
  await page.screenshot({ path: artifactPath("group-compare.png") });
  await page.context().close();
});

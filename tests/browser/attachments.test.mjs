// The view of what a frame carries besides the rod (issue 13): attached bodies, constraint
// targets with their reactions, and a constraint target's slider. Its own file: the viewer's
// other tests fill their file's time budget.
import assert from "node:assert/strict";
import { test } from "node:test";
import { cableSpec, daemonAndBrowser, openSession } from "./fixture.mjs";
import { openPage, waitInPage } from "./harness.mjs";

let daemon;
let browser;
daemonAndBrowser((d, b) => { daemon = d; browser = b; });

test("a held tip's target and reaction and an attached body are drawn; the target gets a slider", async () => {
  const spec = {
    ...cableSpec,
    constraints: [{ name: "tip", type: "pose", position: [0.05, 0, 0.5], components: ["x"] }],
    bodies: [{ name: "payload", mass: 0.01, s: 0.3 }],
    initial: "static",
  };
  const { json: s } = await daemon.api("POST", "/v1/sessions", { spec, name: "held", start: true });
  const page = await openPage(browser);
  await openSession(page, daemon, s.id);
  // one ball for the body, a ball and an arrow for the target
  await waitInPage(page, () => window.__roddViewer.attached === 3);
  const f = await page.evaluate(() => window.__roddViewer.frame);
  assert.ok(Math.abs(f.constraints.tip.target[0] - 0.05) < 1e-9, JSON.stringify(f.constraints));
  assert.equal(await page.locator('.input-row[data-input="tip.x"] input[type=range]').count(), 1);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});


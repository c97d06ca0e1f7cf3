// The view of the environment (issue 14): the obstacles the session's description lists are
// drawn, and the contact forces its frames carry are drawn as arrows where the rod touches.
// Its own file: the viewer's other tests fill their file's time budget.
import assert from "node:assert/strict";
import { test } from "node:test";
import { daemonAndBrowser, openSession } from "./fixture.mjs";
import { openPage, waitInPage } from "./harness.mjs";

let daemon;
let browser;
daemonAndBrowser((d, b) => { daemon = d; browser = b; });

test("a plane, a sphere and a cylinder are drawn, and the rod's contact forces on the plane as arrows", async () => {
  // a clamped rod sagging onto a soft floor under its weight (the Winkler case of
  // tests/validation/test_contact.c), with a sphere and a cylinder out of its reach
  const r = 0.01;
  const spec = {
    model: "classic",
    rod: { length: 0.5, radius: r, density: 1000, youngs_modulus: 1e7, poisson_ratio: 0.45, shear_viscosity: 1e4 },
    strains: { bend2: 6 },
    environment: {
      gravity: [-9.81, 0, 0],
      obstacles: [
        { name: "floor", type: "plane", point: [-r, 0, 0], normal: [1, 0, 0], stiffness: 1e4, damping: 20 },
        { name: "ball", type: "sphere", center: [0.2, 0.1, 0.3], radius: 0.05, stiffness: 1e3 },
        { name: "post", type: "cylinder", point: [0.2, -0.1, 0], axis: [0, 0, 1], radius: 0.02, stiffness: 1e3 },
      ],
    },
  };
  const { json: s } = await daemon.api("POST", "/v1/sessions", { spec, name: "floor", start: true });
  assert.equal(s.model.obstacles.length, 3, JSON.stringify(s.model));
  assert.equal(s.model.attachments, true, "a model with obstacles streams JSON frames (they carry the contacts)");
  const page = await openPage(browser);
  await openSession(page, daemon, s.id);
  await waitInPage(page, () => window.__roddViewer.obstacles === 3);
  // every contact point but the clamped one touches the floor: one arrow each (the rod falls in
  // real time; on a loaded machine the session reaches the floor late: timed out at 15 s once)
  await waitInPage(page, () => window.__roddViewer.contactArrows > 10, undefined, 45000);
  const { contacts, arrows } = await page.evaluate(() => ({
    contacts: window.__roddViewer.frame.contacts,
    arrows: window.__roddViewer.contactArrows,
  }));
  assert.ok(contacts.length > 10, JSON.stringify(contacts).slice(0, 300));
  assert.equal(arrows, Math.min(contacts.length, 400));
  // the floor pushes the rod up (+x), where it touches (on the floor's surface, x = -r)
  for (const c of contacts) {
    assert.ok(c.force[0] > 0, JSON.stringify(c));
    assert.ok(Math.abs(c.point[0] + r) < 1e-9, JSON.stringify(c));
  }
  assert.deepEqual(page.problems, []);
  await page.screenshot({ path: "tests/browser/artifacts/contacts.png" });
  await page.context().close();
});

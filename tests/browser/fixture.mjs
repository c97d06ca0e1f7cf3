// What the viewer's browser test files share: one daemon and one browser per file, a test rod,
// and opening a session's page once its stream flows.
import { after, before } from "node:test";
import { Daemon, launchBrowser, waitInPage } from "./harness.mjs";

// A tapered rod with one cable on its +x side, slack: straight and still until the cable pulls.
export const cableSpec = {
  model: "extended",
  rod: { length: 0.5, radius: { base: 0.015, tip: 0.006 }, density: 1000, youngs_modulus: 5000, poisson_ratio: 0.49, shear_viscosity: 200 },
  strains: { bend2: 4, stretch: 2 },
  inflation: { pieces: 2, boundary: "neumann" },
  actuators: [{ name: "LM1", type: "cable", route: { offset: [0.8, 0], relative_to_radius: true }, tension: 0 }],
};

// What a browser logs by itself while the daemon is down or refuses a request (4xx): expected
// where a test makes that happen, and only there.
export const networkNoise = (p) => /Failed to load resource|ERR_CONNECTION_REFUSED|WebSocket connection to .* failed/.test(p);

export async function openSession(page, daemon, id) {
  await page.goto(`${daemon.base}/#/sessions/${id}`);
  await waitInPage(page, () => window.__roddViewer.connection === "open" && window.__roddViewer.frames >= 3);
}

/** Starts a daemon and a browser before the file's tests (handing them to use) and stops both after. */
export function daemonAndBrowser(use) {
  let daemon;
  let browser;
  before(async () => {
    [daemon, browser] = await Promise.all([new Daemon().start(), launchBrowser()]);
    use(daemon, browser);
  });
  after(async () => {
    await browser?.close();
    await daemon?.stop();
    daemon?.cleanup();
  });
}

// make docs-pictures: the pictures of docs/tutorial.md, taken from the real viewer. The arm is
// the tutorial's own (its last `cat > arm.json` block) in water, as step 5 makes it.
import { readFileSync } from "node:fs";
import path from "node:path";
import { Daemon, launchBrowser, openPage, sleep, top, waitInPage } from "./harness.mjs";

const tutorial = readFileSync(path.join(top, "docs/tutorial.md"), "utf8");
const blocks = [...tutorial.matchAll(/cat > arm\.json <<'EOF'\n([\s\S]*?)\nEOF/g)];
const spec = JSON.parse(blocks[blocks.length - 1][1]);
spec.environment = { fluid: { density: 1000, added_mass: [1, 1], drag: 1.1 } };

const daemon = await new Daemon().start();
const browser = await launchBrowser();
try {
  const { json: s } = await daemon.api("POST", "/v1/sessions", { spec, name: spec.name, pace: 0.5 });
  const page = await openPage(browser, { width: 1280, height: 820 });
  await page.goto(`${daemon.base}/#/sessions/${s.id}`);
  await page.waitForSelector("#s-desc:not([hidden])");
  await page.click("#b-start"); // from t = 0 with the page watching: the whole curl is in the plots
  await waitInPage(page, () => window.__roddViewer.frame?.t >= 1.3, undefined, 60000);
  await page.click("#tl-pause"); // hold the picture still while it is taken
  await sleep(500);
  const out = path.join(top, "docs/img/tutorial-viewer.png");
  await page.screenshot({ path: out });
  console.log(`wrote ${out}`);
} finally {
  await browser.close();
  await daemon.stop();
  daemon.cleanup();
}

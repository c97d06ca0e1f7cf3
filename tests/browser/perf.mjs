// A measurement, not a test: the viewer streaming a 101-point rod at 60 Hz for a while, in
// Debian's Chromium against the real daemon. Prints the frames received per second, the
// page's rendering rate (requestAnimationFrame callbacks and actual WebGL draws per second),
// the frames the daemon dropped, and the JS heap (after a forced GC) at the start, every
// sample and the end.
//
//   node tests/browser/perf.mjs [--seconds 60] [--rate 60] [--points 101]
//                               [--example octopus-reaching] [--screenshot web/screenshot.png]
//   node tests/browser/perf.mjs --seconds 600          # the ten-minute soak
import path from "node:path";
import { parseArgs } from "node:util";
import { Daemon, launchBrowser, openPage, sleep, top, waitInPage } from "./harness.mjs";

const { values: opt } = parseArgs({
  options: {
    seconds: { type: "string", default: "60" },
    rate: { type: "string", default: "60" },
    points: { type: "string", default: "101" },
    example: { type: "string", default: "octopus-reaching" },
    screenshot: { type: "string" },
    warmup: { type: "string", default: "5" },
  },
});
const seconds = Number(opt.seconds);
const SAMPLE_S = Math.min(10, seconds);
const mib = (b) => (b / 2 ** 20).toFixed(2);

const daemon = await new Daemon().start();
const browser = await launchBrowser();
try {
  const made = await daemon.api("POST", "/v1/sessions", { example: opt.example, points: Number(opt.points), start: false, name: `${opt.example} (${opt.points} points)` });
  if (made.status !== 201) throw new Error(`create: ${made.status} ${JSON.stringify(made.json)}`);
  const id = made.json.id;
  const page = await openPage(browser, { width: 1400, height: 1000 });
  await page.goto(`${daemon.base}/?rate=${opt.rate}#/sessions/${id}`);
  await waitInPage(page, () => window.__roddViewer.connection === "open" && window.__roddViewer.frames > 0);
  await daemon.api("POST", `/v1/sessions/${id}:start`); // from t = 0 with the page watching
  await waitInPage(page, () => window.__roddViewer.frames > 10);
  await page.evaluate(() => {
    window.__perf = { raf: 0 };
    const tick = () => {
      window.__perf.raf++;
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  const cdp = await page.context().newCDPSession(page);
  const heap = async () => {
    await cdp.send("HeapProfiler.collectGarbage");
    const h = await cdp.send("Runtime.getHeapUsage");
    return { used: h.usedSize, total: h.totalSize, backing: h.backingStorageSize ?? NaN };
  };
  await cdp.send("Performance.enable");
  const busy = async () => {
    const { metrics } = await cdp.send("Performance.getMetrics");
    const m = Object.fromEntries(metrics.map((x) => [x.name, x.value]));
    return { task: m.TaskDuration, script: m.ScriptDuration };
  };
  const counters = () => page.evaluate(() => ({
    raf: window.__perf.raf,
    renders: window.__roddViewer.renders,
    frames: window.__roddViewer.frames,
    history: window.__roddViewer.history,
    dropped: Number(document.querySelector("#st-dropped").textContent),
    t: window.__roddViewer.frame.t,
    now: performance.now(),
  }));

  await sleep(1000 * Number(opt.warmup));
  const h0 = await heap();
  const c0 = await counters();
  const b0 = await busy();
  console.log(`perf: ${opt.points} points at ${opt.rate} Hz from ${opt.example}, ${seconds} s (after ${opt.warmup} s warm-up), Chromium ${browser.version()}`);
  console.log("   time  frames/s  rAF/s  draws/s  heap MiB  buffers MiB  history entries/frames");
  let prev = c0;
  for (let elapsed = 0; elapsed < seconds; ) {
    const step = Math.min(SAMPLE_S, seconds - elapsed);
    await sleep(1000 * step);
    elapsed += step;
    const c = await counters();
    const h = await heap();
    const dt = (c.now - prev.now) / 1000;
    console.log(
      `${String(elapsed).padStart(6)}s ${((c.frames - prev.frames) / dt).toFixed(1).padStart(9)} ${((c.raf - prev.raf) / dt).toFixed(1).padStart(6)} ` +
      `${((c.renders - prev.renders) / dt).toFixed(1).padStart(8)} ${mib(h.used).padStart(9)} ${mib(h.backing).padStart(12)}  ${c.history.entries}/${c.history.frames}`,
    );
    prev = c;
  }
  const c1 = await counters();
  const b1 = await busy();
  const h1 = await heap();
  const dt = (c1.now - c0.now) / 1000;
  console.log("summary:");
  console.log(`  frames received   ${((c1.frames - c0.frames) / dt).toFixed(1)} /s (${c1.frames - c0.frames} in ${dt.toFixed(1)} s; sim time ${(c1.t - c0.t).toFixed(1)} s)`);
  console.log(`  rendering (rAF)   ${((c1.raf - c0.raf) / dt).toFixed(1)} fps`);
  console.log(`  WebGL draws       ${((c1.renders - c0.renders) / dt).toFixed(1)} /s`);
  console.log(`  main thread busy  ${((100 * (b1.task - b0.task)) / dt).toFixed(0)} % (JS ${((100 * (b1.script - b0.script)) / dt).toFixed(0)} %)`);
  console.log(`  dropped frames    ${c1.dropped - c0.dropped} (daemon status messages)`);
  console.log(`  JS heap           ${mib(h0.used)} -> ${mib(h1.used)} MiB (${h1.used >= h0.used ? "+" : ""}${mib(h1.used - h0.used)} MiB; ${mib(((h1.used - h0.used) / dt) * 60)} MiB/min)`);
  console.log(`  ArrayBuffers      ${mib(h0.backing)} -> ${mib(h1.backing)} MiB (frames kept for scrubbing live here)`);
  if (page.problems.length) console.log(`  page problems     ${page.problems.join("; ")}`);
  if (opt.screenshot) {
    const file = path.resolve(top, opt.screenshot);
    await page.screenshot({ path: file });
    console.log(`  screenshot        ${path.relative(top, file)}`);
  }
} finally {
  await browser.close();
  await daemon.stop();
  daemon.cleanup();
}

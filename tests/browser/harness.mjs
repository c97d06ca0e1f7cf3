// What the browser tests and the perf script share: the real daemon on free loopback ports
// (serving web/dist, with a temporary state directory), restartable on the same ports and
// state, and Debian's Chromium through playwright-core (which never downloads a browser).
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";

export const top = path.resolve(new URL("../..", import.meta.url).pathname);
export const artifacts = path.join(top, "tests/browser/artifacts");
const rodd = process.env.RODD ? path.resolve(process.env.RODD) : path.join(top, "build/rodd");
const chromiumPath = process.env.CHROMIUM || "/usr/bin/chromium";
const webRoot = process.env.WEB_DIST ? path.resolve(process.env.WEB_DIST) : path.join(top, "web/dist");

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function freePort(avoid = []) {
  for (;;) {
    const port = await new Promise((resolve, reject) => {
      const s = net.createServer();
      s.listen(0, "127.0.0.1", () => {
        const { port: p } = s.address();
        s.close(() => resolve(p));
      });
      s.on("error", reject);
    });
    if (!avoid.includes(port)) return port;
  }
}

/**
 * The daemon: start() picks ports and a state dir once; stop() and start() again reuse them.
 * Like `rodd serve` by default it has no stream port: the viewer streams over the REST port,
 * the only one it is given (streamPort: true adds one).
 */
export class Daemon {
  constructor({ env = {}, args = [], streamPort = false } = {}) {
    this.env = env;
    this.args = args;
    this.streamPort = streamPort;
    this.log = "";
    this.proc = null;
  }

  async start() {
    if (!existsSync(rodd)) throw new Error(`${rodd} is missing: build it first (make all)`);
    if (!this.http) {
      this.http = await freePort();
      this.ws = await freePort([this.http]);
      this.stateDir = mkdtempSync(path.join(os.tmpdir(), "rodd-browser-"));
    }
    this.base = `http://127.0.0.1:${this.http}`;
    const argv = ["serve", "--listen", `127.0.0.1:${this.http}`, ...(this.streamPort ? ["--ws-port", String(this.ws)] : []),
      "--state-dir", this.stateDir, "--web-root", webRoot, ...this.args];
    const proc = spawn(rodd, argv, { cwd: top, env: { ...process.env, RODD_WORKERS: "2", ...this.env }, stdio: ["ignore", "ignore", "pipe"] });
    this.proc = proc;
    proc.stderr.on("data", (d) => (this.log += d.toString()));
    this.exited = new Promise((resolve) => proc.on("exit", (code, signal) => resolve({ code, signal })));
    for (let i = 0; i < 200; i++) {
      if (proc.exitCode !== null) throw new Error(`rodd exited at start (${proc.exitCode}):\n${this.log}`);
      try {
        if ((await fetch(`${this.base}/readyz`)).status === 200) return this;
      } catch {
        // not listening yet
      }
      await sleep(50);
    }
    throw new Error(`rodd did not become ready:\n${this.log}`);
  }

  async stop(signal = "SIGTERM") {
    const proc = this.proc;
    if (!proc) return null;
    this.proc = null;
    if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
    const timeout = sleep(10000).then(() => {
      proc.kill("SIGKILL");
      return { code: null, signal: "SIGKILL (stop timed out)" };
    });
    return Promise.race([this.exited, timeout]);
  }

  cleanup() {
    if (this.stateDir) rmSync(this.stateDir, { recursive: true, force: true });
  }

  /** A REST call: {status, json}. */
  async api(method, p, body) {
    const r = await fetch(this.base + p, {
      method,
      headers: { "content-type": "application/json", ...(this.token ? { authorization: `Bearer ${this.token}` } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    return { status: r.status, json: text ? JSON.parse(text) : null };
  }
}

export async function launchBrowser() {
  if (!existsSync(chromiumPath)) throw new Error(`${chromiumPath} is missing: apt-get install -y chromium`);
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--use-angle=swiftshader",
      "--enable-unsafe-swiftshader", // WebGL on the CPU: there is no GPU here
    ],
  });
}

/** A fresh page with its console errors and uncaught exceptions collected in page.problems. */
export async function openPage(browser, { width = 1400, height = 900, colorScheme = "dark" } = {}) {
  // dark unless asked: the viewer follows prefers-color-scheme, and the pixel counts assume its dark background
  const context = await browser.newContext({ viewport: { width, height }, colorScheme, acceptDownloads: true });
  const page = await context.newPage();
  page.problems = [];
  page.on("console", (m) => {
    if (m.type() === "error") page.problems.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => page.problems.push(`pageerror: ${e.message}`));
  return page;
}

export function artifactPath(name) {
  mkdirSync(artifacts, { recursive: true });
  return path.join(artifacts, name);
}

/**
 * Counts pixels of a PNG (a Buffer) in the page itself (no PNG decoder needed in node):
 * {total, background, colorful} where colorful have a channel spread over 60 (the rod's
 * viridis colours; the grid, the plate and the background are grey).
 */
export async function countPixels(page, png, background) {
  return page.evaluate(
    async ({ data, bg }) => {
      const img = new Image();
      img.src = `data:image/png;base64,${data}`;
      await img.decode();
      const c = document.createElement("canvas");
      c.width = img.width;
      c.height = img.height;
      const ctx = c.getContext("2d");
      ctx.drawImage(img, 0, 0);
      const px = ctx.getImageData(0, 0, c.width, c.height).data;
      let background = 0;
      let colorful = 0;
      for (let i = 0; i < px.length; i += 4) {
        const [r, g, b] = [px[i], px[i + 1], px[i + 2]];
        if (Math.abs(r - bg[0]) + Math.abs(g - bg[1]) + Math.abs(b - bg[2]) < 12) background++;
        if (Math.max(r, g, b) - Math.min(r, g, b) > 60) colorful++;
      }
      return { total: px.length / 4, background, colorful };
    },
    { data: png.toString("base64"), bg: background },
  );
}

/** Waits until fn() (run in the page) is truthy; returns its value. */
export async function waitInPage(page, fn, arg, timeout = 15000) {
  const handle = await page.waitForFunction(fn, arg, { timeout, polling: 100 });
  return handle.jsonValue();
}

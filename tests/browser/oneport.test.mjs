// The viewer when only the REST port is reachable, at another port than the daemon's (a port
// mapping such as `podman run -p 28180:8080`, or an SSH tunnel): a forwarder on a port of its
// own passes the one port through, the browser is given only that, and the viewer's stream
// must come through it too, with and without tokens (tickets).
import assert from "node:assert/strict";
import net from "node:net";
import { after, before, test } from "node:test";
import { cableSpec } from "./fixture.mjs";
import { Daemon, launchBrowser, openPage, waitInPage } from "./harness.mjs";

/** A TCP forwarder from a free loopback port to `port`: the "mapped" address. */
async function forwarder(port) {
  const sockets = new Set();
  const server = net.createServer((c) => {
    const up = net.connect({ port, host: "127.0.0.1" });
    for (const s of [c, up]) {
      sockets.add(s);
      s.on("error", () => {});
      s.on("close", () => (sockets.delete(s), c.destroy(), up.destroy()));
    }
    c.pipe(up);
    up.pipe(c);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: server.address().port,
    close: () => new Promise((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(resolve);
    }),
  };
}

let open, secured, browser, mapped, mappedSecured;
before(async () => {
  [open, secured, browser] = await Promise.all([
    new Daemon().start(),
    new Daemon({ env: { RODD_TOKENS: "operator:op-secret-123,viewer:view-secret-456" } }).start(),
    launchBrowser(),
  ]);
  secured.token = "op-secret-123";
  mapped = await forwarder(open.http);
  mappedSecured = await forwarder(secured.http);
});
after(async () => {
  await browser?.close();
  await mapped?.close();
  await mappedSecured?.close();
  for (const d of [open, secured]) {
    await d?.stop();
    d?.cleanup();
  }
});

/** Opens the session's page at the mapped port; the WebSocket URLs the page opened. */
async function watch(page, port, id) {
  const sockets = [];
  page.on("websocket", (ws) => sockets.push(ws.url()));
  await page.goto(`http://127.0.0.1:${port}/#/sessions/${id}`);
  return sockets;
}

test("through a mapped port alone, the viewer streams over that port", async () => {
  const s = (await open.api("POST", "/v1/sessions", { spec: cableSpec, start: true })).json;
  const page = await openPage(browser);
  const sockets = await watch(page, mapped.port, s.id);
  await waitInPage(page, () => window.__roddViewer.connection === "open" && window.__roddViewer.frames >= 10);
  assert.ok(sockets.length >= 1, "the page opened a stream");
  for (const u of sockets) {
    const url = new URL(u);
    assert.equal(`${url.protocol}//${url.host}${url.pathname}`, `ws://127.0.0.1:${mapped.port}/v1/sessions/${s.id}/stream`,
      "the stream went to the mapped port");
  }
  // and it keeps flowing
  const t0 = await page.evaluate(() => window.__roddViewer.frame.t);
  await waitInPage(page, (t) => window.__roddViewer.frame.t > t + 0.2, t0);
  assert.deepEqual(page.problems, []);
  await page.context().close();
});

test("with tokens, the ticket's stream URL names the mapped port too", async () => {
  const s = (await secured.api("POST", "/v1/sessions", { spec: cableSpec, start: true })).json;
  const page = await openPage(browser);
  const sockets = await watch(page, mappedSecured.port, s.id);
  await page.waitForSelector("#token-form:not([hidden])");
  await page.fill("#token", "view-secret-456");
  await page.click("#token-form button");
  await waitInPage(page, () => window.__roddViewer.connection === "open" && window.__roddViewer.frames >= 5);
  assert.ok(sockets.length >= 1);
  for (const u of sockets) {
    assert.equal(new URL(u).port, String(mappedSecured.port), `the stream went to the mapped port: ${u}`);
    assert.match(u, /[?&]ticket=/, "with its ticket");
  }
  await page.context().close();
});

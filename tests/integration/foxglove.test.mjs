// Foxglove and MCAP (issue 33, item 1): a recording downloaded as MCAP (?format=mcap and Accept:
// application/x-mcap) is read back by @mcap/core, every message valid against its schema and
// equal to the NDJSON download of the same frames (mcap_check.mjs).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { api, cableSpec, sleep, startDaemon } from "./daemon.mjs";

const here = path.dirname(new URL(import.meta.url).pathname);
let d, id, tmp;
before(async () => {
  d = await startDaemon({ streamPort: false });
  id = (await api(d, "POST", "/v1/sessions", { spec: cableSpec(), start: true, points: 11 })).json.id;
  tmp = mkdtempSync(path.join(os.tmpdir(), "rodd-fox-"));
  await sleep(400);
});
after(async () => {
  if (d) await d.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const bytes = async (p, headers = {}) => {
  const r = await fetch(d.url(p), { headers });
  return { status: r.status, type: r.headers.get("content-type"), disposition: r.headers.get("content-disposition"),
    body: Buffer.from(await r.arrayBuffer()) };
};

test("a recording as MCAP: every frame read back by @mcap/core, equal to the NDJSON", async () => {
  // a fixed range, so both downloads hold the same frames while the session runs on
  const s = await api(d, "GET", `/v1/sessions/${id}`);
  const to = s.json.t;
  assert.ok(to > 0, "the session has run");
  const ndjson = await bytes(`/v1/sessions/${id}/recording?to=${to}`);
  const mcap = await bytes(`/v1/sessions/${id}/recording?format=mcap&to=${to}`);
  assert.equal(mcap.status, 200);
  assert.equal(mcap.type, "application/x-mcap");
  assert.match(mcap.disposition, /\.mcap"$/);
  const byAccept = await bytes(`/v1/sessions/${id}/recording?to=${to}`, { accept: "application/x-mcap" });
  assert.equal(byAccept.type, "application/x-mcap");
  assert.deepEqual(byAccept.body, mcap.body, "the same file either way");
  writeFileSync(path.join(tmp, "r.mcap"), mcap.body);
  writeFileSync(path.join(tmp, "r.ndjson"), ndjson.body);
  const out = execFileSync("node", [path.join(here, "mcap_check.mjs"), path.join(tmp, "r.mcap"), path.join(tmp, "r.ndjson")],
    { encoding: "utf8" });
  const frames = ndjson.body.toString().trim().split("\n").length;
  assert.match(out, new RegExp(`all ${frames} frames read back`), out);
  assert.match(out, /channels: \/rod\/energy \/rod\/scene \/rod\/tip \/rod\/volume_change/, out);
});

test("?format= names mcap among the formats it allows", async () => {
  const r = await api(d, "GET", `/v1/sessions/${id}/recording?format=mcap2`);
  assert.equal(r.status, 400);
  assert.match(r.text, /ndjson, csv, hdf5 or mcap/);
});

// A recording's download as asked (issue 27, item 10): Accept's q values count (q=0 refuses a
// type, the highest q wins), and ?from=/?to= are decimal seconds (0x10 is refused, not 16).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { api, cableSpec, sleep, startDaemon } from "./daemon.mjs";

let d, id;
before(async () => {
  d = await startDaemon({ streamPort: false });
  id = (await api(d, "POST", "/v1/sessions", { spec: cableSpec(), start: true, points: 11 })).json.id;
  await sleep(300);
});
after(async () => d && (await d.stop()));

const download = (query, accept) => api(d, "GET", `/v1/sessions/${id}/recording${query}`, undefined, accept ? { accept } : {});

test("Accept's q values choose the format; q=0 refuses a type", async () => {
  const cases = [
    ["application/x-hdf5;q=0, text/csv", "text/csv"],
    ["application/x-hdf5;q=0.5, text/csv;q=0.9", "text/csv"],
    ["text/csv;q=0.2, application/x-hdf5", "application/x-hdf5"],
    ["text/csv, application/x-ndjson", "text/csv"],
    ["*/*;q=0.1, text/csv;q=0", "application/x-ndjson"],
    ["application/x-hdf5", "application/x-hdf5"],
  ];
  for (const [accept, type] of cases) {
    const r = await download("", accept);
    assert.equal(r.status, 200, accept);
    assert.equal(r.headers.get("content-type").split(";")[0], type, accept);
  }
  for (const accept of ["application/x-hdf5;q=0", "text/csv;q=0, application/x-ndjson;q=0, application/x-hdf5;q=0", "*/*;q=0"]) {
    const r = await download("", accept);
    assert.equal(r.status, 406, accept);
  }
});

test("?from= and ?to= are decimal numbers of seconds", async () => {
  for (const q of ["?from=0x10", "?to=0x1p4", "?from=inf", "?from=nan", "?from="]) {
    const r = await download(q);
    assert.equal(r.status, 400, q);
  }
  for (const q of ["?from=0", "?from=1e-3&to=1e9", "?from=-1.5", "?to=16"]) {
    const r = await download(q);
    assert.equal(r.status, 200, q);
  }
});

// Stream churn over real sockets, briefly (issue 27, item 4): tests/soak/stream_churn.py drives
// libmicrohttpd and libwebsockets through hundreds of streams that never read, from 20 source
// addresses, while one client opens and closes streams in every way (Close, reset, FIN, ping
// flood, read and go); the daemon must stay up, never hold more than max_streams, answer
// /livez and exit 0 on SIGTERM. `make soak` runs the issue's own reproducer and these for
// minutes. Before the fix the first variant crashed the release build within seconds.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";
import { rodd } from "./daemon.mjs";

const SCALE = Number(process.env.RODD_TEST_TIME_SCALE ?? 1);
const script = path.resolve(new URL("../soak/stream_churn.py", import.meta.url).pathname);

function churn(args) {
  return new Promise((resolve) => {
    const p = spawn("python3", [script, "--rodd", rodd, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    p.stdout.on("data", (b) => (out += b));
    p.stderr.on("data", (b) => (out += b));
    const timer = setTimeout(() => p.kill("SIGKILL"), 120000 * SCALE);
    p.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

const variants = [
  // 300 silent streams on the REST port and churn beside them, all admitted
  ["300 silent streams and churn on the REST port", ["--holders", "300", "--max-streams", "400", "--idle", "6", "--lead", "6", "--churn", "5"]],
  // the silent ones fill max_streams, the churn is refused at the limit until the idle drop
  // (which must come at stream_idle_timeout: under 20 s it used to mean 30)
  ["refusals at the limit, then idle drops, on the REST port", ["--holders", "100", "--max-streams", "64", "--idle", "6", "--lead", "1", "--churn", "4", "--expect-opened"]],
  ["refusals at the limit, then idle drops, on the stream port", ["--via", "stream", "--holders", "100", "--max-streams", "64", "--idle", "4", "--lead", "1", "--churn", "3", "--expect-opened"]],
];

for (const [name, args] of variants)
  test(`stream churn: ${name}`, async () => {
    const r = await churn(args);
    assert.equal(r.code, 0, r.out);
  });

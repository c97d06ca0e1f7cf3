// An open-loop REST load on a thread of its own (bench-load --reach): GET each of the URLs in
// turn at `rate` a second, each request sent when the schedule says whether or not earlier ones
// have answered, until told to stop; then the latencies (ms) and failures go back. Its own
// event loop, so the stream clients' work in the main thread does not add to what it measures.
import { parentPort, workerData } from "node:worker_threads";

const { urls, rate } = workerData;
const latencies = [];
let sent = 0, failed = 0, stop = false;
const inFlight = new Set();
parentPort.on("message", (m) => {
  if (m === "stop") stop = true;
});
const t0 = performance.now();
while (!stop) {
  const due = Math.floor(((performance.now() - t0) / 1000) * rate);
  for (; sent < due; sent++) {
    const q0 = performance.now();
    const p = fetch(urls[sent % urls.length])
      .then(async (r) => {
        await r.arrayBuffer();
        latencies.push(performance.now() - q0);
        if (r.status !== 200) failed++;
      })
      .catch(() => failed++);
    inFlight.add(p);
    p.finally(() => inFlight.delete(p));
  }
  await new Promise((r) => setTimeout(r, 2));
}
const wall = (performance.now() - t0) / 1000;
await Promise.all([...inFlight]);
parentPort.postMessage({ latencies, sent, failed, wall });

// An open-loop REST load on a thread of its own (bench-load --reach): GET each of the URLs in
// turn at `rate` a second, each sent when the schedule says whether or not earlier ones have
// answered; recorded from the "record" message on (its connections and code warm by then),
// until "stop"; then the latencies (ms), send times (s after "record") and failures go back.
// Its own event loop, so the stream clients' work in the main thread does not add to it.
import { parentPort, workerData } from "node:worker_threads";

const { urls, rate } = workerData;
const latencies = [], sentAt = [];
let sent = 0, failed = 0, stop = false, recordFrom = Infinity;
const inFlight = new Set();
parentPort.on("message", (m) => {
  if (m === "stop") stop = true;
  if (m === "record") recordFrom = performance.now();
});
const t0 = performance.now();
while (!stop) {
  const due = Math.floor(((performance.now() - t0) / 1000) * rate);
  for (; sent < due; sent++) {
    const q0 = performance.now();
    const p = fetch(urls[sent % urls.length])
      .then(async (r) => {
        await r.arrayBuffer();
        if (q0 < recordFrom) return;
        if (r.status !== 200) return void failed++; // as the C client counts them
        latencies.push(performance.now() - q0);
        sentAt.push((q0 - recordFrom) / 1000);
      })
      .catch(() => {
        if (q0 >= recordFrom) failed++;
      });
    inFlight.add(p);
    p.finally(() => inFlight.delete(p));
  }
  await new Promise((r) => setTimeout(r, 2));
}
const wall = (performance.now() - recordFrom) / 1000;
await Promise.all([...inFlight]);
parentPort.postMessage({ latencies, sentAt, sent: latencies.length + failed, failed, wall });

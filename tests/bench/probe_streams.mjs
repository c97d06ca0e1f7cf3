// bench-load --reach's frame-latency probes: JSON stream clients at `rate`, on a thread of their
// own. In the main thread their arrival times waited on its other work (100 :start requests
// through fetch at the start burst held them up to 190 ms: all of the p99), which is the
// client's, not the daemon's. On "record" the frames from then on count; on "stop" each
// frame's latency (arrival - publication, ms) with its publication time (s after "record")
// and simulated time goes back.
import { parentPort, workerData } from "node:worker_threads";
import { openStream } from "../integration/daemon.mjs";

const { urls, rate } = workerData;
const probes = [];
for (const u of urls) {
  const c = openStream(u);
  await c.ready;
  c.send({ op: "subscribe", rate, format: "json" });
  probes.push(c);
}
let from = null, recordAt = 0;
parentPort.on("message", (m) => {
  if (m === "record") {
    from = probes.map((c) => c.frames.length);
    recordAt = performance.timeOrigin + performance.now();
  }
  if (m === "stop") {
    const frames = [];
    probes.forEach((c, i) => {
      for (const f of c.frames.slice(from ? from[i] : 0))
        frames.push({ t: f.t, latency: f._at - f.published * 1000, at: (f.published * 1000 - recordAt) / 1000 });
    });
    for (const c of probes) c.close();
    parentPort.postMessage(frames);
  }
});
parentPort.postMessage("ready");

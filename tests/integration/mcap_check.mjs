// node mcap_check.mjs FILE.mcap [FRAMES.ndjson]: reads an MCAP file of rodd's with @mcap/core's
// indexed reader (summary and chunk CRCs checked; zstd chunks through @foxglove/wasm-zstd) and
// its stream reader (what a player reading front to back sees), checks the data section's CRC, decodes every message against its
// channel's JSON Schema (ajv) and, given the NDJSON of the same run, that every frame is there
// with the same numbers. Prints one line per check; exit status 1 on the first failure.
import { McapIndexedReader, McapStreamReader } from "@mcap/core";
import zstd from "@foxglove/wasm-zstd";
import Ajv from "ajv";
import { readFileSync } from "node:fs";
import { crc32 } from "node:zlib";

const [file, ndjson] = process.argv.slice(2);
const buf = readFileSync(file);
const fail = (msg) => { console.error(`FAIL ${msg}`); process.exit(1); };
const ok = (msg) => console.log(`ok ${msg}`);

await zstd.isLoaded;
const decompressHandlers = { zstd: (data, size) => zstd.decompress(data, Number(size)) };
const readable = {
  size: async () => BigInt(buf.length),
  read: async (offset, length) => buf.subarray(Number(offset), Number(offset + length)),
};
let reader;
try {
  reader = await McapIndexedReader.Initialize({ readable, decompressHandlers });
} catch (e) {
  fail(`indexed reader: ${e.message}`);
}
ok(`indexed reader opens it (summary CRC ${reader.footer.summaryCrc.toString(16)})`);
// the data section's CRC: every byte before the DataEnd record
const dataEnd = Number(reader.dataEndOffset);
if (crc32(buf.subarray(0, dataEnd)) !== reader.dataSectionCrc) fail("data section CRC");
ok("data section CRC");

const topics = [...reader.channelsById.values()].map((c) => c.topic).sort();
console.log(`channels: ${topics.join(" ")}`);
const ajv = new Ajv({ allErrors: true, strict: false });
const validators = new Map();
for (const [id, ch] of reader.channelsById) {
  const schema = reader.schemasById.get(ch.schemaId);
  if (ch.messageEncoding !== "json" || schema.encoding !== "jsonschema") fail(`${ch.topic}: encodings`);
  validators.set(id, ajv.compile(JSON.parse(new TextDecoder().decode(schema.data))));
}
const byTopic = new Map(topics.map((t) => [t, []]));
for await (const m of reader.readMessages({ validateCrcs: true })) {
  const ch = reader.channelsById.get(m.channelId);
  const msg = JSON.parse(new TextDecoder().decode(m.data));
  const v = validators.get(m.channelId);
  if (!v(msg)) fail(`${ch.topic} at ${m.logTime}: ${ajv.errorsText(v.errors)}`);
  byTopic.get(ch.topic).push({ logTime: m.logTime, msg });
}
const counts = [...byTopic].map(([t, l]) => `${t}=${l.length}`).join(" ");
const compression = [...new Set(reader.chunkIndexes.map((c) => c.compression || "none"))].join(",");
ok(`every message decodes against its schema (${counts}, chunks ${reader.chunkIndexes.length}, ${compression})`);

// front to back, as a player reading a stream does
const stream = new McapStreamReader({ validateCrcs: true, decompressHandlers });
stream.append(buf);
let streamed = 0, footer = false, rec;
while ((rec = stream.nextRecord())) {
  if (rec.type === "Message") streamed++;
  footer ||= rec.type === "Footer";
}
if (!footer || streamed !== Number(reader.statistics.messageCount)) fail(`stream reader: ${streamed} messages`);
ok(`stream reader reads ${streamed} messages to the end`);

if (ndjson) {
  const frames = readFileSync(ndjson, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  for (const [t, l] of byTopic) if (l.length !== frames.length) fail(`${t}: ${l.length} messages for ${frames.length} frames`);
  // a rod's scene entity against its points (the model's scene, or a rod's of several)
  const sameScene = (k, e, rod) => {
    if (e.lines[0].points.length !== rod.position.length || e.cylinders.length !== (rod.radius ? rod.position.length - 1 : 0))
      fail(`frame ${k}: ${e.lines[0].points.length} line points, ${e.cylinders.length} cylinders`);
    e.lines[0].points.forEach((p, i) => {
      if (p.x !== rod.position[i][0] || p.y !== rod.position[i][1] || p.z !== rod.position[i][2]) fail(`frame ${k}: point ${i}`);
    });
  };
  // several rods: each rod's scene and tip, and a joined rod's base: the position as written,
  // the orientation the frame's rotation (a quaternion's matrix, to its 10 digits)
  const rodsFrame = (f, k) => {
    for (const rod of f.rods) {
      const tip = byTopic.get(`/rods/${rod.name}/tip`)[k].msg, end = rod.position.at(-1);
      if (tip.t !== f.t || tip.x !== end[0] || tip.y !== end[1] || tip.z !== end[2]) fail(`frame ${k}: ${rod.name}'s tip`);
      sameScene(k, byTopic.get(`/rods/${rod.name}/scene`)[k].msg.entities[0], rod);
      const base = byTopic.get(`/rods/${rod.name}/base`);
      if (!rod.base !== !base) fail(`${rod.name}: a base in the NDJSON ${!!rod.base}, in the MCAP ${!!base}`);
      if (!base) continue;
      const { position: p, orientation: q } = base[k].msg.pose;
      if (p.x !== rod.base.position[0] || p.y !== rod.base.position[1] || p.z !== rod.base.position[2])
        fail(`frame ${k}: ${rod.name}'s base position`);
      const { x, y, z, w } = q;
      const R = [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
        2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
        2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)];
      R.forEach((v, i) => { if (Math.abs(v - rod.base.rotation[i]) > 1e-8) fail(`frame ${k}: ${rod.name}'s base R[${i}] ${v} vs ${rod.base.rotation[i]}`); });
    }
    bases += f.rods.filter((r) => r.base).length;
  };
  let bases = 0;
  frames.forEach((f, k) => {
    if (f.rods) return rodsFrame(f, k);
    const tip = f.position.at(-1);
    const m = byTopic.get("/rod/tip")[k];
    // logged at the simulated time to the ns; the NDJSON's t has 10 significant digits
    const off = Math.abs(Number(m.logTime) - f.t * 1e9) > Math.abs(f.t) * 0.6 + 1;
    if (off || m.msg.t !== f.t || m.msg.x !== tip[0] || m.msg.y !== tip[1] || m.msg.z !== tip[2])
      fail(`frame ${k}: tip ${JSON.stringify(m.msg)} against ${f.t} ${tip}`);
    const e = byTopic.get("/rod/scene")[k].msg.entities[0];
    sameScene(k, e, f);
    const r = f.radius && Math.max(f.radius[0], f.radius[1]);
    if (r && Math.abs(e.cylinders[0].size.x - 2 * r) > 1e-9 * r) fail(`frame ${k}: cylinder 0 diameter`);
    const en = byTopic.get("/rod/energy")?.[k]?.msg;
    if (en && (en.kinetic !== f.energy.kinetic || en.elastic !== f.energy.elastic || en.gravity !== f.energy.gravity))
      fail(`frame ${k}: energies`);
    const vc = byTopic.get("/rod/volume_change")?.[k]?.msg;
    if (vc && vc.volume_change !== f.volume_change) fail(`frame ${k}: volume change`);
  });
  ok(`all ${frames.length} frames read back, equal to the NDJSON's${bases ? ` (${bases} rod bases)` : ""}`);
}

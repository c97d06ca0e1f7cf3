// api/asyncapi.yaml: valid AsyncAPI 3 (the AsyncAPI parser, which resolves the payloads'
// references into openapi.yaml), no errors or warnings (infos and hints are printed), and
// the same messages as the x-websocket section of openapi.yaml.
import { Parser, fromFile } from "@asyncapi/parser";
import { readFileSync } from "node:fs";
import path from "node:path";
import YAML from "yaml";

const top = path.resolve(new URL("../..", import.meta.url).pathname);
const file = path.join(top, "api/asyncapi.yaml");
const parser = new Parser();
const { document, diagnostics } = await fromFile(parser, file).parse();
let bad = 0;
for (const d of diagnostics) {
  const where = (d.path ?? []).join("/");
  console.error(`${["error", "warning", "info", "hint"][d.severity] ?? d.severity} ${d.code}: ${d.message} at /${where}`);
  if (d.severity <= 1) bad++;
}
if (!document) {
  console.error("asyncapi: the document does not parse");
  process.exit(1);
}
const openapi = YAML.parse(readFileSync(path.join(top, "api/openapi.yaml"), "utf8"));
const xws = openapi["x-websocket"];
const fromOpenapi = [...Object.keys(xws["server-messages"]), ...Object.keys(xws["client-messages"])].sort();
const names = document.allMessages().all().map((m) => m.name()).filter((n) => n !== "binaryFrame").sort();
if (JSON.stringify(names) !== JSON.stringify(fromOpenapi)) {
  console.error(`asyncapi: messages ${names.join(", ")} but openapi's x-websocket has ${fromOpenapi.join(", ")}`);
  bad++;
}
// every JSON message's payload resolved to an object schema with its op
for (const m of document.allMessages().all()) {
  if (m.name() === "binaryFrame") continue;
  const p = m.payload()?.json();
  if (!p || p.type !== "object" || !p.properties?.op?.const) {
    console.error(`asyncapi: message ${m.name()} has no object payload with a constant op`);
    bad++;
  }
}
if (bad) process.exit(1);
console.log(`asyncapi: api/asyncapi.yaml is valid AsyncAPI ${document.version()}, ${names.length + 1} messages, agreeing with openapi.yaml`);

// Every example in api/examples must satisfy api/spec.schema.json, and every spec in
// tests/schema/invalid must break it: checked with ajv, a JSON Schema implementation
// independent of rodd's parser (which run.sh runs on the same files).
import Ajv2020 from "ajv/dist/2020.js";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

const root = new URL("../../", import.meta.url).pathname;
const schema = JSON.parse(readFileSync(join(root, "api/spec.schema.json"), "utf8"));
// strictRequired off: the if/then rules name properties defined one level up
const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
const validate = ajv.compile(schema);

let failures = 0;
function check(dir, wantValid) {
  const files = readdirSync(join(root, dir)).filter((f) => f.endsWith(".json")).sort();
  if (files.length === 0) {
    console.error(`no specs in ${dir}`);
    failures++;
  }
  for (const f of files) {
    const spec = JSON.parse(readFileSync(join(root, dir, f), "utf8"));
    const ok = validate(spec);
    if (ok !== wantValid) {
      failures++;
      console.error(`${dir}/${f}: expected ${wantValid ? "valid" : "invalid"} under the schema`);
      if (!ok) for (const e of validate.errors) console.error(`  ${e.instancePath} ${e.message}`);
    } else {
      console.log(`ok ${dir}/${f} (${wantValid ? "valid" : "invalid"})`);
    }
  }
}
check("api/examples", true);
check("tests/schema/invalid", false);
process.exit(failures ? 1 : 0);

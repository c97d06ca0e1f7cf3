// One reaching run's tip against the authors' reference CSV, at every stored time:
//   node authors_compare.mjs REFERENCE.csv CHOICES.ndjson WITHOUT.ndjson PREFIX WITHOUT_LABEL
// CHOICES (the spec with the authors' choices) must stay within 0.2 cm of their run at every
// time; WITHOUT (the same spec without the choice under test) must NOT come that close, so the
// comparison tells them apart (tests/validation/authors.sh says why 2 mm).
import fs from "node:fs";

const [csvPath, choicesFile, withoutFile, prefix, withoutLabel] = process.argv.slice(2);
const rows = fs.readFileSync(csvPath, "utf8").trim().split("\n");
const head = rows.shift().split(",");
const col = (name) => head.indexOf(name);
const ref = new Map(rows.map((r) => r.split(",").map(Number)).map((v) => [Math.round(v[col("t_s")] * 100), v]));
function worst(file) {
  let max = 0, at = -1, n = 0;
  for (const line of fs.readFileSync(file, "utf8").trim().split("\n")) {
    const f = JSON.parse(line), key = Math.round(f.t * 100), r = ref.get(key);
    if (!r || Math.abs(f.t * 100 - key) > 1e-6) continue;
    const tip = f.position[f.position.length - 1];
    const d = Math.hypot(100 * tip[2] - r[col("tip_axial_cm")], 100 * tip[0] - r[col("tip_lateral_cm")]);
    n++;
    if (d > max) { max = d; at = f.t; }
  }
  return { max, at, n };
}
const a = worst(choicesFile), b = worst(withoutFile);
const okA = a.n === ref.size && a.max <= 0.2;
console.log(`${okA ? "ok  " : "FAIL"} ${prefix}authors' choices: tip within ${a.max.toFixed(3)} cm of their run (worst at t = ${a.at.toFixed(2)} s, ${a.n}/${ref.size} times; limit 0.2 cm)`);
const okB = b.n === ref.size && b.max > 0.2;
console.log(`${okB ? "ok  " : "FAIL"} ${prefix}${withoutLabel}: tip ${b.max.toFixed(3)} cm from their run at worst (t = ${b.at.toFixed(2)} s), more than 0.2 cm`);
process.exit(okA && okB ? 0 : 1);

#!/usr/bin/env bash
# The authors' reaching run reproduced: api/examples/octopus-reaching-authors.json against
# their own code's result (reference/authors-reaching.csv). The tip must stay within 2 mm of
# theirs at every stored time (351 times, 0 to 3.5 s). 2 mm is 0.4 % of the arm: their ode15s
# ran at RelTol 1e-3, which on a tip 25 to 40 cm from the base admits errors of a few tenths of a
# millimetre per step, and it is well inside the 0.9 to 2.5 cm that separate rodd's defaults
# from their code. The same spec without the authors' choices must NOT come that close, so the
# comparison tells them apart.
set -euo pipefail
build=${BUILD:-build}
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
spec=api/examples/octopus-reaching-authors.json
"$build/rodd" run "$spec" --until 3.5 --every 0.01 --points 11 > "$tmp/authors.ndjson" 2> "$tmp/err" \
  || { cat "$tmp/err" >&2; exit 1; }
"$build/rodd" run "$spec" --until 3.5 --every 0.01 --points 11 --set rod.inertia=conserving \
  --set authors_code={} > "$tmp/rodd.ndjson" 2> "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
node - "$tmp" "$here/reference/authors-reaching.csv" <<'JS'
const fs = require("fs");
const [dir, csvPath] = process.argv.slice(2);
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
let bad = 0;
const a = worst(`${dir}/authors.ndjson`), b = worst(`${dir}/rodd.ndjson`);
const okA = a.n === ref.size && a.max <= 0.2;
console.log(`${okA ? "ok  " : "FAIL"} authors' choices: tip within ${a.max.toFixed(3)} cm of their run (worst at t = ${a.at.toFixed(2)} s, ${a.n}/${ref.size} times; limit 0.2 cm)`);
const okB = b.n === ref.size && b.max > 0.2;
console.log(`${okB ? "ok  " : "FAIL"} rodd's defaults: tip ${b.max.toFixed(3)} cm from their run at worst (t = ${b.at.toFixed(2)} s), more than 0.2 cm`);
process.exit(okA && okB ? 0 : 1);
JS

# The same without the transverse muscle (their main.m with the TM off, the static start also
# without it), against reference/authors-reaching-no-tm.csv: rho departs far more from 1 there
# (-14 % volume at t = 0), so their M_dot slip (authors_code.mass_rate_slip) shows: 0.71 cm
# without it. Same 2 mm limit, for the same reason.
spec=api/examples/octopus-reaching-no-tm-authors.json
"$build/rodd" run "$spec" --until 3.5 --every 0.01 --points 11 > "$tmp/notm.ndjson" 2> "$tmp/err" \
  || { cat "$tmp/err" >&2; exit 1; }
"$build/rodd" run "$spec" --until 3.5 --every 0.01 --points 11 --set authors_code.mass_rate_slip=false \
  > "$tmp/notm-noslip.ndjson" 2> "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
node - "$tmp" "$here/reference/authors-reaching-no-tm.csv" <<'JS'
const fs = require("fs");
const [dir, csvPath] = process.argv.slice(2);
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
const a = worst(`${dir}/notm.ndjson`), b = worst(`${dir}/notm-noslip.ndjson`);
const okA = a.n === ref.size && a.max <= 0.2;
console.log(`${okA ? "ok  " : "FAIL"} no TM, authors' choices: tip within ${a.max.toFixed(3)} cm of their run (worst at t = ${a.at.toFixed(2)} s, ${a.n}/${ref.size} times; limit 0.2 cm)`);
const okB = b.n === ref.size && b.max > 0.2;
console.log(`${okB ? "ok  " : "FAIL"} no TM, without the M_dot slip: tip ${b.max.toFixed(3)} cm from their run at worst (t = ${b.at.toFixed(2)} s), more than 0.2 cm`);
process.exit(okA && okB ? 0 : 1);
JS

#!/usr/bin/env bash
# Sec. 5.2's reaching runs against the published figures: the arm's elongation, the bend
# point's travel and speed, and the volume change of the three models. The tolerances are the
# measured differences rounded up (see the issue notes for why they differ): the authors ran a
# coarser discretization (20 Gauss points, one Zanna step each), their arm length sums to 1.01 L,
# and our section conserves its mass and the cables do work on the inflation.
set -euo pipefail
build=${BUILD:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for v in reaching reaching-no-tm reaching-classic; do
  "$build/rodd" run "api/examples/octopus-$v.json" --until 3.5 --every 0.01 --points 101 \
    > "$tmp/$v.ndjson" 2> "$tmp/$v.err" || { cat "$tmp/$v.err" >&2; exit 1; }
  "$build/octopus_metrics" < "$tmp/$v.ndjson" > "$tmp/$v.json"
done
node - "$tmp" <<'JS'
const fs = require("fs");
const dir = process.argv[2];
const m = (v) => JSON.parse(fs.readFileSync(`${dir}/${v}.json`, "utf8"));
const ext = m("reaching"), notm = m("reaching-no-tm"), cls = m("reaching-classic");
let bad = 0;
function near(what, got, want, tol) {
  const ok = Math.abs(got - want) <= tol;
  console.log(`${ok ? "ok  " : "FAIL"} ${what}: ${got.toFixed(2)} vs published ${want} (within ${tol})`);
  if (!ok) bad++;
}
near("arm length at t = 0, cm (x1.01 as the authors sum)", 1.01 * ext.arm_length_start_cm, 48.06, 1.0);
near("arm length at t = 3.5 s, cm (x1.01)", 1.01 * ext.arm_length_end_cm, 56.22, 1.0);
near("bend point travel (quintic fit), cm", ext.bend_point_travel_quintic_cm, 40.70, 2.5);
near("peak bend point speed, cm/s", ext.bend_point_peak_speed_cm_s, 24.29, 2.0);
near("time of the peak, s", ext.bend_point_peak_speed_time_s, 1.49, 0.15);
near("bend point speed when it ends, cm/s", ext.bend_point_end_speed_cm_s, 10.39, 2.5);
near("largest volume change, extended with TM, %", ext.volume_change_min_pct, -2.99, 0.3);
near("volume change at t = 0, no TM, % (authors' table)", notm.volume_change_start_pct, -14.32, 0.5);
near("largest volume change, no TM, %", notm.volume_change_min_pct, -16.04, 0.5);
near("final volume change, no TM, %", notm.volume_change_end_pct, -2.98, 0.3);
near("volume change at t = 0, classic, % (authors' table)", cls.volume_change_start_pct, -28.85, 1.0);
near("largest volume change, classic, % (authors' table)", cls.volume_change_min_pct, -34.06, 1.0);
near("final volume change, classic, %", cls.volume_change_end_pct, -18.14, 1.0);
if (ext.bend_point_end_s_cm <= ext.bend_point_start_s_cm + 20) { console.log("FAIL the bend did not travel toward the tip"); bad++; }
process.exit(bad ? 1 : 0);
JS

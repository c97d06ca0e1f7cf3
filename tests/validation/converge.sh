#!/usr/bin/env bash
# rodd converge's estimates against the true error, measured from a converged run: the static
# elastica (bend2 3 under a tip force F L^2 / EI = 9.5), Bathe and Bolourchi's 45-degree bend
# (rest curvature, bend1, bend2, twist 3, its tip load of 600 out of plane), a heavy cantilever falling under
# gravity (bend2 1, 0.2 s) and the reaching arm (octopus-reaching.json, 0.1 s: its t = 0 pose
# carries the largest error of the whole run), and the fetching arm's t = 0 pose. Each estimate, tip and shape, must be within a
# factor of two of the truth, as `rodd converge` promises.
set -euo pipefail
build=${BUILD:-build}
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rodd=$build/rodd
hi_rtol="--set solver.rtol=1e-10 --set solver.atol=1e-12"
run() { "$@" 2> "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }; }

# static elastica
run "$rodd" converge "$here/converge/elastica.json" > "$tmp/e.json"
run "$rodd" solve "$here/converge/elastica.json" > "$tmp/e0.json"
run "$rodd" solve "$here/converge/elastica.json" --set strains.bend2=24 --set discretization.points=200 > "$tmp/eT.json"
# Bathe and Bolourchi's 45-degree bend (a rest curvature) under its load out of plane
run "$rodd" converge "$here/converge/bathe-bend.json" > "$tmp/b.json"
run "$rodd" solve "$here/converge/bathe-bend.json" > "$tmp/b0.json"
run "$rodd" solve "$here/converge/bathe-bend.json" --set strains.bend1=16 --set strains.bend2=16 \
  --set strains.twist=16 --set discretization.points=200 > "$tmp/bT.json"
# cantilever under gravity, dynamics
run "$rodd" converge "$here/converge/cantilever-gravity.json" --until 0.2 --every 0.02 > "$tmp/c.json"
run "$rodd" run "$here/converge/cantilever-gravity.json" --until 0.2 --every 0.02 > "$tmp/c0.ndjson"
run "$rodd" run "$here/converge/cantilever-gravity.json" --until 0.2 --every 0.02 --set strains.bend2=14 \
  --set discretization.points=120 $hi_rtol > "$tmp/cT.ndjson"
# reaching, the issue's converged discretization
spec=api/examples/octopus-reaching.json
run "$rodd" converge "$spec" --until 0.1 --every 0.05 > "$tmp/r.json"
run "$rodd" run "$spec" --until 0.1 --every 0.05 > "$tmp/r0.ndjson"
run "$rodd" run "$spec" --until 0.1 --every 0.05 --set strains.bend2=30 --set strains.stretch=30 \
  --set inflation.pieces=50 --set discretization.points=600 > "$tmp/rT.ndjson"

# the fetching arm's t = 0 pose: three dimensions, inflation and sharp (sigma = 200) activations
spec=api/examples/octopus-fetching.json
run "$rodd" converge "$spec" > "$tmp/f.json"
run "$rodd" solve "$spec" > "$tmp/f0.json"
run "$rodd" solve "$spec" --set strains.bend1=30 --set strains.bend2=30 --set strains.twist=30 \
  --set strains.stretch=30 --set inflation.pieces=50 --set discretization.points=600 > "$tmp/fT.json"

node - "$tmp" <<'JS'
const fs = require("fs");
const dir = process.argv[2];
const frames = (f) => f.endsWith(".ndjson")
  ? fs.readFileSync(`${dir}/${f}`, "utf8").trim().split("\n").map((l) => JSON.parse(l))
  : [JSON.parse(fs.readFileSync(`${dir}/${f}`, "utf8")).frame];
const dist = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
function truth(base, conv) {
  const a = frames(base), b = frames(conv);
  if (a.length !== b.length) throw new Error(`${base}: ${a.length} frames, ${conv}: ${b.length}`);
  let tip = 0, shape = 0;
  a.forEach((fa, k) => {
    const pa = fa.position, pb = b[k].position;
    tip = Math.max(tip, dist(pa[pa.length - 1], pb[pb.length - 1]));
    pa.forEach((p, j) => { shape = Math.max(shape, dist(p, pb[j])); });
  });
  return { tip, shape };
}
let bad = 0;
for (const [name, est, base, conv] of [["static elastica", "e.json", "e0.json", "eT.json"],
  ["45-degree bend (rest curvature)", "b.json", "b0.json", "bT.json"],
  ["cantilever under gravity", "c.json", "c0.ndjson", "cT.ndjson"],
  ["reaching arm", "r.json", "r0.ndjson", "rT.ndjson"],
  ["fetching arm at t = 0", "f.json", "f0.json", "fT.json"]]) {
  const e = JSON.parse(fs.readFileSync(`${dir}/${est}`, "utf8")), t = truth(base, conv);
  for (const what of ["tip", "shape"]) {
    const got = e[`${what}_error_estimate`], want = t[what], r = got / want;
    const ok = r >= 0.5 && r <= 2;
    if (!ok) bad++;
    console.log(`${ok ? "ok  " : "FAIL"} ${name}: ${what} error estimate ${got.toExponential(3)} m, true ${want.toExponential(3)} m (ratio ${r.toFixed(3)}, ${e.runs.length} levels)`);
  }
}
process.exit(bad ? 1 : 0);
JS

#!/usr/bin/env bash
# A model of several rods (issue 29) through the command line's outputs: rodd run's NDJSON
# ("rods" per FRAME, the joint's reaction), CSV (a rod column, the same numbers), HDF5 (a group
# per rod, read back by the Python client beside the NDJSON), MCAP (a scene and a tip channel
# per rod, a joined rod's base pose), a joined rod's base in CSV, HDF5 and MCAP, rodd solve's FRAME,
# rodd sweep and rodd optimize against the linear cantilever, rodd converge refused.
set -uo pipefail
# shellcheck source=tests/cli/lib.sh
source "$(dirname "$0")/lib.sh"
spec=$here/rods.json
py=/usr/bin/python3
run=(run "$spec" --until 0.02 --every 0.005 --points 6)

expect "run: NDJSON of two rods" 0 "$rodd" "${run[@]}"
cp "$tmp/out" "$tmp/a.ndjson"
"$py" - "$tmp/a.ndjson" <<'PY' && pass "each FRAME holds both rods by name, the joint's reaction, the child's base at the parent's tip" || fail "NDJSON rods"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert len(lines) == 5, len(lines)
for d in lines:
    assert "s" not in d and "position" not in d, sorted(d)
    assert [r["name"] for r in d["rods"]] == ["upper", "lower"]
    for r in d["rods"]:
        for k in ("s", "position", "rotation", "rho", "radius", "kappa", "nu"):
            assert len(r[k]) == 6, (r["name"], k)
    up, lo = d["rods"]
    # a fixed joint: the lower rod starts where the upper one ends (multipliers, 10 digits)
    assert all(abs(a - b) < 1e-6 for a, b in zip(up["position"][-1], lo["position"][0])), (up["position"][-1], lo["position"][0])
    assert "lower.base" in d["constraints"], d.get("constraints")
    assert set(d["energy"]) == {"kinetic", "elastic", "gravity"}
PY

expect "run: CSV of two rods" 0 "$rodd" "${run[@]}" --format csv
"$py" - "$tmp/out" "$tmp/a.ndjson" <<'PY' && pass "CSV: a rod column, rows rod by rod, the NDJSON's numbers" || fail "CSV rods"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
frames = [json.loads(l) for l in open(sys.argv[2])]
assert list(rows[0])[:3] == ["t", "rod", "point"], list(rows[0])[:3]
assert len(rows) == 5 * 2 * 6, len(rows)
k = 0
for d in frames:
    for r in d["rods"]:
        for i in range(6):
            row = rows[k]; k += 1
            assert row["rod"] == r["name"] and int(row["point"]) == i, (row["rod"], row["point"])
            assert [float(row[c]) for c in "xyz"] == r["position"][i], (row, r["position"][i])
            assert float(row["constraints.lower.base.force_z"]) == d["constraints"]["lower.base"]["force"][2]
PY

expect "run: HDF5 of two rods" 0 "$rodd" "${run[@]}" --format hdf5 --out "$tmp/a.h5"
PYTHONPATH=$top/clients/python/src "$py" - "$tmp/a.h5" "$tmp/a.ndjson" <<'PY' && pass "HDF5: rods/upper and rods/lower, the NDJSON's values (Recording.rods)" || fail "HDF5 rods"
import sys
import numpy as np
import rodd
h = rodd.Recording.from_hdf5(open(sys.argv[1], "rb").read())
j = rodd.Recording.from_ndjson(open(sys.argv[2], "rb").read())
assert list(h.rods) == ["upper", "lower"] == list(j.rods), (list(h.rods), list(j.rods))
assert h.position is None
for name in h.rods:
    for k in ("s", "position", "rotation", "rho", "radius", "kappa", "nu"):
        a, b = getattr(h.rod(name), k), getattr(j.rod(name), k)
        assert a.shape == b.shape, (name, k, a.shape, b.shape)
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
assert h.units["rods/lower/position"] == "m"
np.testing.assert_allclose(h.constraints["lower.base"]["force"], j.constraints["lower.base"]["force"], rtol=1e-9, atol=1e-12)
PY

expect "run: MCAP of two rods" 0 "$rodd" "${run[@]}" --format mcap --out "$tmp/a.mcap"
topics=$(grep -a -o '/rods\?/[a-z_]*\(/[a-z]*\)\?' "$tmp/a.mcap" | sort -u | tr '\n' ' ')
[ "$topics" = "/rod/energy /rod/volume_change /rods/lower/base /rods/lower/scene /rods/lower/tip /rods/upper/scene /rods/upper/tip " ] \
  && pass "MCAP: a scene and a tip channel per rod, the joined rod's base, the model's energy" || fail "MCAP topics: $topics"

# a joined rod's base pose in every format (the NDJSON's rods[].base): a ball joint with the
# child turned 2.5 rad about (1, 1, 0), so that its base moves and turns under gravity
"$py" - "$spec" "$tmp/ball.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["rods"][1]["base"].update({"joint": "ball", "rotation": {"axis": [1, 1, 0], "angle": 2.5}})
json.dump(s, open(sys.argv[2], "w"))
PY
ball=(run "$tmp/ball.json" --until 0.05 --every 0.01 --points 6)
"$rodd" "${ball[@]}" >"$tmp/ball.ndjson" 2>/dev/null
"$rodd" "${ball[@]}" --format csv --out "$tmp/ball.csv" 2>/dev/null
"$rodd" "${ball[@]}" --format hdf5 --out "$tmp/ball.h5" 2>/dev/null
"$rodd" "${ball[@]}" --format mcap --out "$tmp/ball.mcap" 2>/dev/null
PYTHONPATH=$top/clients/python/src "$py" - "$tmp/ball.ndjson" "$tmp/ball.csv" "$tmp/ball.h5" <<'PY' && pass "a joined rod's base: CSV's base columns on its rows, HDF5's rods/lower/base, the NDJSON's" || fail "rod bases in CSV/HDF5"
import csv, json, sys
import numpy as np
import rodd
frames = [json.loads(l) for l in open(sys.argv[1])]
assert len(frames) == 6
assert all("base" not in d["rods"][0] and "base" in d["rods"][1] for d in frames)
assert abs(frames[-1]["rods"][1]["base"]["position"][0]) > 1e-3, "the base has moved"
cols = ["base." + c for c in "xyz"] + [f"base.r{a}{b}" for a in (1, 2, 3) for b in (1, 2, 3)]
rows = list(csv.DictReader(open(sys.argv[2])))
assert len(rows) == 6 * 2 * 6, len(rows)
for k, row in enumerate(rows):
    d = frames[k // 12]
    if row["rod"] == "upper":
        assert all(row[c] == "" for c in cols), row  # a fixed base: empty
    else:
        b = d["rods"][1]["base"]
        assert [float(row[c]) for c in cols] == b["position"] + b["rotation"], (row, b)
h = rodd.Recording.from_hdf5(open(sys.argv[3], "rb").read())
j = rodd.Recording.from_ndjson(open(sys.argv[1], "rb").read())
assert h.rod("upper").base is None and j.rod("upper").base is None
for k in ("position", "rotation"):
    np.testing.assert_allclose(h.rod("lower").base[k], j.rod("lower").base[k], rtol=1e-9, atol=1e-12)
assert h.units["rods/lower/base/position"] == "m", sorted(h.units)
PY
# its MCAP reader (@mcap/core) lives with the integration tests: installed here when this runs alone
[ -d "$top/tests/integration/node_modules/@mcap/core" ] || (cd "$top/tests/integration" && npm ci --no-audit --no-fund --silent)
node "$top/tests/integration/mcap_check.mjs" "$tmp/ball.mcap" "$tmp/ball.ndjson" >"$tmp/check" 2>&1 \
  && grep -q "(6 rod bases)" "$tmp/check" && pass "MCAP: /rods/lower/base, the NDJSON's base pose ($(grep -c . "$tmp/check") checks)" \
  || { fail "MCAP rod base"; cat "$tmp/check" >&2; }

expect "solve: two rods" 0 "$rodd" solve "$spec" --points 5
"$py" -c 'import json,sys; d=json.load(open(sys.argv[1]))["frame"]; assert [r["name"] for r in d["rods"]] == ["upper","lower"] and len(d["rods"][1]["s"]) == 5' "$tmp/out" \
  && pass "solve's FRAME holds the rods" || fail "solve rods: $(head -c 300 "$tmp/out")"

# sweep and optimize over several rods, against the linear cantilever: the upper rod (a = 0.25 m,
# EI = E pi r^4/4) carries its own weight w per metre, the lower rod's weight P = w b at its tip
# and that weight's moment M = P b/2 there (g sideways), so its tip moves
#   x = w a^4/(8 EI) + P a^3/(3 EI) + M a^2/(2 EI)
# whatever the lower rod's stiffness. Its curvature is quadratic in s: the bending degree 2 holds
# it exactly, so what is left is the geometric nonlinearity, (x/a)^2 = 2e-5 relative at g/1000:
# compared to 1e-4.
side=(--set 'environment.gravity=[0.00981,0,0]')
expect "sweep: two rods, the upper rod's stiffness" 0 "$rodd" sweep "$spec" "${side[@]}" \
  --grid 'rods.0.rod.youngs_modulus=1e6,2e6' --grid 'rods.1.rod.youngs_modulus=1e6,4e6' --out "$tmp/sw"
"$py" - "$tmp/sw" <<'PY' && pass "sweep: tip_x is the first rod's, the linear cantilever's to 1e-4 whatever the second's stiffness" || fail "sweep of two rods"
import csv, json, math, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/results.csv")))
assert len(rows) == 4 and all(r["status"] == "ok" for r in rows), rows
rho, r, g, a, b = 1000, 0.01, 0.00981, 0.25, 0.25
w = rho * math.pi * r * r * g
P = w * b
for row in rows:
    EI = float(row["rods.0.rod.youngs_modulus"]) * math.pi * r**4 / 4
    x = w * a**4 / (8 * EI) + P * a**3 / (3 * EI) + P * b * a**2 / (4 * EI)
    assert abs(float(row["tip_x"]) / x - 1) < 1e-4, (row, x)
    point = json.load(open(f"{sys.argv[1]}/point-{int(row['index']):05d}.json"))
    assert abs(float(row["tip_x"]) / point["frame"]["rods"][0]["position"][-1][0] - 1) < 1e-9  # 10 digits there
PY

# optimize: the upper rod's stiffness that puts its tip at x = 0.8 mm, E = C / x by the
# formula above; upper.tip_x is tip_x, each rod's quantities by name
expect "optimize: two rods, upper.tip_x to 0.8 mm" 0 "$rodd" optimize "$spec" "${side[@]}" \
  --vary 'rods.0.rod.youngs_modulus=5e5:4e6' --minimize '1e6*(upper.tip_x-0.0008)^2' --method bobyqa --evaluations 100
"$py" - "$tmp/out" <<'PY' && pass "optimize: the linear cantilever's stiffness to 1e-4" || fail "optimize two rods: $(cat "$tmp/out")"
import json, math, sys
d = json.load(open(sys.argv[1]))
rho, r, g, a, b = 1000, 0.01, 0.00981, 0.25, 0.25
w = rho * math.pi * r * r * g
P = w * b
I = math.pi * r**4 / 4
E = (w * a**4 / 8 + P * a**3 / 3 + P * b * a**2 / 4) / (I * 0.0008)
got = d["best"]["rods.0.rod.youngs_modulus"]
assert abs(got / E - 1) < 1e-4 and d["failed"] == 0, (got, E, d)
PY
expect "optimize: tip_x is upper.tip_x, lower.com_x a rod's own" 0 "$rodd" optimize "$spec" "${side[@]}" \
  --vary 'rods.0.rod.youngs_modulus=5e5:4e6' --minimize '(tip_x-upper.tip_x)^2+(lower.com_x-lower.com_x)^2-upper.tip_z' \
  --method bobyqa --evaluations 12
"$py" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert abs(d["objective"] + 0.25) < 1e-4, d' "$tmp/out" \
  && pass "  the objective is -upper.tip_z (0.25 m up)" || fail "quantities by rod: $(cat "$tmp/out")"
expect "optimize: an unknown rod's quantity" 64 "$rodd" optimize "$spec" --vary 'rods.0.rod.youngs_modulus=5e5:4e6' \
  --minimize 'middle.tip_x'
grep -q "each rod's ROD.tip_x" "$tmp/err" && pass "  says what names there are" || fail "unknown rod message: $(cat "$tmp/err")"
expect "optimize: a rod's velocity in statics" 64 "$rodd" optimize "$spec" --vary 'rods.0.rod.youngs_modulus=5e5:4e6' \
  --minimize 'lower.com_vx'
grep -q "lower.com_vx is a velocity over the run: it needs --until" "$tmp/err" && pass "  lower.com_vx needs --until" \
  || fail "velocity message: $(cat "$tmp/err")"

expect "converge refuses several rods" 1 "$rodd" converge "$spec"
grep -q "rodd converge: a model of several rods is not supported yet: it refines one rod's strains" "$tmp/err" \
  && pass "converge says why" || fail "converge message: $(cat "$tmp/err")"

# a --grid path the spec cannot hold is refused before any point runs (every point was bad_spec)
for g in 'rods.0.rod.nosuch' 'rod.length' 'rods.5.rod.length'; do
  expect "sweep --grid $g refused" 64 "$rodd" sweep "$spec" --grid "$g=1,2" --out "$tmp/swbad"
  grep -q "rodd sweep: --grid $g: " "$tmp/err" && [ ! -e "$tmp/swbad" ] \
    && pass "  names it ($(head -c 90 "$tmp/err")), nothing ran" || fail "grid $g: $(cat "$tmp/err")"
done
expect "sweep: a bad value at a good path still runs (bad_spec points)" 1 "$rodd" sweep "$spec" \
  --grid 'rods.0.rod.youngs_modulus=-1,1e6' --out "$tmp/swval"
grep -c '"ok"' "$tmp/swval/results.csv" | grep -qx 1 && pass "  one point ok, one bad_spec" || fail "bad value sweep"

[ "$fails" -eq 0 ] || { echo "$fails failed" >&2; exit 1; }

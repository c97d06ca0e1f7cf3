#!/usr/bin/env bash
# The command line as DESIGN.md specifies it: exit codes, stdout carrying the JSON result and
# nothing else, diagnostics on stderr.
set -uo pipefail
# shellcheck source=tests/cli/lib.sh
source "$(dirname "$0")/lib.sh"
is_json() { python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null; }

ex=$top/api/examples/stiffness-tuning.json
expect "check accepts the example" 0 "$rodd" check "$ex"
is_json "$tmp/out" && pass "check prints JSON" || fail "check stdout is not JSON"

expect "solve the example" 0 "$rodd" solve "$ex"
is_json "$tmp/out" && pass "solve stdout is one JSON document" || fail "solve stdout is not JSON"
python3 - "$tmp/out" <<'PY' && pass "solve result has the contract's keys" || fail "solve result keys"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["converged"] is True and d["iterations"] >= 1 and d["residual"] < 1e-9
assert d["error_indicator"] >= 0
assert len(d["q"]) == 5
f = d["frame"]
for k in ["t", "s", "position", "rotation", "rho", "radius", "kappa", "nu", "energy", "volume_change"]:
    assert k in f, k
assert len(f["s"]) == 51 and len(f["position"]) == 51 and len(f["rotation"][0]) == 9
assert set(f["energy"]) == {"kinetic", "elastic", "gravity"}
PY
grep -q "converged" "$tmp/err" && pass "solve reports iterations on stderr" || fail "solve stderr"

# the ring's static start: its circle holds the bending moment 2 pi E I / L at the closure and
# no twisting moment (the kick that would turn it about its tangent starts after t = 0)
expect "solve the twisted ring at t = 0" 0 "$rodd" solve "$top/api/examples/twisted-ring.json" --points 3
python3 - "$tmp/out" <<'PY' && pass "the ring's closure holds 2 pi EI / L" || fail "the ring's closure moment"
import json, math, sys
d = json.load(open(sys.argv[1]))
assert d["converged"] is True
m = d["frame"]["constraints"]["ring"]["moment"]
EI = 1e6 * math.pi * 0.01**4 / 4
assert abs(math.hypot(*m) - 2 * math.pi * EI) < 1e-6 * 2 * math.pi * EI, m
assert abs(m[2]) < 1e-9 * 2 * math.pi * EI, m
PY

# converge refines a spec with a solver.guess: the guess is laid out for the refined bases (its
# strains' coefficients kept, the added degrees 0); the ring is an exact circle at every level
expect "converge a spec with a guess" 0 "$rodd" converge "$top/api/examples/twisted-ring.json" --levels 1 --points 5
python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); assert d["tip_error_estimate"] < 1e-9 and len(d["runs"]) == 2, d' "$tmp/out" \
  && pass "the refined ring is the same circle" || fail "converge with a guess"

expect "--points sets the output points" 0 "$rodd" solve "$ex" --points 7
python3 -c 'import json,sys; assert len(json.load(open(sys.argv[1]))["frame"]["s"]) == 7' "$tmp/out" \
  && pass "--points 7 gives 7 points" || fail "--points"

expect "--set overrides a value" 0 "$rodd" solve "$ex" --set actuators.4.pressure=0 --points 2
python3 - "$tmp/out" <<'PY' && pass "--set changes the result as the bar's law says" || fail "--set result"
import json, sys, math
d = json.load(open(sys.argv[1]))
z = d["frame"]["position"][-1][2]
A = math.pi * 0.0075**2
assert abs((0.5 - z) - 1.0 * 0.5 / (1e5 * A)) < 1e-8, z
PY

printf '{"model": "classic", "rod": {"length": 0.5, "radius": 0.01, "density": 1000, "youngs_modulus": 1e5, "poisson_ratio": 0.7}, "strains": {"bend2": 3}, "zzz": 1}' >"$tmp/bad.json"
expect "check refuses a bad spec with 2" 2 "$rodd" check "$tmp/bad.json"
[ ! -s "$tmp/out" ] && pass "nothing on stdout for a bad spec" || fail "stdout not empty for a bad spec"
grep -q "/rod/poisson_ratio: must be in (-1, 0.5)" "$tmp/err" && grep -q "/zzz: unknown key" "$tmp/err" \
  && pass "every error named by its JSON path" || { fail "error paths"; cat "$tmp/err" >&2; }
expect "solve refuses a bad spec with 2" 2 "$rodd" solve "$tmp/bad.json"
printf '{"model": ' >"$tmp/trunc.json"
expect "malformed JSON is a bad spec" 2 "$rodd" check "$tmp/trunc.json"
grep -q "line 1, column" "$tmp/err" && pass "malformed JSON position reported" || fail "JSON position"
expect "a missing file is a bad spec" 2 "$rodd" check "$tmp/nope.json"
: >"$tmp/empty.json"
expect "an empty file is a bad spec" 2 "$rodd" check "$tmp/empty.json"
expect "--set with a bad value" 2 "$rodd" check "$ex" --set rod.poisson_ratio=0.6

# no convergence: one Newton iteration and one load step cannot bend a rod into an arc
cat >"$tmp/hard.json" <<'JSON'
{"model": "classic", "rod": {"length": 0.5, "radius": 0.01, "density": 1000, "youngs_modulus": 1e5, "poisson_ratio": 0.45},
 "strains": {"bend2": 4}, "loads": [{"name": "f", "type": "tip_force", "force": [0.05, 0, 0]}],
 "solver": {"max_iterations": 1, "load_steps": 1}}
JSON
expect "no convergence exits 3" 3 "$rodd" solve "$tmp/hard.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["converged"] is False' "$tmp/out" \
  && pass "an unconverged solve still prints its honest result" || fail "unconverged output"

# dynamics: NDJSON frames, the first at t = 0, one per --every
expect "run the reaching example briefly" 0 "$rodd" run "$top/api/examples/octopus-reaching.json" --until 0.05 --every 0.01 --points 11
python3 - "$tmp/out" <<'PY' && pass "run prints one FRAME per line from t = 0" || fail "run output"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
frames = [json.loads(l) for l in lines]
assert len(frames) == 6, len(frames)
assert abs(frames[0]["t"]) < 1e-12 and abs(frames[-1]["t"] - 0.05) < 1e-9
assert all(len(f["s"]) == 11 for f in frames)
assert frames[0]["energy"]["kinetic"] == 0
PY
grep -q "real-time factor" "$tmp/err" && pass "run reports its counters on stderr" || fail "run stderr"
python3 - "$tmp/err" <<'PY' && pass "run's real-time factor is simulated s per wall s" || fail "run real-time factor: $(cat "$tmp/err")"
import re, sys
m = re.search(r"t = (\S+) s in (\S+) s wall \(real-time factor (\S+): simulated s per wall s", open(sys.argv[1]).read())
t, wall, rtf = (float(g) for g in m.groups())
assert abs(rtf - t / wall) <= 0.01 * rtf + 0.0005 * t / wall**2, (t, wall, rtf)  # printed to 3 digits, wall to 1 ms
PY
# the progress bar (stderr a terminal: script gives the run a pty): the rate in simulated s per
# wall s and the time left at that rate, on every update
script -qec "'$rodd' run '$top/api/examples/octopus-reaching.json' --until 0.05 --every 0.005 --points 2 --out '$tmp/bar.ndjson'" \
  /dev/null >"$tmp/bar" 2>&1
python3 - "$tmp/bar" <<'PY' && pass "the progress bar shows the rate and the ETA" || fail "progress bar: $(tr '\r' '\n' <"$tmp/bar")"
import re, sys
bars = re.findall(r"\] t = (\S+) / (\S+) s, (\S+) s wall, (\S+) sim s/s, ETA (\d+)(?::(\d\d))? s?", open(sys.argv[1]).read())
assert len(bars) == 10, bars
for t, until, wall, rate, eta_a, eta_b in bars:
    t, until, wall, rate = float(t), float(until), float(wall), float(rate)
    eta = 60 * int(eta_a) + int(eta_b) if eta_b else int(eta_a)
    assert abs(rate * wall - t) <= 0.006 * t + 0.05 * rate, (t, wall, rate)  # rate to 3 digits, wall to 0.1 s
    assert abs(eta - (until - t) / rate) <= 0.5 + 0.006 * eta, (t, rate, eta)
assert float(bars[-1][0]) == float(bars[-1][1]) and bars[-1][4] == "0"
PY
expect "run needs --until" 64 "$rodd" run "$ex"
expect "run refuses a bad spec with 2" 2 "$rodd" run "$tmp/bad.json" --until 1
expect "converge refuses a bad spec with 2" 2 "$rodd" converge "$tmp/bad.json"
[ ! -s "$tmp/out" ] && pass "nothing on stdout from converge for a bad spec" || fail "converge stdout not empty"
expect "converge without a spec is a usage error" 64 "$rodd" converge
expect "converge --levels 0 is a usage error" 64 "$rodd" converge "$ex" --levels 0
expect "converge --until -1 is a usage error" 64 "$rodd" converge "$ex" --until -1
expect "converge: the example against one refinement" 0 "$rodd" converge "$ex" --levels 1 --points 5
python3 - "$tmp/out" <<'PY' && pass "converge prints the estimates and both runs" || fail "converge result"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["tip_error_estimate"] >= 0 and d["shape_error_estimate"] >= d["tip_error_estimate"]
assert len(d["runs"]) == 2 and d["runs"][1]["points"] == 2 * d["runs"][0]["points"]
assert d["runs"][1]["strains"]["stretch"] == 2 * d["runs"][0]["strains"]["stretch"] + 1
PY
expect "run --set" 0 "$rodd" run "$ex" --until 0.02 --every 0.01 --points 2 --set rod.shear_viscosity=10
cat >"$tmp/blowup.json" <<'JSON'
{"model": "classic", "rod": {"length": 0.5, "radius": 0.01, "density": 1000, "youngs_modulus": 1e5, "poisson_ratio": 0.45},
 "strains": {"bend2": 3}, "actuators": [{"name": "c", "type": "cable", "route": {"offset": [0.005, 0]}, "tension": "t > 0.01 ? 1/0 : 0"}]}
JSON
expect "a solver failure exits 1" 1 "$rodd" run "$tmp/blowup.json" --until 0.1 --every 0.005
grep -q "not finite" "$tmp/err" && pass "the failure says why" || fail "failure message"

# SIGINT (and SIGTERM) stop a long run at once: complete frames so far, the counters, 128 + signal
# (a run far longer than the 1.5 s it gets: 1000 s of the arm, mostly still, took 1.4 s of wall
# time once the engine got faster)
for sig in INT TERM; do
  "$rodd" run "$top/api/examples/octopus-reaching.json" --until 100000 --every 0.01 --points 5 >"$tmp/out" 2>"$tmp/err" &
  pid=$!
  sleep 1.5
  kill -s "$sig" "$pid"
  wait "$pid"
  rc=$?
  want=$((128 + $(kill -l "$sig")))
  [ "$rc" -eq "$want" ] && pass "SIG$sig stops a run with $want" || { fail "SIG$sig: exit $rc, wanted $want"; cat "$tmp/err" >&2; }
  grep -q "interrupted by SIG$sig at t = " "$tmp/err" && grep -q "real-time factor" "$tmp/err" \
    && pass "SIG$sig: it says where and prints the counters" || fail "SIG$sig message: $(cat "$tmp/err")"
  python3 -c 'import json,sys; n=sum(1 for l in open(sys.argv[1]) if json.loads(l)); assert n >= 1' "$tmp/out" \
    && pass "SIG$sig: every frame written is whole" || fail "SIG$sig: a partial frame"
done

# sweeps: the whole grid locally, the same points one task at a time, one CSV row per point
grid=(--grid 'rod.youngs_modulus=5e4,1e5,2e5' --grid 'actuators.4.pressure=0,1000,2000,4000')
expect "sweep a 12-point grid on all cores" 0 "$rodd" sweep "$ex" "${grid[@]}" --out "$tmp/sweep-all"
cp "$tmp/out" "$tmp/sweep-stdout.csv"
[ "$(wc -l < "$tmp/sweep-all/results.csv")" -eq 13 ] && pass "the collected CSV has a header and 12 rows" || fail "CSV rows"
cmp -s "$tmp/sweep-stdout.csv" "$tmp/sweep-all/results.csv" && pass "the CSV is printed too" || fail "sweep stdout"
ok=1
for i in $(seq 0 11); do
  "$rodd" sweep "$ex" "${grid[@]}" --out "$tmp/sweep-one" --index "$i" >/dev/null 2>&1 || ok=0
done
[ "$ok" -eq 1 ] && pass "every --index point runs" || fail "--index runs"
ok=1
for f in "$tmp"/sweep-all/point-*.json; do cmp -s "$f" "$tmp/sweep-one/$(basename "$f")" || ok=0; done
[ "$ok" -eq 1 ] && pass "--index points are identical to the local run's" || fail "--index results differ"
expect "collect a directory" 0 "$rodd" sweep --collect "$tmp/sweep-one"
cmp -s "$tmp/out" "$tmp/sweep-all/results.csv" && pass "collecting the tasks gives the same CSV" || fail "collect CSV"
"$rodd" sweep --collect "$tmp/sweep-one" >/dev/full 2>"$tmp/err"; rc=$?
[ "$rc" -eq 1 ] && grep -q "No space left on device" "$tmp/err" && pass "a CSV onto a full disk fails with 1, saying so" \
  || fail "sweep CSV onto /dev/full: exit $rc, $(cat "$tmp/err")"
python3 - "$tmp/sweep-all/results.csv" <<'PY' && pass "the sweep's numbers follow the bar's law" || fail "sweep values"
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 12 and [int(r["index"]) for r in rows] == list(range(12))
for r in rows:
    E, P = float(r["rod.youngs_modulus"]), float(r["actuators.4.pressure"])
    A = math.pi * 0.0075**2
    want = 0.5 - 0.5 * (1.0 / A - 2 * 0.4999 * P) / E   # 1 N of cables, the squeeze's elongation
    assert r["status"] == "ok" and abs(float(r["tip_z"]) - want) < 1e-9, (r, want)
PY
expect "sweep a grid of decimal values" 0 "$rodd" sweep "$ex" --grid 'rod.poisson_ratio=0.05,0.3' --out "$tmp/sweep-dec"
python3 - "$tmp/sweep-dec/results.csv" <<'PY' && pass "the CSV writes grid values as typed and results in the shortest exact digits" || fail "sweep number text"
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
assert [r[1] for r in rows[1:]] == ["0.05", "0.3"], rows  # not 0.050000000000000003
def digits(text):  # significant digits of a decimal
    mantissa = text.lower().split("e")[0].lstrip("-").replace(".", "")
    return len(mantissa.strip("0")) or 1
for r in rows[1:]:
    for cell in r[4:]:
        if cell and cell[0] in "-0123456789":  # Python's repr is the shortest exact decimal
            assert digits(cell) <= digits(repr(float(cell))), cell
PY
expect "sweep a grid of integers" 0 "$rodd" sweep "$ex" --grid 'rod.youngs_modulus=1.5e5,150000.5' --out "$tmp/sweep-int"
python3 - "$tmp/sweep-int" <<'PY' && pass "the CSV writes integers as integers, every number exactly as the point files" || fail "sweep integers: $(cat "$tmp/sweep-int/results.csv")"
import csv, glob, json, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/results.csv")))
assert [r["rod.youngs_modulus"] for r in rows] == ["150000", "150000.5"], rows  # not 1.5e+05
for r in rows:
    assert r["converged"] == "1" and r["iterations"].isdigit(), r
    point = json.load(open(f"{sys.argv[1]}/point-{int(r['index']):05d}.json"))
    for name, v in point["metrics"].items():
        assert (r[name] == "" and v is None) or float(r[name]) == v, (name, r[name], v)
text = open(glob.glob(sys.argv[1] + "/point-00000.json")[0]).read()
assert '"iterations":' in text and "e+" not in text.split('"metrics"')[1], text  # the point files too
PY
expect "a sweep point past the grid" 64 "$rodd" sweep "$ex" "${grid[@]}" --out "$tmp/sweep-x" --index 12
expect "a dynamics sweep" 0 "$rodd" sweep "$ex" --grid 'rod.shear_viscosity=100,300' --until 0.05 --out "$tmp/sweep-dyn"
grep -q '"ok"' "$tmp/sweep-dyn/results.csv" && pass "dynamics points have results" || fail "dynamics sweep"

expect "usage error" 64 "$rodd" solve
expect "unknown command" 64 "$rodd" frobnicate
expect "unknown option" 64 "$rodd" solve "$ex" --bogus
expect "--version" 0 "$rodd" --version
grep -q "^rodd " "$tmp/out" && pass "--version prints the version" || fail "--version output"

# help: the overview, and every command's own help on stdout with exit 0
expect "rodd help" 0 "$rodd" help
for c in check solve run sweep converge serve probe; do
  grep -q "^  $c " "$tmp/out" || fail "rodd help does not list $c"
done
for c in check solve run sweep converge serve probe help version; do
  expect "rodd $c --help" 0 "$rodd" "$c" --help
  grep -q "^usage: rodd $c" "$tmp/out" || fail "rodd $c --help prints no usage"
  "$rodd" help "$c" | cmp -s - "$tmp/out" || fail "rodd help $c differs from rodd $c --help"
done
expect "rodd run -h after other options" 0 "$rodd" run "$ex" --until 1 -h
grep -q "JSON when it parses as JSON" "$tmp/out" && pass "--set's JSON values are documented" || fail "--set help"
# did you mean: the nearest command, option and spec key, and nothing run
expect "a misspelt command" 64 "$rodd" sovle "$ex"
grep -q 'did you mean "solve"' "$tmp/err" && pass "a misspelt command names the right one" || fail "command suggestion: $(cat "$tmp/err")"
expect "a misspelt option" 64 "$rodd" run "$ex" --untill 1
grep -q 'unknown option --untill (did you mean --until?)' "$tmp/err" && [ ! -s "$tmp/out" ] \
  && pass "a misspelt option names the right one and runs nothing" || fail "option suggestion: $(cat "$tmp/err")"
expect "a far-off option" 64 "$rodd" sweep --zzz
grep -q "did you mean" "$tmp/err" && fail "a far-off option got a suggestion: $(cat "$tmp/err")" || pass "no suggestion for a far-off option"
expect "a misspelt spec key" 2 "$rodd" check "$ex" --set rod.poison_ratio=0.3
grep -q '/rod/poison_ratio: unknown key (did you mean "poisson_ratio"?)' "$tmp/err" \
  && pass "a misspelt spec key names the right one" || fail "spec key suggestion: $(cat "$tmp/err")"

# the placeholder tokens of deploy/tokens.example (and CHANGE-ME) are refused at start
state=$(mktemp -d)
expect "serve refuses tokens.example's placeholders" 64 env RODD_TOKENS_FILE="$top/deploy/tokens.example" \
  timeout 20 "$rodd" serve --listen 127.0.0.1:1 --state-dir "$state"
grep -q "placeholder" "$tmp/err" && pass "the refusal says why" || fail "placeholder message: $(cat "$tmp/err")"
expect "serve refuses CHANGE-ME" 64 env RODD_TOKENS=operator:CHANGE-ME timeout 20 "$rodd" serve --listen 127.0.0.1:1 --state-dir "$state"
# the REST port serves the streams: a stream port on the same number is a mistake, said so
expect "serve refuses a stream port equal to the REST port" 64 timeout 20 "$rodd" serve --listen 127.0.0.1:1 --ws-port 1 \
  --state-dir "$state"
grep -q "serves the streams already" "$tmp/err" && pass "the refusal says why" || fail "ws_port message: $(cat "$tmp/err")"
rm -rf "$state"

# one version everywhere: the binary, CITATION.cff, the changelog's latest release, the OpenAPI
# document, the viewer's package and the image tags of the deployment files
v=$("$rodd" --version | sed -n 's/^rodd \([0-9][0-9.]*\)$/\1/p')
ok=1
[ -n "$v" ] || { ok=0; echo "rodd --version gave no version" >&2; }
agree() { [ "$2" = "$v" ] || { ok=0; echo "$1 says ${2:-nothing}, rodd --version says $v" >&2; }; }
agree CITATION.cff "$(sed -n 's/^version: *//p' "$top/CITATION.cff")"
agree CHANGELOG.md "$(grep -m1 -o '^## \[[0-9][0-9.]*\]' "$top/CHANGELOG.md" | tr -d '#[] ')"
agree api/openapi.yaml "$(sed -n 's/^  version: *//p' "$top/api/openapi.yaml" | head -1)"
agree Dockerfile "$(sed -n 's/.*org.opencontainers.image.version="\([^"]*\)".*/\1/p' "$top/Dockerfile")"
agree web/package.json "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("version", ""))' "$top/web/package.json")"
for f in "$top"/deploy/k8s/*.yaml "$top"/deploy/compose.yaml; do
  for tag in $(grep -o 'image: *[^ ]*rodd:[^ ]*' "$f" | sed 's/.*rodd://'); do agree "${f#"$top"/}" "$tag"; done
done
grep -q "^MIT License" "$top/LICENSE" || { ok=0; echo "LICENSE is not the MIT licence CITATION.cff names" >&2; }
grep -q "^license: MIT" "$top/CITATION.cff" || { ok=0; echo "CITATION.cff names another licence" >&2; }
[ "$ok" -eq 1 ] && pass "one version ($v) and one licence everywhere" || fail "version or licence disagreement"

[ "$fails" -eq 0 ] && echo "cli: all passed" || echo "cli: $fails failed" >&2
exit $((fails > 0))

#!/usr/bin/env bash
# rodd optimize: the stiffness-tuning inverse against the bar's closed form, the output files,
# --jobs and resume giving the same evaluations, failed runs counted, bad input refused before
# any run. Each case runs in well under a second (statics of a 5-dof rod).
set -uo pipefail
# shellcheck source=tests/cli/lib.sh
source "$(dirname "$0")/lib.sh"

ex=$top/api/examples/stiffness-tuning.json
T="actuators.0.tension,actuators.1.tension,actuators.2.tension,actuators.3.tension"

# the bar: L - z_tip = L (4T/A - 2 nu P)/E, so z_tip = 0.49 at P = 2000 Pa takes
# T = A/4 (0.01 E/L + 2 nu P)
expect "bobyqa finds the cable tension for a 0.49 m rod" 0 "$rodd" optimize "$ex" --vary "$T=0:0.5" \
  --minimize "(tip_z-0.49)^2" --method bobyqa --evaluations 100
python3 - "$tmp/out" <<'PY' && pass "the tension is the closed form's to 1e-6" || fail "bobyqa tension"
import json, math, sys
d = json.load(open(sys.argv[1]))
A = math.pi * 0.0075**2
T = A / 4 * (0.01 * 1e5 / 0.5 + 2 * 0.4999 * 2000)
t = d["best"]["actuators.0.tension"]
assert abs(t - T) < 1e-6 * T, (t, T)
assert d["converged"] is True and d["evaluations"] <= 100 and d["failed"] == 0, d
assert set(d) == {"best", "objective", "evaluations", "failed", "converged", "reason", "method", "wall_s"}, d
PY

# lbfgs on central finite-difference gradients (2n + 1 = 3 runs a gradient), and on the
# implicit gradient (one run a gradient): the same closed form, in fewer runs
expect "lbfgs with finite-difference gradients" 0 "$rodd" optimize "$ex" --vary "$T=0:0.5" \
  --minimize "(tip_z-0.49)^2" --method lbfgs --evaluations 60 --gradient fd
cp "$tmp/out" "$tmp/lbfgs-fd.json"
expect "lbfgs with implicit gradients (the default in statics)" 0 "$rodd" optimize "$ex" --vary "$T=0:0.5" \
  --minimize "(tip_z-0.49)^2" --method lbfgs --evaluations 60
python3 - "$tmp/lbfgs-fd.json" "$tmp/out" <<'PY' && pass "lbfgs: the closed form's tension to 1e-6 either way, fewer runs with implicit gradients" || fail "lbfgs tension"
import json, math, sys
fd, im = (json.load(open(p)) for p in sys.argv[1:3])
A = math.pi * 0.0075**2
T = A / 4 * (0.01 * 1e5 / 0.5 + 2 * 0.4999 * 2000)
for d in fd, im:
    assert abs(d["best"]["actuators.0.tension"] - T) < 1e-6 * T and d["converged"], d
assert fd["gradient"] == "fd" and fd["evaluations"] % 3 == 0, fd
assert im["gradient"] == "implicit" and im["evaluations"] < fd["evaluations"], (im, fd)
print(f"     evaluations: {fd['evaluations']} (fd) -> {im['evaluations']} (implicit)")
PY

# the gradient in DIR/state.json (at "gradient_at") against the bar's closed form
# d/dT (z - 0.49)^2 = 2 (z - 0.49) (-4 L / (A E)), to 1e-7
bar_gradient_is_closed_forms() {
  python3 - "$1/state.json" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
A, L, E, nu, P = math.pi * 0.0075**2, 0.5, 1e5, 0.4999, 2000
T = d["gradient_at"]["actuators.0.tension"]
z = L - L * (4 * T / A - 2 * nu * P) / E
want = 2 * (z - 0.49) * (-4 * L / (A * E))
got = d["gradient"]["actuators.0.tension"]
assert T == 0.25 and abs(got - want) < 1e-7 * abs(want), (got, want)
print(f"     d/dT at T = {T}: {got:.10g}, closed form {want:.10g}, relative difference {abs(got / want - 1):.1e}")
PY
}

# --fd-step: the central difference's gradient (state.json's "gradient", at "gradient_at")
# against the bar's closed form d/dT (z - 0.49)^2 = 2 (z - 0.49) (-4 L / (A E)): f is a
# quadratic in T, so the difference is exact but for rounding and the model's own 1e-6
expect "lbfgs with --fd-step 1e-2" 0 "$rodd" optimize "$ex" --vary "$T=0:0.5" --minimize "(tip_z-0.49)^2" \
  --method lbfgs --evaluations 3 --fd-step 1e-2 --out "$tmp/fd"
bar_gradient_is_closed_forms "$tmp/fd" && pass "the finite-difference gradient is the closed form's to 1e-7" || fail "fd gradient"
cmp -s <(cut -d, -f5 "$tmp/fd/evaluations.csv") <(printf 'actuators.0.tension\n0.25\n0.255\n0.245\n') \
  && pass "  its runs: x0 and x0 +- 1e-2 of the range" || fail "fd-step runs"

# --evaluations is a budget of runs: L-BFGS on finite differences (3 runs a gradient) stops at
# 6 of 7 (NLopt's own count of calls let it take a third gradient, 9 runs), and a budget below
# one gradient is refused with why
expect "lbfgs stops within --evaluations 7" 0 "$rodd" optimize "$ex" --vary "$T=0:0.5" --minimize "(tip_z-0.45)^2" \
  --method lbfgs --evaluations 7 --gradient fd
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["evaluations"] <= 7 and d["reason"] == "max_evaluations", d' \
  "$tmp/out" && pass "  within its budget, said so" || fail "lbfgs budget"
expect "lbfgs with --evaluations 2 on finite differences is refused" 64 "$rodd" optimize "$ex" --vary "$T=0:0.5" \
  --minimize "(tip_z-0.45)^2" --method lbfgs --evaluations 2 --gradient fd
grep -q "fewer than the 3 runs of one finite-difference gradient" "$tmp/err" && pass "  saying why" || fail "budget refusal: $(cat "$tmp/err")"

# --gradient implicit: the same closed form from one static solve and the equilibrium's tangent
expect "lbfgs, one implicit gradient" 0 "$rodd" optimize "$ex" --vary "$T=0:0.5" --minimize "(tip_z-0.49)^2" \
  --method lbfgs --evaluations 1 --gradient implicit --out "$tmp/im"
bar_gradient_is_closed_forms "$tmp/im" && pass "the implicit gradient is the closed form's to 1e-7" || fail "implicit gradient"
[ "$(wc -l <"$tmp/im/evaluations.csv")" = 2 ] && pass "  one run" || fail "implicit gradient runs"

# the implicit gradient against central differences of whole runs on a bending arm (tip through
# the kinematics, energy_elastic, three cables and the transverse pressure, which also enters
# through the inflation): each component within the differences' own error at H = 1e-3 of the
# range, the H^2 truncation |g_H - g_2H| / 3 (Richardson; 1.4e-5 relative here) with half of it
# again for the estimate's own error, plus their noise, the statics' tolerance 1e-10 over H
# (1e-7 relative)
arm=(--set actuators.0.tension=0 --set actuators.1.tension=0 --set actuators.2.tension=0
  --set actuators.3.tension=0 --set actuators.4.pressure=0 --vary actuators.0.tension=0:0.03
  --vary actuators.1.tension=0:0.03 --vary actuators.2.tension=0:0.03 --vary actuators.4.pressure=0:2000
  --minimize "1e4*((tip_x-0.15)^2 + tip_y^2 + (tip_z-0.3)^2) + energy_elastic" --method lbfgs)
# the Euler column held by a pose constraint's multipliers, with its push on: the tip force, the
# push and Young's modulus
column=(--set loads.1.scale=1 --vary loads.0.force.2=-1:-0.3 --vary loads.1.force.0=0.005:0.02
  --vary rod.youngs_modulus=5e5:2e6 --minimize "tip_z*10 + com_x*100 + energy_elastic" --method lbfgs)
# the arm, and the arm with its volume held by a Lagrange multiplier (the tangent's extra row)
for name in octopus-reaching octopus-reaching-incompressible euler-column; do
  oct=$top/api/examples/$name.json
  if [ "$name" = euler-column ]; then args=("${column[@]}"); else args=("${arm[@]}"); fi
  # one gradient each: one run, or the 2n + 1 of the differences
  runs=$((2 * $(printf '%s\n' "${args[@]}" | grep -c '^--vary$') + 1))
  expect "$name: the implicit gradient" 0 "$rodd" optimize "$oct" "${args[@]}" --evaluations 1 --out "$tmp/g-im-$name"
  expect "$name: the fd gradient, H = 1e-3" 0 "$rodd" optimize "$oct" "${args[@]}" --evaluations $runs --gradient fd \
    --fd-step 1e-3 --out "$tmp/g-h-$name"
  expect "$name: the fd gradient, H = 2e-3" 0 "$rodd" optimize "$oct" "${args[@]}" --evaluations $runs --gradient fd \
    --fd-step 2e-3 --out "$tmp/g-2h-$name"
  python3 - "$tmp/g-im-$name/state.json" "$tmp/g-h-$name/state.json" "$tmp/g-2h-$name/state.json" <<'PY' \
    && pass "$name: the implicit gradient is the whole runs' central differences within their error" \
    || fail "$name: implicit vs fd"
import json, sys
im, h, h2 = (json.load(open(p))["gradient"] for p in sys.argv[1:4])
for k in im:
    trunc = abs(h[k] - h2[k]) / 3
    tol = 1.5 * trunc + 1e-7 * abs(h[k])
    assert abs(im[k] - h[k]) <= tol, (k, im[k], h[k], h2[k], tol)
    print(f"     d/d{k}: {im[k]:.10g} implicit, {h[k]:.10g} fd, apart {abs(im[k] - h[k]):.1e} (allowed {tol:.1e})")
PY
  [ "$(wc -l <"$tmp/g-im-$name/evaluations.csv")" = 2 ] && [ "$(wc -l <"$tmp/g-h-$name/evaluations.csv")" = $((runs + 1)) ] \
    && pass "  one run for the implicit gradient, 2n + 1 = $runs for the differences" || fail "gradient runs"
done

expect "cmaes on 2 threads with --out" 0 "$rodd" optimize "$ex" --vary "$T=0:0.5" --minimize "abs(tip_z-0.49)" \
  --evaluations 100 --jobs 2 --out "$tmp/o2"
python3 - "$tmp/out" <<'PY' && pass "CMA-ES gets within 1e-4 of the closed form in 100 runs (2e-5 here)" || fail "cmaes tension"
import json, math, sys
d = json.load(open(sys.argv[1]))
A = math.pi * 0.0075**2
T = A / 4 * (0.01 * 1e5 / 0.5 + 2 * 0.4999 * 2000)
assert abs(d["best"]["actuators.0.tension"] - T) < 1e-4 * T, d
PY
for f in evaluations.csv generations.csv state.json objective.svg best.json; do
  [ -s "$tmp/o2/$f" ] || fail "--out has no $f"
done
"$rodd" check "$tmp/o2/best.json" >/dev/null && python3 - "$tmp/out" "$tmp/o2/best.json" <<'PY' \
  && pass "best.json is a valid spec at the best tension" || fail "best.json"
import json, sys
d, b = (json.load(open(p)) for p in sys.argv[1:3])
assert [a["tension"] for a in b["actuators"][:4]] == [d["best"]["actuators.0.tension"]] * 4, b["actuators"]
PY
python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$tmp/o2/objective.svg" \
  && pass "objective.svg is well-formed XML" || fail "objective.svg"
expect "the same on 1 thread" 0 "$rodd" optimize "$ex" --vary "$T=0:0.5" --minimize "abs(tip_z-0.49)" \
  --evaluations 100 --out "$tmp/o1"
cmp -s <(cut -d, -f1-5 "$tmp/o1/evaluations.csv") <(cut -d, -f1-5 "$tmp/o2/evaluations.csv") \
  && pass "--jobs 2 evaluates the same points to the same values" || fail "--jobs changes the evaluations"

# resume: a run cut at 20 evaluations, then the 100-evaluation command on the same DIR
"$rodd" optimize "$ex" --vary "$T=0:0.5" --minimize "abs(tip_z-0.49)" --evaluations 20 --out "$tmp/o3" >/dev/null 2>&1
expect "the same command resumes" 0 "$rodd" optimize "$ex" --vary "$T=0:0.5" --minimize "abs(tip_z-0.49)" \
  --evaluations 100 --out "$tmp/o3"
grep -q "resuming: 20 evaluations" "$tmp/err" && pass "it says it replays 20" || fail "resume message"
cmp -s <(cut -d, -f1-5 "$tmp/o1/evaluations.csv") <(cut -d, -f1-5 "$tmp/o3/evaluations.csv") \
  && pass "the resumed log is the uninterrupted run's" || fail "resume diverged"

# resume with --gradient implicit: the logged runs are checked and run again (the log keeps no
# gradients), and the result is the uninterrupted run's
"$rodd" optimize "$ex" --vary "$T=0:0.5" --minimize "(tip_z-0.49)^2" --method lbfgs --evaluations 60 \
  --out "$tmp/gi1" >/dev/null 2>&1
"$rodd" optimize "$ex" --vary "$T=0:0.5" --minimize "(tip_z-0.49)^2" --method lbfgs --evaluations 2 \
  --out "$tmp/gi2" >/dev/null 2>&1
expect "an implicit-gradient run resumes" 0 "$rodd" optimize "$ex" --vary "$T=0:0.5" --minimize "(tip_z-0.49)^2" \
  --method lbfgs --evaluations 60 --out "$tmp/gi2"
cmp -s <(cut -d, -f1-5 "$tmp/gi1/evaluations.csv") <(cut -d, -f1-5 "$tmp/gi2/evaluations.csv") \
  && pass "  its log is the uninterrupted run's" || fail "implicit resume diverged"

expect "another command on the same DIR is refused" 1 "$rodd" optimize "$ex" --vary "$T=0:0.5" \
  --minimize "abs(tip_z-0.49)" --evaluations 60 --seed 2 --out "$tmp/o3"
grep -q "evaluation 0 in .*evaluations.csv is not this command's" "$tmp/err" \
  && pass "it names the first evaluation that differs" || fail "replay mismatch message"

# effort in statics: the actuators' squared values, 4 T^2 + P^2 here
expect "effort reads the actuators" 0 "$rodd" optimize "$ex" --vary "$T=0:0.5" \
  --minimize "abs(effort-(4*p0^2+2000^2))" --evaluations 4
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["objective"] < 1e-6' "$tmp/out" \
  && pass "effort = 4 T^2 + P^2" || fail "effort"

# dynamics: com_vz is the centroid's mean velocity over [--from, --until], as rodd run's frames
# give it (radius^2-weighted points), and effort integrates the constant actuators exactly
# (0.2 s x (4 T^2 + P^2)); loads.0.force.0 scales a load of scale 0, a parameter with no effect
expect "com_vz over [0.1, 0.2] s" 0 "$rodd" optimize "$ex" --vary loads.0.force.0=0:1e-300 --maximize com_vz \
  --until 0.2 --from 0.1 --method nelder-mead --evaluations 1
cp "$tmp/out" "$tmp/comv.json"
expect "effort over 0.2 s" 0 "$rodd" optimize "$ex" --vary loads.0.force.0=0:1e-300 --minimize effort \
  --until 0.2 --method nelder-mead --evaluations 1
cp "$tmp/out" "$tmp/effort.json"
"$rodd" run "$ex" --until 0.2 --every 0.1 >"$tmp/run.ndjson" 2>/dev/null
python3 - "$tmp/comv.json" "$tmp/effort.json" "$tmp/run.ndjson" <<'PY' && pass "com_vz and effort as the frames and the actuators say" || fail "com_vz or effort"
import json, sys
v = json.load(open(sys.argv[1]))["objective"]
e = json.load(open(sys.argv[2]))["objective"]
fr = [json.loads(l) for l in open(sys.argv[3])]
def com_z(f):
    s, r, p, n = f["s"], f["radius"], f["position"], len(f["s"])
    W = c = 0
    for i in range(n):
        ds = (s[i] - s[i - 1] if i > 0 else 0) + (s[i + 1] - s[i] if i + 1 < n else 0)
        W += r[i] ** 2 * ds
        c += r[i] ** 2 * ds * p[i][2]
    return c / W
want = (com_z(fr[2]) - com_z(fr[1])) / 0.1
assert abs(v - want) < 1e-6 * abs(want), (v, want)
assert abs(e - 0.2 * (4 * 0.25**2 + 2000**2)) < 1e-9 * e, e
PY

# runs that do not converge count as the worst value and are reported
expect "failed runs do not stop the optimizer" 0 "$rodd" optimize "$ex" --vary "$T=0:30" \
  --minimize "(tip_z-0.49)^2" --evaluations 24 --out "$tmp/of"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["failed"] > 0 and d["evaluations"] == 24, d' \
  "$tmp/out" && pass "failed runs counted" || fail "failed count"
grep -q "no_convergence" "$tmp/err" && grep -q ",no_convergence,nan," "$tmp/of/evaluations.csv" \
  && pass "and reported on stderr and in the CSV" || fail "failure report"

# bad input: refused before any run, naming what is wrong
refused() { # NAME STATUS MESSAGE ARGS...
  local name=$1 want=$2 msg=$3
  shift 3
  expect "$name" "$want" "$rodd" optimize "$ex" --out "$tmp/bad" "$@"
  grep -qF -- "$msg" "$tmp/err" && pass "  says: $msg" || { fail "  message of $name"; cat "$tmp/err" >&2; }
  [ ! -e "$tmp/bad" ] && pass "  nothing ran" || fail "  $name ran something"
}
refused "a path the spec lacks" 64 "--vary rod.nothing: the spec has no value there" --vary rod.nothing=0:1 --minimize tip_z
refused "a path that is not a number" 64 "--vary name: the spec's value there is not a number" --vary name=0:1 --minimize tip_z
refused "LO >= HI" 64 "LO must be below HI" --vary rod.length=0.6:0.6 --minimize tip_z
refused "an unknown name" 64 'Unexpected token "tip_q"' --vary rod.length=0.4:0.6 --minimize "tip_q+1"
refused "a velocity in statics" 64 "com_vx is a velocity over the run: it needs --until" --vary rod.length=0.4:0.6 --minimize com_vx
refused "--gradient implicit in dynamics" 64 "--gradient implicit: a dynamics run (--until) has no implicit gradient" \
  --vary rod.length=0.4:0.6 --minimize tip_z --until 0.1 --method lbfgs --gradient implicit
refused "--gradient with a method without gradients" 64 "--gradient is for the gradient methods" \
  --vary rod.length=0.4:0.6 --minimize tip_z --method bobyqa --gradient fd
refused "an unknown --gradient" 64 '--gradient must be implicit or fd, got "adjoint"' \
  --vary rod.length=0.4:0.6 --minimize tip_z --method lbfgs --gradient adjoint
refused "an invalid corner" 2 "/rod/youngs_modulus: must be > 0" --vary rod.youngs_modulus=-10:1000 --minimize tip_z
refused "an unknown method" 64 "unknown --method newton" --vary rod.length=0.4:0.6 --minimize tip_z --method newton
refused "--fd-step without gradients" 64 "--fd-step is for the gradient methods (lbfgs, slsqp, mma), not bobyqa" \
  --vary rod.length=0.4:0.6 --minimize tip_z --method bobyqa --fd-step 1e-3
refused "--fd-step out of range" 64 "--fd-step must be a number in (0, 0.5]" --vary rod.length=0.4:0.6 --minimize tip_z \
  --method lbfgs --fd-step 0

[ "$fails" -eq 0 ] && echo "cli optimize: all passed" || echo "cli optimize: $fails failed" >&2
exit $((fails > 0))

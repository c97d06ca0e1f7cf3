#!/usr/bin/env bash
# Warnings for valid but implausible specs (issue 33 item 5): rodd check names the JSON path and
# still exits 0, rodd run says "penetration" once when a contact sinks past max_penetration;
# malformed JSON and unknown enum values are described, not only located.
set -uo pipefail
# shellcheck source=tests/cli/lib.sh
source "$(dirname "$0")/lib.sh"
ex=$top/api/examples/rod-rolling-incline.json

expect "a plausible spec checks without warnings" 0 "$rodd" check "$ex"
grep -q warning "$tmp/err" && fail "warnings on the example: $(cat "$tmp/err")" || pass "no warning on the example"

expect "a radius in millimetres is valid" 0 "$rodd" check "$ex" --set rod.radius=20
grep -q "warning: /rod/radius: .*not slender" "$tmp/err" && pass "check names /rod/radius" || fail "no slenderness warning"

expect "a soft wall is valid" 0 "$rodd" check "$ex" --set environment.obstacles.0.stiffness=10
grep -q "warning: /environment/obstacles/0/stiffness: .*sinks" "$tmp/err" && pass "check names the wall's stiffness" \
  || fail "no stiffness warning"
expect "max_penetration 1 tolerates the soft wall's 37 radii no better" 0 "$rodd" check "$ex" \
  --set environment.obstacles.0.stiffness=10 --set environment.obstacles.0.max_penetration=1
grep -q "stiffness" "$tmp/err" && pass "still warned at max_penetration 1" || fail "max_penetration 1"

expect "a long fixed step is valid" 0 "$rodd" check "$ex" --set solver.integrator=generalized-alpha --set solver.step=0.05
grep -q "warning: /solver/step: .*cannot resolve the contact" "$tmp/err" && pass "check names /solver/step" \
  || fail "no step warning"

expect "solver.contact_laws with bdf is valid" 0 "$rodd" check "$ex" --set solver.contact_laws=linearized
grep -q "warning: /solver/contact_laws: has no effect" "$tmp/err" && pass "check says contact_laws does nothing with bdf" \
  || fail "no contact_laws warning with bdf"
expect "solver.contact_laws on generalized-alpha with the contact Jacobian" 0 "$rodd" check \
  "$top/api/examples/snake-lateral-undulation.json" --set solver.contact_laws=linearized
grep -q "contact_laws" "$tmp/err" && fail "contact_laws warned where it acts: $(cat "$tmp/err")" \
  || pass "no contact_laws warning where it acts"

# a damped wall in the Newton matrix needs no resolving step (the snake: critical damping, 4 ms)
snake=$top/api/examples/snake-lateral-undulation.json
gs=(--set solver.integrator=generalized-alpha --set solver.step=0.004)
expect "the snake at 4 ms with the contact Jacobian" 0 "$rodd" check "$snake" "${gs[@]}" --set solver.jacobian=contact
grep -q "warning: /solver/step" "$tmp/err" && fail "step warned on a critically damped wall in the Newton matrix" \
  || pass "no step warning with the damped wall in the Newton matrix"
expect "the snake at 4 ms with the elastic Jacobian" 0 "$rodd" check "$snake" "${gs[@]}" --set solver.jacobian=elastic
grep -q "warning: /solver/step: .*cannot resolve the contact" "$tmp/err" && pass "step warned without the wall in the matrix" \
  || fail "no step warning with the elastic Jacobian"
expect "the snake at 4 ms on a wall damped below half critical" 0 "$rodd" check "$snake" "${gs[@]}" \
  --set solver.jacobian=contact --set environment.obstacles.0.damping=1300
grep -q "warning: /solver/step: .*cannot resolve the contact" "$tmp/err" && pass "step warned on a lightly damped wall" \
  || fail "no step warning below half critical damping"

expect "classic near 0.5" 0 "$rodd" check "$top/api/examples/octopus-reaching-classic.json"
grep -q "warning: /rod/poisson_ratio" "$tmp/err" && pass "check names /rod/poisson_ratio" || fail "no Poisson warning"

expect "a soft wall runs" 0 "$rodd" run "$ex" --set environment.obstacles.0.stiffness=10 --until 0.05 --every 0.01
[ "$(grep -c "warning: penetration at t = " "$tmp/err")" = 1 ] && pass "run warns of penetration once" \
  || fail "penetration warning: $(cat "$tmp/err")"
expect "the stiff wall runs" 0 "$rodd" run "$ex" --until 0.05 --every 0.01
grep -q penetration "$tmp/err" && fail "penetration warned on the example's wall" || pass "no penetration warning"

expect "did you mean" 2 "$rodd" check "$ex" --set model=clasic
grep -q '/model: must be one of .*, not "clasic" (did you mean "classic"?)' "$tmp/err" && pass "enum suggestion" || fail "no suggestion"

# a model of several rods has one integrator (BDF, difference Jacobian): a one-rod choice is named as unused
two=$top/api/examples/two-rods-joined.json
expect "several rods with generalized-alpha and the contact Jacobian" 0 "$rodd" check "$two" \
  --set solver.integrator=generalized-alpha --set solver.step=0.001 --set solver.jacobian=contact
grep -q "warning: /solver/integrator: a model of several rods runs BDF" "$tmp/err" && pass "names /solver/integrator" \
  || fail "integrator warning: $(cat "$tmp/err")"
grep -q 'warning: /solver/jacobian: .*"contact" is not used' "$tmp/err" && pass "names /solver/jacobian" \
  || fail "jacobian warning: $(cat "$tmp/err")"
expect "several rods as shipped" 0 "$rodd" check "$two"
grep -q "warning: /solver" "$tmp/err" && fail "a solver warning without a solver choice" || pass "no solver warning"

bad=$tmp/bad.json
printf '{\n  "model": "classic",\n  "rod": {"length": 1,}\n}\n' > "$bad"
expect "a trailing comma" 2 "$rodd" check "$bad"
grep -q "line 3, column 23.*a trailing comma before '}'" "$tmp/err" && pass "trailing comma described" \
  || fail "trailing comma: $(cat "$tmp/err")"
printf '{model: "classic"}' > "$bad"
expect "an unquoted key" 2 "$rodd" check "$bad"
grep -q 'an unquoted key "model"' "$tmp/err" && pass "unquoted key described" || fail "unquoted key: $(cat "$tmp/err")"
printf '{"model": "classic" "rod": {}}' > "$bad"
expect "a missing comma" 2 "$rodd" check "$bad"
grep -q "expected ',' or '}' after a member" "$tmp/err" && pass "missing comma described" || fail "missing comma"
[ "$fails" -eq 0 ] && echo "cli warnings: all passed" || echo "cli warnings: $fails failed" >&2
exit $((fails > 0))

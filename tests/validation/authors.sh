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
node "$here/tools/authors_compare.mjs" "$here/reference/authors-reaching.csv" "$tmp/authors.ndjson" \
  "$tmp/rodd.ndjson" "" "rodd's defaults"

# The same without the transverse muscle (their main.m with the TM off, the static start also
# without it), against reference/authors-reaching-no-tm.csv: rho departs far more from 1 there
# (-14 % volume at t = 0), so their M_dot slip (authors_code.mass_rate_slip) shows: 0.71 cm
# without it. Same 2 mm limit, for the same reason.
spec=api/examples/octopus-reaching-no-tm-authors.json
"$build/rodd" run "$spec" --until 3.5 --every 0.01 --points 11 > "$tmp/notm.ndjson" 2> "$tmp/err" \
  || { cat "$tmp/err" >&2; exit 1; }
"$build/rodd" run "$spec" --until 3.5 --every 0.01 --points 11 --set authors_code.mass_rate_slip=false \
  > "$tmp/notm-noslip.ndjson" 2> "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
node "$here/tools/authors_compare.mjs" "$here/reference/authors-reaching-no-tm.csv" "$tmp/notm.ndjson" \
  "$tmp/notm-noslip.ndjson" "no TM, " "without the M_dot slip"

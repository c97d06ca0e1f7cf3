#!/usr/bin/env bash
# make bench: engine timings on the shipped examples (medians over repeated runs).
set -euo pipefail
build=${BUILD:-build}
for spec in api/examples/stiffness-tuning.json tests/bench/specs/*.json; do
  [ -f "$spec" ] && "$build/bench_statics" "$spec" "${REPEATS:-50}"
done
# the paper reports "real time factor 0.45" for the reaching run in MATLAB (Sec. 5.2), counted the
# other way round (wall s per simulated s): 2.2 in rodd's simulated s per wall s
"$build/bench_dynamics" api/examples/octopus-reaching.json 3.5 0.01 "${DYN_REPEATS:-5}"
"$build/bench_dynamics" api/examples/octopus-fetching.json 9 0.01 "${DYN_REPEATS:-3}"

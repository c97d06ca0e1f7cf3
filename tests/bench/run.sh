#!/usr/bin/env bash
# make bench: engine timings on the shipped examples (medians over repeated runs).
set -euo pipefail
build=${BUILD:-build}
for spec in api/examples/stiffness-tuning.json tests/bench/specs/*.json; do
  [ -f "$spec" ] && "$build/bench_statics" "$spec" "${REPEATS:-50}"
done

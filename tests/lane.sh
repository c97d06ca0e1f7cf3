#!/usr/bin/env bash
# Runs make targets one after the other, as `make -j1 T1 T2 ...` would (each its own make -j1), stopping at the first
# that fails, and prints how long each took (wall seconds) when the lane ends, passed or not:
# make test's time is the sum of its lanes', and this says where it goes.
# Usage: tests/lane.sh LANE-NAME TARGET...
set -uo pipefail
lane=$1
shift
report=""
status=0
for t in "$@"; do
    start=$(date +%s.%N)
    make -j1 --no-print-directory "$t"
    status=$?
    report+=$(awk -v t="$t" -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%-18s %7.1f s", t, b - a }')$'\n'
    [ $status -eq 0 ] || break
done
printf 'lane %s, wall seconds per target:\n%s' "$lane" "$report"
exit $status

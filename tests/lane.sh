#!/usr/bin/env bash
# Runs make targets one after the other, each as its own `make -j1 TARGET` (as `make -j1 T1 T2
# ...` would), stopping at the first that fails, and prints how long each took, wall and CPU
# seconds (its processes' user + system), when the lane ends, passed or not: make test's time
# is the sum of its lanes', and this says where it goes and which targets mostly wait.
# Usage: tests/lane.sh LANE-NAME TARGET...
set -uo pipefail
lane=$1
shift
# cpu: the CPU seconds the shell's finished children used so far, from bash's `times` (its
# second line) run in this shell (in a subshell it would count the subshell's own children)
times_file=$(mktemp)
trap 'rm -f "$times_file"' EXIT
children_cpu() {
    times > "$times_file"
    cpu=$(awk 'NR == 2 { n = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); n += a[1] * 60 + a[2] } print n }' "$times_file")
}
report=""
status=0
for t in "$@"; do
    start=$(date +%s.%N)
    children_cpu
    cpu0=$cpu
    make -j1 --no-print-directory "$t"
    status=$?
    children_cpu
    report+=$(awk -v t="$t" -v a="$start" -v b="$(date +%s.%N)" -v c0="$cpu0" -v c1="$cpu" \
        'BEGIN { printf "%-18s %7.1f s wall %7.1f s CPU", t, b - a, c1 - c0 }')$'\n'
    [ $status -eq 0 ] || break
done
printf 'lane %s, seconds per target:\n%s' "$lane" "$report"
exit $status

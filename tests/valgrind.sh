#!/usr/bin/env bash
# Runs Criterion test binaries under valgrind (memcheck, leaks) and fails on any report.
# Criterion runs each test in a child process, whose exit status valgrind cannot hand back,
# so every process writes its own log and a non-empty log is a failure.
set -uo pipefail
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
status=0
for bin in "$@"; do
  name=$(basename "$bin")
  valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
    --trace-children=yes --log-file="$logs/$name.%p.log" "$bin" --jobs "${VALGRIND_JOBS:-1}" \
    ${VALGRIND_FILTER:+--filter "$VALGRIND_FILTER"} || status=1
done
bad=0
for f in "$logs"/*.log; do
  if [ -s "$f" ]; then
    echo "valgrind reported in $(basename "$f"):" >&2
    cat "$f" >&2
    bad=1
  fi
done
if [ "$bad" -eq 0 ] && [ "$status" -eq 0 ]; then
  echo "valgrind: no errors and no leaks in $*"
  exit 0
fi
exit 1

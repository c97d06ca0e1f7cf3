#!/usr/bin/env bash
# The integration tests that do not measure real time (the concurrency test and the OpenAPI
# contract; under tsan also the concurrent commands), with the daemon under a checker; fails on any report, whether or not a test
# looked at the daemon's exit status. Every daemon process writes its own report file, and a
# non-empty one is a failure.
#   checked.sh valgrind   build/rodd under memcheck, followed into rodd-full (errors and definite/indirect leaks; fair
#                         scheduling, or a computing worker starves the REST threads)
#   checked.sh tsan       $RODD (a -fsanitize=thread build) under ThreadSanitizer
set -uo pipefail
mode=${1:?usage: checked.sh valgrind|tsan}
here=$(cd "$(dirname "$0")" && pwd)
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
files=("$here/concurrency.test.mjs" "$here/openapi.test.mjs")
case "$mode" in
  valgrind)
    export RODD_WRAP="valgrind -q --trace-children=yes --fair-sched=yes --leak-check=full --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect --log-file=$logs/rodd.%p.log"
    ;;
  tsan)
    export TSAN_OPTIONS="log_path=$logs/rodd second_deadlock_stack=1"
    # concurrent commands on one session and exports during layout changes (too slow under
    # valgrind: its export test runs a session at pace max)
    files+=("$here/commands.test.mjs")
    ;;
  *) echo "checked.sh: unknown mode $mode" >&2; exit 64 ;;
esac
bash "$here/run.sh" "${files[@]}"
status=$?
bad=0
if [ "$mode" = valgrind ] && ! ls "$logs"/rodd.*.log >/dev/null 2>&1; then
  echo "checked.sh: no daemon ran under valgrind (it writes a log file, empty when clean)" >&2
  bad=1
fi
for f in "$logs"/*; do
  if [ -s "$f" ]; then
    echo "$mode reported in $(basename "$f"):" >&2
    cat "$f" >&2
    bad=1
  fi
done
if [ "$bad" -eq 0 ] && [ "$status" -eq 0 ]; then
  echo "$mode: the daemon ran the concurrency and contract tests with no reports"
  exit 0
fi
exit 1

#!/usr/bin/env bash
# Runs a Criterion binary's tests in two processes side by side, each with one worker:
# under ASan one process with two Criterion workers cannot be used (Criterion's runner then
# leaks a few bytes of its own and LeakSanitizer fails the run), and one worker alone leaves
# the second core idle. Tests are dealt to the two processes in turn, so each suite's long
# tests are spread over both. Tests that together take about half of the suite's time (the
# solenoid alone once took 150 s of 315 here) are better given a process of their own from the
# start, the other taking all the rest: dealt in turn, or left for a worker to reach late, they
# would end last.
#   run_split.sh BIN [SKIP [ALONE]]   SKIP: a bash extglob of suite/test names to leave out;
#                                     ALONE: one for the tests that run in the first process,
#                                     every other test running in the second
set -uo pipefail
shopt -s extglob
bin=$1
skip=${2:-}
alone=${3:-}
if [ -n "$alone" ] && [ -n "$skip" ]; then
  echo "run_split.sh: SKIP and ALONE together are not supported" >&2
  exit 64
fi
names=()
suite=
while IFS= read -r line; do
  if [[ $line =~ ^([A-Za-z0-9_]+):\ [0-9]+\ tests?$ ]]; then
    suite=${BASH_REMATCH[1]}
  elif [[ $line =~ ^(├──|└──)\ (.+)$ ]]; then
    name="$suite/${BASH_REMATCH[2]}"
    if [ -n "$skip" ] && [[ $name == @($skip) ]]; then continue; fi
    names+=("$name")
  fi
done < <("$bin" --list 2>&1)
if [ ${#names[@]} -eq 0 ]; then
  echo "run_split.sh: $bin lists no tests" >&2
  exit 1
fi
lanes=("" "")
for i in "${!names[@]}"; do
  l=$((i % 2))
  lanes[$l]+="${lanes[$l]:+|}${names[$i]}"
done
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
pids=()
for l in 0 1; do
  [ -n "${lanes[$l]}" ] || continue
  filter="@(${lanes[$l]})"
  # ALONE and the rest as patterns, not name lists: Criterion's extglob parser fails an
  # assertion on a list of a hundred and more names
  [ -n "$alone" ] && filter=$([ "$l" = 0 ] && echo "@($alone)" || echo "!($alone)")
  "$bin" --jobs 1 --filter "$filter" > "$logs/$l.log" 2>&1 &
  pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
cat "$logs"/*.log
echo "run_split.sh: ${#names[@]} tests of $(basename "$bin") in two processes: $([ $status -eq 0 ] && echo passed || echo FAILED)"
exit $status

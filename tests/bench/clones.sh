#!/usr/bin/env bash
# make bench-clones: the engine's AVX2 clones (core/util/vector_clones.h) against the same
# source built without them. Every shipped example's first 0.3 s must print the same bytes
# from both (the clones change no rounding); the seed's contact cases print both CPU times.
# Usage: BUILD=build tests/bench/clones.sh (builds $BUILD-noclones beside $BUILD)
set -euo pipefail
build=${BUILD:-build}
base=$build-noclones
make -s -j2 BUILD="$base" CORE_OPT="-O3 -g -DROD_NO_VECTOR_CLONES" "$base/rodd"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
differ=0 count=0
for spec in api/examples/*.json; do
  count=$((count + 1))
  name=$(basename "$spec" .json)
  for b in "$build" "$base"; do
    "$b/rodd" run "$spec" --until 0.3 --every 0.05 > "$out/$name.$(basename "$b")" 2>/dev/null || true
  done
  if ! cmp -s "$out/$name.$(basename "$build")" "$out/$name.$(basename "$base")"; then
    echo "clones: $name prints different frames with and without the AVX2 clones" >&2
    differ=1
  fi
done
[ "$differ" -eq 0 ] && echo "clones: all $count examples print the same frames with and without them"
# median user + system CPU s of five runs of each, alternated
cpu_pair() {
  for _ in 1 2 3 4 5; do
    for b in "$build" "$base"; do
      /usr/bin/time -f "$b %U %S" "$b/rodd" run "$@" 2>&1 >/dev/null | awk '!/^rodd/ { print $1, $2 + $3 }'
    done
  done | awk -v a="$build" -v b="$base" '
    { v[$1] = v[$1] " " $2 }
    function median(s,   x, n, i, j, t) { n = split(s, x, " ")
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
      return x[int((n + 1) / 2)] }
    END { printf "CPU %.2f s with them, %.2f s without", median(v[a]), median(v[b]) }'
}
for run in snake-lateral-undulation:4 plectoneme:15 octopus-grasp:2 solenoid:5; do
  name=${run%:*} until=${run#*:}
  printf 'clones: %-26s %3s s simulated: %s\n' "$name" "$until" \
    "$(cpu_pair "api/examples/$name.json" --until "$until" --every 0.1)"
done
exit "$differ"

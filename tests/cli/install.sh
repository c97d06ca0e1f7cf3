#!/usr/bin/env bash
# The shipped examples wherever the daemon starts (issue 27, item 2): the checkout's binary run
# from an empty directory elsewhere, and `make install PREFIX=...`'s binary run from /, both
# list every example of api/examples and create a session from one, and serve the contract.
# Usage: tests/cli/install.sh [BUILD]   (the build directory whose rodd is tested)
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
case $build in /*) ;; *) build=$top/$build ;; esac
tmp=$(mktemp -d)
fails=0
pass() { echo "ok   $1"; }
fail() { echo "FAIL $1" >&2; fails=$((fails + 1)); }
pid=
stop() {
  [ -n "$pid" ] || return 0
  kill -TERM "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  pid=
}
trap 'stop; rm -rf "$tmp"' EXIT
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
shipped=$(ls "$top"/api/examples/*.json | wc -l)

# serve_from NAME LOG DIR BINARY: the daemon started in DIR with nothing configured but its
# port, its log in $tmp/LOG.log
serve_from() {
  local name=$1 log=$tmp/$2.log dir=$3 bin=$4 port
  port=$(free_port)
  (cd "$dir" && exec env -u RODD_EXAMPLES_DIR -u RODD_WEB_ROOT -u RODD_STATE_DIR -u RODD_CONFIG \
    "$bin" serve --listen "127.0.0.1:$port" >"$log" 2>&1) &
  pid=$!
  base=http://127.0.0.1:$port
  for _ in $(seq 200); do
    curl -sf -o /dev/null "$base/readyz" && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  local n
  n=$(curl -sf "$base/v1/examples" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["examples"]))')
  if [ "${n:-0}" = "$shipped" ]; then pass "$name: GET /v1/examples lists all $shipped shipped examples"; else
    fail "$name: GET /v1/examples lists ${n:-nothing}, not $shipped"; cat "$log" >&2
  fi
  local status
  status=$(curl -s -o /dev/null -w '%{http_code}' -H 'content-type: application/json' \
    -d '{"example": "octopus-reaching"}' "$base/v1/sessions")
  [ "$status" = 201 ] && pass "$name: a session from an example (201)" || fail "$name: POST example answered $status"
  status=$(curl -s -o /dev/null -w '%{http_code}' "$base/openapi.yaml")
  [ "$status" = 200 ] && pass "$name: GET /openapi.yaml (200)" || fail "$name: GET /openapi.yaml answered $status"
  if [ -f "$top/web/dist/index.html" ]; then # the viewer goes where the examples go, when built
    grep -q '<title>rodd viewer</title>' <<<"$(curl -s "$base/")" && pass "$name: GET / serves the viewer" ||
      fail "$name: GET / does not serve the built viewer"
  fi
  stop
}

mkdir -p "$tmp/elsewhere"
serve_from "build/rodd from another directory" elsewhere "$tmp/elsewhere" "$build/rodd"
grep -q "examples_dir=\"$top/api/examples\" from=binary_location" "$tmp/elsewhere.log" &&
  pass "its log says the examples came from beside the binary" || fail "no data line naming $top/api/examples"

# -o: install the binary under test as it is, never rebuilt with other flags
if make -s -C "$top" --no-print-directory -o "$build/rodd" install PREFIX="$tmp/prefix" BUILD="$build" >"$tmp/install.log" 2>&1; then
  pass "make install PREFIX=$tmp/prefix"
else
  fail "make install"; cat "$tmp/install.log" >&2
fi
for f in bin/rodd lib/rodd/rodd-full share/rodd/examples/octopus-reaching.json share/rodd/openapi.yaml share/rodd/spec.schema.json; do
  [ -e "$tmp/prefix/$f" ] || fail "make install left out PREFIX/$f"
done
serve_from "PREFIX/bin/rodd from /" installed / "$tmp/prefix/bin/rodd"
grep -q "examples_dir=\"$(realpath "$tmp")/prefix/share/rodd/examples\" from=binary_location" "$tmp/installed.log" &&
  pass "the installed daemon reads PREFIX/share/rodd/examples" ||
  fail "the installed daemon did not name PREFIX/share/rodd/examples"
[ "$fails" -eq 0 ] && echo "install: all passed" || echo "install: $fails failed" >&2
[ "$fails" -eq 0 ]

#!/usr/bin/env bash
# The README's first command as a newcomer meets it: `make run` itself (the target, not a copy
# of its command line, so the two cannot drift apart), from a fresh state directory, told its
# port by RODD_HTTP_PORT as the README says. Passes when the daemon listens on that port, runs
# the example's session with its time advancing, and serves the built viewer at /.
# Usage: tests/cli/run_target.sh [BUILD]   (BUILD: the build directory make run uses)
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
tmp=$(mktemp -d)
fails=0
pass() { echo "ok   $1"; }
fail() { echo "FAIL $1" >&2; fails=$((fails + 1)); }

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# its own session, so that make and the daemon it starts stop together, as Ctrl-C stops both
RODD_HTTP_PORT=$port setsid make -C "$top" --no-print-directory run BUILD="$build" RUN_STATE_DIR="$tmp/state" \
  >"$tmp/log" 2>&1 </dev/null &
leader=$!
stop() {
  kill -TERM -- "-$leader" 2>/dev/null
  for _ in $(seq 100); do kill -0 -- "-$leader" 2>/dev/null || break; sleep 0.1; done
  kill -KILL -- "-$leader" 2>/dev/null
  wait "$leader" 2>/dev/null
}
trap 'stop; rm -rf "$tmp"' EXIT

base=http://127.0.0.1:$port
ready=0
for _ in $(seq 300); do # make checks its targets first; the daemon itself is ready in a second
  if curl -sf -o /dev/null "$base/readyz"; then ready=1; break; fi
  kill -0 "$leader" 2>/dev/null || break
  sleep 0.1
done
if [ "$ready" = 1 ]; then pass "make run listens on RODD_HTTP_PORT ($port)"; else
  fail "make run: no daemon ready on port $port"; cat "$tmp/log" >&2; exit 1
fi
grep -q "open http://127.0.0.1:$port/" "$tmp/log" && pass "make run prints the address to open" ||
  fail "make run did not print http://127.0.0.1:$port/"

session_t() { # the one session's state and time, "running 1.23"
  curl -sf "$base/v1/sessions" | python3 -c '
import json, sys
s = json.load(sys.stdin)["sessions"]
print(len(s), s[0]["name"] if s else "-", s[0]["state"] if s else "-", s[0]["t"] if s else 0)'
}
read -r n name state t1 <<<"$(session_t)"
if [ "$n" = 1 ] && [ "$name" = octopus-reaching ] && [ "$state" = running ]; then
  pass "a fresh state directory starts the octopus-reaching example, running"
else
  fail "sessions: $n, first $name in state $state"
fi
sleep 1
read -r _ _ state t2 <<<"$(session_t)"
if python3 -c "import sys; sys.exit(0 if float('$t2') > float('$t1') else 1)"; then
  pass "its time advances ($t1 -> $t2 s in 1 s)"
else
  fail "its time did not advance: $t1 -> $t2 s (state $state)"
fi

page=$(curl -s -w '\n%{http_code} %{content_type}' "$base/")
status=$(tail -n1 <<<"$page")
if [[ "$status" == "200 text/html"* ]] && grep -q '<title>rodd viewer</title>' <<<"$page" &&
  grep -q 'src="app.js"' <<<"$page" && curl -sf -o /dev/null "$base/app.js"; then
  pass "GET / serves the built viewer"
else
  fail "GET /: $status, not the viewer"; head -c 400 <<<"$page" >&2
fi

stop
if grep -q 'event=stopped' "$tmp/log"; then pass "SIGTERM stops it with a drain"; else
  fail "no drain after SIGTERM"; tail -5 "$tmp/log" >&2
fi
[ "$fails" -eq 0 ] && echo "run target: all passed" || echo "run target: $fails failed" >&2
[ "$fails" -eq 0 ]

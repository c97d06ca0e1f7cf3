#!/usr/bin/env bash
# rodd optimize --daemon: the same evaluations, to the same values, on two daemons as in the
# process (statics by /v1/solve; dynamics as sessions, with --from), the bearer token, a
# daemon that answers errors counted as failed evaluations, one that is not there refused
# before any, --open making the best a session. The daemons keep no state directory: a
# checkpoint (each :advance's, with one) restarts the integrator, and the values would then
# differ at the solver's tolerance. About 10 s.
set -uo pipefail
# shellcheck source=tests/cli/lib.sh
source "$(dirname "$0")/lib.sh"

ex=$top/api/examples/stiffness-tuning.json
T="actuators.0.tension,actuators.1.tension,actuators.2.tension,actuators.3.tension"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# start_daemon NAME [ENV=VALUE...]: a daemon on a free port, its URL in $url once it says it listens
start_daemon() {
  local name=$1 port
  shift
  port=$(free_port)
  env RODD_WORKERS=1 "$@" "$rodd" serve --listen "127.0.0.1:$port" >"$tmp/$name.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 100); do
    grep -q "event=listening" "$tmp/$name.log" && break
    sleep 0.1
  done
  grep -q "event=listening" "$tmp/$name.log" || { fail "daemon $name did not start"; cat "$tmp/$name.log" >&2; }
  url=http://127.0.0.1:$port
}
start_daemon a
a=$url
start_daemon b
b=$url

# same_log NAME DIR1 DIR2: the evaluations (index, generation, status, objective, parameters) agree
same_log() {
  python3 - "$2/evaluations.csv" "$3/evaluations.csv" <<'PY' && pass "$1" || fail "$1"
import csv, sys
a, b = (list(csv.reader(open(p))) for p in sys.argv[1:3])
assert len(a) == len(b) > 1, (len(a), len(b))
worst = 0
for x, y in zip(a[1:], b[1:]):
    assert x[:3] == y[:3] and x[4:-1] == y[4:-1], (x, y)
    fx, fy = float(x[3]), float(y[3])
    worst = max(worst, abs(fx - fy) / max(abs(fx), 1e-300))
assert worst <= 1e-12, worst
print(f"     {len(a) - 1} evaluations, largest relative difference {worst:.1e}")
PY
}

expect "statics in the process" 0 "$rodd" optimize "$ex" --vary "$T=0:0.5" --minimize "(tip_z-0.49)^2+1e-3*effort" \
  --evaluations 24 --out "$tmp/s0"
expect "statics on two daemons" 0 "$rodd" optimize "$ex" --vary "$T=0:0.5" --minimize "(tip_z-0.49)^2+1e-3*effort" \
  --evaluations 24 --daemon "$a" --daemon "$b" --out "$tmp/s2"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["connections"] == 2, d' "$tmp/out" \
  && pass "  24 evaluations over 2 connections (kept alive, one per daemon)" || fail "statics connections"
same_log "statics: the daemons' objectives are the process's to 1e-12" "$tmp/s0" "$tmp/s2"

q="com_vz+tip_z+energy_kinetic+energy_elastic+volume_change+1e-9*effort"
expect "dynamics in the process" 0 "$rodd" optimize "$ex" --vary "$T=0:0.5" --maximize "$q" --until 0.1 --from 0.03 \
  --evaluations 8 --jobs 2 --out "$tmp/d0"
expect "dynamics on two daemons, 2 in flight on each" 0 "$rodd" optimize "$ex" --vary "$T=0:0.5" --maximize "$q" \
  --until 0.1 --from 0.03 --evaluations 8 --daemon "$a" --daemon "$b" --jobs 2 --out "$tmp/d2"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["connections"] == 4, d' "$tmp/out" \
  && pass "  8 sessions' requests over 4 connections (2 threads a daemon)" || fail "dynamics connections"
same_log "dynamics: the daemons' objectives are the process's to 1e-12" "$tmp/d0" "$tmp/d2"
# several rods (issue 29): a rod's own quantities, statics by /v1/solve and dynamics by
# sessions and their checkpoints, as in the process
rods=$here/rods.json
for mode in statics dynamics; do
  rq="1e3*(upper.tip_x-0.0008)^2+tip_z" extra=()
  [ "$mode" = dynamics ] && rq="$rq+lower.com_vx" extra=(--until 0.02)
  for where in process daemon; do
    on=(); [ "$where" = daemon ] && on=(--daemon "$a")
    expect "several rods, $mode in the $where" 0 "$rodd" optimize "$rods" --set 'environment.gravity=[0.00981,0,0]' \
      --vary 'rods.0.rod.youngs_modulus=5e5:4e6' --minimize "$rq" "${extra[@]}" --evaluations 6 "${on[@]}" \
      --out "$tmp/r-$mode-$where"
  done
  same_log "several rods, $mode: the daemon's objectives are the process's to 1e-12" "$tmp/r-$mode-process" "$tmp/r-$mode-daemon"
done

grep -q "event=session_created" "$tmp/a.log" && grep -q "event=session_created" "$tmp/b.log" \
  && pass "both daemons ran sessions" || fail "a daemon was idle"
curl -s "$a/v1/sessions" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["sessions"] == [], d' \
  && pass "every evaluation's session is deleted" || fail "sessions left on the daemon"

# the bearer token: RODD_TOKEN
start_daemon t RODD_TOKENS=operator:optimize-test-token-1
expect "RODD_TOKEN is the bearer token" 0 env RODD_TOKEN=optimize-test-token-1 "$rodd" optimize "$ex" --vary "$T=0:0.5" \
  --minimize "(tip_z-0.49)^2" --method bobyqa --evaluations 30 --daemon "$url"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["failed"] == 0 and d["objective"] < 1e-12, d' \
  "$tmp/out" && pass "  and every evaluation ran" || fail "token"
expect "without it each evaluation fails, and is counted" 1 "$rodd" optimize "$ex" --vary "$T=0:0.5" \
  --minimize "(tip_z-0.49)^2" --evaluations 4 --daemon "$url"
grep -q "answered 401" "$tmp/err" && pass "  the failures name the daemon's 401" || { fail "401 message"; cat "$tmp/err" >&2; }

# a daemon that is ready but answers every evaluation with an error: failed evaluations, no crash
port=$(free_port)
python3 - "$port" >"$tmp/fake.log" 2>&1 <<'PY' &
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def reply(self, code, body):
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def do_GET(self):
        self.reply(200 if self.path == "/readyz" else 404, b'{"status":"ready"}')
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.reply(500, b'{"type":"/problems/internal","title":"Internal","status":500,"detail":"broken on purpose"}')
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
pids+=($!)
for _ in $(seq 50); do curl -s "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.1; done
expect "a daemon answering 500: failed evaluations, the run goes on (exit 1: none succeeded)" 1 "$rodd" optimize \
  "$ex" --vary "$T=0:0.5" --minimize "(tip_z-0.49)^2" --evaluations 8 --daemon "http://127.0.0.1:$port" --out "$tmp/f"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["evaluations"] == 8 and d["failed"] == 8, d' \
  "$tmp/out" && pass "  all 8 counted in failed" || fail "failed count with a broken daemon"
grep -q "answered 500: broken on purpose" "$tmp/f/evaluations.csv" && pass "  and logged with the daemon's detail" \
  || fail "500 in the CSV"

expect "a daemon that is not there is refused before any evaluation" 1 "$rodd" optimize "$ex" --vary "$T=0:0.5" \
  --minimize tip_z --daemon "http://127.0.0.1:$(free_port)" --out "$tmp/none"
grep -q "is not ready: daemon cannot connect" "$tmp/err" && [ ! -e "$tmp/none" ] && pass "  naming it, nothing written" \
  || { fail "unreachable daemon"; cat "$tmp/err" >&2; }
expect "a URL that is not http:// is refused" 64 "$rodd" optimize "$ex" --vary "$T=0:0.5" --minimize tip_z \
  --daemon ftp://example.org
grep -q "only http://HOST\[:PORT\] daemons" "$tmp/err" && pass "  saying so" || fail "ftp message"

# --open: the best as a session on a daemon, best.json in --out
expect "--open makes the best a session" 0 "$rodd" optimize "$ex" --vary "$T=0:0.5" --minimize "(tip_z-0.49)^2" \
  --method bobyqa --evaluations 40 --open "$a" --out "$tmp/open"
sess=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["session"])' "$tmp/out")
python3 - "$tmp/out" "$tmp/open/best.json" <(curl -s "$sess/checkpoint") <<'PY' && pass "  whose spec is best.json's, at the best tension" || fail "--open session"
import json, sys
d = json.load(open(sys.argv[1]))
best = json.load(open(sys.argv[2]))
cp = json.load(open(sys.argv[3]))
t = d["best"]["actuators.0.tension"]
assert all(best["actuators"][i]["tension"] == t for i in range(4)), best["actuators"]
assert cp["spec"]["actuators"][0]["tension"] == t and cp["name"] == "rodd optimize: best", cp["name"]
PY

[ "$fails" -eq 0 ] && echo "cli optimize --daemon: all passed" || echo "cli optimize --daemon: $fails failed" >&2
exit $((fails > 0))

#!/usr/bin/env bash
# The MATLAB client's tests, run by GNU Octave (Debian's octave; deploy/setup.sh installs it)
# against the real daemon ($RODD, default build/rodd).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
rodd=${RODD:-$top/build/rodd}
command -v octave-cli >/dev/null || { echo "clients/matlab: octave-cli not found (deploy/setup.sh installs octave)" >&2; exit 1; }
state=$(mktemp -d)
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
http=$(free_port)
ws=$(free_port)
RODD_WORKERS=2 "$rodd" serve --listen "127.0.0.1:$http" --ws-port "$ws" --state-dir "$state" 2>"$state/log" &
pid=$!
# a second daemon that closes a connection idle for 1 s: the kept-alive socket must reconnect
idle=$(free_port)
RODD_WORKERS=1 RODD_CONNECTION_TIMEOUT=1 RODD_REQUEST_TIMEOUT=1 "$rodd" serve --listen "127.0.0.1:$idle" \
  --state-dir "$state/idle" 2>"$state/idle.log" &
idle_pid=$!
trap 'kill "$pid" "$idle_pid" 2>/dev/null; wait "$pid" "$idle_pid" 2>/dev/null; rm -rf "$state"' EXIT
for port in "$http" "$idle"; do
  for _ in $(seq 100); do
    curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break
    sleep 0.1
  done
done
cd "$state" && octave-cli --no-gui --norc -q --eval \
  "addpath('$here'); test_rodd('http://127.0.0.1:$http', 'http://127.0.0.1:$idle')"

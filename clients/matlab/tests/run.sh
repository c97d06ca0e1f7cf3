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
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$state"' EXIT
for _ in $(seq 100); do
  curl -sf "http://127.0.0.1:$http/readyz" >/dev/null && break
  sleep 0.1
done
cd "$state" && octave-cli --no-gui --norc -q --eval "addpath('$here'); test_rodd('http://127.0.0.1:$http')"

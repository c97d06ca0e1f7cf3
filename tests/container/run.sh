#!/usr/bin/env bash
# The image, built and run for real with podman (no Docker engine here): a Debian bookworm
# base made locally with debootstrap from this machine's own mirror, the Dockerfile built
# with it, the container started on host networking, a session created over REST from the
# host, a frame read, its stream opened on the same one port, SIGTERM, a restart on the same
# volume, the session found restored.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
bash deploy/setup.sh --container
work=$(mktemp -d)
export CONTAINERS_CONF="$work/containers.conf"
printf '[containers]\ndefault_ulimits = []\n' > "$CONTAINERS_CONF"
P=(podman --runtime runc)
base=localhost/rodd-base:bookworm
image=localhost/rodd:test
name=rodd-test-$$
vol=rodd-test-state-$$
cleanup() {
  "${P[@]}" rm -f "$name" >/dev/null 2>&1 || true
  "${P[@]}" volume rm -f "$vol" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
say() { echo "container: $*"; }

if ! "${P[@]}" image exists "$base"; then
  mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
  [ -n "$mirror" ] || mirror=$(awk '/^deb / {print $2; exit}' /etc/apt/sources.list)
  say "making the base image with debootstrap from $mirror"
  debootstrap --variant=minbase bookworm "$work/root" "$mirror" >"$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log"; exit 1; }
  tar -C "$work/root" -c . | "${P[@]}" import - "$base" >/dev/null
  rm -rf "$work/root"
fi
# the viewer is built here, where npm reaches its registry, and carried into the image
if [ -f web/build.sh ] && [ ! -f web/dist/index.html ]; then
  say "building the viewer"
  bash web/build.sh >"$work/web.log" 2>&1 || { tail -20 "$work/web.log"; exit 1; }
fi
say "building the image"
"${P[@]}" build --format docker --network=host --build-arg BASE="$base" -t "$image" . >"$work/build.log" 2>&1 ||
  { tail -40 "$work/build.log"; exit 1; }
grep -q "runtime packages match" "$work/build.log" && say "ok   the runtime stage carries exactly the linked libraries"
inspect() { "${P[@]}" image inspect "$image" | python3 -c "import json, sys; d = json.load(sys.stdin)[0]; print(json.dumps($1))"; }
health=$(inspect 'd.get("Healthcheck")')
if echo "$health" | grep -q "rodd"; then say "ok   HEALTHCHECK runs rodd probe: $health"; else say "FAIL no HEALTHCHECK: $health"; exit 1; fi
user=$(inspect 'd["Config"].get("User", "")' | tr -d '"')
[ "$user" = rodd ] && say "ok   runs as the non-root user rodd" || { say "FAIL user is '$user'"; exit 1; }

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# (without systemd podman cannot schedule the health check's timer and says so: noise)
run() {
  "${P[@]}" run -d --name "$name" --network=host -v "$vol:/var/lib/rodd" \
    -e RODD_LISTEN="127.0.0.1:$port" "$image" >/dev/null 2>>"$work/podman.log" ||
    { cat "$work/podman.log"; exit 1; }
}
wait_ready() {
  for _ in $(seq 1 100); do
    curl -sf "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  "${P[@]}" logs "$name" | tail -20
  return 1
}
"${P[@]}" volume create "$vol" >/dev/null
run
wait_ready && say "ok   the container serves /readyz"
"${P[@]}" exec "$name" rodd probe >/dev/null && say "ok   rodd probe inside the container"
"${P[@]}" healthcheck run "$name" 2>>"$work/podman.log" && say "ok   the image's HEALTHCHECK passes"
id=$(curl -sf -X POST "http://127.0.0.1:$port/v1/sessions" -H 'content-type: application/json' \
  -d '{"example": "stiffness-tuning", "start": true, "name": "from-the-host"}' |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
say "ok   created session $id over REST from the host"
sleep 0.5
curl -sf "http://127.0.0.1:$port/v1/sessions/$id/frame" | python3 -c '
import json, sys
f = json.load(sys.stdin)
assert f["t"] > 0 and len(f["position"]) == 51, f["t"]' && say "ok   read a frame"
# the stream, on the REST port (the image exposes no other)
python3 - "$port" "$id" <<'PY' && say "ok   streamed it on the one port"
import importlib.util, json, sys, urllib.request
# the client's own WebSocket alone (its standard-library one: the package wants NumPy)
spec = importlib.util.spec_from_file_location("ws", "clients/python/src/rodd/_websocket_stdlib.py")
ws_module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ws_module)
WebSocket = ws_module.WebSocket
port, sid = sys.argv[1], sys.argv[2]
url = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/sessions/{sid}"))["stream_url"]
assert url == f"ws://127.0.0.1:{port}/v1/sessions/{sid}/stream", url
ws = WebSocket(url, timeout=10)
ops = [json.loads(ws.recv())["op"] for _ in range(3)]
assert ops == ["hello", "description", "frame"], ops
ws.close()
PY
"${P[@]}" stop -t 30 "$name" >/dev/null 2>>"$work/podman.log"
code=$("${P[@]}" inspect "$name" --format '{{.State.ExitCode}}')
[ "$code" = 0 ] && say "ok   SIGTERM: drained and exited 0" || { say "FAIL exit code $code"; "${P[@]}" logs "$name" | tail; exit 1; }
"${P[@]}" start "$name" >/dev/null 2>>"$work/podman.log"
wait_ready
curl -sf "http://127.0.0.1:$port/v1/sessions/$id" | python3 -c '
import json, sys
s = json.load(sys.stdin)
assert s["name"] == "from-the-host" and s["t"] > 0, s' && say "ok   restarted on the same volume: the session is restored"
"${P[@]}" logs "$name" 2>&1 | grep -q "session_restored" && say "ok   the log says so"
say "all passed"

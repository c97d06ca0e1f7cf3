#!/usr/bin/env bash
# rodd behind a real TLS reverse proxy (Debian's nginx, deploy/nginx/rodd.conf) with ONE
# upstream, the daemon's REST port (it runs no stream port of its own): the Python client
# creates a session over https, the announced stream_url is the proxy's wss:// URL (built by
# the daemon from the proxy's Host and X-Forwarded-Proto, no RODD_PUBLIC_STREAM_URL), frames
# stream through it, a cross-site page is refused through it, a recording downloads through it.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
rodd=${RODD:-$top/build/rodd}
command -v nginx >/dev/null || { echo "proxy: nginx not found (deploy/setup.sh installs nginx-light)" >&2; exit 1; }
py=""
for p in python3 /usr/bin/python3; do "$p" -c 'import numpy' 2>/dev/null && { py=$p; break; }; done
[ -n "$py" ] || { echo "proxy: no python3 with numpy" >&2; exit 1; }
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  [ -f "$tmp/nginx.pid" ] && kill "$(cat "$tmp/nginx.pid")" 2>/dev/null
  sleep 0.2
  rm -rf "$tmp"
}
trap cleanup EXIT
free_port() { "$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
http=$(free_port); px=$(free_port)

openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1" \
  -keyout "$tmp/key.pem" -out "$tmp/cert.pem" 2>/dev/null || { echo "proxy: openssl failed" >&2; exit 1; }
mkdir -p "$tmp/logs" "$tmp/temp"
user=""
[ "$(id -u)" -eq 0 ] && user="user root;"
sed -e "s|@LISTEN@|127.0.0.1:$px|" -e "s|@SERVER_NAME@|127.0.0.1|" -e "s|@CERT@|$tmp/cert.pem|" \
    -e "s|@KEY@|$tmp/key.pem|" -e "s|@RODD_HOST@|127.0.0.1|g" \
    -e "s|@RODD_HTTP_PORT@|$http|" "$top/deploy/nginx/rodd.conf" >"$tmp/site.conf"
! grep -q '@[A-Z_]*@' "$tmp/site.conf" || { echo "proxy: deploy/nginx/rodd.conf names a placeholder run.sh does not fill" >&2; exit 1; }
n=$(grep -c "^[[:space:]]*proxy_pass" "$tmp/site.conf")
[ "$n" -eq 1 ] || { echo "proxy: deploy/nginx/rodd.conf has $n proxy_pass lines, expected one upstream" >&2; exit 1; }
cat >"$tmp/nginx.conf" <<CONF
$user
worker_processes 1;
daemon on;
pid $tmp/nginx.pid;
error_log $tmp/logs/error.log warn;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path $tmp/temp/body;
  proxy_temp_path $tmp/temp/proxy;
  fastcgi_temp_path $tmp/temp/fastcgi;
  uwsgi_temp_path $tmp/temp/uwsgi;
  scgi_temp_path $tmp/temp/scgi;
  include $tmp/site.conf;
}
CONF
nginx -p "$tmp" -c "$tmp/nginx.conf" -e "$tmp/logs/error.log" || { echo "proxy: nginx did not start" >&2; cat "$tmp/logs/error.log" >&2; exit 1; }

env -u RODD_PUBLIC_STREAM_URL -u RODD_WS_PORT RODD_WORKERS=2 \
  "$rodd" serve --listen "127.0.0.1:$http" --state-dir "$tmp/state" 2>"$tmp/rodd.log" &
pids+=($!)
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$http/readyz" >/dev/null && break; sleep 0.1; done
"$py" "$here/check_proxy.py" "https://127.0.0.1:$px" "$tmp/cert.pem"
status=$?
if [ "$status" -eq 0 ] && grep -q "stream_port=" "$tmp/rodd.log"; then
  echo "FAIL the daemon listened on a stream port of its own: the proxy was to need one upstream" >&2
  status=1
fi
[ "$status" -eq 0 ] || { echo "--- nginx error log" >&2; cat "$tmp/logs/error.log" >&2; echo "--- rodd" >&2; tail -20 "$tmp/rodd.log" >&2; }
exit "$status"

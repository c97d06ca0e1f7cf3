#!/usr/bin/env bash
# The tutorial runs as written: every ```sh block of docs/tutorial.md, in order, in one shell
# with `set -e`, from the repository's top directory and with a temporary $HOME (where the
# tutorial works). Only the daemon's ports change (to free ones), so that a daemon already on
# 8080 does not matter. The blocks' own checks (rodd check, exit statuses, python asserts) and
# the commands' exit statuses are the test, and what they print against the console blocks
# (console.py: every number as shown, those marked ~ varying).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
cleanup() {
  # the tutorial stops its daemon itself; if a block failed first, stop it here
  if [ -f "$work/home/rodd-tutorial/serve.pid" ]; then kill "$(cat "$work/home/rodd-tutorial/serve.pid")" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
http=$(free_port)
mkdir -p "$work/home"
{
  echo 'set -euo pipefail'
  # the sh blocks, in order, each output after a marker; a background daemon records its pid
  # for the cleanup above
  awk '/^```sh$/ { on = 1; print "echo @@block " ++n "@@"; next } /^```/ { on = 0 } on' "$top/docs/tutorial.md" |
    sed -e "s/127\.0\.0\.1:8080/127.0.0.1:$http/g" \
        -e 's/^\(rodd serve .*\) &$/\1 \& echo $! > serve.pid/'
} >"$work/tutorial.sh"
blocks=$(grep -c '^```sh$' "$top/docs/tutorial.md")
cd "$top"
if HOME="$work/home" bash "$work/tutorial.sh" >"$work/out.txt" 2>&1; then
  [ -z "${VERBOSE:-}" ] || cat "$work/out.txt"
  echo "ok   docs/tutorial.md: all $blocks sh blocks ran"
  python3 "$here/console.py" "$top/docs/tutorial.md" "$work/out.txt"
else
  rc=$?
  cat "$work/out.txt" >&2
  echo "FAIL docs/tutorial.md: a command failed (exit $rc); the script was:" >&2
  cat -n "$work/tutorial.sh" >&2
  exit 1
fi

#!/usr/bin/env bash
# The layers check (check_layers.py) and the rooms check (check_rooms.py) on this build, after
# seeing them fail on small trees with one breach each: a cycle between two files of a layer, a
# call from util/ into stages/, a call between two stages, a server file that includes a layer's
# header, a cycle between two rooms of server/, one between two files of a room, and a call from
# a room into a later one.
#   run.sh BUILD_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# tree NAME: makes $tmp/NAME with core/util and core/stages; files given as PATH=TEXT
tree() {
  local name=$1; shift
  mkdir -p "$tmp/$name/core/util" "$tmp/$name/core/stages" "$tmp/$name/server"
  for f in "$@"; do printf '%s\n' "${f#*=}" > "$tmp/$name/${f%%=*}"; done
  for c in "$tmp/$name"/core/*/*.c "$tmp/$name"/server/*/*.c; do
    [ -e "$c" ] || continue
    local rel=${c#"$tmp/$name/"}
    mkdir -p "$tmp/$name/build/$(dirname "$rel")"
    cc -c "$c" -o "$tmp/$name/build/${rel%.c}.o"
  done
}
expect_breach() {
  local name=$1 what=$2 check=${3:-check_layers.py}
  if python3 "$here/$check" "$tmp/$name/build" --root "$tmp/$name" 2> "$tmp/$name.err"; then
    echo "check_layers passed a tree with $what" >&2
    exit 1
  fi
  grep -q "$what" "$tmp/$name.err" || { cat "$tmp/$name.err" >&2; exit 1; }
}

tree cycle 'core/util/a.c=int b(void); int a(void) { return b(); }' \
           'core/util/b.c=int a(void); int b(void) { return a() + 1; }'
expect_breach cycle "a cycle between files of core/: a <-> b"
tree upward 'core/util/a.c=int c(void); int a(void) { return c(); }' \
            'core/stages/c.c=int c(void) { return 1; }'
expect_breach upward "core/util/a.c calls into a later layer: core/stages/c.c"
tree sideways 'core/stages/c.c=int d(void); int c(void) { return d(); }' \
              'core/stages/d.c=int d(void) { return 1; }'
expect_breach sideways "core/stages/c.c calls another stage: core/stages/d.c"
tree server 'core/util/a.c=int a(void) { return 1; }' 'core/util/a.h=int a(void);' \
            'server/s.c=#include "a.h"'
expect_breach server "server/s.c includes core's internal util/a.h"

mkdir -p "$tmp/rooms/server/a" "$tmp/rooms/server/b"
tree rooms 'server/a/x.c=int y(void); int x(void) { return y(); }' \
           'server/b/y.c=int x(void); int y(void) { return x() + 1; }'
expect_breach rooms "a cycle between rooms of server/: a <-> b" check_rooms.py
mkdir -p "$tmp/files/server/a"
tree files 'server/a/x.c=int y(void); int x(void) { return y(); }' \
           'server/a/y.c=int x(void); int y(void) { return x() + 1; }'
expect_breach files "a cycle between files of server/: server/a/x <-> server/a/y" check_rooms.py
mkdir -p "$tmp/later/server/util" "$tmp/later/server/http"
tree later 'server/util/x.c=int y(void); int x(void) { return y(); }' 'server/http/y.c=int y(void) { return 1; }'
expect_breach later "server/util calls a later room: server/http" check_rooms.py

python3 "$here/check_layers.py" "$build"
python3 "$here/check_rooms.py" "$build"

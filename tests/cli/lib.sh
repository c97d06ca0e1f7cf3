# Sourced by the tests/cli/*.sh scripts: where things are, a scratch directory removed on exit,
# and the pass/fail/expect counters every script reports through.
here=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
top=$(cd "$here/../.." && pwd)
rodd=${RODD:-$top/build/rodd}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
pass() { echo "ok   $1"; }
fail() { echo "FAIL $1" >&2; fails=$((fails + 1)); }

# expect NAME STATUS CMD...: runs CMD with stdout/stderr captured in $tmp/out, $tmp/err
expect() {
  local name=$1 want=$2
  shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  if [ "$rc" -eq "$want" ]; then pass "$name"; else fail "$name: exit $rc, wanted $want"; cat "$tmp/err" >&2; fi
}

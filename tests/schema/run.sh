#!/usr/bin/env bash
# The spec schema against the examples and a set of invalid specs, with ajv (independent of
# rodd) and with `rodd check` (the parser): both must agree on every file.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
rodd=${RODD:-$top/build/rodd}
if [ ! -d "$here/node_modules/ajv" ]; then
  (cd "$here" && npm ci --no-audit --no-fund --silent)
fi
node "$here/validate.mjs"
fail=0
for f in "$top"/api/examples/*.json; do
  if ! "$rodd" check "$f" >/dev/null; then echo "rodd check refused example $f" >&2; fail=1; fi
done
for f in "$here"/invalid/*.json; do
  set +e
  "$rodd" check "$f" >/dev/null 2>&1
  rc=$?
  set -e
  if [ "$rc" -ne 2 ]; then echo "rodd check accepted invalid $f (exit $rc)" >&2; fail=1; fi
done
[ "$fail" -eq 0 ] && echo "schema and parser agree on every example and invalid spec"
exit "$fail"

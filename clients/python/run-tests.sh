#!/usr/bin/env bash
# The Python client's tests against the real daemon ($RODD, default build/rodd), with a
# python3 that has NumPy (Debian's python3-numpy; deploy/setup.sh installs it), then the
# README's offline install into a venv that sees Debian's packages.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
py=
for p in python3 /usr/bin/python3; do
  if "$p" -c 'import numpy' 2>/dev/null; then py=$p; break; fi
done
[ -n "$py" ] || { echo "clients/python: no python3 with numpy (deploy/setup.sh installs python3-numpy)" >&2; exit 1; }
"$py" -m unittest discover -s "$here/tests" -t "$here/tests" -v

# pip install on Debian 12's own Python (PEP 668: into a venv) and offline (Debian's
# setuptools builds it, no index). The venv is made without its own pip and Debian's pip
# installs into it (--python): the same build and install as the README's venv/bin/pip, in
# 3 s instead of 11. A copy of the client keeps setuptools' build/ out of the tree.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$here/pyproject.toml" "$here/README.md" "$here/src" "$work/"
"$py" -m venv --system-site-packages --without-pip "$work/venv"
"$py" -m pip --python "$work/venv/bin/python" install --no-build-isolation --no-index --quiet "${work}[websocket]"
(cd "$work/venv" && bin/python - "$work/venv" <<'PY')
import sys
import rodd
assert rodd.__file__.startswith(sys.argv[1] + "/lib/"), rodd.__file__  # the installed copy, not the source
assert rodd.WEBSOCKET_BACKENDS[0] == "websocket-client", rodd.WEBSOCKET_BACKENDS
print(f"ok   pip install --no-build-isolation --no-index into a venv: rodd {rodd.__version__}, "
      f"streams through {rodd.WEBSOCKET_BACKENDS[0]}")
PY

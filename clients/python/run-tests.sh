#!/usr/bin/env bash
# The Python client's tests against the real daemon ($RODD, default build/rodd), with a
# python3 that has NumPy (Debian's python3-numpy; deploy/setup.sh installs it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
for p in python3 /usr/bin/python3; do
  if "$p" -c 'import numpy' 2>/dev/null; then
    exec "$p" -m unittest discover -s "$here/tests" -t "$here/tests" -v
  fi
done
echo "clients/python: no python3 with numpy (deploy/setup.sh installs python3-numpy)" >&2
exit 1

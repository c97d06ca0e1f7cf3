#!/usr/bin/env bash
# The daemon's integration tests (node:test), after installing their npm packages; arguments
# name test files to run instead of all.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -d "$here/node_modules/ws" ]; then
  (cd "$here" && npm ci --no-audit --no-fund --silent)
fi
cd "$here/../.."
RODD=${RODD:-build/rodd} node --test --test-concurrency=2 "${@:-tests/integration/}"

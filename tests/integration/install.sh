#!/usr/bin/env bash
# The integration tests' npm packages (ws, @mcap/core, @foxglove/ws-protocol), installed by
# npm ci when one is missing. run.sh and tests/cli/mcap.sh call it, and make test once before
# its two lanes start: npm ci empties node_modules first, so two lanes installing at once
# would pull the packages from under each other's tests.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -d "$here/node_modules/ws" ] || [ ! -d "$here/node_modules/@mcap/core" ] || [ ! -d "$here/node_modules/@foxglove/ws-protocol" ]; then
  (cd "$here" && npm ci --no-audit --no-fund --silent)
fi

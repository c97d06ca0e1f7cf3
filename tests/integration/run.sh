#!/usr/bin/env bash
# The daemon's integration tests (node:test), after installing their npm packages; arguments
# name test files to run instead of all. Three files at once: each starts its own daemons on
# free ports and mostly waits on them (62 -> 46 s here, under ASan alike; 53 s with two
# simulation processes busy beside them).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bash "$here/install.sh"
cd "$here/../.."
# a test that hangs fails after 10 minutes (times RODD_TEST_TIME_SCALE) instead of holding
# the whole suite until CI gives up
scale=${RODD_TEST_TIME_SCALE:-1}
timeout_ms=$(awk -v s="$scale" 'BEGIN { printf "%d", 600000 * s }')
RODD=${RODD:-build/rodd} node --test --test-concurrency=3 --test-timeout="$timeout_ms" "${@:-tests/integration/}"

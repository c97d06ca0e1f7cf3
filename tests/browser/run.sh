#!/usr/bin/env bash
# The viewer's browser tests: installs playwright-core (npm ci; it never downloads a browser),
# builds the viewer when web/dist is missing, then runs tests/browser/*.test.mjs with node:test.
# Each test file starts the real daemon (build/rodd, or $RODD) on free loopback ports with
# --web-root web/dist and a temporary --state-dir, and stops it when done (harness.mjs: the
# restart test must stop it and start it again on the same ports), so three files run at once:
# the tests mostly wait on Chromium and the daemon's real time (122 -> 68 s here; 83 s with
# two simulation processes busy beside them). Chromium: /usr/bin/chromium
# (apt package chromium), or $CHROMIUM. Screenshots go to tests/browser/artifacts/.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
if [ ! -x "${CHROMIUM:-/usr/bin/chromium}" ]; then
  echo "tests/browser: ${CHROMIUM:-/usr/bin/chromium} is missing (apt-get install -y chromium)" >&2
  exit 1
fi
if [ ! -f "$here/node_modules/playwright-core/package.json" ] ||
   [ "$here/package-lock.json" -nt "$here/node_modules/.package-lock.json" ]; then
  (cd "$here" && npm ci --no-audit --no-fund --ignore-scripts --silent)
fi
if [ ! -f "$top/web/dist/index.html" ]; then
  bash "$top/web/build.sh"
fi
cd "$top"
export RODD=${RODD:-build/rodd}
# the longest files first, so the last to start are short and the three slots end together
# (make test's run: first hour 80 s, viewer 74, group 51, replay 35, one port 28, contacts 20,
# rods 17, attachments 17, modules 5; alphabetical order left first hour and viewer to the end,
# 144 s of test time where 117 do); a file not named here runs after these
files=()
for name in firsthour viewer group replay oneport contacts rods attachments modules; do
  files+=("tests/browser/$name.test.mjs")
done
for f in tests/browser/*.test.mjs; do
  case " ${files[*]} " in *" $f "*) ;; *) files+=("$f") ;; esac
done
node --test --test-concurrency=3 --test-timeout=300000 "${files[@]}"

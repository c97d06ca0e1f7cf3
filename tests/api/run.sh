#!/usr/bin/env bash
# The contract documents on their own: redocly lint of api/openapi.yaml (api/redocly.yaml:
# the recommended rules, as errors) and api/asyncapi.yaml against AsyncAPI 3 and openapi.yaml.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -x "$here/node_modules/.bin/redocly" ] || [ ! -d "$here/node_modules/@asyncapi/parser" ]; then
  (cd "$here" && npm ci --no-audit --no-fund --silent)
fi
cd "$here/../.."
# no telemetry, no update check: the test must not reach the network
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true
"$here/node_modules/.bin/redocly" lint --config api/redocly.yaml api/openapi.yaml 2>&1 | grep -v -e '^\s*[║╔╚]' -e '^$'
node "$here/validate-asyncapi.mjs"

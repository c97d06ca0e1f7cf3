#!/usr/bin/env bash
# The deployment files, checked: Kubernetes objects against the API's schemas, the compose
# file by docker-compose's own validation, YAML style by yamllint, scripts by shellcheck, and
# the session router's rules with two real daemons behind a real nginx (routing.mjs).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
if [ ! -d "$here/node_modules/kubernetes-models" ]; then
  (cd "$here" && npm ci --no-audit --no-fund --silent)
fi
node "$here/validate-k8s.mjs"
yamllint -d '{extends: default, rules: {line-length: {max: 120}, document-start: disable, truthy: {check-keys: false}}}' \
  "$top"/deploy/compose.yaml "$top"/deploy/k8s/*.yaml
echo "ok yamllint"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$top/deploy/compose.yaml" "$tmp/compose.yaml"
cp "$top/deploy/tokens.example" "$tmp/tokens.txt"
(cd "$tmp" && docker-compose -f compose.yaml config -q)
echo "ok docker-compose config"
shellcheck -x -P "$top" -S warning "$top"/deploy/*.sh "$top"/deploy/slurm/sweep.sbatch "$top"/tests/*.sh "$top"/tests/*/run.sh \
  "$top"/tests/validation/reaching.sh
echo "ok shellcheck"
# the router's rules for real: two daemons behind nginx (deploy/router/nginx.conf)
RODD=${RODD:-$top/build/rodd} node --experimental-websocket --no-warnings "$here/routing.mjs"

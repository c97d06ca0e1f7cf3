#!/usr/bin/env bash
# Installs the Debian packages rodd builds, tests and runs with. Idempotent: a machine that
# already has every package does nothing (no apt-get update, no network). Used by the README
# (through `make`), by .ci/run and by the Dockerfile's build stage.
#   deploy/setup.sh            build + test dependencies
#   deploy/setup.sh --runtime  only the shared libraries the binary links (container runtime)
set -euo pipefail

build_pkgs=(
  build-essential pkg-config clang libclang-rt-14-dev valgrind
  libcjson-dev libsundials-dev libopenblas-dev liblapacke-dev libmuparser-dev
  libcriterion-dev libmicrohttpd-dev libwebsockets-dev
)
runtime_pkgs=(
  libcjson1 libsundials-cvode6 libsundials-kinsol6 libsundials-nvecserial6
  libsundials-sunmatrix4 libsundials-sunlinsol3 libopenblas0-pthread liblapacke
  libmuparser2v5 libmicrohttpd12 libwebsockets17
)

pkgs=("${build_pkgs[@]}")
[ "${1:-}" = "--runtime" ] && pkgs=("${runtime_pkgs[@]}")

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# node and npm run the schema and browser tests, python3 the command-line checks; any install
# of them will do (Debian's, or one the machine came with), so they are only asked of apt when
# absent
if [ "${1:-}" != "--runtime" ]; then
  command -v node >/dev/null 2>&1 || missing+=(nodejs)
  command -v npm >/dev/null 2>&1 || missing+=(npm)
  command -v python3 >/dev/null 2>&1 || missing+=(python3)
fi
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2

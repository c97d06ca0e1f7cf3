#!/usr/bin/env bash
# Installs the Debian packages rodd builds, tests and runs with. Idempotent: a machine that
# already has every package asks apt for nothing. Used by the README (through make), by
# .ci/run and by the Dockerfile.
#   deploy/setup.sh             build and test dependencies (a developer machine, CI)
#   deploy/setup.sh --build     only what building the binary and the viewer needs (image build stage)
#   deploy/setup.sh --runtime   only the shared libraries the binary links (image runtime stage)
#   deploy/setup.sh --container podman, runc and debootstrap for the image test
#   deploy/setup.sh --bench     what runs PyElastica from a checkout for tests/bench/pyelastica.py
#   deploy/setup.sh --list-runtime   print the runtime packages and exit
set -euo pipefail

build_pkgs=(
  build-essential pkg-config ca-certificates
  libcjson-dev libsundials-dev libopenblas-dev liblapacke-dev libmuparser-dev libnlopt-dev
  libmicrohttpd-dev libwebsockets-dev libhdf5-dev libzstd-dev
)
# hdf5-tools, python3-h5py, python3-numpy and python3-pandas read the HDF5 exports back
# independently and run the Python client's tests (recordings as NumPy arrays and DataFrames); octave runs the MATLAB client's (about 190 MiB with its libraries, 40 s),
# octave-instrument-control gives it tcpclient (one kept-alive connection instead of a curl per request);
# python3-websocket (websocket-client) carries the Python client's streams (and, with
# python3-websockets, tests the stream endpoint as third-party clients), and python3-pip,
# -setuptools and -wheel install that client offline into a venv in its test;
# nginx and openssl the TLS reverse-proxy test (and the router's)
test_pkgs=(clang libclang-rt-14-dev valgrind libcriterion-dev chromium curl yamllint docker-compose shellcheck
           hdf5-tools python3-h5py python3-numpy python3-pandas octave octave-instrument-control
           python3-websocket python3-pip python3-setuptools python3-wheel python3-websockets nginx openssl)
# exactly the packages of the binaries' NEEDED libraries (deploy/check-runtime-libs.sh checks it)
runtime_pkgs=(libcjson1 libsundials-cvode6 libsundials-kinsol6 libmuparser2v5 libnlopt0 libmicrohttpd12 libwebsockets17 libhdf5-103-1
              libzstd1)
container_pkgs=(podman runc debootstrap uidmap fuse-overlayfs slirp4netns)
# PyElastica's dependencies as Debian ships them (numba pulls LLVM: not in the default set)
bench_pkgs=(python3-numba python3-scipy python3-numpy python3-tqdm python3-typing-extensions python3-mypy-extensions)

mode=${1:-all}
case "$mode" in
  all) pkgs=("${build_pkgs[@]}" "${test_pkgs[@]}") ;;
  --build) pkgs=("${build_pkgs[@]}") ;;
  --runtime) pkgs=("${runtime_pkgs[@]}") ;;
  --container) pkgs=("${container_pkgs[@]}") ;;
  --bench) pkgs=("${bench_pkgs[@]}") ;;
  --list-runtime) printf '%s\n' "${runtime_pkgs[@]}"; exit 0 ;;
  *) echo "setup.sh: unknown option $mode" >&2; exit 64 ;;
esac

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# node and npm build the viewer and run the schema, integration and browser tests; python3
# runs the command-line checks; any install of them will do (Debian's, or one the machine
# came with), so apt is asked only when they are absent
if [ "$mode" = all ] || [ "$mode" = --build ]; then
  command -v node >/dev/null 2>&1 || missing+=(nodejs)
  command -v npm >/dev/null 2>&1 || missing+=(npm)
fi
if [ "$mode" = all ]; then
  command -v python3 >/dev/null 2>&1 || missing+=(python3)
fi
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2

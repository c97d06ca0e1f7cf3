#!/usr/bin/env bash
# The runtime image carries exactly the libraries its binaries link: the Debian packages that
# own the NEEDED libraries of every binary installed (rodd and rodd-full; base libc aside) must
# be the list `setup.sh --runtime` installs. Run where the binaries were built (the packages'
# files are known there).
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: check-runtime-libs.sh BINARY..." >&2; exit 64; }
here=$(cd "$(dirname "$0")" && pwd)
needed=$(for bin in "$@"; do readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; done | sort -u)
pkgs=()
for lib in $needed; do
  path=$(ldconfig -p | awk -v l="$lib" '$1 == l && !f {print $NF; f = 1}')
  [ -n "$path" ] || { echo "check-runtime-libs: $lib not found" >&2; exit 1; }
  pkg=$(dpkg -S "$(readlink -f "$path")" 2>/dev/null || dpkg -S "$path")
  pkgs+=("${pkg%%:*}")
done
have=$(printf '%s\n' "${pkgs[@]}" | grep -vx 'libc6' | sort -u)
want=$(bash "$here/setup.sh" --list-runtime | sort -u)
if [ "$have" != "$want" ]; then
  echo "check-runtime-libs: $* link the packages" >&2
  echo "$have" | sed 's/^/  /' >&2
  echo "but setup.sh --runtime installs" >&2
  echo "$want" | sed 's/^/  /' >&2
  exit 1
fi
echo "check-runtime-libs: $(echo "$have" | wc -l) runtime packages match the libraries of $*"

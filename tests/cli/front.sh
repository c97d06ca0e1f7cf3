#!/usr/bin/env bash
# rodd and rodd-full (issue 30, item 3): rodd links neither the daemon's libraries nor HDF5's,
# hands serve, probe and run --format hdf5 to rodd-full beside it, and says so when it is missing.
set -uo pipefail
# shellcheck source=tests/cli/lib.sh
source "$(dirname "$0")/lib.sh"
full=$(dirname "$rodd")/rodd-full

needed=$(readelf -d "$rodd" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
if grep -Eq 'microhttpd|websockets|hdf5' <<<"$needed"; then
  fail "rodd links the daemon's or HDF5's libraries: $(tr '\n' ' ' <<<"$needed")"
else
  pass "rodd links neither libmicrohttpd, libwebsockets nor HDF5"
fi
grep -q 'libmicrohttpd' <<<"$(readelf -d "$full")" && pass "rodd-full links the daemon's libraries" ||
  fail "rodd-full does not link libmicrohttpd"

# muparser (with libstdc++ and libgomp) loads at the first expression, NLopt and zstd at their
# first call, not at start-up; SUNDIALS is linked in from its static archives
if grep -Eq 'muparser|nlopt|zstd|sundials' <<<"$needed"; then
  fail "rodd links libmuparser, libnlopt, libzstd or SUNDIALS: $(tr '\n' ' ' <<<"$needed")"
else
  pass "rodd links neither libmuparser, libnlopt, libzstd nor SUNDIALS ($(tr '\n' ' ' <<<"$needed"))"
fi
expect "rodd optimize loads NLopt when it runs a local method" 0 "$rodd" optimize "$top/api/examples/stiffness-tuning.json" \
  --vary 'actuators.0.tension=0:1' --minimize '(tip_z-0.099)^2' --method sbplx --evaluations 3
grep -q '"method":"sbplx"' "$tmp/out" && pass "its answer names the method" || fail "optimize: $(head -c 300 "$tmp/out")"
expect "rodd checks a spec with expressions" 0 "$rodd" check "$top/api/examples/octopus-reaching.json"
expect "rodd reports an expression's error" 2 "$rodd" check "$top/api/examples/octopus-reaching.json" \
  --set 'actuators.0.tension.wave.mu=min(t'
grep -q "/actuators/0/tension/wave/mu" "$tmp/err" && pass "the error names the expression's path" \
  || fail "expression error: $(cat "$tmp/err")"

# the image installs exactly the packages of both binaries' libraries (a sanitizer's runtime aside)
if grep -Eq 'libasan|libtsan|libubsan' <<<"$needed"; then
  pass "check-runtime-libs left out: a sanitizer build"
elif out=$(bash "$top/deploy/check-runtime-libs.sh" "$rodd" "$full" 2>&1); then
  pass "deploy/check-runtime-libs.sh: $out"
else
  fail "deploy/check-runtime-libs.sh: $out"
fi

# rodd alone in a directory of its own: the offline commands work, the delegated ones say why
mkdir -p "$tmp/alone"
cp "$rodd" "$tmp/alone/rodd"
expect "rodd without rodd-full solves" 0 "$tmp/alone/rodd" solve "$top/api/examples/stiffness-tuning.json" --points 2
expect "rodd serve --help needs no rodd-full" 0 "$tmp/alone/rodd" serve --help
expect "rodd serve without rodd-full fails" 1 "$tmp/alone/rodd" serve --listen 127.0.0.1:1
grep -q "serve needs rodd-full" "$tmp/err" && pass "and names what it looked for" || fail "no message naming rodd-full"
expect "run --format hdf5 without rodd-full fails" 1 "$tmp/alone/rodd" run "$top/api/examples/stiffness-tuning.json" \
  --until 0.01 --format hdf5 --out "$tmp/x.h5"
expect "run --format csv without rodd-full works" 0 "$tmp/alone/rodd" run "$top/api/examples/stiffness-tuning.json" \
  --until 0.01 --format csv

# rodd-full as PREFIX/lib/rodd/rodd-full, as make install and the image place it
mkdir -p "$tmp/prefix/bin" "$tmp/prefix/lib/rodd"
cp "$rodd" "$tmp/prefix/bin/rodd"
cp "$full" "$tmp/prefix/lib/rodd/rodd-full"
expect "rodd probe reaches PREFIX/lib/rodd/rodd-full" 1 "$tmp/prefix/bin/rodd" probe --listen 127.0.0.1:1
grep -q "rodd probe: cannot connect" "$tmp/err" && pass "the probe itself ran (cannot connect)" ||
  { fail "rodd-full did not run the probe"; cat "$tmp/err" >&2; }

[ "$fails" -eq 0 ] && echo "front: all passed" || echo "front: $fails failed" >&2
[ "$fails" -eq 0 ]

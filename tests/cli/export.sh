#!/usr/bin/env bash
# rodd run --format ndjson|csv|hdf5 [--out FILE]: the three exports of one run read back by
# independent readers (json, csv, h5py, h5dump) and agreeing, a moving base, bodies,
# constraints and contacts included; bad options and unwritable files named; an interrupted
# HDF5 run still leaves a whole file.
set -uo pipefail
# shellcheck source=tests/cli/lib.sh
source "$(dirname "$0")/lib.sh"
# h5py and NumPy as Debian installs them (deploy/setup.sh), for whichever python3 has them
py=""
for p in python3 /usr/bin/python3; do
  "$p" -c 'import h5py, numpy' 2>/dev/null && { py=$p; break; }
done
[ -n "$py" ] || { echo "FAIL no python3 with h5py and numpy (deploy/setup.sh installs them)" >&2; exit 1; }

ex=$top/api/examples/octopus-reaching.json
run=(run "$ex" --until 0.1 --every 0.02 --points 7)
expect "run --format ndjson (the default) on stdout" 0 "$rodd" "${run[@]}" --format ndjson
cp "$tmp/out" "$tmp/frames.ndjson"
expect "run --format csv --out FILE" 0 "$rodd" "${run[@]}" --format csv --out "$tmp/frames.csv"
[ ! -s "$tmp/out" ] && pass "nothing on stdout with --out" || fail "stdout not empty with --out"
expect "run --format hdf5 --out FILE" 0 "$rodd" "${run[@]}" --format hdf5 --out "$tmp/frames.h5"
"$py" "$here/check_export.py" "$tmp/frames.ndjson" "$tmp/frames.csv" "$tmp/frames.h5" "$ex" 7 0.02 \
  && pass "NDJSON, CSV and HDF5 agree, read by json, csv and h5py" || fail "the exports disagree"
# the mechanics: a shaken (moving) base with a payload, a free base, a pose constraint, a
# volume constraint (the hydrostat's pressure) and contacts that come and go
mech=(
  "shaken-rod-with-payload 0.1 0.02 base,bodies"
  "free-floating 0.1 0.02 base,bodies"
  "euler-column 0.1 0.02 constraints"
  "octopus-reaching-incompressible 0.1 0.02 constraints"
  "octopus-grasp 1.5 0.1 contacts,varying-contacts"
)
for m in "${mech[@]}"; do
  read -r name until every want <<<"$m"
  spec=$top/api/examples/$name.json
  args=(run "$spec" --until "$until" --every "$every" --points 6)
  ok=1
  "$rodd" "${args[@]}" >"$tmp/m.ndjson" 2>"$tmp/err" || ok=0
  "$rodd" "${args[@]}" --format csv --out "$tmp/m.csv" 2>"$tmp/err" || ok=0
  "$rodd" "${args[@]}" --format hdf5 --out "$tmp/m.h5" 2>"$tmp/err" || ok=0
  if [ "$ok" -eq 1 ] && "$py" "$here/check_export.py" "$tmp/m.ndjson" "$tmp/m.csv" "$tmp/m.h5" "$spec" 6 "$every" "$want"; then
    pass "$name: CSV and HDF5 carry the NDJSON's $want"
  else
    fail "$name: the exports' $want disagree ($(tail -1 "$tmp/err"))"
  fi
done

expect "run --format hdf5 to a pipe" 0 "$rodd" "${run[@]}" --format hdf5
cp "$tmp/out" "$tmp/piped.h5"
"$py" -c 'import h5py, sys
a, b = h5py.File(sys.argv[1]), h5py.File(sys.argv[2])
assert (a["position"][...] == b["position"][...]).all() and a["t"].shape == (6,)' "$tmp/piped.h5" "$tmp/frames.h5" \
  && pass "HDF5 on stdout is the same file's data" || fail "HDF5 on stdout"
h5dump -H -A 1 "$tmp/frames.h5" >"$tmp/dump" 2>&1 \
  && grep -q 'DATASET "rotation"' "$tmp/dump" && grep -q 'SIMPLE { ( 6, 7, 3, 3 ) / ( H5S_UNLIMITED, 7, 3, 3 ) }' "$tmp/dump" \
  && pass "h5dump reads the layout" || { fail "h5dump"; head -20 "$tmp/dump" >&2; }

expect "an unknown format" 64 "$rodd" "${run[@]}" --format xml
grep -q -- '--format must be ndjson, csv, hdf5 or mcap, not "xml"' "$tmp/err" && pass "the format error says what is allowed" \
  || fail "format message: $(cat "$tmp/err")"
for fmt in csv hdf5; do
  expect "$fmt into a missing directory fails with 1" 1 "$rodd" "${run[@]}" --format $fmt --out "$tmp/no/such/f"
  grep -q "$tmp/no/such/f" "$tmp/err" && pass "$fmt: the error names the file" || fail "$fmt message: $(cat "$tmp/err")"
done
for fmt in ndjson hdf5; do
  expect "$fmt onto a full disk fails with 1" 1 "$rodd" "${run[@]}" --format $fmt --out /dev/full
  grep -q "No space left on device" "$tmp/err" && pass "$fmt: the error says the disk is full" \
    || fail "$fmt full-disk message: $(cat "$tmp/err")"
done

# HDF5 sized by what is written: 37 frames of 51 points (1.2 s at 30 Hz) were 2.04 MB in
# chunks sized for 214 frames, uncompressed, against 329 kB of NDJSON; now one chunk of the 37
# frames, shuffled and deflated, by HDF5's own filters (no plug-in a reader may lack)
short=(run "$ex" --until 1.2 --every 0.03333333333333333)
"$rodd" "${short[@]}" --format ndjson --out "$tmp/short.ndjson" 2>/dev/null
"$rodd" "${short[@]}" --format hdf5 --out "$tmp/short.h5" 2>/dev/null
"$py" - "$tmp/short.h5" "$tmp/short.ndjson" <<'PY' && pass "a short HDF5 export: one chunk of its frames, shuffle+deflate, smaller than its NDJSON" \
  || fail "short HDF5 export's layout or size"
import h5py, os, sys
h = h5py.File(sys.argv[1])
n = h["t"].shape[0]
assert n == 37, n
for name in ("t", "position", "rotation", "energy/kinetic", "volume_change"):
    d = h[name]
    assert d.chunks[0] == n, (name, d.chunks)
    assert d.compression == "gzip" and d.shuffle, (name, d.compression, d.shuffle)
    assert set(d._filters) <= {"gzip", "shuffle"}, d._filters
size, nd = os.path.getsize(sys.argv[1]), os.path.getsize(sys.argv[2])
assert size < 0.7 * nd, (size, nd)
PY

# SIGINT during an HDF5 run: the frames so far in a finished file (a run far longer than the
# 1.5 s it gets: 1000 s took 1.4 s once the engine got faster)
"$rodd" run "$ex" --until 100000 --every 0.01 --points 5 --format hdf5 --out "$tmp/cut.h5" >"$tmp/out" 2>"$tmp/err" &
pid=$!
sleep 1.5
kill -s INT "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 130 ] && pass "SIGINT stops an HDF5 run with 130" || fail "SIGINT: exit $rc"
"$py" -c 'import h5py, sys
h = h5py.File(sys.argv[1])
n = h["t"].shape[0]
assert n >= 2 and h["position"].shape == (n, 5, 3) and h["energy/kinetic"].shape == (n,), n
assert h["t"][-1] > 0' "$tmp/cut.h5" && pass "the interrupted run's HDF5 file is whole" || fail "interrupted HDF5 file"

[ "$fails" -eq 0 ] && echo "cli exports: all passed" || echo "cli exports: $fails failed" >&2
exit $((fails > 0))

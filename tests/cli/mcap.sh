#!/usr/bin/env bash
# rodd run --format mcap: read back by @mcap/core (indexed and front to back, every CRC), every
# message valid against its channel's JSON Schema and every frame equal to the NDJSON of the
# same run (tests/integration/mcap_check.mjs); a run long enough for several chunks; the
# classic model; a corrupted byte caught; MCAP refuses a terminal.
set -uo pipefail
# shellcheck source=tests/cli/lib.sh
source "$(dirname "$0")/lib.sh"
integ=$top/tests/integration
bash "$integ/install.sh" || exit 1
check() { node "$integ/mcap_check.mjs" "$@" >"$tmp/check" 2>&1; }

ex=$top/api/examples/octopus-reaching.json
run=(run "$ex" --until 0.1 --every 0.02 --points 7)
"$rodd" "${run[@]}" >"$tmp/a.ndjson" 2>/dev/null
expect "run --format mcap --out FILE" 0 "$rodd" "${run[@]}" --format mcap --out "$tmp/a.mcap"
check "$tmp/a.mcap" "$tmp/a.ndjson" && pass "MCAP read back by @mcap/core, equal to the NDJSON" \
  || { fail "MCAP check"; cat "$tmp/check" >&2; }
grep -q "channels: /rod/energy /rod/scene /rod/tip /rod/volume_change" "$tmp/check" \
  && pass "the four channels" || fail "channels: $(grep channels "$tmp/check")"

expect "run --format mcap to a pipe" 0 "$rodd" "${run[@]}" --format mcap
cmp -s "$tmp/out" "$tmp/a.mcap" && pass "MCAP on stdout is the file's bytes" || fail "MCAP on stdout differs"

# 401 frames of 51 points: more than one 1 MiB chunk
long=(run "$ex" --until 0.4 --every 0.001 --points 51)
"$rodd" "${long[@]}" >"$tmp/b.ndjson" 2>/dev/null
"$rodd" "${long[@]}" --format mcap --out "$tmp/b.mcap" 2>/dev/null
check "$tmp/b.mcap" "$tmp/b.ndjson" && grep -q "chunks [2-9]" "$tmp/check" \
  && pass "a long run in several chunks read back ($(grep -o 'chunks [0-9]*' "$tmp/check"), $(stat -c %s "$tmp/b.mcap") bytes)" \
  || { fail "long MCAP"; cat "$tmp/check" >&2; }

classic=$top/api/examples/octopus-reaching-classic.json
if [ -f "$classic" ]; then
  "$rodd" run "$classic" --until 0.05 --every 0.01 --points 5 >"$tmp/c.ndjson" 2>/dev/null
  "$rodd" run "$classic" --until 0.05 --every 0.01 --points 5 --format mcap --out "$tmp/c.mcap" 2>/dev/null
  check "$tmp/c.mcap" "$tmp/c.ndjson" && pass "$(basename "$classic"): $(grep channels "$tmp/check")" \
    || { fail "classic MCAP"; cat "$tmp/check" >&2; }
fi

# a corrupted byte in the middle (the chunk) is caught, so the check above can fail
cp "$tmp/a.mcap" "$tmp/bad.mcap"
printf 'X' | dd of="$tmp/bad.mcap" bs=1 seek=$(($(stat -c %s "$tmp/a.mcap") / 2)) conv=notrunc 2>/dev/null
check "$tmp/bad.mcap" && fail "a corrupted chunk passed" || pass "a corrupted chunk fails the check ($(tail -1 "$tmp/check" | cut -c1-60))"

if command -v script >/dev/null; then
  script -qec "$rodd ${run[*]} --format mcap" /dev/null >"$tmp/tty" 2>&1
  grep -q "MCAP is binary: give --out FILE or redirect stdout" "$tmp/tty" && pass "MCAP refuses a terminal" \
    || fail "MCAP on a terminal: $(head -c 200 "$tmp/tty")"
fi

[ "$fails" -eq 0 ] && echo "mcap: all passed" || { echo "mcap: $fails failed" >&2; exit 1; }

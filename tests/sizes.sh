#!/bin/sh
# sizes.sh - inputs far past the examples' sizes, the slow regression
# cases of issue 32 item 5 (run by make check-faults, not make check):
# 3000 contacts between one mass and one wall, one island (vibro check
# took 99.8 s, about n^4: 1000 contacts 1.0 s, 2000 20.1 s), and 10^5
# masses on their own islands (43 s and 100,000 warning lines).  Each must
# check within a minute (a hang's bound, not a benchmark: the timings are
# tests/bench/bench_check.sh's), and the 3000 contacts run to the end.
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vibro-sizes.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$srcdir/tests/testlib.sh"

awk -v n=3000 -f "$srcdir/tests/one_island.awk" >"$tmp/one.cfg"
expect 0 timeout 60 "$vibro" check "$tmp/one.cfg"
contains "$tmp/out" "one.cfg: valid, 0 warnings"
contains "$tmp/out" "contact 'c2999'"
expect 0 timeout 60 "$vibro" run "$tmp/one.cfg" -o "$tmp/one.h5" --quiet
expect 0 "$vibro" info "$tmp/one.h5"
contains "$tmp/out" "1 done, 0 failed"

awk -v n=100000 -f "$srcdir/tests/many_islands.awk" >"$tmp/many.cfg"
expect 0 timeout 60 "$vibro" check "$tmp/many.cfg"
lines=$(wc -l <"$tmp/out")
awk -v n="$lines" 'BEGIN { exit !(n < 40) }' && ok || bad "vibro check of 10^5 alike contacts printed $lines lines"
equal "warning lines of 10^5 alike contacts" "$(grep -c '^warning: ' "$tmp/out")" 1
contains "$tmp/out" "warning: 100000 contacts alike (contact 'c0' to contact 'c99999')"
contains "$tmp/out" "many.cfg: valid, 1 warning"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

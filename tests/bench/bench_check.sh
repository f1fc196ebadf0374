#!/bin/sh
# bench_check.sh VIBRO [RUNS] - vibro check of many contacts as a user runs
# it (issue 32 item 4; target: each at most 5 s): 3000 contacts between one
# mass and one wall (one island), and 10^5 masses on their own islands,
# each dropped on one floor.  Prints the whole process's wall and CPU time
# (user + system), min / median / max of RUNS runs (default 3), and the
# lines printed.  Run by make bench.
set -u
vibro=${1:?usage: bench_check.sh VIBRO [RUNS]}
runs=${2:-3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vibro-bench-check.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

awk 'BEGIN {
  n = 3000
  print "scene = { name = \"one\"; fs = 44100.0; duration = 0.01; gravity = 9.81; };"
  print "bodies = ( { name = \"floor\"; type = \"wall\"; position = 0.0; },"
  print "  { name = \"ball\"; type = \"mass\"; mass = 0.01; u0 = 0.001; v0 = -1.0; } );"
  printf "contacts = ("
  for (i = 0; i < n; i++) printf "%s\n  { name = \"c%d\"; between = [\"floor\", \"ball\"]; law = \"hunt-crossley\"; k = %g; alpha = 1.5; mu = 0.5; scheme = \"two-point\"; gap = %g; }", (i ? "," : ""), i, 1e9 / n, i * 1e-7
  print " );"
  print "record = { signals = []; };"
}' >"$tmp/one.cfg"
awk -v n=100000 -f "$(dirname "$0")/.."/many_islands.awk >"$tmp/many.cfg"

for case in one many; do
  : >"$tmp/times"
  for r in $(seq "$runs"); do
    /usr/bin/time -f "%e %U %S %M" -o "$tmp/t" "$vibro" check "$tmp/$case.cfg" >"$tmp/out" 2>&1
    awk '{ print $1, $2 + $3, $4 }' "$tmp/t" >>"$tmp/times"
  done
  label=$([ "$case" = one ] && echo "3000 contacts on one mass" || echo "10^5 contacts, own islands")
  sort -n -k1 "$tmp/times" | awk -v l="$label" -v lines="$(wc -l <"$tmp/out")" '
    { w[NR] = $1; m = $3 > m ? $3 : m }
    END { printf "vibro check, %s: wall min %.2f median %.2f max %.2f s, peak RSS %.0f MB, %d lines (target <= 5 s)\n", l, w[1], w[int((NR + 1) / 2)], w[NR], m / 1024, lines }'
  sort -n -k2 "$tmp/times" | awk '{ c[NR] = $2 } END { printf "  CPU min %.2f median %.2f max %.2f s\n", c[1], c[int((NR + 1) / 2)], c[NR] }'
done

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

awk -v n=3000 -f "$(dirname "$0")/.."/one_island.awk >"$tmp/one.cfg"
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

# and vibro run of each to its end, no signals recorded (the 10^5 islands:
# 144 s of user CPU and 2 GB while vb_signal_count counted the bodies'
# points body by body for each body; an issue 33 proof: "load, check and run")
for case in one many; do
  : >"$tmp/times"
  for r in $(seq "$runs"); do
    /usr/bin/time -f "%e %U %S %M" -o "$tmp/t" "$vibro" run "$tmp/$case.cfg" -o "$tmp/$case.h5" --quiet >"$tmp/out" 2>&1
    awk '{ print $1, $2 + $3, $4 }' "$tmp/t" >>"$tmp/times"
    rm -f "$tmp/$case.h5"
  done
  label=$([ "$case" = one ] && echo "3000 contacts on one mass" || echo "10^5 contacts, own islands")
  sort -n -k2 "$tmp/times" | awk -v l="$label" '
    { c[NR] = $2; w[NR] = $1; m = $3 > m ? $3 : m }
    END { printf "vibro run, %s: CPU min %.2f median %.2f max %.2f s, peak RSS %.0f MB\n", l, c[1], c[int((NR + 1) / 2)], c[NR], m / 1024 }'
done

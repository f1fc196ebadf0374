#!/bin/sh
# cmd_check.sh - what vibro check warns of before a run: a scene that ends
# before its predicted contact is over (v_out NaN), a recording larger than
# the memory or the free disk, and the study's totals (steps, bytes, CPU).
# Run by make check.
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
case $vibro in /*) ;; *) vibro=$PWD/$vibro ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vibro-check.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$srcdir/tests/testlib.sh"
equal() { if [ "$2" = "$3" ]; then ok; else bad "$1: got '$2', expected '$3'"; fi; }

# Papetti's case b cut at 0.1 ms: the hammer starts on the wall and its
# contact lasts 0.133 ms (eq 9)
sed 's/duration = 0.002/duration = 0.0001/' "$srcdir/scenes/papetti-case-b.cfg" >"$tmp/short.cfg"
expect 0 "$vibro" check "$tmp/short.cfg"
contains "$tmp/out" "warning: contact 'hit' is predicted from 0 s to 0.000132898 s, after the scene ends at 0.0001 s: its v_out and cor will be NaN; make duration longer than 0.000132898 s"
contains "$tmp/out" "short.cfg: valid, 1 warning"
# and the run indeed leaves v_out NaN
expect 0 "$vibro" run "$tmp/short.cfg" -o "$tmp/short.h5" --quiet
expect 0 "$vibro" events "$tmp/short.h5" --csv
equal "v_out of the unfinished contact" "$(sed -n 2p "$tmp/out" | cut -d, -f7)" nan
# a gap before the contact: the onset is predicted too (1 mm at 1 m/s)
sed 's/duration = 0.002/duration = 0.001/; s/u0 = 0.0;/u0 = -0.001;/' \
  "$srcdir/scenes/papetti-case-b.cfg" >"$tmp/gap.cfg"
expect 0 "$vibro" check "$tmp/gap.cfg"
contains "$tmp/out" "warning: contact 'hit' is predicted from 0.001 s to 0.0011329 s, after the scene ends at 0.001 s"
# the whole contact fits: no warning
expect 0 "$vibro" check "$srcdir/scenes/papetti-case-b.cfg"
contains "$tmp/out" "papetti-case-b.cfg: valid, 0 warnings"

# totals of a study: 64 scenes of 88 steps
expect 0 "$vibro" check "$srcdir/scenes/papetti-sweep.cfg"
contains "$tmp/out" "in all: 64 scenes, 5632 steps, recording "
cpu=$(sed -n 's/.*, about \([^ ]*\) s of CPU here.*/\1/p' "$tmp/out")
awk -v c="$cpu" 'BEGIN { exit !(c > 0 && c < 1e3) }' && ok || bad "CPU estimate '$cpu'"

# fs = 1e13: 2e10 steps, a 2e12-byte recording, more than the memory;
# the disk warning whenever the current file system has less free
sed 's/fs = 44100.0;/fs = 1e13;/' "$srcdir/scenes/papetti-case-b.cfg" >"$tmp/fast.cfg"
(cd "$tmp" && "$vibro" check fast.cfg) >"$tmp/fast.out" 2>&1 && ok || bad "check fast.cfg failed"
contains "$tmp/fast.out" "in all: 1 scene, 2e+10 steps, recording 2.08e+12 bytes"
contains "$tmp/fast.out" "warning: a scene records up to 2.08e+12 bytes, more than this machine's "
free=$(df -P -B1 "$tmp" | awk 'NR == 2 { print $4 }')
if [ "${free:-0}" -lt 2080000000000 ]; then
  contains "$tmp/fast.out" "warning: the recording needs up to 2.08e+12 bytes, only "
  contains "$tmp/fast.out" "fast.cfg: valid, 2 warnings"
  # the run refuses the same figure
  (cd "$tmp" && "$vibro" run fast.cfg -o fast.h5) >"$tmp/run.out" 2>&1
  contains "$tmp/run.out" "fast.h5: the recording needs up to 2.08e+12 bytes, only "
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

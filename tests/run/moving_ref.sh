#!/bin/sh
# moving_ref.sh - vibro's moving contact point (issue 30, item 5;
# doc/geometry.md) against an independent DOP853 integration written in
# tests/run/moving_ref.py: a ball pressed by gravity on a string while its
# contact point is driven along it, at 11.025 to 88.2 kHz (order 2), and the
# balance with the moving point's work booked as external; and in
# tests/run/rolling_ref.py a ball that follows its own w with friction and a
# spin, sliding then rolling (the rigid closed form, DOP853 with the
# exponential law, mu = 0 against the spinless run).  Skipped (77)
# without numpy, scipy and h5py.  Run by make check.
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
. "$srcdir/tests/testlib.sh"
pyref_setup "numpy, scipy, h5py" moving
"$python" "$srcdir/tests/run/moving_ref.py" "$vibro" "$tmp" &&
  "$python" "$srcdir/tests/run/rolling_ref.py" "$vibro" "$tmp"

#!/bin/sh
# bow_ref.sh - vibro's friction curves (stribeck, bow) and prescribed normal
# force (issue 30, step 3) against an independent event-driven integration
# with scipy (tests/run/bow_ref.py): a bowed oscillator, its trajectory,
# stick/slip switches, period, cone and observed order at 11.025 to 88.2 kHz.
# Skipped (77) without numpy, scipy and h5py.  Run by make check.
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
. "$srcdir/tests/testlib.sh"
pyref_setup "numpy, scipy, h5py" bow
"$python" "$srcdir/tests/run/bow_ref.py" "$vibro" "$tmp"

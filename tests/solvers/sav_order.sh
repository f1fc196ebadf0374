#!/bin/sh
# sav_order.sh - the observed order of accuracy of scheme 'sav' and of
# two-point on an oscillator hitting a stop, against scipy's DOP853 with
# event location (tests/solvers/sav_order.py), must be the order each
# scheme's file declares (issue 32 item 7a).  Skipped (77) without numpy,
# scipy and h5py.  Run by make check (about 20 s).
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
. "$srcdir/tests/testlib.sh"
pyref_setup "numpy, scipy, h5py" savorder
"$python" "$srcdir/tests/solvers/sav_order.py" "$vibro" "$tmp" "$srcdir"

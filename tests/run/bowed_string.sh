#!/bin/sh
# bowed_string.sh - the bowed modal string (issue 30, step 3;
# tests/run/bowed_string.py): Helmholtz motion of scenes/bowed-string.cfg at
# its fundamental, the bow point sticking at the bow's velocity, and
# Schelleng's minimum and maximum bow forces located by a sweep of
# normal_force.  Skipped (77) without numpy and h5py.  Run by make check.
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
. "$srcdir/tests/testlib.sh"
pyref_setup "numpy, h5py" bowed
"$python" "$srcdir/tests/run/bowed_string.py" "$vibro" "$srcdir/scenes/bowed-string.cfg" "$tmp"

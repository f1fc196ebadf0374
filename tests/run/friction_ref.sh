#!/bin/sh
# friction_ref.sh - vibro's Coulomb friction (issue 30) against an
# independent event-driven integration with scipy (tests/run/friction_ref.py):
# a damped spring-mass on a belt swinging sinusoidally, its trajectory,
# stick/slip switches, cone and observed order at 20 and 80 kHz.  Skipped
# (77) without numpy, scipy and h5py.  Run by make check.
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
. "$srcdir/tests/testlib.sh"
pyref_setup "numpy, scipy, h5py" friction
"$python" "$srcdir/tests/run/friction_ref.py" "$vibro" "$tmp"

#!/bin/sh
# clearance_ref.sh - vibro's circular clearance (issue 30, item 4;
# doc/geometry.md) against independent references written in
# tests/run/clearance_ref.py: energy, angular momentum and momentum kept to
# round-off by a pin orbiting in a hole and in a free ring, a pin dropped in a
# hole under gravity against an event-driven DOP853 integration at 10 to 80
# kHz (order 2), and the balance under Hunt-Crossley damping in a shaken
# hole.  Skipped (77) without numpy, scipy and h5py.  Run by make check.
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
. "$srcdir/tests/testlib.sh"
pyref_setup "numpy, scipy, h5py" clearance
"$python" "$srcdir/tests/run/clearance_ref.py" "$vibro" "$tmp"

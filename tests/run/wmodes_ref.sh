#!/bin/sh
# wmodes_ref.sh - modes along w (issue 30, step 3; tests/run/wmodes_ref.py):
# a one-mode modal body equals the mass bit for bit, and a two-mode body
# slipping on a belt against an independent scipy integration (order 2).
# Skipped (77) without numpy, scipy and h5py.  Run by make check.
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
. "$srcdir/tests/testlib.sh"
pyref_setup "numpy, scipy, h5py" wmodes
"$python" "$srcdir/tests/run/wmodes_ref.py" "$vibro" "$tmp"

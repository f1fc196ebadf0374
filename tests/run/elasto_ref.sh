#!/bin/sh
# elasto_ref.sh - vibro's elasto-plastic friction law (issue 30, step 4)
# against an independent integration of the published model with scipy
# (tests/run/elasto_ref.py): a squeaking block on a belt and a block on a
# swinging wall under a varying normal force, w, the bristle z and ft with
# their observed orders at 11.025 to 88.2 kHz, the energy balance and the
# friction work.  Skipped (77) without numpy, scipy and h5py.  Run by make
# check.
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
python=/usr/bin/python3
if ! "$python" -c 'import numpy, scipy, h5py' 2>/dev/null; then
  echo "SKIP: $python lacks numpy, scipy or h5py"
  exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vibro-elasto.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$python" "$srcdir/tests/run/elasto_ref.py" "$vibro" "$tmp"

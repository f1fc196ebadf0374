#!/bin/sh
# bow_ref.sh - vibro's friction curves (stribeck, bow) and prescribed normal
# force (issue 30, step 3) against an independent event-driven integration
# with scipy (tests/run/bow_ref.py): a bowed oscillator, its trajectory,
# stick/slip switches, period, cone and observed order at 11.025 to 88.2 kHz.
# Skipped (77) without numpy, scipy and h5py.  Run by make check.
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
python=/usr/bin/python3
if ! "$python" -c 'import numpy, scipy, h5py' 2>/dev/null; then
  echo "SKIP: $python lacks numpy, scipy or h5py"
  exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vibro-bow.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$python" "$srcdir/tests/run/bow_ref.py" "$vibro" "$tmp"

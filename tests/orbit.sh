#!/bin/sh
# orbit.sh - lib/base/orbit.c's period classification and attractor ids
# against numpy: tests/orbit_dump writes random sections (periodic with
# noise below, at and above the tolerance, transients, chaotic maps,
# rotations, any length from 1 point) and random sets of cycles around
# attractors closer than the tolerance to each other, with vibro's
# answers; tests/orbit.py decides them again by brute force and compares.
# Run by make check.
set -u
srcdir=${srcdir:-.}
builddir=${abs_top_builddir:-.}
python=/usr/bin/python3
if ! "$python" -c 'import numpy' 2>/dev/null; then
  echo "SKIP: $python lacks numpy"
  exit 77
fi
fail=0
for seed in 1 2 3; do
  "$builddir/tests/orbit_dump" 150 "$seed" >"${TMPDIR:-/tmp}/orbit.$$" || fail=1
  "$python" "$srcdir/tests/orbit.py" <"${TMPDIR:-/tmp}/orbit.$$" || fail=1
done
rm -f "${TMPDIR:-/tmp}/orbit.$$"
exit $fail

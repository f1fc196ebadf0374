#!/bin/sh
# kmethod.sh - the K-method's multi-contact solve (solvers/kmethod.c)
# against scipy: tests/kmethod_dump writes random problems (1 to 64
# contacts, two-point and three-point, power, Hunt-Crossley and spring
# laws) with vibro's answers, tests/kmethod.py solves them again with its
# own step forces and scipy.optimize.root and compares; as many again
# solved by the globalised fall-back alone (solvers/kglobal.c, power and
# spring laws).  Run by make check.
set -u
srcdir=${srcdir:-.}
builddir=${abs_top_builddir:-.}
python=/usr/bin/python3
if ! "$python" -c 'import numpy, scipy.optimize' 2>/dev/null; then
  echo "SKIP: $python lacks numpy or scipy (apt-get install python3-scipy)"
  exit 77
fi
fail=0
for seed in 1 2; do
  "$builddir/tests/kmethod_dump" 80 "$seed" >"${TMPDIR:-/tmp}/kmethod.$$" || fail=1
  "$python" "$srcdir/tests/kmethod.py" <"${TMPDIR:-/tmp}/kmethod.$$" || fail=1
done
rm -f "${TMPDIR:-/tmp}/kmethod.$$"
exit $fail

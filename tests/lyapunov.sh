#!/bin/sh
# lyapunov.sh - the largest Lyapunov exponent in a study's file (issue 20
# item 4; lib/lyapunov.c): the impact oscillator of scenes/ at 80 kHz over
# forcing frequency (25 Hz period 1, 28 Hz chaotic) and perturbation
# (1e-8, 1e-7, 1e-6), run with -j 1 and -j 2.  The columns lyapunov and
# lyapunov_second_half (1/s) are bitwise the same at -j 1 and -j 2, have
# the sign of the orbit and agree over the perturbations within 1 %; the
# run's own results (events, the other columns) are bitwise those of the
# same study without the key; a study without it has no such columns; the
# key's errors name file, line and the valid values.  Run by make check.
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
python=${PYTHON:-/usr/bin/python3}
case $vibro in /*) ;; *) vibro=$PWD/$vibro ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vibro-lyapunov.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
. "$srcdir/tests/testlib.sh"
"$python" -c "import h5py, numpy" 2>/dev/null || { echo "no h5py: skipped"; exit 77; }

# the study: the sweep and the analysis block replaced, by a block with (lyap.cfg) and
# without (plain.cfg) the lyapunov key
sed -e 's/fs = 20000.0/fs = 80000.0/' -e '/^analysis = {/,/^};/d' -e '/^sweep = {/,$d' \
  "$srcdir/scenes/impact-oscillator.cfg" >"$tmp/base.cfg"
{
  cat "$tmp/base.cfg"
  cat <<'EOF'
sweep = { mode = "grid"; params = (
  { path = "forces.drive.freq"; values = [25.0, 28.0]; },
  { path = "analysis.lyapunov.perturbation"; values = [1e-8, 1e-7, 1e-6]; } ); };
analysis = {
  section = { drive = "forces.drive"; transient_time = 4.0; points = ["oscillator"]; };
  lyapunov = { perturbation = 1e-8; renormalise = 1; };
};
EOF
} >"$tmp/lyap.cfg"
sed -e '/lyapunov = {/d' -e 's/{ path = "analysis.lyapunov.perturbation"; values = \[1e-8, 1e-7, 1e-6\]; }/{ path = "scene.gravity"; values = [0.0, 0.0, 0.0]; }/' \
  "$tmp/lyap.cfg" >"$tmp/plain.cfg"

expect 0 "$vibro" run -q -j 1 "$tmp/lyap.cfg" -o "$tmp/j1.h5"
expect 0 "$vibro" run -q -j 2 "$tmp/lyap.cfg" -o "$tmp/j2.h5"
expect 0 "$vibro" run -q -j 2 "$tmp/plain.cfg" -o "$tmp/plain.h5"

"$python" - "$tmp" >"$tmp/py.out" 2>&1 <<'PY'
import sys, h5py, numpy as np
d = sys.argv[1]
fails = []
def check(cond, what):
    if not cond:
        fails.append(what)
with h5py.File(d + "/j1.h5") as a, h5py.File(d + "/j2.h5") as b, h5py.File(d + "/plain.h5") as p:
    ta, tb, tp = a["study/table"], b["study/table"], p["study/table"]
    for c in ("lyapunov", "lyapunov_second_half"):
        check(c in ta and ta[c].attrs["units"] in (b"1/s", "1/s"), c + " with its units")
        check(ta[c][...].tobytes() == tb[c][...].tobytes(), c + " differs between -j 1 and -j 2")
        check(c not in tp, c + " in a study without the key")
    lam = ta["lyapunov"][...].reshape(2, 3)
    half = ta["lyapunov_second_half"][...].reshape(2, 3)
    print("lyapunov (25 Hz, 28 Hz) x (1e-8, 1e-7, 1e-6):", lam.tolist())
    print("second half:", half.tolist())
    check(np.all(lam[0] < -2) and np.all(half[0] < -2), "25 Hz (period 1) not negative")
    check(np.all(lam[1] > 2) and np.all(half[1] > 2), "28 Hz (chaotic) not positive")
    for r in lam:
        check(np.all(np.abs(r - r[0]) <= 0.01 * abs(r[0])), "over the perturbations: %s" % r)
    # the run's own results: bitwise those of the study without the key
    for c in tp:
        if c in ta:
            check(tp[c][...].tobytes() == ta[c][...].tobytes(), "table column " + c + " moved")
    for c in p["study/events"]:
        if c in a["study/events"]:
                check(p["study/events"][c][...].tobytes() == a["study/events"][c][...].tobytes(),
                  "event column " + c + " moved")
for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
PY
if [ $? -eq 0 ]; then ok; else bad "$(cat "$tmp/py.out")"; fi
cat "$tmp/py.out"

# errors at file:line
sed 's/perturbation = 1e-8; renormalise = 1;/perturbation = 1.5;/' "$tmp/lyap.cfg" \
  | sed '/analysis.lyapunov.perturbation/d; s/values = \[25.0, 28.0\]; },/values = [25.0, 28.0]; } ); };/' >"$tmp/bad.cfg"
line=$(grep -n 'lyapunov = {' "$tmp/bad.cfg" | cut -d: -f1)
expect 1 "$vibro" check "$tmp/bad.cfg"
contains "$tmp/err" "bad.cfg:$line: analysis 'lyapunov': 'perturbation' must be > 0 and < 1 (got 1.5)"
{
  sed '/^# What to expect/,$d' "$srcdir/scenes/bouncing-ball.cfg"
  echo 'analysis = { lyapunov = { perturbation = 1e-8; }; };'
} >"$tmp/ball.cfg"
line=$(grep -n '^analysis' "$tmp/ball.cfg" | cut -d: -f1)
error "$tmp/ball.cfg:$line: analysis 'lyapunov': contact 'bounce' has corrections, which the twin cannot apply (valid: corrections = [] with lyapunov)" \
  "$vibro" run -q "$tmp/ball.cfg" -o "$tmp/ball.h5"

echo "lyapunov.sh: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

#!/bin/sh
# engaged.sh - a scene that ends inside an impact (issue 21, item 3): the
# table's engaged_at_end [scene][contact] is 1 exactly for the scenes whose
# last impact in /study/events is unfinished (NaN t_off), read here with
# h5py; vibro run's summary line and vibro info count them; a study that
# ends every impact says nothing of it.  Run by make check; needs h5py.
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
python=${PYTHON:-/usr/bin/python3}
"$python" -c "import h5py, numpy" 2>/dev/null || { echo "no h5py"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vibro-engaged.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$srcdir/tests/testlib.sh"

# papetti-sweep with durations from 0.15 ms to 0.6 ms, around its contacts
# (0.1 to 0.45 ms): some scenes end inside the impact, some after it
for d in 0.00015 0.0003 0.0006 0.002; do
  sed "s/duration = 0.002;/duration = $d;/" "$srcdir/scenes/papetti-sweep.cfg" >"$tmp/s.cfg"
  expect 0 "$vibro" run "$tmp/s.cfg" -o "$tmp/s.h5" -j 2
  # the scenes whose last event has NaN t_off, from the events alone
  want=$("$python" - "$tmp/s.h5" <<'PY'
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
ev, tab = f["study/events"], f["study/table"]
scene, t_off = ev["scene"][:], ev["t_off"][:]
n = len(tab["scene"])
want = np.zeros(n, dtype=np.int64)
for s in range(n):
    rows = np.flatnonzero(scene == s)
    want[s] = len(rows) > 0 and np.isnan(t_off[rows[-1]])
got = tab["engaged_at_end"][:].reshape(n, -1)[:, 0]
assert tab["engaged_at_end"].attrs["units"] in (b"1", "1")
if not np.array_equal(got, want):
    sys.exit("engaged_at_end %s, from the events %s" % (got, want))
print("%d %d" % (want.sum(), np.flatnonzero(want)[0] if want.any() else -1))
PY
  ) && ok || bad "duration $d: $want"
  n=${want% *}
  first=${want#* }
  "$vibro" info "$tmp/s.h5" >"$tmp/info" 2>&1
  if [ "$n" -gt 0 ]; then
    contains "$tmp/out" ", $n ended inside an impact (engaged_at_end; first: scene $first), "
    contains "$tmp/info" "ended inside an impact: $n scene"
    contains "$tmp/info" "still closed at the end"
  else
    grep -q "inside an impact" "$tmp/out" "$tmp/info" && bad "duration $d: no scene ended inside an impact, yet: $(cat "$tmp/out")" || ok
  fi
  echo "duration $d s: $n of 64 scenes end inside an impact"
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

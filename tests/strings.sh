#!/bin/sh
# strings.sh - distributed contact at scale through the command line
# (issue 18): a scene with 10,000 contacts (four 200-mode strings, each
# over a bed of 2,500 points; one island may hold 8,192) runs and writes
# with `vibro run`, in seconds of CPU, not minutes (measured: 5.6 s of
# CPU for 441 steps, 1.2 s of it per model build); vibro info and vibro
# events read it and name each point (--contact NAME: all the points of a
# distributed contact).  Run by make check.
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vibro-strings.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$srcdir/tests/testlib.sh"
python=/usr/bin/python3
if ! "$python" -c 'import h5py, numpy' 2>/dev/null; then
  echo "SKIP: $python lacks h5py or numpy"
  exit 77
fi

# four strings plucked up 1 mm, each falling onto its bed 0.7 mm below
{
  echo 'scene = { name = "beds"; fs = 44100.0; duration = 0.006; gravity = 0.0; };'
  echo 'bodies = ( { name = "bed"; type = "wall"; }'
  for s in 0 1 2 3; do
    echo ", { name = \"s$s\"; type = \"modal\"; preset = { kind = \"string\"; nmodes = 200;"
    echo "    length = 1.0; tension = 40.0; linear_density = 0.001; pluck = [0.3$s, 1e-3]; };"
    echo "    points = ( { name = \"pickup\"; x = 0.7; } ); }"
  done
  echo ');'
  echo 'contacts = ('
  for s in 0 1 2 3; do
    [ "$s" -gt 0 ] && echo ','
    echo "  { name = \"bed$s\"; between = [\"bed\", \"s$s\"]; law = \"power\"; k = 1e9; alpha = 1.5;"
    echo '    scheme = "two-point"; max_iterations = 1000;'
    echo '    points = { from = 0.0001; to = 0.9999; n = 2500; }; profile = { height = -7e-4; }; }'
  done
  echo ');'
  echo 'record = { signals = ["bodies/*/pickup/u", "energy/*"]; };'
} >"$tmp/beds.cfg"

# the run, its CPU time measured as the child's (not the shared machine's clock)
"$python" - "$vibro" "$tmp" >"$tmp/py.out" 2>&1 <<'PY' && ok || bad "10,000 contacts: $(cat "$tmp/py.out")"
import resource, subprocess, sys, h5py, numpy as np
vibro, tmp = sys.argv[1], sys.argv[2]
r = subprocess.run([vibro, "run", tmp + "/beds.cfg", "-o", tmp + "/beds.h5", "--quiet", "-j", "1"],
                   capture_output=True, text=True)
assert r.returncode == 0, "vibro run exited %d: %s" % (r.returncode, r.stderr)
cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = cpu.ru_utime + cpu.ru_stime
print("10,000 contacts: vibro run took %.1f s of CPU" % cpu)
assert cpu < 120.0, "vibro run took %.0f s of CPU: minutes" % cpu
f = h5py.File(tmp + "/beds.h5", "r")
names = [c.decode() for c in f["study/table/contact"][()]]
assert len(names) == 10000, "%d contacts in the table" % len(names)
assert names[0] == "bed0[0]" and "bed3[2499]" in names, names[:3]
impacts = f["study/table/impacts"][0]
assert impacts.shape == (10000,) and (impacts > 0).sum() > 100, "%d points hit" % (impacts > 0).sum()
for s in range(4):
    hit = [i for i, c in enumerate(names) if c.startswith("bed%d[" % s) and impacts[i] > 0]
    assert len(hit) > 10, "string %d: %d points hit" % (s, len(hit))
assert f["study/table/status_code"][0] == 0
PY
cat "$tmp/py.out"

# vibro info and vibro events read it; events name each point
# (one line per distributed contact: its impacts summed over its points,
# how many points were hit, checked against h5py; --points: every point)
"$python" - "$tmp/beds.h5" >"$tmp/want" <<'PY'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
names = [c.decode() for c in f["study/table/contact"][()]]
n = f["study/table/impacts"][0]
for s in range(4):
    v = [int(k) for c, k in zip(names, n) if c.startswith("bed%d[" % s)]
    print("  contact 'bed%d': 2500 points (bed%d[0] .. bed%d[2499]), power, two-point, "
          "%d impacts on %d points" % (s, s, s, sum(v), sum(k > 0 for k in v)))
PY
expect 0 "$vibro" info "$tmp/beds.h5"
grep "^  contact 'bed" "$tmp/out" | sed 's/ (most .*//' >"$tmp/got"
equal "vibro info: one line a distributed contact, sums as h5py's" "$(cat "$tmp/got")" "$(cat "$tmp/want")"
expect 0 "$vibro" info "$tmp/beds.h5" --points
equal "contacts listed by vibro info --points" "$(grep -c "^  contact 'bed" "$tmp/out")" 10000
expect 0 "$vibro" events "$tmp/beds.h5" --csv
equal "events whose contact names a point" \
  "$(awk -F, 'NR > 1 && $2 !~ /^bed[0-3]\[[0-9]+\]$/' "$tmp/out" | wc -l | tr -d ' ')" 0
[ "$(wc -l <"$tmp/out")" -gt 100 ] && ok || bad "only $(wc -l <"$tmp/out") lines of events"

# --contact with a distributed contact's name: every point of it, and only those
"$python" - "$tmp/beds.h5" >"$tmp/want" <<'PY'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
names = [c.decode() for c in f["study/table/contact"][()]]
print(sum(int(n) for c, n in zip(names, f["study/table/impacts"][0]) if c.startswith("bed2[")))
PY
expect 0 "$vibro" events "$tmp/beds.h5" --contact bed2 --csv
equal "events of bed2's points" "$(($(wc -l <"$tmp/out") - 1))" "$(cat "$tmp/want")"
equal "rows of other contacts" "$(awk -F, 'NR > 1 && $2 !~ /^bed2\[[0-9]+\]$/' "$tmp/out" | wc -l | tr -d ' ')" 0
expect 0 "$vibro" events "$tmp/beds.h5" --contact "bed2[17]" --csv
equal "one point's rows" "$(awk -F, 'NR > 1 && $2 != "bed2[17]"' "$tmp/out" | wc -l | tr -d ' ')" 0
expect 1 "$vibro" events "$tmp/beds.h5" --contact bed
contains "$tmp/err" "no contact 'bed' (valid: bed0[0], bed0[1],"
expect 1 "$vibro" events "$tmp/beds.h5" --contact "bed2["

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

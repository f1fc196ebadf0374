#!/bin/sh
# wide.sh - a scene of 10,000 contacts (issue 17): 10,000 masses, each
# against its own wall, record.signals = [], a few steps.  Its tables have
# 10,000 columns per contact figure in vibro-2's compound (HDF5 refused
# past about 130: "out of memory writing a shard of 1 scenes"); in vibro-3
# they are [scene][contact] datasets.  It must run, write, and read back
# with vibro info, vibro events and the Python package, with every
# contact's values where they belong (each mass has its own impact speed).
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
python=${PYTHON:-/usr/bin/python3}
n=${VIBRO_WIDE_CONTACTS:-10000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vibro-wide.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$srcdir/tests/testlib.sh"

# the scene of n contacts: mass mK at v0 = 0.5 + (K mod 7) / 10 m/s
# against wall wK; record REC (a record block's text)
scene() {
awk -v n="$1" -v rec="$2" 'BEGIN {
  print "scene = { name = \"wide\"; fs = 44100.0; duration = 0.0005; gravity = 0.0; };"
  print rec
  print "bodies = ("
  for (i = 0; i < n; i++)
    printf "  { name = \"m%d\"; type = \"mass\"; mass = 0.01; u0 = 0.0; v0 = %.1f; },\n", i, 0.5 + (i % 7) / 10
  for (i = 0; i < n; i++)
    printf "  { name = \"w%d\"; type = \"wall\"; position = 0.0; }%s\n", i, i < n - 1 ? "," : ""
  print ");"
  print "contacts = ("
  for (i = 0; i < n; i++)
    printf "  { name = \"c%d\"; between = [\"m%d\", \"w%d\"]; law = \"hunt-crossley\"; k = 1.0e9; alpha = 1.5; mu = 0.5; scheme = \"am1\"; }%s\n", i, i, i, i < n - 1 ? "," : ""
  print ");"
}'
}
scene "$n" "record = { signals = []; };" >"$tmp/wide.cfg"

expect 0 "$vibro" run "$tmp/wide.cfg" -o "$tmp/wide.h5" -j 1 --quiet
expect 0 "$vibro" info "$tmp/wide.h5"
contains "$tmp/out" "1 scene finished"
contains "$tmp/out" "  contact 'c0': hunt-crossley, am1, 1 impact"
contains "$tmp/out" "  contact 'c$((n - 1))': hunt-crossley, am1, 1 impact"
[ "$(grep -c "^  contact 'c" "$tmp/out")" -eq "$n" ] && ok || bad "vibro info lists $(grep -c "^  contact 'c" "$tmp/out") contacts, not $n"
expect 0 "$vibro" events "$tmp/wide.h5" --contact "c$((n - 2))" --csv
[ "$(wc -l <"$tmp/out")" -eq 2 ] && ok || bad "events of one contact: $(cat "$tmp/out")"
# the impact speed of contact c(n-2) is its mass's v0
v=$(awk -F, 'NR == 2 { print $6 }' "$tmp/out")
want=$(awk -v k=$((n - 2)) 'BEGIN { printf "%.1f", 0.5 + (k % 7) / 10 }')
awk -v v="$v" -v w="$want" 'BEGIN { exit !(v == w) }' && ok || bad "v_in of c$((n - 2)) is $v, its v0 $want"

# the Python package and xarray: every contact's row, values in place
PYTHONPATH="$srcdir/python${PYTHONPATH:+:$PYTHONPATH}" "$python" - "$tmp/wide.h5" "$n" \
  >"$tmp/py.out" 2>&1 <<'PY' && ok || bad "Python: $(tail -5 "$tmp/py.out")"
import sys
import numpy as np
import vibro
path, n = sys.argv[1], int(sys.argv[2])
st = vibro.open(path)
t = st.table
assert len(t) == 1 and (t.filter(like="impacts:").to_numpy() == 1).all(), t.filter(like="impacts:")
assert t.filter(like="impacts:").shape[1] == n
ev = st.events()
assert len(ev) == n and ev["contact"].nunique() == n
k = np.array([int(c[1:]) for c in ev["contact"]])
assert np.allclose(ev["v_in"].to_numpy(), 0.5 + (k % 7) / 10, rtol=0, atol=1e-12), "v_in out of place"
try:
    import xarray
except ImportError:
    sys.exit(0)
ds = xarray.open_dataset(path, group="study/table", engine="h5netcdf")
assert ds.sizes["contact"] == n and ds["max_compression"].dims == ("scene", "contact")
x = ds["max_compression"].values[0]
v0 = 0.5 + (np.arange(n) % 7) / 10
# the faster mass compresses more: the order of x follows v0 within each class
assert all(x[i] < x[i + 1] for i in range(6)), x[:7]
assert np.array_equal(x[:7], x[7:14]), "the same v0 gives the same compression"
PY

# every signal recorded: 2,000 contacts attach 10,000 datasets to the scene
# and time scales, whose list of them passes the 64 KiB of an attribute in a
# compact object header ("out of memory writing a shard" before the scales
# kept their attributes in dense storage)
m=$((n < 2000 ? n : 2000))
scene "$m" "" >"$tmp/rec.cfg"
expect 0 "$vibro" run "$tmp/rec.cfg" -o "$tmp/rec.h5" -j 1 --quiet
"$python" - "$tmp/rec.h5" "$m" >"$tmp/py.out" 2>&1 <<'PY' && ok || bad "recorded: $(tail -3 "$tmp/py.out")"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    m = int(sys.argv[2])
    last = f["signals/contacts.c%d.force" % (m - 1)]
    assert last.shape[0] == 1 and last[0].max() > 0
    assert len(f["signals/scene"].attrs["REFERENCE_LIST"]) >= 5 * m
PY

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

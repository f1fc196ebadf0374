#!/bin/sh
# points.sh - a distributed contact's recorded signals as [scene][point][time]
# (issue 18 item 3, doc/format.md): record.signals = ["contacts/neck/force"]
# writes one dataset contacts.neck.force with a point.neck scale, equal
# bitwise to the same points recorded the 1-D way (contacts/neck[K]/force,
# one dataset each), over 6 scenes, with -j 1 and -j 2, recorded in place
# (VIBRO_TEST_MAP_BYTES), and resumed after a SIGKILL at each write point;
# the Python package, xarray and vibro export read it, vibro info lists it,
# vibro-plot draws it; none is recorded by default; an 862-point fretless
# recording of 0.01 s writes and reads.  Run by make check.
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
python=/usr/bin/python3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vibro-points.XXXXXX")
# A sanitizer build's libvibro, loaded in-process by vibro.simulate, needs
# the sanitizers' runtimes first in the uninstrumented Python (as in
# tests/python.sh): the Python runs go through a wrapper that preloads them
if [ "${WITH_SANITIZERS:-no}" = yes ]; then
  asan=$(${CC:-gcc} -print-file-name=libasan.so 2>/dev/null)
  ubsan=$(${CC:-gcc} -print-file-name=libubsan.so 2>/dev/null)
  if [ -f "$asan" ] && [ -f "$ubsan" ]; then
    printf '#!/bin/sh\nLD_PRELOAD="%s:%s" ASAN_OPTIONS=detect_leaks=0 exec %s "$@"\n' \
      "$asan" "$ubsan" "$python" >"$tmp/python"
    chmod +x "$tmp/python"
    python=$tmp/python
  fi
fi
trap 'rm -rf "$tmp"' EXIT
. "$srcdir/tests/testlib.sh"
if ! "$python" -c 'import h5py, numpy, xarray, h5netcdf' 2>/dev/null; then
  echo "SKIP: $python lacks h5py, numpy, xarray or h5netcdf"
  exit 77
fi
command -v h5diff >/dev/null || { echo "SKIP: no h5diff"; exit 77; }
lib=${abs_top_builddir:-.}/lib/.libs/libvibro.so
[ -e "$lib" ] && VIBRO_LIB=${VIBRO_LIB:-$(cd "$(dirname "$lib")" && pwd)/libvibro.so} && export VIBRO_LIB


# scene SIGNALS: a 20-mode string plucked onto an 8-point bed, 6 scenes
# (the pluck's height swept), recording SIGNALS (a libconfig list body)
scene() {
  cat <<EOF
scene = { name = "bed"; fs = 44100.0; duration = ${2:-0.01}; gravity = 0.0; };
bodies = ( { name = "bed"; type = "wall"; },
  { name = "s"; type = "modal"; preset = { kind = "string"; nmodes = 20;
    length = 1.0; tension = 40.0; linear_density = 0.001; pluck = [0.3, 1e-3]; };
    points = ( { name = "pickup"; x = 0.7; } ); } );
contacts = ( { name = "neck"; between = ["bed", "s"]; law = "power"; k = 1e9; alpha = 1.5;
    scheme = "two-point"; max_iterations = 1000;
    points = { from = 0.1; to = 0.9; n = 8; }; profile = { height = -3e-4; }; } );
sweep = { params = ( { path = "contacts.neck.k"; logspace = [1e8, 1e10]; n = 6; } ); };
EOF
  [ -n "$1" ] && echo "record = { signals = [$1]; };"
}
ones=""
for k in 0 1 2 3 4 5 6 7; do
  ones="$ones\"contacts/neck[$k]/force\", \"contacts/neck[$k]/compression\", "
done
scene '"bodies/s/pickup/u", "contacts/neck/force", "contacts/neck/compression"' >"$tmp/whole.cfg"
scene "\"bodies/s/pickup/u\", $ones\"energy/total\"" >"$tmp/ones.cfg"
scene '' >"$tmp/default.cfg"
scene '"contacts/*/force"' >"$tmp/star.cfg"

expect 0 "$vibro" run "$tmp/whole.cfg" -o "$tmp/whole.h5" -j 1 --quiet
expect 0 "$vibro" run "$tmp/ones.cfg" -o "$tmp/ones.h5" -j 2 --quiet
expect 0 "$vibro" run "$tmp/whole.cfg" -o "$tmp/j2.h5" -j 2 --quiet
same "$tmp/whole.h5" "$tmp/j2.h5" "-j 1 against -j 2"
# 0.6 s: 20 MB of signals, so the study is laid out (doc/format.md, items
# 6 and 7): written through the threads' blocks, or recorded in place
scene '"contacts/neck/force", "contacts/neck/compression"' 0.6 >"$tmp/long.cfg"
scene "$ones\"energy/total\"" 0.6 >"$tmp/longones.cfg"
expect 0 "$vibro" run "$tmp/long.cfg" -o "$tmp/long.h5" -j 2 --quiet
expect 0 "$vibro" run "$tmp/longones.cfg" -o "$tmp/longones.h5" -j 2 --quiet
VIBRO_TEST_MAP_BYTES=1 "$vibro" run "$tmp/long.cfg" -o "$tmp/map.h5" -j 2 --quiet &&
  ok || bad "recorded in place: failed"
same "$tmp/long.h5" "$tmp/map.h5" "recorded in place (VIBRO_TEST_MAP_BYTES=1)"
VIBRO_TEST_BATCH=1 expect 0 "$vibro" run "$tmp/whole.cfg" -o "$tmp/b1.h5" -j 2 --quiet
same "$tmp/whole.h5" "$tmp/b1.h5" "a shard per scene, merged"
expect 0 "$vibro" run "$tmp/default.cfg" -o "$tmp/default.h5" --quiet
expect 0 "$vibro" run "$tmp/star.cfg" -o "$tmp/star.h5" --quiet

# SIGKILL at each write point of shards of 1 scene, then --resume
k=1
killed=0
while [ "$k" -le 30 ]; do
  rm -rf "$tmp/k.h5" "$tmp/k.h5.part"
  VIBRO_TEST_BATCH=1 VIBRO_TEST_KILL_AT=$k "$vibro" run "$tmp/whole.cfg" -o "$tmp/k.h5" -j 2 \
    --quiet >/dev/null 2>&1
  if [ $? -eq 137 ]; then
    killed=$((killed + 1))
    expect 0 "$vibro" run "$tmp/whole.cfg" -o "$tmp/k.h5" -j 2 --resume --quiet
    same "$tmp/whole.h5" "$tmp/k.h5" "SIGKILL at write $k, then --resume"
  fi
  k=$((k + 1))
done
[ "$killed" -ge 5 ] && ok || bad "only $killed kill points (want >= 5)"

# the layout, bitwise against the 1-D recording, the readers
"$python" - "$tmp" "$srcdir/python" >"$tmp/py.out" 2>&1 <<'PY' && ok || bad "layout and readers: $(cat "$tmp/py.out")"
import sys
sys.path.insert(0, sys.argv[2])
import h5py, numpy as np, xarray as xr, vibro
t = sys.argv[1]
# laid out (0.6 s), bitwise against the 1-D recording
w, o = h5py.File(t + "/long.h5", "r")["signals"], h5py.File(t + "/longones.h5", "r")["signals"]
for sig in ("force", "compression"):
    d = w["contacts.neck." + sig]
    assert d.shape == (6, 8, 26461), d.shape
    for k in range(8):
        assert d[:, k, :].tobytes() == o["contacts.neck[%d].%s" % (k, sig)][:].tobytes(), (sig, k)
assert (w["contacts.neck.force"][:] > 0).any()
w, o = h5py.File(t + "/whole.h5", "r"), h5py.File(t + "/ones.h5", "r")
ws, os_ = w["signals"], o["signals"]
for sig in ("force", "compression"):
    d = ws["contacts.neck." + sig]
    assert d.shape == (6, 8, 442), d.shape
    assert d.attrs["units"].decode() == {"force": "N", "compression": "m"}[sig]
    names = [h5py.h5r.get_name(r[0], w.id).decode() for r in d.attrs["DIMENSION_LIST"]]
    assert names == ["/signals/scene", "/signals/point.neck", "/signals/time"], names
    for k in range(8):
        a, b = d[:, k, :], os_["contacts.neck[%d].%s" % (k, sig)][:]
        assert a.tobytes() == b.tobytes(), (sig, k)
    assert not ("contacts.neck[0].%s" % sig) in ws
# something happens: the bed is hit in every scene, at more than one point
f = ws["contacts.neck.force"][:]
assert all((f[s] > 0).any(axis=1).sum() >= 2 for s in range(6)), (f > 0).any(axis=2)
assert ws["bodies.s.pickup.u"][:].tobytes() == os_["bodies.s.pickup.u"][:].tobytes()
for c in w["study/events"]:
    assert w["study/events"][c][:].tobytes() == o["study/events"][c][:].tobytes(), c
sc = ws["point.neck"]
assert np.allclose(sc[:], 0.1 + 0.8 * np.arange(8) / 7, rtol=0, atol=1e-15), sc[:]
assert sc.attrs["units"].decode() == "m" and sc.attrs["contact"].decode() == "neck"
first = int(sc.attrs["first_contact"])
names = [n.decode() for n in w["study/table/contact"][:]]
assert names[first:first + 8] == ["neck[%d]" % k for k in range(8)], names
# none by default; a glob over the contacts' paths takes the whole contact
d = h5py.File(t + "/default.h5", "r")["signals"]
assert not [n for n in d if "neck" in n and n != "contacts.neck.k"], list(d)
assert "bodies.s.pickup.u" in d and "energy.total" in d, list(d)
s = h5py.File(t + "/star.h5", "r")["signals"]
assert s["contacts.neck.force"][:].tobytes() == ws["contacts.neck.force"][:].tobytes()
# xarray
ds = xr.open_dataset(t + "/whole.h5", group="signals", engine="h5netcdf")
x = ds["contacts.neck.force"]
assert x.dims == ("scene", "point.neck", "time"), x.dims
assert np.array_equal(x.values, f)
assert np.array_equal(ds["point.neck"].values, sc[:])
# the vibro package
st = vibro.open(t + "/whole.h5")
assert "contacts/neck/force" in st.scene(2).signals
a = st.signal(2, "contacts/neck/force")
assert a.dims == ("point", "time") and a.attrs["units"] == "N", (a.dims, a.attrs)
assert a.values.tobytes() == f[2].tobytes()
assert np.array_equal(a["x"].values, sc[:]) and list(a["contact"].values)[3] == "neck[3]"
b = st.signal(4, "contacts/neck[5]/compression")
assert b.dims == ("time",) and b.values.tobytes() == ws["contacts.neck.compression"][4, 5].tobytes()
assert b.attrs["point"] == 5 and b.attrs["contact"] == "neck[5]"
for bad in ("contacts/neck[8]/force", "contacts/neck/rate"):
    try:
        st.signal(0, bad)
        raise AssertionError("no error for " + bad)
    except vibro.VibroError as e:
        assert "valid" in str(e), str(e)
# the 1-D recording reads as before
c = vibro.open(t + "/ones.h5").signal(1, "contacts/neck[6]/force")
assert c.values.tobytes() == f[1, 6].tobytes()
# in memory (vibro.simulate): the file's variables, scene 0 alone
import os
if os.path.exists(os.environ.get("VIBRO_LIB", "")):
    text = open(t + "/whole.cfg").read()
    text = text.replace("k = 1e9;", "k = 1e8;")   # scene 0 of the sweep
    sim = vibro.simulate(text[:text.index("sweep =")] + text[text.index("record ="):])
    m = sim.signals
    assert m["contacts.neck.force"].dims == ("point.neck", "time"), m["contacts.neck.force"].dims
    assert m["contacts.neck.force"].values.tobytes() == f[0].tobytes()
    assert m["contacts.neck.compression"].values.tobytes() == \
        ws["contacts.neck.compression"][0].tobytes()
    assert np.array_equal(m["point.neck"].values, sc[:])
else:
    print("no VIBRO_LIB: vibro.simulate not tried")
PY

# vibro export: --point K and the NAME[K] form, against the 1-D file
for k in 0 5 7; do
  expect 0 "$vibro" export "$tmp/whole.h5" --scene 3 --signal contacts/neck/force --point "$k" \
    --signal bodies/s/pickup/u --csv "$tmp/p.csv"
  expect 0 "$vibro" export "$tmp/whole.h5" --scene 3 --signal "contacts/neck[$k]/force" \
    --signal bodies/s/pickup/u --csv "$tmp/n.csv"
  expect 0 "$vibro" export "$tmp/ones.h5" --scene 3 --signal "contacts/neck[$k]/force" \
    --signal bodies/s/pickup/u --csv "$tmp/o.csv"
  cmp -s "$tmp/n.csv" "$tmp/o.csv" && ok || bad "export of point $k differs from the 1-D file's"
  tail -n +2 "$tmp/p.csv" >"$tmp/p.rows"
  tail -n +2 "$tmp/o.csv" >"$tmp/o.rows"
  cmp -s "$tmp/p.rows" "$tmp/o.rows" && ok || bad "export --point $k differs from the 1-D file's"
  contains "$tmp/p.csv" "contacts/neck/force point $k (N)"
done
[ "$(wc -l <"$tmp/p.csv")" -eq 443 ] && ok || bad "export: $(wc -l <"$tmp/p.csv") lines, want 443"
error "$tmp/whole.h5: 'contacts/neck/force' is [scene][point][time], 8 points: name one, with --point K or as contacts.neck[K].force (valid K: 0-7)" \
  "$vibro" export "$tmp/whole.h5" --scene 0 --signal contacts/neck/force --csv -
error "$tmp/whole.h5: 'contacts/neck[8]/force': no point 8 (valid: 0-7)" \
  "$vibro" export "$tmp/whole.h5" --scene 0 --signal "contacts/neck[8]/force" --csv -
error "$tmp/whole.h5: --point 2: no signal given has points (--point selects a point of a distributed contact's [scene][point][time] signals)" \
  "$vibro" export "$tmp/whole.h5" --scene 0 --signal bodies/s/pickup/u --point 2 --csv -
expect 1 "$vibro" export "$tmp/whole.h5" --scene 0 --signal contacts/neck/rate --csv -
contains "$tmp/err" "contacts.neck[0-7].force"

# vibro info lists it; vibro events names the point
expect 0 "$vibro" info "$tmp/whole.h5"
contains "$tmp/out" "contact 'neck': 8 points (x 0.1 .. 0.9 m) record [scene][point][time]: contacts.neck.compression contacts.neck.force"
expect 0 "$vibro" events "$tmp/whole.h5" --contact neck
contains "$tmp/out" " neck[3] "

# record.signals: a glob matching nothing lists the contact's whole path
scene '"contacts/nek/force"' >"$tmp/typo.cfg"
expect 1 "$vibro" run "$tmp/typo.cfg" -o "$tmp/typo.h5" --quiet
contains "$tmp/err" "contacts/neck/force, contacts/neck[K]/force"
contains "$tmp/err" "bodies/s/neck[K]/u"

# vibro-plot: one point, and the whole contact as a space-time image
if "$python" -c 'import matplotlib' 2>/dev/null; then
  plot=$(dirname "$vibro")/vibro-plot
  expect 0 "$plot" signal "$tmp/whole.h5" --scene 1 --signal contacts/neck/force -o "$tmp/st.png"
  expect 0 "$plot" signal "$tmp/whole.h5" --scene 1 --signal "contacts/neck[2]/force" \
    --signal bodies/s/pickup/u -o "$tmp/one.png"
  expect 1 "$plot" signal "$tmp/whole.h5" --scene 1 --signal contacts/neck/force \
    --signal bodies/s/pickup/u -o "$tmp/two.png"
  contains "$tmp/err" "contacts/neck[K]/force (valid K: 0-7)"
fi

# the fretless bass: 862 points' force for 0.01 s
top=$(cd "$srcdir" && pwd)
sed -e 's/duration = 0.02;/duration = 0.01;/' \
  -e 's|signals = \[.*\]|signals = ["contacts/neck/force", "bodies/string/pickup/u"]|' \
  -e "s|\"bass-fretless-|\"$top/scenes/bass-fretless-|g" \
  "$srcdir/scenes/bass-fretless.cfg" >"$tmp/fretless.cfg"
expect 0 "$vibro" run "$tmp/fretless.cfg" -o "$tmp/fretless.h5" --quiet
"$python" - "$tmp/fretless.h5" "$srcdir/python" >"$tmp/py.out" 2>&1 <<'PY' && ok || bad "fretless: $(cat "$tmp/py.out")"
import sys
sys.path.insert(0, sys.argv[2])
import h5py, numpy as np, vibro
f = h5py.File(sys.argv[1], "r")["signals"]
d = f["contacts.neck.force"]
assert d.shape == (1, 862, 628), d.shape
assert np.isfinite(d[:]).all() and (d[:] >= 0).all() and (d[:] > 0).any()
a = vibro.open(sys.argv[1]).signal(0, "contacts/neck/force")
assert a.shape == (862, 628) and a["x"].values[0] == f["point.neck"][0]
PY
expect 0 "$vibro" export "$tmp/fretless.h5" --signal "contacts/neck[861]/force" --csv "$tmp/f.csv"

echo "points.sh: $pass passed, $fail failed ($killed kill points)"
[ "$fail" -eq 0 ]

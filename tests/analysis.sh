#!/bin/sh
# analysis.sh - the analysis block end to end (issue 20, doc/format.md): a
# study with the block writes /study/sections, /study/impact_map and the
# table's orbit columns; vibro info summarises them; h5py and xarray read
# them; -j 1, -j 2 and shards merged give identical files (attractor ids
# included); SIGKILL at write points then --resume gives the same file; a
# running study's shards carry the tables; the same study without the
# block writes none of it and every dataset it does write is the one the
# block's file has.  Run by make check; needs h5diff.
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
python=${PYTHON:-/usr/bin/python3}
command -v h5diff >/dev/null || { echo "no h5diff"; exit 77; }
"$python" -c 'import h5py, numpy' 2>/dev/null || { echo "no h5py"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vibro-analysis.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$srcdir/tests/testlib.sh"


# The impact oscillator of scenes/impact-oscillator.cfg, shorter: a grid of
# 4 forcing frequencies (period 1, 1, 2 and irregular: 25, 26, 26.8 and
# 28.3 Hz) by 3 starting velocities, each of which falls on the one
# attractor of its frequency.
cat >"$tmp/io.cfg" <<'CFG'
scene = { name = "io"; fs = 20000.0; duration = 5.0; gravity = 0.0; };
bodies = (
  { name = "oscillator"; type = "mass"; mass = 1.0; k = 3947.8418; c = 6.2831853; v0 = 0.0; },
  { name = "stop"; type = "wall"; position = 0.0; }
);
contacts = (
  { name = "impact"; between = ["oscillator", "stop"];
    law = "hunt-crossley"; k = 1.0e7; alpha = 1.0; mu = 10.0; gap = 0.0; scheme = "am1"; }
);
forces = (
  { name = "drive"; at = "oscillator"; type = "harmonic"; amplitude = 3.9478418; freq = 25.0; }
);
record = { every = 20; };
analysis = {
  section = { drive = "forces.drive"; transient_time = 2.0; points = ["oscillator"]; };
  impact_map = { contact = "impact"; };
  period = { max = 8; tolerance = 3e-2; };
  attractors = { tolerance = 5e-2; };
};
sweep = {
  params = ( { path = "forces.drive.freq"; values = [25.0, 26.0, 26.8, 28.3]; },
             { path = "bodies.oscillator.v0"; values = [0.0, 0.05, -0.1]; } );
};
CFG

expect 0 "$vibro" run "$tmp/io.cfg" -o "$tmp/j1.h5" -j 1 --quiet
expect 0 "$vibro" run "$tmp/io.cfg" -o "$tmp/j2.h5" -j 2 --quiet
same "$tmp/j1.h5" "$tmp/j2.h5" "-j 1 and -j 2"
# shards of 2 scenes, merged: the attractor ids are assigned in the merge
VIBRO_TEST_BATCH=2 "$vibro" run "$tmp/io.cfg" -o "$tmp/b2.h5" -j 2 --quiet >"$tmp/out" 2>&1 &&
  ok || bad "batches of 2: $(cat "$tmp/out")"
same "$tmp/j1.h5" "$tmp/b2.h5" "shards of 2 scenes merged"
# h5diff sees a difference in the analysis where there is one
sed 's/values = \[0.0, 0.05, -0.1\]/values = [0.0, 0.05, -0.3]/' "$tmp/io.cfg" >"$tmp/other.cfg"
expect 0 "$vibro" run "$tmp/other.cfg" -o "$tmp/other.h5" -j 2 --quiet
h5diff "$tmp/j1.h5" "$tmp/other.h5" /study/sections/u /study/sections/u >/dev/null 2>&1 &&
  bad "h5diff found no difference in the sections" || ok

# vibro info: the classes, periods, attractors and the tables' rows
expect 0 "$vibro" info "$tmp/j1.h5"
contains "$tmp/out" "analysis: 9 periodic (period 1: 6, period 2: 3), 3 irregular, 0 not settled, 0 without a section; 3 attractors"
contains "$tmp/out" "analysis tables: "
contains "$tmp/out" "  orbit: periodic, period 1, 1 impact per period, attractor 0"

# h5py: the layout of doc/format.md, and what the physics says
"$python" - "$tmp/j1.h5" >"$tmp/py" 2>&1 <<'PY' && ok || bad "h5py: $(tail -5 "$tmp/py")"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
t, s, m = f["study/table"], f["study/sections"], f["study/impact_map"]
assert list(s) == ["section", "point", "scene", "k", "t", "u", "v"], list(s)
assert list(m) == ["impact", "scene", "contact", "t", "v_in", "phase", "since_previous", "grazing"], list(m)
assert [x.decode() for x in s["point"][:]] == ["oscillator"]
assert s["u"].shape == (len(s["scene"]), 1) and s["u"].attrs["units"] == b"m" or s["u"].attrs["units"] == "m"
assert t["orbit"].dtype == np.int32 and list(t["orbit"].attrs["flag_values"]) == [0, 1, 2, 3]
fm = t["orbit"].attrs["flag_meanings"]
assert (fm.decode() if isinstance(fm, bytes) else fm) == "no_section not_settled periodic irregular"
freq, v0 = t["forces.drive.freq"][:], t["bodies.oscillator.v0"][:]
orbit, period, ipp, att = t["orbit"][:], t["period"][:], t["impacts_per_period"][:], t["attractor"][:]
want = {25.0: 1, 26.0: 1, 26.8: 2}
for i in range(len(freq)):
    sc = s["scene"][:] == i
    tk = s["t"][:][sc]
    # t_k = k T after the transient, one per period, counted in `sections`
    assert tk[0] >= 2.0 and tk[0] - 1 / freq[i] < 2.0 and np.allclose(np.diff(tk), 1 / freq[i])
    assert np.all(s["k"][:][sc] == np.round(tk * freq[i]).astype(int)) and t["sections"][i] == sc.sum()
    if freq[i] in want:
        assert orbit[i] == 2 and period[i] == want[freq[i]] and ipp[i] == want[freq[i]], (i, orbit[i], period[i], ipp[i])
    else:
        assert orbit[i] == 3 and period[i] == 0 and att[i] == -1, (i, orbit[i], period[i], att[i])
    mi = m["scene"][:] == i
    assert np.all(m["t"][:][mi] >= 2.0) and np.all((m["phase"][:][mi] >= 0) & (m["phase"][:][mi] < 2 * np.pi))
    assert np.all(m["contact"][:][mi] == 0) and np.all(m["v_in"][:][mi] > 0)
# the impact map is the events of the contact after the transient
ev = f["study/events"]
for i in (0, 7):
    e = (ev["scene"][:] == i) & (ev["t_on"][:] >= 2.0)
    mi = m["scene"][:] == i
    assert np.array_equal(ev["t_on"][:][e], m["t"][:][mi]) and np.array_equal(ev["v_in"][:][e], m["v_in"][:][mi])
# one attractor per periodic frequency, whatever the starting velocity, in scene order
ids = {}
for i in range(len(freq)):
    if orbit[i] == 2:
        ids.setdefault(freq[i], set()).add(att[i])
assert all(len(v) == 1 for v in ids.values()), ids
assert sorted(x.pop() for x in ids.values()) == [0, 1, 2], ids
assert att[0] == 0
print("ok", dict(zip(freq, period)))
PY

# xarray reads each table as a Dataset along its dimension
if "$python" -c 'import xarray, h5netcdf' 2>/dev/null; then
  "$python" - "$tmp/j1.h5" >"$tmp/xr" 2>&1 <<'PY' && ok || bad "xarray: $(tail -3 "$tmp/xr")"
import sys, xarray as xr
s = xr.open_dataset(sys.argv[1], group="study/sections", engine="h5netcdf")
assert s["u"].dims == ("section", "point") and list(s.point.values.astype(str)) == ["oscillator"]
m = xr.open_dataset(sys.argv[1], group="study/impact_map", engine="h5netcdf")
assert m["phase"].dims == ("impact",) and m["phase"].attrs["units"] == "rad"
t = xr.open_dataset(sys.argv[1], group="study/table", engine="h5netcdf")
assert t["attractor"].dims == ("scene",)
print(len(s.section), len(m.impact))
PY
else
  echo "xarray or h5netcdf not importable: xarray test skipped"
fi

# SIGKILL at write points (shards of 2 scenes), then --resume: the same file
points=0
for k in 2 5 9 14 20; do
  rm -rf "$tmp/k.h5" "$tmp/k.h5.part"
  VIBRO_TEST_BATCH=2 VIBRO_TEST_KILL_AT=$k "$vibro" run "$tmp/io.cfg" -o "$tmp/k.h5" -j 2 --quiet \
    >/dev/null 2>&1
  if [ $? -eq 137 ]; then
    points=$((points + 1))
    # the shards so far carry the tables: vibro info reads the running study
    if [ -d "$tmp/k.h5.part" ] && ls "$tmp/k.h5.part"/r000-*.h5 >/dev/null 2>&1; then
      expect 0 "$vibro" info "$tmp/k.h5"
      contains "$tmp/out" "analysis tables: "
    fi
    expect 0 "$vibro" run "$tmp/io.cfg" -o "$tmp/k.h5" -j 2 --resume --quiet
    same "$tmp/j1.h5" "$tmp/k.h5" "SIGKILL at write $k, then --resume"
  fi
done
[ "$points" -ge 3 ] && ok || bad "only $points kill points"

# Without the block: no analysis dataset, and the rest as with the block
sed '/^analysis = {/,/^};/d' "$tmp/io.cfg" >"$tmp/plain.cfg"
grep -q analysis "$tmp/plain.cfg" && bad "the block is still in plain.cfg" || ok
expect 0 "$vibro" run "$tmp/plain.cfg" -o "$tmp/plain.h5" -j 2 --quiet
"$python" - "$tmp/plain.h5" "$tmp/j1.h5" >"$tmp/plain" 2>&1 <<'PY' && ok || bad "without the block: $(tail -5 "$tmp/plain")"
import sys, h5py, numpy as np
plain, full = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
names = []
plain.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
assert not any("sections" in n or "impact_map" in n for n in names), names
for c in ("orbit", "period", "impacts_per_period", "orbit_tolerance", "sections", "attractor"):
    assert c not in plain["study/table"], c
for n in names:
    a, b = plain[n][()], full[n][()]
    assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes(), n
print(len(names), "datasets the same")
PY
expect 0 "$vibro" info "$tmp/plain.h5"
grep -q "^analysis" "$tmp/out" && bad "vibro info shows an analysis without one" || ok

# vibro check summarises the block: the section's points a scene are the
# ones the run takes (the table's `sections` of scene 0, 25 Hz from 2 s to
# 5 s: 76), the impact map, and the twin's steps and cost
expect 0 "$vibro" check "$tmp/io.cfg"
cp "$tmp/out" "$tmp/check"
n=$("$python" -c 'import h5py, sys; print(h5py.File(sys.argv[1], "r")["study/table"]["sections"][0])' "$tmp/j1.h5")
grep -q "^analysis: section: (u, v) of 'oscillator' every T = 0.04 s (1 / freq of 'forces.drive') at phase 0 rad, from 2 s (a transient of 50 periods) to 5 s: $n points a scene$" "$tmp/check" &&
  [ "$n" = 76 ] && ok || bad "check's section line ($n sampled): $(grep '^analysis' "$tmp/check")"
grep -q "^analysis: period: shifts of 1 .. 8 periods, closed within 0.03 .*; 24 points tell irregular from not settled; attractors across the study within 0.05$" "$tmp/check" &&
  ok || bad "check's period line: $(grep '^analysis' "$tmp/check")"
grep -q "^analysis: impact map: every impact of contact 'impact' from 2 s" "$tmp/check" &&
  ok || bad "check's impact map line: $(grep '^analysis' "$tmp/check")"
grep -q "warning: analysis" "$tmp/check" && bad "a warning for a long enough section" || ok
sed 's/^analysis = {/analysis = {\n  lyapunov = { renormalise = 2; };/' "$tmp/io.cfg" >"$tmp/ly.cfg"
expect 0 "$vibro" check "$tmp/ly.cfg"
grep -q "^analysis: lyapunov: a twin 1e-08 of the state away (the default with no contact that closes, until the run's impacts give N) steps 60001 of the 100000 steps again (from 2 s), brought back every 2 drive periods: about 1.6 times the run's cost$" "$tmp/out" &&
  ok || bad "check's lyapunov line: $(grep '^analysis' "$tmp/out")"
# a section shorter than the trend needs: warned, with the duration it
# needs (4.5 + 24 T), and the irregular 28.3 Hz scene is indeed not settled
sed 's/transient_time = 2.0/transient_time = 4.5/' "$tmp/io.cfg" >"$tmp/short.cfg"
expect 0 "$vibro" check "$tmp/short.cfg"
grep -q "^warning: analysis 'section': 13 points a scene, fewer than the 24 needed to call a section irregular with period.max = 8: a scene no shift closes will be 'not settled'; make duration at least 5.46 s or lower period.max$" "$tmp/out" &&
  ok || bad "the short section's warning: $(grep 'analysis' "$tmp/out")"
expect 0 "$vibro" run "$tmp/short.cfg" -o "$tmp/short.h5" -j 2 --quiet
"$python" - "$tmp/short.h5" "$tmp/j1.h5" >"$tmp/cls" 2>&1 <<'PY' && ok || bad "short section: $(tail -3 "$tmp/cls")"
import sys, h5py
short, full = (h5py.File(p, "r")["study/table"] for p in sys.argv[1:])


def orbit(t, i):
    a = t["orbit"].attrs
    m = a["flag_meanings"]
    return dict(zip(a["flag_values"], (m.decode() if isinstance(m, bytes) else m).split()))[t["orbit"][i]]


freq = short["forces.drive.freq"][()]
for i in range(len(freq)):
    if abs(freq[i] - 28.3) < 1e-9:
        assert orbit(full, i) == "irregular", orbit(full, i)
        assert orbit(short, i) == "not_settled", orbit(short, i)
    if freq[i] == 25.0:
        assert short["sections"][i] == 13, short["sections"][i]
print("ok")
PY
sed 's/duration = 5.0/duration = 5.46/; s/transient_time = 2.0/transient_time = 4.5/' "$tmp/io.cfg" >"$tmp/enough.cfg"
expect 0 "$vibro" check "$tmp/enough.cfg"
grep -q "warning: analysis" "$tmp/out" && bad "warned at the duration it asked for: $(grep warning "$tmp/out")" || ok

echo "analysis.sh: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

#!/bin/sh
# scenes.sh - the scene library end to end: every scene in scenes/ runs,
# and shows what scenes/README.md says of it (the ball's bounces decay, the
# rolling ball makes many short impacts, the bead rattles above the onset
# amplitude and not below, the impact oscillator period-doubles, the
# papers' cases give their headline numbers).  Results are read with
# `vibro events --csv` and small h5py scripts.  A scene without checks
# here is a failure.  Run by make check.
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
plot=${VIBRO_PLOT:-$(dirname "$vibro")/vibro-plot}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vibro-scenes.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$srcdir/tests/testlib.sh"

python=$(sed -n '1s/^#! *//p' "$plot" 2>/dev/null)
[ -n "$python" ] || python=/usr/bin/python3
if ! "$python" -c 'import h5py, numpy' 2>/dev/null; then
  echo "SKIP: $python lacks h5py or numpy: the scenes are not checked"
  exit 77
fi

# The scenes are run from a copy, so that a check can shorten one by
# editing its text (data files such as the rolling profile come along).
mkdir "$tmp/scenes"
cp "$srcdir"/scenes/*.cfg "$srcdir"/scenes/*.txt "$srcdir"/scenes/*.csv "$tmp/scenes/"

# run NAME [OUT]: run scenes/NAME.cfg (as it is in the copy) into OUT.h5;
# vibro's own readers then read what it wrote (`vibro info` called the
# file of every scene with modes along w damaged: its wmodes constants
# were taken for series along time)
run() {
  out=${2:-$1}
  if "$vibro" run "$tmp/scenes/$1.cfg" -o "$tmp/$out.h5" --quiet -j 2 >"$tmp/run.out" 2>&1
  then ok; else bad "vibro run $1.cfg: $(cat "$tmp/run.out")"; fi
  for reader in info events; do
    if "$vibro" "$reader" "$tmp/$out.h5" >"$tmp/read.out" 2>&1
    then ok; else bad "vibro $reader of $1.cfg's output: $(head -3 "$tmp/read.out")"; fi
  done
}

# check WHAT FILE.h5 <<'PY' ... PY: a Python check with h5py and numpy
# given f (the open file), ev(contact, scene=0) (the scene's rows of
# /study/events for that contact), sig(path, scene=0) (a recorded signal,
# e.g. "bodies/plate/pickup/u" or "time", the scene's own samples of
# /signals/bodies.plate.pickup.u) and table (the /study/table rows); it
# fails by raising (assert) with a message that says what was measured.
# Layout vibro-3, doc/format.md.
check() {
  what=$1
  cat >"$tmp/check.py"
  if "$python" - "$2" "$tmp/check.py" >"$tmp/py.out" 2>&1 <<'PY'
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
contacts = [c.decode() for c in f["study/table/contact"][()]]
def rows(g):
    # a vibro-3 table's columns as records: "index" the scene, "X:C" contact C's X
    cols = {}
    for k, d in g.items():
        if k == "event" or d.dtype.kind == "S" and k == "contact":
            continue
        if d.ndim == 2:
            cols.update(("%s:%s" % (k, c), d[:, j]) for j, c in enumerate(contacts))
        else:
            cols["index" if k == "scene" and g.name.endswith("table") else k] = d[()]
    out = np.zeros(len(next(iter(cols.values()))), [(k, v.dtype) for k, v in cols.items()])
    for k, v in cols.items():
        out[k] = v
    return out
table = rows(f["study/table"])
events = rows(f["study/events"])
def ev(contact, scene=0):
    assert contact in contacts, "no contact %r in %s" % (contact, contacts)
    return events[(events["scene"] == scene) & (events["contact"] == contacts.index(contact))]
def sig(path, scene=0):
    row = np.nonzero(f["signals/scene"][()] == scene)[0]
    assert len(row) == 1, "scene %d not in /signals" % scene
    n = int(table["samples"][table["index"] == scene][0])
    d = f["signals/" + path.replace("/", ".")]
    if path == "time":
        return d[()][:n] if d.ndim == 1 else d[row[0]][:n]
    return d[row[0]][:n]
exec(open(sys.argv[2]).read())
PY
  then ok; else bad "$what: $(tail -n 3 "$tmp/py.out")"; fi
}

# csv FILE.h5 CONTACT: the contact's events as CSV (vibro events --csv)
csv() {
  "$vibro" events "$1" --contact "$2" --csv >"$tmp/events.csv" 2>"$tmp/events.err" ||
    bad "vibro events $1: $(cat "$tmp/events.err")"
}

# column NAME: one column of $tmp/events.csv, one value a line
column() {
  awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
                        { print $c }' "$tmp/events.csv"
}

checked=""
covered() { checked="$checked $1 "; }

# ------------------------------------------------------------ bouncing
run bouncing-ball
csv "$tmp/bouncing-ball.h5" bounce
n=$(column v_in | wc -l)
[ "$n" -ge 20 ] && ok || bad "bouncing-ball: $n bounces, expected at least 20"
# successive impact speeds decrease
column v_in | awk 'NR > 1 && !($1 < prev) { bad = 1; print "bounce " NR ": " $1 " after " prev }
                   { prev = $1 } END { exit bad }' >"$tmp/awk.out" && ok ||
  bad "bouncing-ball: impact speeds do not decrease: $(head -n 2 "$tmp/awk.out")"
# with the corrections every bounce leaves at the root of Papetti eq 6
awk -F, '
  NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "v_out") a = i; if ($i == "v_out_exact") b = i }; next }
  { d = $a / $b - 1; if (d < 0) d = -d; if (d > 1e-9) { print NR ": " $a " vs " $b; bad = 1 } }
  END { exit bad }' "$tmp/events.csv" >"$tmp/awk.out" && ok ||
  bad "bouncing-ball: v_out is not the exact v_out: $(head -n 2 "$tmp/awk.out")"
covered bouncing-ball

run bouncing-on-plate
check "bouncing-on-plate: first impact at the drop speed, then the bounces decay" \
  "$tmp/bouncing-on-plate.h5" <<'PY'
e = ev("bounce"); v = e["v_in"]
assert abs(v[0] / np.sqrt(2 * 9.81 * 0.02) - 1) < 1e-3, "first v_in %g" % v[0]
assert len(v) >= 20, "%d bounces" % len(v)
assert v[len(v) // 2:].max() < 0.25 * v[0], "late bounces up to %g after %g" % (v[len(v) // 2:].max(), v[0])
done = e[np.isfinite(e["t_off"])]
assert len(done) >= len(e) - 1, "%d impacts unfinished" % (len(e) - len(done))
assert np.all(done["v_out"] < 0) and np.all(done["corrections"] & 2), "v_out or corrections"
PY
check "bouncing-on-plate: the plate rings at the pickup" "$tmp/bouncing-on-plate.h5" <<'PY'
u = sig("bodies/plate/pickup/u"); t = sig("time")
ring = u[t > 0.1] - u[t > 0.1].mean()
assert np.sqrt(np.mean(ring ** 2)) > 1e-8, "pickup rms %g" % np.sqrt(np.mean(ring ** 2))
PY
covered bouncing-on-plate

# ------------------------------------------------------------- rolling
run rolling-ball
check "rolling-ball: many short impacts" "$tmp/rolling-ball.h5" <<'PY'
e = ev("roll"); d = e["duration"]
assert len(e) >= 150, "%d impacts in 0.5 s" % len(e)
assert np.isfinite(d[1:-1]).all(), "unfinished impacts in the middle"
med = np.nanmedian(d); gap = np.median(np.diff(e["t_on"][1:]))
assert med < 0.5e-3, "median contact %g s" % med
assert med < 0.3 * gap, "median contact %g s against %g s between impacts" % (med, gap)
assert np.nanmedian(e["v_in"]) < 0.05, "median impact speed %g" % np.nanmedian(e["v_in"])
PY
check "rolling-ball: the impacts excite the plate" "$tmp/rolling-ball.h5" <<'PY'
u = sig("bodies/plate/pickup/u")
assert np.ptp(u) > 1e-8, "pickup moves by %g m" % np.ptp(u)
PY
# the impacts come from the speed: at 0.3 m/s the ball stays on the surface
sed 's/speed = 1.0;/speed = 0.3;/' "$tmp/scenes/rolling-ball.cfg" >"$tmp/scenes/rolling-slow.cfg"
run rolling-slow
check "rolling-ball at 0.3 m/s: the ball stays on the surface" "$tmp/rolling-slow.h5" <<'PY'
assert len(ev("roll")) <= 2, "%d impacts" % len(ev("roll"))
PY
covered rolling-ball

# ------------------------------------------------------------ rattling
run rattle-box
check "rattle-box: no rattle below the onset amplitude g / omega^2" "$tmp/rattle-box.h5" <<'PY'
onset = 9.81 / (2 * np.pi * 20.0) ** 2
a = table["bodies.box.drive.amplitude"]; n = table["impacts:rattle"]
assert (a < onset).sum() >= 5 and (a > onset).sum() >= 5, "amplitudes %s" % a
assert np.all(n[a < onset] == 1), "impacts below the onset: %s" % n[a < onset]
assert np.all(np.isnan(table["first_impact:rattle"][a < onset])), "a new impact below the onset"
assert np.all(table["status_code"] == 0)
PY
check "rattle-box: the bead rattles above the onset amplitude" "$tmp/rattle-box.h5" <<'PY'
onset = 9.81 / (2 * np.pi * 20.0) ** 2
a = table["bodies.box.drive.amplitude"]; n = table["impacts:rattle"]
assert np.all(n[a > onset] >= 20), "impacts above the onset: %s" % n[a > onset]
PY
covered rattle-box

run rattle-settle
check "rattle-settle: mu = 0 bounces for ever, every mu keeps the energy account" \
  "$tmp/rattle-settle.h5" <<'PY'
mu = table["contacts.rattle.mu"]
assert list(mu) == [0.0, 1.0, 2.0, 4.0, 8.0] and np.all(table["status_code"] == 0)
e0 = 0.5 * 0.002 * 0.5 ** 2  # round-off over 96,000 steps: 2e-11 of it
assert np.all(np.abs(table["energy_balance_error"]) < 1e-10 * e0), table["energy_balance_error"]
e = ev("rattle", 0)
assert len(e) > 200 and e["t_on"][-1] > 0.99, "undamped: %d impacts, last at %g s" % (len(e), e["t_on"][-1])
assert np.all(np.abs(e["v_out"] / e["v_out_exact"] - 1) < 1e-9), "undamped rebound off"
PY
check "rattle-settle: a damped bead leaves each impact at eq 6's v_out and comes to rest" \
  "$tmp/rattle-settle.h5" <<'PY'
h, sag, last = 1.0e-3, (0.002 * 9.81 / 1.0e8) ** (1 / 1.5), []
for scene in range(1, 5):
    e = ev("rattle", scene)
    # the first impact is on the lid: the bead is above the centre
    u = sig("bodies/bead/u", scene); t = sig("time", scene)
    assert u[np.searchsorted(t, e["t_on"][0])] > 0, "first impact not on the lid"
    # eq 6 leaves out gravity, which matters in the slow bounces: v_in > 0.1 m/s
    fast = np.isfinite(e["v_out"]) & (e["v_in"] > 0.1)
    err = np.abs(e["v_out"][fast] / e["v_out_exact"][fast] - 1)
    assert fast.sum() >= 2 and err.max() < 1.2e-2, "scene %d: v_out off eq 6 by %s" % (scene, err)
    assert np.all(e["v_out_exact"][fast] > -e["v_in"][fast]), "eq 6 undamped"
    last.append(e["t_on"][-1])
    if scene >= 3:  # mu >= 4: at rest on the floor at its sag
        v = sig("bodies/bead/v", scene)
        assert abs(v[-1]) < 1e-8 and abs(u[-1] + h + sag) < 1e-3 * sag, "scene %d: u %g v %g" % (scene, u[-1], v[-1])
assert last[1] > last[2] > last[3], "settling does not come sooner with mu: %s" % last
PY
covered rattle-settle

run snare-membrane
check "snare-membrane: the stick strikes once (and grazes once)" "$tmp/snare-membrane.h5" <<'PY'
e = ev("strike")
assert 1 <= len(e) <= 2, "%d strikes" % len(e)
assert abs(e["t_on"][0] - 1e-3 / 3.0) < 2.3e-5, "strike at %g s" % e["t_on"][0]
assert e["v_in"][0] > 2.99, "strike speed %g" % e["v_in"][0]
PY
check "snare-membrane: every bead buzzes after the strike, and the buzz thins out" \
  "$tmp/snare-membrane.h5" <<'PY'
t0 = ev("strike")["t_on"][0]
for c in ("r1", "r2", "r3", "r4"):
    e = ev(c); t = e["t_on"]
    assert len(e) >= 100, "%s: %d impacts" % (c, len(e))
    assert t[0] > t0 and t[0] < t0 + 0.005, "%s: first impact at %g s" % (c, t[0])
    early, late = (t < 0.1).sum(), (t >= 0.2).sum()
    assert early > 2 * late, "%s: %d impacts in the first 0.1 s, %d in the last" % (c, early, late)
PY
covered snare-membrane

# ---------------------------------------------------- impact oscillator
run impact-oscillator
cat >"$tmp/io.py" <<'PY'
# After the transient (t >= 4 s): impacts per forcing period, the relative
# spread of all impact speeds and of every other impact's speeds, and the
# relative difference between the mean speeds of alternate impacts.
def orbit(scene):
    freq = table["forces.drive.freq"][scene]
    v = ev("impact", scene)
    v = v[v["t_on"] >= 4.0]["v_in"]
    even, odd = v[0::2], v[1::2]
    return dict(freq=freq, per_period=len(v) / (4.0 * freq),
                spread=np.ptp(v) / v.mean(),
                alt_spread=max(np.ptp(even) / even.mean(), np.ptp(odd) / odd.mean()),
                alt_diff=abs(even.mean() - odd.mean()) / v.mean(), v=v)
def scene_at(freq):
    return int(np.argmin(abs(table["forces.drive.freq"] - freq)))
PY
check "impact-oscillator: period 1 (one impact speed per period) up to 26.2 Hz" \
  "$tmp/impact-oscillator.h5" <<'PY'
exec(open(sys.argv[2].replace("check.py", "io.py")).read())
assert len(table) == 51 and np.all(table["status_code"] == 0)
for i in np.nonzero(table["forces.drive.freq"] <= 26.2 + 1e-9)[0]:
    o = orbit(i)
    assert abs(o["per_period"] - 1) < 0.05, "%g Hz: %g impacts per period" % (o["freq"], o["per_period"])
    assert o["spread"] < 0.025, "%g Hz: impact speeds spread by %g" % (o["freq"], o["spread"])
PY
check "impact-oscillator: period 2 (two alternating impact speeds) at 26.8 Hz" \
  "$tmp/impact-oscillator.h5" <<'PY'
exec(open(sys.argv[2].replace("check.py", "io.py")).read())
o = orbit(scene_at(26.8))
assert abs(o["freq"] - 26.8) < 1e-9
assert abs(o["per_period"] - 1) < 0.05, "%g impacts per period" % o["per_period"]
assert o["alt_spread"] < 0.025, "alternate impact speeds spread by %g" % o["alt_spread"]
assert o["alt_diff"] > 0.05, "alternate impacts differ by %g only" % o["alt_diff"]
assert o["spread"] > 0.05, "impact speeds spread by %g only" % o["spread"]
PY
check "impact-oscillator: irregular impacting beyond 27.1 Hz" "$tmp/impact-oscillator.h5" <<'PY'
exec(open(sys.argv[2].replace("check.py", "io.py")).read())
o = orbit(scene_at(27.4))
assert o["alt_spread"] > 0.2, "alternate impact speeds spread by %g only" % o["alt_spread"]
PY
# the file's own classification (its analysis block) says the same as the
# impact speeds: period 1 with one impact per period up to 26.2 Hz, period 2
# with two at 26.8 Hz, not periodic at 28 Hz; every periodic scene in an
# attractor of its own period, neighbouring frequencies sharing one within
# the default attractor tolerance (twice the period tolerance, 0.06; the
# ids label a drifting family, doc/analysis.md), not every scene its own
check "impact-oscillator: the table's orbit, period and impacts_per_period" \
  "$tmp/impact-oscillator.h5" <<'PY'
exec(open(sys.argv[2].replace("check.py", "io.py")).read())
freq = table["forces.drive.freq"]
for i in np.nonzero(freq <= 26.2 + 1e-9)[0]:
    assert (table["orbit"][i], table["period"][i], table["impacts_per_period"][i]) == (2, 1, 1), \
        "%g Hz: orbit %d, period %d, %d impacts" % (freq[i], table["orbit"][i], table["period"][i],
                                                     table["impacts_per_period"][i])
i = scene_at(26.8)
assert (table["orbit"][i], table["period"][i], table["impacts_per_period"][i]) == (2, 2, 2)
assert table["orbit"][scene_at(28.0)] == 3 and table["attractor"][scene_at(28.0)] == -1
periodic = table["orbit"] == 2
ids = table["attractor"][periodic]
assert np.all(ids >= 0) and np.all(table["attractor"][~periodic] == -1)
assert all(len(set(table["period"][periodic][ids == a])) == 1 for a in set(ids)), "periods mixed"
assert 1 < len(set(ids)) < periodic.sum(), "%d attractors of %d periodic scenes" % (len(set(ids)), periodic.sum())
s = f["study/sections"]
assert np.all(np.bincount(s["scene"][()], minlength=len(freq)) == table["sections"])
assert np.all(s["t"][()] >= 4.0)
PY
covered impact-oscillator

# ----------------------------------------------------- the papers' cases
# Papetti Table 1, AM1 at 44.1 kHz: v_out errors against eq 7-8 of
# +1.293 % (case a) and +2.551 % (case b); x_max stays below eq 4.
for case in a:1.293 b:2.551; do
  name=papetti-case-${case%%:*}
  run "$name"
  cat >"$tmp/want.py" <<PY
want = ${case#*:}
PY
  check "$name: one impact, Papetti Table 1 (AM1)" "$tmp/$name.h5" <<'PY'
exec(open(sys.argv[2].replace("check.py", "want.py")).read())
e = ev("hit")
assert len(e) == 1, "%d impacts" % len(e)
err = 100 * (e["v_out"][0] / e["v_out_pred"][0] - 1)
assert abs(err - want) < 0.01, "v_out error %+.4f %%, Table 1 says %+.3f %%" % (err, want)
assert e["x_max"][0] < e["x_max_pred"][0], "x_max %g above eq 4 %g" % (e["x_max"][0], e["x_max_pred"][0])
PY
  covered "$name"
done

run papetti-sweep
check "papetti-sweep: 64 scenes, one impact each, shorter contacts when stiffer" \
  "$tmp/papetti-sweep.h5" <<'PY'
assert len(table) == 64 and np.all(table["status_code"] == 0)
assert np.all(table["impacts:hit"] == 1), "impacts %s" % table["impacts:hit"]
d = table["mean_contact_duration:hit"].reshape(8, 8)
assert np.all(np.diff(d, axis=0) < 0), "contact time does not fall with k"
PY
covered papetti-sweep

run chatziioannou-hard
csv "$tmp/chatziioannou-hard.h5" collision
row=$(sed -n 2p "$tmp/events.csv")
[ "$(sed -n '$=' "$tmp/events.csv")" -eq 2 ] && ok || bad "chatziioannou-hard: not one impact"
# energy conserving: it rebounds at its entry speed, after at least one step
echo "$row" | awk -F, '{ d = $7 + $6; if (d < 0) d = -d; exit !(d < 1e-9 && $5 >= 2e-5 - 1e-12) }' && ok ||
  bad "chatziioannou-hard: duration, v_in, v_out = $(echo "$row" | cut -d, -f5-7)"
covered chatziioannou-hard

run ducceschi-fig4
sed 's/fs = 44100.0;/fs = 441000.0;/' "$tmp/scenes/ducceschi-fig4.cfg" >"$tmp/scenes/ducceschi-fine.cfg"
run ducceschi-fine
check "ducceschi-fig4: peak penetration 0.8725 mm" "$tmp/ducceschi-fig4.h5" <<'PY'
e = ev("collision")
assert len(e) == 1, "%d impacts" % len(e)
assert abs(e["x_max_pred"][0] / 0.8725e-3 - 1) < 1e-4, "exact peak %g" % e["x_max_pred"][0]
assert abs(e["x_max"][0] / 0.8725e-3 - 1) < 0.04, "sampled peak %g at 44.1 kHz" % e["x_max"][0]
assert abs(e["v_out"][0] + 20.0) < 1e-6, "v_out %g" % e["v_out"][0]
PY
check "ducceschi-fig4 at 441 kHz: peak penetration 0.8725 mm within 0.2 %" "$tmp/ducceschi-fine.h5" <<'PY'
x = ev("collision")["x_max"][0]
assert abs(x / 0.8725e-3 - 1) < 2e-3, "sampled peak %g" % x
PY
covered ducceschi-fig4

run avanzini-hammer-bar
# the same hammer against a rigid wall: Avanzini eq 12 with its own mass
cat >"$tmp/scenes/avanzini-wall.cfg" <<'CFG'
scene = { name = "avanzini-wall"; fs = 44100.0; duration = 0.005; };
bodies = ( { name = "hammer"; type = "mass"; mass = 0.01; u0 = 0.0; v0 = 1.0; },
           { name = "wall"; type = "wall"; } );
contacts = ( { name = "hit"; between = ["hammer", "wall"]; law = "hunt-crossley";
               k = 1.5e11; alpha = 2.8; mu = 0.6; scheme = "am1"; } );
CFG
run avanzini-wall
"$python" -c 'import sys, h5py; print(repr(float(h5py.File(sys.argv[1])["study/events/duration_pred"][0])))' \
  "$tmp/avanzini-wall.h5" >"$tmp/wall.txt" 2>&1 || bad "avanzini-wall: $(cat "$tmp/wall.txt")"
echo "rigid = $(cat "$tmp/wall.txt")" >"$tmp/rigid.py"
check "avanzini-hammer-bar: one impact, longer than against a rigid wall (eq 12)" \
  "$tmp/avanzini-hammer-bar.h5" <<'PY'
exec(open(sys.argv[2].replace("check.py", "rigid.py")).read())
e = ev("hit")
assert len(e) == 1, "%d impacts" % len(e)
d = e["duration"][0]
assert abs(rigid / 1.1728e-3 - 1) < 1e-3, "eq 12 against a wall gives %g s" % rigid
assert d > 1.03 * rigid and d < 1.15 * rigid, "contact %g s, rigid wall %g s" % (d, rigid)
assert -0.6 < e["v_out"][0] < -0.5, "hammer leaves at %g m/s" % e["v_out"][0]
PY
check "avanzini-hammer-bar: the bar rings at 440 Hz" "$tmp/avanzini-hammer-bar.h5" <<'PY'
u = sig("bodies/bar/strike/u"); fs = 1.0 / table["sample_interval"][0]
u = u[len(u) // 2:] - u[len(u) // 2:].mean()
spec = np.abs(np.fft.rfft(u * np.hanning(len(u))))
peak = np.argmax(spec) * fs / len(u)
assert abs(peak - 440.0) < 3.0, "strongest partial at %g Hz" % peak
PY
covered avanzini-hammer-bar

# ------------------------------------------------- distributed contact
sed 's/duration = 0.2;/duration = 0.05;/' "$tmp/scenes/tanpura.cfg" >"$tmp/scenes/tanpura-short.cfg"
run tanpura-short
check "tanpura: the string buzzes along the bridge every period, energy kept" \
  "$tmp/tanpura-short.h5" <<'PY'
touched = [c for c in contacts if c.startswith("jvari[") and len(ev(c)) > 0]
assert len(touched) >= 10, "only %d of the 64 bridge points touched: %s" % (len(touched), touched)
t = np.concatenate([ev(c)["t_on"] for c in touched])
for period in range(1, 5):  # 100 Hz: contact in each period after the first
    n = ((t >= period * 0.01) & (t < (period + 1) * 0.01)).sum()
    assert n > 0, "no contact in period %d" % period
e = sig("energy/total")
assert np.abs(e - e[0]).max() < 1e-11 * e[0], "energy drift %g" % (np.abs(e - e[0]).max() / e[0])
PY
covered tanpura

sed 's/duration = 0.1;/duration = 0.01;/' "$tmp/scenes/bass-fretted.cfg" >"$tmp/scenes/bass-short.cfg"
run bass-short
check "bass-fretted: the plucked string slaps the frets, the energy account closes" \
  "$tmp/bass-short.h5" <<'PY'
hit = [c for c in contacts if c.startswith("frets[") and len(ev(c)) > 0]
assert len(hit) >= 1, "no fret touched"
e, d = sig("energy/total"), sig("energy/dissipated")
err = np.abs(e + d - e[0]).max() / e[0]
assert err < 1e-11 and d[-1] > 0, "balance off by %g (dissipated %g of %g J)" % (err, d[-1], e[0])
PY
covered bass-fretted

sed 's/duration = 0.02;/duration = 0.006;/' "$tmp/scenes/bass-fretless.cfg" >"$tmp/scenes/fretless-short.cfg"
run fretless-short
check "bass-fretless: the string meets its 862-point neck near 3.7 ms, the account closes" \
  "$tmp/fretless-short.h5" <<'PY'
pts = [c for c in contacts if c.startswith("neck[")]
assert len(pts) == 862, "%d neck points" % len(pts)
hit = [c for c in pts if len(ev(c)) > 0]
t = np.concatenate([ev(c)["t_on"] for c in hit]) if hit else np.array([])
assert len(hit) >= 10 and 3.0e-3 < t.min() < 4.5e-3, "%d points hit, first at %s s" % (len(hit), t.min() if len(t) else None)
d = np.concatenate([ev(c)["duration"] for c in hit])
assert np.all(d[np.isfinite(d)] >= 0.0), "negative durations %s" % d[d < 0]
e, dis = sig("energy/total"), sig("energy/dissipated")
err = np.abs(e + dis - e[0]).max() / e[0]
assert err < 1e-11, "balance off by %g" % err
PY
covered bass-fretless

sed -e 's/duration = 0.1;/duration = 0.03;/' \
    -e 's#record = { signals = \[#record = { signals = ["contacts/frets/ft", "contacts/frets/normal", "contacts/frets/friction_work", #' \
    "$tmp/scenes/bass-fretted-2pol.cfg" >"$tmp/scenes/bass2-short.cfg"
run bass2-short
check "bass-fretted-2pol: the string rubs its frets along w, friction takes energy, the cone holds, the account closes" \
  "$tmp/bass2-short.h5" <<'PY'
ft, N, W = sig("contacts/frets/ft"), sig("contacts/frets/normal"), sig("contacts/frets/friction_work")
assert ft.shape[0] == 20, "shape %s" % (ft.shape,)
touch = N > 0
assert touch.sum() > 50 and np.all(ft[~touch] == 0), "%d samples touching, ft apart %g" % (touch.sum(), np.abs(ft[~touch]).max())
assert np.all(np.abs(ft) <= 0.3 * N), "cone: |ft| - mu_s N up to %g N" % (np.abs(ft) - 0.3 * N).max()
work = W[:, -1].sum()
assert work > 1e-4 and np.all(np.diff(W, axis=1) >= -1e-18), "friction work %g J" % work
w = sig("bodies/string/pickup/w")
assert np.abs(w).max() > 1e-4, "w at the pickup %g m" % np.abs(w).max()
e, d = sig("energy/total"), sig("energy/dissipated")
err = np.abs(e + d - e[0]).max() / e[0]
assert err < 1e-11, "balance off by %g" % err
PY
covered bass-fretted-2pol

run snare-wires
check "snare-wires: the struck head throws its wires, which slap back along their length" \
  "$tmp/snare-wires.h5" <<'PY'
t0 = ev("strike")["t_on"][0]
assert len(ev("strike")) == 1 and abs(t0 - 1e-3 / 3.0) < 2.3e-5, "strike at %s" % ev("strike")["t_on"]
for w in range(1, 5):
    pts = [c for c in contacts if c.startswith("wire%d[" % w)]
    assert len(pts) == 12, "wire %d has %d points" % (w, len(pts))
    t = np.concatenate([ev(c)["t_on"] for c in pts])
    touched = sum(len(ev(c)) > 0 for c in pts)
    assert len(t) >= 50 and touched >= 10, "wire %d: %d impacts at %d points" % (w, len(t), touched)
    assert t.min() < t0 + 1e-3 and (t > 0.15).sum() > 0, "wire %d: from %g s, %d after 0.15 s" % (w, t.min(), (t > 0.15).sum())
PY
covered snare-wires

run tanpura-bridge
check "tanpura-bridge: the lossless string keeps its energy on the 64-point bridge" \
  "$tmp/tanpura-bridge.h5" <<'PY'
assert np.all(table["status_code"] == 0)
e = sig("energy/total")
drift = np.max(np.abs(e - e[0])) / e[0]
assert drift < 1e-11, "energy drift %g of %g J" % (drift, e[0])
hit = sum(len(ev("b%d" % i)) > 0 for i in range(64))
assert hit >= 20, "%d of 64 bridge points touched" % hit
PY
covered tanpura-bridge

# issue 30: the belt's stick-slip against the closed form (doc/friction.md)
run belt-stick-slip
check "belt-stick-slip: stick-slip with the closed form's period, the force in the cone" \
  "$tmp/belt-stick-slip.h5" <<'PY'
assert np.all(table["status_code"] == 0)
t, slip, ft = sig("time"), sig("contacts/rub/slip"), sig("contacts/rub/ft")
N, m, k, ms, mk, v = 9.81, 1.0, 1000.0, 0.6, 0.4, 0.02
om = np.sqrt(k / m); D = (ms - mk) * N / k
period = (np.pi + 2 * np.arctan(v / om / D)) / om + 2 * D / v
start = t[1:][(slip[:-1] == 0) & (slip[1:] != 0)]
assert len(start) >= 5, "%d breakaways" % len(start)
got = np.diff(start).mean()
assert abs(got - period) < 2 * (t[1] - t[0]), "period %g s, closed form %g s" % (got, period)
assert np.all(np.abs(ft) <= ms * N * (1 + 1e-9)), "ft up to %g N" % np.abs(ft).max()
bal = sig("energy/total") + sig("energy/dissipated") - sig("energy/external")
assert np.ptp(bal) < 1e-10, "balance moves by %g J" % np.ptp(bal)
PY
check "belt-stick-slip: the phases' durations and works against the closed form" \
  "$tmp/belt-stick-slip.h5" <<'PY'
p = f["study/phases"]
stick, dur, work = p["stick"][()], p["duration"][()], p["friction_work"][()]
N, m, k, ms, mk, v = 9.81, 1.0, 1000.0, 0.6, 0.4, 0.02
om = np.sqrt(k / m); D = (ms - mk) * N / k; h = sig("time")[1]
slip = (np.pi + 2 * np.arctan(v / om / D)) / om
assert list(stick) == [i % 2 == 0 for i in range(len(stick))], stick
full = slice(1, len(stick) - 1)
s, d, w = stick[full] == 1, dur[full], work[full]
assert np.all(np.abs(d[~s] - slip) < 2 * h), "slips %s s, closed form %g s" % (d[~s], slip)
assert np.all(np.abs(d[s] - 2 * D / v) < 2 * h), "sticks %s s, closed form %g s" % (d[s], 2 * D / v)
assert np.all(np.abs(w[~s] - mk * N * (v * slip + 2 * D)) < mk * N * 4 * v * h), w[~s]
assert np.all(w[s] == 0.0)
fw = f["study/table/friction_work"][0, 0]
assert abs(fw - work.sum()) < 1e-12 * fw, "table %g J, phases %g J" % (fw, work.sum())
assert 0.6 < f["study/table/stick_share"][0, 0] < 0.7
PY
# vibro events --phases: the same rows as CSV
if "$vibro" events "$tmp/belt-stick-slip.h5" --phases --csv >"$tmp/phases.csv" 2>"$tmp/phases.err" &&
   head -n 1 "$tmp/phases.csv" | grep -qx 'scene,contact,stick,t_on,t_off,duration,mean_slip,friction_work,steps' &&
   [ "$(sed 1d "$tmp/phases.csv" | wc -l)" -ge 11 ] && [ "$(sed -n 3p "$tmp/phases.csv" | cut -d, -f2,3)" = rub,0 ]
then ok; else bad "vibro events --phases: $(head -n 3 "$tmp/phases.csv") $(cat "$tmp/phases.err")"; fi
covered belt-stick-slip

run held-block
check "held-block: no creep under static friction over 10 s" "$tmp/held-block.h5" <<'PY'
assert np.all(table["status_code"] == 0)
w = sig("bodies/block/w")
assert np.all(w == 4.5e-3), "w moved by %g m" % np.abs(w - 4.5e-3).max()
assert np.all(sig("contacts/rub/slip") == 0.0)
assert np.all(sig("contacts/rub/friction_work") == 0.0)
PY
covered held-block

# issue 30, step 2: a sphere launched sliding starts to roll (doc/friction.md)
run sliding-sphere
check "sliding-sphere: rolls from 2 v0 / (7 mu g) at 5 v0 / 7, friction takes m v0^2 / 7" \
  "$tmp/sliding-sphere.h5" <<'PY'
assert np.all(table["status_code"] == 0)
t, slip, stick = sig("time"), sig("contacts/rub/slip"), sig("contacts/rub/stick")
m, r, v0, mu, g = 0.163, 0.0286, 1.37, 0.21, 9.81
h = t[1] - t[0]
k1 = int(np.argmax(stick == 1))
tstar = 2 * v0 / (7 * mu * g)
# the last two slipping samples (mean slips of their steps) extrapolated to 0
ta, tb = t[k1 - 2] - h / 2, t[k1 - 1] - h / 2
got = tb - slip[k1 - 1] * (tb - ta) / (slip[k1 - 1] - slip[k1 - 2])
assert abs(got - tstar) < 1e-9, "rolls from %.12g s, closed form %.12g s" % (got, tstar)
vw, spin = sig("bodies/ball/vw"), sig("bodies/ball/spin")
assert abs(vw[-1] - 5 * v0 / 7) < 1e-10, "rolls at %.15g m/s" % vw[-1]
assert abs(spin[-1] + 5 * v0 / (7 * r)) < 1e-8, "spin %.15g rad/s" % spin[-1]
assert np.all(stick[k1:] == 1) and np.all(np.abs(slip[k1:]) < 1e-15)
work = sig("contacts/rub/friction_work")[-1]
assert abs(work - m * v0 ** 2 / 7) < 1e-12, "friction work %.15g J" % work
bal = sig("energy/total") + sig("energy/dissipated") - sig("energy/external")
assert np.ptp(bal) < 1e-12, "balance moves by %g J" % np.ptp(bal)
PY
covered sliding-sphere

# issue 30, step 3: a bowed oscillator (a prescribed normal force, the
# Stribeck curve); the period from tests/run/bow_ref.py's event-driven
# integration of the same model, 0.0322733 s
run bowed-oscillator
check "bowed-oscillator: stick-slip at the reference's period, on the curve, in the cone" \
  "$tmp/bowed-oscillator.h5" <<'PY'
assert np.all(table["status_code"] == 0)
t, slip, ft = sig("time"), sig("contacts/hair/slip"), sig("contacts/hair/ft")
stick, work = sig("contacts/hair/stick"), sig("contacts/hair/friction_work")
N, ms, mk, vs = 1.5, 0.8, 0.35, 0.0213
start = t[1:][(stick[:-1] == 1) & (stick[1:] == 0)]
assert len(start) >= 20, "%d breakaways" % len(start)
got = np.diff(start).mean()
assert abs(got - 0.0322733) < 2 * (t[1] - t[0]), "period %g s, the reference 0.0322733 s" % got
assert np.all(np.abs(ft) <= ms * N * (1 + 1e-12)), "ft up to %g N" % np.abs(ft).max()
sl = (stick[1:] == 0) & (stick[:-1] == 0)
mu = mk + (ms - mk) * np.exp(-(np.abs(slip[1:][sl]) / vs) ** 2)
off = np.abs(np.abs(ft[1:][sl]) - N * mu).max()
assert off < 1e-12, "a slipping ft %g N off the curve" % off
assert np.all(np.diff(work) >= 0), "the friction work decreases"
bal = sig("energy/total") + sig("energy/dissipated") - sig("energy/external")
assert np.ptp(bal) < 1e-12, "balance moves by %g J" % np.ptp(bal)
PY
covered bowed-oscillator

# issue 30, step 4: the elasto-plastic bristle law's squeak (doc/friction.md)
run elastoplastic-squeak
check "elastoplastic-squeak: a stick-slip squeak at the pad's 318 Hz, the bristle inside mu_s / sigma0" \
  "$tmp/elastoplastic-squeak.h5" <<'PY'
assert np.all(table["status_code"] == 0)
t, slip, ft = sig("time"), sig("contacts/rub/slip"), sig("contacts/rub/ft")
z, work = sig("contacts/rub/bristle"), sig("contacts/rub/friction_work")
N, ms, s0, kw, m = 0.01 * 9.81, 0.9, 2.0e6, 40000.0, 0.01
late = t > 0.1
sl, tl = slip[late], t[late]
k = np.nonzero((sl[:-1] > -0.015) & (sl[1:] <= -0.015))[0]
assert len(k) >= 100, "%d slips" % len(k)
freq = 1.0 / np.diff(tl[k]).mean()
f0 = np.sqrt(kw / m) / (2 * np.pi)
assert abs(freq - f0) < 0.01 * f0, "squeak at %g Hz, the pad's %g Hz" % (freq, f0)
assert np.mean(np.abs(sl) < 1e-3) > 0.02, "no presliding phase"
assert np.all(np.abs(z) <= ms / s0), "the bristle up to %g m" % np.abs(z).max()
assert np.all(np.abs(ft) <= ms * N * (1 + 1e-9)), "ft up to %g N" % np.abs(ft).max()
assert np.all(np.diff(work) >= 0), "the friction work decreases"
bal = sig("energy/total") + sig("energy/dissipated") - sig("energy/external")
assert np.ptp(bal) < 1e-14, "balance moves by %g J" % np.ptp(bal)
PY
covered elastoplastic-squeak

# issue 30, item 4: a rotor rubbing in a circular clearance (doc/geometry.md)
run rotor-rub
check "rotor-rub: frictionless rubs keep a forward whirl, friction drives a backward whirl (dry whip)" \
  "$tmp/rotor-rub.h5" <<'PY'
assert np.all(table["status_code"] == 0)
for k in (0, 1):
    t, u, w = sig("time", k), sig("bodies/rotor/u", k), sig("bodies/rotor/w", k)
    v, vw, x = sig("bodies/rotor/v", k), sig("bodies/rotor/vw", k), sig("contacts/rub/compression", k)
    r = np.hypot(u, w)
    assert np.allclose(x, r - 2e-4, rtol=0, atol=1e-18), "compression is not |(u, w)| - c"
    L = 2.5 * (u * vw - w * v)
    late = t > 0.15
    turns = (np.unwrap(np.arctan2(w[late], u[late]))[-1] - np.arctan2(w[late][0], u[late][0])) / (2 * np.pi)
    rate = turns / (t[late][-1] - t[late][0])
    bal = sig("energy/total", k) + sig("energy/dissipated", k)  # no external work: a fixed stator
    assert np.ptp(bal) < 1e-12, "scene %d: balance moves by %g J" % (k, np.ptp(bal))
    if k == 0:
        e = ev("rub", 0)
        assert len(e) == 41, "%d rubs" % len(e)
        assert abs(e["t_on"][-1] - 0.2735) < 0.005, "last rub at %g s" % e["t_on"][-1]
        assert np.all(L < 0) and abs(L[0] + 3.5588e-5) < 1e-8, "the whirl reverses: L %g .. %g" % (L.min(), L.max())
        assert abs(rate + 53.37) < 0.1, "whirl at %g rev/s" % rate
        assert np.all(sig("bodies/rotor/spin", 0) == 300.0), "the spin moves without friction"
    else:
        ft, F, st = sig("contacts/rub/ft", 1), sig("contacts/rub/force", 1), sig("contacts/rub/stick", 1)
        flip = t[np.argmax(L > 0)]
        assert L[-1] > 0 and 0.02 < flip < 0.04, "no backward whirl: L turns at %g s" % flip
        assert np.all(st[late] == 1), "the backward whirl slips"
        assert np.abs(sig("contacts/rub/slip", 1)[st == 1]).max() < 1e-13, "a rolling step slips"
        assert abs(rate - 446) < 5, "backward whirl at %g rev/s" % rate
        assert np.all(np.abs(ft) <= 0.3 * np.maximum(F, 0) * (1 + 1e-12)), "ft leaves the cone"
        assert np.all(np.diff(sig("contacts/rub/friction_work", 1)) >= 0), "the friction work decreases"
        assert abs(sig("bodies/rotor/spin", 1)[-1] - 62.13) < 0.05, "spin %g" % sig("bodies/rotor/spin", 1)[-1]
        assert np.abs(ft[late] / F[late]).max() < 2e-4, "rolling takes |ft| / N up to %g" % np.abs(ft[late] / F[late]).max()
PY
covered rotor-rub

# issue 30, item 5: a contact point moving along its body (doc/geometry.md)
run ball-across-plate
check "ball-across-plate: a ball bouncing, then rolling across the plate, the balance to round-off" \
  "$tmp/ball-across-plate.h5" <<'PY'
assert np.all(table["status_code"] == 0)
t, x = sig("time"), sig("contacts/roll/compression")
e = ev("roll")
assert len(e) == 235, "%d impacts" % len(e)
assert np.isnan(e["t_off"][-1]) and abs(e["t_on"][-1] - 0.45) < 0.01, "the last impact at %g s ends" % e["t_on"][-1]
assert np.all(x[t > 0.46] > 0), "contact lost after 0.46 s"
bal = sig("energy/total") + sig("energy/dissipated") - sig("energy/external")
assert np.ptp(bal) < 1e-15, "balance moves by %g J" % np.ptp(bal)
p = sig("bodies/plate/pickup/u")
assert 5e-6 < np.sqrt(np.mean(p[t > 0.5] ** 2)) < 9e-6, "pickup rms %g" % np.sqrt(np.mean(p[t > 0.5] ** 2))
PY
covered ball-across-plate

run ball-rolls-across-plate
check "ball-rolls-across-plate: the point follows the ball's w, the plate's slope pushes it, the balance to round-off" \
  "$tmp/ball-rolls-across-plate.h5" <<'PY'
assert np.all(table["status_code"] == 0)
t, x, vw = sig("time"), sig("contacts/roll/compression"), sig("bodies/ball/vw")
e = ev("roll")
assert len(e) == 41, "%d impacts" % len(e)
assert np.isnan(e["t_off"][-1]) and abs(e["t_on"][-1] - 0.121) < 0.002, "the last impact at %g s ends" % e["t_on"][-1]
assert np.all(x[t > 0.122] > 0), "contact lost after 0.122 s"
p = 0.03 + sig("bodies/ball/w")
i = np.argmax(vw)
assert abs(p[i] - 0.15) < 0.01 and abs(vw[i] - 0.25034) < 2e-5, "fastest %g m/s at x = %g m" % (vw[i], p[i])
assert abs(vw[-1] - 0.24994) < 2e-5 and abs(p[-1] - 0.2802) < 1e-4, "at the end %g m/s at x = %g m" % (vw[-1], p[-1])
bal = sig("energy/total") + sig("energy/dissipated") - sig("energy/external")
assert np.ptp(bal) < 1e-15, "balance moves by %g J" % np.ptp(bal)
assert abs(sig("energy/external")[-1]) < 1e-6, "external work %g J (gravity's alone)" % sig("energy/external")[-1]
pk = sig("bodies/plate/pickup/u")
assert 5e-6 < np.sqrt(np.mean(pk[t > 0.5] ** 2)) < 9e-6, "pickup rms %g" % np.sqrt(np.mean(pk[t > 0.5] ** 2))
PY
covered ball-rolls-across-plate

run ball-spins-across-plate
check "ball-spins-across-plate: a sphere following its w slides, then rolls at 5/7 v0, the friction work m v0^2 / 7, the balance to round-off" \
  "$tmp/ball-spins-across-plate.h5" <<'PY'
assert np.all(table["status_code"] == 0)
t, vw, spin, stick = sig("time"), sig("bodies/ball/vw"), sig("bodies/ball/spin"), sig("contacts/roll/stick")
on = np.argmax(stick > 0)
assert abs(t[on] - 0.03642) < 5e-5, "rolls from %g s" % t[on]
assert abs(vw[on + 1] - 0.17861) < 2e-5 and abs(spin[on + 1] + 26.54) < 0.01, (vw[on + 1], spin[on + 1])
k = stick > 0
assert np.abs(vw[k] + 0.00673 * spin[k]).max() < 1e-12, "rolling slip %g m/s" % np.abs(vw[k] + 0.00673 * spin[k]).max()
assert np.all(stick[t > 0.121] > 0), "slips after 0.121 s"
W = sig("contacts/roll/friction_work")
assert abs(W[-1] - 8.930e-5) < 5e-8 and np.diff(W).min() >= 0, "friction work %g J" % W[-1]
assert abs(0.03 + sig("bodies/ball/w")[-1] - 0.2101) < 1e-4
bal = sig("energy/total") + sig("energy/dissipated") - sig("energy/external")
assert np.ptp(bal) < 1e-15, "balance moves by %g J" % np.ptp(bal)
PY
covered ball-spins-across-plate

run bowed-string
check "bowed-string: Helmholtz motion at f1, the bow point sticking at the bow's velocity" \
  "$tmp/bowed-string.h5" <<'PY'
assert np.all(table["status_code"] == 0)
t, vw, stick = sig("time"), sig("bodies/string/bowing/vw"), sig("contacts/hair/stick")
f1 = (50.0 / 2.87e-3) ** 0.5 / (2 * 0.33)
start = t[1:][(stick[:-1] == 1) & (stick[1:] == 0) & (t[1:] > 0.15)]
d = np.diff(start)
assert len(d) >= 60 and np.all(np.abs(d * f1 - 1) < 0.01), "%d slips, intervals %g .. %g of 1/f1" % (len(d) + 1, d.min() * f1, d.max() * f1)
k = (stick == 1) & (t > 0.15)
assert np.abs(vw[k] - 0.1).max() < 1e-12, "stick velocity off by %g m/s" % np.abs(vw[k] - 0.1).max()
bal = sig("energy/total") + sig("energy/dissipated") - sig("energy/external")
assert np.ptp(bal) < 1e-12, "balance moves by %g J" % np.ptp(bal)
PY
covered bowed-string

# issue 30, item 2: the rigid law under Moreau-Jean (doc/rigid.md)
run rigid-bouncing-ball
check "rigid-bouncing-ball: the closed form's bounces, instantaneous impacts, at rest after the Zeno point" \
  "$tmp/rigid-bouncing-ball.h5" <<'PY'
assert np.all(table["status_code"] == 0)
e, g, H, m = 0.85, 9.81, 0.2, 0.0459
t = sig("time"); h = t[1] - t[0]
v0 = (2 * g * H) ** 0.5
tk = np.sqrt(2 * H / g) + np.concatenate([[0], np.cumsum(2 * e ** np.arange(1, 6) * v0 / g)])
r = ev("bounce")
assert abs(r["t_on"][0] - tk[0]) < 1e-10 and abs(r["v_in"][0] - v0) < 1e-9, (r["t_on"][0], r["v_in"][0])
err = np.abs(r["t_on"][:6] - tk).max()
assert err < 6 * h, "impact times off by %g s" % err  # 4.1 steps measured: each flight inherits the O(h) exit speed
assert np.all(np.abs(r["v_in"][:6] - e ** np.arange(6) * v0) < 8 * g * h), r["v_in"][:6]
assert np.all(r["duration"][:-1] == 0.0) and np.all(r["samples"][:-1] == 1)
assert np.all(np.abs(r["v_out"][:-1] + e * r["v_in"][:-1]) < 3 * g * h)
zeno = np.sqrt(2 * H / g) + 2 * v0 * e / ((1 - e) * g)
assert abs(r["t_on"][-1] - zeno) < 0.01 and np.isnan(r["t_off"][-1]), (r["t_on"][-1], zeno)
late = t > zeno + 0.02
assert np.abs(sig("contacts/bounce/force")[late] - m * g).max() < 1e-9
bal = sig("energy/total") + sig("energy/dissipated") - sig("energy/external")
assert np.abs(bal).max() < 1e-11, "balance moves by %g J" % np.abs(bal).max()
PY
covered rigid-bouncing-ball

# every scene in scenes/ has its checks above
for scene in "$srcdir"/scenes/*.cfg; do
  name=$(basename "$scene" .cfg)
  case "$checked" in
  *" $name "*) ok ;;
  *) bad "scenes/$name.cfg: no checks in tests/scenes.sh" ;;
  esac
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

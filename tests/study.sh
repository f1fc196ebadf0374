#!/bin/sh
# study.sh - studies end to end in layout vibro-3 (doc/format.md): -j 1 and
# -j 2 give identical files; the interruption matrix (SIGKILL at every 3rd
# write point of the output through VIBRO_TEST_KILL_AT, SIGKILL from
# outside, a full disk through ulimit -f, SIGTERM, a damaged shard), each
# followed by --resume, equals the uninterrupted file (h5diff); a reader
# opens a running study; file safety (second writer, symlink, directory,
# the scene file as output); xarray/h5netcdf opens /signals.  Run by make
# check; needs h5diff.
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
python=${PYTHON:-/usr/bin/python3}
command -v h5diff >/dev/null && command -v h5dump >/dev/null || { echo "no h5diff/h5dump"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vibro-study.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$srcdir/tests/testlib.sh"


# shards DIR: scenes listed in the shard manifests of DIR
shards() {
  cat "$1"/manifest.r* 2>/dev/null | awk '{ n += $4 } END { print n + 0 }'
}

# first_shard DIR: wait (at most 4 s) until a shard of DIR is listed
first_shard() {
  tries=0
  while [ "$(shards "$1")" -eq 0 ] && [ "$tries" -lt 400 ]; do
    sleep 0.01
    tries=$((tries + 1))
  done
}

# kill_resume STUDY OUT REF WHAT DELAY...: SIGKILL a -j 2 run of STUDY from
# outside after each DELAY (s); --resume must then give REF
kill_resume() {
  kstudy=$1 kout=$2 kref=$3 kwhat=$4
  shift 4
  for delay in "$@"; do
    rm -rf "$kout" "$kout.part"
    "$vibro" run "$kstudy" -o "$kout" -j 2 --quiet >/dev/null 2>&1 &
    pid=$!
    sleep "$delay"
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    expect 0 "$vibro" run "$kstudy" -o "$kout" -j 2 --resume --quiet
    same "$kref" "$kout" "$kwhat, SIGKILL after $delay s"
  done
}

# 64 scenes: the same file with one thread and two
study="$srcdir/scenes/papetti-sweep.cfg"
expect 0 "$vibro" run "$study" -o "$tmp/j1.h5" -j 1 --quiet
expect 0 "$vibro" run "$study" -o "$tmp/j2.h5" -j 2 --quiet
same "$tmp/j1.h5" "$tmp/j2.h5" "-j 1 against -j 2"
[ -e "$tmp/j1.h5.part" ] && bad "shard directory left after a finished run" || ok
h5dump -a /format "$tmp/j1.h5" >"$tmp/format" 2>&1
contains "$tmp/format" '"vibro-3"'
# h5diff sees a difference where there is one (the test can fail)
sed 's/mu = 0.5;/mu = 0.51;/' "$study" >"$tmp/other.cfg"
expect 0 "$vibro" run "$tmp/other.cfg" -o "$tmp/other.h5" -j 2 --quiet
h5diff "$tmp/j1.h5" "$tmp/other.h5" >/dev/null 2>&1 && bad "h5diff found no difference" || ok

# The interruption matrix.  Shards of 16 scenes (VIBRO_TEST_BATCH) give
# about 85 write points; the run kills itself (SIGKILL) at the k-th, for
# every 3rd k, then --resume must give the uninterrupted file.
ref="$tmp/j1.h5"
points=0
k=1
while [ "$k" -le 85 ]; do
  rm -rf "$tmp/k.h5" "$tmp/k.h5.part"
  VIBRO_TEST_BATCH=16 VIBRO_TEST_KILL_AT=$k "$vibro" run "$study" -o "$tmp/k.h5" -j 2 --quiet \
    >/dev/null 2>&1
  got=$?
  if [ "$got" -eq 137 ]; then
    points=$((points + 1))
    [ -e "$tmp/k.h5" ] && [ -e "$tmp/k.h5.part" ] && [ "$k" -lt 80 ] &&
      bad "kill at write $k: k.h5 exists while shards remain"
    expect 0 "$vibro" run "$study" -o "$tmp/k.h5" -j 2 --resume --quiet
    same "$ref" "$tmp/k.h5" "SIGKILL at write $k, then --resume"
    [ -e "$tmp/k.h5.part" ] && bad "kill at write $k: shards left after resume" || ok
  fi
  k=$((k + 3))
done
[ "$points" -ge 20 ] && ok || bad "only $points kill points (want >= 20)"
echo "SIGKILL at $points write points: each resumed to the uninterrupted file"

# killed twice in a row, then resumed
rm -rf "$tmp/k.h5" "$tmp/k.h5.part"
VIBRO_TEST_BATCH=16 VIBRO_TEST_KILL_AT=30 "$vibro" run "$study" -o "$tmp/k.h5" --quiet >/dev/null 2>&1
VIBRO_TEST_BATCH=16 VIBRO_TEST_KILL_AT=20 "$vibro" run "$study" -o "$tmp/k.h5" --resume --quiet \
  >/dev/null 2>&1
expect 0 "$vibro" run "$study" -o "$tmp/k.h5" --resume --quiet
same "$ref" "$tmp/k.h5" "killed twice"

# a damaged shard is found by its CRC-32 and its scenes run again
rm -rf "$tmp/k.h5" "$tmp/k.h5.part"
VIBRO_TEST_BATCH=16 VIBRO_TEST_KILL_AT=70 "$vibro" run "$study" -o "$tmp/k.h5" --quiet >/dev/null 2>&1
n=$(shards "$tmp/k.h5.part")
[ "$n" -ge 32 ] && ok || bad "expected shards before write 70, have $n scenes"
first=$(ls "$tmp/k.h5.part"/r000-*.h5 | head -n 1)
printf 'X' | dd of="$first" bs=1 seek=3000 conv=notrunc 2>/dev/null
expect 0 "$vibro" run "$study" -o "$tmp/k.h5" --resume
contains "$tmp/out" "($((64 - n + 16)) run, $((n - 16)) kept)"
same "$ref" "$tmp/k.h5" "damaged shard"

# SIGKILL from outside at random moments of a longer study
sed 's/duration = 0.002;/duration = 0.05;/' "$study" >"$tmp/long.cfg"
expect 0 "$vibro" run "$tmp/long.cfg" -o "$tmp/lref.h5" -j 2 --quiet
VIBRO_TEST_BATCH=4 kill_resume "$tmp/long.cfg" "$tmp/l.h5" "$tmp/lref.h5" "shards of 4" 0.2 0.5 0.9

# another input is refused, the shards kept
rm -rf "$tmp/k.h5" "$tmp/k.h5.part"
VIBRO_TEST_BATCH=16 VIBRO_TEST_KILL_AT=40 "$vibro" run "$study" -o "$tmp/k.h5" --quiet >/dev/null 2>&1
sed 's/mu = 0.5;/mu = 0.6;/' "$study" >"$tmp/study2.cfg"
expect 1 "$vibro" run "$tmp/study2.cfg" -o "$tmp/k.h5" --resume --quiet
contains "$tmp/err" "k.h5.part was written for a different input than $tmp/study2.cfg"
[ "$(shards "$tmp/k.h5.part")" -gt 0 ] && ok || bad "refused resume removed the shards"
expect 0 "$vibro" run "$study" -o "$tmp/k.h5" --resume --quiet
same "$ref" "$tmp/k.h5" "after a refused resume"
# resuming a finished file checks it and runs nothing
expect 0 "$vibro" run "$study" -o "$tmp/k.h5" --resume
contains "$tmp/out" "(0 run, 64 kept)"

# full disk: a file size limit (ulimit -f) during the shards and the merge
for limit in 64 400; do
  rm -rf "$tmp/f.h5" "$tmp/f.h5.part"
  (ulimit -f "$limit"; VIBRO_TEST_BATCH=16 exec "$vibro" run "$study" -o "$tmp/f.h5" --quiet) \
    >"$tmp/out" 2>"$tmp/err"
  got=$?
  [ "$got" -eq 1 ] && ok || bad "ulimit -f $limit: exit $got, expected 1: $(cat "$tmp/err")"
  # one message (after vibro check's warnings, which the run prints first)
  [ "$(grep -vc '^warning: ' "$tmp/err")" -eq 1 ] && ok || bad "ulimit -f $limit: not one line: $(cat "$tmp/err")"
  contains "$tmp/err" "the file size limit was reached"
  expect 0 "$vibro" run "$study" -o "$tmp/f.h5" --resume --quiet
  same "$ref" "$tmp/f.h5" "ulimit -f $limit, then --resume"
done
# a scene over 8 MiB (14 MB) is written by HDF5 itself, not as an image:
# its failed write is one message, not a crash closing the file
sed 's/duration = 0.002;/duration = 4.0;/' "$srcdir/scenes/papetti-case-b.cfg" >"$tmp/big.cfg"
expect 0 "$vibro" run "$tmp/big.cfg" -o "$tmp/bigref.h5" --quiet
(ulimit -f 4000; exec "$vibro" run "$tmp/big.cfg" -o "$tmp/big.h5" --quiet) >"$tmp/out" 2>"$tmp/err"
got=$?
[ "$got" -eq 1 ] && ok || bad "ulimit -f 4000, one 14 MB scene: exit $got, expected 1: $(cat "$tmp/err")"
only_line "$tmp/err" "$tmp/big.h5: cannot write r000-000000.h5.tmp: the file size limit was reached; no scene was finished"
expect 0 "$vibro" run "$tmp/big.cfg" -o "$tmp/big.h5" --resume --quiet
same "$tmp/bigref.h5" "$tmp/big.h5" "ulimit -f 4000 on one 14 MB scene, then --resume"

# A second writer is refused during the merge too: every scene in shards
# (a file size limit that stops the merge), then a resume frozen (SIGSTOP
# through the kill hook) at the 5th write point of its merge; the second
# writer is refused, naming it, and the first then finishes the same file
rm -rf "$tmp/m.h5" "$tmp/m.h5.part"
(ulimit -f 400; VIBRO_TEST_BATCH=16 exec "$vibro" run "$study" -o "$tmp/m.h5" --quiet) \
  >/dev/null 2>&1
if [ "$(shards "$tmp/m.h5.part")" -eq 64 ] && [ ! -e "$tmp/m.h5" ]; then
  VIBRO_TEST_KILL_AT=5 VIBRO_TEST_KILL_SIG=19 "$vibro" run "$study" -o "$tmp/m.h5" --resume \
    --quiet >"$tmp/mout" 2>&1 &
  pid=$!
  tries=0
  while [ "$(cut -d' ' -f3 /proc/$pid/stat 2>/dev/null)" != T ] && [ "$tries" -lt 200 ]; do
    sleep 0.05
    tries=$((tries + 1))
  done
  [ "$(cut -d' ' -f3 /proc/$pid/stat 2>/dev/null)" = T ] && ok || bad "the merge did not stop at its 5th write"
  expect 1 "$vibro" run "$study" -o "$tmp/m.h5" --quiet
  contains "$tmp/err" "m.h5: being written by process $pid"
  [ "$(shards "$tmp/m.h5.part")" -eq 64 ] && ok || bad "the second writer touched the shards"
  kill -CONT "$pid"
  wait "$pid" && ok || bad "the merge failed after a refused second writer: $(cat "$tmp/mout")"
  same "$ref" "$tmp/m.h5" "a merge with a refused second writer"
else
  bad "ulimit -f 400 did not leave all 64 scenes in shards: $(shards "$tmp/m.h5.part")"
fi

# Signals: the scenes in flight finish, a resumable shard directory, 128 + signal
sed 's/duration = 0.002;/duration = 1.0;/' "$study" >"$tmp/slow.cfg"
expect 0 "$vibro" run "$tmp/slow.cfg" -o "$tmp/sref.h5" -j 2 --quiet
# SIGTERM, SIGINT and SIGHUP, each once the first shard is listed (mid-run
# on a fast machine too): exit 128 + the signal, then --resume
for sig in TERM:143 INT:130 HUP:129; do
  name=${sig%:*}
  code=${sig#*:}
  rm -rf "$tmp/t.h5" "$tmp/t.h5.part"
  start=$(date +%s%N)
  VIBRO_TEST_BATCH=4 "$vibro" run "$tmp/slow.cfg" -o "$tmp/t.h5" -j 2 --quiet >"$tmp/out" 2>"$tmp/err" &
  pid=$!
  first_shard "$tmp/t.h5.part"
  kill -"$name" "$pid"
  wait "$pid"
  got=$?
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  if [ "$got" -eq "$code" ]; then
    ok
    contains "$tmp/err" "t.h5: interrupted after "
    contains "$tmp/err" " of 64 scenes; run again with --resume"
    [ -e "$tmp/t.h5" ] && bad "SIG$name: an interrupted run left t.h5" || ok
    expect 0 "$vibro" run "$tmp/slow.cfg" -o "$tmp/t.h5" -j 2 --resume --quiet
    same "$tmp/sref.h5" "$tmp/t.h5" "SIG$name, then --resume"
  elif [ "$got" -eq 0 ]; then
    bad "SIG$name came after the end ($ms ms): the run was not interrupted"
  else
    bad "SIG$name: exit $got, expected $code: $(cat "$tmp/err")"
  fi
done

# a reader opens a running study, and a second writer is refused
rm -rf "$tmp/w.h5" "$tmp/w.h5.part"
VIBRO_TEST_BATCH=4 "$vibro" run "$tmp/slow.cfg" -o "$tmp/w.h5" -j 1 --quiet >"$tmp/wout" 2>&1 &
pid=$!
first_shard "$tmp/w.h5.part"
if kill -0 "$pid" 2>/dev/null && [ "$(shards "$tmp/w.h5.part")" -gt 0 ]; then
  ok
  "$python" - "$tmp/w.h5.part" >"$tmp/reader" 2>&1 <<'PY' && ok || bad "reading a running study: $(cat "$tmp/reader")"
import sys, os, h5py
part = sys.argv[1]
n = 0
for m in sorted(os.listdir(part)):
    if not m.startswith("manifest."):
        continue
    for line in open(os.path.join(part, m)):
        if not line.endswith("\n"):
            continue
        with h5py.File(os.path.join(part, line.split()[0]), "r") as f:
            assert f.attrs["format"] == b"vibro-3"  # fixed-length: bytes in h5py
            n += len(f["study/table/scene"])
            assert f["signals/contacts.hit.force"].shape[0] == len(f["signals/scene"])
assert n > 0 and n < 64, "%d scenes" % n
print(n, "scenes readable while running")
PY
  expect 1 "$vibro" run "$tmp/slow.cfg" -o "$tmp/w.h5" -j 1 --quiet
  contains "$tmp/err" "w.h5: being written by process $pid"
else
  bad "the study finished before a reader could look"
fi
wait "$pid" && ok || bad "the first writer failed: $(cat "$tmp/wout")"
same "$tmp/sref.h5" "$tmp/w.h5" "the first writer, after a refused second"

# file safety: a planted symlink, a directory, the scene file itself
mkdir "$tmp/elsewhere"
ln -s "$tmp/elsewhere" "$tmp/s.h5.part"
expect 1 "$vibro" run "$study" -o "$tmp/s.h5" --quiet
contains "$tmp/err" "is a symbolic link, not vibro's shard directory"
[ -z "$(ls "$tmp/elsewhere")" ] && ok || bad "wrote through the symlink"
expect 1 "$vibro" run "$study" -o "$tmp/elsewhere" --quiet
contains "$tmp/err" "elsewhere: is a directory"
cp "$study" "$tmp/scene.cfg"
expect 1 "$vibro" run "$tmp/scene.cfg" -o "$tmp/scene.cfg" --quiet
contains "$tmp/err" "scene.cfg: is the input $tmp/scene.cfg; refusing to overwrite it"
cmp -s "$study" "$tmp/scene.cfg" && ok || bad "the scene file was changed"

# xarray with h5netcdf: /signals is one Dataset with a time coordinate
if "$python" -c 'import xarray, h5netcdf' 2>/dev/null; then
  "$python" - "$ref" >"$tmp/xr" 2>&1 <<'PY' && ok || bad "xarray: $(tail -3 "$tmp/xr")"
import sys, xarray as xr
ds = xr.open_dataset(sys.argv[1], group="signals", engine="h5netcdf")
f = ds["contacts.hit.force"]
assert f.dims == ("scene", "time"), f.dims
assert "time" in ds.coords and abs(float(ds.time[1]) - 1 / 44100) < 1e-15
assert len(ds.scene) == 64 and "contacts.hit.k" in ds
print(float(f.sel(scene=5).max()))
PY
else
  echo "xarray or h5netcdf not importable: xarray test skipped"
fi

# out of memory: the message says what is kept, and only when something is.
# The long scene's recording (4.6 GB) fits the memory vibro sees available
# on any machine that can build it (it is refused up front above 80 % of
# MemAvailable) but not the 3 GB address space ulimit -v leaves it: the
# allocation itself fails.
cat >"$tmp/oom.cfg" <<'CFG'
scene = { name = "oom"; fs = 44100.0; duration = 0.01; gravity = 0.0; };
bodies = ( { name = "hammer"; type = "mass"; mass = 0.01; u0 = 0.0; v0 = 1.0; },
           { name = "wall"; type = "wall"; position = 0.0; } );
contacts = ( { name = "hit"; between = ["hammer", "wall"]; law = "hunt-crossley";
               k = 1.0e9; alpha = 1.5; mu = 0.5; scheme = "am1"; } );
sweep = { params = ( { path = "scene.duration"; values = [0.01, 1000.0]; } ); };
CFG
sed 's/values = \[0.01, 1000.0\]/values = [1000.0, 0.01]/' "$tmp/oom.cfg" >"$tmp/oom0.cfg"
# AddressSanitizer reserves terabytes of shadow memory, which ulimit -v forbids
if [ "${WITH_SANITIZERS:-no}" = yes ]; then
  echo "out of memory: not checked under the sanitizers (ulimit -v stops ASan itself)"
else
  (ulimit -v 3000000; exec "$vibro" run "$tmp/oom.cfg" -o "$tmp/oom.h5" -j 1 --quiet) 2>"$tmp/err"
  [ $? -eq 1 ] && ok || bad "out of memory: not exit 1"
  # refused before allocating when the machine's free memory is short
  # (vb_record_fits), or out of memory under ulimit -v when it is not
  grep -q -e "out of memory" -e "bytes of memory available" "$tmp/err" && ok ||
    bad "out of memory: $(cat "$tmp/err")"
  contains "$tmp/err" "(the 1 finished scenes are kept in $tmp/oom.h5.part: run again with --resume to continue)"
  (ulimit -v 3000000; exec "$vibro" run "$tmp/oom0.cfg" -o "$tmp/oom0.h5" -j 1 --quiet) 2>"$tmp/err"
  [ $? -eq 1 ] && ok || bad "out of memory: not exit 1"
  contains "$tmp/err" "(no scene was finished)"
  grep -q "kept" "$tmp/err" && bad "claims kept scenes when none finished: $(cat "$tmp/err")" || ok
fi

# /study/events: every impact of every scene, a column per field along
# `event` (pandas and xarray in one call when installed), with the swept
# values; every column with its units
"$python" - "$ref" >"$tmp/ev" 2>&1 <<'PY' && ok || bad "/study/events: $(tail -3 "$tmp/ev")"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
ev = f["study/events"]
t = f["study/table"]
n = len(ev["event"])
assert n == t["impacts"][:, 0].sum() == t["events_count"][()].sum() == 64, n
assert [ev[k].attrs["units"] for k in ("scene", "contact", "t_on", "t_off")] == [b"1", b"1", b"s", b"s"]
assert (ev["contacts.hit.k"][()] == t["contacts.hit.k"][()][ev["scene"][()]]).all()
assert (np.diff(ev["scene"][()]) >= 0).all()
assert t["contacts.hit.k"].attrs["units"] == b"N/m^alpha"
assert t["bodies.hammer.v0"].attrs["units"] == b"m/s"
try:
    import pandas
    df = pandas.DataFrame({k: d[()] for k, d in ev.items()})
    assert df.shape[0] == 64 and "v_out" in df.columns
    import xarray
    ds = xarray.open_dataset(sys.argv[1], group="study/table", engine="h5netcdf")
    assert ds["impacts"].dims == ("scene", "contact") and int(ds["impacts"].sum()) == 64
except ImportError:
    pass
PY

# a scene that does not finish: exit 2, the file is complete, its table says why
cat >"$tmp/cap.cfg" <<'CFG'
scene = { name = "cap"; fs = 44100.0; duration = 0.002; };
bodies = ( { name = "m"; type = "mass"; mass = 0.01; v0 = 1.0; },
           { name = "w"; type = "wall"; } );
contacts = ( { name = "hit"; between = ["m", "w"]; law = "power"; k = 1.0e13;
               alpha = 1.5; scheme = "two-point"; } );
sweep = { params = ( { path = "contacts.hit.max_iterations"; values = [50, 1]; } ); };
CFG
expect 2 "$vibro" run "$tmp/cap.cfg" -o "$tmp/cap.h5" --quiet
contains "$tmp/err" "1 of 2 scenes did not finish; first: newton failed at t="
[ -f "$tmp/cap.h5" ] && ok || bad "no output for a study with a failed scene"
h5dump -d /study/table/status "$tmp/cap.h5" >"$tmp/table" 2>&1
contains "$tmp/table" '"newton failed at t='

# a bad sweep path: one line naming the valid paths, exit 1, no file
sed 's/contacts.hit.k"/contacts.hit.kk"/' "$study" >"$tmp/badpath.cfg"
expect 1 "$vibro" run "$tmp/badpath.cfg" -o "$tmp/bad.h5"
contains "$tmp/err" "badpath.cfg:17: sweep: unknown parameter path 'contacts.hit.kk' (valid: contacts.hit.k, contacts.hit.alpha, contacts.hit.mu, contacts.hit.gap, contacts.hit.tolerance, contacts.hit.max_iterations)"
[ "$(wc -l <"$tmp/err")" -eq 1 ] && ok || bad "more than one line: $(cat "$tmp/err")"
[ -e "$tmp/bad.h5" ] || [ -e "$tmp/bad.h5.part" ] && bad "output left for a bad study" || ok
expect 1 "$vibro" run "$study" -o "$tmp/x.h5" -j 0
contains "$tmp/err" "vibro run: -j 0: not a number of threads (valid: 1 to 4096)"

# /model: each contact's law parameters come from the law table, with their
# units (the spring's damping c and a restitution law's e were once missing)
cat >"$tmp/laws.cfg" <<'CFG'
scene = { name = "laws"; fs = 44100.0; duration = 0.001; };
bodies = ( { name = "a"; type = "mass"; mass = 0.01; v0 = 0.5; },
           { name = "b"; type = "mass"; mass = 0.02; },
           { name = "w"; type = "wall"; } );
contacts = ( { name = "link"; between = ["a", "b"]; law = "spring"; k = 1200.0; c = 0.37;
               scheme = "two-point"; },
             { name = "hit"; between = ["b", "w"]; law = "flores"; k = 1.0e8; alpha = 1.5;
               e = 0.7; gap = -1.0e-3; scheme = "two-point"; } );
CFG
expect 0 "$vibro" run "$tmp/laws.cfg" -o "$tmp/laws.h5" --quiet
"$python" - "$tmp/laws.h5" >"$tmp/py" 2>&1 <<'PY' && ok || bad "/model law attributes: $(tail -3 "$tmp/py")"
import sys, h5py
m = h5py.File(sys.argv[1], "r")["model/contacts"]
link, hit = m["link"].attrs, m["hit"].attrs
assert link["law"] == b"spring" and link["k"] == 1200.0 and link["c"] == 0.37, dict(link)
assert link["c_units"] == b"N s/m" and "mu" not in link, dict(link)
assert hit["law"] == b"flores" and hit["e"] == 0.7 and hit["alpha"] == 1.5, dict(hit)
assert hit["k_units"] == b"N/m^alpha" and hit["e_units"] == b"1", dict(hit)
PY

# a driven wall records its motion (the box of the rattle box: amplitude
# per scene), a fixed wall nothing
expect 0 "$vibro" run "$srcdir/scenes/rattle-box.cfg" -o "$tmp/rb.h5" --quiet
"$python" - "$tmp/rb.h5" >"$tmp/py" 2>&1 <<'PY' && ok || bad "driven wall signals: $(tail -3 "$tmp/py")"
import sys, h5py, numpy as np
s = h5py.File(sys.argv[1], "r")["signals"]
u, amp = s["bodies.box.u"][()], s["bodies.box.drive.amplitude"][()]
assert s["bodies.box.u"].attrs["units"] == b"m" and "bodies.box.v" in s
for k in range(len(amp)):
    assert abs(np.ptp(u[k]) - 2 * amp[k]) <= 1e-3 * amp[k] + 1e-15, (k, np.ptp(u[k]), amp[k])
PY
expect 0 "$vibro" run "$srcdir/scenes/papetti-case-b.cfg" -o "$tmp/pb.h5" --quiet
"$python" -c "import sys, h5py; s = h5py.File(sys.argv[1], 'r')['signals']; assert not [k for k in s if k.startswith('bodies.wall')], list(s)" "$tmp/pb.h5" && ok || bad "a fixed wall recorded signals"

# The laid-out shard (doc/format.md): a study of more than 16 MiB of signals
# that fits in one shard is laid out before it runs, and each thread writes
# its scenes' signals in place.  It gives the file the usual batch gives
# (VIBRO_TEST_BATCH turns laying out off), and survives what the batches do.
# early FILE: whether the signals of FILE were allocated before the run
early() {
  "$python" -c "
import sys, h5py
s = h5py.File(sys.argv[1], 'r')['signals']
d = [s[k] for k in s if s[k].ndim >= 2][0]
sys.exit(0 if d.id.get_create_plist().get_alloc_time() == h5py.h5d.ALLOC_TIME_EARLY else 1)" "$1"
}
# 64 scenes of 8821 samples (41 MB): 2 s every 10th sample, and a longer
# one (10 s every 50th, about 0.8 s at -j 2) to interrupt from outside
sed 's/duration = 0.002;/duration = 2.0;/; s/^sweep = {/record = { every = 10; };\nsweep = {/' \
  "$study" >"$tmp/lay.cfg"
sed 's/duration = 0.002;/duration = 10.0;/; s/^sweep = {/record = { every = 50; };\nsweep = {/' \
  "$study" >"$tmp/laylong.cfg"
expect 0 "$vibro" run "$tmp/lay.cfg" -o "$tmp/lay1.h5" -j 1 --quiet
expect 0 "$vibro" run "$tmp/lay.cfg" -o "$tmp/lay2.h5" -j 2 --quiet
VIBRO_TEST_BATCH=1000 expect 0 "$vibro" run "$tmp/lay.cfg" -o "$tmp/layref.h5" -j 2 --quiet
same "$tmp/layref.h5" "$tmp/lay1.h5" "laid out at -j 1 against one batch"
same "$tmp/layref.h5" "$tmp/lay2.h5" "laid out at -j 2 against one batch"
early "$tmp/lay2.h5" && ok || bad "the study was not laid out"
early "$tmp/layref.h5" && bad "VIBRO_TEST_BATCH laid the study out" || ok
# many small scenes (576 of 39 KiB: blocks of 128 rows, where lay.cfg's
# 776 KiB scenes make blocks of 10)
sed 's/duration = 0.002;/duration = 0.01;/; s/n = 8; }/n = 24; }/' \
  "$study" >"$tmp/laysmall.cfg"
expect 0 "$vibro" run "$tmp/laysmall.cfg" -o "$tmp/lays.h5" -j 2 --quiet
VIBRO_TEST_BATCH=100000 expect 0 "$vibro" run "$tmp/laysmall.cfg" -o "$tmp/laysref.h5" -j 2 --quiet
same "$tmp/laysref.h5" "$tmp/lays.h5" "576 small scenes laid out against one batch"
early "$tmp/lays.h5" && ok || bad "the 576-scene study was not laid out"
# SIGKILL at every write point of a laid-out run (its creation, the table
# and events, the rename onto OUT, OUT.part/'s removal), then --resume
points=0
for k in 1 2 3 4 5 6 7 8 9 10 11 12; do
  rm -rf "$tmp/lk.h5" "$tmp/lk.h5.part"
  VIBRO_TEST_KILL_AT=$k "$vibro" run "$tmp/lay.cfg" -o "$tmp/lk.h5" -j 2 --quiet >/dev/null 2>&1
  if [ $? -eq 137 ]; then
    points=$((points + 1))
    expect 0 "$vibro" run "$tmp/lay.cfg" -o "$tmp/lk.h5" -j 2 --resume --quiet
    same "$tmp/layref.h5" "$tmp/lk.h5" "laid out, SIGKILL at write $k, then --resume"
  fi
done
[ "$points" -ge 5 ] && ok || bad "only $points kill points in a laid-out run (want >= 5)"
# SIGKILL from outside while the threads write in place
VIBRO_TEST_BATCH=1000 expect 0 "$vibro" run "$tmp/laylong.cfg" -o "$tmp/laylref.h5" -j 2 --quiet
kill_resume "$tmp/laylong.cfg" "$tmp/lk.h5" "$tmp/laylref.h5" "laid out" 0.1 0.3 0.6
# the 10 s rule (here 0.15 s) drops the laid-out shard mid-run: the scenes
# written in place are read back, the blocks the threads still hold go to
# later batches, and the shards merge into the same file
rm -rf "$tmp/lb.h5" "$tmp/lb.h5.part"
VIBRO_TEST_BATCH_SECONDS=0.15 expect 0 "$vibro" run "$tmp/laylong.cfg" -o "$tmp/lb.h5" -j 2
contains "$tmp/out" "64 scenes"
same "$tmp/laylref.h5" "$tmp/lb.h5" "laid out, dropped by the batch rule mid-run"
# SIGTERM mid-run: the scenes written in place are read back into a shard
rm -rf "$tmp/lt.h5" "$tmp/lt.h5.part"
"$vibro" run "$tmp/laylong.cfg" -o "$tmp/lt.h5" -j 2 --quiet >"$tmp/out" 2>"$tmp/err" &
pid=$!
sleep 0.3
kill -TERM "$pid"
wait "$pid"
got=$?
if [ "$got" -eq 143 ]; then
  n=$(shards "$tmp/lt.h5.part")
  [ "$n" -gt 0 ] && [ "$n" -lt 64 ] && ok || bad "laid out, SIGTERM: $n scenes kept"
  contains "$tmp/err" "lt.h5: interrupted after $n of 64 scenes; run again with --resume"
  expect 0 "$vibro" run "$tmp/laylong.cfg" -o "$tmp/lt.h5" -j 2 --resume
  contains "$tmp/out" "($((64 - n)) run, $n kept)"
  same "$tmp/laylref.h5" "$tmp/lt.h5" "laid out, SIGTERM, then --resume"
else
  bad "laid out, SIGTERM after 0.3 s: exit $got, expected 143 (the run takes $(cat "$tmp/err"))"
fi
# a file size limit below the study's size: not laid out (HDF5 could not
# close a file it cannot extend), one message, then --resume
rm -rf "$tmp/lf.h5" "$tmp/lf.h5.part"
(ulimit -f 20000; exec "$vibro" run "$tmp/lay.cfg" -o "$tmp/lf.h5" -j 2 --quiet) >"$tmp/out" 2>"$tmp/err"
got=$?
[ "$got" -eq 1 ] && ok || bad "laid out, ulimit -f: exit $got, expected 1: $(cat "$tmp/err")"
[ "$(grep -vc '^warning: ' "$tmp/err")" -eq 1 ] && ok || bad "laid out, ulimit -f: not one line: $(cat "$tmp/err")"
contains "$tmp/err" "the file size limit was reached"
expect 0 "$vibro" run "$tmp/lay.cfg" -o "$tmp/lf.h5" -j 2 --resume --quiet
same "$tmp/layref.h5" "$tmp/lf.h5" "laid out, ulimit -f, then --resume"
# a sweep of the duration: the scenes that do not fit scene 0's rows are
# kept in memory, and those written in place read back
sed 's/{ path = "contacts.hit.k";   logspace = \[1.0e8, 1.0e10\]; n = 8; }/{ path = "scene.duration"; linspace = [2.0, 2.1]; n = 8; }/' \
  "$tmp/lay.cfg" >"$tmp/layd.cfg"
grep -q scene.duration "$tmp/layd.cfg" && ok || bad "no duration sweep in layd.cfg"
VIBRO_TEST_BATCH=1000 expect 0 "$vibro" run "$tmp/layd.cfg" -o "$tmp/laydref.h5" -j 2 --quiet
expect 0 "$vibro" run "$tmp/layd.cfg" -o "$tmp/layd.h5" -j 2 --quiet
same "$tmp/laydref.h5" "$tmp/layd.h5" "laid out, swept duration"

# Memory under load (issue 19, item 7): a batch flushed by the 10 s rule
# before the laid-out shard is complete (a busy machine) is written from
# it in shards of at most 8 MiB, not read back whole, and the merge of
# those shards is not built in memory: the peak resident memory with the
# rule forced every 0.05 s (VIBRO_TEST_BATCH_SECONDS; a quiet machine runs
# a study in 0.1 s) stays within 64 MiB
# (half a batch) of the run that flushes nothing, on studies of 100 MB of
# signals: scenes written from the run (32 of 3.2 MB), recorded in place
# (the same, with VIBRO_TEST_MAP_BYTES), and through the threads' blocks
# (160 of 0.64 MB).  The old writer held 230 MiB more.  Under load the
# flushes run behind the scenes finishing and the batch may hold up to
# BATCH_BYTES (128 MiB, lib/writer_state.h) of them, more than these
# studies' 100 MB: a flat 64 MiB failed under `make -j8 check` (issue 29
# item 7; memsmall 52 to 64 MiB more alone on a loaded machine, 85 to
# 110 MiB with four at once).  So the budget is the study's signals once
# (its file's size) and a quarter more, which holds under that load and
# fails the old writer's two copies.
# peak_mib VAR=VALUE... COMMAND...: the peak resident memory of COMMAND
# run with the variables in its environment (MiB), -1 on failure
peak_mib() {
  envs=
  while [ $# -gt 0 ] && case $1 in *=*) true ;; *) false ;; esac; do
    envs="$envs $1"
    shift
  done
  # shellcheck disable=SC2086 # one word per VAR=VALUE
  env $envs "$python" -c "
import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024 if r.returncode == 0 else -1)" "$@"
}
sed 's/duration = 0.002;/duration = 1.0;/; s/logspace = \[1.0e8, 1.0e10\]; n = 8; }/logspace = [1.0e8, 1.0e10]; n = 4; }/' \
  "$study" >"$tmp/membig.cfg"
sed 's/duration = 0.002;/duration = 0.2;/; s/logspace = \[1.0e8, 1.0e10\]; n = 8; }/logspace = [1.0e8, 1.0e10]; n = 20; }/' \
  "$study" >"$tmp/memsmall.cfg"
# (membig: VIBRO_TEST_MAP_BYTES larger than any scene, so that its scenes
# are written from the run, not recorded in place as from 1 MiB by default)
for c in membig memmap memsmall; do
  map=1e15 cfg=$c
  [ "$c" = memmap ] && map=1 cfg=membig
  rm -rf "$tmp/$c.h5" "$tmp/$c.h5.part" "$tmp/${c}r.h5" "$tmp/${c}r.h5.part"
  quiet=$(peak_mib VIBRO_TEST_BATCH_SECONDS=1000 VIBRO_TEST_MAP_BYTES=$map \
    "$vibro" run "$tmp/$cfg.cfg" -o "$tmp/${c}r.h5" -j 2 --quiet)
  busy=$(peak_mib VIBRO_TEST_BATCH_SECONDS=0.05 VIBRO_TEST_MAP_BYTES=$map \
    "$vibro" run "$tmp/$cfg.cfg" -o "$tmp/$c.h5" -j 2 --quiet)
  # (AddressSanitizer keeps freed memory in its quarantine, 256 MiB by
  # default, so a sanitizer build's peak measures the quarantine: the
  # files are still compared there)
  if [ "${WITH_SANITIZERS:-no}" = yes ]; then
    echo "$c: peak memory not compared under the sanitizers ($busy MiB against $quiet MiB)"
  else
    data=$(($(wc -c <"$tmp/$c.h5") * 5 / 4 / 1048576))
    [ "$quiet" -gt 0 ] && [ "$busy" -gt 0 ] && [ "$busy" -le $((quiet + data)) ] && ok ||
      bad "$c: peak $busy MiB with the 10 s rule every 0.05 s, $quiet MiB without (want at most $data MiB more: the file and a quarter)"
  fi
  same "$tmp/${c}r.h5" "$tmp/$c.h5" "$c: flushed every 0.05 s against one laid-out shard"
  early "$tmp/${c}r.h5" && ok || bad "$c was not laid out"
  early "$tmp/$c.h5" && bad "$c: no batch was flushed before the end (the file is the laid-out shard)" || ok
done
# recorded in place, written from the run, and not laid out: one file
VIBRO_TEST_BATCH=1000 expect 0 "$vibro" run "$tmp/membig.cfg" -o "$tmp/membigb.h5" -j 2 --quiet
same "$tmp/membigb.h5" "$tmp/membigr.h5" "written from the run against one batch"
same "$tmp/membigb.h5" "$tmp/memmapr.h5" "recorded in place against one batch"

# The input is every file the load reads (issue 19, item 1): a study whose
# bodies are @included and whose plate reads a modes file; killed, then one
# of them edited: --resume refuses, naming that file, and keeps the shards
mkdir "$tmp/in"
cp "$srcdir/tests/data/modes-plate.csv" "$tmp/in/modes.csv"
cat >"$tmp/in/bodies.inc" <<'EOF'
bodies = (
  { name = "ball"; type = "mass"; mass = 0.01; u0 = 0.0; v0 = 1.0; },
  { name = "plate"; type = "modal"; modes_file = "modes.csv"; }
);
EOF
cat >"$tmp/in/s.cfg" <<'EOF'
scene = { name = "inputs"; fs = 44100.0; duration = 0.05; gravity = 0.0; };
@include "bodies.inc"
contacts = (
  { name = "hit"; between = ["ball", "plate.centre"];
    law = "hunt-crossley"; k = 1.0e8; alpha = 1.5; mu = 0.5; scheme = "am1"; }
);
sweep = { mode = "grid"; params = ( { path = "contacts.hit.k"; logspace = [1.0e7, 1.0e9]; n = 64; } ); };
EOF
expect 0 "$vibro" run "$tmp/in/s.cfg" -o "$tmp/inref.h5" -j 2 --quiet
h5dump -a /inputs "$tmp/inref.h5" >"$tmp/inputs" 2>&1
crc=$("$python" -c "import zlib,sys; print('%08x' % zlib.crc32(open(sys.argv[1],'rb').read()))" \
  "$tmp/in/bodies.inc")
contains "$tmp/inputs" "in/bodies.inc $crc"
contains "$tmp/inputs" "in/modes.csv "
# edit FILE OLD NEW: replace text in FILE (sed -i is not POSIX)
edit() { sed "s/$2/$3/" "$1" >"$1.new" && mv "$1.new" "$1"; }
for what in "bodies.inc:v0 = 1.0:v0 = 1.1" "modes.csv:0.182:0.183"; do
  file=${what%%:*} rest=${what#*:}
  old=${rest%%:*} new=${rest#*:}
  rm -rf "$tmp/in.h5" "$tmp/in.h5.part"
  VIBRO_TEST_BATCH=8 VIBRO_TEST_KILL_AT=40 "$vibro" run "$tmp/in/s.cfg" -o "$tmp/in.h5" --quiet \
    >/dev/null 2>&1
  n=$(shards "$tmp/in.h5.part")
  [ "$n" -gt 0 ] && [ "$n" -lt 64 ] && ok || bad "$file: killed run kept $n scenes"
  edit "$tmp/in/$file" "$old" "$new"
  expect 1 "$vibro" run "$tmp/in/s.cfg" -o "$tmp/in.h5" --resume --quiet
  contains "$tmp/err" "in.h5.part was written for a different input than $tmp/in/s.cfg ('$tmp/in/$file' changed since)"
  [ "$(shards "$tmp/in.h5.part")" -eq "$n" ] && ok || bad "$file: refused resume lost shards"
  edit "$tmp/in/$file" "$new" "$old"
  expect 0 "$vibro" run "$tmp/in/s.cfg" -o "$tmp/in.h5" --resume --quiet
  same "$tmp/inref.h5" "$tmp/in.h5" "$file edited and restored between kill and resume"
done
# a finished file is kept by --resume only when every file is the same
edit "$tmp/in/modes.csv" 0.182 0.183
expect 0 "$vibro" run "$tmp/in/s.cfg" -o "$tmp/in.h5" --resume
contains "$tmp/out" "(64 run, 0 kept)"
edit "$tmp/in/modes.csv" 0.183 0.182

# A run without --resume over finished scenes of the same input refuses
# (issue 19, item 2), saying how many, and deletes nothing; --restart
# discards them; a .part with nothing finished is cleared as before
rm -rf "$tmp/in.h5" "$tmp/in.h5.part"
VIBRO_TEST_BATCH=8 VIBRO_TEST_KILL_AT=40 "$vibro" run "$tmp/in/s.cfg" -o "$tmp/in.h5" --quiet \
  >/dev/null 2>&1
n=$(shards "$tmp/in.h5.part")
ls -l "$tmp/in.h5.part" >"$tmp/before"
expect 1 "$vibro" run "$tmp/in/s.cfg" -o "$tmp/in.h5" --quiet
only_line "$tmp/err" "$tmp/in.h5: $tmp/in.h5.part holds $n finished scenes of this study: run again with --resume to keep them, or with --restart to discard them"
ls -l "$tmp/in.h5.part" >"$tmp/after"
cmp -s "$tmp/before" "$tmp/after" && [ "$(shards "$tmp/in.h5.part")" -eq "$n" ] && ok ||
  bad "a refused run changed $tmp/in.h5.part"
expect 1 "$vibro" run "$tmp/in/s.cfg" -o "$tmp/in.h5" --resume --restart
contains "$tmp/err" "--resume and --restart: choose one"
expect 0 "$vibro" run "$tmp/in/s.cfg" -o "$tmp/in.h5" --restart --quiet
same "$tmp/inref.h5" "$tmp/in.h5" "--restart"
rm -rf "$tmp/in.h5" "$tmp/in.h5.part"
VIBRO_TEST_BATCH=8 VIBRO_TEST_KILL_AT=3 "$vibro" run "$tmp/in/s.cfg" -o "$tmp/in.h5" --quiet \
  >/dev/null 2>&1
[ -d "$tmp/in.h5.part" ] && [ "$(shards "$tmp/in.h5.part")" -eq 0 ] && ok ||
  bad "kill at write 3 left $(shards "$tmp/in.h5.part") scenes"
expect 0 "$vibro" run "$tmp/in/s.cfg" -o "$tmp/in.h5" --quiet
same "$tmp/inref.h5" "$tmp/in.h5" "a .part with nothing finished, cleared"

# An exit 1 before any scene finished removes the OUT.part/ this run made
# (issue 19, item 5), and only that: one it found stays
rm -rf "$tmp/big.h5" "$tmp/big.h5.part"
(ulimit -f 4000; exec "$vibro" run "$tmp/big.cfg" -o "$tmp/big.h5" --quiet) >"$tmp/out" 2>"$tmp/err"
got=$?
[ "$got" -eq 1 ] && ok || bad "ulimit -f 4000 again: exit $got, expected 1: $(cat "$tmp/err")"
contains "$tmp/err" "no scene was finished"
[ -e "$tmp/big.h5.part" ] && bad "exit 1 with nothing finished left $(ls "$tmp/big.h5.part")" || ok
[ -e "$tmp/big.h5" ] && bad "exit 1 with nothing finished left big.h5" || ok
mkdir "$tmp/big.h5.part"
(ulimit -f 4000; exec "$vibro" run "$tmp/big.cfg" -o "$tmp/big.h5" --quiet) >"$tmp/out" 2>"$tmp/err"
[ -d "$tmp/big.h5.part" ] && ok || bad "exit 1 removed an OUT.part/ this run did not make"
rm -rf "$tmp/big.h5.part"

# --resume of a finished file whose scenes failed still fails (exit 2) and
# names the first failure (it exited 0 and said "0 did not finish")
cat >"$tmp/rf.cfg" <<'EOF2'
scene = { name = "rf"; fs = 44100.0; duration = 0.002; };
bodies = ( { name = "b"; type = "mass"; mass = 0.01; v0 = -1.0; }, { name = "w"; type = "wall"; } );
contacts = ( { name = "c"; between = ["w", "b"]; law = "power"; k = 1e6; alpha = 1.5; scheme = "rk4"; } );
sweep = { params = ( { path = "contacts.c.k"; values = [1e6, 1e13]; } ); };
EOF2
expect 2 "$vibro" run "$tmp/rf.cfg" -o "$tmp/rf.h5" --quiet
for j in 1 2; do
  expect 2 "$vibro" run "$tmp/rf.cfg" -o "$tmp/rf.h5" --resume -j $j --quiet
  contains "$tmp/err" "1 of 2 scenes did not finish; first: diverged at t="
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

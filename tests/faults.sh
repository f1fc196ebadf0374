#!/bin/sh
# faults.sh - damaged files and hindered runs (issue 19, items 6 and 8).
#
# Readers: a damaged root B-tree, a column shorter than its table, a table
# that claims 2^40 events, a wrong scene count, a cut file, a FIFO, a
# shard listed twice: `vibro info`, `vibro events`, `vibro export` and
# the Python package each say one line naming the file (exit 1 /
# VibroError with its cause), never a summary of nothing and exit 0,
# never a wait; every string attribute is fixed-length (no global heap);
# then the reader fuzz (tests/fuzz/readers.py): byte-flipped outputs (a
# sweep with and without signals, a vibro-2 file, a distributed contact,
# an analysis, stick-slip phases),
# counted per outcome, none hanging, none leaving a C reader with another
# exit or a message of more than one line, none giving the Python package
# another exception than VibroError (crashes inside libhdf5 are counted).
#
# Runs: SIGKILL at random moments of a study and of its resume, a full
# disk (ulimit -f at random sizes), damaged OUT.part/ (a byte flipped, a
# file cut, removed, a manifest line repeated or garbled), an input edited
# between run and resume, read-only destinations; each --resume must give
# the file of an uninterrupted run (h5diff).
#
# make check runs each loop once or twice on small studies; make
# check-faults (VIBRO_FAULTS_LONG=1) runs them at length: a 10,000-scene
# study, 2,000 fuzzed variants of each file.  Every random choice is fixed
# by VIBRO_FAULTS_SEED (default 19) and the loop's name and iteration, which
# a failure prints: the same seed replays it.  study.sh and mpi.sh hold the
# deterministic interruption matrix; this adds the random loops.
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
python=${PYTHON:-/usr/bin/python3}
long=${VIBRO_FAULTS_LONG:-0}
seed=${VIBRO_FAULTS_SEED:-19}
command -v h5diff >/dev/null && command -v h5dump >/dev/null || { echo "no h5diff/h5dump"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vibro-faults.XXXXXX")
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
. "$srcdir/tests/testlib.sh"
have_h5py=0
"$python" -c "import h5py, numpy, pandas, xarray" 2>/dev/null && have_h5py=1
echo "faults.sh: seed $seed, $([ "$long" = 1 ] && echo long || echo fast)"

# rnd N KEY: a number in [0, N) fixed by the seed and KEY
rnd() { "$python" -c "import random, sys; print(random.Random(sys.argv[1]).randrange(int(sys.argv[2])))" "$seed/$2" "$1"; }
# shards DIR: scenes listed in the shard manifests of DIR
shards() { cat "$1"/manifest.r* 2>/dev/null | awk '{ n += $4 } END { print n + 0 }'; }
# refused FILE WHAT CMD...: CMD exits 1 with one line on stderr that names FILE
refused() {
  rf=$1 rw=$2
  shift 2
  timeout 60 "$@" >"$tmp/out" 2>"$tmp/err"
  got=$?
  if [ "$got" -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qF -- "$rf: " "$tmp/err"; then ok
  else bad "$rw: $* exited $got (expected 1, one line naming $rf): $(head -3 "$tmp/err")"; fi
}
# readers FILE WHAT: info, events and export each refuse FILE
readers() {
  refused "$1" "$2" "$vibro" info "$1"
  refused "$1" "$2" "$vibro" events "$1"
  refused "$1" "$2" "$vibro" export "$1" --signal bodies/hammer/u --csv "$tmp/x.csv"
}
# pyrefused FILE WHAT [TEXT]: the Python package raises VibroError on FILE,
# its cause chained where it wraps another exception, its text holding TEXT
pyrefused() {
  [ "$have_h5py" = 1 ] || return 0
  if PYTHONPATH="$srcdir/python" timeout 60 "$python" - "$1" "${3:-}" >"$tmp/py" 2>&1 <<'PY'
import sys, vibro
path, text = sys.argv[1], sys.argv[2]
try:
    s = vibro.open(path)
    s.table, s.events(), s.contacts()
except vibro.VibroError as e:
    msg = str(e)
    assert msg.startswith(path + ": ") and "\n" not in msg, msg
    assert text in msg, "%r not in %r" % (text, msg)
    assert "running study" not in msg, msg
    assert "damaged" not in msg or e.__cause__ is not None, "no cause: " + msg
    sys.exit(0)
sys.exit("no VibroError")
PY
  then ok; else bad "$2: python: $(tail -3 "$tmp/py")"; fi
}

# ---------------------------------------------------------------- readers
sed 's/n = 8;/n = 3;/' "$srcdir/scenes/papetti-sweep.cfg" >"$tmp/s.cfg"
{ cat "$tmp/s.cfg"; echo 'record = { signals = []; };'; } >"$tmp/ns.cfg"
expect 0 "$vibro" run "$tmp/s.cfg" -o "$tmp/sig.h5" --quiet
expect 0 "$vibro" run "$tmp/ns.cfg" -o "$tmp/nosig.h5" --quiet
# the other vibro-3 kinds the reader fuzz damages (issue 32): a distributed
# contact's [scene][point][time] signal (the tanpura's 64 bridge points,
# 10 ms), an analysis (the impact oscillator's sections, impact map and
# orbits, 3 scenes of 0.6 s) and friction's stick-slip phases (the belt,
# 2 scenes of 0.5 s)
sed -e 's/duration = 0.2;/duration = 0.01;/' \
  -e 's|"bodies/string/pickup/\*", "energy/\*"|"bodies/string/pickup/*", "contacts/jvari/force", "energy/*"|' \
  "$srcdir/scenes/tanpura.cfg" >"$tmp/dist.cfg"
sed -e 's/duration = 8.0;/duration = 0.6;/' -e 's/transient_time = 4.0;/transient_time = 0.2;/' \
  -e 's/n = 51;/n = 3;/' "$srcdir/scenes/impact-oscillator.cfg" >"$tmp/ana.cfg"
{ sed -e 's/duration = 2.0;/duration = 0.5;/' "$srcdir/scenes/belt-stick-slip.cfg"
  echo 'record = { every = 10; };'
  echo 'sweep = { params = ( { path = "contacts.rub.friction.mu_k"; values = [0.3, 0.4]; } ); };'
} >"$tmp/fric.cfg"
for k in dist ana fric; do expect 0 "$vibro" run "$tmp/$k.cfg" -o "$tmp/$k.h5" --quiet; done

# every string attribute fixed-length (the global heap holds none; H5DS's
# DIMENSION_LIST are variable-length references, not strings)
h5dump -A "$tmp/sig.h5" >"$tmp/attrs" 2>&1
n=$(grep -c 'STRSIZE H5T_VARIABLE' "$tmp/attrs")
[ "$n" -eq 0 ] && ok || bad "$n variable-length string attributes in a vibro-3 file"
grep -q 'STRSIZE' "$tmp/attrs" && ok || bad "h5dump -A shows no string attribute"
contains "$tmp/attrs" 'ATTRIBUTE "format"'

# damage DST HOW: a copy of sig.h5 with bytes changed by a Python
# expression on d (its bytearray) and data (the original bytes)
damage() {
  "$python" -c "import sys; data = open(sys.argv[1], 'rb').read(); d = bytearray(data); $2; open(sys.argv[2], 'wb').write(d)" \
    "$tmp/sig.h5" "$1"
}
# the root group's B-tree and its symbol-table node: main once printed
# "0 scenes finished" and exited 0
damage "$tmp/tree.h5" 'i = data.find(b"TREE"); d[i + 3] ^= 1'
readers "$tmp/tree.h5" "a damaged root B-tree"
contains "$tmp/err" "damaged: /study: cannot open the group"
pyrefused "$tmp/tree.h5" "a damaged root B-tree"
damage "$tmp/snod.h5" 'i = data.find(b"SNOD"); d[i + 3] ^= 1'
readers "$tmp/snod.h5" "a damaged symbol-table node"
# a compact group's link info (an analysis's /study/sections: its links
# in its header, no fractal heap) whose undefined heap address has a bit
# flipped: libhdf5 took it for a heap and crashed vibro info and vibro
# events in H5B2_open (the reader fuzz's ana-275)
"$python" -c "
import sys
data = open(sys.argv[1], 'rb').read(); d = bytearray(data)
head = b'\\x02\\x00\\x28\\x00\\x00\\x00\\x00\\x00\\x00\\x03'  # type 2, 40 bytes; version 0, flags 3
i = data.find(head)
while i >= 0 and data[i + 18:i + 34] != b'\\xff' * 16:  # heap, name index undefined
    i = data.find(head, i + 1)
assert i >= 0, 'no compact link info'
d[i + 18 + 6] ^= 0x20
open(sys.argv[2], 'wb').write(d)" "$tmp/ana.h5" "$tmp/linfo.h5"
[ -f "$tmp/linfo.h5" ] && ok || bad "no compact group's link info found in ana.h5"
refused "$tmp/linfo.h5" "a compact group's link info damaged" "$vibro" info "$tmp/linfo.h5"
contains "$tmp/err" "damaged: a group's link info at "
refused "$tmp/linfo.h5" "a compact group's link info damaged" "$vibro" events "$tmp/linfo.h5"
pyrefused "$tmp/linfo.h5" "a compact group's link info damaged"
# a compact group's link message whose name's length has a bit flipped
# (129 bytes in a 24-byte message): libhdf5 freed what it took for the
# name, a crash of the package in H5G__link_release_table (ana-403)
"$python" -c "
import sys, re
data = open(sys.argv[1], 'rb').read(); d = bytearray(data)
m = re.search(rb'\\x06\\x00..\\x00\\x00\\x00\\x00\\x01\\x04', data, re.S)  # type 6; version 1, creation order
assert m, 'no link message'
d[m.start() + 8 + 10] |= 0x80
open(sys.argv[2], 'wb').write(d)" "$tmp/ana.h5" "$tmp/link.h5"
[ -f "$tmp/link.h5" ] && ok || bad "no link message found in ana.h5"
refused "$tmp/link.h5" "a compact group's link message damaged" "$vibro" info "$tmp/link.h5"
contains "$tmp/err" "damaged: a group's link message at "
pyrefused "$tmp/link.h5" "a compact group's link message damaged" "a group's link message at "
# a file cut short: not "a running study's file"
damage "$tmp/cut.h5" 'd = d[:len(d) // 2]'
readers "$tmp/cut.h5" "a file cut in half"
pyrefused "$tmp/cut.h5" "a file cut in half" "cannot open the HDF5 file"

# edited with h5py: what a damaged header could claim
edited() {
  cp "$tmp/sig.h5" "$1"
  "$python" -c "import sys, h5py, numpy as np; f = h5py.File(sys.argv[1], 'r+'); $2; f.close()" "$1"
}
if [ "$have_h5py" = 1 ]; then
  edited "$tmp/short.h5" 't = f["study/table"]; del t["final_energy"]; t["final_energy"] = np.zeros(5)'
  readers "$tmp/short.h5" "a column shorter than its table"
  contains "$tmp/err" "damaged: /study/table/final_energy: shape [5], the table's is [9] or [9][1]"
  pyrefused "$tmp/short.h5" "a column shorter than its table"
  # 2^40 events: vibro events once ran on and on
  edited "$tmp/huge.h5" 'e = f["study/events"]; del e["event"]; e.create_dataset("event", shape=(2**40,), dtype="i8")'
  readers "$tmp/huge.h5" "a table claiming 2^40 events"
  contains "$tmp/err" "damaged: /study/events/event: claims 1099511627776 values of 8 bytes, more than the file's"
  edited "$tmp/scenes.h5" 'f.attrs["scenes"] = np.int64(5)'
  readers "$tmp/scenes.h5" "a scene count the table does not hold"
  contains "$tmp/err" "damaged: /: its attribute scenes = 5, the table has 9 rows"
  edited "$tmp/vtable.h5" 'del f["study/table/status"]; f["study/table/status"] = np.array(["done"] * 9, dtype=h5py.string_dtype())'
  readers "$tmp/vtable.h5" "a text column of variable-length strings"
fi

# a damaged global heap under the vibro-2 file's variable-length string
# attributes (tools/h5heap.c, python/vibro/_h5.py): libhdf5 1.10.8 copied
# a damaged object size's bytes (a crash; 200 more bytes: a silent heap
# overflow), looped for ever on a free space of 0 bytes, and read another
# object or a string cut short for a damaged ID; main crashed, hung or
# read 'J' or 'vib' as the format
heap() {
  "$python" - "$srcdir/tests/data/study-vibro2.h5" "$tmp/heap-$1.h5" "$1" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
d, how = bytearray(data), sys.argv[3]
g = data.find(b"GCOL")                               # the first collection
num = lambda at, n=8: int.from_bytes(data[at:at + n], "little")
put = lambda at, v, n=8: d.__setitem__(slice(at, at + n), v.to_bytes(n, "little"))
fmt = data.find((7).to_bytes(4, "little") + g.to_bytes(8, "little") + (1).to_bytes(4, "little"))
assert g > 0 and fmt > 0                             # 'format': 7 bytes, object 1
at = g + 16
while num(at, 2):                                    # to the free space, object 0
    at += 16 + (num(at + 8) + 7) // 8 * 8
{"size": lambda: put(g + 24, 2**31), "plus": lambda: put(g + 24, num(g + 24) + 200),
 "free": lambda: put(at + 8, 0), "index": lambda: put(fmt + 12, 9999, 4),
 "length": lambda: put(fmt, 3, 4), "total": lambda: put(g + 8, len(data))}[how]()
open(sys.argv[2], "wb").write(d)
PY
  readers "$tmp/heap-$1.h5" "a damaged global heap ($1)"
  contains "$tmp/err" "heap"
  pyrefused "$tmp/heap-$1.h5" "a damaged global heap ($1)" "heap"
}
for how in size plus free index length total; do heap "$how"; done
# variants of the reader fuzz (seed 19, tests/fuzz/README.md) that crashed
# the C readers inside libhdf5 once the heap was checked: a column of the
# vibro-2 table past its rows (316 info, 436 events: H5T__conv_struct_opt),
# a number's bits past its bytes (932: H5T__bit_copy), a damaged string
# behind an object libhdf5 cannot reach (1900 events: H5HG_read); and
# the one that hung the package: a string of 2^30-byte characters (304:
# h5py converted it for ever in H5T__conv_vlen, while vibro info read on)
for k in 304 316 436 932 1900; do
  "$python" -c "import sys; sys.path.insert(0, sys.argv[1]); import readers; d = open(sys.argv[2], 'rb').read(); open(sys.argv[3], 'wb').write(readers.variant(d, 19, 'v2', int(sys.argv[4]))[0])" \
    "$srcdir/tests/fuzz" "$srcdir/tests/data/study-vibro2.h5" "$tmp/v2-$k.h5" "$k"
  readers "$tmp/v2-$k.h5" "reader fuzz variant v2-$k"
  [ "$k" = 304 ] && pyrefused "$tmp/v2-$k.h5" "reader fuzz variant v2-$k"
done
# and the ones that aborted the package in glibc once h5py had read them: a
# float of the vibro-2 events or table with another exponent bias, which
# h5py maps to numpy's long double (711: t_on's bias 511); the package
# refuses any float that is not IEEE (python/vibro/_h5.py type_wrong)
for k in 711 830 1577 1723; do
  "$python" -c "import sys; sys.path.insert(0, sys.argv[1]); import readers; d = open(sys.argv[2], 'rb').read(); open(sys.argv[3], 'wb').write(readers.variant(d, 19, 'v2', int(sys.argv[4]))[0])" \
    "$srcdir/tests/fuzz" "$srcdir/tests/data/study-vibro2.h5" "$tmp/v2-$k.h5" "$k"
  pyrefused "$tmp/v2-$k.h5" "reader fuzz variant v2-$k" "not IEEE floating point"
done

# a FIFO: the readers do not wait for a writer
mkfifo "$tmp/fifo.h5"
readers "$tmp/fifo.h5" "a FIFO"
contains "$tmp/err" "not a regular file"
pyrefused "$tmp/fifo.h5" "a FIFO" "not a regular file"

# a shard listed twice (in two manifests) counts once
VIBRO_TEST_BATCH=2 VIBRO_TEST_KILL_AT=40 "$vibro" run "$tmp/s.cfg" -o "$tmp/run.h5" --quiet >/dev/null 2>&1
n=$(shards "$tmp/run.h5.part")
[ "$n" -gt 0 ] && [ "$n" -lt 9 ] && ok || bad "killed run kept $n of 9 scenes"
cp "$tmp/run.h5.part/manifest.r000" "$tmp/run.h5.part/manifest.r001"
cat "$tmp/run.h5.part/manifest.r000" >>"$tmp/run.h5.part/manifest.r001"
expect 0 "$vibro" info "$tmp/run.h5"
contains "$tmp/out" "$n scenes finished of the study's 9"
expect 0 "$vibro" events "$tmp/run.h5"
[ "$(($(wc -l <"$tmp/out") - 2))" -eq "$n" ] && ok || bad "events of a shard listed twice: $(wc -l <"$tmp/out") lines for $n scenes"
if [ "$have_h5py" = 1 ]; then
  got=$(PYTHONPATH="$srcdir/python" "$python" -c "import sys, vibro; s = vibro.open(sys.argv[1]); print(len(s.table), len(s.events()))" "$tmp/run.h5" 2>&1)
  equal "python on a shard listed twice" "$got" "$n $n"
fi

# the reader fuzz: fast, a few variants of each file; long, 2,000, the
# variants that were not ok kept in tests/fuzz/kept/ (VIBRO_FAULTS_KEEP)
variants=$([ "$long" = 1 ] && echo 2000 || echo 12)
keep=$([ "$long" = 1 ] && echo "${VIBRO_FAULTS_KEEP:-tests/fuzz/kept}" || echo "$tmp/kept")
pyflag=$([ "$have_h5py" = 1 ] && echo "--python-path=$srcdir/python" || echo --no-python)
# under the sanitizers, LeakSanitizer also reports what libhdf5 itself
# drops when a damaged dataset fails to open (tests/fuzz/lsan-hdf5.supp)
fuzz_lsan=${LSAN_OPTIONS:-}
[ "${WITH_SANITIZERS:-no}" = yes ] &&
  fuzz_lsan="suppressions=$srcdir/tests/fuzz/lsan-hdf5.supp:print_suppressions=0"
LSAN_OPTIONS=$fuzz_lsan "$python" "$srcdir/tests/fuzz/readers.py" --vibro "$vibro" "$pyflag" --seed "$seed" \
  --variants "$variants" --timeout 60 --strict --allow crash --keep "$keep" \
  --signal dist=contacts/jvari/force --signal ana=bodies/oscillator/u --signal fric=bodies/block/w \
  sig="$tmp/sig.h5" nosig="$tmp/nosig.h5" v2="$srcdir/tests/data/study-vibro2.h5" \
  dist="$tmp/dist.h5" ana="$tmp/ana.h5" fric="$tmp/fric.h5" >"$tmp/fuzz" 2>&1
got=$?
cat "$tmp/fuzz"
[ "$got" -eq 0 ] && ok || bad "reader fuzz (seed $seed): $(grep -vc '^ ' "$tmp/fuzz") lines above"

# ---------------------------------------------------------------- runs
# A grid study of n x n scenes (papetti-sweep's, 2 ms each)
grid() {
  sed -e "s/n = 8;/n = $1;/" "$srcdir/scenes/papetti-sweep.cfg" >"$2"
}
big=$([ "$long" = 1 ] && echo 100 || echo 24)
grid "$big" "$tmp/big.cfg"
start=$(date +%s%N)
expect 0 "$vibro" run "$tmp/big.cfg" -o "$tmp/bigref.h5" -j 2 --quiet
ms=$((($(date +%s%N) - start) / 1000000))
echo "reference: $((big * big)) scenes in $ms ms"

# SIGKILL at a random moment of the run, then (half the time) of its
# resume too, then --resume to the end
iters=$([ "$long" = 1 ] && echo 12 || echo 1)
i=0
while [ "$i" -lt "$iters" ]; do
  d1=$(rnd "$ms" "kill/$i/run") d2=$(rnd "$((2 * ms))" "kill/$i/resume") twice=$(rnd 2 "kill/$i/twice")
  what="SIGKILL after $d1 ms$([ "$twice" = 1 ] && echo ", resume killed after $d2 ms") (seed $seed, kill $i)"
  rm -rf "$tmp/k.h5" "$tmp/k.h5.part"
  "$vibro" run "$tmp/big.cfg" -o "$tmp/k.h5" -j 2 --quiet >/dev/null 2>&1 &
  pid=$!
  sleep "$(awk -v m="$d1" 'BEGIN { printf "%.3f", m / 1000 }')"
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  if [ "$twice" = 1 ]; then
    "$vibro" run "$tmp/big.cfg" -o "$tmp/k.h5" -j 2 --resume --quiet >/dev/null 2>&1 &
    pid=$!
    sleep "$(awk -v m="$d2" 'BEGIN { printf "%.3f", m / 1000 }')"
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  fi
  if [ -e "$tmp/k.h5" ] && [ ! -e "$tmp/k.h5.part" ]; then
    same "$tmp/bigref.h5" "$tmp/k.h5" "$what (finished before the kill)"
  else
    expect 0 "$vibro" run "$tmp/big.cfg" -o "$tmp/k.h5" -j 2 --resume --quiet
    same "$tmp/bigref.h5" "$tmp/k.h5" "$what"
  fi
  i=$((i + 1))
done

# a full disk: a file size limit at a random size below the study's,
# one line and exit 1, then --resume
size=$(($(wc -c <"$tmp/bigref.h5") / 512))
iters=$([ "$long" = 1 ] && echo 8 || echo 1)
i=0
while [ "$i" -lt "$iters" ]; do
  limit=$((8 + $(rnd "$size" "full/$i")))
  what="ulimit -f $limit (blocks of 512 bytes; seed $seed, full $i)"
  rm -rf "$tmp/f.h5" "$tmp/f.h5.part"
  (ulimit -f "$limit"; VIBRO_TEST_BATCH=64 exec "$vibro" run "$tmp/big.cfg" -o "$tmp/f.h5" -j 2 --quiet) \
    >"$tmp/out" 2>"$tmp/err"
  got=$?
  if [ "$got" -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; then ok
  else bad "$what: exit $got, expected 1 with one line: $(head -3 "$tmp/err")"; fi
  expect 0 "$vibro" run "$tmp/big.cfg" -o "$tmp/f.h5" -j 2 --resume --quiet
  same "$tmp/bigref.h5" "$tmp/f.h5" "$what, then --resume"
  i=$((i + 1))
done

# a damaged OUT.part/: killed at a random write point, then one of its
# files damaged at random; --resume runs again what it cannot trust
small="$srcdir/scenes/papetti-sweep.cfg"
expect 0 "$vibro" run "$small" -o "$tmp/sref.h5" --quiet
iters=$([ "$long" = 1 ] && echo 300 || echo 3)
i=0
while [ "$i" -lt "$iters" ]; do
  k=$((5 + $(rnd 80 "part/$i/k")))
  rm -rf "$tmp/p.h5" "$tmp/p.h5.part"
  VIBRO_TEST_BATCH=8 VIBRO_TEST_KILL_AT=$k "$vibro" run "$small" -o "$tmp/p.h5" --quiet >/dev/null 2>&1
  files=$(ls "$tmp/p.h5.part" 2>/dev/null | sort)
  nfiles=$(echo "$files" | grep -c .)
  if [ "$nfiles" -gt 0 ]; then
    victim="$tmp/p.h5.part/$(echo "$files" | sed -n "$(($(rnd "$nfiles" "part/$i/file") + 1))p")"
    how=$(rnd 5 "part/$i/how")
    bytes=$(wc -c <"$victim")
    at=$(rnd "$((bytes + 1))" "part/$i/at")
    case $how in
      0) printf '\377' | dd of="$victim" bs=1 seek="$at" conv=notrunc 2>/dev/null; action="byte $at set to 0xff" ;;
      1) head -c "$at" "$victim" >"$victim.cut" && mv "$victim.cut" "$victim"; action="cut to $at bytes" ;;
      2) rm -f "$victim"; action="removed" ;;
      3) cat "$victim" "$victim" >"$victim.2" && mv "$victim.2" "$victim"; action="written twice" ;;
      4) echo "r000-000000.h5 99 0 1 0 0 garbled" >>"$victim"; action="a garbled line appended" ;;
    esac
  else
    action="nothing to damage"
  fi
  what="$(basename "${victim:-none}") $action after a kill at write $k (seed $seed, part $i)"
  timeout 300 "$vibro" run "$small" -o "$tmp/p.h5" --resume --quiet >"$tmp/out" 2>"$tmp/err"
  got=$?
  if [ "$got" -eq 0 ]; then
    ok
    same "$tmp/sref.h5" "$tmp/p.h5" "$what"
  else
    bad "$what: --resume exited $got: $(head -3 "$tmp/err")"
  fi
  i=$((i + 1))
done

# an input edited between the run and its resume: refused, naming the file,
# the shards kept; restored, the resume gives the uninterrupted file
mkdir "$tmp/in"
cp "$srcdir/tests/data/modes-plate.csv" "$tmp/in/modes.csv"
printf '%s\n' 'bodies = (' \
  '  { name = "ball"; type = "mass"; mass = 0.01; u0 = 0.0; v0 = 1.0; },' \
  '  { name = "plate"; type = "modal"; modes_file = "modes.csv"; }' ');' >"$tmp/in/bodies.inc"
printf '%s\n' 'scene = { name = "inputs"; fs = 44100.0; duration = 0.01; gravity = 0.0; };' \
  '@include "bodies.inc"' \
  'contacts = ( { name = "hit"; between = ["ball", "plate.centre"]; law = "hunt-crossley";' \
  '  k = 1.0e8; alpha = 1.5; mu = 0.5; scheme = "am1"; } );' \
  'sweep = { mode = "grid"; params = ( { path = "contacts.hit.k"; logspace = [1.0e7, 1.0e9]; n = 48; } ); };' \
  >"$tmp/in/s.cfg"
expect 0 "$vibro" run "$tmp/in/s.cfg" -o "$tmp/inref.h5" --quiet
iters=$([ "$long" = 1 ] && echo 20 || echo 1)
i=0
while [ "$i" -lt "$iters" ]; do
  set -- s.cfg bodies.inc modes.csv
  pick=$(rnd 3 "edit/$i/file")
  shift "$pick"
  file=$1
  k=$((10 + $(rnd 30 "edit/$i/k")))
  what="$file edited after a kill at write $k (seed $seed, edit $i)"
  rm -rf "$tmp/e.h5" "$tmp/e.h5.part"
  VIBRO_TEST_BATCH=6 VIBRO_TEST_KILL_AT=$k "$vibro" run "$tmp/in/s.cfg" -o "$tmp/e.h5" --quiet \
    >/dev/null 2>&1
  n=$(shards "$tmp/e.h5.part")
  cp "$tmp/in/$file" "$tmp/saved"
  if [ "$file" = modes.csv ]; then
    sed 's/0\.182/0.183/' "$tmp/saved" >"$tmp/in/$file"
  else
    { cat "$tmp/saved"; echo "# edited"; } >"$tmp/in/$file"
  fi
  if [ "$n" -gt 0 ]; then
    expect 1 "$vibro" run "$tmp/in/s.cfg" -o "$tmp/e.h5" --resume --quiet
    contains "$tmp/err" "('$tmp/in/$file' changed since)"
    [ "$(shards "$tmp/e.h5.part")" -eq "$n" ] && ok || bad "$what: the refused resume lost shards"
  fi
  cp "$tmp/saved" "$tmp/in/$file"
  expect 0 "$vibro" run "$tmp/in/s.cfg" -o "$tmp/e.h5" --resume --quiet
  same "$tmp/inref.h5" "$tmp/e.h5" "$what, restored"
  i=$((i + 1))
done

# read-only destinations, as an unprivileged user (root may write anywhere:
# setpriv to nobody when run as root): a run into a read-only directory and
# a resume of a read-only OUT.part/ are one line and exit 1, nothing lost
as_user=""
if [ "$(id -u)" -eq 0 ]; then
  command -v setpriv >/dev/null && as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
fi
if [ "$(id -u)" -ne 0 ] || [ -n "$as_user" ]; then
  ro="$tmp/ro"
  mkdir -p "$ro/dir" && cp "$small" "$ro/s.cfg" && chmod 0755 "$tmp" "$ro" && chmod 0555 "$ro/dir"
  expect 0 "$vibro" run "$ro/s.cfg" -o "$tmp/roref.h5" --quiet
  [ -n "$as_user" ] && chown -R 65534:65534 "$ro" && chmod 0555 "$ro/dir"
  # shellcheck disable=SC2086
  refused "$ro/dir/out.h5" "a run into a read-only directory" $as_user "$vibro" run "$ro/s.cfg" -o "$ro/dir/out.h5" --quiet
  [ -z "$(ls "$ro/dir")" ] && ok || bad "a refused run left $(ls "$ro/dir")"
  chmod 0755 "$ro/dir"
  # shellcheck disable=SC2086
  VIBRO_TEST_BATCH=8 VIBRO_TEST_KILL_AT=30 $as_user "$vibro" run "$ro/s.cfg" -o "$ro/dir/out.h5" --quiet >/dev/null 2>&1
  n=$(shards "$ro/dir/out.h5.part")
  chmod -R a-w "$ro/dir"
  # shellcheck disable=SC2086
  refused "$ro/dir/out.h5" "a resume of a read-only OUT.part/" $as_user "$vibro" run "$ro/s.cfg" -o "$ro/dir/out.h5" --resume --quiet
  [ "$(shards "$ro/dir/out.h5.part")" -eq "$n" ] && ok || bad "a refused resume lost shards"
  chmod -R u+w "$ro/dir"
  # shellcheck disable=SC2086
  expect 0 $as_user "$vibro" run "$ro/s.cfg" -o "$ro/dir/out.h5" --resume --quiet
  same "$tmp/roref.h5" "$ro/dir/out.h5" "a read-only OUT.part/ made writable again, then --resume"
else
  echo "root without setpriv: the read-only cases are skipped"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

#!/bin/sh
# claims.sh - what a file or OUT.part/ claims and does not hold (issue 32,
# items 6, 7 and 8).
#
# A shard copied under a new name with its own valid manifest line: every
# reader (vibro info, vibro events, the Python table) counts its scenes
# once, and --resume gives the file of an uninterrupted run.  Stale
# temporary names in OUT.part/ (a manifest.r000.tmp symlink that loops, a
# dangling shard .tmp symlink, a .tmp directory): --resume clears them and
# finishes, never "run again with --resume" for ever.  A column of
# /study/sections or /study/impact_map, or a signal, whose shape claims
# more than its coordinates: one line "FILE: damaged: ..." from the C
# readers, a VibroError from the package, never a MemoryError.
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
python=${PYTHON:-/usr/bin/python3}
command -v h5diff >/dev/null || { echo "no h5diff"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vibro-claims.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$srcdir/tests/testlib.sh"
have_h5py=0
"$python" -c "import h5py, numpy, pandas, xarray" 2>/dev/null && have_h5py=1

# shards DIR: scenes listed in the shard manifests of DIR
shards() { cat "$1"/manifest.r* 2>/dev/null | awk '{ n += $4 } END { print n + 0 }'; }
# interrupted OUT: a run of s.cfg (9 scenes, one a shard) killed at a write
# point after some shards are listed
interrupted() {
  rm -rf "$1" "$1.part"
  VIBRO_TEST_BATCH=1 VIBRO_TEST_KILL_AT=60 "$vibro" run "$tmp/s.cfg" -o "$1" --quiet \
    >/dev/null 2>&1
  n=$(shards "$1.part")
  [ "$n" -ge 2 ] && [ "$n" -lt 9 ] && ok || bad "the killed run kept $n of 9 scenes"
}

sed 's/n = 8;/n = 3;/' "$srcdir/scenes/papetti-sweep.cfg" >"$tmp/s.cfg"
expect 0 "$vibro" run "$tmp/s.cfg" -o "$tmp/ref.h5" --quiet

# --------------------------------------------- a shard copied, listed anew
interrupted "$tmp/c.h5"
n=$(shards "$tmp/c.h5.part")
cp "$tmp/c.h5.part/r000-000000.h5" "$tmp/c.h5.part/r000-000099.h5"
"$python" - "$tmp/c.h5.part/manifest.r000" <<'PY'
import sys, zlib
path = sys.argv[1]
words = open(path).readline().split()
words[0] = "r000-000099.h5"
head = " ".join(words[:-1]) + " "
open(path, "a").write(head + "%08x\n" % zlib.crc32(head.encode()))
PY
[ "$(shards "$tmp/c.h5.part")" -eq $((n + 1)) ] && ok || bad "the copy is not listed"
expect 0 "$vibro" info "$tmp/c.h5"
contains "$tmp/out" "$n scenes finished of the study's 9"
expect 0 "$vibro" events "$tmp/c.h5"
got=$(($(wc -l <"$tmp/out") - 2))
equal "vibro events rows of a copied shard's scenes" "$got" "$n"
if [ "$have_h5py" = 1 ]; then
  got=$(PYTHONPATH="$srcdir/python" "$python" -c "import sys, vibro; s = vibro.open(sys.argv[1]); t = s.table; print(len(t), t.index.is_unique, len(s.events()))" "$tmp/c.h5" 2>&1)
  equal "python on a copied shard" "$got" "$n True $n"
fi
expect 0 "$vibro" run "$tmp/s.cfg" -o "$tmp/c.h5" --resume --quiet
same "$tmp/ref.h5" "$tmp/c.h5" "a resume over a copied shard"

# ------------------------------------------------ stale temporary names
for stale in manifest-loop manifest-dangling shard-link directories; do
  interrupted "$tmp/t.h5"
  p="$tmp/t.h5.part"
  case $stale in
    manifest-loop) ln -s manifest.r000.tmp "$p/manifest.r000.tmp" ;;
    manifest-dangling) ln -s "$tmp/nowhere/m" "$p/manifest.r000.tmp" ;;
    shard-link) ln -s r000-000000.h5 "$p/r000-000042.h5.tmp"; ln -s "$tmp/x" "$p/final.tmp" ;;
    directories) mkdir "$p/manifest.r000.tmp" "$p/r000-000042.h5.tmp" "$p/final.tmp" ;;
  esac
  expect 0 "$vibro" run "$tmp/s.cfg" -o "$tmp/t.h5" --resume --quiet
  [ -e "$p" ] && bad "$stale: $p left after the resume" || ok
  [ -f "$tmp/t.h5" ] && same "$tmp/ref.h5" "$tmp/t.h5" "a resume over stale .tmp names ($stale)"
done

# ------------------------------------ columns that claim more than they hold
if [ "$have_h5py" = 1 ]; then
  sed -e 's/n = 51;/n = 3;/' -e 's/duration = 8.0;/duration = 1.0;/' \
    -e 's/transient_time = 4.0;/transient_time = 0.5;/' \
    "$srcdir/scenes/impact-oscillator.cfg" >"$tmp/a.cfg"
  expect 0 "$vibro" run "$tmp/a.cfg" -o "$tmp/a.h5" --quiet
  expect 0 "$vibro" info "$tmp/a.h5"
  contains "$tmp/out" "section samples in /study/sections"
  # edited NAME WHAT EXPR: a copy of a.h5 changed by EXPR (f: the h5py file)
  edited() {
    cp "$tmp/a.h5" "$tmp/$1.h5"
    "$python" -c "import sys, h5py, numpy as np; f = h5py.File(sys.argv[1], 'r+'); $3; f.close()" "$tmp/$1.h5"
  }
  # claimed NAME WHAT CTEXT PYMETHOD: info and events refuse in one line
  # naming the file and holding CTEXT; PYMETHOD raises a VibroError
  claimed() {
    for cmd in info events; do
      timeout 60 "$vibro" "$cmd" "$tmp/$1.h5" >"$tmp/out" 2>"$tmp/err"
      got=$?
      if [ "$got" -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
        grep -qF -- "$tmp/$1.h5: damaged: $3" "$tmp/err"; then ok
      else bad "$2: vibro $cmd exited $got: $(head -3 "$tmp/err")"; fi
    done
    PYTHONPATH="$srcdir/python" timeout 60 "$python" - "$tmp/$1.h5" "$4" >"$tmp/py" 2>&1 <<'PY'
import sys, vibro
path, call = sys.argv[1], sys.argv[2]
try:
    s = vibro.open(path)
    eval(call)
except vibro.VibroError as e:
    assert str(e).startswith(path + ": ") and "\n" not in str(e), str(e)
    sys.exit(0)
sys.exit("no VibroError")
PY
    [ $? -eq 0 ] && ok || bad "$2: python $4: $(tail -2 "$tmp/py")"
  }
  # issue 32 item 7: k claims 3,976,200,201 values where its coordinate has 3 scenes' samples
  edited huge "sections/k claiming 4e9 values" \
    'g = f["study/sections"]; del g["k"]; g.create_dataset("k", shape=(3976200201,), dtype="i8")'
  claimed huge "sections/k claiming 4e9 values" "/study/sections/k: claims 3976200201 values" "s.sections()"
  edited short "sections/t shorter than its coordinate" \
    'g = f["study/sections"]; n = g["t"].shape[0]; del g["t"]; g["t"] = np.zeros(n - 1)'
  claimed short "sections/t shorter than its coordinate" "/study/sections/t: shape [" "s.sections()"
  edited points "sections/u with another point count" \
    'g = f["study/sections"]; n = g["u"].shape[0]; del g["u"]; g["u"] = np.zeros((n, 2))'
  claimed points "sections/u with another point count" "/study/sections/u: shape [" "s.sections()"
  edited map "impact_map/v_in claiming 2^33 values" \
    'g = f["study/impact_map"]; del g["v_in"]; g.create_dataset("v_in", shape=(2**33,), dtype="f8")'
  claimed map "impact_map/v_in claiming 2^33 values" "/study/impact_map/v_in: claims 8589934592" "s.impact_map()"
  edited signal "a signal longer than its time" \
    'del f["signals/energy.total"]; f.create_dataset("signals/energy.total", shape=(3, 2**31), dtype="f8")'
  claimed signal "a signal longer than its time" "/signals/energy.total: claims" "s.signal(1, 'energy/total')"
  edited signal2 "a signal of another length than its time" \
    'n = f["signals/time"].shape[0]; del f["signals/energy.total"]; f["signals/energy.total"] = np.zeros((3, n - 7))'
  claimed signal2 "a signal of another length than its time" "/signals/energy.total: 3 rows of" "s.signal(1, 'energy/total')"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

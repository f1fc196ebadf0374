#!/bin/sh
# study.sh - studies end to end: -j 1 and -j 2 give identical files, a run
# killed with SIGKILL halfway and resumed equals an uninterrupted run, a
# resume against another input is refused, exit status 2 when a scene
# fails, bad sweep paths.  Run by make check; needs h5diff and h5dump.
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
command -v h5diff >/dev/null && command -v h5dump >/dev/null || { echo "no h5diff/h5dump"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vibro-study.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$srcdir/tests/testlib.sh"

# same A B: h5diff finds no difference in any dataset or attribute
same() {
  if h5diff "$1" "$2" >"$tmp/diff" 2>&1; then ok; else bad "$1 and $2 differ: $(head -5 "$tmp/diff")"; fi
}

# completed FILE: number of scenes marked complete in /study/done
completed() {
  HDF5_USE_FILE_LOCKING=FALSE h5dump -y -d /study/done "$1" 2>/dev/null |
    sed -n '/DATA {/,/}/p' | tr ',' '\n' | grep -c '^ *1 *$'
}

# 64 scenes: the same file with one thread and two
study="$srcdir/scenes/papetti-sweep.cfg"
expect 0 "$vibro" check "$study"
contains "$tmp/out" "study: 64 scenes, mode grid, 2 parameters"
expect 0 "$vibro" run "$study" -o "$tmp/j1.h5" -j 1 --quiet
expect 0 "$vibro" run "$study" -o "$tmp/j2.h5" -j 2 --quiet
same "$tmp/j1.h5" "$tmp/j2.h5"
[ "$(completed "$tmp/j2.h5")" -eq 64 ] && ok || bad "not 64 scenes complete"
# h5diff sees a difference where there is one (the test can fail)
sed 's/n = 8; }/n = 8; }/; s/mu = 0.5;/mu = 0.51;/' "$study" >"$tmp/other.cfg"
expect 0 "$vibro" run "$tmp/other.cfg" -o "$tmp/other.h5" -j 2 --quiet
h5diff "$tmp/j1.h5" "$tmp/other.h5" >/dev/null 2>&1 && bad "h5diff found no difference" || ok

# killed halfway with SIGKILL, then resumed: equal to an uninterrupted run
sed 's/duration = 0.002;/duration = 0.3;/' "$study" >"$tmp/long.cfg"
start=$(date +%s%N)
expect 0 "$vibro" run "$tmp/long.cfg" -o "$tmp/ref.h5" -j 2 --quiet
half=$(( ($(date +%s%N) - start) / 2000000 ))
killed=0
for try in 1 2 3 4 5 6; do
  rm -f "$tmp/k.h5" "$tmp/k.h5.part"
  "$vibro" run "$tmp/long.cfg" -o "$tmp/k.h5" -j 2 --quiet &
  pid=$!
  sleep "$(awk -v ms="$half" -v t="$try" 'BEGIN { printf "%.3f", ms * (0.4 + 0.1 * t) / 1000 }')"
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  [ -f "$tmp/k.h5.part" ] || continue
  n=$(completed "$tmp/k.h5.part")
  if [ "$n" -gt 0 ] && [ "$n" -lt 64 ]; then killed=1; break; fi
done
if [ "$killed" -eq 1 ]; then
  ok
  echo "killed with $n of 64 scenes complete"
  [ -e "$tmp/k.h5" ] && bad "an interrupted run left k.h5" || ok
  # another input is refused, and the part file is kept
  sed 's/mu = 0.5;/mu = 0.6;/' "$tmp/long.cfg" >"$tmp/long2.cfg"
  expect 1 "$vibro" run "$tmp/long2.cfg" -o "$tmp/k.h5" --resume --quiet
  contains "$tmp/err" "k.h5.part was written for a different input than $tmp/long2.cfg"
  [ -f "$tmp/k.h5.part" ] && ok || bad "refused resume removed the part file"
  expect 0 "$vibro" run "$tmp/long.cfg" -o "$tmp/k.h5" -j 2 --resume
  contains "$tmp/out" "($((64 - n)) run, $n kept)"
  [ -e "$tmp/k.h5.part" ] && bad "part file left after resume" || ok
  same "$tmp/ref.h5" "$tmp/k.h5"
  # resuming a finished file checks it and runs nothing
  expect 0 "$vibro" run "$tmp/long.cfg" -o "$tmp/k.h5" --resume
  contains "$tmp/out" "(0 run, 64 kept)"
  same "$tmp/ref.h5" "$tmp/k.h5"
else
  bad "could not kill a run halfway in 6 tries"
fi

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
h5dump -d /study/table "$tmp/cap.h5" >"$tmp/table" 2>&1
contains "$tmp/table" '"newton failed at t='

# a bad sweep path: one line naming the valid paths, exit 1, no file
sed 's/contacts.hit.k"/contacts.hit.kk"/' "$study" >"$tmp/badpath.cfg"
expect 1 "$vibro" run "$tmp/badpath.cfg" -o "$tmp/bad.h5"
contains "$tmp/err" "badpath.cfg:17: sweep: unknown parameter path 'contacts.hit.kk' (valid: contacts.hit.k, contacts.hit.alpha, contacts.hit.mu, contacts.hit.gap, contacts.hit.tolerance, contacts.hit.max_iterations)"
[ "$(wc -l <"$tmp/err")" -eq 1 ] && ok || bad "more than one line: $(cat "$tmp/err")"
[ -e "$tmp/bad.h5" ] || [ -e "$tmp/bad.h5.part" ] && bad "output left for a bad study" || ok
expect 1 "$vibro" run "$study" -o "$tmp/x.h5" -j 0
contains "$tmp/err" "vibro run: -j 0: not a number of threads (valid: 1 to 4096)"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

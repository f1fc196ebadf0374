#!/bin/sh
# random.sh - property-based tests through the command (issue 10 item 2):
# for each seed, the random scene of tests/random_scene with a sweep of
# its first contact's gap (6 scenes) is run by `vibro run -j 1`, `-j 2`
# and `-j 1` again; each exits 0 or 2 (2 naming what failed), and h5diff
# finds no difference between the three files.  VIBRO_RANDOM_STUDIES
# (default 8) studies from seed VIBRO_RANDOM_SEED (default 1).  A failure
# prints the seed; `tests/random_scene SEED --sweep 6` prints the study.
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
gen=${RANDOM_SCENE:-$(dirname "$vibro")/../tests/random_scene}
command -v h5diff >/dev/null || { echo "no h5diff"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vibro-random.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$srcdir/tests/testlib.sh"

abs_srcdir=$(cd "$srcdir" && pwd)
n=${VIBRO_RANDOM_STUDIES:-8}
seed=${VIBRO_RANDOM_SEED:-1}
last=$((seed + n - 1))
echo "random studies: $n, seeds $seed to $last"
while [ "$seed" -le "$last" ]; do
  "$gen" "$seed" --sweep 6 --srcdir "$abs_srcdir" >"$tmp/s.cfg" || { bad "seed $seed: random_scene failed"; break; }
  codes=""
  for run in a b c; do
    j=1
    [ "$run" = b ] && j=2
    "$vibro" run "$tmp/s.cfg" -o "$tmp/$run.h5" -j $j --quiet >"$tmp/out" 2>"$tmp/err"
    code=$?
    codes="$codes $code"
    case $code in
      0) ok ;;
      2) if [ -s "$tmp/err" ]; then ok; else bad "seed $seed: exit 2 with no reason"; fi ;;
      *) bad "seed $seed: vibro run -j $j exited $code: $(head -3 "$tmp/err")"
         cat "$tmp/s.cfg" ;;
    esac
  done
  if [ "$codes" != " 0 0 0" ] && [ "$codes" != " 2 2 2" ]; then
    bad "seed $seed: exit codes$codes differ between -j 1, -j 2 and -j 1"
  fi
  if [ -f "$tmp/a.h5" ] && [ -f "$tmp/b.h5" ] && [ -f "$tmp/c.h5" ]; then
    for other in b c; do
      if h5diff "$tmp/a.h5" "$tmp/$other.h5" >"$tmp/diff" 2>&1; then ok; else
        bad "seed $seed: -j 1 and $([ $other = b ] && echo '-j 2' || echo 'a second -j 1') differ: $(head -5 "$tmp/diff")"
        cat "$tmp/s.cfg"
      fi
    done
  else
    bad "seed $seed: an output file is missing"
  fi
  rm -f "$tmp"/*.h5
  seed=$((seed + 1))
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

#!/bin/sh
# under_resolved.sh - a scheme that stopped resolving its contact says so
# (issue 32 item 2): the two cases of the issue, a 1 g hammer on the
# three-mode bar of scenes/avanzini-hammer-bar.cfg with a power law
# (alpha = 1.5) and scheme = "sav", k 1e16 at 50 m/s (0.0016 samples
# predicted: the contact is held closed for the whole run) and k 1e13 at
# 1 m/s (0.056 samples), end "done, under-resolved: contact 'hit' ...",
# status_code 0, under_resolved [scene][contact] 1, and vibro check warns
# UNRESOLVED; the scene itself with sav (mu = 0, 48 samples a contact) and
# the ball bouncing to rest under gravity (two-point) stay "done", flag 0.
# Run by make check; needs h5py.
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
python=${PYTHON:-/usr/bin/python3}
"$python" -c "import h5py, numpy" 2>/dev/null || { echo "no h5py"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vibro-under.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$srcdir/tests/testlib.sh"

hammer() { # k v0 law-extra -> $tmp/h.cfg
  sed -e "s/mass = 0.01; u0 = 0.0; v0 = 1.0;/mass = 0.001; u0 = 0.0; v0 = $2;/" \
      -e "s/law = \"hunt-crossley\"; k = 1.5e11; alpha = 2.8; mu = 0.6; scheme = \"am1\";/law = \"power\"; k = $1; alpha = 1.5; scheme = \"sav\";/" \
      -e "s/duration = 0.5;/duration = 0.05;/" "$srcdir/scenes/avanzini-hammer-bar.cfg" >"$tmp/h.cfg"
  grep -q 'k = '"$1"'; alpha = 1.5; scheme = "sav"' "$tmp/h.cfg" || bad "the hammer scene did not take k $1"
}

# table FILE: status, status_code, under_resolved, state_drift
table() {
  "$python" - "$1" <<'PY'
import sys, h5py
t = h5py.File(sys.argv[1], "r")["study/table"]
print(t["status"][0].decode(), "|", int(t["status_code"][0]), "|",
      t["under_resolved"][:].tolist(), "|", "%.3g" % t["state_drift"][0])
PY
}

for case in "1e16 50" "1e13 1"; do
  set -- $case
  hammer "$1" "$2"
  expect 0 "$vibro" check "$tmp/h.cfg"
  contains "$tmp/out" "warning: UNRESOLVED: contact 'hit' lasts about"
  expect 0 "$vibro" run "$tmp/h.cfg" -o "$tmp/h.h5"
  got=$(table "$tmp/h.h5")
  echo "k $1 at $2 m/s: $got"
  case $got in
    "done, under-resolved: contact 'hit' sav drift "*" J^(1/2) > "*" = sqrt(2E)/10"*" | 0 | [[1]] | "*) ok ;;
    *) bad "k $1 at $2 m/s: $got" ;;
  esac
done
# the figures: k 1e16 at 50 m/s drifts 9304 against sqrt(2 E) = 1.58 and
# is held closed from its onset to the end against 0.00162 samples
# predicted (both criteria); k 1e13 at 1 m/s drifts 2.21 against 0.0316
# and is closed 519 samples, not half the run (the drift alone)
hammer 1e16 50
"$vibro" run "$tmp/h.cfg" -o "$tmp/h.h5" >/dev/null 2>&1
table "$tmp/h.h5" >"$tmp/t"
contains "$tmp/t" "sav drift 9.3e+03 J^(1/2) > 0.158 = sqrt(2E)/10, in 2205/2205 samples, 0.00162 predicted | 0"
hammer 1e13 1
"$vibro" run "$tmp/h.cfg" -o "$tmp/h.h5" >/dev/null 2>&1
table "$tmp/h.h5" >"$tmp/t"
contains "$tmp/t" "sav drift 2.21 J^(1/2) > 0.00316 = sqrt(2E)/10 | 0"

# resolved: the hammer scene itself with sav and mu = 0 (48 samples a contact)
sed -e 's/mu = 0.6; scheme = "am1";/mu = 0.0; scheme = "sav";/' \
    "$srcdir/scenes/avanzini-hammer-bar.cfg" >"$tmp/r.cfg"
expect 0 "$vibro" run "$tmp/r.cfg" -o "$tmp/r.h5"
got=$(table "$tmp/r.h5")
echo "avanzini-hammer-bar with sav: $got"
case $got in "done | 0 | [[0]] | "*) ok ;; *) bad "resolved hammer: $got" ;; esac
# a ball bouncing to rest, engaged at the end: its contact is physics
expect 0 "$vibro" run "$srcdir/scenes/bouncing-ball.cfg" -o "$tmp/b.h5"
got=$(table "$tmp/b.h5")
echo "bouncing-ball: $got"
case $got in "done | 0 | [[0]] | "*) ok ;; *) bad "bouncing ball: $got" ;; esac

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

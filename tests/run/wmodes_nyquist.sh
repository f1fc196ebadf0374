#!/bin/sh
# wmodes_nyquist.sh - a modal body's modes along w at or above fs/2 (issue
# 30): their trapezoidal step (lib/island/friction.c) cannot resolve them,
# so the loader drops them as it drops the modes along u (lib/scene/nyquist.c).
# A 300-mode string in both polarisations bowed at 44.1 kHz (modes 220 ..
# 299 at or above 22050 Hz): vibro check and vibro run warn for both
# directions with the highest kept; /model says which along w went
# (w_modes_dropped) and keeps 220 frequencies along w; the signals equal,
# bit for bit, those of the same string given only its 220 modes below
# fs/2; a string none of whose modes along w is below fs/2 is refused at
# its line with the rate that would do.  Run by make check.
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vibro-wnyq.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$srcdir/tests/testlib.sh"

# scene FS NMODES DIRECTIONS: a bowed string to $tmp/s.cfg
scene() {
  cat >"$tmp/s.cfg" <<CFG
scene = { name = "s"; fs = $1; duration = 0.01; };
bodies = (
  { name = "bow"; type = "wall"; w_drive = { type = "velocity"; v = 0.1; }; },
  { name = "string"; type = "modal"; directions = $3;
    preset = { kind = "string"; nmodes = $2; length = 1.0; tension = 40.0;
               linear_density = 0.001; };
    points = ( { name = "bowing"; x = 0.14; } ); } );
contacts = (
  { name = "hair"; between = ["bow", "string.bowing"]; normal_force = 0.5; scheme = "two-point";
    friction = { law = "coulomb"; mu_s = 0.8; mu_k = 0.3; }; } );
CFG
}

wwarn="warning: body 'string': 80 modes along w at or above fs/2 = 22050 Hz dropped (modes 220 .. 299 along w as given, counted from 0): their trapezoidal step cannot resolve them; the highest kept is at 22000 Hz"
uwarn="warning: body 'string': 80 modes at or above fs/2 = 22050 Hz dropped (modes 220 .. 299 as given, counted from 0)"
scene 44100.0 300 '["u", "w"]'
expect 0 "$vibro" check "$tmp/s.cfg"
contains "$tmp/out" "$wwarn"
contains "$tmp/out" "$uwarn"
expect 0 "$vibro" run "$tmp/s.cfg" -o "$tmp/300.h5"
contains "$tmp/err" "$wwarn"
if h5dump -a /model/bodies/string/w_modes_dropped "$tmp/300.h5" >"$tmp/attr" 2>&1; then
  contains "$tmp/attr" "DATASPACE  SIMPLE { ( 80 ) / ( 80 ) }"
  contains "$tmp/attr" "(0): 220, 221,"
else bad "no /model/bodies/string/w_modes_dropped"; fi
h5dump -a /model/bodies/string/w_modes_freq "$tmp/300.h5" >"$tmp/attr" 2>&1
contains "$tmp/attr" "DATASPACE  SIMPLE { ( 220 ) / ( 220 ) }"

# the dropped modes are gone, not damped: the 220-mode string's run, bit for bit
scene 44100.0 220 '["u", "w"]'
expect 0 "$vibro" run "$tmp/s.cfg" -o "$tmp/220.h5"
if h5diff -q "$tmp/300.h5" "$tmp/220.h5" /signals /signals >/dev/null 2>&1; then ok
else bad "the 300-mode string's signals differ from the 220-mode string's"; fi
# (the one along w only too)
scene 44100.0 300 '["w"]'
expect 0 "$vibro" run "$tmp/s.cfg" -o "$tmp/w300.h5"
scene 44100.0 220 '["w"]'
expect 0 "$vibro" run "$tmp/s.cfg" -o "$tmp/w220.h5"
if h5diff -q "$tmp/w300.h5" "$tmp/w220.h5" /signals /signals >/dev/null 2>&1; then ok
else bad "along w only: the 300-mode string's signals differ from the 220-mode string's"; fi

# none below fs/2: refused, with the rate that keeps the lowest
scene 150.0 5 '["w"]'
error "$tmp/s.cfg:4: body 'string': every one of its 5 modes along w is at or above fs/2 = 75 Hz, where their step cannot resolve them (valid: fs above 200 Hz, twice its lowest, 100 Hz)" \
  "$vibro" check "$tmp/s.cfg"

echo "wmodes_nyquist.sh: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

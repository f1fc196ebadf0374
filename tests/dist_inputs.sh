#!/bin/sh
# dist_inputs.sh - a distributed contact's inputs as a researcher writes
# them (outside review of session 10, issue 18): each one either loads as
# it means or is refused at its line naming what is wrong.  Before the
# fixes: a 2-value parabola was "one per mode, 3"; a `y` on a string's or
# a bar's points was silently ignored; a profile CSV saved with a UTF-8
# byte-order mark (a spreadsheet's "CSV UTF-8") was "no column 'x_m|x'";
# an empty one asked for the modes file's header "freq,t60,mass,..."; a
# header-only one said "has no rows" without what is valid; `vibro check`
# did not say that points start pressed into the barrier when another
# point has a first contact to predict; `vibro run`'s warning of modes
# dropped at or above fs/2 did not give the highest kept (issue 18 item
# 4); a semicolon-separated CSV was not named as such (issue 31 item 6).  Run by make check.
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vibro-dist-inputs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$srcdir/tests/testlib.sh"

# scene BODY POINTS PROFILE: a plucked 200-mode string (or BODY) over a
# bridge, one distributed contact; to $tmp/s.cfg
scene() {
  cat >"$tmp/s.cfg" <<CFG
scene = { name = "s"; fs = 44100.0; duration = 0.005; gravity = 0.0; };
bodies = ( { name = "bridge"; type = "wall"; },
  $1 );
contacts = (
  { name = "jv"; between = ["bridge", "string"]; law = "power"; k = 1e9; alpha = 1.5;
    scheme = "two-point"; max_iterations = 1000;
    points = $2;
    profile = $3; } );
record = { signals = ["energy/*"]; };
CFG
}
string='{ name = "string"; type = "modal";
    preset = { kind = "string"; nmodes = 200; length = 1.0; tension = 40.0;
               linear_density = 0.001; pluck = [0.3, 1e-3]; }; }'
bar='{ name = "string"; type = "modal";
    preset = { kind = "bar"; nmodes = 10; length = 0.5; width = 0.02; thickness = 0.005;
               youngs = 2e11; density = 7800.0; }; }'
grid='{ from = 0.005; to = 0.025; n = 64; }'

scene "$string" "$grid" '{ parabola = [0.015, -1e-5]; }'
error "$tmp/s.cfg:10: contact 'jv' profile: 'parabola' has 2 values (valid: three, [x0, h0, a]: h = h0 + a (x - x0)^2)" \
  "$vibro" check "$tmp/s.cfg"
scene "$string" "$grid" '{ parabola = [0.015, -1e-5, -0.5, 1.0]; }'
error "$tmp/s.cfg:10: contact 'jv' profile: 'parabola' has 4 values (valid: three, [x0, h0, a]: h = h0 + a (x - x0)^2)" \
  "$vibro" check "$tmp/s.cfg"

scene "$string" '{ from = 0.005; to = 0.025; n = 4; y = 0.3; }' '{ height = -1e-5; }'
error "$tmp/s.cfg:9: contact 'jv': 'y' does not apply to the points of body 'string', a string: its points are at x along it (valid: 'y' for a plate or a membrane)" \
  "$vibro" check "$tmp/s.cfg"
scene "$bar" '{ x = [0.1, 0.2]; y = 0.0; }' '{ height = -1e-5; }'
error "$tmp/s.cfg:9: contact 'jv': 'y' does not apply to the points of body 'string', a bar: its points are at x along it (valid: 'y' for a plate or a membrane)" \
  "$vibro" check "$tmp/s.cfg"

# the quadratic scheme is refused on a block of more than one point: two
# points of a lossless spring ended "newton failed at t=0.0022" (a
# bridge of any law diverged near 1.6 ms); one point is a point contact
scene "$string" '{ from = 0.005; to = 0.025; n = 2; }' '{ parabola = [0.015, -1e-5, -0.5]; }'
sed -i 's/scheme = "two-point"/scheme = "quadratic"/' "$tmp/s.cfg"
error "$tmp/s.cfg:8: contact 'jv': scheme 'quadratic' cannot step a distributed contact of 2 points: its closed form (Ducceschi eqs 16-19) is for one contact, and the points couple through the body's modes (valid: two-point, three-point, sav, am1, verlet, position-verlet, heun, rk4)" \
  "$vibro" check "$tmp/s.cfg"
scene "$string" '{ x = [0.015]; }' '{ height = -1e-5; }'
sed -i 's/scheme = "two-point"/scheme = "quadratic"/' "$tmp/s.cfg"
expect 0 "$vibro" check "$tmp/s.cfg"

# a profile CSV with a byte-order mark reads as without one, bit for bit
printf 'x_m,height_m\n0.0,-6e-5\n0.015,-1e-5\n0.03,-6e-5\n' >"$tmp/plain.csv"
printf '\357\273\277x_m,height_m\r\n0.0,-6e-5\r\n0.015,-1e-5\r\n0.03,-6e-5\r\n' >"$tmp/bom.csv"
scene "$string" "$grid" '{ file = "plain.csv"; }'
expect 0 "$vibro" run "$tmp/s.cfg" -o "$tmp/plain.h5"
scene "$string" "$grid" '{ file = "bom.csv"; }'
expect 0 "$vibro" run "$tmp/s.cfg" -o "$tmp/bom.h5"
if h5diff "$tmp/plain.h5" "$tmp/bom.h5" /signals >"$tmp/diff" 2>&1; then ok
else bad "a BOM changed the signals: $(head -3 "$tmp/diff")"; fi

# a spreadsheet's semicolon- (or tab-) separated export is named as such,
# at its header, with what is valid (it was "no column 'x_m|x' in the header")
printf 'x_m;height_m\n0,0;-6e-5\n0,015;-1e-5\n' >"$tmp/semi.csv"
scene "$string" "$grid" '{ file = "semi.csv"; }'
error "$tmp/s.cfg:10: contact 'jv' profile: $tmp/semi.csv:1: the columns are separated by semicolons, not commas (valid: comma-separated values with '.' as the decimal point, as a spreadsheet's 'CSV (comma delimited)' writes them: a header naming the columns, e.g. x_m|x,height_m|height)" \
  "$vibro" check "$tmp/s.cfg"
printf 'x_m\theight_m\n0.0\t-6e-5\n0.015\t-1e-5\n' >"$tmp/tab.csv"
scene "$string" "$grid" '{ file = "tab.csv"; }'
error "$tmp/s.cfg:10: contact 'jv' profile: $tmp/tab.csv:1: the columns are separated by tabs, not commas (valid: comma-separated values with '.' as the decimal point, as a spreadsheet's 'CSV (comma delimited)' writes them: a header naming the columns, e.g. x_m|x,height_m|height)" \
  "$vibro" check "$tmp/s.cfg"
# the same for a modes file
printf 'freq;t60;mass;p0\n100;1;0,1;1\n' >"$tmp/modes.csv"
scene '{ name = "string"; type = "modal"; modes_file = "modes.csv"; }' '{ x = [0.5]; }' '{ height = -1e-5; }'
if "$vibro" check "$tmp/s.cfg" >"$tmp/out" 2>&1; then bad "a semicolon modes file was accepted"
else contains "$tmp/out" "modes.csv:1: the columns are separated by semicolons, not commas (valid: comma-separated values with '.' as the decimal point, as a spreadsheet's 'CSV (comma delimited)' writes them: freq,t60,mass,<point>,...)"; fi

: >"$tmp/empty.csv"
scene "$string" "$grid" '{ file = "empty.csv"; }'
error "$tmp/s.cfg:10: contact 'jv' profile: $tmp/empty.csv: no header line (expected: a header naming the columns, e.g. x_m|x,height_m|height)" \
  "$vibro" check "$tmp/s.cfg"
printf 'x_m,height_m\n' >"$tmp/head.csv"
scene "$string" "$grid" '{ file = "head.csv"; }'
error "$tmp/s.cfg:10: contact 'jv' profile: 'head.csv' has no rows (valid: a row x,height per line under its header)" \
  "$vibro" check "$tmp/s.cfg"

# the nut and the saddle at the string's ends with the bridge 10 um above
# the rest line there: those two points are pressed in from t = 0 while
# the middle one has a first contact to predict; check says both
scene "$string" '{ x = [0.0, 0.5, 1.0]; }' '{ height = 1e-5; }'
expect 0 "$vibro" check "$tmp/s.cfg"
contains "$tmp/out" "first contact at point 1 (x 0.5 m)"
contains "$tmp/out" "  2 of 3 points start engaged (penetration up to 1e-05 m at t = 0)"

# modes past fs/2 with a two-level scheme: run warns as check does, with the highest kept
# (300 modes of 100 n Hz: 221 .. 300 are at or above 22050 Hz)
scene "$(echo "$string" | sed 's/nmodes = 200/nmodes = 300/')" '{ x = [0.5]; }' '{ height = -1.0; }'
expect 0 "$vibro" run "$tmp/s.cfg" -o "$tmp/nyq.h5"
contains "$tmp/err" "warning: body 'string': 80 modes at or above fs/2 = 22050 Hz dropped (modes 220 .. 299 as given, counted from 0): the scheme of its island cannot step them (a three-level scheme steps them exactly, aliased); the highest kept is at 22000 Hz"
# and the file says which (it did not: only the kept modes' axis was there)
h5dump -A -g /model/bodies/string "$tmp/nyq.h5" >"$tmp/dump" 2>&1
tr -d ' \n' <"$tmp/dump" >"$tmp/flat"
contains "$tmp/flat" 'ATTRIBUTE"modes_dropped"{DATATYPEH5T_STD_I64LEDATASPACESIMPLE{(80)/(80)}DATA{(0):220,221,222,'
contains "$tmp/flat" '(78):298,299}}'
contains "$tmp/flat" 'ATTRIBUTE"nmodes"{DATATYPEH5T_STD_I64LEDATASPACESCALARDATA{(0):220}}'

# a sweep whose scenes differ from scene 0 in points or modes passed
# vibro check (valid, exit 0) and stopped vibro run at scene 1, after
# scene 0, with a message without file:line that advised --resume: the
# number of a block's points, and scene.fs when a two-level scheme drops
# the modes at or above fs/2 (a convergence study in fs).  Refused at load
scene "$(echo "$string" | sed 's/nmodes = 200/nmodes = 300/')" '{ from = 0.005; to = 0.025; n = 16; }' \
  '{ parabola = [0.015, -1e-5, -0.5]; }'
cp "$tmp/s.cfg" "$tmp/base.cfg"
{ sed '/^record/d' "$tmp/base.cfg"; echo 'record = { signals = []; };'
  echo 'sweep = { params = ( { path = "contacts.jv.points.n"; values = [16, 64]; } ); };'; } >"$tmp/swn.cfg"
error "$tmp/swn.cfg:12: sweep: scene 1 differs from scene 0 in what a sweep may not change: it has 2 bodies and 64 contacts, scene 0 2 and 16 (valid: values that keep the bodies' kinds, modes and points and the contacts of scene 0) (scene 1: contacts.jv.points.n = 64)" \
  "$vibro" check "$tmp/swn.cfg"
expect 1 "$vibro" run "$tmp/swn.cfg" -o "$tmp/swn.h5"
[ ! -e "$tmp/swn.h5" ] && [ ! -e "$tmp/swn.h5.part" ] && ok || bad "a refused study left an output"
{ sed '/^record/d' "$tmp/base.cfg"; echo 'record = { signals = []; };'
  echo 'sweep = { params = ( { path = "scene.fs"; values = [44100.0, 88200.0]; } ); };'; } >"$tmp/swfs.cfg"
error "$tmp/swfs.cfg:12: sweep: scene 1 differs from scene 0 in what a sweep may not change: body 'string' has 300 modes and 16 points, in scene 0 220 and 16 (its scheme drops the modes at or above fs/2: give it only modes below the sweep's lowest fs/2, or use a three-level scheme, which keeps them all) (valid: values that keep the bodies' kinds, modes and points and the contacts of scene 0) (scene 1: scene.fs = 88200)" \
  "$vibro" check "$tmp/swfs.cfg"
# the same sweep with three-point keeps every mode in both scenes: it runs
sed 's/scheme = "two-point"/scheme = "three-point"/' "$tmp/swfs.cfg" >"$tmp/swfs3.cfg"
expect 0 "$vibro" run "$tmp/swfs3.cfg" -o "$tmp/swfs3.h5"

# exact_duration on a block of 50 points, all beyond the rate's limit:
# vibro run warned once per point, naming 'jv[k]' (50 lines; 1000 for a
# 1000-point block); once for the block now, naming it, as check does
# (pi sqrt(m/k), m = 1/sum_n sin(n pi x)^2/(mu L/2) = 5e-6 kg at x = 0.005:
# 7.02481e-09 s by numpy; the limit pi/(pi fs), 0.99 of it used)
scene "$string" '{ from = 0.005; to = 0.025; n = 50; }' '{ height = -1e-5; }'
sed 's/law = "power"; k = 1e9; alpha = 1.5;/law = "power"; k = 1e12; alpha = 1; exact_duration = true; saturate = true;/' \
  "$tmp/s.cfg" >"$tmp/sat.cfg"
expect 0 "$vibro" run "$tmp/sat.cfg" -o "$tmp/sat.h5"
grep -v 'scenes, ' "$tmp/err" | grep 'saturated' >"$tmp/sat.txt"
only_line "$tmp/sat.txt" "warning: contact 'jv': 50 of its 50 points saturated (first: point 0, x 0.005 m: it lasts 7.02481e-09 s, the sample rate resolves contacts down to 2.26757e-05 s; it will last 2.29048e-05 s)"

echo "dist_inputs.sh: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

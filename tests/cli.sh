#!/bin/sh
# cli.sh - the vibro command end to end: run, check, errors, exit codes,
# no output file left behind on failure.  Run by make check.
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
case $vibro in /*) ;; *) vibro=$PWD/$vibro ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vibro-cli.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$srcdir/tests/testlib.sh"

expect 0 "$vibro" --version
contains "$tmp/out" "vibro "
expect 0 "$vibro" --help
contains "$tmp/out" "usage: vibro COMMAND"
expect 0 "$vibro" run --help
contains "$tmp/out" "usage: vibro run"
expect 0 "$vibro" check --help
expect 1 "$vibro"
expect 1 "$vibro" frobnicate
contains "$tmp/err" "vibro: unknown command 'frobnicate' (valid: run, check, info, events, export)"

# getopt_long conventions: attached and separate values, long options with
# =, options before or after the operand, -- before an operand that looks
# like an option; a missing argument is named
scene="$srcdir/scenes/papetti-case-b.cfg"
expect 0 "$vibro" run -j2 --output="$tmp/o1.h5" -q "$scene"
[ -f "$tmp/o1.h5" ] && ok || bad "run -j2 --output=FILE wrote nothing"
expect 0 "$vibro" run "$scene" --jobs=2 --output "$tmp/o2.h5" --quiet
[ -f "$tmp/o2.h5" ] && ok || bad "run --jobs=2 --output FILE wrote nothing"
expect 0 "$vibro" run --jobs 1 -o"$tmp/o3.h5" -q "$scene"
[ -f "$tmp/o3.h5" ] && ok || bad "run -oFILE wrote nothing"
cp "$scene" "$tmp/-dash.cfg"
(cd "$tmp" && "$vibro" run -q -o o4.h5 -- -dash.cfg) >"$tmp/out" 2>"$tmp/err" && ok ||
  bad "run -- -dash.cfg: $(cat "$tmp/err")"
[ -f "$tmp/o4.h5" ] && ok || bad "run -- -dash.cfg wrote nothing"
expect 1 "$vibro" run "$scene"
only_line "$tmp/err" "vibro run: missing -o OUT.h5 (see vibro help run)"
expect 1 "$vibro" run -o "$tmp/x.h5"
only_line "$tmp/err" "vibro run: missing SCENE.cfg (see vibro help run)"
expect 1 "$vibro" run "$scene" -o
only_line "$tmp/err" "vibro run: option -o/--output needs a value (OUT.h5)"
expect 1 "$vibro" run "$scene" "$scene" -o "$tmp/x.h5"
only_line "$tmp/err" "vibro run: more than one SCENE.cfg ('$scene')"
expect 1 "$vibro" run "$scene" -o "$tmp/x.h5" --jobz=2
only_line "$tmp/err" "vibro run: unknown option '--jobz=2' (valid: -o/--output OUT.h5, -j/--jobs N, --resume, --restart, -q/--quiet, --help)"
expect 1 "$vibro" run "$scene" -o "$tmp/x.h5" -x
only_line "$tmp/err" "vibro run: unknown option '-x' (valid: -o/--output OUT.h5, -j/--jobs N, --resume, --restart, -q/--quiet, --help)"
expect 1 "$vibro" run "$scene" -o "$tmp/x.h5" -j2x
only_line "$tmp/err" "vibro run: -j 2x: not a number of threads (valid: 1 to 4096)"
[ -e "$tmp/x.h5" ] && bad "output written after a bad command line" || ok
expect 1 "$vibro" check
only_line "$tmp/err" "vibro check: missing SCENE.cfg (see vibro help check)"
# vibro help CMD is vibro CMD --help; every command has one
for cmd in run check info events export; do
  expect 0 "$vibro" help "$cmd"
  cp "$tmp/out" "$tmp/help1"
  expect 0 "$vibro" "$cmd" --help
  cmp -s "$tmp/out" "$tmp/help1" && ok || bad "vibro help $cmd differs from vibro $cmd --help"
  contains "$tmp/out" "usage: vibro $cmd "
  expect 0 "$vibro" "$cmd" -h
done
expect 0 "$vibro" help
contains "$tmp/out" "usage: vibro COMMAND"
expect 1 "$vibro" help frobnicate
only_line "$tmp/err" "vibro: help: unknown command 'frobnicate' (valid: run, check, info, events, export)"
# the man page's synopsis names every option of every command
for cmd in run check info events export; do
  "$vibro" help "$cmd" | sed -n '/^options:/,$ s/^ *\(-., \)\{0,1\}--\([a-z-]*\).*/\2/p' | while read -r opt; do
    [ "$opt" = help ] && continue
    sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$srcdir/tools/vibro.1" |
      grep -qF -- "\\-\\-$opt" || echo "vibro.1 synopsis lacks $cmd --$opt"
  done
done >"$tmp/man"
[ -s "$tmp/man" ] && bad "$(cat "$tmp/man")" || ok

# every shipped scene checks and runs
for scene in "$srcdir"/scenes/*.cfg; do
  expect 0 "$vibro" check "$scene"
  contains "$tmp/out" "valid"
  expect 0 "$vibro" run "$scene" -o "$tmp/out.h5" --quiet
  [ -f "$tmp/out.h5" ] && ok || bad "no output for $scene"
  [ -f "$tmp/out.h5.part" ] && bad "part file left for $scene" || ok
  rm -f "$tmp/out.h5"
done

# check warns where the sample rate is too low for the scheme
sed 's/scheme = "two-point";/scheme = "three-point";/' \
  "$srcdir/scenes/chatziioannou-hard.cfg" >"$tmp/hard3.cfg"
expect 0 "$vibro" check "$tmp/hard3.cfg"
contains "$tmp/out" "warning: contact 'collision' lasts 1.57 samples, shorter than the 2 scheme 'three-point' resolves"

# exact duration beyond the limit: refused, or saturated with a warning
sed 's/scheme = "two-point";/scheme = "three-point"; exact_duration = true;/' \
  "$srcdir/scenes/chatziioannou-hard.cfg" >"$tmp/exact.cfg"
expect 1 "$vibro" run "$tmp/exact.cfg" -o "$tmp/exact.h5"
contains "$tmp/err" "exact_duration: omega_c = 100000 rad/s"
sed 's/exact_duration = true;/exact_duration = true; saturate = true;/' "$tmp/exact.cfg" >"$tmp/sat.cfg"
expect 0 "$vibro" run "$tmp/sat.cfg" -o "$tmp/sat.h5"
contains "$tmp/err" "warning: contact 'collision' saturated: the sample rate resolves contacts down to 4e-05 s"
expect 0 "$vibro" check "$tmp/sat.cfg"
contains "$tmp/out" "warning: contact 'collision' saturated"

# a bad scene: one clear line, exit 1, no file
sed 's/scheme = "am1";/scheme = "rk5";/' "$srcdir/scenes/papetti-case-b.cfg" >"$tmp/bad.cfg"
expect 1 "$vibro" run "$tmp/bad.cfg" -o "$tmp/bad.h5"
contains "$tmp/err" "bad.cfg:12: contact 'hit': unknown scheme 'rk5' (valid: two-point, am1, three-point, quadratic, verlet, position-verlet, heun, rk4, sav, moreau-jean)"
[ -e "$tmp/bad.h5" ] || [ -e "$tmp/bad.h5.part" ] && bad "output left for a bad scene" || ok
expect 1 "$vibro" check "$tmp/bad.cfg"
expect 1 "$vibro" run "$tmp/missing.cfg" -o "$tmp/x.h5"
contains "$tmp/err" "missing.cfg: cannot read scene file"

# an output directory that does not exist: exit 1, clear message
expect 1 "$vibro" run "$srcdir/scenes/papetti-case-b.cfg" -o "$tmp/no/such/dir/x.h5"
contains "$tmp/err" "$tmp/no/such/dir/x.h5"

# a recording that cannot fit is refused before it starts, with its size
sed 's/duration = 0.002;/duration = 1.0e7;/' "$srcdir/scenes/papetti-case-b.cfg" >"$tmp/huge.cfg"
expect 1 "$vibro" run "$tmp/huge.cfg" -o "$tmp/huge.h5"
contains "$tmp/err" "needs"
contains "$tmp/err" "bytes"
[ -e "$tmp/huge.h5" ] && bad "output left for a refused scene" || ok

# Newton capped at one iteration on a hard impact: exit 2, the file says why
sed 's/scheme = "two-point";/scheme = "two-point"; max_iterations = 1;/' \
  "$srcdir/scenes/chatziioannou-hard.cfg" >"$tmp/cap.cfg"
expect 2 "$vibro" run "$tmp/cap.cfg" -o "$tmp/cap.h5"
contains "$tmp/err" "did not finish: newton failed at t="
[ -f "$tmp/cap.h5" ] && ok || bad "no output file for a Newton failure"

# an explicit scheme far beyond its stability limit diverges: exit 2
cat >"$tmp/div.cfg" <<'CFG'
scene = { name = "div"; fs = 44100.0; duration = 0.1; };
bodies = ( { name = "m"; type = "mass"; mass = 1.0; v0 = 1.0; },
           { name = "w"; type = "wall"; } );
contacts = ( { name = "spring"; between = ["m", "w"]; law = "polynomial";
               k = 1.0e12; alpha = 1; scheme = "verlet"; } );
CFG
expect 2 "$vibro" run "$tmp/div.cfg" -o "$tmp/div.h5"
contains "$tmp/err" "did not finish: diverged at t="

# AM1 gaining energy without bound (a 100-mode string on a stiff bridge)
# ends as diverged, not "done": exit 2, and the file's status says why
cat >"$tmp/grow.cfg" <<'CFG'
scene = { name = "g"; fs = 44100.0; duration = 0.2; gravity = 0.0; };
bodies = ( { name = "bridge"; type = "wall"; position = -1.0e-5; },
  { name = "string"; type = "modal"; preset = { kind = "string"; nmodes = 100; length = 1.0;
    tension = 40.0; linear_density = 0.001; pluck = [0.3, 1e-3]; };
    points = ( { name = "pickup"; x = 0.7; }, { name = "b"; x = 0.015; } ); } );
contacts = ( { name = "jv"; between = ["bridge", "string.b"]; law = "power"; k = 1e9; alpha = 1.5;
    scheme = "am1"; max_iterations = 1000; } );
record = { signals = ["bodies/string/pickup/u", "energy/*"]; };
CFG
expect 2 "$vibro" run "$tmp/grow.cfg" -o "$tmp/grow.h5"
contains "$tmp/err" "did not finish: diverged at t="
contains "$tmp/err" ": energy grew from 9.5e-05 J to "
h5dump -d /study/table/status "$tmp/grow.h5" >"$tmp/grow.txt" 2>&1
contains "$tmp/grow.txt" "energy grew from 9.5e-05 J to "
sed 's/scheme = "am1"/scheme = "two-point"/' "$tmp/grow.cfg" >"$tmp/keep.cfg"
expect 0 "$vibro" run "$tmp/keep.cfg" -o "$tmp/keep.h5"

# vibro check prints each law's parameters from the law table, with units
cat >"$tmp/laws.cfg" <<'CFG'
scene = { name = "laws"; fs = 44100.0; duration = 0.01; };
bodies = ( { name = "m"; type = "mass"; mass = 1.0; v0 = 1.0; },
           { name = "w"; type = "wall"; } );
contacts = ( { name = "s"; between = ["m", "w"]; law = "spring"; k = 100.0; c = 0.5; scheme = "am1"; },
             { name = "f"; between = ["m", "w"]; law = "flores"; k = 1e8; alpha = 1.5; e = 0.8; scheme = "am1"; } );
CFG
expect 0 "$vibro" check "$tmp/laws.cfg"
contains "$tmp/out" "effective mass 1 kg, k 1e+08 N/m^alpha, alpha 1.5, e 0.8"
contains "$tmp/out" ", c 0.5 N s/m, alpha 1 (fixed)"
contains "$tmp/out" "  no analytic x_max/v_out/contact time: law 'spring' is always engaged"

# vibro check's body lines: a mass on a spring gives its frequency and
# damping ratio, a damper alone is not called a spring
cat >"$tmp/bodies.cfg" <<'CFG'
scene = { name = "bodies"; fs = 44100.0; duration = 0.01; };
bodies = ( { name = "s"; type = "mass"; mass = 0.37; k = 2282.3; c = 0.5; },
           { name = "d"; type = "mass"; mass = 0.2; c = 0.5; },
           { name = "w"; type = "wall"; } );
contacts = ( { name = "h"; between = ["s", "w"]; law = "power"; k = 1e8; alpha = 1.5; scheme = "am1"; },
             { name = "g"; between = ["d", "w"]; law = "power"; k = 1e8; alpha = 1.5; scheme = "am1"; } );
CFG
expect 0 "$vibro" check "$tmp/bodies.cfg"
contains "$tmp/out" "body 's': mass 0.37 kg, u0 0 m, v0 0 m/s, on a spring to ground (12.4999 Hz, zeta 0.00860306)"
contains "$tmp/out" "body 'd': mass 0.2 kg, u0 0 m, v0 0 m/s, on a damper to ground"
# an oscillator is a mass on a spring to ground given by frequency and zeta
cat >"$tmp/osc.cfg" <<'CFG'
scene = { name = "osc"; fs = 44100.0; duration = 0.01; gravity = 9.81; };
bodies = ( { name = "o"; type = "oscillator"; mass = 0.37; freq = 12.5; zeta = 0.031; },
           { name = "w"; type = "wall"; position = -0.01; } );
contacts = ( { name = "h"; between = ["w", "o"]; law = "power"; k = 1e8; alpha = 1.5; scheme = "two-point"; } );
CFG
expect 0 "$vibro" check "$tmp/osc.cfg"
contains "$tmp/out" "body 'o': oscillator, mass 0.37 kg, u0 -0.00159034 m, v0 0 m/s, on a spring to ground (12.5 Hz, zeta 0.031)"
# the file names its type and carries its spring and damper
expect 0 "$vibro" run "$tmp/osc.cfg" -o "$tmp/osc.h5" --quiet
h5dump -a /model/bodies/o/type "$tmp/osc.h5" >"$tmp/out" 2>&1
contains "$tmp/out" '"oscillator"'
h5dump -a /model/bodies/o/k "$tmp/osc.h5" >"$tmp/out" 2>&1
contains "$tmp/out" "2282.3"
h5dump -a /model/bodies/w/type "$tmp/osc.h5" >"$tmp/out" 2>&1
contains "$tmp/out" '"wall"'
sed 's/zeta = 0.031;/zeta = 0.031; k = 5.0;/' "$tmp/osc.cfg" >"$tmp/osc-bad.cfg"
expect 1 "$vibro" check "$tmp/osc-bad.cfg"
contains "$tmp/err" "osc-bad.cfg:2: body 'o': 'k' applies only to type 'mass' (valid: name, type, mass, freq, zeta, quality, t60, u0, v0)"

# -o that is an input, a directory or a symbolic link: refused before the
# run starts, the input untouched
cp "$srcdir/scenes/papetti-case-b.cfg" "$tmp/self.cfg"
cp "$tmp/self.cfg" "$tmp/self.orig"
expect 1 "$vibro" run "$tmp/self.cfg" -o "$tmp/self.cfg"
only_line "$tmp/err" "$tmp/self.cfg: is the input $tmp/self.cfg; refusing to overwrite it"
cmp -s "$tmp/self.cfg" "$tmp/self.orig" && ok || bad "-o the scene file changed the scene"
mkdir "$tmp/sub"
expect 1 "$vibro" run "$tmp/self.cfg" -o "$tmp/sub/../self.cfg"
contains "$tmp/err" "is the input $tmp/self.cfg"
ln "$tmp/self.cfg" "$tmp/hard.h5"
expect 1 "$vibro" run "$tmp/self.cfg" -o "$tmp/hard.h5"
only_line "$tmp/err" "$tmp/hard.h5: is the input $tmp/self.cfg; refusing to overwrite it"
cmp -s "$tmp/self.cfg" "$tmp/self.orig" && ok || bad "-o a hard link of the scene changed the scene"
# a file the scene reads (rolling-ball's profile) is an input too
mkdir "$tmp/roll"
cp "$srcdir/scenes/rolling-ball.cfg" "$srcdir/scenes/rolling-profile.txt" "$tmp/roll/"
cp "$tmp/roll/rolling-profile.txt" "$tmp/profile.orig"
expect 1 "$vibro" run "$tmp/roll/rolling-ball.cfg" -o "$tmp/roll/rolling-profile.txt"
only_line "$tmp/err" "$tmp/roll/rolling-profile.txt: is the input $tmp/roll/rolling-profile.txt; refusing to overwrite it"
cmp -s "$tmp/roll/rolling-profile.txt" "$tmp/profile.orig" && ok || bad "-o the profile changed it"
# a directory: refused at once, not after the run
sed 's/duration = 0.002;/duration = 2.0;/' "$tmp/self.cfg" >"$tmp/long.cfg"
expect 1 "$vibro" run "$tmp/long.cfg" -o "$tmp/sub"
only_line "$tmp/err" "$tmp/sub: is a directory; name a file in it"
[ -e "$tmp/sub.part" ] && bad "a .part was made for a directory output" || ok
# a symbolic link: refused, its target untouched
echo keep >"$tmp/target.h5"
ln -s "$tmp/target.h5" "$tmp/link.h5"
expect 1 "$vibro" run "$tmp/self.cfg" -o "$tmp/link.h5"
only_line "$tmp/err" "$tmp/link.h5: is a symbolic link; refusing to write through it (name the file it points to)"
[ "$(cat "$tmp/target.h5")" = keep ] && ok || bad "run -o a symlink wrote its target"

# record.signals: a vibro-2 file holds only the selected signals; a glob that
# matches nothing is refused at its line, before anything is written
case_b="$srcdir/scenes/papetti-case-b.cfg"
sed 's|^record = .*|record = { signals = ["contacts/*/force", "energy/total"]; };|' "$case_b" >"$tmp/sel.cfg"
expect 0 env VIBRO_FORMAT=vibro-2 "$vibro" run -q -o "$tmp/sel.h5" "$tmp/sel.cfg"
if command -v h5ls >/dev/null; then
  names=$(h5ls "$tmp/sel.h5/signals" | awk '{ printf "%s ", $1 }')
  [ "$names" = "contacts.hit.force energy.total scene time " ] && ok ||
    bad "record.signals: /signals holds '$names'"
fi
sed 's|^record = .*|record = { signals = ["contacts/*/forse"]; };|' "$case_b" >"$tmp/nosig.cfg"
expect 1 env VIBRO_FORMAT=vibro-2 "$vibro" run -q -o "$tmp/nosig.h5" "$tmp/nosig.cfg"
contains "$tmp/err" "nosig.cfg:14: record: 'signals' glob \"contacts/*/forse\" matches no signal of the scene (valid: energy/total, "
[ -e "$tmp/nosig.h5" ] && bad "a refused record.signals wrote its output" || ok

# Writes to standard output are checked (issue 19, item 5): a full device
# is exit 1 with one line, for every command that prints
expect 0 "$vibro" run -q -o "$tmp/b.h5" "$srcdir/scenes/papetti-case-b.cfg"
if [ -w /dev/full ]; then
  for args in "--version" "--help" "help" "help run" "check $srcdir/scenes/papetti-case-b.cfg" \
    "info $tmp/b.h5" "events $tmp/b.h5" "export $tmp/b.h5 --signal contacts/hit/force --csv -"; do
    # shellcheck disable=SC2086
    "$vibro" $args >/dev/full 2>"$tmp/err"
    got=$?
    [ "$got" -eq 1 ] && ok || bad "vibro $args >/dev/full exited $got, expected 1"
    [ "$(wc -l <"$tmp/err")" -eq 1 ] && ok || bad "vibro $args >/dev/full: not one line: $(cat "$tmp/err")"
  done
  contains "$tmp/err" "No space left on device"
fi
# export refuses a destination the user may not write, and keeps the mode
# of one it replaces
expect 0 "$vibro" export "$tmp/b.h5" --signal contacts/hit/force --csv "$tmp/f.csv"
cp "$tmp/f.csv" "$tmp/f.orig"
chmod 0440 "$tmp/f.csv"
if [ "$(id -u)" -ne 0 ]; then
  expect 1 "$vibro" export "$tmp/b.h5" --signal contacts/hit/position --csv "$tmp/f.csv"
  only_line "$tmp/err" "$tmp/f.csv: no permission to write it (mode 0440); refusing to replace it (valid: a file you may write, or a new name)"
  cmp -s "$tmp/f.csv" "$tmp/f.orig" && ok || bad "export replaced a read-only file"
elif command -v setpriv >/dev/null; then
  # as root (who may write anything): the same refusal for an unprivileged user
  mkdir "$tmp/nobody" && chmod 0777 "$tmp/nobody" && chmod 0755 "$tmp"
  cp "$tmp/b.h5" "$tmp/f.orig" "$tmp/nobody/" && chmod 0644 "$tmp/nobody/b.h5"
  cp "$tmp/f.orig" "$tmp/nobody/f.csv" && chmod 0444 "$tmp/nobody/f.csv"
  expect 1 setpriv --reuid=65534 --regid=65534 --clear-groups "$vibro" export "$tmp/nobody/b.h5" \
    --signal contacts/hit/force --csv "$tmp/nobody/f.csv"
  only_line "$tmp/err" "$tmp/nobody/f.csv: no permission to write it (mode 0444); refusing to replace it (valid: a file you may write, or a new name)"
  cmp -s "$tmp/nobody/f.csv" "$tmp/f.orig" && ok || bad "export as nobody replaced a 0444 file"
fi
if [ -w "$tmp/f.csv" ]; then
  # who may write it (root) replaces it, and the mode stays
  expect 0 "$vibro" export "$tmp/b.h5" --scene 0 --signal contacts/hit/force --csv "$tmp/f.csv"
  [ "$(stat -c %a "$tmp/f.csv")" = 440 ] && ok || bad "export changed mode 0440 to $(stat -c %a "$tmp/f.csv")"
fi

# LAPACK is opened when a scene with an island of more than 32 contacts is
# run (lib/base/lapack.c): one that cannot be loaded refuses the run
# before it starts, saying why, and leaves no output; the file that
# VIBRO_LAPACK names is the one used
bridge="$srcdir/scenes/tanpura-bridge.cfg"
expect 1 env VIBRO_LAPACK=/nonexistent/liblapack.so.3 "$vibro" run -q "$bridge" -o "$tmp/lap.h5"
contains "$tmp/err" "scene 'tanpura-bridge': an island of 64 contacts factors its active set with LAPACK, which cannot be loaded (/nonexistent/liblapack.so.3: "
[ ! -e "$tmp/lap.h5" ] && ok || bad "a run refused for its LAPACK left $tmp/lap.h5"
lapack=$(ldconfig -p 2>/dev/null | awk '$1 == "liblapack.so.3" { print $NF; exit }')
if [ -n "$lapack" ]; then
  expect 0 env VIBRO_LAPACK="$lapack" "$vibro" run -q "$bridge" -o "$tmp/lap.h5"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

#!/bin/sh
# cmd_check.sh - what vibro check warns of before a run: a scene that ends
# before its predicted contact is over (v_out NaN), a recording larger than
# the memory or the free disk, and the study's totals (steps, bytes, CPU);
# that vibro run prints the same warnings as check on every scene of
# scenes/ and counts them; "about" where eq 9's contact time is an
# estimate; a contact that starts inside its barrier storing more energy
# than the scene's kinetic energy, with the figure; whether friction's
# static coefficient holds the load (issue 30 item 6).  Run by make check.
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
case $vibro in /*) ;; *) vibro=$PWD/$vibro ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vibro-check.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$srcdir/tests/testlib.sh"

# Papetti's case b cut at 0.1 ms: the hammer starts on the wall and its
# contact lasts 0.133 ms (eq 9)
sed 's/duration = 0.002/duration = 0.0001/' "$srcdir/scenes/papetti-case-b.cfg" >"$tmp/short.cfg"
expect 0 "$vibro" check "$tmp/short.cfg"
contains "$tmp/out" "warning: contact 'hit' is predicted from 0 s to 0.000132898 s, after the scene ends at 0.0001 s: its v_out and cor will be NaN; make duration longer than 0.000132898 s"
contains "$tmp/out" "short.cfg: valid, 1 warning"
# and the run indeed leaves v_out NaN
expect 0 "$vibro" run "$tmp/short.cfg" -o "$tmp/short.h5" --quiet
expect 0 "$vibro" events "$tmp/short.h5" --csv
equal "v_out of the unfinished contact" "$(sed -n 2p "$tmp/out" | cut -d, -f7)" nan
# a gap before the contact: the onset is predicted too (1 mm at 1 m/s)
sed 's/duration = 0.002/duration = 0.001/; s/u0 = 0.0;/u0 = -0.001;/' \
  "$srcdir/scenes/papetti-case-b.cfg" >"$tmp/gap.cfg"
expect 0 "$vibro" check "$tmp/gap.cfg"
contains "$tmp/out" "warning: contact 'hit' is predicted from 0.001 s to 0.0011329 s, after the scene ends at 0.001 s"
# the whole contact fits: no warning
expect 0 "$vibro" check "$srcdir/scenes/papetti-case-b.cfg"
contains "$tmp/out" "papetti-case-b.cfg: valid, 0 warnings"

# issue 30, step 3: a friction curve and a prescribed normal force: the law
# with its units, the coefficient at the bow's speed (mu_k + 0.45
# exp(-(0.1/0.0213)^2) = 0.35 to 6 digits), the samples the slip takes to
# cross v_s at (mu_s - mu_k) N / m: 0.0213 * 0.1 / (0.45 * 1.5) * 44100 = 139
expect 0 "$vibro" check "$srcdir/scenes/bowed-oscillator.cfg"
contains "$tmp/out" "contact 'hair' between 'bow' and 'block', law none, scheme two-point"
contains "$tmp/out" "no normal law: normal force 1.5 N prescribed"
contains "$tmp/out" "mu_s 0.8, mu_k 0.35, v_s 0.0213 m/s, delta 2, viscous 0 s/m"
contains "$tmp/out" "at the slip rate 0.1 m/s of wall 'bow' (the body held): coefficient 0.35"
contains "$tmp/out" "v_s 0.0213 m/s: the slip crosses it in 139 samples at (mu_s - mu_k) N / m (N 1.5 N, prescribed)"
contains "$tmp/out" "bowed-oscillator.cfg: valid, 0 warnings"
# at 1 kHz, 3.16 samples: the note
sed 's/fs = 44100.0/fs = 1000.0/' "$srcdir/scenes/bowed-oscillator.cfg" >"$tmp/coarse.cfg"
expect 0 "$vibro" check "$tmp/coarse.cfg"
contains "$tmp/out" "the slip crosses it in 3.16 samples"
contains "$tmp/out" "note: the curve's fall is crossed in fewer than 4 samples: raise fs to resolve it"

# totals of a study: 64 scenes of 88 steps
expect 0 "$vibro" check "$srcdir/scenes/papetti-sweep.cfg"
contains "$tmp/out" "in all: 64 scenes, 5632 steps, recording "
cpu=$(sed -n 's/.*, about \([^ ]*\) s of CPU here.*/\1/p' "$tmp/out")
awk -v c="$cpu" 'BEGIN { exit !(c > 0 && c < 1e3) }' && ok || bad "CPU estimate '$cpu'"

# fs = 1e13: 2e10 steps, a 2e12-byte recording, more than the memory;
# the disk warning whenever the current file system has less free
sed 's/fs = 44100.0;/fs = 1e13;/' "$srcdir/scenes/papetti-case-b.cfg" >"$tmp/fast.cfg"
(cd "$tmp" && "$vibro" check fast.cfg) >"$tmp/fast.out" 2>&1 && ok || bad "check fast.cfg failed"
contains "$tmp/fast.out" "in all: 1 scene, 2e+10 steps, recording 2.08e+12 bytes"
contains "$tmp/fast.out" "warning: a scene records up to 2.08e+12 bytes, more than this machine's "
free=$(df -P -B1 "$tmp" | awk 'NR == 2 { print $4 }')
if [ "${free:-0}" -lt 2080000000000 ]; then
  contains "$tmp/fast.out" "warning: the recording needs up to 2.08e+12 bytes, only "
  contains "$tmp/fast.out" "fast.cfg: valid, 2 warnings"
  # the run refuses the same figure
  (cd "$tmp" && "$vibro" run fast.cfg -o fast.h5) >"$tmp/run.out" 2>&1
  contains "$tmp/run.out" "fast.h5: the recording needs up to 2.08e+12 bytes, only "
fi

# a distributed contact: one summary for its points, the first predicted
# contact among them; a string moving down at 1 m/s onto a flat barrier
# 1 mm below
cat >"$tmp/dist.cfg" <<'EOF'
scene = { name = "dist"; fs = 44100.0; duration = 0.01; gravity = 0.0; };
bodies = ( { name = "floor"; type = "wall"; },
  { name = "string"; type = "modal";
    preset = { kind = "string"; nmodes = 1; length = 1.0; tension = 40.0; linear_density = 0.001; };
    dq0 = [-1.0]; } );
contacts = ( { name = "bed"; between = ["floor", "string"]; law = "power"; k = 1e8; alpha = 1.5;
  scheme = "two-point"; points = { from = 0.25; to = 0.5; n = 3; }; profile = { height = -1e-3; }; } );
EOF
expect 0 "$vibro" check "$tmp/dist.cfg"
contains "$tmp/out" "contact 'bed': distributed, 3 points on 'string' (x 0.25 .. 0.5 m) against 'floor' below, heights -0.001 .. -0.001 m, scheme two-point"
# the mode rings (100 Hz): its free response u = -sin(w t)/w reaches -1 mm
# at t = asin(w 1e-3)/w = 1.08128 ms with rate cos(w t) = 0.777956 m/s
# (a constant velocity said 1 ms at 1 m/s)
contains "$tmp/out" "  law power, k 1e+08 N/m^alpha, alpha 1.5; first contact at point 2 (x 0.5 m) at 0.00108128 s, v_in 0.777956 m/s, effective mass 0.0005 kg, contact time (a point mass's, eq 9)"
equal "contacts listed" "$(grep -c "^contact " "$tmp/out")" 1
# modes at or above fs/2: kept by three-point, dropped by two-point
sed 's/nmodes = 1;/nmodes = 5;/; s/dq0 = \[-1.0\];/dq0 = [-1.0, 0.0, 0.0, 0.0, 0.0];/; s/fs = 44100.0/fs = 700.0/' \
  "$tmp/dist.cfg" >"$tmp/alias.cfg"
expect 0 "$vibro" check "$tmp/alias.cfg"
contains "$tmp/out" "warning: body 'string': 2 modes at or above fs/2 = 350 Hz dropped (modes 3 .. 4 as given, counted from 0): the scheme of its island cannot step them (a three-level scheme steps them exactly, aliased); the highest kept is at 300 Hz"
sed 's/two-point/three-point/' "$tmp/alias.cfg" >"$tmp/alias3.cfg"
expect 0 "$vibro" check "$tmp/alias3.cfg"
contains "$tmp/out" "body 'string': modal, 5 modes (100 .. 500 Hz), 3 points"
contains "$tmp/out" "warning: contact 'bed' (point 2, x 0.5 m) lasts about 0.0461 samples (a point mass's time at the effective mass there, Papetti eq 9: an estimate on a modal body, not a bound), fewer than the 2 scheme 'three-point' resolves; raise fs above about 30400.9 Hz"
equal "one warning for the block of 3 points" "$(grep -c "^warning: contact 'bed" "$tmp/out")" 1
contains "$tmp/out" "alias3.cfg: valid, 1 warning"
(cd "$tmp" && "$vibro" run alias.cfg -o alias.h5) >"$tmp/run.out" 2>&1
contains "$tmp/run.out" "warning: body 'string': 2 modes at or above fs/2 = 350 Hz dropped"

# the fretless bass: one line for the 862 points
sed 's/duration = 0.02;/duration = 0.001;/' "$srcdir/scenes/bass-fretless.cfg" >"$tmp/fretless.cfg"
cp "$srcdir"/scenes/bass-fretless-*.csv "$tmp/"
expect 0 "$vibro" check "$tmp/fretless.cfg"
contains "$tmp/out" "contact 'neck': distributed, 862 points on 'string' (x 0.001 .. 0.862 m) against 'neck' below, heights -0.0101 .. -0.000213863 m, scheme three-point"
equal "contacts listed" "$(grep -c "^contact " "$tmp/out")" 1

# the fretted bass released from rest (dq0 = 0): its first impact, from
# the modes' free response, at fret 11 at 3.81 ms (a run at 4.01 MHz has
# it at 3.81133 ms, 1.121 m/s), not "no impact follows"
sed 's/duration = 0.1;/duration = 0.005;/; s/three-point/two-point/' "$srcdir/scenes/bass-fretted.cfg" >"$tmp/fretted.cfg"
cp "$srcdir"/scenes/bass-fretted-*.csv "$srcdir"/scenes/bass-frets.csv "$tmp/"
expect 0 "$vibro" check "$tmp/fretted.cfg"
contains "$tmp/out" "first contact at point 11 (x 0.432 m) at 0.00381133 s, v_in 1.11686 m/s"
contains "$tmp/out" "warning: contact 'frets' (point 11, x 0.432 m) lasts about 0.306 samples"

# the events: the recording's bytes count the signals only; the impacts of
# the timed steps of scene 0, extrapolated, estimate the events' (14,228
# in a run of the tanpura bridge, 17,400 estimated from its first 45 ms:
# within a factor 2 either way)
cp "$srcdir/scenes/tanpura-bridge.cfg" "$tmp/bridge.cfg"
expect 0 "$vibro" check "$tmp/bridge.cfg"
contains "$tmp/out" "events: 1578 in the 0.0454 s timed of scene 0, at that rate about "
estimate=$(sed -n 's/^events: .*at that rate about \([0-9.e+]*\) events, .*/\1/p' "$tmp/out")
(cd "$tmp" && "$vibro" run bridge.cfg -o bridge.h5 -q) >/dev/null 2>&1 && ok || bad "run bridge.cfg failed"
"$vibro" info "$tmp/bridge.h5" >"$tmp/info.out" 2>&1
actual=$(sed -n 's/^study events: \([0-9]*\) impacts.*/\1/p' "$tmp/info.out")
equal "events estimated within 2x of a run's ($estimate, $actual)" \
  "$(awk -v e="$estimate" -v a="$actual" 'BEGIN { print (a > 0 && e >= a / 2 && e <= 2 * a) }')" 1
# every step timed: the one impact, no extrapolation
expect 0 "$vibro" check "$tmp/short.cfg"
contains "$tmp/out" "events: 1 in the 9.07e-05 s timed of scene 0, at that rate about 1 events, 168 bytes more in all"
equal "no extrapolation note" "$(grep -c "an extrapolation" "$tmp/out")" 0

# a contact that starts compressed is said to start engaged, not "no impact
# follows" (a point, and every point of a distributed block)
cat >"$tmp/engaged.cfg" <<'EOF2'
scene = { name = "c0"; fs = 44100.0; duration = 0.002; gravity = 0.0; };
bodies = ( { name = "b"; type = "mass"; mass = 0.01; u0 = -1e-4; }, { name = "w"; type = "wall"; } );
contacts = ( { name = "c"; between = ["w", "b"]; law = "power"; k = 1e6; alpha = 1.5; scheme = "two-point"; } );
EOF2
expect 0 "$vibro" check "$tmp/engaged.cfg"
contains "$tmp/out" "  starts engaged: penetration 0.0001 m at t = 0, rate 0 m/s"
cat >"$tmp/engaged2.cfg" <<'EOF2'
scene = { name = "ep"; fs = 44100.0; duration = 0.01; gravity = 0.0; };
bodies = ( { name = "bridge"; type = "wall"; },
  { name = "string"; type = "modal";
    preset = { kind = "string"; nmodes = 20; length = 0.65; tension = 40; linear_density = 0.001; }; } );
contacts = ( { name = "jv"; between = ["bridge", "string"]; law = "power"; k = 1e9; alpha = 1.5;
    scheme = "two-point"; points = { from = 0.1; to = 0.5; n = 5; }; profile = { height = 0.001; }; } );
EOF2
expect 0 "$vibro" check "$tmp/engaged2.cfg"
contains "$tmp/out" "5 of 5 points start engaged (penetration up to 0.001 m at t = 0"

# vibro run prints vibro check's warnings, the same lines from the same
# code, before it runs, and counts them in its summary: every scene and
# study of scenes/, run whole (about 6 s in all)
cp -r "$srcdir/scenes" "$tmp/scenes"
chmod -R u+w "$tmp/scenes"
lines=0
for cfg in "$tmp"/scenes/*.cfg; do
  name=$(basename "$cfg" .cfg)
  (cd "$tmp/scenes" && "$vibro" check "$name.cfg") >"$tmp/c.out" 2>&1 || bad "check $name.cfg failed"
  (cd "$tmp/scenes" && "$vibro" run "$name.cfg" -o "$tmp/$name.h5" -j 1) >"$tmp/r.out" 2>"$tmp/r.err" ||
    bad "run $name.cfg failed: $(tail -3 "$tmp/r.err")"
  grep '^warning: ' "$tmp/c.out" >"$tmp/c.warn"
  grep '^warning: ' "$tmp/r.err" >"$tmp/r.warn"
  cmp -s "$tmp/c.warn" "$tmp/r.warn" && ok ||
    bad "$name.cfg: vibro run's warnings are not vibro check's: $(diff "$tmp/c.warn" "$tmp/r.warn" | head -4)"
  n=$(sed -n 's/^.*: valid, \([0-9]*\) warnings*$/\1/p' "$tmp/c.out")
  equal "$name.cfg: check's count is its lines" "$(wc -l <"$tmp/c.warn")" "$n"
  if [ "$n" -eq 0 ]; then
    equal "$name.cfg: no warning in run's summary" "$(grep -c 'warning' "$tmp/r.out")" 0
  elif [ "$n" -eq 1 ]; then
    contains "$tmp/r.out" ", 1 warning (vibro check's, above), "
  else
    contains "$tmp/r.out" ", $n warnings (vibro check's, above), "
  fi
  lines=$((lines + n))
done
# not two empty sets: the tanpura bridge alone warns 31 times
awk -v n="$lines" 'BEGIN { exit !(n >= 35) }' && ok || bad "only $lines warnings over scenes/"

# the bound in the wording: a point mass on a wall is eq 9's own case
# ("lasts N samples", cli.sh); on a modal body or a spring, "about"
(cd "$tmp/scenes" && "$vibro" check bass-fretted.cfg) >"$tmp/c.out" 2>&1
contains "$tmp/c.out" "warning: contact 'frets' (point 11, x 0.432 m) lasts about 0.168 samples (a point mass's time at the effective mass there, Papetti eq 9: an estimate on a modal body, not a bound), fewer than the 2 scheme 'three-point' resolves; raise fs above about 745818 Hz"
sed 's/fs = 44100.0/fs = 6000.0/; s/v0 = 1.0; }/v0 = 1.0; k = 2000.0; }/' \
  "$srcdir/scenes/papetti-case-b.cfg" >"$tmp/spring.cfg"
expect 0 "$vibro" check "$tmp/spring.cfg"
contains "$tmp/out" "warning: contact 'hit' lasts about 0.797 samples (a point mass's time at the effective mass there, Papetti eq 9: an estimate on a body on a spring or damper, not a bound), fewer than the 4 scheme 'am1' resolves; raise fs above about 30098.2 Hz"
sed 's/fs = 44100.0/fs = 6000.0/' "$srcdir/scenes/papetti-case-b.cfg" >"$tmp/free.cfg"
expect 0 "$vibro" check "$tmp/free.cfg"
contains "$tmp/out" "warning: contact 'hit' lasts 0.797 samples, shorter than the 4 scheme 'am1' resolves; raise fs above 30098.2 Hz"
# and why no bound: resolved runs last longer than eq 9 on Avanzini's bar
# (54 samples a contact) and shorter on the tanpura's dense bridge (at
# 705.6 kHz; the same at 2.8 and 11.3 MHz)
expect 0 "$vibro" events "$tmp/avanzini-hammer-bar.h5" --csv
awk -F, 'NR > 1 { n++; if ($5 > $13) longer++ } END { exit !(n > 0 && longer == n) }' "$tmp/out" &&
  ok || bad "Avanzini's bar: a contact not longer than eq 9's: $(head -3 "$tmp/out")"
sed 's/fs = 44100.0/fs = 705600.0/; s/duration = 0.2;/duration = 0.003;/' \
  "$srcdir/scenes/tanpura.cfg" >"$tmp/tanpura16.cfg"
expect 0 "$vibro" run "$tmp/tanpura16.cfg" -o "$tmp/tanpura16.h5" -q -j 1
expect 0 "$vibro" events "$tmp/tanpura16.h5" --csv
awk -F, 'NR > 1 && $5 != "nan" { n++; if ($5 < $13) shorter++ } END { exit !(n > 100 && shorter > 0.9 * n) }' \
  "$tmp/out" && ok || bad "tanpura at 705.6 kHz: not mostly shorter than eq 9: $(head -3 "$tmp/out")"

# a scene that starts inside a contact storing more energy than its
# kinetic energy: the 20 g ball 1 mm inside k = 5e9 (alpha 1.5) under
# gravity.  Closed forms: V = k/(a+1) p^(a+1), the rest p_eq = (m g/k)^(1/a),
# beyond it V(p) - V(p_eq) - m g (p - p_eq), released at sqrt(2 E / m)
cat >"$tmp/inside.cfg" <<'EOF3'
scene = { name = "inside"; fs = 44100.0; duration = 0.001; gravity = 9.81; };
bodies = ( { name = "ball"; type = "mass"; mass = 0.02; u0 = -0.001; v0 = 0.0; },
           { name = "floor"; type = "wall"; } );
contacts = ( { name = "floor"; between = ["floor", "ball"]; law = "power"; k = 5e9; alpha = 1.5;
               scheme = "two-point"; } );
EOF3
figures=$(awk 'BEGIN { k = 5e9; a = 1.5; m = 0.02; g = 9.81; p = 1e-3
  V = k / (a + 1) * p ^ (a + 1); q = (m * g / k) ^ (1 / a)
  E = V - k / (a + 1) * q ^ (a + 1) - m * g * (p - q)
  printf "%.6g %.6g %.6g", V, E, sqrt(2 * E / m) }')
set -- $figures
stored_line="warning: contact 'floor' starts 0.001 m inside its barrier, storing $1 J ($2 J beyond the rest its static load holds it at), more than the scene's initial kinetic energy of 0 J: the first steps release it ($3 m/s for its effective mass of 0.02 kg); start the bodies outside the contact or at that rest"
speed=$3
equal "63 J stored" "$(awk -v v="$1" 'BEGIN { print (v > 63.2 && v < 63.3) }')" 1
expect 0 "$vibro" check "$tmp/inside.cfg"
contains "$tmp/out" "$stored_line"
contains "$tmp/out" "inside.cfg: valid, 1 warning"
expect 0 "$vibro" run "$tmp/inside.cfg" -o "$tmp/inside.h5"
contains "$tmp/err" "$stored_line"
contains "$tmp/out" ", 1 warning (vibro check's, above), "
# the run releases just that (two-point conserves energy; gravity over the
# 24 us of contact adds 2e-4 m/s)
expect 0 "$vibro" events "$tmp/inside.h5" --csv
v_out=$(sed -n 2p "$tmp/out" | cut -d, -f7)
awk -v v="$v_out" -v s="$speed" 'BEGIN { d = -v - s; if (d < 0) d = -d; exit !(d < 1e-5 * s) }' &&
  ok || bad "released at $v_out m/s, predicted $speed"
# no warning at that rest, nor when the ball moves with more kinetic
# energy than it stores (80 m/s: 64 J), nor for a block resting on its
# contact under gravity or the rolling ball a little below its rest
rest=$(awk 'BEGIN { printf "%.17g", -(0.02 * 9.81 / 5e9) ^ (1 / 1.5) }')
sed "s/u0 = -0.001;/u0 = $rest;/" "$tmp/inside.cfg" >"$tmp/rest.cfg"
sed 's/v0 = 0.0;/v0 = 80.0;/' "$tmp/inside.cfg" >"$tmp/fast.cfg"
for f in "$tmp/rest.cfg" "$tmp/fast.cfg" "$tmp/scenes/held-block.cfg" "$tmp/scenes/rolling-ball.cfg"; do
  (cd "$tmp/scenes" && "$vibro" check "$f") >"$tmp/c.out" 2>&1
  equal "$(basename "$f"): no stored-energy warning" "$(grep -c 'inside its barrier' "$tmp/c.out")" 0
done

# issue 30 item 2: a rigid contact predicts Newton's impact (doc/rigid.md):
# m (1 + e) v0 = 0.0459 * 1.85 * 1.98091 N s, -e v0, (1 - e^2) m v0^2 / 2
expect 0 "$vibro" check "$srcdir/scenes/rigid-bouncing-ball.cfg"
contains "$tmp/out" "at v_in 1.98091 m/s: Newton's impact, an impulse of 0.168209 N s within one step, v_out -1.68377 m/s, the loss 0.0249905 J ((1 - e^2) of m v_in^2 / 2)"
contains "$tmp/out" "rigid-bouncing-ball.cfg: valid, 0 warnings"

# issue 30 item 6: whether the static coefficient holds the scene's load.
# The held block: the spring 1500 N/m at w0 4.5 mm pulls 6.75 N against
# mu_s m g = 0.5 * 2 * 9.81 = 9.81 N; at w0 10 mm it pulls 15 N and slips
expect 0 "$vibro" check "$srcdir/scenes/held-block.cfg"
contains "$tmp/out" "static hold: mu_s N = 9.81 N (N 19.62 N, m g) holds the load 6.75 N (the spring along w at w0 0.0045 m)"
sed 's/w0 = 4.5e-3;/w0 = 1.0e-2;/' "$srcdir/scenes/held-block.cfg" >"$tmp/pulled.cfg"
expect 0 "$vibro" check "$tmp/pulled.cfg"
contains "$tmp/out" "static hold: mu_s N = 9.81 N (N 19.62 N, m g) cannot hold the load 15 N (the spring along w at w0 0.01 m): it slips at once"
# the belt (1 kg, 1000 N/m, 0.02 m/s, mu_s 0.6, mu_k 0.4, 20 kHz): the stick
# carries it to mu_s m g / kw = 5.886 mm after 0.2943 s; each slip lasts
# (pi + 2 atan(v / (omega d))) / omega, omega = sqrt(1000), d = 0.2 m g /
# kw, each stick 2 d / v: computed here with awk
expect 0 "$vibro" check "$srcdir/scenes/belt-stick-slip.cfg"
contains "$tmp/out" "holds the load 0 N at w0; riding 'belt' at 0.02 m/s, the spring's pull reaches it at w 0.005886 m, the largest stick excursion, after 0.2943 s = 5886 samples: it breaks away there"
want=$(awk 'BEGIN { om = sqrt(1000); d = 0.2 * 9.81 / 1000; v = 0.02; fs = 20000
  sl = (3.14159265358979 + 2 * atan2(v / (om * d), 1)) / om; st = 2 * d / v
  printf "slip phases: %.6g s = %.1f samples each (the closed form), the sticks between them %.6g s = %.1f samples: a period of %.6g s", sl, sl * fs, st, st * fs, sl + st }')
contains "$tmp/out" "$want"
# a slip straight away: the belt's block started at twice the breakaway
sed 's/w0 = 0.0;/w0 = 0.012;/' "$srcdir/scenes/belt-stick-slip.cfg" >"$tmp/far.cfg"
expect 0 "$vibro" check "$tmp/far.cfg"
contains "$tmp/out" "cannot hold the load 12 N (the spring along w at w0 0.012 m): it slips at once"

# 10^4 alike masses dropped on one floor, each its own island (issue 32
# item 4: 10^5 printed 400,400 lines and 10^5 warning lines, and took
# minutes, the springs' search being n^2): the first four bodies and
# contacts, then one line for the rest; the one warning said once for all
# with its count; vibro run repeats it so
awk -v n=10000 -f "$srcdir/tests/many_islands.awk" >"$tmp/many.cfg"
expect 0 "$vibro" check "$tmp/many.cfg"
lines=$(wc -l <"$tmp/out")
awk -v n="$lines" 'BEGIN { exit !(n < 40) }' && ok || bad "vibro check of 10^4 alike contacts printed $lines lines"
contains "$tmp/out" "body 'b3': mass 0.01 kg, u0 0.001 m, v0 -1 m/s"
contains "$tmp/out" "  and 9996 more bodies alike, 'b4' to 'b9999' (the same but for their names)"
contains "$tmp/out" "  and 9996 more contacts alike, 'c4' to 'c9999' (the same but for their names)"
contains "$tmp/out" "warning: 10000 contacts alike (contact 'c0' to contact 'c9999'): each is predicted from 0.000995143 s to 0.00112783 s, after the scene ends at 0.001 s: its v_out and cor will be NaN; make duration longer than 0.00112783 s"
contains "$tmp/out" "many.cfg: valid, 1 warning"
expect 0 "$vibro" run "$tmp/many.cfg" -o "$tmp/many.h5"
contains "$tmp/err" "warning: 10000 contacts alike (contact 'c0' to contact 'c9999'): each is predicted"
# alike warnings of two kinds, interleaved contact by contact, each said
# once (the 1e12 stiffness lasts 1.04 samples: too short, and it ends
# after the scene)
sed 's/k = 1e9/k = 1e12/' "$tmp/many.cfg" >"$tmp/many2.cfg"
expect 0 "$vibro" check "$tmp/many2.cfg"
equal "warning lines of 10^4 contacts, two kinds" "$(grep -c '^warning: 10000 contacts alike' "$tmp/out")" 2

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

#!/bin/sh
# grazing.sh - vibro check names the grazing boundary a sweep crosses
# (lib/study/check.c; doc/analysis.md, "Grazing", eq G1-G3): where the
# no-contact steady state of a linear body under one harmonic force or
# drive just reaches the barrier.  The amplitudes are computed here again
# with awk from the receptance of each case (a mass-spring-damper, a
# two-mode modal body, a shaken wall), and the interpolated boundary must
# match to the 6 digits printed.  Run by make check.
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
case $vibro in /*) ;; *) vibro=$PWD/$vibro ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vibro-grazing.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$srcdir/tests/testlib.sh"

# boundary TEXT: the value after "just reaches the barrier at PATH = "
boundary() {
  sed -n 's/.* just reaches the barrier at [^ ]* = \([^ ]*\) .*/\1/p' "$tmp/out" | head -1
}
# same6 WHAT GOT WANT: GOT equals WANT to 6 significant digits
same6() {
  g=$(printf '%.5e' "$2"); w=$(printf '%.5e' "$3")
  equal "$1" "$g" "$w"
}

# 1. scenes/impact-oscillator.cfg's oscillator (1 kg, 10 Hz, zeta 0.05,
# F = k * 1 mm at 25 Hz) against a stop whose gap is swept 0.1 .. 0.3 mm:
# the amplitude (F/k) / |1 - r^2 + 2 i zeta r| with r = 2.5
cat >"$tmp/gap.cfg" <<'CFG'
scene = { name = "io"; fs = 20000.0; duration = 0.1; gravity = 0.0; };
bodies = (
  { name = "oscillator"; type = "mass"; mass = 1.0; k = 3947.8418; c = 6.2831853; },
  { name = "stop"; type = "wall"; position = 0.0; }
);
contacts = (
  { name = "impact"; between = ["oscillator", "stop"];
    law = "hunt-crossley"; k = 1.0e7; alpha = 1.0; mu = 10.0; gap = 0.0; scheme = "am1"; }
);
forces = (
  { name = "drive"; at = "oscillator"; type = "harmonic"; amplitude = 3.9478418; freq = 25.0; }
);
sweep = { params = ( { path = "contacts.impact.gap"; linspace = [1.0e-4, 3.0e-4]; n = 5; } ); };
CFG
amp() { # mass k c F f: |F / (k - m w^2 + i c w)|
  awk -v m="$1" -v k="$2" -v c="$3" -v F="$4" -v f="$5" 'BEGIN {
    w = 2 * atan2(0, -1) * f; re = k - m * w * w; im = c * w
    printf "%.17g\n", F / sqrt(re * re + im * im) }'
}
expect 0 "$vibro" check "$tmp/gap.cfg"
contains "$tmp/out" "warning: contact 'impact': the sweep crosses a grazing boundary between scene 1 (contacts.impact.gap = 0.00015) and scene 2 (contacts.impact.gap = 0.0002): "
contains "$tmp/out" "gap.cfg: valid, 1 warning"
same6 "gap at the boundary" "$(boundary)" "$(amp 1.0 3947.8418 6.2831853 3.9478418 25.0)"

# 1b. under gravity, the stop below: the static sag g m / k adds to the
# clearance the amplitude must reach
sed 's/gravity = 0.0;/gravity = 9.81;/; s/between = \["oscillator", "stop"\]/between = ["stop", "oscillator"]/;
     s/linspace = \[1.0e-4, 3.0e-4\]; n = 5;/linspace = [2.5e-3, 2.9e-3]; n = 5;/' "$tmp/gap.cfg" >"$tmp/sag.cfg"
expect 0 "$vibro" check "$tmp/sag.cfg"
contains "$tmp/out" "between scene 1 (contacts.impact.gap = 0.0026) and scene 2 (contacts.impact.gap = 0.0027)"
same6 "gap under gravity" "$(boundary)" "$(awk -v a="$(amp 1.0 3947.8418 6.2831853 3.9478418 25.0)" 'BEGIN { printf "%.17g", a + 9.81 / 3947.8418 }')"

# 2. the same stop 0.3 mm away, the frequency swept 18 .. 24 Hz: the
# amplitude falls through 0.3 mm between 20 and 21 Hz; the boundary is the
# linear interpolation of amplitude - gap between the two scenes
sed 's/gap = 0.0;/gap = 3.0e-4;/; s/path = "contacts.impact.gap"; linspace = \[1.0e-4, 3.0e-4\]; n = 5;/path = "forces.drive.freq"; linspace = [18.0, 24.0]; n = 7;/' \
  "$tmp/gap.cfg" >"$tmp/freq.cfg"
expect 0 "$vibro" check "$tmp/freq.cfg"
contains "$tmp/out" "between scene 2 (forces.drive.freq = 20) and scene 3 (forces.drive.freq = 21)"
m0=$(awk -v a="$(amp 1.0 3947.8418 6.2831853 3.9478418 20.0)" 'BEGIN { printf "%.17g", a - 3e-4 }')
m1=$(awk -v a="$(amp 1.0 3947.8418 6.2831853 3.9478418 21.0)" 'BEGIN { printf "%.17g", a - 3e-4 }')
same6 "frequency at the boundary" "$(boundary)" "$(awk -v a="$m0" -v b="$m1" 'BEGIN { printf "%.17g", 20 + a / (a - b) }')"
contains "$tmp/out" "freq.cfg: valid, 1 warning"

# 3. a two-mode modal body forced at one point and stopped at another,
# the gap swept: the receptance sum_j s_tip,j s_drive,j / (M_j (w_j^2 -
# w^2 + 2 i sigma_j w)), sigma_j = w_j / (2 Q_j)
cat >"$tmp/modal.cfg" <<'CFG'
scene = { name = "modal"; fs = 20000.0; duration = 0.05; gravity = 0.0; };
bodies = (
  { name = "bar"; type = "modal"; freq = [100.0, 250.0]; quality = [50.0, 40.0]; mass = [0.2, 0.3];
    points = ( { name = "drive"; shape = [1.0, -0.6]; }, { name = "tip"; shape = [0.8, 0.5]; } ); },
  { name = "stop"; type = "wall"; position = 0.0; }
);
contacts = ( { name = "touch"; between = ["bar.tip", "stop"]; law = "power"; k = 1.0e8; alpha = 1.5;
  gap = 0.0; scheme = "two-point"; } );
forces = ( { name = "push"; at = "bar.drive"; type = "harmonic"; amplitude = 20.0; freq = 180.0; phase = 0.7; } );
sweep = { params = ( { path = "contacts.touch.gap"; linspace = [1.0e-5, 1.0e-3]; n = 12; } ); };
CFG
modal_amp=$(awk 'BEGIN { pi = atan2(0, -1); w = 2 * pi * 180; re = 0; im = 0
  split("100 250", f); split("50 40", q); split("0.2 0.3", M); split("1.0 -0.6", sd); split("0.8 0.5", st)
  for (j = 1; j <= 2; j++) { wj = 2 * pi * f[j]; s = wj / (2 * q[j])
    a = M[j] * (wj * wj - w * w); b = M[j] * 2 * s * w; g = st[j] * sd[j] * 20.0
    re += g * a / (a * a + b * b); im -= g * b / (a * a + b * b) }
  printf "%.17g", sqrt(re * re + im * im) }')
expect 0 "$vibro" check "$tmp/modal.cfg"
contains "$tmp/out" "warning: contact 'touch': the sweep crosses a grazing boundary between scene "
same6 "modal gap at the boundary" "$(boundary)" "$modal_amp"
i=$(awk -v a="$modal_amp" 'BEGIN { printf "%d", (a - 1e-5) / (9.9e-4 / 11) }')
contains "$tmp/out" "between scene $i (contacts.touch.gap = "

# 4. a bead at rest on its spring, 1 mm from a wall shaken at amplitude A,
# A swept 0.5 .. 1.5 mm: the boundary is at A = 1 mm (the wall's motion
# is the whole amplitude)
cat >"$tmp/shaker.cfg" <<'CFG'
scene = { name = "shaker"; fs = 20000.0; duration = 0.05; gravity = 0.0; };
bodies = (
  { name = "bead"; type = "mass"; mass = 0.01; k = 40.0; c = 0.02; },
  { name = "shaker"; type = "wall"; position = 0.0; drive = { type = "sine"; amplitude = 0.5e-3; freq = 30.0; }; }
);
contacts = ( { name = "floor"; between = ["shaker", "bead"]; law = "power"; k = 1.0e7; alpha = 1.5;
  gap = 1.0e-3; scheme = "two-point"; } );
sweep = { params = ( { path = "bodies.shaker.drive.amplitude"; linspace = [0.5e-3, 1.5e-3]; n = 6; } ); };
CFG
expect 0 "$vibro" check "$tmp/shaker.cfg"
contains "$tmp/out" "between scene 2 (bodies.shaker.drive.amplitude = 0.0009) and scene 3 (bodies.shaker.drive.amplitude = 0.0011)"
same6 "shaker amplitude at the boundary" "$(boundary)" 1e-3

# 5. what it cannot predict, it does not claim: a second force at another
# frequency, a spring joining the body to another, a sweep with no
# crossing (impact-oscillator.cfg: every scene impacts)
sed 's/^forces = (/forces = ( { name = "hum"; at = "oscillator"; type = "harmonic"; amplitude = 0.1; freq = 7.0; },/' \
  "$tmp/gap.cfg" >"$tmp/two.cfg"
expect 0 "$vibro" check "$tmp/two.cfg"
contains "$tmp/out" "two.cfg: valid, 0 warnings"
sed 's/^contacts = (/contacts = ( { name = "link"; between = ["oscillator", "other"]; law = "spring"; k = 10.0; scheme = "am1"; },/;
     s/^bodies = (/bodies = ( { name = "other"; type = "mass"; mass = 0.5; k = 100.0; c = 1.0; },/' \
  "$tmp/gap.cfg" >"$tmp/spring.cfg"
expect 0 "$vibro" check "$tmp/spring.cfg"
contains "$tmp/out" "spring.cfg: valid, 0 warnings"
expect 0 "$vibro" check "$srcdir/scenes/impact-oscillator.cfg"
contains "$tmp/out" "impact-oscillator.cfg: valid, 0 warnings"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

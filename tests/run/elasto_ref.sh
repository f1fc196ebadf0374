#!/bin/sh
# elasto_ref.sh - vibro's elasto-plastic friction law (issue 30, step 4)
# against an independent integration of the published model with scipy
# (tests/run/elasto_ref.py): a squeaking block on a belt and a block on a
# swinging wall under a varying normal force, w, the bristle z and ft with
# their observed orders at 11.025 to 88.2 kHz, the energy balance and the
# friction work; vibro check's report of the law.  Skipped (77) without numpy, scipy and h5py.  Run by make
# check.
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
. "$srcdir/tests/testlib.sh"
pyref_setup "numpy, scipy, h5py" elasto
"$python" "$srcdir/tests/run/elasto_ref.py" "$vibro" "$tmp" || exit 1
# vibro check prints the law, its parameters and the bristle's figures
"$vibro" check "$srcdir/scenes/elastoplastic-squeak.cfg" >"$tmp/check.out" 2>&1 || {
  cat "$tmp/check.out"; exit 1; }
for want in "friction elasto-plastic (ft = -N (sigma0 z + sigma1 z' + sigma2 s)" \
    "mu_s 0.9, mu_k 0.4, v_s 0.01 m/s, sigma0 2e+06 1/m, sigma1 3 s/m, sigma2 0 s/m, z_ba 0.7" \
    "bristle: z_ss 4.5e-07 m at rest (mu_s / sigma0) to 2e-07 m sliding (mu_k / sigma0)" \
    "presliding stiffness sigma0 N = 1.962e+05 N/m" \
    "z_ss 2e-07 m spans 1.18 steps"; do
  grep -qF "$want" "$tmp/check.out" || { echo "FAIL: vibro check lacks: $want"; cat "$tmp/check.out"; exit 1; }
done
echo "vibro check prints the elasto-plastic law and its bristle"

#!/usr/bin/env python3
"""The forced impact oscillator's bifurcation diagram with its period
labels, from one study file: scenes/impact-oscillator.cfg (a 1 kg mass on a
10 Hz spring, damping ratio 0.05, a harmonic force of amplitude k * 1 mm,
a stiff Hunt-Crossley stop at its equilibrium; forcing 24-29 Hz, i.e.
omega/omega0 = 2.4-2.9): the impact map's v_in
and the Poincare section's u after a 4 s transient, against the forcing
frequency, each scene coloured by the period the analysis found (the
scene file's own analysis block), the bands of one period labelled.

Which diagram: the one the scene file's comment states (its numbers were
read off this sweep's events): period 1 up to 26.3 Hz (one impact per
forcing period, at 0.050 m/s at 24 Hz), a period doubling at 26.4 Hz (the
impact speed alternating between 0.0274 and 0.0300 m/s at 26.8 Hz), a
second doubling near 27.05 Hz and chaotic impacting beyond 27.1 Hz: the
period-doubling route to chaos reported for the harmonically forced impact
oscillator since Thompson & Ghaffari (Phys. Rev. A 27, 1983) and reviewed
by Bishop (Phil. Trans. R. Soc. A 347, 1994).  Those papers' figures use a
rigid stop with a restitution coefficient and their own parameters, which
were not at hand to digitise: the checks below hold this diagram to the
scene comment's numbers, not to a published curve.

The script asserts, and exits 1 with the difference when one fails:
  24.0 and 25.0 Hz period 1 (v_in 0.050 m/s at 24 Hz, within 1 mm/s),
  26.6 and 26.8 Hz period 2 (at 26.8 Hz the impact map's v_in in two
  clusters, 0.0274 and 0.0300 m/s within 0.5 mm/s), 28.0 and 29.0 Hz
  irregular.

The scene's period tolerance is 3e-2 (its comment: above the discrete
contact's scatter of up to 1.4e-2): at fs = 20 kHz the 24 Hz orbit repeats
its section only to 3e-3 (three forcing periods are exactly 2500 steps, so
the step grid itself has period 3), and a tolerance of 1e-3 calls it
period 3.

    PYTHONPATH=python examples/impact_oscillator_periods.py -o io-periods.png [--quick]
"""

import argparse
import os
import re
import sys
import tempfile
import time

import numpy as np

import vibro

SCENE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scenes",
                     "impact-oscillator.cfg")
FREQ = "forces.drive.freq"
# The frequencies (Hz) the diagram is checked at, and the period found there
EXPECT = {24.0: "period 1", 25.0: "period 1", 26.6: "period 2", 26.8: "period 2",
          28.0: "irregular", 29.0: "irregular"}
# Section samples and impacts drawn per scene (its last ones)
LAST = 48
# Impact speeds (m/s) the scene comment states, with the allowed difference
SPEEDS = {24.0: ([0.050], 1e-3), 26.8: ([0.0274, 0.0300], 5e-4)}


def study_text(quick):
    """The scene file (with its analysis block); quick: only the checked
    frequencies (make check)."""
    with open(SCENE) as fh:
        text = fh.read()
    if not re.search(r"^analysis\s*=", text, re.M):
        sys.exit("%s: no analysis block: this example needs its section, impact map "
                 "and periods" % SCENE)
    if quick:
        text, n = re.subn(r'linspace = \[24\.0, 29\.0\]; n = 51;',
                          "values = [%s];" % ", ".join("%.1f" % f for f in sorted(EXPECT)),
                          text)
        if n != 1:
            sys.exit("%s: its sweep is no longer linspace [24.0, 29.0], n = 51: update "
                     "this example's quick form" % SCENE)
    return text


def label_bands(ax, orbits, least=2):
    """A label above each run of at least `least` neighbouring scenes of one
    period (a lone scene's class is in the legend's colours only)."""
    o = orbits.sort_values(FREQ)
    f, lab = o[FREQ].to_numpy(), o["label"].to_numpy()
    start = 0
    for i in range(1, len(f) + 1):
        if i == len(f) or lab[i] != lab[start]:
            if i - start >= least:
                ax.annotate(lab[start].replace("irregular", "chaos"),
                            ((f[start] + f[i - 1]) / 2, 1.0),
                            xycoords=("data", "axes fraction"), ha="center", va="bottom",
                            fontsize="small")
            start = i


def check(st):
    """The failed checks, as lines (none: the diagram is the stated one)."""
    o = st.orbits()
    im = st.impact_map("impact")
    bad = []
    for f, want in EXPECT.items():
        row = o[np.isclose(o[FREQ], f)]
        got = row["label"].iloc[0] if len(row) else "no scene"
        if got != want:
            bad.append("%g Hz: %s, expected %s" % (f, got, want))
    for f, (speeds, tol) in SPEEDS.items():
        v = np.sort(im[np.isclose(im[FREQ], f)]["v_in"].to_numpy())
        # the clusters: split where neighbouring speeds differ by more than tol
        groups = np.split(v, np.nonzero(np.diff(v) > tol)[0] + 1) if len(v) else []
        means = [float(np.mean(g)) for g in groups]
        if len(means) != len(speeds) or any(abs(a - b) > tol for a, b in zip(means, speeds)):
            bad.append("%g Hz: impact speeds %s m/s, expected %s"
                       % (f, ", ".join("%.4f" % m for m in means),
                          ", ".join("%.4f" % s for s in speeds)))
    return o, bad


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-o", "--output", default="impact-oscillator-periods.png",
                   help="figure file")
    p.add_argument("--quick", action="store_true",
                   default=os.environ.get("VIBRO_QUICK", "") not in ("", "0"),
                   help="only the %d checked frequencies (make check; also VIBRO_QUICK=1)"
                   % len(EXPECT))
    p.add_argument("--dir", help="where the .h5 file goes (default: a temporary directory)")
    args = p.parse_args(argv)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    start = time.monotonic()
    where = args.dir or tempfile.mkdtemp(prefix="vibro-io-")
    st = vibro.run(study_text(args.quick), os.path.join(where, "io-periods.h5"))
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 8), sharex=True,
                                      layout="constrained")
    # the last 48 forcing periods of each scene: a scene that settles slowly
    # (27.1 Hz, period 4) shows its cycle, not its approach
    vibro.plot_bifurcation(top, st, FREQ, value="v_in", last=LAST)
    vibro.plot_bifurcation(bottom, st, FREQ, value="u", last=LAST)
    o, bad = check(st)
    label_bands(top, o, 2 if args.quick else 3)
    top.set_xlabel("")
    fig.suptitle("Forced impact oscillator, stop at equilibrium: %d scenes, the last %d "
                 "forcing periods of each" % (len(st), LAST), fontsize="medium")
    fig.savefig(args.output, dpi=100)
    print(", ".join("%g Hz %s" % (f, lab) for f, lab in zip(o[FREQ], o["label"])))
    print("%s: %.1f s" % (args.output, time.monotonic() - start))
    for line in bad:
        print("MISMATCH " + line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""A controller in the loop (vibro.Stepper): a shaker table (a 200 g mass
on a 40 Hz spring, driven by a 25 Hz harmonic force) with a 10 g ball
rattling on it, whose drive amplitude a controller sets so that the
table's vibration holds its target amplitude whatever the ball's impacts
do to it.

Every 1 ms the controller reads the table's displacement and the contact's
force (counting the ball's impacts); every 0.1 s it compares the table's
peak excursion over the window with the target and changes the drive's
amplitude by an integral law,
    A <- A + gain (target - peak),
clipped to [0, A_max], from the next step on (Stepper.set).  The whole run
is written as the usual output file (Stepper.finish), so `vibro info`,
`vibro-plot` and vibro.open read it.

    PYTHONPATH=python examples/shaker_controller.py -o shaker.png [--quick]
"""

import argparse
import os
import sys
import tempfile

import numpy as np

import vibro

TARGET = 1.0e-3  # the table's amplitude, m
GAIN = 2000.0    # N per m of the amplitude's error, per window
A_MAX = 40.0     # N
WINDOW = 2000    # steps between changes of the drive: 0.1 s, 2.5 periods


def scene(duration):
    return {
        "scene": {"name": "shaker", "fs": 20000.0, "duration": duration, "gravity": 9.81},
        "bodies": [
            {"name": "table", "type": "mass", "mass": 0.2, "k": 12633.0, "c": 4.0},
            {"name": "ball", "type": "mass", "mass": 0.01, "u0": 0.005},
        ],
        "contacts": [{"name": "bounce", "between": ["table", "ball"], "law": "hunt-crossley",
                      "k": 1.0e6, "alpha": 1.5, "mu": 0.3, "scheme": "two-point"}],
        "forces": [{"name": "drive", "at": "table", "type": "harmonic", "amplitude": 5.0,
                    "freq": 25.0}],
        "record": {"every": 20},
    }


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-o", "--output", default="shaker-controller.png", help="figure file")
    p.add_argument("--quick", action="store_true", help="4 s instead of 20 s (make check)")
    p.add_argument("--dir", help="where the .h5 file goes (default: a temporary directory)")
    args = p.parse_args(argv)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    duration = 4.0 if args.quick else 20.0
    where = args.dir or tempfile.mkdtemp(prefix="vibro-shaker-")
    out = os.path.join(where, "shaker.h5")
    stepper = vibro.Stepper(scene(duration))
    amp, peak, impacts, windows = 5.0, 0.0, 0, []
    with stepper as s:
        rest, _ = s.point("table")                    # sagged under gravity at t = 0
        touching = False
        while not s.done:
            s.advance(20)                             # 1 ms of control period
            ut, _ = s.point("table")
            peak = max(peak, abs(ut - rest))
            hit = s.contact("bounce")["force"] > 0.0
            impacts += hit and not touching
            touching = hit
            if s.steps % WINDOW == 0:                 # the window's peak against the target
                amp = float(np.clip(amp + GAIN * (TARGET - peak), 0.0, A_MAX))
                s.set("forces.drive.amplitude", amp)
                windows.append((s.t, peak, amp, impacts))
                peak, impacts = 0.0, 0
        sim = s.finish(out)
    t, h, a, n = (np.array(x) for x in zip(*windows))
    late = h[t > 0.75 * duration]
    err = float(abs(np.mean(late) - TARGET) / TARGET)
    print("%d windows, status %s; last quarter: table amplitude %.4f mm on average (target "
          "%.3f mm, %.1f %% off), %.4f to %.4f mm, under 0 to %d impacts a window; drive %.2f N; "
          "%d impacts in %s"
          % (len(h), sim.status, 1e3 * np.mean(late), 1e3 * TARGET, 100 * err,
             1e3 * late.min(), 1e3 * late.max(),
             n[t > 0.75 * duration].max(), a[-1],
             len(sim.events), out))

    fig, (x, y) = plt.subplots(2, 1, figsize=(6, 4.5), sharex=True, layout="constrained")
    x.plot(t, 1e3 * h, ".-", ms=3, lw=0.8, label="table amplitude (window's peak)")
    x.axhline(1e3 * TARGET, color="k", lw=0.8, label="target")
    x.set_ylabel("table amplitude (mm)")
    x.legend(loc="lower right", fontsize=8)
    y.step(t, a, where="pre")
    y.set_ylabel("drive amplitude (N)")
    y.set_xlabel("time (s)")
    fig.savefig(args.output, dpi=150)
    # the window's peak of a disturbed table wanders by about 10 %: its mean
    # is what the integral law holds
    return 0 if err < 0.03 else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The harmonically forced impact oscillator's bifurcation diagram: a 1 kg
mass on a 10 Hz spring (damping ratio 0.05) driven by a harmonic force,
hitting a stop at its equilibrium (scenes/impact-oscillator.cfg), swept
over the forcing frequency 24-29 Hz; the impact velocities after the
transient (t >= 4 s) against the frequency: period 1, a period doubling near
26.4 Hz, then chaos with windows.

    PYTHONPATH=python examples/impact_oscillator.py -o io.png [--quick]
"""

import argparse
import os
import sys
import tempfile
import time

import numpy as np

import vibro

SCENES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scenes")


def quick_study():
    """The scene file's oscillator, 6 frequencies for 2 s (make check)."""
    return {
        "scene": {"name": "impact-oscillator", "fs": 20000.0, "duration": 2.0},
        "bodies": [{"name": "oscillator", "type": "mass", "mass": 1.0,
                    "k": 3947.8418, "c": 6.2831853},
                   {"name": "stop", "type": "wall", "position": 0.0}],
        "contacts": [{"name": "impact", "between": ["oscillator", "stop"],
                      "law": "hunt-crossley", "k": 1.0e7, "alpha": 1.0, "mu": 10.0,
                      "gap": 0.0, "scheme": "am1"}],
        "forces": [{"name": "drive", "at": "oscillator", "type": "harmonic",
                    "amplitude": 3.9478418, "freq": 25.0}],
        "record": {"every": 20},
        "sweep": {"params": [{"path": "forces.drive.freq", "linspace": [24.0, 29.0],
                              "n": 6}]},
    }


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-o", "--output", default="impact-oscillator.png", help="figure file")
    p.add_argument("--quick", action="store_true",
                   help="6 frequencies for 2 s instead of 51 for 8 s (make check)")
    p.add_argument("--dir", help="where the .h5 file goes (default: a temporary directory)")
    args = p.parse_args(argv)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    start = time.monotonic()
    where = args.dir or tempfile.mkdtemp(prefix="vibro-io-")
    scene = quick_study() if args.quick else os.path.join(SCENES, "impact-oscillator.cfg")
    st = vibro.run(scene, os.path.join(where, "io.h5"))
    after = 1.0 if args.quick else 4.0
    ev = st.events("impact")
    ev = ev[ev["t_on"] >= after]
    param = "forces.drive.freq"
    fig, ax = plt.subplots(figsize=(8, 5), layout="constrained")
    ax.plot(ev[param], ev["v_in"], ".", ms=2, color="k")
    ax.set_xlabel("%s (%s)" % (param, st.param_units[param]))
    ax.set_ylabel("impact velocity v_in (%s)" % ev.attrs["units"]["v_in"])
    ax.grid(True, alpha=0.3)
    ax.set_title("Impact oscillator: impact velocities after t = %g s, %d scenes, %d impacts"
                 % (after, len(st), len(ev)))
    fig.savefig(args.output, dpi=100)
    per = ev.groupby(param)["v_in"].agg(lambda v: len(np.unique(np.round(v, 3))))
    print("distinct impact velocities (to 1 mm/s) per frequency:")
    print(" ".join("%g:%d" % (f, n) for f, n in per.items()))
    print("%s: %.1f s" % (args.output, time.monotonic() - start))
    return 0


if __name__ == "__main__":
    sys.exit(main())

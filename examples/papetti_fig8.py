#!/usr/bin/env python3
"""Papetti, Avanzini & Rocchesso, Fig 8: a 10 g ball bouncing under gravity
on a rigid floor (Hunt-Crossley, case 1: k = 1e7 N/m^alpha, alpha = 1.1,
mu = 0.1 s/m, impact speed 0.3 m/s), simulated by AM1 and RK4 with and
without the corrections of section 4.2 (x_max clip, v_out reset), against
the analytic bounce sequence: each bounce leaves at the root of eq 6 for
its own impact speed and flies 2 |v_out| / g.

    PYTHONPATH=python examples/papetti_fig8.py -o fig8.png [--quick]
"""

import argparse
import os
import sys
import tempfile
import time

import numpy as np

import vibro

G = 9.81


def ball(scheme, corrected, duration):
    contact = {"name": "bounce", "between": ["floor", "ball"], "law": "hunt-crossley",
               "k": 1.0e7, "alpha": 1.1, "mu": 0.1, "scheme": scheme}
    if corrected:
        contact["corrections"] = ["xmax", "vout"]
    return {
        "scene": {"name": "fig8-%s%s" % (scheme, "-corrected" if corrected else ""),
                  "fs": 44100.0, "duration": duration, "gravity": G},
        "bodies": [{"name": "floor", "type": "wall", "position": 0.0},
                   # dropped from 0.3^2 / (2 g): it hits the floor at 0.3 m/s
                   {"name": "ball", "type": "mass", "mass": 0.01,
                    "u0": 0.3 ** 2 / (2 * G), "v0": 0.0}],
        "contacts": [contact],
        "record": {"every": 4},
    }


def analytic_impacts(v_in, mu, t_first, t_end, contact_time):
    """Impact times of the ideal sequence: each bounce leaves at the eq 6
    root for its impact speed, after the analytic contact time (eq 9,
    contact_time(v_in)), and flies 2 |v_out| / g."""
    times, t, v = [], t_first, v_in
    while t <= t_end and v > 1e-4:
        times.append(t)
        t += contact_time(v)
        v = -float(vibro.v_out_exact(v, mu))
        t += 2 * v / G
    return np.array(times)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-o", "--output", default="papetti-fig8.png", help="figure file")
    p.add_argument("--quick", action="store_true", help="0.35 s instead of 1.4 s (make check)")
    p.add_argument("--dir", help="where the .h5 files go (default: a temporary directory)")
    args = p.parse_args(argv)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    start = time.monotonic()
    duration = 0.35 if args.quick else 1.4
    where = args.dir or tempfile.mkdtemp(prefix="vibro-fig8-")
    fig, axes = plt.subplots(2, 1, figsize=(8, 6), sharex=True, layout="constrained")
    t_first = np.sqrt(2 * (0.3 ** 2 / (2 * G)) / G)
    summary = []
    # eq 9's contact time for each impact speed, from the event table's
    # duration_pred of a corrected run (analytic, not simulated)
    ref = vibro.run(ball("am1", True, duration), os.path.join(where, "ref.h5")).events()
    v_ref, d_ref = ref["v_in"].to_numpy(), ref["duration_pred"].to_numpy()
    order = np.argsort(v_ref)
    ideal = analytic_impacts(0.3, 0.1, t_first, duration,
                             lambda v: float(np.interp(v, v_ref[order], d_ref[order])))
    for ax, scheme in zip(axes, ("am1", "rk4")):
        for corrected, style in ((False, "C3"), (True, "C0")):
            st = vibro.run(ball(scheme, corrected, duration),
                           os.path.join(where, "%s-%d.h5" % (scheme, corrected)))
            u = st.signal(0, "bodies/ball/u")
            ev = st.events("bounce")
            ax.plot(u["time"], 1e3 * u, color=style, lw=1,
                    label="%s, %s (%d bounces)" % (scheme.upper(), "corrected" if corrected
                                                   else "uncorrected", len(ev)))
            n = min(len(ev), len(ideal))
            lag = float(ev["t_on"].to_numpy()[n - 1] - ideal[n - 1])
            summary.append("%s %-11s %2d bounces, impact %d off the analytic time by %+.2f ms"
                           % (scheme.upper(), "corrected" if corrected else "uncorrected",
                              len(ev), n, 1e3 * lag))
        for t in ideal:
            ax.axvline(t, color="k", lw=0.5, ls=":", alpha=0.6)
        ax.plot([], [], "k:", lw=0.5, label="analytic impact times (eq 6)")
        ax.set_ylabel("height of the ball (mm)")
        ax.legend(fontsize="small", loc="upper right")
        ax.grid(True, alpha=0.3)
    axes[-1].set_xlabel("time (s)")
    fig.suptitle("Bouncing under gravity (Papetti Fig 8): corrected against uncorrected")
    fig.savefig(args.output, dpi=100)
    print("\n".join(summary))
    print("%s: %.1f s" % (args.output, time.monotonic() - start))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The coefficient of restitution of a Hunt-Crossley impact against the
impact velocity and the damping mu: a 10 g mass on a rigid wall (k = 1e7
N/m^alpha, alpha = 1.1, AM1 at 441 kHz), swept over mu and v_in, each
impact's COR = -v_out / v_in (Papetti eq 5) against the root of eq 6,
which depends on mu v_in alone.

    PYTHONPATH=python examples/cor_hunt_crossley.py -o cor.png [--quick]
"""

import argparse
import os
import sys
import tempfile
import time

import numpy as np

import vibro

MUS = [0.05, 0.2, 0.8, 3.2]


def study(n_v, fs):
    return {
        "scene": {"name": "cor", "fs": fs, "duration": 0.004, "gravity": 0.0},
        "bodies": [{"name": "hammer", "type": "mass", "mass": 0.01, "v0": 1.0},
                   {"name": "wall", "type": "wall", "position": 0.0}],
        "contacts": [{"name": "hit", "between": ["hammer", "wall"], "law": "hunt-crossley",
                      "k": 1.0e7, "alpha": 1.1, "mu": 0.5, "scheme": "am1"}],
        "record": {"every": 16},
        "sweep": {"mode": "grid", "params": [
            {"path": "contacts.hit.mu", "values": MUS},
            {"path": "bodies.hammer.v0", "logspace": [0.03, 3.0], "n": n_v}]},
    }


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-o", "--output", default="cor-hunt-crossley.png", help="figure file")
    p.add_argument("--quick", action="store_true", help="5 velocities instead of 25 (make check)")
    p.add_argument("--dir", help="where the .h5 file goes (default: a temporary directory)")
    args = p.parse_args(argv)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    start = time.monotonic()
    where = args.dir or tempfile.mkdtemp(prefix="vibro-cor-")
    st = vibro.run(study(5 if args.quick else 25, 441000.0), os.path.join(where, "cor.h5"))
    ev = st.events("hit")
    mu, v_in, cor = ev["contacts.hit.mu"], ev["v_in"], ev["cor"]
    exact = -vibro.v_out_exact(v_in, mu) / v_in
    worst = float(np.max(np.abs(cor - exact) / exact))

    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4.5), layout="constrained")
    v = np.logspace(np.log10(0.02), np.log10(4), 200)
    for i, m in enumerate(MUS):
        sel = mu == m
        a.plot(v, -vibro.v_out_exact(v, m) / v, color="C%d" % i, lw=1,
               label="eq 6, mu = %g s/m" % m)
        a.plot(v_in[sel], cor[sel], "o", color="C%d" % i, ms=4, mfc="none")
        b.plot(m * v_in[sel], cor[sel], "o", color="C%d" % i, ms=4, mfc="none",
               label="simulated, mu = %g s/m" % m)
    x = np.logspace(-3.5, 1.3, 200)
    b.plot(x, -vibro.v_out_exact(x, 1.0) / x, "k-", lw=1, label="eq 6 root")
    a.plot([], [], "ko", mfc="none", ms=4, label="simulated (AM1, 441 kHz)")
    for ax in (a, b):
        ax.set_xscale("log")
        ax.set_ylabel("COR = -v_out / v_in")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize="small")
    a.set_xlabel("impact velocity v_in (%s)" % ev.attrs["units"]["v_in"])
    b.set_xlabel("mu v_in (1): the COR depends on this product alone")
    fig.suptitle("Hunt-Crossley restitution, %d impacts; largest deviation from eq 6: %.2g"
                 % (len(ev), worst))
    fig.savefig(args.output, dpi=100)
    print("%d impacts, largest relative deviation of the COR from eq 6: %.3g"
          % (len(ev), worst))
    print("%s: %.1f s" % (args.output, time.monotonic() - start))
    return 0 if worst < 0.01 else 1


if __name__ == "__main__":
    sys.exit(main())

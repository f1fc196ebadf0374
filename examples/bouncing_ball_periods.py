#!/usr/bin/env python3
"""A ball on a vertically shaken table: the bifurcation diagram against the
table's acceleration Gamma = A w^2 / g, coloured by the period vibro's
analysis finds, checked against the closed-form period-doubling boundary.

The system is the one of Holmes (J. Sound Vib. 84, 1982, 173-189) and of
Tufillaro, Abbott & Reilly, "An Experimental Approach to Nonlinear Dynamics
and Chaos" (1992), ch. 1 (www.drchaos.net/drchaos/Book/node23.html: as the
table's amplitude grows the period-one orbit doubles to period two, then
four, ..., to a chaotic orbit): a 10 g ball under gravity on a table at
10 Hz, A sin(w t).  The contact is the `flores` law with alpha = 1 and
e = 0.5: each impact is Hunt-Crossley with mu v_in = 8 (1 - e) / (5 e), so
its restitution r is one number whatever the impact speed (0.4704, the root
of X'' = -X (1 + mu v_in X') computed here with scipy), and the contact
tends to a rigid impact of restitution r as k grows.

For a rigid impact of restitution r, doc/analysis.md ("The bouncing ball's
period doubling") derives from the exact impact map (not the high-bounce
approximation):
  the period-1 orbit (one bounce per table period, at the relative impact
  speed g T / (1 + r)) exists for Gamma > Gamma_1 = pi (1 - r) / (1 + r);
  it is stable up to the period doubling at
  Gamma_2 = sqrt(Gamma_1^2 + (2 (1 + r^2) / (1 + r)^2)^2).
With r = 0.4704: Gamma_1 = 1.1314, Gamma_2 = 1.5988.

Each scene starts on the closed-form period-1 orbit of its Gamma (a zip
sweep of the table's amplitude and the ball's u0, v0); the section is the
ball's (u, v) once per table period after 10 s (60 points), classified
with the default period tolerance (doc/analysis.md, "Default tolerances"
and eq A2b).  The script
asserts, and exits 1 naming the difference when one fails:
  - every scene with Gamma_1 < Gamma < Gamma_2 - 0.02 is period 1, and its
    impact speed is g T / (1 + r) within w tau_c / 4 of it, relative
    (tau_c = pi sqrt(m / k), the contact's duration: the finite contact's
    error is first order in w tau_c);
  - every scene with Gamma_2 + 0.01 < Gamma < Gamma_2 + 0.1 is period 2;
  - the boundary where the period-2 orbit's split s (the difference of
    successive impact speeds) vanishes, from a straight-line fit of s^2
    against Gamma (s ~ sqrt(Gamma - Gamma_2) past a period doubling), is
    Gamma_2 within w tau_c / 4, relative.
The tolerance w tau_c / 4 is the finite contact's, measured with
--convergence at 40 steps a contact (doc/analysis.md): the fitted
boundary is off by -3.6e-3, -1.2e-3, -1.4e-4, -6.5e-5 of Gamma_2 at
k = 1e5 .. 1e8 N/m (w tau_c = 0.062 .. 0.002), the impact speed by
-1.5e-3 .. -2.5e-4.

    PYTHONPATH=python examples/bouncing_ball_periods.py -o ball-periods.png [--quick]
    PYTHONPATH=python examples/bouncing_ball_periods.py --convergence
    PYTHONPATH=python examples/bouncing_ball_periods.py --lyapunov

--lyapunov compares the Lyapunov twin on the period-1 orbit at Gamma = 1.4
with the rigid model's exponent, ln(r) / T = -7.54 1/s (the multipliers of
the impact map are complex there, of modulus r): a twin closer than the
section's scatter measures the discrete contact's jitter (+19.6 1/s at 40
steps a contact and perturbation 1e-7), one of 3e-3 of the state the orbit
(-5.6 at 40 steps, -6.8 at 80; doc/analysis.md).

The saved study (--dir) plots with
    vibro-plot bifurcation DIR/ball-periods.h5 --param bodies.table.drive.amplitude \\
        --value v_in --color-by period --last 32
"""

import argparse
import math
import os
import sys
import tempfile
import time

import numpy as np

import vibro

G = 9.81                  # gravity, m/s^2
FREQ = 10.0               # the table's frequency, Hz
MASS = 0.01               # the ball, kg
E = 0.5                   # the flores law's e
AMP = "bodies.table.drive.amplitude"
# Section points (table periods) a scene keeps after its transient, and the transient (s)
POINTS, TRANSIENT = 60, 10.0
# Gamma of the fit of the period-2 split (just past Gamma_2 = 1.5988)
FIT = [1.61, 1.62, 1.63, 1.64, 1.65, 1.66]


def restitution(e):
    """The restitution of the flores law with alpha = 1 against a rigid
    wall: X'' = -X (1 + lam X'), X(0) = 0, X'(0) = 1 (time in sqrt(m/k),
    length in v_in sqrt(m/k)), lam = mu v_in = 8 (1 - e) / (5 e); r = -X'
    when X returns to 0."""
    from scipy.integrate import solve_ivp
    lam = 8.0 * (1.0 - e) / (5.0 * e)

    def back(t, y):
        return y[0]
    back.terminal, back.direction = True, -1
    s = solve_ivp(lambda t, y: [y[1], -y[0] * (1.0 + lam * y[1])], [0.0, 10.0], [0.0, 1.0],
                  events=back, rtol=1e-12, atol=1e-14, first_step=1e-6)
    return -float(s.y_events[0][0][1])


def boundaries(r):
    """Gamma_1 (the period-1 orbit exists above) and Gamma_2 (its period
    doubling) for a rigid impact of restitution r (doc/analysis.md B3, B5)."""
    g1 = math.pi * (1.0 - r) / (1.0 + r)
    return g1, math.hypot(g1, 2.0 * (1.0 + r * r) / (1.0 + r) ** 2)


def orbit(gamma, r):
    """The table's amplitude (m) and the ball's (u, v) at t = 0 on the
    closed-form period-1 orbit (B1-B3): the ball leaves the table at the
    phase phi (cos phi = Gamma_1 / Gamma, sin phi > 0) at g T / 2."""
    w, T = 2.0 * math.pi * FREQ, 1.0 / FREQ
    a = gamma * G / w ** 2
    phi = math.acos(boundaries(r)[0] / gamma)
    v, tau = G * T / 2.0, (2.0 * math.pi - phi) / w
    return a, a * math.sin(phi) + v * tau - G * tau ** 2 / 2.0, v - G * tau


def study_text(gammas, r, k, fs):
    """The zip study over Gamma: each scene on its own period-1 orbit."""
    cols = list(zip(*[orbit(g, r) for g in gammas]))
    vals = ["[%s]" % ", ".join(repr(float(x)) for x in c) for c in cols]
    duration = TRANSIENT + POINTS / FREQ
    return """
scene = { name = "ball-on-table"; fs = %r; duration = %r; gravity = %r; };
bodies = (
  { name = "table"; type = "wall"; position = 0.0;
    drive = { type = "sine"; amplitude = 1.0e-3; freq = %r; phase = 0.0; }; },
  { name = "ball"; type = "mass"; mass = %r; u0 = 0.01; v0 = 0.0; }
);
contacts = (
  { name = "bounce"; between = ["table", "ball"];
    law = "flores"; k = %r; alpha = 1.0; e = %r; scheme = "am1"; }
);
record = { every = 1000; };
analysis = {
  section = { drive = "bodies.table.drive"; transient_time = %r; points = ["ball"]; };
  impact_map = { contact = "bounce"; };
  period = { max = 16; };
};
sweep = { mode = "zip"; params = (
  { path = "%s"; values = %s; },
  { path = "bodies.ball.u0"; values = %s; },
  { path = "bodies.ball.v0"; values = %s; } ); };
""" % (fs, duration, G, FREQ, MASS, k, E, TRANSIENT, AMP, vals[0], vals[1], vals[2])


def contact_time(k):
    """The contact's duration pi sqrt(m / k), s."""
    return math.pi * math.sqrt(MASS / k)


def run(gammas, r, k, fs, where, name):
    st = vibro.run(study_text(gammas, r, k, fs), os.path.join(where, name), progress=False)
    table = st.orbits().copy()
    table["gamma"] = table[AMP] * (2 * math.pi * FREQ) ** 2 / G
    im = st.impact_map("bounce")
    last = im.groupby("scene").tail(16)
    # the relative impact speed's mean and the mean difference of successive impacts
    table["v_in"] = last.groupby("scene")["v_in"].mean()
    table["split"] = last.groupby("scene")["v_in"].apply(lambda v: np.abs(np.diff(v)).mean())
    return st, table


def fitted_boundary(table):
    """Where the straight line through (Gamma, split^2) of the period-2
    scenes crosses 0."""
    t = table[table["label"] == "period 2"]
    if len(t) < 3:
        return float("nan")
    p = np.polyfit(t["gamma"], t["split"] ** 2, 1)
    return -p[1] / p[0]


def check(table, r, k):
    """The failed checks, as lines."""
    g1, g2 = boundaries(r)
    wtc = 2 * math.pi * FREQ * contact_time(k)
    vin = G / FREQ / (1 + r)
    bad = []
    for _, row in table.iterrows():
        gam, lab = row["gamma"], row["label"]
        if g1 < gam < g2 - 0.02:
            if lab != "period 1":
                bad.append("Gamma %.4f: %s, expected period 1" % (gam, lab))
            elif not abs(row["v_in"] - vin) <= wtc / 4 * vin:
                bad.append("Gamma %.4f: impact speed %.5f m/s, closed form %.5f (allowed %.2g)"
                           % (gam, row["v_in"], vin, wtc / 4 * vin))
        elif g2 + 0.01 < gam < g2 + 0.1 and lab != "period 2":
            bad.append("Gamma %.4f: %s, expected period 2" % (gam, lab))
    b = fitted_boundary(table)
    if not abs(b - g2) <= wtc / 4 * g2:
        bad.append("period doubling at Gamma %.5f, closed form %.5f (allowed %.2g)"
                   % (b, g2, wtc / 4 * g2))
    return b, bad


def figure(st, table, r, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from vibro._figures import bifurcation_data, draw_classes
    g1, g2 = boundaries(r)
    scale = (2 * math.pi * FREQ) ** 2 / G
    fig, axes = plt.subplots(2, 1, figsize=(8, 8), sharex=True, layout="constrained")
    for ax, value in zip(axes, ["v_in", "u"]):
        d = bifurcation_data(st, AMP, value=value, last=32)
        draw_classes(ax, d["x"].to_numpy() * scale, d["y"].to_numpy(), d["label"].to_numpy())
        for g, text in [(g1, "Gamma_1 (period 1 exists)"), (g2, "Gamma_2 (period doubling)")]:
            ax.axvline(g, color="0.5", lw=0.8, ls="--")
            if value == "v_in":
                ax.annotate(text, (g, 1.0), xycoords=("data", "axes fraction"),
                            ha="center", va="bottom", fontsize="small")
        ax.set_ylabel({"v_in": "impact velocity v_in (m/s)",
                       "u": "ball's height u at phase 0 (m)"}[value])
        ax.grid(True, alpha=0.3)
    axes[1].set_xlabel("table acceleration Gamma = A w^2 / g")
    fig.suptitle("Ball on a shaken table, %g Hz, restitution %.4f: %d scenes, the last 32 "
                 "table periods of each" % (FREQ, r, len(table)), fontsize="medium")
    fig.savefig(path, dpi=100)


def convergence(r, where):
    """The fitted boundary and the period-1 impact speed against k, at about
    40 steps per contact."""
    g2 = boundaries(r)[1]
    vin = G / FREQ / (1 + r)
    print("k (N/m)  fs (Hz)  w tau_c  Gamma_2 fitted  rel. error  v_in(1.4) rel. error")
    for k in [1e5, 1e6, 1e7, 1e8]:
        fs = FREQ * round(40 / contact_time(k) / FREQ)
        _, t = run([1.4] + FIT, r, k, fs, where, "conv-%g.h5" % k)
        b = fitted_boundary(t)
        print("%-8.0e %-8.4g %-8.4f %-15.5f %-+11.2e %+.2e"
              % (k, fs, 2 * math.pi * FREQ * contact_time(k), b, b / g2 - 1,
                 t["v_in"].iloc[0] / vin - 1))


def lyapunov(r, where):
    """The twin's exponent on the period-1 orbit at Gamma = 1.4 over the
    perturbation, at 40 and 80 steps a contact, against the rigid model's
    ln(r) / T (doc/analysis.md, "A closed form through impacts")."""
    perts = [1e-7, 1e-5, 1e-4, 1e-3, 3e-3]
    print("rigid model: ln(r) / T = %.3f 1/s" % (math.log(r) * FREQ))
    print("steps a contact  " + "  ".join("%-15g" % p for p in perts))
    for n in [40, 80]:
        fs = FREQ * round(n / contact_time(1e6) / FREQ)
        text = study_text([1.4] * len(perts), r, 1e6, fs).replace(
            "analysis = {", "analysis = {\n  lyapunov = { perturbation = 1e-7; };").replace(
            'sweep = { mode = "zip"; params = (',
            'sweep = { mode = "zip"; params = (\n  { path = "analysis.lyapunov.perturbation"; '
            'values = [%s]; },' % ", ".join(repr(p) for p in perts))
        o = vibro.run(text, os.path.join(where, "lyapunov-%d.h5" % n), progress=False).orbits()
        print("%-16d " % n + "  ".join("%+7.2f (%+6.2f)" % (a, b) for a, b in
                                       zip(o["lyapunov"], o["lyapunov_second_half"])))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-o", "--output", default="ball-periods.png", help="figure file")
    p.add_argument("--quick", action="store_true",
                   default=os.environ.get("VIBRO_QUICK", "") not in ("", "0"),
                   help="only the checked Gamma (make check; also VIBRO_QUICK=1)")
    p.add_argument("--convergence", action="store_true",
                   help="the boundary against the contact's stiffness (no figure)")
    p.add_argument("--lyapunov", action="store_true",
                   help="the twin's exponent at Gamma = 1.4 against ln(r) / T (no figure)")
    p.add_argument("--dir", help="where the .h5 files go (default: a temporary directory)")
    p.add_argument("-k", type=float, default=1e6, help="the contact's stiffness, N/m")
    args = p.parse_args(argv)
    start = time.monotonic()
    where = args.dir or tempfile.mkdtemp(prefix="vibro-ball-")
    r = restitution(E)
    g1, g2 = boundaries(r)
    print("restitution %.5f: Gamma_1 %.5f, Gamma_2 %.5f, impact speed %.5f m/s"
          % (r, g1, g2, G / FREQ / (1 + r)))
    if args.convergence:
        convergence(r, where)
        return 0
    if args.lyapunov:
        lyapunov(r, where)
        return 0
    gammas = ([1.2, 1.4, 1.55] + FIT) if args.quick else \
        sorted(set(np.round(np.linspace(1.15, 2.0, 35), 4)) | set(FIT))
    fs = FREQ * round(64 / contact_time(args.k) / FREQ)
    st, table = run(gammas, r, args.k, fs, where, "ball-periods.h5")
    b, bad = check(table, r, args.k)
    figure(st, table, r, args.output)
    print(", ".join("%.4g %s" % (g, lab) for g, lab in zip(table["gamma"], table["label"])))
    print("period doubling at Gamma %.5f (closed form %.5f); %s: %.1f s"
          % (b, g2, args.output, time.monotonic() - start))
    for line in bad:
        print("MISMATCH " + line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

"""elasto_ref.py - an independent reference for vibro's elasto-plastic
friction law (issue 30, step 4; lib/base/friction_law.c): the single-state
elasto-plastic bristle model of Dupont, Hayward, Armstrong & Altpeter (IEEE
TAC 47(5), 2002) as Avanzini, Serafin & Rocchesso use it (IEEE TSAP 13(5),
2005), written here again from the papers' formulas and integrated with
scipy (solve_ivp, DOP853, rtol 1e-12), never from vibro's output, and
compared with vibro's runs of the same scenes at four sample rates.

Model, every force per newton of the normal force N (doc/friction.md):
  ft    = -N (sigma0 z + sigma1 z' + sigma2 s)        on the block along +w
  z'    = s (1 - alpha(z, s) z / z_ss(s))
  z_ss(s) = sgn(s) (mu_k + (mu_s - mu_k) exp(-(s/v_s)^2)) / sigma0
  alpha = 0 if sgn(z) != sgn(s) or |z| <= z_ba |z_ss|, 1 if |z| >= |z_ss|,
          (1 + sin(pi (|z| - (|z_ss| + z_ba |z_ss|)/2) / (|z_ss| - z_ba |z_ss|)))/2 between
with s = w' - W'(t) the slip of the block (w, mass m, spring kw and damper cw
to ground along w) on a wall moving along w as W(t):
  m w'' = -kw w - cw w' + ft.
Cases:
  squeak   a belt at 0.1 m/s under a block pressed with 1.5 N (stick-slip:
           presliding, breakaway, slip, re-stick); 0.25 s;
  swing    a wall swinging as 3 mm sin(2 pi 5.3 t) under a block pressed
           with N(t) = 1.5 + 0.4 sin(2 pi 3.1 t + 0.2) N (normal_force_drive,
           held at each step's middle, as vibro holds it); 0.3 s.
Both start with the block moving with the wall (no slip): a block started
at rest under a moving wall drags its bristle to z_ss within z_ss / |s|
(35 us at 0.1 m/s), a boundary layer no step here resolves.
Measured at 11.025, 22.05, 44.1 and 88.2 kHz: the largest |w - w_ref|,
|z - z_ref| at the samples and |ft - ft_ref| against the reference's mean
force over each step (vibro's ft is the force held over the step into the
sample; 3-point Gauss-Legendre of the reference),
each with its observed order (least squares); the energy balance
(total + dissipated - external) to round-off and the friction work never
falling.  Usage: elasto_ref.py VIBRO TMPDIR; exits 1 with what it measured
when a check fails."""
import subprocess, sys
import numpy as np
import h5py
from scipy.integrate import solve_ivp

vibro, tmp = sys.argv[1], sys.argv[2]
m, kw, cw = 0.1, 4000.0, 0.05
law = dict(mu_s=0.8, mu_k=0.35, v_s=0.0213, sigma0=1.0e5, sigma1=2.3, sigma2=0.04, z_ba=0.7)
group = ('law = "elasto-plastic"; mu_s = %(mu_s)r; mu_k = %(mu_k)r; v_s = %(v_s)r; '
         'sigma0 = %(sigma0)r; sigma1 = %(sigma1)r; sigma2 = %(sigma2)r; z_ba = %(z_ba)r;' % law)

def zss(s):
    """|z_ss(s)|, m (Dupont et al. 2002, with f_c = mu_k N, f_s = mu_s N)."""
    return (law["mu_k"] + (law["mu_s"] - law["mu_k"]) * np.exp(-(s / law["v_s"]) ** 2)) / law["sigma0"]

def alpha(z, s):
    if s == 0.0 or z == 0.0 or (z > 0) != (s > 0):
        return 0.0
    zs = zss(s)
    zb = law["z_ba"] * zs
    az = abs(z)
    if az <= zb:
        return 0.0
    if az >= zs:
        return 1.0
    return 0.5 * (1.0 + np.sin(np.pi * (az - 0.5 * (zs + zb)) / (zs - zb)))

def zdot(z, s):
    return s * (1.0 - alpha(z, s) * z / (np.sign(s) * zss(s))) if s != 0.0 else 0.0

cases = {
    "squeak": dict(T=0.25, wall='w_drive = { type = "velocity"; v = 0.1; };',
                   W=lambda t: 0.1 * t, Wd=lambda t: 0.1 + 0 * t, vw0=0.1,
                   normal="normal_force = 1.5;", N=lambda t: 1.5 + 0 * t),
    "swing": dict(T=0.3, wall='w_drive = { type = "sine"; amplitude = 0.003; freq = 5.3; };',
                  W=lambda t: 0.003 * np.sin(2 * np.pi * 5.3 * t),
                  Wd=lambda t: 0.003 * 2 * np.pi * 5.3 * np.cos(2 * np.pi * 5.3 * t),
                  vw0=0.003 * 2 * np.pi * 5.3,
                  normal='normal_force = 1.5; normal_force_drive = { type = "sine"; '
                         'amplitude = 0.4; freq = 3.1; phase = 0.2; };',
                  N=lambda t: 1.5 + 0.4 * np.sin(2 * np.pi * 3.1 * t + 0.2)),
}

def reference(c):
    def rhs(t, y):
        w, v, z = y
        s = v - c["Wd"](t)
        zd = zdot(z, s)
        ft = -c["N"](t) * (law["sigma0"] * z + law["sigma1"] * zd + law["sigma2"] * s)
        return [v, (-kw * w - cw * v + ft) / m, zd]
    sol = solve_ivp(rhs, (0.0, c["T"]), [0.0, c["vw0"], 0.0], method="DOP853", rtol=1e-12,
                    atol=1e-16, dense_output=True, first_step=1e-8, max_step=2e-5)
    def ft(t):
        y = sol.sol(t)
        out = np.empty_like(t)
        for k, tk in enumerate(t):
            s = y[1, k] - c["Wd"](tk)
            zd = zdot(y[2, k], s)
            out[k] = -c["N"](tk) * (law["sigma0"] * y[2, k] + law["sigma1"] * zd + law["sigma2"] * s)
        return out
    return sol.sol, ft

scene = """scene = { name = "elasto"; fs = %g; duration = %g; };
bodies = (
  { name = "plate"; type = "wall"; %s },
  { name = "block"; type = "mass"; mass = 0.1; w0 = 0.0; vw0 = %r; kw = 4000.0; cw = 0.05; } );
contacts = ( { name = "rub"; between = ["plate", "block"]; %s
  scheme = "two-point"; friction = { %s }; } );
"""
rates = (11025.0, 22050.0, 44100.0, 88200.0)
fails = []
for name, c in cases.items():
    sol, ftref = reference(c)
    ew, ez, ef = [], [], []
    for fs in rates:
        cfg = "%s/ep-%s-%d.cfg" % (tmp, name, fs)
        open(cfg, "w").write(scene % (fs, c["T"], c["wall"], c["vw0"], c["normal"], group))
        subprocess.run([vibro, "run", cfg, "-o", cfg + ".h5", "--quiet"], check=True)
        f = h5py.File(cfg + ".h5", "r")
        g = f["signals"]
        t = g["time"][()]
        w, z = g["bodies.block.w"][0], g["contacts.rub.bristle"][0]
        ft, slip = g["contacts.rub.ft"][0], g["contacts.rub.slip"][0]
        work = g["contacts.rub.friction_work"][0]
        tot, dis, ext = (g["energy." + k][0] for k in ("total", "dissipated", "external"))
        f.close()
        y = sol(t)
        ew.append(np.abs(w - y[0]).max())
        ez.append(np.abs(z - y[2]).max())
        # the reference's mean force over each step (3-point Gauss-Legendre)
        gx, gw = np.polynomial.legendre.leggauss(3)
        mean = sum(0.5 * wk * ftref(t[1:] - 0.5 / fs + 0.5 * xk / fs) for xk, wk in zip(gx, gw))
        ef.append(np.abs(ft[1:] - mean).max())
        bal = tot + dis - ext
        drift = np.abs(bal - bal[0]).max()
        scale = max(np.abs(tot).max(), np.abs(dis).max(), np.abs(ext).max())
        dwork = np.diff(work).min()
        # phases of the reference run: presliding (alpha = 0) and sliding
        zs = zss(slip[1:])
        beyond = (np.abs(z[1:]) > law["z_ba"] * zs).mean()
        print("%-6s fs %6.0f: max |w - w_ref| %.3e m (of %.3e), |z - z_ref| %.3e m (of %.3e), "
              "|ft - ft_ref| %.3e N (of %.3f); balance %.2e J of %.3e J; friction work per step "
              ">= %.2e J; %.0f%% of the samples beyond z_ba"
              % (name, fs, ew[-1], np.abs(y[0]).max(), ez[-1], np.abs(y[2]).max(), ef[-1],
                 np.abs(ft).max(), drift, scale, dwork, 100 * beyond))
        if not drift <= 4e-13 * scale:
            fails.append("%s fs %g: balance %.3g J" % (name, fs, drift))
        if not dwork >= -1e-15 * scale:
            fails.append("%s fs %g: a step's friction work %.3g J" % (name, fs, dwork))
        if not np.isfinite(ft).all():
            fails.append("%s fs %g: ft not finite" % (name, fs))
    lh = np.log(1.0 / np.array(rates))
    for what, errs, scale in (("w", ew, 1e-3), ("z", ez, 1e-3), ("ft", ef, 1e-3)):
        order = np.polyfit(lh, np.log(np.array(errs)), 1)[0]
        print("%-6s observed order of max |%s - %s_ref| over %g to %g Hz: %.2f (errors %s)"
              % (name, what, what, rates[0], rates[-1], order, ", ".join("%.2e" % x for x in errs)))
        if order < 1.8:
            fails.append("%s: %s order %.2f" % (name, what, order))
if fails:
    print("FAIL: " + "; ".join(fails))
    sys.exit(1)

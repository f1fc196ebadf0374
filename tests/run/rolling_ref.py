"""rolling_ref.py - a ball that slides, then rolls, across a modal body: the
point following the ball's own w (track = { ...; follow = "w"; }) with
friction at it and the ball's spin (issue 30, items 5 and 7; moving.c,
"friction at the following point").  Each reference is written here from the
physics, never from vibro's output.  The body is the string preset of
moving_ref.py (modes sin(n pi x / L), modal mass rho L / 2, gravity's
participation 4 / (n pi) on odd modes; 23 track points, the shapes linear
between them); the ball (mass m, radius r, inertia I) is contact b, so its
slip is s = w' + r theta' (vibro.h's vb_body) and it rolls with theta' =
-w' / r.

(a) Coulomb (mu_s 0.4, mu_k 0.3) on a stiff, heavy string (1e7 N, 10 kg/m:
    sag 1e-8 m under the ball), the ball launched sliding at v0 without
    spin, against the rigid-surface closed form: the slip falls at mu_k g (1
    + m r^2 / I) and the ball rolls from t* = v0 / (mu_k g (1 + m r^2 / I))
    (= 2 v0 / (7 mu_k g) for a solid sphere) at v_roll = v0 / (1 + I / (m
    r^2)) (5 v0 / 7), spin -v_roll / r, the friction work m v0^2 / 2 (1 -
    1 / (1 + I / (m r^2))) (m v0^2 / 7).  Solid and hollow spheres at four
    rates: the onset within a step (its error's order measured), v_roll and
    the work to a tolerance, rolling kept to the end (slip 0, stick 1), the
    balance E + dissipated - external to round-off at every step.
(b) The exponential law (Desvages & Bilbao 2016; smooth: ft = -N sqrt(2a) s
    exp(1/2 - a s^2), no stick set) on the slack string of moving_ref.py's
    follow case (15 N, the ball in its static dent, the string's slope
    pushing it), against scipy's DOP853 of
      M q_j'' = -M w_j^2 q_j - g M gr_j - phi_j(p) f,   m u'' = -m g + f,
      m w'' = -f phi'(p) . q + ft,   I theta'' = r ft,
      f = k [x]^1.5, x = phi(p) . q - u, p = p0 + w, ft = -f phi_exp(w' + r theta'),
    between the track's points (phi' jumps there): the rms error of u, w,
    theta' and a string point at four rates (order 2), the balance per step
    to round-off, the friction work never negative.
(c) mu = 0 (Coulomb mu_s = mu_k = 0) with a spin spin0: the spin stays
    spin0 and the ball's u, w, vw and the string's points are those of the
    same scene without spin and friction, bit for bit.
And the loader's refusals of what is still not done there.
Usage: rolling_ref.py VIBRO TMPDIR; exits 1 with what it measured when a
check fails."""
import subprocess, sys
import numpy as np
import h5py
from scipy.integrate import solve_ivp

vibro, tmp = sys.argv[1], sys.argv[2]
fails = []
L, N, g, r = 0.65, 8, 9.81, 0.01
xs = np.linspace(0.05, 0.60, 23)
n = np.arange(1, N + 1)
gr = np.where(n % 2 == 1, 4.0 / (n * np.pi), 0.0)
shp = np.sin(np.outer(xs, n) * np.pi / L)  # [point][mode]
RATES = (11025.0, 22050.0, 44100.0, 88200.0)


def phi(p):
    p = min(max(p, xs[0]), xs[-1])
    i = min(np.searchsorted(xs, p, side="right") - 1, len(xs) - 2)
    lam = (p - xs[i]) / (xs[i + 1] - xs[i])
    return (1 - lam) * shp[i] + lam * shp[i + 1]


def dphi(p):
    if p < xs[0] or p > xs[-1]:
        return np.zeros(N)
    i = min(np.searchsorted(xs, p, side="right") - 1, len(xs) - 2)
    return (shp[i + 1] - shp[i]) / (xs[i + 1] - xs[i])


def equilibrium(T, rho, mb, p0, k, alpha):
    """The string's modes and the ball's u at rest, the ball in its dent."""
    M, wf = rho * L / 2, n * np.pi * np.sqrt(T / rho) / L
    ph0 = phi(p0)
    qs = -(g * gr + ph0 * mb * g / M) / wf ** 2
    return qs, ph0 @ qs - (mb * g / k) ** (1 / alpha)


pts = ",\n    ".join('{ name = "p%d"; x = %.17g; }' % (i, x) for i, x in enumerate(xs))
names = ", ".join('"string.p%d"' % i for i in range(len(xs)))


def scene(fs, Tend, T, rho, mb, p0, vw0, k, alpha, qs, us, ball="", friction="", law=""):
    return """scene = { name = "roll"; fs = %.17g; duration = %.17g; gravity = 9.81; };
bodies = (
  { name = "string"; type = "modal";
    preset = { kind = "string"; nmodes = 8; length = 0.65; tension = %.17g; linear_density = %.17g; };
    q0 = [%s];
    points = ( %s ); },
  { name = "ball"; type = "mass"; mass = %.17g; u0 = %.17g; v0 = 0.0; w0 = 0.0; vw0 = %.17g;%s } );
contacts = (
  { name = "roll"; between = ["string.p0", "ball"]; law = "power"; k = %.17g; alpha = %.17g;%s
    scheme = "two-point"; track = { points = [%s]; follow = "w"; start = %.17g; };%s } );
""" % (fs, Tend, T, rho, ", ".join("%.17g" % v for v in qs), pts, mb, us, vw0, ball, k, alpha,
       law, names, p0, friction)


def run(text, name):
    cfg = "%s/%s.cfg" % (tmp, name)
    open(cfg, "w").write(text)
    p = subprocess.run([vibro, "run", cfg, "-o", cfg + ".h5", "--quiet"], capture_output=True,
                       text=True)
    if p.returncode != 0:
        fails.append("%s: rc %d, %s" % (name, p.returncode, p.stderr.strip()[-300:]))
        return None
    return h5py.File(cfg + ".h5", "r")["signals"]


def balance(sg, what):
    E = sg["energy.total"][0]
    bal = E + sg["energy.dissipated"][0] - sg["energy.external"][0]
    emax = np.abs(E).max()
    step = np.abs(np.diff(bal)).max()
    if np.ptp(bal) > 1e-12 * emax or step > 16 * 2.2e-16 * emax:
        fails.append("%s: balance %.3g J, a step %.3g J of %.3g J" % (what, np.ptp(bal), step, emax))
    return np.ptp(bal), step, emax


# ---- (a) the closed form on a stiff, heavy string
def closed_form():
    T, rho, mb, p0, v0, k, mu_s, mu_k, Tend = 1.0e7, 10.0, 0.05, 0.2, 0.2, 1.0e7, 0.4, 0.3, 0.05
    qs, us = equilibrium(T, rho, mb, p0, k, 1.0)
    fr = ' friction = { law = "coulomb"; mu_s = %g; mu_k = %g; };' % (mu_s, mu_k)
    for shape, frac in (("solid", 0.4), ("hollow", 2.0 / 3.0)):
        I = frac * mb * r * r
        ts = v0 / (mu_k * g * (1 + mb * r * r / I))
        vr = v0 / (1 + I / (mb * r * r))
        work = 0.5 * mb * v0 ** 2 * (1 - 1 / (1 + I / (mb * r * r)))
        # rates that put t* at the middle of a step, (K + 1/2) h with K =
        # 200, 400, 800, 1600 (10 to 82 kHz): the first step to stick then
        # starts at K h, half a step before t* at every rate (below)
        terr, verr = [], []
        for K in (200, 400, 800, 1600):
            fs = (K + 0.5) / ts
            h = 1 / fs
            sg = run(scene(fs, Tend, T, rho, mb, p0, v0, k, 1.0, qs, us,
                           ball=" radius = %.17g; inertia = %.17g; spin0 = 0.0;" % (r, I), friction=fr),
                     "closed-%s-%d" % (shape, K))
            if sg is None:
                return
            t = sg["time"][()]
            vw, sp, sl = sg["bodies.ball.vw"][0], sg["bodies.ball.spin"][0], sg["contacts.roll.slip"][0]
            stick, W = sg["contacts.roll.stick"][0], sg["contacts.roll.friction_work"][0]
            # the first step that sticks, from t[on - 1] to t[on] (a
            # sample's stick and slip are its step's)
            on = np.argmax(stick > 0)
            t_on = t[on - 1]
            # the mean slips of the steps before it, each its step's middle
            # slip, on a line whose zero is t* (the rate aside: N's ripple)
            sel = slice(1, on)
            fit = np.polyfit(t[sel] - 0.5 * h, sl[sel], 1)
            t_fit = -fit[1] / fit[0]
            # rolling kept from the onset to the end
            rolled = (stick[on:] > 0).all()
            after = slice(on + 1, None)
            v_roll = vw[after].mean()
            terr.append(t_on - ts)
            verr.append(np.abs(vw[after] - vr).max())
            pb, st, em = balance(sg, "closed %s fs %g" % (shape, fs))
            print("closed form, %s sphere, fs %6.0f: rolls from the step at %.6f s (closed form %.6f, "
                  "error %.2e s = %.2f steps; the slips' line crosses 0 at %+.1e s from it) at %.7f m/s (closed form %.7f, largest error after %.1e m/s), spin "
                  "%.4f rad/s (%.4f), node slip after %.1e m/s, friction work %.6e J (%.6e), "
                  "balance %.1e J (a step %.1e) of %.1e J"
                  % (shape, fs, t_on, ts, t_on - ts, (t_on - ts) * fs, t_fit - ts, v_roll, vr, verr[-1],
                     sp[after].mean(), -vr / r, np.abs(sl[after]).max(), W[-1], work, pb, st, em))
            # the first step to stick is the first whose free mean slip the
            # static cone holds: the slip at its start s_n <= mu_s N kv h / 2
            # (its stick force 2 s_n / (h kv)), the slip falling at mu_k N kv,
            # so it starts within [-mu_s / (2 mu_k), 1 - mu_s / (2 mu_k)) steps
            # of t*, [-2/3, 1/3): at K h = t* - h / 2 here, an error of -h / 2
            # (order 1; to 1 % of a step, N's ripple aside); the slips' line
            # meets t* to the string's sag (2e-5 of t*)
            if not (rolled and abs((t_on - ts) / h + 0.5) < 0.01 and abs(t_fit - ts) < 2e-5 * ts):
                fails.append("closed %s fs %g: onset %.6g (closed %.6g), kept %s" % (shape, fs, t_on, ts, rolled))
            # friction's impulse changes m w' and (I / r) theta' by the same,
            # so m w' - (I / r) theta' stays m v0 whatever the step: v_roll
            # to the string's sag (measured 1e-6 relative), not the rate
            if verr[-1] > 2e-5 * vr or abs(W[-1] - work) > 1e-4 * work or np.abs(sl[after]).max() > 1e-9 * v0:
                fails.append("closed %s fs %g: v_roll error %.3g, work %.6g (%.6g)" % (shape, fs, verr[-1], W[-1], work))
        orders = [np.log2(terr[i] / terr[i + 1]) for i in range(len(terr) - 1)]
        print("closed form, %s sphere: onset errors %s s, observed orders %s"
              % (shape, " ".join("%.3e" % e for e in terr), " ".join("%.3f" % o for o in orders)))
        if min(orders) < 0.98 or max(orders) > 1.02:
            fails.append("closed %s: onset orders %s" % (shape, orders))


# ---- (b) the exponential law on the slack string, against DOP853
T_S, RHO_S, MB, P0, VW0, K_S, A_EXP = 15.0, 1.0e-3, 0.05, 0.1, -0.1, 1.0e6, 100.0
I_S = 0.4 * MB * r * r
QS, US = equilibrium(T_S, RHO_S, MB, P0, K_S, 1.5)


def smooth():
    M, wf = RHO_S * L / 2, n * np.pi * np.sqrt(T_S / RHO_S) / L
    Tend, spin0 = 0.4, 0.0

    def law(s):
        return np.sqrt(2 * A_EXP) * s * np.exp(0.5 - A_EXP * s * s)

    def frhs(t, y):
        q, u, ww, vw, om = y[:N], y[2 * N], y[2 * N + 2], y[2 * N + 3], y[2 * N + 5]
        p = P0 + ww
        ph = phi(p)
        x = ph @ q - u
        f = K_S * x ** 1.5 if x > 0 else 0.0
        ft = -f * law(vw + r * om)
        return np.concatenate([y[N:2 * N], -wf * wf * q - g * gr - ph * f / M,
                               [y[2 * N + 1], -g + f / MB, vw, (-f * (dphi(p) @ q) + ft) / MB,
                                om, r * ft / I_S]])

    y = np.concatenate([QS, np.zeros(N), [US, 0.0, 0.0, VW0, 0.0, spin0]])

    def crossing(a):
        ev = lambda t, y: P0 + y[2 * N + 2] - a
        ev.terminal = True
        return ev
    pieces, t = [], 0.0
    while t < Tend:
        evs = [crossing(a) for a in xs[1:-1] if abs(P0 + y[2 * N + 2] - a) > 1e-12]
        sol = solve_ivp(frhs, (t, Tend + 1e-3), y, method="DOP853", rtol=1e-11, atol=1e-15,
                        dense_output=True, max_step=1e-3, events=evs)
        pieces.append((t, sol.t[-1], sol.sol))
        t, y = sol.t[-1], sol.y[:, -1]
        if sol.status == 0:
            break

    def ref(tt):
        out = np.full((2 * N + 6, len(tt)), np.nan)
        for a, b, sl in pieces:
            sel = (tt >= a) & (tt <= b)
            if sel.any():
                out[:, sel] = sl(tt[sel])
        return out
    errs, oerrs = [], []
    for fs in RATES:
        sg = run(scene(fs, Tend, T_S, RHO_S, MB, P0, VW0, K_S, 1.5, QS, US,
                       ball=" radius = %.17g; inertia = %.17g; spin0 = %.17g;" % (r, I_S, spin0),
                       friction=' friction = { law = "exponential"; a = %.17g; };' % A_EXP),
                 "smooth-%d" % fs)
        if sg is None:
            return
        tt = sg["time"][()]
        R = ref(tt)
        ub, wb, sp = sg["bodies.ball.u"][0], sg["bodies.ball.w"][0], sg["bodies.ball.spin"][0]
        up = sg["bodies.string.p10.u"][0]
        eu, ew, es = ub - R[2 * N], wb - R[2 * N + 2], up - shp[10] @ R[:N]
        errs.append(np.sqrt(np.mean(eu ** 2) + np.mean(ew ** 2) + np.mean(es ** 2)))
        oerrs.append(np.sqrt(np.mean((r * (sp - R[2 * N + 5])) ** 2)))
        sl, W = sg["contacts.roll.slip"][0], sg["contacts.roll.friction_work"][0]
        pb, st, em = balance(sg, "smooth fs %g" % fs)
        dW = np.diff(W)
        print("exponential law, fs %6.0f: rms error %.3e m (u %.2e, w %.2e, string %.2e), of r spin "
              "%.2e m/s, slip %.4f -> %.2e m/s, w %.5f m at the end (reference %.5f), friction work "
              "%.4e J (its smallest step %.1e J), balance %.1e J (a step %.1e) of %.1e J"
              % (fs, errs[-1], np.sqrt(np.mean(eu ** 2)), np.sqrt(np.mean(ew ** 2)),
                 np.sqrt(np.mean(es ** 2)), oerrs[-1],
                 sl[1], sl[-1], wb[-1], R[2 * N + 2][-1], W[-1], dW.min(), pb, st, em))
        if dW.min() < -1e-20 or not W[-1] > 0:
            fails.append("smooth fs %g: friction work step %.3g" % (fs, dW.min()))
    orders = [np.log2(errs[i] / errs[i + 1]) for i in range(len(errs) - 1)]
    orders += [np.log2(oerrs[i] / oerrs[i + 1]) for i in range(len(oerrs) - 1)]
    print("exponential law: observed orders of the rms error %s (u, w, string), %s (spin)"
          % (" ".join("%.2f" % o for o in orders[:3]), " ".join("%.2f" % o for o in orders[3:])))
    if min(orders) < 1.9 or max(orders) > 2.1:
        fails.append("smooth orders %s" % orders)


# ---- (c) mu = 0: the spin stays, the rest is the spinless scene's
def frictionless():
    base = scene(44100.0, 0.3, T_S, RHO_S, MB, P0, VW0, K_S, 1.5, QS, US)
    a = run(base, "mu0-none")
    b = run(scene(44100.0, 0.3, T_S, RHO_S, MB, P0, VW0, K_S, 1.5, QS, US,
                  ball=" radius = %.17g; inertia = %.17g; spin0 = 7.5;" % (r, I_S),
                  friction=' friction = { law = "coulomb"; mu_s = 0.0; };'), "mu0-spin")
    if a is None or b is None:
        return
    keys = ["bodies.ball.u", "bodies.ball.v", "bodies.ball.w", "bodies.ball.vw",
            "contacts.roll.force", "contacts.roll.compression"] + \
        ["bodies.string.p%d.u" % i for i in range(len(xs))]
    differ = [k for k in keys if not np.array_equal(a[k][()], b[k][()])]
    sp = b["bodies.ball.spin"][0]
    Ea, Eb = a["energy.total"][0], b["energy.total"][0]
    spin_e = 0.5 * I_S * 7.5 ** 2
    print("mu = 0: %d signals of %d differ bitwise from the spinless scene's%s; spin %.17g .. %.17g "
          "rad/s (spin0 7.5), total energy less the spin's %.1e J from the spinless run's (of %.1e J), "
          "friction work %g J" % (len(differ), len(keys), (" (" + ", ".join(differ) + ")") if differ else "",
                                  sp.min(), sp.max(), np.abs(Eb - spin_e - Ea).max(), np.abs(Ea).max(),
                                  b["contacts.roll.friction_work"][0][-1]))
    # the spin to round-off: 2 d / h - vw, d = h vw (a free rotor's
    # trapezoidal step), leaves an ulp or two of 7.5
    if differ or np.abs(sp - 7.5).max() > 4 * 2.2e-16 * 7.5 or np.abs(Eb - spin_e - Ea).max() > 1e-15 * np.abs(Eb).max():
        fails.append("mu = 0: differ %s, spin %.17g..%.17g" % (differ, sp.min(), sp.max()))
    balance(b, "mu = 0")


# ---- the loader's refusals
def refusals():
    ball = " radius = 0.01; inertia = 2e-6;"
    good = scene(44100.0, 0.1, T_S, RHO_S, MB, P0, VW0, K_S, 1.5, QS, US, ball=ball,
                 friction=' friction = { law = "coulomb"; mu_s = 0.3; };')
    bad = [
        (scene(44100.0, 0.1, T_S, RHO_S, MB, P0, VW0, K_S, 1.5, QS, US, ball=ball),
         "with a spin needs friction at the point: the spin turns only through it (valid: "),
        (good.replace('{ law = "coulomb"; mu_s = 0.3; }',
                      '{ law = "elasto-plastic"; mu_s = 0.3; mu_k = 0.2; v_s = 0.1; sigma0 = 1e4; '
                      'sigma1 = 1.0; z_ba = 0.5; }'),
         "friction law 'elasto-plastic' at a point following a mass's w is not done yet (valid: coulomb"),
        (good.replace('follow = "w"; start = %.17g;' % P0, 'drive = { type = "velocity"; v = 0.1; };'),
         "'friction' at a driven moving point is not done yet (valid: friction with track"),
        (good.replace('linear_density = 1e-3; };', 'linear_density = 1e-3; }; directions = ["u", "w"];')
         .replace("%.17g; };\n    q0" % RHO_S, "%.17g; }; directions = [\"u\", \"w\"];\n    q0" % RHO_S),
         "with modes along w is not done yet"),
    ]
    for i, (text, want) in enumerate(bad):
        cfg = "%s/rbad-%d.cfg" % (tmp, i)
        open(cfg, "w").write(text)
        p = subprocess.run([vibro, "run", cfg, "-o", cfg + ".h5", "--quiet"], capture_output=True,
                           text=True)
        # file:line: object 'x': what is wrong (valid: ...)
        if p.returncode == 0 or want not in p.stderr or ("rbad-%d.cfg:" % i) not in p.stderr \
                or "contact 'roll'" not in p.stderr:
            fails.append("refusal %d: rc %d, %r" % (i, p.returncode, p.stderr.strip()[:300]))
    print("%d refusals checked" % len(bad))


smooth()
frictionless()
refusals()
closed_form()
if fails:
    print("FAIL: " + "; ".join(fails))
    sys.exit(1)

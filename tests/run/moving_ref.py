"""moving_ref.py - an independent reference for vibro's moving contact point
(issue 30, item 5; doc/geometry.md): a 5 g ball pressed by gravity on an ideal
string (8 modes, lossless) whose contact point is driven along the string at
1 m/s, the point's shapes linear between 23 track points.  The model written
here from the physics (the string preset's modes sin(n pi x / L), modal mass
rho L / 2, gravity's participation 4 / (n pi) on odd modes) and integrated
with scipy's DOP853 (rtol 1e-12), never from vibro's output:

  M q_j'' = -M w_j^2 q_j - g M gr_j - phi_j(p(t)) f,   m u'' = -m g + f,
  the string at rest in its sag q_j = -g gr_j / w_j^2, the ball at rest at u = 0,
  f = k [x]^1.5,  x = sum_j phi_j(p(t)) q_j - u,  p(t) = 0.05 + t.

vibro's run at 11.025, 22.05, 44.1 and 88.2 kHz: the ball's and a string
point's displacement against the reference (observed order 2), and the
balance E + dissipated - external (the moving point's work is external) to
round-off.  Usage: moving_ref.py VIBRO TMPDIR; exits 1 with what it measured
when a check fails."""
import subprocess, sys
import numpy as np
import h5py
from scipy.integrate import solve_ivp

vibro, tmp = sys.argv[1], sys.argv[2]
fails = []
L, T, rho, N, m, g, k = 0.65, 60.0, 1.0e-3, 8, 0.005, 9.81, 1.0e6
xs = np.linspace(0.05, 0.60, 23)
n = np.arange(1, N + 1)
c = np.sqrt(T / rho)
w = n * np.pi * c / L
M = rho * L / 2
gr = np.where(n % 2 == 1, 4.0 / (n * np.pi), 0.0)
shp = np.sin(np.outer(xs, n) * np.pi / L)  # [point][mode]
x_pick = xs[10]
Tend = 0.3


def phi(p):
    p = min(max(p, xs[0]), xs[-1])
    i = min(np.searchsorted(xs, p, side="right") - 1, len(xs) - 2)
    lam = (p - xs[i]) / (xs[i + 1] - xs[i])
    return (1 - lam) * shp[i] + lam * shp[i + 1]


def rhs(t, y):
    q, dq, u, du = y[:N], y[N:2 * N], y[2 * N], y[2 * N + 1]
    ph = phi(0.05 + t)
    x = ph @ q - u
    f = k * x ** 1.5 if x > 0 else 0.0
    return np.concatenate([dq, -w * w * q - g * gr - ph * f / M, [du, -g + f / m]])


# the track's kinks (each point passed) as the integration's breakpoints
breaks = [0.0] + [x - 0.05 for x in xs[1:-1] if 0 < x - 0.05 < Tend + 1e-3] + [Tend + 1e-3]
y = np.zeros(2 * N + 2)
y[:N] = -g * gr / w ** 2  # a modal body starts at its static sag (doc/scene-file.md)
pieces = []
for a, b in zip(breaks[:-1], breaks[1:]):
    sol = solve_ivp(rhs, (a, b), y, method="DOP853", rtol=1e-12, atol=1e-16, dense_output=True,
                    max_step=5e-5)
    pieces.append((a, b, sol.sol))
    y = sol.y[:, -1]


def ref(t):
    out = np.full((2 * N + 2, len(t)), np.nan)
    for a, b, sol in pieces:
        sel = (t >= a) & (t <= b)
        if sel.any():
            out[:, sel] = sol(t[sel])
    return out


pts = ",\n    ".join('{ name = "p%d"; x = %.17g; }' % (i, x) for i, x in enumerate(xs))
names = ", ".join('"string.p%d"' % i for i in range(len(xs)))
scene = """scene = { name = "moving"; fs = %%g; duration = %g; gravity = 9.81; };
bodies = (
  { name = "string"; type = "modal";
    preset = { kind = "string"; nmodes = 8; length = 0.65; tension = 60.0; linear_density = 1.0e-3; };
    points = ( %s ); },
  { name = "ball"; type = "mass"; mass = 0.005; u0 = 0.0; v0 = 0.0; } );
contacts = (
  { name = "roll"; between = ["string.p0", "ball"]; law = "power"; k = 1.0e6; alpha = 1.5;
    scheme = "two-point"; track = { points = [%s]; drive = { type = "velocity"; v = 1.0; start = 0.05; }; }; } );
""" % (Tend, pts, names)
errs = []
for fs in (11025.0, 22050.0, 44100.0, 88200.0):
    cfg = "%s/moving-%d.cfg" % (tmp, fs)
    open(cfg, "w").write(scene % fs)
    subprocess.run([vibro, "run", cfg, "-o", cfg + ".h5", "--quiet"], check=True)
    f = h5py.File(cfg + ".h5", "r")
    s = f["signals"]
    t = s["time"][()]
    R = ref(t)
    ub, up = s["bodies.ball.u"][0], s["bodies.string.p10.u"][0]
    eb, es = ub - R[2 * N], up - shp[10] @ R[:N]
    e = max(np.abs(eb).max(), np.abs(es).max())
    # the order from the rms error over the run (the largest error of an
    # oscillating string lands on different samples at each rate)
    errs.append(np.sqrt(np.mean(eb ** 2) + np.mean(es ** 2)))
    bal = s["energy.total"][0] + s["energy.dissipated"][0] - s["energy.external"][0]
    x = s["contacts.roll.compression"][0]
    print("fs %6.0f: max |u - reference| %.3e m, rms %.3e m (of %.2e), in contact %.0f%% of the "
          "samples, balance %.2e J of %.2e J" % (fs, e, errs[-1], np.abs(ub).max(), 100 * np.mean(x > 0),
                                       np.ptp(bal), np.abs(s["energy.total"][0]).max()))
    if np.ptp(bal) > 1e-12 * np.abs(s["energy.total"][0]).max():
        fails.append("fs %g: balance %.3g J" % (fs, np.ptp(bal)))
orders = [np.log2(errs[i] / errs[i + 1]) for i in range(len(errs) - 1)]
print("observed orders of the rms error %s" % " ".join("%.2f" % o for o in orders))
if min(orders[1:]) < 1.8 or max(orders) > 2.3:
    fails.append("orders %s" % orders)
# the loader's refusals
bad = [
    ('track = { points = ["string.p0"]; drive = { type = "velocity"; v = 1.0; }; };',
     "'points' must be an array of at least two points of body 'string'"),
    ('track = { points = ["string.p1", "string.p0"]; drive = { type = "velocity"; v = 1.0; }; };',
     "the track's positions must ascend"),
    ('track = { points = ["string.p0", "string.p1"]; };', "missing required key 'drive'"),
    ('track = { points = ["string.p0", "ball"]; drive = { type = "velocity"; v = 1.0; }; };',
     "'points' must name points of body 'string'"),
    ('track = { points = ["string.p0", "string.p1"]; drive = { type = "velocity"; v = 1.0; }; }; '
     'corrections = ["xmax"];', "'corrections' does not apply to a moving contact point yet"),
    ('track = { points = ["string.p0", "string.p1"]; wobble = 1; drive = { type = "velocity"; v = 1.0; }; };',
     "unknown key 'wobble'"),
]
head = scene[:scene.index("contacts = (")] % 44100.0
for i, (tr, want) in enumerate(bad):
    text = head + ('contacts = ( { name = "roll"; between = ["string.p0", "ball"]; law = "power"; '
                   'k = 1.0e6; alpha = 1.5; scheme = "two-point"; %s } );\n' % tr)
    cfg = "%s/bad-%d.cfg" % (tmp, i)
    open(cfg, "w").write(text)
    p = subprocess.run([vibro, "run", cfg, "-o", cfg + ".h5", "--quiet"], capture_output=True,
                       text=True)
    if p.returncode == 0 or want not in p.stderr or ("bad-%d.cfg:" % i) not in p.stderr:
        fails.append("refusal %d: rc %d, %r" % (i, p.returncode, p.stderr.strip()))
print("%d refusals checked" % len(bad))
if fails:
    print("FAIL: " + "; ".join(fails))
    sys.exit(1)

"""clearance_ref.py - independent references for vibro's circular clearance
(issue 30, item 4; doc/geometry.md): a pin of a mass in a round hole, gap
|(u, w)| - c, its force along the radial direction.  Written here from the
physics, never from vibro's output:

1. Conservation: a pin orbiting and bouncing in a fixed hole without gravity,
   springs or damping, and a pin in the hole of a free ring (two masses with
   w): vibro's discrete-gradient step must keep the energy, the angular
   momentum (and, for the two masses, the linear momentum) to round-off.
2. Against an event-driven DOP853 integration (scipy, rtol 1e-13, the
   contact's onsets and releases as events) of a pin in a hole under gravity
   with a power law (k = 2.3e7 N/m^1.5, alpha = 1.5): the trajectory at 10,
   20, 40 and 80 kHz, observed order 2.
3. Hunt-Crossley damping under gravity and a hole shaken along u and w: the
   balance E + dissipated - external closes to round-off, dissipation >= 0.

Usage: clearance_ref.py VIBRO TMPDIR; exits 1 with what it measured when a
check fails."""
import subprocess, sys
import numpy as np
import h5py
from scipy.integrate import solve_ivp

vibro, tmp = sys.argv[1], sys.argv[2]
fails = []


def run(name, text):
    cfg = "%s/%s.cfg" % (tmp, name)
    open(cfg, "w").write(text)
    subprocess.run([vibro, "run", cfg, "-o", cfg + ".h5", "--quiet"], check=True)
    f = h5py.File(cfg + ".h5", "r")
    return {k: f["signals/" + k][()] for k in f["signals"] if k != "scene"}


# ---------------------------------------------------------------- 1
m = 0.0237
orbit = """scene = { name = "orbit"; fs = %g; duration = 0.2; gravity = 0.0; };
bodies = (
  { name = "hole"; type = "wall"; position = 0.0; },
  { name = "pin"; type = "mass"; mass = 0.0237; u0 = 0.00031; v0 = 0.29; w0 = -0.00017; vw0 = 0.173; } );
contacts = (
  { name = "rim"; between = ["hole", "pin"]; law = "power"; k = 3.1e8; alpha = 1.5;
    scheme = "two-point"; geometry = { type = "circular"; clearance = 1.3e-3; }; } );
"""
for fs in (40000.0, 11025.0):
    s = run("orbit-%d" % fs, orbit % fs)
    u, w, v, vw = (s["bodies.pin." + k][0] for k in ("u", "w", "v", "vw"))
    E = s["energy.total"][0]
    L = m * (u * vw - w * v)
    x = s["contacts.rim.compression"][0]
    impacts = int(np.sum((x[1:] > 0) & (x[:-1] <= 0)))
    dE, dL = np.abs(E - E[0]).max() / E[0], np.abs(L - L[0]).max() / abs(L[0])
    print("orbit at %5.0f Hz: %d impacts, largest penetration %.3e m; energy drift %.2e, "
          "angular momentum drift %.2e (relative)" % (fs, impacts, x.max(), dE, dL))
    if impacts < 10:
        fails.append("orbit: %d impacts" % impacts)
    if dE > 1e-12 or dL > 1e-12:
        fails.append("orbit at %g Hz: drifts %.3g, %.3g" % (fs, dE, dL))

ring = """scene = { name = "ring"; fs = 44100; duration = 0.3; gravity = 0.0; };
bodies = (
  { name = "ring"; type = "mass"; mass = 0.113; u0 = 0.0; v0 = -0.021; w0 = 0.0; vw0 = 0.034; },
  { name = "pin"; type = "mass"; mass = 0.0237; u0 = 0.0004; v0 = 0.31; w0 = 0.0002; vw0 = -0.19; } );
contacts = (
  { name = "rim"; between = ["ring", "pin"]; law = "hertz"; k = 1.7e9;
    scheme = "two-point"; geometry = { type = "circular"; clearance = 0.9e-3; }; } );
"""
s = run("ring", ring.replace('law = "hertz"; k = 1.7e9;', 'law = "power"; k = 1.7e9; alpha = 1.5;'))
M = (0.113, 0.0237)
q = {b: [s["bodies.%s.%s" % (b, k)][0] for k in ("u", "w", "v", "vw")] for b in ("ring", "pin")}
L = sum(mb * (q[b][0] * q[b][3] - q[b][1] * q[b][2]) for mb, b in zip(M, ("ring", "pin")))
Pu = sum(mb * q[b][2] for mb, b in zip(M, ("ring", "pin")))
Pw = sum(mb * q[b][3] for mb, b in zip(M, ("ring", "pin")))
E = s["energy.total"][0]
x = s["contacts.rim.compression"][0]
impacts = int(np.sum((x[1:] > 0) & (x[:-1] <= 0)))
# the angular momentum's scale: its terms' sizes (the bodies drift, L0 is a difference)
Ls = max(np.abs(mb * q[b][0] * q[b][3]).max() + np.abs(mb * q[b][1] * q[b][2]).max()
         for mb, b in zip(M, ("ring", "pin")))
dE, dL = np.abs(E - E[0]).max() / E[0], np.abs(L - L[0]).max() / Ls
dP = max(np.abs(Pu - Pu[0]).max(), np.abs(Pw - Pw[0]).max()) / np.hypot(Pu[0], Pw[0])
print("pin in a free ring: %d impacts; energy drift %.2e, angular momentum %.2e (of its terms' "
      "%.2e), momentum %.2e" % (impacts, dE, dL, Ls, dP))
if impacts < 10 or dE > 2e-12 or dL > 1e-12 or dP > 1e-12:
    fails.append("ring: %d impacts, drifts %.3g %.3g %.3g" % (impacts, dE, dL, dP))

# ---------------------------------------------------------------- 2
g, k, al, c = 9.81, 2.3e7, 1.5, 1.1e-3
m2 = 0.0415
y0 = [0.0, 0.0, 0.0, 0.27]  # u, w, v, vw: from the centre, thrown along w
T = 0.06 + 1e-3  # the reference's horizon, past the runs' last sample


def rhs(t, y):
    u, w, v, vw = y
    r = np.hypot(u, w)
    f = k * (r - c) ** al if r > c else 0.0
    return [v, vw, -g - f * u / (r * m2) if f else -g, -f * w / (r * m2) if f else 0.0]


def edge(t, y):
    return np.hypot(y[0], y[1]) - c


def reference():
    """Event-driven: free flight and contact phases integrated apart, each
    ending where |(u, w)| crosses c (entering, then leaving)."""
    t, y, pieces, inside = 0.0, np.array(y0, float), [], False
    while t < T:
        def ev(t, y):
            return np.hypot(y[0], y[1]) - c
        ev.terminal, ev.direction = True, (-1.0 if inside else 1.0)
        sol = solve_ivp(rhs, (t, T), y, method="DOP853", rtol=1e-13, atol=1e-16, events=ev,
                        dense_output=True, max_step=2e-5)
        pieces.append((t, sol.t[-1], sol.sol))
        if sol.status != 1:
            break
        t, y, inside = sol.t[-1], sol.y[:, -1].copy(), not inside
    return pieces


def ref_at(pieces, t):
    out = np.full((4, len(t)), np.nan)
    for (a, b, sol) in pieces:
        sel = (t >= a) & (t <= b)
        if sel.any():
            out[:, sel] = sol(t[sel])
    return out


pieces = reference()
nimp = len(pieces) // 2
gscene = """scene = { name = "drop"; fs = %g; duration = 0.06; gravity = 9.81; };
bodies = (
  { name = "hole"; type = "wall"; position = 0.0; },
  { name = "pin"; type = "mass"; mass = 0.0415; u0 = 0.0; v0 = 0.0; w0 = 0.0; vw0 = 0.27; } );
contacts = (
  { name = "rim"; between = ["hole", "pin"]; law = "power"; k = 2.3e7; alpha = 1.5;
    scheme = "two-point"; tolerance = 1e-13; geometry = { type = "circular"; clearance = 1.1e-3; }; } );
"""
errs = []
for fs in (10000.0, 20000.0, 40000.0, 80000.0):
    s = run("drop-%d" % fs, gscene % fs)
    t = s["time"]
    u, w = s["bodies.pin.u"][0], s["bodies.pin.w"][0]
    ref = ref_at(pieces, t)
    e = max(np.abs(u - ref[0]).max(), np.abs(w - ref[1]).max())
    errs.append(e)
    bal = s["energy.total"][0] + s["energy.dissipated"][0] - s["energy.external"][0]
    db = np.abs(bal - bal[0]).max()
    print("drop at %5.0f Hz: max |(u, w) - reference| %.3e m (of %.2e m), balance %.2e J"
          % (fs, e, c, db))
    if db > 1e-12 * np.abs(s["energy.total"][0]).max():
        fails.append("drop at %g Hz: balance %.3g J" % (fs, db))
orders = [np.log2(errs[i] / errs[i + 1]) for i in range(len(errs) - 1)]
print("reference: %d contact phases in %.2f s; observed orders %s" %
      (nimp, T, " ".join("%.2f" % o for o in orders)))
if nimp < 3:
    fails.append("reference: %d contact phases" % nimp)
if min(orders) < 1.8 or max(orders) > 2.3:
    fails.append("orders %s" % orders)

# ---------------------------------------------------------------- 3
damped = """scene = { name = "shaken"; fs = 32000; duration = 0.15; gravity = 9.81; };
bodies = (
  { name = "hole"; type = "wall"; position = 0.0; drive = { type = "sine"; amplitude = 4e-4; freq = 31.0; };
    w_drive = { type = "sine"; amplitude = 3e-4; freq = 23.0; phase = 0.7; }; },
  { name = "pin"; type = "mass"; mass = 0.0415; u0 = 0.0; v0 = 0.1; w0 = 0.0; vw0 = 0.27;
    k = 37.0; kw = 53.0; cw = 0.003; } );
contacts = (
  { name = "rim"; between = ["hole", "pin"]; law = "hunt-crossley"; k = 2.3e7; alpha = 1.5; mu = 0.4;
    scheme = "two-point"; geometry = { type = "circular"; clearance = 1.1e-3; }; } );
"""
s = run("shaken", damped)
E, D, X = s["energy.total"][0], s["energy.dissipated"][0], s["energy.external"][0]
bal = E + D - X
db = np.abs(bal - bal[0]).max()
scale = max(np.abs(E).max(), np.abs(X).max())
print("shaken hole, Hunt-Crossley: dissipated %.3e J, external %.3e J, balance %.2e J (of %.2e)"
      % (D[-1], X[-1], db, scale))
if db > 1e-12 * scale or np.diff(D).min() < -1e-18 or D[-1] <= 0:
    fails.append("shaken: balance %.3g J, dissipation step %.3g" % (db, np.diff(D).min()))


# ---------------------------------------------------------------- 5
# friction in the clearance: a pin sliding round the rim of a fixed hole
# (no spin, no gravity) under Coulomb friction, against DOP853 (the slip never
# reaches 0: a smooth problem while in contact, the normal force continuous)
from scipy.optimize import brentq
m5, k5, c5, mu5, v5 = 0.0237, 1.0e8, 1.0e-3, 0.2, 0.5
dd = brentq(lambda d: k5 * d ** 1.5 - m5 * v5 ** 2 / (c5 + d), 1e-12, 1e-3, xtol=1e-20, rtol=1e-15)
r5 = c5 + dd


def rhs5(t, y):
    r = np.hypot(y[0], y[1])
    n = np.array([y[0], y[1]]) / r
    tt = np.array([n[1], -n[0]])
    N = k5 * (r - c5) ** 1.5 if r > c5 else 0.0
    s = tt @ y[2:]
    F = -N * n - mu5 * N * np.sign(s) * tt
    return [y[2], y[3], F[0] / m5, F[1] / m5]


ref5 = solve_ivp(rhs5, (0, 0.051), [-r5, 0.0, 0.0, v5], method="DOP853", rtol=1e-13, atol=1e-16,
                 dense_output=True, max_step=1e-5)
slide = """scene = { name = "slide"; fs = %g; duration = 0.05; gravity = 0.0; };
bodies = ( { name = "hole"; type = "wall"; position = 0.0; },
  { name = "pin"; type = "mass"; mass = 0.0237; u0 = %.17g; v0 = 0.0; w0 = 0.0; vw0 = 0.5; } );
contacts = ( { name = "rim"; between = ["hole", "pin"]; law = "power"; k = 1.0e8; alpha = 1.5;
  scheme = "two-point"; geometry = { type = "circular"; clearance = 1.0e-3; };
  friction = { law = "coulomb"; mu_s = 0.2; mu_k = 0.2; }; } );
"""
errs = []
for fs in (10000.0, 20000.0, 40000.0, 80000.0):
    s = run("slide-%d" % fs, slide % (fs, -r5))
    t, u, w = s["time"], s["bodies.pin.u"][0], s["bodies.pin.w"][0]
    R = ref5.sol(t)
    errs.append(max(np.abs(u - R[0]).max(), np.abs(w - R[1]).max()))
    ft, F, sl = s["contacts.rim.ft"][0], s["contacts.rim.force"][0], s["contacts.rim.slip"][0]
    work = s["contacts.rim.friction_work"][0]
    bal = s["energy.total"][0] + s["energy.dissipated"][0]
    cone = (np.abs(ft) - 0.2 * np.maximum(F, 0.0)).max()
    print("slide at %5.0f Hz: max |(u, w) - reference| %.3e m, balance %.2e J of %.2e, "
          "|ft| - mu N at most %.1e N, friction work %.4e J" % (fs, errs[-1], np.ptp(bal),
                                                                    bal[0], cone, work[-1]))
    if np.ptp(bal) > 1e-13 * bal[0] or cone > 1e-13 or np.diff(work).min() < 0:
        fails.append("slide at %g Hz: balance %.3g, cone %.3g, work step %.3g"
                     % (fs, np.ptp(bal), cone, np.diff(work).min()))
orders = [np.log2(errs[i] / errs[i + 1]) for i in range(len(errs) - 1)]
v_end = np.hypot(*ref5.y[2:, -1])
print("slide: the reference slows from %.2f to %.4f m/s (closed form at fixed r: %.4f); observed "
      "orders %s" % (v5, v_end, v5 / (1 + mu5 * v5 * 0.051 / r5), " ".join("%.2f" % o for o in orders)))
if min(orders[1:]) < 1.8 or max(orders) > 2.3:
    fails.append("slide orders %s" % orders)

# a spinning rotor whose rub turns its whirl backward (dry whip): the balance,
# the cone, the work and the rolling stick
rotor = """scene = { name = "whip"; fs = 48000.0; duration = 0.3; gravity = 0.0; };
bodies = ( { name = "stator"; type = "wall"; position = 0.0; },
  { name = "rotor"; type = "mass"; mass = 2.5; u0 = 0.0; v0 = 0.0949; k = 2.5e5; c = 5.0;
    w0 = 1.5e-4; vw0 = 0.0; kw = 2.5e5; cw = 5.0; radius = 0.02; inertia = 5.0e-4; spin0 = 300.0; } );
contacts = ( { name = "rub"; between = ["stator", "rotor"]; law = "hunt-crossley"; k = 2.0e9;
  alpha = 1.5; mu = 0.2; scheme = "two-point"; geometry = { type = "circular"; clearance = 2.0e-4; };
  friction = { law = "LAW"; mu_s = 0.3; mu_k = 0.2; EXTRA }; } );
"""
for law, extra in (("coulomb", ""), ("stribeck", "v_s = 0.05;")):
    s = run("whip-" + law, rotor.replace("LAW", law).replace("EXTRA", extra))
    u, w, v, vw = (s["bodies.rotor." + k][0] for k in ("u", "w", "v", "vw"))
    ft, F, st = s["contacts.rub.ft"][0], s["contacts.rub.force"][0], s["contacts.rub.stick"][0]
    sl, work = s["contacts.rub.slip"][0], s["contacts.rub.friction_work"][0]
    L = 2.5 * (u * vw - w * v)
    bal = s["energy.total"][0] + s["energy.dissipated"][0]
    cone = (np.abs(ft) - 0.3 * np.maximum(F, 0.0)).max()
    roll = np.abs(sl[st == 1]).max() if (st == 1).any() else 0.0
    print("whip (%s): angular momentum %.3e -> %.3e, %d of %d samples rolling (slip within %.1e "
          "m/s), balance %.2e J of %.2f J, |ft| - mu_s N at most %.1e N, friction work %.3f J"
          % (law, L[0], L[-1], (st == 1).sum(), len(st), roll, np.ptp(bal), bal[0], cone, work[-1]))
    if not (L[0] < 0 < L[-1]) or np.ptp(bal) > 1e-13 * bal[0] or cone > 1e-12 * F.max() or \
            np.diff(work).min() < 0 or roll > 1e-13:
        fails.append("whip %s: L %.3g %.3g, balance %.3g, cone %.3g, work %.3g, roll %.3g"
                     % (law, L[0], L[-1], np.ptp(bal), cone, np.diff(work).min(), roll))

# a study over the clearance: the table's swept column, in m
study = rotor.replace("LAW", "coulomb").replace("EXTRA", "").replace("duration = 0.3", "duration = 0.05") + \
    'sweep = { params = ( { path = "contacts.rub.geometry.clearance"; values = [1.5e-4, 2.5e-4]; } ); };\n'
cfg = "%s/sweep.cfg" % tmp
open(cfg, "w").write(study)
subprocess.run([vibro, "run", cfg, "-o", cfg + ".h5", "--quiet"], check=True)
tab = h5py.File(cfg + ".h5", "r")["study/table"]
col = tab["contacts.rub.geometry.clearance"]
units = col.attrs["units"]
units = units.decode() if isinstance(units, bytes) else str(units)
print("sweep over the clearance: %s %s, status %s" % (list(col[()]), units, list(tab["status_code"][()])))
if list(col[()]) != [1.5e-4, 2.5e-4] or units != "m" or any(tab["status_code"][()]):
    fails.append("sweep over the clearance: %s %s" % (list(col[()]), units))

# ---------------------------------------------------------------- 4
# the loader's refusals: file:line: object: what (valid: ...), exit 1
base = """scene = { name = "x"; fs = 40000; duration = 0.01; };
bodies = ( { name = "hole"; type = "wall"; position = 0.0; },
  { name = "pin"; type = "mass"; mass = 0.02; u0 = 0.0; w0 = 0.0; },
  { name = "bob"; type = "mass"; mass = 0.02; u0 = 0.0; } );
contacts = ( { name = "rim"; between = [BETWEEN]; law = "power"; k = 1e8; alpha = 1.5;
  scheme = "SCHEME"; GEOM } );
"""
circ = 'geometry = { type = "circular"; clearance = 1e-3; };'
refusals = [
    ('geometry = { type = "round"; clearance = 1e-3; };', None, None,
     "contact 'rim' geometry: unknown geometry 'round' (valid: circular, line)"),
    ('geometry = { type = "circular"; };', None, None,
     "contact 'rim' geometry: missing required key 'clearance'"),
    ('geometry = { type = "circular"; clearance = -1e-3; };', None, None,
     "'clearance' must be > 0"),
    (circ + " gap = 0.1;", None, None, "'gap' does not apply to a circular clearance"),
    ('geometry = "circular";', None, None, "'geometry' must be a group"),
    (circ, '"hole", "bob"', None, "mass 'bob' has no w (valid: a mass with w0, vw0, kw or cw, "
     "or a wall)"),
    (circ, None, "three-point", "scheme 'three-point' cannot step a circular clearance "
     "(valid: two-point)"),
    (circ + ' friction = { law = "elasto-plastic"; mu_s = 0.3; mu_k = 0.2; v_s = 0.01; '
     'sigma0 = 1e5; sigma1 = 0.0; z_ba = 0.5; };', None, None,
     "friction law 'elasto-plastic' in a circular clearance is not done yet (valid: coulomb, "
     "stribeck, bow, exponential)"),
    (circ + ' friction = { law = "coulomb"; mu_s = 0.3; }; }, { name = "rim2"; between = '
     '["hole", "pin"]; law = "power"; k = 1e8; alpha = 1.5; scheme = "two-point"; ' + circ,
     None, None, "5:contact 'rim': friction in a circular clearance that shares its island "
     "with another contact is not done yet"),
    (circ + ' }, { name = "side"; between = ["hole", "pin"]; law = "power"; k = 1e8; '
     'alpha = 1.5; scheme = "two-point";', None, None,
     "contact 'side': a line contact in the island of circular clearance 'rim' is not done yet"),
]
for i, (geom, between, scheme, want) in enumerate(refusals):
    text = (base.replace("GEOM", geom).replace("BETWEEN", between or '"hole", "pin"')
            .replace("SCHEME", scheme or "two-point"))
    cfg = "%s/bad-%d.cfg" % (tmp, i)
    open(cfg, "w").write(text)
    p = subprocess.run([vibro, "run", cfg, "-o", cfg + ".h5", "--quiet"], capture_output=True,
                       text=True)
    line = 6  # the geometry's line, or (a prefix "5:") the contact's
    if want[:2] == "5:":
        line, want = 5, want[2:]
    if p.returncode == 0 or want not in p.stderr or ("bad-%d.cfg:%d:" % (i, line)) not in p.stderr:
        fails.append("refusal %d: rc %d, %r" % (i, p.returncode, p.stderr.strip()))
print("%d refusals checked" % len(refusals))

if fails:
    print("FAIL: " + "; ".join(fails))
    sys.exit(1)

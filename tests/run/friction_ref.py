"""friction_ref.py - an independent reference for vibro's Coulomb friction
(issue 30): a damped spring-mass on a belt that swings back and forth,
integrated here event by event with scipy (solve_ivp, rtol 1e-12, the
stick/slip switches located as events), never from vibro's output, and
compared with vibro's run of the same scene at two sample rates.

Model (doc/friction.md): belt w_a = A sin(2 pi f t); block riding it at t = 0,
  m w'' = -kw w - cw w' + F,  slip s = w' - w_a',
  stick: s = 0 and |F_hold| <= mu_s N, F_hold = m w_a'' + kw w + cw w_a';
  slip:  F = -mu_k N sgn(s).
Usage: friction_ref.py VIBRO TMPDIR; exits 1 with what it measured when a
check fails."""
import subprocess, sys
import numpy as np
import h5py
from scipy.integrate import solve_ivp

vibro, tmp = sys.argv[1], sys.argv[2]
m, kw, cw, g, ms, mk = 0.5, 800.0, 0.9, 9.81, 0.5, 0.3
A, fd = 4.0e-3, 3.0
N = m * g
om = 2 * np.pi * fd
T = 1.0
wa = lambda t: A * np.sin(om * t)
va = lambda t: A * om * np.cos(om * t)
aa = lambda t: -A * om * om * np.sin(om * t)
hold = lambda t, w: m * aa(t) + kw * w + cw * va(t)

def reference():
    """Event-driven: returns dense pieces [(t0, t1, sol or None, y0)] and switch times."""
    t, w, v = 0.0, 0.0, va(0.0)      # starts riding the belt: sticking
    stick, pieces, switches = True, [], []
    while t < T - 1e-12:
        if stick:
            y0 = w - wa(t)
            # stick until |F_hold| reaches mu_s N: root of |hold| - mu_s N on a fine grid, then brentq
            ts = np.linspace(t, T, int((T - t) * 20000) + 2)
            hv = np.abs(hold(ts, wa(ts) + y0)) - ms * N
            idx = np.nonzero(hv[1:] > 0)[0]
            if len(idx) == 0:
                pieces.append((t, T, None, y0)); t = T; break
            from scipy.optimize import brentq
            k = idx[0] + 1
            f = lambda x: abs(hold(x, wa(x) + y0)) - ms * N
            t1 = brentq(f, ts[k - 1], ts[k], xtol=1e-15) if k > 0 and f(ts[k - 1]) < 0 else ts[k]
            pieces.append((t, t1, None, y0))
            t, w, v = t1, wa(t1) + y0, va(t1)
            sgn = -np.sign(hold(t1, w))   # the slip goes the way the net force pushes it
            stick = False
            switches.append(t1)
        else:
            def rhs(x, y, sgn=sgn):
                return [y[1], (-kw * y[0] - cw * y[1] - mk * N * sgn) / m]
            def ev(x, y):
                return y[1] - va(x)
            # the slip leaves 0 towards sgn: it ends where it comes back, crossing towards -sgn
            ev.terminal, ev.direction = True, -sgn
            sol = solve_ivp(rhs, (t, T), [w, v], rtol=1e-12, atol=1e-15, events=ev,
                            dense_output=True, first_step=1e-7)
            t1 = sol.t[-1]
            pieces.append((t, t1, sol.sol, None))
            t, w, v = t1, sol.y[0, -1], sol.y[1, -1]
            if sol.status == 1:
                switches.append(t1)
                if abs(hold(t1, w)) <= ms * N:
                    stick = True
                else:
                    sgn = -np.sign(hold(t1, w))   # slips through zero the other way
    return pieces, switches

def ref_w(pieces, t):
    out = np.empty_like(t)
    for (t0, t1, sol, y0) in pieces:
        sel = (t >= t0) & (t <= t1)
        out[sel] = wa(t[sel]) + y0 if sol is None else sol(t[sel])[0]
    return out

pieces, switches = reference()
nstick = sum(1 for p in pieces if p[2] is None)
nslip = len(pieces) - nstick
assert nstick >= 3 and nslip >= 3, "reference: %d stick and %d slip phases" % (nstick, nslip)

scene = """scene = { name = "swing"; fs = %g; duration = 1.0; gravity = 9.81; };
bodies = (
  { name = "belt"; type = "wall"; w_drive = { type = "sine"; amplitude = 4.0e-3; freq = 3.0; }; },
  { name = "block"; type = "mass"; mass = 0.5; u0 = -4.905e-7; vw0 = %.17g; kw = 800.0; cw = 0.9; } );
contacts = ( { name = "rub"; between = ["belt", "block"]; law = "power"; k = 1.0e7; alpha = 1.0;
  scheme = "two-point"; friction = { law = "coulomb"; mu_s = 0.5; mu_k = 0.3; }; } );
"""
errs, fails = [], []
for fs in (20000.0, 80000.0):
    cfg = "%s/swing-%d.cfg" % (tmp, fs)
    open(cfg, "w").write(scene % (fs, va(0.0)))
    subprocess.run([vibro, "run", cfg, "-o", cfg + ".h5", "--quiet"], check=True)
    f = h5py.File(cfg + ".h5", "r")
    t = f["signals/time"][()]
    w = f["signals/bodies.block.w"][0]
    ft = f["signals/contacts.rub.ft"][0]
    slip = f["signals/contacts.rub.slip"][0]
    e = np.abs(w - ref_w(pieces, t)).max()
    errs.append(e)
    # the switches: vibro's (the steps where slip becomes 0 or nonzero) near the reference's
    sw = t[1:][(slip[1:] == 0) != (slip[:-1] == 0)] - 0.5 / fs
    near = max(np.abs(sw[:, None] - np.array(switches)[None, :]).min(axis=0)) if len(sw) else np.inf
    print("fs %6.0f: max |w - w_ref| %.3e m (of %.3e), %d switches (reference %d), each within "
          "%.3e s of the reference's; |ft| <= %.6f N (mu_s N %.6f)"
          % (fs, e, np.abs(w).max(), len(sw), len(switches), near, np.abs(ft).max(), ms * N))
    if len(sw) != len(switches):
        fails.append("fs %g: %d switches, the reference %d" % (fs, len(sw), len(switches)))
    if near > 4.0 / fs:
        fails.append("fs %g: a switch %.3g s from the reference's" % (fs, near))
    if np.abs(ft).max() > ms * N * (1 + 1e-12):
        fails.append("fs %g: ft %.9g N outside mu_s N" % (fs, np.abs(ft).max()))
    if e > 2e-2 * np.abs(w).max():
        fails.append("fs %g: w off the reference by %.3g m" % (fs, e))
order = np.log(errs[0] / errs[1]) / np.log(4.0)
print("observed order of max |w - w_ref| from 20 to 80 kHz: %.2f" % order)
if order < 0.8:
    fails.append("order %.2f" % order)
if fails:
    print("FAIL: " + "; ".join(fails))
    sys.exit(1)

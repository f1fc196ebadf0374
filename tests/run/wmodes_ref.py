"""wmodes_ref.py - modes along w (issue 30, step 3): a modal body's modes
along the tangential direction, joined to a friction contact by the row of
their shapes at the contact point (doc/friction.md, "Modes along w").

1. A one-mode modal body is the mass: the bowed oscillator of
   scenes/bowed-oscillator.cfg (0.1 kg, kw = 4000 N/m, cw = 0.05 N s/m,
   Stribeck curve, N = 1.5 N, bow at 0.1 m/s) written once with the mass
   and once with a modal body of one mode along w at sqrt(kw/m)/(2 pi) Hz,
   modal mass m, sigma = cw/(2m) (loss = [sigma, 0]) and shape 1 at its
   point (directions = ["w"]; and ["u", "w"] with a rigid mode along u and
   its mode along w from w_modes_file, undamped, against the mass with
   cw = 0), as the contact's b and as its a: w, vw, ft, slip and the phases equal bit
   for bit (the row's weight 1 and the sums in the same order).
2. A two-mode body against an independent integration: modes at 31.7 and
   87.3 Hz (modal masses 0.05 and 0.08 kg, zeta 0.011 and 0.023), shapes
   [0.83, -0.41] at the contact point and [0.37, 0.92] at a second point,
   started at wq0 = [1.3e-4, -0.6e-4] m, wdq0 = [0.02, -0.05] m/s, pressed
   with N = 1.3 N on a belt at 0.5 m/s under the Stribeck curve (mu_s 0.8,
   mu_k 0.35, v_s 0.05, viscous 0.2 s/m): the slip never reaches 0, so the
   motion is the smooth ODE
     m_j (q_j'' + 2 sigma_j q_j' + omega_j^2 q_j) = phi_j ft,
     ft = N mu(|s|) sgn(-s),  s = sum phi_j q_j' - V,
   integrated here with scipy (DOP853, rtol 1e-12), never from vibro's
   output; vibro at 11.025 to 88.2 kHz: both points' w against
   sum phi_j q_j, the order of convergence (2, the trapezoidal rule), ft
   against N mu(|s|) at every sample, the energy balance.
Usage: wmodes_ref.py VIBRO TMPDIR; exits 1 with what it measured when a
check fails."""
import math, subprocess, sys
import numpy as np
import h5py
from scipy.integrate import solve_ivp

vibro, tmp = sys.argv[1], sys.argv[2]
failed = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failed.append(what)


def run(text, name):
    cfg, out = f"{tmp}/{name}.cfg", f"{tmp}/{name}.h5"
    with open(cfg, "w") as f:
        f.write(text)
    r = subprocess.run([vibro, "run", cfg, "-o", out, "--quiet"], capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stdout, r.stderr)
        sys.exit(1)
    return h5py.File(out, "r")


# ---------------------------------------------- 1. one mode is the mass
m, kw, cw, N, V = 0.1, 4000.0, 0.05, 1.5, 0.1
freq = math.sqrt(kw / m) / (2.0 * math.pi)  # what the mass's w coordinate computes
sigma = cw / (2.0 * m)
head = 'scene = { name = "one"; fs = 44100.0; duration = 0.2; };\n'
bow = '{ name = "bow"; type = "wall"; w_drive = { type = "velocity"; v = 0.1; }; }'
law = 'friction = { law = "stribeck"; mu_s = 0.8; mu_k = 0.35; v_s = 0.0213; };'
mass = f'{{ name = "block"; type = "mass"; mass = {m!r}; w0 = 0.0; vw0 = {V!r}; kw = {kw!r}; cw = {cw!r}; }}'
modal_w = (f'{{ name = "block"; type = "modal"; directions = ["w"]; freq = [{freq!r}]; '
           f'mass = [{m!r}]; loss = [{sigma!r}, 0.0]; wdq0 = [{V!r}]; '
           f'points = ( {{ name = "p"; shape = [1.0]; }} ); }}')
modal_uw = (f'{{ name = "block"; type = "modal"; directions = ["u", "w"]; freq = [0.0]; '
            f'mass = [{m!r}]; w_modes_file = "one.csv"; wdq0 = [{V!r}]; '
            f'points = ( {{ name = "p"; shape = [1.0]; }} ); }}')
# the modes file's mode along w, undamped (a file gives t60, and ln(1000)/t60
# need not give cw/(2m) back to the bit): against the mass with cw = 0
with open(f"{tmp}/one.csv", "w") as f:
    f.write(f"freq,t60,mass,p\n{freq!r},0,{m!r},1.0\n")
mass_undamped = mass.replace(f"cw = {cw!r}", "cw = 0.0")


def scene(body, point, b_side):
    pair = f'["bow", "{point}"]' if b_side else f'["{point}", "bow"]'
    return (head + f"bodies = ( {bow},\n  {body} );\n"
            f'contacts = ( {{ name = "hair"; between = {pair}; normal_force = {N!r}; '
            f'scheme = "two-point"; {law} }} );\n')


sigs = ["contacts.hair.ft", "contacts.hair.slip", "contacts.hair.friction_work", "contacts.hair.stick"]
for b_side in (1, 0):
    refs = {"w": run(scene(mass, "block", b_side), f"mass{b_side}"),
            "uw": run(scene(mass_undamped, "block", b_side), f"massu{b_side}")}
    for tag, body in (("w", modal_w), ("uw", modal_uw)):
        ref = refs[tag]
        f = run(scene(body, "block.p", b_side), f"modal{tag}{b_side}")
        same = all(np.array_equal(ref["signals/" + s][:], f["signals/" + s][:]) for s in sigs)
        same &= np.array_equal(ref["signals/bodies.block.w"][:], f["signals/bodies.block.p.w"][:])
        same &= np.array_equal(ref["signals/bodies.block.vw"][:], f["signals/bodies.block.p.vw"][:])
        same &= np.array_equal(ref["study/phases/t_on"][:], f["study/phases/t_on"][:])
        nph = len(f["study/phases/t_on"])
        dmax = np.max(np.abs(ref["signals/bodies.block.w"][0] - f["signals/bodies.block.p.w"][0]))
        check(same and nph > 10,
              f"one mode along w ({tag}, the contact's {'b' if b_side else 'a'}) equals the mass "
              f"bit for bit: {nph} phases, max |w diff| {dmax:.3g} m")

# ------------------------------------------ 2. two modes, a scipy reference
f2 = np.array([31.7, 87.3]); mm = np.array([0.05, 0.08]); zeta = np.array([0.011, 0.023])
phi = np.array([0.83, -0.41]); phi2 = np.array([0.37, 0.92])
q0 = np.array([1.3e-4, -0.6e-4]); dq0 = np.array([0.02, -0.05])
N2, V2, T2 = 1.3, 0.5, 0.3
mu_s, mu_k, v_s, visc = 0.8, 0.35, 0.05, 0.2
om = 2 * np.pi * f2; sg = zeta * om


def mu(x):
    return mu_k + (mu_s - mu_k) * np.exp(-(x / v_s) ** 2) + visc * x


def rhs(t, y):
    q, v = y[:2], y[2:]
    s = phi @ v - V2
    ft = -N2 * mu(abs(s)) * np.sign(s)
    return np.concatenate([v, phi * ft / mm - 2 * sg * v - om ** 2 * q])


def text(fs):
    return (f'scene = {{ name = "two"; fs = {fs!r}; duration = {T2!r}; }};\n'
            'bodies = ( { name = "belt"; type = "wall"; w_drive = { type = "velocity"; v = 0.5; }; },\n'
            '  { name = "bar"; type = "modal"; directions = ["u", "w"]; freq = [31.7, 87.3];\n'
            '    mass = [0.05, 0.08]; zeta = [0.011, 0.023]; wq0 = [1.3e-4, -0.6e-4];\n'
            '    wdq0 = [0.02, -0.05];\n'
            '    points = ( { name = "tip"; shape = [0.83, -0.41]; },\n'
            '               { name = "mid"; shape = [0.37, 0.92]; } ); } );\n'
            'contacts = ( { name = "rub"; between = ["belt", "bar.tip"]; normal_force = 1.3;\n'
            '  scheme = "two-point"; friction = { law = "stribeck"; mu_s = 0.8; mu_k = 0.35;\n'
            '  v_s = 0.05; viscous = 0.2; }; } );\n')


rates = [11025.0, 22050.0, 44100.0, 88200.0]
errs = []
for fs in rates:
    f = run(text(fs), f"two{int(fs)}")
    t = f["signals/time"][:]
    sol = solve_ivp(rhs, (0, t[-1]), np.concatenate([q0, dq0]), method="DOP853", rtol=1e-12,
                    atol=1e-15, t_eval=t, dense_output=False)
    q = sol.y[:2]
    wt, wm = f["signals/bodies.bar.tip.w"][0], f["signals/bodies.bar.mid.w"][0]
    e = max(np.max(np.abs(wt - phi @ q)), np.max(np.abs(wm - phi2 @ q)))
    errs.append(e)
    slip = f["signals/contacts.rub.slip"][0][1:]; ft = f["signals/contacts.rub.ft"][0][1:]
    stick = f["signals/contacts.rub.stick"][0][1:]
    curve = np.max(np.abs(np.abs(ft) - N2 * mu(np.abs(slip)))) / N2
    bal = (f["signals/energy.total"][0] + f["signals/energy.dissipated"][0]
           - f["signals/energy.external"][0])
    drift = np.max(np.abs(bal - bal[0])) / np.max(np.abs(f["signals/energy.external"][0]))
    check(not stick.any() and np.all(slip < 0) and curve < 1e-12 and drift < 1e-11,
          f"two modes at {fs:g} Hz: slipping throughout (slip {slip.max():.3g} .. {slip.min():.3g} m/s), "
          f"|ft| on the curve to {curve:.2g} N/N, balance {drift:.2g} of the external work, "
          f"w off by {e:.3g} m of {np.max(np.abs(phi @ q)):.3g}")
order = -np.polyfit(np.log(rates), np.log(errs), 1)[0]
check(1.9 < order < 2.1 and errs[-1] < 2e-8,
      f"two modes: observed order {order:.2f} (errors {', '.join(f'{e:.3g}' for e in errs)} m)")

# ------------------------------------------------------------- refusals
good = text(44100.0)
bad = [
    ('directions = ["u", "w"]', 'directions = ["u", "v"]',
     "body 'bar': 'directions' element 2 is not a new direction 'u' or 'w'"),
    ('directions = ["u", "w"]', 'directions = ["w", "w"]',
     "body 'bar': 'directions' element 2 is not a new direction"),
    ('directions = ["u", "w"]; ', '',
     "body 'bar': 'wq0' gives modes along w, and the body has none"),
    ('wq0 = [1.3e-4, -0.6e-4];', 'wq0 = [1.3e-4];', "body 'bar'"),
    ('directions = ["u", "w"];', 'directions = ["u", "w"]; w_modes_file = "nofile.csv";',
     "body 'bar': "),
    ('directions = ["u", "w"];', 'directions = ["w"]; w_modes_file = "one.csv";',
     "body 'bar': with directions = [\"w\"] the body's own modes are its modes along w"),
    ('directions = ["u", "w"];', 'directions = ["u", "w"]; w_modes_file = "one.csv";',
     "body 'bar': "),
    ('normal_force = 1.3;', 'law = "power"; k = 1e7; alpha = 1.0;',
     None),
]
for i, (old, new, want) in enumerate(bad):
    t = good.replace(old, new)
    if want is None:  # a normal law on a body that moves only along w
        t = t.replace('directions = ["u", "w"]', 'directions = ["w"]')
        want = "contact 'rub': body 'bar' moves only along w"
    cfg = f"{tmp}/bad{i}.cfg"
    with open(cfg, "w") as f:
        f.write(t)
    r = subprocess.run([vibro, "check", cfg], capture_output=True, text=True)
    msg = (r.stderr + r.stdout).strip().splitlines()
    msg = msg[0] if msg else ""
    check(r.returncode != 0 and msg.startswith(cfg + ":") and want in msg,
          f"refused (exit {r.returncode}): {msg}")
sys.exit(1 if failed else 0)

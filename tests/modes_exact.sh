#!/bin/sh
# modes_exact.sh - free modes "ring and decay exactly" (README): a modal
# body of 1 to 6 random modes (rigid, underdamped, critically and
# overdamped, up to 0.45 fs), started from random q0 and dq0 and stepped
# by each implicit family's schemes (two-point, am1, three-point,
# quadratic, sav; a contact that never closes), against the closed-form
# free response summed here at every sample: within 1e-9 of its peak
# (seen: 6e-13 at worst; a reference off by 1e-7 in frequency fails).
# /usr/bin/python3 with h5py.
set -u
vibro=${VIBRO:-tools/vibro}
python=/usr/bin/python3
"$python" -c 'import numpy, h5py' 2>/dev/null || { echo "SKIP: no numpy/h5py"; exit 77; }
exec "$python" - "$vibro" <<'PY'
import sys, os, shutil, subprocess, tempfile, numpy as np, h5py, random
V = sys.argv[1]
tmp = tempfile.mkdtemp(prefix="vibro-modes.")
R = random.Random(5)
worst = {}
def case(trial, sch=None):
    fs = R.choice([8000.0, 44100.0, 96000.0])
    sch = sch or R.choice(["two-point", "am1", "three-point", "quadratic", "sav"])
    nm = R.randint(1, 6)
    freqs = [R.uniform(1, 0.45 * fs) for _ in range(nm)]
    if R.random() < 0.3: freqs[0] = 0.0
    zeta = [R.choice([0.0, R.uniform(0, 0.2), R.uniform(0.9, 1.5)]) for _ in range(nm)]
    zeta = [0.0 if f == 0.0 else z for f, z in zip(freqs, zeta)]
    q0 = [R.uniform(-1e-3, 1e-3) for _ in range(nm)]
    dq0 = [R.uniform(-1, 1) for _ in range(nm)]
    shape = [R.uniform(-1, 1) for _ in range(nm)]
    mass = R.uniform(0.01, 1)
    dur = 200 / fs
    lst = lambda v: ", ".join(repr(x) for x in v)
    cfg = '''scene = { name = "m"; fs = %r; duration = %r; };
bodies = ( { name = "o"; type = "modal"; freq = [%s]; mass = %r; zeta = [%s]; q0 = [%s]; dq0 = [%s];
             points = ( { name = "p"; shape = [%s]; } ); },
           { name = "w"; type = "wall"; position = 1e6; } );
contacts = ( { name = "c"; between = ["o.p", "w"]; law = "power"; k = 1e6; alpha = 1.5; scheme = "%s"; } );
''' % (fs, dur, lst(freqs), mass, lst(zeta), lst(q0), lst(dq0), lst(shape), sch)
    d = tmp
    open(d + "/m.cfg", "w").write(cfg)
    p = subprocess.run([V, "run", d + "/m.cfg", "-o", d + "/m.h5", "--quiet"], capture_output=True, text=True)
    if p.returncode != 0:
        print(trial, sch, "rc", p.returncode, p.stderr[:200]); return 1e300
    with h5py.File(d + "/m.h5") as f:
        u = f["signals/bodies.o.p.u"][0]; t = f["signals/time"][()]
    ref = np.zeros_like(t)
    for fj, z, a, b, s in zip(freqs, zeta, q0, dq0, shape):
        w = 2 * np.pi * fj; sig = z * w
        if fj == 0.0:
            q = a + b * t
        elif z < 1:
            wd = w * np.sqrt(1 - z * z)
            q = np.exp(-sig * t) * (a * np.cos(wd * t) + (b + sig * a) / wd * np.sin(wd * t))
        elif z == 1:
            q = np.exp(-w * t) * (a + (b + w * a) * t)
        else:
            r1 = -sig + w * np.sqrt(z * z - 1); r2 = -sig - w * np.sqrt(z * z - 1)
            c2 = (b - r1 * a) / (r2 - r1); c1 = a - c2
            q = c1 * np.exp(r1 * t) + c2 * np.exp(r2 * t)
        ref += s * q
    scale = np.max(np.abs(ref)) + 1e-300
    err = np.max(np.abs(u - ref)) / scale
    worst[sch] = max(worst.get(sch, 0), err)
    if err > 1e-9:
        print(trial, sch, "fs", fs, "err %.3g" % err, "freqs", [round(x) for x in freqs], "zeta", [round(x, 3) for x in zeta])
    return err

bad = sum(case(i) > 1e-9 for i in range(40))
print("worst error per scheme:", worst)
shutil.rmtree(tmp, ignore_errors=True)
sys.exit(1 if bad else 0)
PY

#!/usr/bin/python3
"""rigid_bass_siconos.py FS T [SCENES] - the fretted bass (scenes/bass-fretted.cfg's
string, 862 modes, its 20 frets) with rigid frets (e = 0) in Siconos 4.4:
MoreauJeanOSI theta = 1/2, one NewtonImpactNSL per fret, an LCP; the
pickup's displacement at every step into sic_FS_T.npy.  Not a test (32 ms
a step here: 3 minutes for 6 ms at 1 MHz); doc/rigid.md gives what it
measured against `vibro run` of the same scene with law = "rigid"; e = 0.0;
scheme = "moreau-jean"."""
import sys, time, numpy as np, csv
import siconos.kernel as sk
S = (sys.argv[3] if len(sys.argv) > 3 else 'scenes') + '/'
fs, T = float(sys.argv[1]), float(sys.argv[2])
h = 1.0 / fs
L, rho = 0.863, 0.0067
modes = np.loadtxt(S + 'bass-fretted-modes.csv', delimiter=',', skiprows=1)
freq, sig = modes[:, 1], modes[:, 2]
n = len(freq)
q0 = np.loadtxt(S + 'bass-fretted-pluck.csv', delimiter=',', skiprows=1)[:, 1] * 1.5223327833061406
frets = np.loadtxt(S + 'bass-frets.csv', delimiter=',', skiprows=1)
xs, hs = frets[:, 2], frets[:, 3]
M = rho * L / 2.0
w = 2 * np.pi * freq
j = np.arange(1, n + 1)
ds = sk.LagrangianLinearTIDS(q0, np.zeros(n), np.diag(np.full(n, M)))
ds.setKPtr(np.diag(M * w * w)); ds.setCPtr(np.diag(2 * M * sig))
nsds = sk.NonSmoothDynamicalSystem(0.0, T)
nsds.insertDynamicalSystem(ds)
for x, hp in zip(xs, hs):
    rel = sk.LagrangianLinearTIR(np.sin(j * np.pi * x / L).reshape(1, n), [-hp])
    nsds.link(sk.Interaction(sk.NewtonImpactNSL(0.0), rel), ds)
pick = np.sin(j * np.pi * 0.501 / L)
osi = sk.MoreauJeanOSI(0.5)
sim = sk.TimeStepping(nsds, sk.TimeDiscretisation(0.0, h), osi, sk.LCP())
N = int(round(T * fs)); out = np.zeros(N + 1); out[0] = pick @ q0
t0 = time.time(); k = 1
while sim.hasNextEvent() and k <= N:
    sim.computeOneStep(); out[k] = pick @ ds.q(); sim.nextStep(); k += 1
print('siconos %d steps %.2f s, %.3g ms/step' % (k - 1, time.time() - t0, 1e3 * (time.time() - t0) / (k - 1)), file=sys.stderr)
np.save('sic_%g_%g.npy' % (fs, T), out[:k])

#!/usr/bin/env python3
"""orbit_closed.py - the period-1 impacting orbit of a harmonically forced
linear oscillator against a rigid stop, in closed form, against vibro.

The oscillator m u'' + c u' + k u = F sin(w t) moves freely below a stop
at u = g; an impact at speed V > 0 leaves it at -r V.  Between impacts
u = u_p + h, with u_p = A sin(w t - psi) the forced response and h the
free motion, (h, h')(t) = Phi(t) (h, h')(0) with Phi the damped
oscillator's transition matrix.  One impact per period T = 2 pi / w at
the drive's phase theta = a + psi closes when (doc/analysis.md eq C1-C4)

    (g - A sin a) P = (1 + r) Phi12(T) A w cos a,
    P = Phi11(T) - 1 - r Phi22(T) + r det Phi(T),
    V = (Phi21(T) h0 + p (1 - Phi22(T))) / (1 + r Phi22(T)),
    h0 = g - A sin a,  p = A w cos a,

the fixed-point conditions of the free flight between impacts with the
impact conditions, as Shaw & Holmes (J. Sound Vib. 90 (1983) 129-155)
solve them for this oscillator.  Of the two roots a, the one with V > 0
whose free flight stays below the stop is the orbit.  For a
Hunt-Crossley stop with alpha = 1, r depends on mu V alone (in time
sqrt(m/k) and length V sqrt(m/k) the contact is X'' = -X (1 + mu V X'),
X(0) = 0, X'(0) = 1, r = -X'(end)): integrated here with scipy at
rtol 1e-12 and iterated with V to a fixed point.  That is the rigid
limit k -> infinity of vibro's stop.

Usage: orbit_closed.py FILE.h5 M K C F FREQ GAP MU
Reads /study/table (contacts.impact.k, orbit, period, impacts_per_period),
/study/sections and /study/impact_map; prints, per scene, the relative
errors of the section's last point (u, v) and of the last impacts' v_in
against the closed form, and exits 1 unless every scene is periodic with
period 1 and one impact per period, each error is below w tau_c, the
contact's duration tau_c = pi sqrt(m/k) (alpha = 1) in radians of the
drive (the rigid stop reverses the velocity at once; the finite one
takes tau_c, which shifts the orbit by a phase of that order: the error
is first order in w tau_c), and the largest error falls with k by at
least 2.5 a decade (k^(-1/2) gives 3.16).
"""
import sys

import h5py
import numpy as np
from scipy.integrate import solve_ivp


def restitution(lam):
    """r of a Hunt-Crossley impact (alpha = 1) at mu v_in = lam."""
    def rhs(_, y):
        return [y[1], -y[0] * (1.0 + lam * y[1])]

    def out(_, y):
        return y[0]

    out.terminal, out.direction = True, -1
    sol = solve_ivp(rhs, [0.0, 100.0], [0.0, 1.0], events=out, rtol=1e-12, atol=1e-14,
                    first_step=1e-6)
    return -sol.y_events[0][0][1]


def transition(t, w0, zeta):
    """Phi(t) of h'' + 2 zeta w0 h' + w0^2 h = 0 on (h, h')."""
    s, wd = zeta * w0, w0 * np.sqrt(1.0 - zeta * zeta)
    e, c, sn = np.exp(-s * t), np.cos(wd * t), np.sin(wd * t)
    return np.array([[e * (c + s / wd * sn), e * sn / wd],
                     [-e * w0 * w0 / wd * sn, e * (c - s / wd * sn)]])


def orbit(m, k, c, F, f, g, r):
    """(a, V, h0, p, A, psi) of the period-1 orbit at restitution r."""
    w, w0 = 2 * np.pi * f, np.sqrt(k / m)
    zeta, T = c / (2 * m * w0), 1.0 / f
    A = F / np.hypot(k - m * w * w, c * w)
    psi = np.arctan2(c * w, k - m * w * w)
    ph = transition(T, w0, zeta)
    P = ph[0, 0] - 1 - r * ph[1, 1] + r * np.linalg.det(ph)
    Q = (1 + r) * ph[0, 1] * w
    R, beta = np.hypot(P, Q), np.arctan2(Q, P)
    found = []
    for a in (np.arcsin(g * P / (A * R)) - beta, np.pi - np.arcsin(g * P / (A * R)) - beta):
        h0, p = g - A * np.sin(a), A * w * np.cos(a)
        V = (ph[1, 0] * h0 + p * (1 - ph[1, 1])) / (1 + r * ph[1, 1])
        if V <= 0:
            continue
        # the free flight must stay below the stop
        ts = np.linspace(0, T, 4001)[1:-1]
        hs = np.array([transition(t, w0, zeta) @ [h0, -r * V - p] for t in ts])[:, 0]
        if np.all(A * np.sin(w * ts + a) + hs <= g + 1e-12 * A):
            found.append((a, V, h0, p, A, psi))
    if len(found) != 1:
        raise SystemExit(f"orbit_closed: {len(found)} period-1 orbits at r = {r}")
    return found[0]


def closed_form(m, k, c, F, f, g, mu):
    """V and the section's (u, v) at the drive's zero phase."""
    V = F / k * 2 * np.pi * f  # a start; the iteration settles it
    for _ in range(200):
        r = restitution(mu * V)
        a, V1, h0, p, A, psi = orbit(m, k, c, F, f, g, r)
        if abs(V1 - V) <= 1e-15 * V:
            break
        V = V1
    w, w0 = 2 * np.pi * f, np.sqrt(k / m)
    zeta = c / (2 * m * w0)
    theta = a + psi                    # drive phase at the impact
    dt = np.mod(-theta, 2 * np.pi) / w  # impact to the next zero phase
    h, hd = transition(dt, w0, zeta) @ [h0, -r * V - p]
    return V1, r, A * np.sin(-psi) + h, A * w * np.cos(-psi) + hd, np.mod(theta, 2 * np.pi)


def flight(m, k, c, F, f, g, V, r, theta):
    """The closed form checked by integration: from the stop at the drive
    phase theta, leaving at -r V, the next impact (scipy, rtol 1e-12) comes
    one period later at speed V.  Relative errors of both."""
    w = 2 * np.pi * f
    t0 = theta / w

    def rhs(t, y):
        return [y[1], (F * np.sin(w * t) - c * y[1] - k * y[0]) / m]

    def hit(_, y):
        return y[0] - g

    hit.terminal, hit.direction = True, 1
    sol = solve_ivp(rhs, [t0, t0 + 1.5 / f], [g, -r * V], events=hit, rtol=1e-12, atol=1e-15,
                    first_step=1e-7)
    t1, v1 = sol.t_events[0][0], sol.y_events[0][0][1]
    return abs(t1 - t0 - 1 / f) * f, abs(v1 - V) / V


def main():
    path = sys.argv[1]
    m, k, c, F, f, g, mu = (float(v) for v in sys.argv[2:9])
    V, r, u, v, theta = closed_form(m, k, c, F, f, g, mu)
    print(f"closed form: V = {V:.9g} m/s (r = {r:.9g}), section u = {u:.9g} m, v = {v:.9g} m/s")
    et, ev = flight(m, k, c, F, f, g, V, r, theta)
    print(f"integrated from the impact: the next one after T (1 + {et:.2g}) at V (1 + {ev:.2g})")
    bad = int(not (et < 1e-8 and ev < 1e-8))
    with h5py.File(path, "r") as h:
        t, s, im = h["study/table"], h["study/sections"], h["study/impact_map"]
        stiff = t["contacts.impact.k"][()]
        errs = []
        for i, ks in enumerate(stiff):
            cls, per, n = t["orbit"][i], t["period"][i], t["impacts_per_period"][i]
            rows = np.nonzero(s["scene"][()] == i)[0]
            hits = np.nonzero(im["scene"][()] == i)[0]
            su, sv = s["u"][rows[-1], 0], s["v"][rows[-1], 0]
            vin = im["v_in"][hits[-5:]]
            eu, ev = abs(su - u) / abs(u), abs(sv - v) / abs(v)
            eV = np.max(np.abs(vin - V)) / V
            errs.append(max(eu, ev, eV))
            # the contact's duration (alpha = 1: pi sqrt(m/k)) in drive radians
            bound = 2 * np.pi * f * np.pi * np.sqrt(m / ks)
            print(f"k {ks:.3g}: orbit {cls} period {per} impacts {n}; section u {su:.9g} "
                  f"v {sv:.9g}, v_in {vin[-1]:.9g}; errors u {eu:.3g} v {ev:.3g} v_in {eV:.3g}; "
                  f"w tau_c {bound:.3g}")
            if errs[-1] > bound:
                bad += 1
                print("  error above w tau_c")
            if (cls, per, n) != (2, 1, 1):
                bad += 1
                print("  not the period-1 orbit with one impact")
        for i in range(1, len(errs)):
            ratio = errs[i - 1] / errs[i]
            decades = np.log10(stiff[i] / stiff[i - 1])
            if ratio < 2.5 ** decades:
                bad += 1
                print(f"  error fell only {ratio:.3g} times from k {stiff[i - 1]:.3g} "
                      f"to {stiff[i]:.3g}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

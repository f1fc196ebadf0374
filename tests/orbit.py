#!/usr/bin/env python3
"""orbit.py - lib/base/orbit.c's classification and attractor ids against numpy.

Reads tests/orbit_dump's output (stdin) and decides each case again from
doc/analysis.md's rules, written anew with numpy arrays:

- classify: the distances e_m(i) = max_j |x_ij - x_(i-m)j| / scale_j of
  every shift m <= pmax as one array; the period is the smallest m whose
  last max(2m, 8) distances are all <= tol (eq A2), or the smallest
  divisor of it whose distances come down to m's spread at every place of
  the cycle (eq A2b, its spread then its own), or, for m = 2, 1 when the
  least-squares multiplier of the deviations from the mean is
  above -1 + 0.01 in a section whose shift-m distances do not trend (eq
  A2c, a decaying flip); otherwise, with at
  least pmax + max(2 pmax, 16) points, a shift whose distances, cut into
  8 equal blocks (the earliest left over dropped), have block maxima
  strictly falling (or rising), by a factor 2 in all and sqrt(2) over
  each half (eq A3), makes the section not settled, else irregular.  Class, period and spread must
  equal vibro's (the spread to the last bit: the same max of the same
  quotients).
- attractors: for every pair of scenes the full match matrix (periods
  equal and some np.roll of one cycle within tol of the other, eq A4),
  brute force; the ids are then the greedy rule's (each scene joins the
  first attractor, in id order, whose first member it matches) read off
  that matrix, and must equal vibro's.  Where the matrix is an
  equivalence (transitive), the ids' partition must also be its classes:
  the case where the partition cannot depend on the scenes' order.

Prints a summary; exits 1 on any mismatch.
"""
import sys

import numpy as np


def unresolved_divisor(x, scale, m, s):
    """The period a closing shift m of spread s stands for (eq A2b): the
    smallest divisor p < m whose distances e_p over m's closure window,
    taken place by place (the points r, r + m, ... of the window), each
    come down to s or below somewhere; else m."""
    w = max(2 * m, 8)
    for p in range(1, m):
        if m % p:
            continue
        e = np.max(np.abs(x[p:] - x[:-p]) / scale, axis=1)[-w:]
        if all(e[r::m].min() <= s for r in range(m)):
            DIVISOR[0] += 1
            return p
    return m


DIVISOR = [0]  # sections whose period is a divisor of the closing shift (eq A2b)
FLIP = [0]  # sections read as period m/2 by the flip multiplier (eq A2c)


def flip_multiplier(x, scale, p):
    """Eq A2c: the least-squares multiplier of the deviations of each place
    r < p of the p-cycle from that place's mean (over its latest even
    number of points), pooled over
    places and scaled coordinates: sum z_(k+1) z_k / sum z_k^2."""
    num = den = 0.0
    for r in range(p):
        s = x[r::p]
        s = s[len(s) % 2:]  # the latest even number of points
        if len(s) < 2:
            continue
        z = (s - s.mean(axis=0)) / scale
        num += float(np.sum(z[1:] * z[:-1]))
        den += float(np.sum(z[:-1] ** 2))
    return num / den if den > 0 else float("nan")


def classify(x, pmax, tol, scale):
    """Class, period, spread of a section x[n][d] (doc/analysis.md)."""
    n = x.shape[0]
    if not np.all(np.isfinite(x)):
        return 1, 0, float("nan")
    best = np.inf
    for m in range(1, pmax + 1):
        w = max(2 * m, 8)
        if n < m + w:
            break
        e = np.max(np.abs(x[m:] - x[:-m]) / scale, axis=1)
        s = e[-w:].max()
        best = min(best, s)
        if s <= tol:
            p = unresolved_divisor(x, scale, m, s)
            if (p == m and m == 2 and not trends(x, scale, m)
                    and flip_multiplier(x, scale, 1) > -1.0 + 0.01):
                FLIP[0] += 1
                p = 1
            if p < m:
                wp = max(2 * p, 8)
                s = np.max(np.abs(x[p:] - x[:-p]) / scale, axis=1)[-wp:].max()
            return 2, p, s
    spread = float("nan") if np.isinf(best) else best
    if n < pmax + max(2 * pmax, 16):
        return 1, 0, spread
    for m in range(1, pmax + 1):
        if trends(x, scale, m):
            return 1, 0, spread
    return 3, 0, spread


def trends(x, scale, m):
    """Eq A3: shift m's distances, cut into 8 equal blocks (the earliest
    left over dropped), have block maxima strictly falling (or rising) by
    a factor 2 in all and sqrt(2) over each half."""
    e = np.max(np.abs(x[m:] - x[:-m]) / scale, axis=1)
    b = len(e) // 8
    if b < 2:
        return False
    top = e[len(e) - 8 * b:].reshape(8, b).max(axis=1)
    step, r2 = np.diff(top), np.sqrt(2.0)
    return bool((np.all(step < 0) and top[-1] * 2 <= top[0] and top[3] * r2 <= top[0]
                 and top[7] * r2 <= top[4]) or (
                 np.all(step > 0) and top[-1] >= 2 * top[0] and top[0] * r2 <= top[3]
                 and top[4] * r2 <= top[7]))


def match_matrix(cycles, periods, scale, tol):
    """match[a][b]: periods equal and a shift of a within tol of b."""
    ns = len(cycles)
    match = np.zeros((ns, ns), dtype=bool)
    for m in set(periods) - {0}:
        idx = [k for k in range(ns) if periods[k] == m]
        c = np.stack([cycles[k] for k in idx])                      # [k][point][coord]
        # every cyclic shift of every cycle: [k][shift][point][coord]
        shifts = np.stack([np.roll(c, -r, axis=1) for r in range(m)], axis=1)
        # |shift r of a - b| / scale for all a, b: [a][b][shift][point][coord]
        dist = np.abs(shifts[:, None] - c[None, :, None]) / scale
        ok = np.any(np.all(dist <= tol, axis=(3, 4)), axis=2)
        match[np.ix_(idx, idx)] = ok
    return match


def greedy_ids(match, periods):
    """Ids of the rule: the first attractor whose first member matches."""
    ids, first = [], []
    for s, p in enumerate(periods):
        if p == 0:
            ids.append(-1)
            continue
        hit = [a for a, f in enumerate(first) if match[f, s]]
        if hit:
            ids.append(hit[0])
        else:
            ids.append(len(first))
            first.append(s)
    return np.array(ids), len(first)


def floats(line):
    return np.array([float(v) for v in line.split()])


def main():
    lines = sys.stdin.read().splitlines()
    i = 0
    bad = 0
    counts = {"classify": 0, "attractors": 0, "classes": [0, 0, 0, 0],
              "equivalence": 0}
    while i < len(lines):
        head = lines[i].split()
        if head[0] == "classify":
            n, d, pmax = int(head[1]), int(head[2]), int(head[3])
            tol, cls, period, spread = float(head[4]), int(head[5]), int(head[6]), float(head[7])
            scale = floats(lines[i + 1])
            x = floats(lines[i + 2]).reshape(n, d)
            i += 3
            want = classify(x, pmax, tol, scale)
            counts["classify"] += 1
            counts["classes"][want[0]] += 1
            same_spread = (np.isnan(want[2]) and np.isnan(spread)) or want[2] == spread
            if (cls, period) != want[:2] or not same_spread:
                bad += 1
                print(f"classify n {n} d {d} pmax {pmax} tol {tol:g}: vibro {cls} {period} "
                      f"{spread!r}, numpy {want[0]} {want[1]} {want[2]!r}")
        elif head[0] == "attractors":
            ns, d, tol, count = int(head[1]), int(head[2]), float(head[3]), int(head[4])
            scale = floats(lines[i + 1])
            periods, cycles = [], []
            for k in range(ns):
                v = lines[i + 2 + k].split()
                m = int(v[0])
                periods.append(m)
                cycles.append(np.array([float(t) for t in v[1:]]).reshape(m, d) if m else None)
            ids = np.array([int(t) for t in lines[i + 2 + ns].split()])
            i += 3 + ns
            counts["attractors"] += 1
            match = match_matrix(cycles, periods, scale, tol)
            want, nwant = greedy_ids(match, periods)
            if not np.array_equal(ids, want) or count != nwant:
                bad += 1
                print(f"attractors ns {ns}: vibro {count} {ids.tolist()}, "
                      f"numpy {nwant} {want.tolist()}")
            # an equivalence: the partition is its classes, whatever the order
            on = np.array(periods) > 0
            mm = match[np.ix_(on, on)]
            if np.array_equal(mm, mm.T) and np.array_equal((mm.astype(int) @ mm.astype(int)) > 0, mm):
                counts["equivalence"] += 1
                same = ids[on][:, None] == ids[on][None, :]
                if not np.array_equal(same, mm):
                    bad += 1
                    print(f"attractors ns {ns}: the partition is not the equivalence's classes")
        else:
            print(f"unreadable line {i}: {lines[i][:60]}")
            return 1
    print(f"{counts['classify']} sections (none, not settled, periodic, irregular: "
          f"{counts['classes']}; {DIVISOR[0]} periodic by eq A2b), {counts['attractors']} "
          f"attractor sets ({counts['equivalence']} of them equivalences): {bad} mismatches")
    if counts["classify"] >= 100 and DIVISOR[0] == 0:
        print("no section exercised eq A2b (an unresolved divisor)")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

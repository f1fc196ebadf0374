#!/usr/bin/env python3
"""Study files with the analysis layer's datasets, in exactly the layout of
/work/notes/analysis-spec.md ("In the file"), for the plot and Python tests
while the `analysis` branch's writer is not on this branch.

Each file is a real vibro-3 study run by the vibro under test (the forced
impact oscillator of scenes/impact-oscillator.cfg, 10 ms, no signals
recorded), to which h5py adds what the writer will add:
  /study/sections     section (dimension scale), scene, k, t, u and v
                      [section][point], point (string dimension scale)
  /study/impact_map   impact (dimension scale), scene, contact, t, v_in,
                      phase, since_previous, grazing
  /study/table        orbit (with flag_values / flag_meanings), period,
                      impacts_per_period, orbit_tolerance, sections,
                      attractor, lyapunov, lyapunov_second_half
The values are made up, with a known answer per scene (CASES): a period-m
cycle repeats exactly every m samples, an irregular section never does.
Once `analysis` is merged the tests run real studies instead, and this
script can be regenerated from the real writer (write(kind, path, real=True)
would run the scene with an analysis block).

    python3 analysis_fixture.py sweep|grid|basin OUT.h5
"""

import math
import sys

import h5py
import numpy as np

# The orbit column's codes (analysis-spec.md)
MEANINGS = ("no_section", "not_settled", "periodic", "irregular")
TRANSIENT = 50      # drive periods skipped before the first section sample
SAMPLES = 24        # section samples kept per scene

# The frequency sweep (Hz): each scene's class and period (m), the impacts
# per period (n) and its lyapunov exponent (1/s)
SWEEP_FREQ = [24.0, 24.5, 25.0, 25.5, 26.0, 26.5, 27.0, 27.5, 28.0, 28.5, 29.0]
SWEEP_CASES = [("periodic", 1, 1)] * 5 + [("periodic", 2, 2)] * 2 + [
    ("irregular", 0, 0), ("periodic", 3, 3), ("irregular", 0, 0), ("not_settled", 0, 0)]

# The 2-D grid: amplitude (N, log sweep) x frequency (Hz)
GRID_AMPLITUDE = [0.5, 5.0, 50.0]
GRID_FREQ = [24.0, 25.0, 26.0, 27.0, 28.0]

# The basin sweep: initial position (m) x initial velocity (m/s); which
# attractor each cell reaches: 0 (period 1), 1 (period 3), -1 irregular
BASIN_U0 = [-2e-3, -1e-3, 0.0, 1e-3, 2e-3]
BASIN_V0 = [-0.1, 0.0, 0.1, 0.2]
ATTRACTOR_PERIOD = {0: 1, 1: 3}


def scene(params, duration=0.01):
    """The impact oscillator (scenes/impact-oscillator.cfg) swept over params."""
    return {
        "scene": {"name": "impact-oscillator", "fs": 20000.0, "duration": duration,
                  "gravity": 0.0},
        "bodies": [{"name": "oscillator", "type": "mass", "mass": 1.0, "k": 3947.8418,
                    "c": 6.2831853},
                   {"name": "stop", "type": "wall", "position": 0.0}],
        "contacts": [{"name": "impact", "between": ["oscillator", "stop"],
                      "law": "hunt-crossley", "k": 1e7, "alpha": 1.0, "mu": 10.0,
                      "gap": 0.0, "scheme": "am1"}],
        "forces": [{"name": "drive", "at": "oscillator", "type": "harmonic",
                    "amplitude": 3.9478418, "freq": 25.0}],
        "record": {"signals": []},
        "sweep": {"mode": "grid", "params": params},
    }


def cycle(m, salt):
    """m distinct section points (u m, v m/s) of a period-m orbit."""
    j = np.arange(m)
    u = -1e-3 * (0.4 + 0.1 * salt + 0.25 * j)
    v = 0.02 + 0.005 * salt + 0.01 * j
    return u, v


def irregular(n, salt):
    """n points of the logistic map at r = 3.9 (chaotic): no repeat."""
    x = np.empty(n)
    x[0] = 0.2 + 0.6 * ((salt * 0.618) % 1)
    for i in range(1, n):
        x[i] = 3.9 * x[i - 1] * (1 - x[i - 1])
    return -1e-3 * (0.3 + x), 0.01 + 0.03 * x


def scene_section(cls, m, salt):
    """(u, v) of one scene's section samples for its case."""
    if cls == "periodic":
        u, v = cycle(m, salt)
        reps = -(-SAMPLES // m)
        return np.tile(u, reps)[:SAMPLES], np.tile(v, reps)[:SAMPLES]
    if cls == "no_section":
        return np.zeros(0), np.zeros(0)
    return irregular(SAMPLES, salt)


def column(g, name, data, units, dims=("scene",), **attrs):
    """A netCDF-style column of g, its dimension scales attached."""
    ds = g.create_dataset(name, data=data)
    if units is not None:
        ds.attrs["units"] = units
    for k, v in attrs.items():
        ds.attrs[k] = v
    for i, d in enumerate(dims):
        ds.dims[i].attach_scale(g[d] if d in g else g.file["study/table/" + d])
    return ds


def scale(g, name, data):
    """A dimension scale: an index (units 1) or the point names (none)."""
    ds = g.create_dataset(name, data=data)
    ds.make_scale(name)
    if ds.dtype.kind != "S":
        ds.attrs["units"] = "1"
    return ds


def add_analysis(path, cases, freqs, points, attractors=None, lyapunov=None):
    """Add the analysis datasets to the study at path: cases[s] = (class,
    period, impacts per period) of scene s, freqs[s] its drive frequency (Hz)."""
    with h5py.File(path, "r+") as f:
        tbl = f["study/table"]
        scenes = tbl["scene"][()]
        assert len(scenes) == len(cases)
        rows = {"scene": [], "k": [], "t": [], "u": [], "v": []}
        imp = {k: [] for k in ("scene", "t", "v_in", "phase", "since_previous", "grazing")}
        for s, (cls, m, n) in zip(scenes, cases):
            u, v = scene_section(cls, m, s)
            k = TRANSIENT + np.arange(len(u))
            rows["scene"] += [s] * len(u)
            rows["k"] += list(k)
            rows["t"] += list(k / freqs[s])
            # the second point, the stop, is a fixed wall: at rest
            rows["u"] += [[a] + [0.0] * (len(points) - 1) for a in u]
            rows["v"] += [[b] + [0.0] * (len(points) - 1) for b in v]
            # one impact per drive period, at 0.3 of it, v_in = the section's v
            t_imp = (k + 0.3) / freqs[s]
            imp["scene"] += [s] * len(u)
            imp["t"] += list(t_imp)
            imp["v_in"] += list(v)
            imp["phase"] += [2 * math.pi * 0.3] * len(u)
            imp["since_previous"] += [np.nan] + list(np.diff(t_imp))
            imp["grazing"] += [int(x < 0.012) for x in v]
        g = f["study"].create_group("sections", track_order=True)
        scale(g, "section", np.arange(len(rows["scene"]), dtype=np.int64))
        scale(g, "point", np.array([p.encode() for p in points], dtype="S32"))
        column(g, "scene", np.array(rows["scene"], np.int64), "1", ("section",))
        column(g, "k", np.array(rows["k"], np.int64), "1", ("section",))
        column(g, "t", np.array(rows["t"], float), "s", ("section",))
        for q, unit in (("u", "m"), ("v", "m/s")):
            column(g, q, np.array(rows[q], float).reshape(-1, len(points)), unit,
                   ("section", "point"))
        g = f["study"].create_group("impact_map", track_order=True)
        scale(g, "impact", np.arange(len(imp["scene"]), dtype=np.int64))
        column(g, "scene", np.array(imp["scene"], np.int64), "1", ("impact",))
        column(g, "contact", np.zeros(len(imp["scene"]), np.int32), "1", ("impact",))
        for q, unit in (("t", "s"), ("v_in", "m/s"), ("phase", "rad"),
                        ("since_previous", "s")):
            column(g, q, np.array(imp[q], float), unit, ("impact",))
        column(g, "grazing", np.array(imp["grazing"], np.int32), "1", ("impact",))
        code = np.array([MEANINGS.index(c) for c, _, _ in cases], np.int32)
        column(tbl, "orbit", code, "1", flag_values=np.arange(4, dtype=np.int32),
               flag_meanings=" ".join(MEANINGS))
        column(tbl, "period", np.array([m for _, m, _ in cases], np.int32), "1")
        column(tbl, "impacts_per_period", np.array([n for _, _, n in cases], np.int32), "1")
        column(tbl, "orbit_tolerance", np.full(len(cases), 1e-6), "1")
        column(tbl, "sections", np.array([SAMPLES if c != "no_section" else 0
                                          for c, _, _ in cases], np.int64), "1")
        if attractors is None:
            attractors, seen = [], {}
            for s, (cls, m, _) in enumerate(cases):
                key = (m, s)
                attractors.append(seen.setdefault(key, len(seen)) if cls == "periodic" else -1)
        column(tbl, "attractor", np.array(attractors, np.int64), "1")
        if lyapunov is not None:
            column(tbl, "lyapunov", np.array(lyapunov, float), "1/s")
            column(tbl, "lyapunov_second_half", np.array(lyapunov, float) * 1.01, "1/s")


def lyapunov_of(cases):
    """A made-up exponent per case (1/s): negative when periodic."""
    return [(-3.0 - m) if c == "periodic" else 5.5 if c == "irregular" else np.nan
            for c, m, _ in cases]


def write(kind, path):
    """Run the base study and add the analysis datasets; returns the path."""
    import vibro
    if kind == "sweep":
        sc = scene([{"path": "forces.drive.freq", "values": SWEEP_FREQ}])
        vibro.run(sc, path)
        add_analysis(path, SWEEP_CASES, SWEEP_FREQ, ["oscillator", "stop"],
                     lyapunov=lyapunov_of(SWEEP_CASES))
    elif kind == "grid":
        sc = scene([{"path": "forces.drive.amplitude", "logspace": [0.5, 50.0], "n": 3},
                    {"path": "forces.drive.freq", "values": GRID_FREQ}])
        vibro.run(sc, path)
        cases, freqs = grid_cases()
        add_analysis(path, cases, freqs, ["oscillator"], lyapunov=lyapunov_of(cases))
    elif kind == "basin":
        sc = scene([{"path": "bodies.oscillator.u0", "values": BASIN_U0},
                    {"path": "bodies.oscillator.v0", "values": BASIN_V0}])
        vibro.run(sc, path)
        ids = basin_ids()
        cases = [("periodic", ATTRACTOR_PERIOD[a], ATTRACTOR_PERIOD[a]) if a >= 0
                 else ("irregular", 0, 0) for a in ids]
        add_analysis(path, cases, [25.0] * len(ids), ["oscillator"], attractors=ids)
    else:
        raise ValueError("kind '%s' (valid: sweep, grid, basin)" % kind)
    return path


def write_random(path, nx, ny, rng):
    """A grid of nx amplitudes (log) x ny frequencies with random cases
    (class, period 1-6) and exponents, drawn from rng (numpy Generator)."""
    import vibro
    sc = scene([{"path": "forces.drive.amplitude", "logspace": [0.01, 100.0], "n": nx},
                {"path": "forces.drive.freq", "linspace": [5.0, 45.0], "n": ny}],
               duration=0.001)
    vibro.run(sc, path)
    cases, freqs = [], []
    for _ in range(nx * ny):
        cls = MEANINGS[rng.integers(1, 4)]
        m = int(rng.integers(1, 7)) if cls == "periodic" else 0
        cases.append((cls, m, m))
    freqs = list(np.repeat(np.linspace(5.0, 45.0, ny)[None, :], nx, 0).ravel())
    add_analysis(path, cases, freqs, ["oscillator"],
                 lyapunov=list(rng.normal(0.0, 10.0, nx * ny)))
    return path


def write_grid3(path):
    """Three swept paths: amplitude (2 values) x frequency x u0 (one
    value); the cases of grid_cases() at 0.5 and 5 N."""
    import vibro
    sc = scene([{"path": "forces.drive.amplitude", "values": GRID_AMPLITUDE[:2]},
                {"path": "forces.drive.freq", "values": GRID_FREQ},
                {"path": "bodies.oscillator.u0", "values": [-1e-3]}])
    vibro.run(sc, path)
    cases, freqs = grid_cases()
    n = 2 * len(GRID_FREQ)
    add_analysis(path, cases[:n], freqs[:n], ["oscillator"], lyapunov=lyapunov_of(cases[:n]))
    return path


def grid_cases():
    """The 2-D grid's cases in scene order (amplitude slowest): period 1 at
    low amplitude, period 2 and irregular as both grow."""
    cases, freqs = [], []
    for i, _ in enumerate(GRID_AMPLITUDE):
        for j, fr in enumerate(GRID_FREQ):
            if i + j <= 2:
                cases.append(("periodic", 1, 1))
            elif i + j <= 4:
                cases.append(("periodic", 2, 1))
            else:
                cases.append(("irregular", 0, 0))
            freqs.append(fr)
    return cases, freqs


def basin_ids():
    """Attractor id per scene (u0 slowest): 1 where u0 + 0.01 v0 > 0, a
    band of -1 where it is near 0, else 0."""
    out = []
    for u0 in BASIN_U0:
        for v0 in BASIN_V0:
            x = u0 + 0.01 * v0
            out.append(-1 if abs(x) < 5e-4 else 1 if x > 0 else 0)
    return out


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: analysis_fixture.py sweep|grid|basin OUT.h5")
    write(sys.argv[1], sys.argv[2])

"""The analysis figures from real studies (the writer's own /study/sections,
/study/impact_map and orbit columns): the forced impact oscillator of
scenes/impact-oscillator.cfg with an analysis block, over frequency, over
amplitude and frequency, and over initial conditions.  What each figure
drew is compared with the file read by h5py (not through the package), and
the fixture of analysis_fixture.py is checked to have the writer's layout."""

import h5py
import numpy as np
import pytest

import vibro
import analysis_fixture as fx
from test_examples import drawn_figure

FREQ = "forces.drive.freq"
ANALYSIS = {"section": {"drive": "forces.drive", "transient": 100, "points": ["oscillator"]},
            "impact_map": {"contact": "impact"}, "period": {"max": 16, "tolerance": 1e-2}}


def run(path, params, duration, transient, **extra):
    sc = fx.scene(params, duration=duration)
    sc["analysis"] = dict(ANALYSIS, section=dict(ANALYSIS["section"], transient=transient),
                          **extra)
    return vibro.run(sc, path, jobs=2)


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    d = tmp_path_factory.mktemp("real")
    return {
        "sweep": run(str(d / "sweep.h5"), [{"path": FREQ, "linspace": [24.0, 29.0], "n": 11}],
                     6.0, 100),
        "grid": run(str(d / "grid.h5"),
                    [{"path": "forces.drive.amplitude", "logspace": [2.0, 8.0], "n": 3},
                     {"path": FREQ, "linspace": [24.0, 29.0], "n": 6}], 4.0, 60,
                    lyapunov={"perturbation": 1e-8}),
        "basin": run(str(d / "basin.h5"),
                     [{"path": "bodies.oscillator.u0", "linspace": [-0.004, 0.0], "n": 5},
                      {"path": "bodies.oscillator.v0", "linspace": [-0.3, 0.3], "n": 5}],
                     8.0, 150),
        "fixture": fx.write("sweep", str(d / "fixture.h5")),
    }


def table(path):
    """/study/table's columns and the orbit labels, by h5py alone."""
    with h5py.File(path) as f:
        t = {k: v[()] for k, v in f["study/table"].items() if v.ndim == 1}
        a = f["study/table/orbit"].attrs
        names = dict(zip(a["flag_values"].tolist(), str(a["flag_meanings"]).split()))
    t["label"] = ["period %d" % m if names[c] == "periodic" else names[c].replace("_", " ")
                  for c, m in zip(t["orbit"], t["period"])]
    return t


def describe(g):
    """[(member, dtype kind, ndim, units, dimension scale names)] of a
    group, in its creation order."""
    out = []
    for name, ds in g.items():
        dims = tuple(",".join(d.name.rsplit("/", 1)[-1] for d in ds.dims[i].values())
                     for i in range(ds.ndim))
        units = ds.attrs.get("units", b"")
        out.append((name, ds.dtype.kind, ds.ndim,
                    units.decode() if isinstance(units, bytes) else str(units), dims))
    return out


def test_fixture_has_the_writers_layout(real):
    """analysis_fixture.py writes what the writer writes: the same members,
    types, units and dimension scales, the same flag attributes."""
    with h5py.File(real["sweep"].path) as f, h5py.File(real["fixture"]) as g:
        for group in ("study/sections", "study/impact_map"):
            assert describe(f[group]) == describe(g[group]), group
        a = {d[0]: d for d in describe(f["study/table"])}
        b = {d[0]: d for d in describe(g["study/table"])}
        for col in ("orbit", "period", "impacts_per_period", "orbit_tolerance",
                    "sections", "attractor"):
            assert a[col] == b[col], col
        for key in ("flag_values", "flag_meanings"):
            x, y = f["study/table/orbit"].attrs[key], g["study/table/orbit"].attrs[key]
            assert np.array_equal(np.asarray(x), np.asarray(y)) if key == "flag_values" \
                else str(x) == str(y), key


def test_real_bifurcation(plot_program, real, tmp_path):
    st = real["sweep"]
    fig, title = drawn_figure(plot_program, st, "bifurcation", st.path, "--value", "v_in",
                              "--color-by", "period", "-o", tmp_path / "b.png")
    ax = fig.axes[0]
    t = table(st.path)
    with h5py.File(st.path) as f:
        scene = f["study/impact_map/scene"][()]
        v_in = f["study/impact_map/v_in"][()]
    freq = dict(zip(t["scene"], t[FREQ]))
    label = dict(zip(t["scene"], t["label"]))
    want = sorted((label[s], freq[s], v) for s, v in zip(scene, v_in))
    got = sorted((ln.get_label(), x, y) for ln in ax.get_lines()
                 for x, y in zip(ln.get_xdata(), ln.get_ydata()))
    assert got == want
    # the legend: every label of the table once, periods first by m
    labels = [tx.get_text() for tx in ax.get_legend().get_texts()]
    assert sorted(labels) == sorted(set(t["label"]))
    periods = [int(lb.split()[1]) for lb in labels if lb.startswith("period ")]
    assert periods == sorted(periods) and labels[:len(periods)] == [
        "period %d" % m for m in periods]
    assert ax.get_xlabel() == "frequency of force 'drive' (forces.drive.freq, Hz)"
    assert title.endswith("%d points of the impact map" % len(v_in))


def test_real_section(plot_program, real, tmp_path):
    st = real["sweep"]
    t = table(st.path)
    scenes = [int(s) for s in t["scene"][[0, 5, 10]]]
    fig, _ = drawn_figure(plot_program, st, "section", st.path, "--scene",
                          ",".join(map(str, scenes)), "-o", tmp_path / "s.png")
    ax = fig.axes[0]
    with h5py.File(st.path) as f:
        scene = f["study/sections/scene"][()]
        u = f["study/sections/u"][:, 0]
        v = f["study/sections/v"][:, 0]
    for line, s in zip(ax.get_lines(), scenes):
        assert line.get_label().startswith("scene %d: frequency = %g Hz, %s"
                                           % (s, t[FREQ][s], t["label"][s]))
        np.testing.assert_array_equal(line.get_xdata(), u[scene == s])
        np.testing.assert_array_equal(line.get_ydata(), v[scene == s])
    assert ax.get_xlabel() == "displacement u of oscillator (m)"


def test_real_map(plot_program, real, tmp_path):
    st = real["grid"]
    fig, _ = drawn_figure(plot_program, st, "map", st.path, "--column", "period",
                          "-o", tmp_path / "m.png")
    ax = fig.axes[0]
    t = table(st.path)
    amp = sorted(set(t["forces.drive.amplitude"]))
    freq = sorted(set(t[FREQ]))
    want = np.zeros((len(freq), len(amp)))
    for s in range(len(t["scene"])):
        want[freq.index(t[FREQ][s]), amp.index(t["forces.drive.amplitude"][s])] = t["period"][s]
    codes = sorted(set(want.ravel()))
    got = np.asarray(ax.collections[0].get_array()).reshape(want.shape)
    np.testing.assert_array_equal(got, np.searchsorted(codes, want))
    words = [tx.get_text() for tx in ax.get_legend().get_texts()]
    assert words == ["period %d" % c if c else "not periodic" for c in codes]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "linear"


def test_real_basin(plot_program, real, tmp_path):
    st = real["basin"]
    fig, title = drawn_figure(plot_program, st, "basin", st.path, "-o", tmp_path / "b.png")
    ax = fig.axes[0]
    t = table(st.path)
    u0 = sorted(set(t["bodies.oscillator.u0"]))
    v0 = sorted(set(t["bodies.oscillator.v0"]))
    want = np.zeros((len(v0), len(u0)))
    period = {}
    for s in range(len(t["scene"])):
        a = t["attractor"][s]
        want[v0.index(t["bodies.oscillator.v0"][s]), u0.index(t["bodies.oscillator.u0"][s])] = a
        if a >= 0:
            period[a] = t["period"][s]
    codes = sorted(set(want.ravel()))
    got = np.asarray(ax.collections[0].get_array()).reshape(want.shape)
    np.testing.assert_array_equal(got, np.searchsorted(codes, want))
    words = [tx.get_text() for tx in ax.get_legend().get_texts()] if len(codes) <= 20 else []
    if words:
        assert words == [("attractor %d (period %d)" % (c, period[c])) if c >= 0
                         else "no attractor (not periodic)" for c in codes]
    n = sum(1 for c in codes if c >= 0)
    assert title.startswith("basins of %d attractor" % n)


def test_real_lyapunov_map(plot_program, real, tmp_path):
    """The writer's lyapunov column as a map: every cell its scene's value,
    a colour bar in 1/s, diverging around 0 when the exponents change sign."""
    st = real["grid"]
    fig, _ = drawn_figure(plot_program, st, "map", st.path, "--column", "lyapunov",
                          "-o", tmp_path / "m.png")
    ax, bar = fig.axes
    t = table(st.path)
    amp = sorted(set(t["forces.drive.amplitude"]))
    freq = sorted(set(t[FREQ]))
    want = np.full((len(freq), len(amp)), np.nan)
    for s in range(len(t["scene"])):
        want[freq.index(t[FREQ][s]),
             amp.index(t["forces.drive.amplitude"][s])] = t["lyapunov"][s]
    got = np.ma.filled(ax.collections[0].get_array(), np.nan).reshape(want.shape)
    np.testing.assert_array_equal(got, want)
    assert bar.get_ylabel() == "lyapunov (1/s)"
    v = want[np.isfinite(want)]
    assert v.size == want.size
    if v.min() < 0 < v.max():
        assert ax.collections[0].norm.vcenter == 0

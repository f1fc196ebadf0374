"""The analysis layer from Python and vibro-plot (issue 20 item 6): sections,
the impact map and the orbit columns as DataFrames and xarray, and the
section, bifurcation --color-by period, map and basin figures, each checked
for the data it drew, its legend, its axis labels and scales.

The studies are analysis_fixture.py's (a real vibro-3 run with the analysis
datasets added in the layout of the plan), so every expected value comes
from the fixture's own tables (CASES), not from the code under test."""

import shutil
import subprocess

import h5py
import numpy as np
import pytest

import vibro
import analysis_fixture as fx
from matplotlib.colors import to_hex
from test_examples import drawn_figure

FREQ = "forces.drive.freq"
AMP = "forces.drive.amplitude"
U0, V0 = "bodies.oscillator.u0", "bodies.oscillator.v0"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("analysis")
    return {k: fx.write(k, str(d / (k + ".h5"))) for k in ("sweep", "grid", "basin")}


@pytest.fixture(scope="module")
def sweep(files):
    return vibro.open(files["sweep"])


@pytest.fixture(scope="module")
def grid(files):
    return vibro.open(files["grid"])


@pytest.fixture(scope="module")
def basin(files):
    return vibro.open(files["basin"])


def sweep_label(s):
    cls, m, _ = fx.SWEEP_CASES[s]
    return "period %d" % m if cls == "periodic" else cls.replace("_", " ")


# ------------------------------------------------------------ Python

def test_sections_frame(sweep):
    sec = sweep.sections()
    n = len(fx.SWEEP_FREQ) * fx.SAMPLES
    assert len(sec) == 2 * n
    assert list(sec.columns[:6]) == ["scene", "k", "t", "point", "u", "v"]
    assert sec.attrs["units"]["u"] == "m" and sec.attrs["units"]["v"] == "m/s"
    assert sec.attrs["units"]["t"] == "s" and sec.attrs["units"][FREQ] == "Hz"
    with h5py.File(sweep.path) as f:
        u = f["study/sections/u"][()]
        scene = f["study/sections/scene"][()]
    osc = sweep.sections(point="oscillator")
    assert len(osc) == n and set(osc["point"]) == {"oscillator"}
    np.testing.assert_array_equal(osc["u"], u[:, 0])
    np.testing.assert_array_equal(osc["scene"], scene)
    # the swept value of each row is its scene's, from the table
    np.testing.assert_array_equal(osc[FREQ], sweep.table.loc[osc["scene"], FREQ])
    np.testing.assert_allclose(osc["t"], osc["k"] / osc[FREQ], rtol=1e-15)
    # a period-m scene repeats every m samples, and not sooner
    for s, (cls, m, _) in enumerate(fx.SWEEP_CASES):
        x = osc[osc["scene"] == s]["u"].to_numpy()
        if cls == "periodic":
            np.testing.assert_array_equal(x[m:], x[:-m])
            assert all((x[j:] != x[:-j]).any() for j in range(1, m))
    stop = sweep.sections(point="stop")
    assert (stop["u"] == 0).all() and len(stop) == n


def test_sections_xarray(sweep):
    ds = sweep.sections(xarray=True)
    assert ds["u"].dims == ("section", "point")
    assert list(ds["point"].values) == ["oscillator", "stop"]
    assert ds["u"].attrs["units"] == "m" and ds[FREQ].attrs["units"] == "Hz"
    df = sweep.sections(point="stop")
    np.testing.assert_array_equal(ds["v"].sel(point="stop").values, df["v"])
    np.testing.assert_array_equal(ds[FREQ].values, df[FREQ])
    one = sweep.sections(point="oscillator", xarray=True)
    assert one.sizes["point"] == 1


def test_impact_map(sweep):
    im = sweep.impact_map()
    assert len(im) == len(fx.SWEEP_FREQ) * fx.SAMPLES
    assert set(im["contact"]) == {"impact"} and im["grazing"].dtype == bool
    assert im.attrs["units"]["v_in"] == "m/s" and im.attrs["units"]["phase"] == "rad"
    first = im.groupby("scene").head(1)
    assert first["since_previous"].isna().all()
    rest = im.drop(first.index)
    np.testing.assert_allclose(rest["since_previous"], 1 / rest[FREQ], rtol=1e-12)
    np.testing.assert_array_equal(im["grazing"], im["v_in"] < 0.012)
    assert len(sweep.impact_map(contact="impact")) == len(im)
    ds = sweep.impact_map(xarray=True)
    assert ds["v_in"].dims == ("impact",) and ds["v_in"].attrs["units"] == "m/s"
    np.testing.assert_array_equal(ds["v_in"].values, im["v_in"])
    with pytest.raises(vibro.VibroError) as e:
        sweep.impact_map(contact="hit")
    assert str(e.value) == ("%s: no contact 'hit' in the impact map (valid: impact)"
                            % sweep.path)


def test_orbits(sweep, tmp_path):
    o = sweep.orbits()
    assert list(o.index) == list(range(len(fx.SWEEP_FREQ)))
    assert list(o["label"]) == [sweep_label(s) for s in o.index]
    assert list(o["class"]) == [c for c, _, _ in fx.SWEEP_CASES]
    assert list(o["period"]) == [m for _, m, _ in fx.SWEEP_CASES]
    assert list(o["impacts_per_period"]) == [n for _, _, n in fx.SWEEP_CASES]
    assert (o.loc[o["class"] != "periodic", "attractor"] == -1).all()
    assert o.attrs["units"]["lyapunov"] == "1/s"
    np.testing.assert_array_equal(o[FREQ], fx.SWEEP_FREQ)
    # the class names are the file's flag_meanings, not a copy of them
    path = str(tmp_path / "renamed.h5")
    shutil.copy(sweep.path, path)
    with h5py.File(path, "r+") as f:
        f["study/table/orbit"].attrs["flag_meanings"] = "none unsettled cycle chaos"
    o2 = vibro.open(path).orbits()
    assert o2.loc[0, "class"] == "cycle" and o2.loc[7, "label"] == "chaos"


def test_no_analysis(study):
    """A study without an analysis block: each call says what is missing."""
    for call, what in ((study.sections, "no /study/sections"),
                       (study.impact_map, "no /study/impact_map"),
                       (study.orbits, "/study/table has no orbit column")):
        with pytest.raises(vibro.VibroError) as e:
            call()
        assert str(e.value).startswith("%s: %s" % (study.path, what)), str(e.value)
    with pytest.raises(vibro.VibroError):
        vibro.plot_basin(None, study)


def test_unknown_point(sweep):
    with pytest.raises(vibro.VibroError) as e:
        sweep.sections(point="plate.strike")
    assert str(e.value) == ("%s: no point 'plate.strike' in the section (valid: "
                            "oscillator, stop)" % sweep.path)


def test_log_sweep(sweep, grid, tmp_path):
    assert vibro._figures.log_sweep(grid, AMP) and not vibro._figures.log_sweep(grid, FREQ)
    assert not vibro._figures.log_sweep(sweep, FREQ)
    # a file whose sweep text is lost: the values' spacing decides
    path = str(tmp_path / "nosweep.h5")
    shutil.copy(grid.path, path)
    with h5py.File(path, "r+") as f:
        f["study"].attrs["sweep"] = ""
    st = vibro.open(path)
    assert vibro._figures.log_sweep(st, AMP) and not vibro._figures.log_sweep(st, FREQ)


# ------------------------------------------------------------ vibro-plot

def legend_texts(ax):
    leg = ax.get_legend()
    return [t.get_text() for t in leg.get_texts()] if leg else []


def test_plot_bifurcation_by_period(plot_program, sweep, tmp_path):
    fig, title = drawn_figure(plot_program, sweep, "bifurcation", sweep.path, "--point",
                              "oscillator", "--color-by", "period", "-o", tmp_path / "b.png")
    ax = fig.axes[0]
    assert legend_texts(ax) == ["period 1", "period 2", "period 3", "irregular",
                                "not settled"]
    sec = sweep.sections(point="oscillator")
    for line in ax.get_lines():
        want = sec[[sweep_label(s) == line.get_label() for s in sec["scene"]]]
        np.testing.assert_array_equal(line.get_xdata(), want[FREQ])
        np.testing.assert_array_equal(line.get_ydata(), want["u"])
    assert sum(len(ln.get_xdata()) for ln in ax.get_lines()) == len(sec)
    # period 1 is tab10's first colour, irregular black, in every figure;
    # periods 2 and 12 differ (a palette of ten colours gave both C1)
    colours = {ln.get_label(): ln.get_color() for ln in ax.get_lines()}
    assert colours["period 1"] == to_hex("C0") and colours["irregular"] == "k"
    assert colours["period 2"] == to_hex("C1") and colours["period 3"] == to_hex("C2")
    many = [vibro._figures.period_colour(m) for m in range(1, 39)]
    assert len(set(many)) == 38 and to_hex("C7") not in many
    assert ax.get_xlabel() == "frequency of force 'drive' (forces.drive.freq, Hz)"
    assert ax.get_ylabel() == "displacement u of oscillator (m)"
    assert ax.get_xscale() == "linear"
    assert title == ("displacement u of oscillator against forces.drive.freq, "
                     "264 points of the section")


def test_plot_bifurcation_window_and_impact_map(plot_program, sweep, tmp_path):
    after = 2.3
    fig, title = drawn_figure(plot_program, sweep, "bifurcation", sweep.path, "--value",
                              "v_in", "--after", after, "-o", tmp_path / "b.png")
    ax = fig.axes[0]
    im = sweep.impact_map()
    im = im[im["t"] >= after]
    assert 0 < len(im) < len(sweep.impact_map())
    xs = np.concatenate([ln.get_xdata() for ln in ax.get_lines()])
    ys = np.concatenate([ln.get_ydata() for ln in ax.get_lines()])
    assert sorted(zip(xs, ys)) == sorted(zip(im[FREQ], im["v_in"]))
    assert ax.get_ylabel() == "impact velocity v_in (m/s)"
    assert "period 2" in legend_texts(ax)     # coloured by orbit by default
    assert title.endswith("%d points of the impact map" % len(im))
    # --last N: each scene's last N rows
    fig, title = drawn_figure(plot_program, sweep, "bifurcation", sweep.path, "--value",
                              "v_in", "--last", 5, "-o", tmp_path / "b.png")
    im = sweep.impact_map().groupby("scene").tail(5)
    got = sorted((x, y) for ln in fig.axes[0].get_lines()
                 for x, y in zip(ln.get_xdata(), ln.get_ydata()))
    assert got == sorted(zip(im[FREQ], im["v_in"])) and len(got) == 5 * len(fx.SWEEP_FREQ)


def test_plot_bifurcation_errors(plot_program, sweep, study, tmp_path):
    def run(st, *argv):
        r = subprocess.run([plot_program] + [str(a) for a in argv], capture_output=True,
                           text=True)
        return r.returncode, r.stderr
    assert run(sweep, "bifurcation", sweep.path, "-o", tmp_path / "x.png") == (
        1, "%s: 2 points: choose one with --point / point= (valid: oscillator, stop)\n"
        % sweep.path)
    rc, err = run(study, "bifurcation", study.path, "--param", "bodies.hammer.v0",
                  "--color-by", "period", "-o", tmp_path / "x.png")
    assert rc == 1 and err.startswith(
        "%s: /study/table has no orbit column: the scenes have no analysis block"
        % study.path) and err.endswith("(--color-by period or orbit colours by it)\n")
    rc, err = run(study, "bifurcation", study.path, "--param", "bodies.hammer.v0",
                  "--value", "u", "-o", tmp_path / "x.png")
    assert rc == 1 and err.startswith("%s: no /study/sections" % study.path)
    assert not (tmp_path / "x.png").exists()


def test_plot_section(plot_program, sweep, tmp_path):
    fig, title = drawn_figure(plot_program, sweep, "section", sweep.path, "--point",
                              "oscillator", "--scene", "0,5", "--scene", "7",
                              "-o", tmp_path / "s.png")
    ax = fig.axes[0]
    assert legend_texts(ax) == ["scene 0: frequency = 24 Hz, period 1",
                                "scene 5: frequency = 26.5 Hz, period 2",
                                "scene 7: frequency = 27.5 Hz, irregular"]
    sec = sweep.sections(point="oscillator")
    for line, s in zip(ax.get_lines(), (0, 5, 7)):
        part = sec[sec["scene"] == s]
        np.testing.assert_array_equal(line.get_xdata(), part["u"])
        np.testing.assert_array_equal(line.get_ydata(), part["v"])
    # a period-2 orbit is two points, an irregular one many
    assert len(set(ax.get_lines()[1].get_xdata())) == 2
    assert len(set(ax.get_lines()[2].get_xdata())) == fx.SAMPLES
    assert ax.get_xlabel() == "displacement u of oscillator (m)"
    assert ax.get_ylabel() == "velocity v of oscillator (m/s)"
    assert title == "Poincare section of oscillator, 72 samples of 3 scenes"
    # --from/--to window the samples' times
    t0 = float(sec[sec["scene"] == 0]["t"].iloc[10])
    fig, title = drawn_figure(plot_program, sweep, "section", sweep.path, "--point",
                              "oscillator", "--scene", "0", "--from", t0,
                              "-o", tmp_path / "s.png")
    assert len(fig.axes[0].get_lines()[0].get_xdata()) == fx.SAMPLES - 10
    fig, _ = drawn_figure(plot_program, sweep, "section", sweep.path, "--point",
                          "oscillator", "--scene", "7", "--last", 6, "-o", tmp_path / "s.png")
    np.testing.assert_array_equal(fig.axes[0].get_lines()[0].get_xdata(),
                                  sec[sec["scene"] == 7]["u"].to_numpy()[-6:])


def test_plot_section_errors(plot_program, sweep, tmp_path):
    def err(*argv):
        r = subprocess.run([plot_program, "section", sweep.path, "-o",
                            str(tmp_path / "x.png")] + [str(a) for a in argv],
                           capture_output=True, text=True)
        assert r.returncode == 1
        return r.stderr
    assert err("--point", "oscillator", "--scene", "3;4") == (
        "%s: bad --scene '3;4' (a scene number, or several separated by commas)\n"
        % sweep.path)
    assert err("--point", "oscillator", "--scene", "40") == (
        "%s: no scene 40 (valid: 0-10)\n" % sweep.path)
    assert err("--point", "wall") == (
        "%s: no point 'wall' (valid: oscillator, stop)\n" % sweep.path)
    assert err("--point", "oscillator", "--scene", "1", "--from", 100) == (
        "%s: scene 1 has no section samples in the time window\n" % sweep.path)


def cells(study, column, xparam, yparam):
    """The table's column laid out [y][x] by the fixture's own values."""
    t = study.table
    xs, ys = sorted(set(t[xparam])), sorted(set(t[yparam]))
    out = np.full((len(ys), len(xs)), np.nan)
    for _, row in t.iterrows():
        out[ys.index(row[yparam]), xs.index(row[xparam])] = row[column]
    return out, xs, ys


def test_plot_map_period(plot_program, grid, tmp_path):
    fig, title = drawn_figure(plot_program, grid, "map", grid.path, "-o", tmp_path / "m.png")
    ax = fig.axes[0]
    want, xs, ys = cells(grid, "period", AMP, FREQ)
    codes = sorted(set(want.ravel()))
    assert codes == [0, 1, 2]
    index = np.asarray(ax.collections[0].get_array()).reshape(want.shape)
    np.testing.assert_array_equal(index, np.searchsorted(codes, want))
    assert legend_texts(ax) == ["not periodic", "period 1", "period 2"]
    assert ax.get_legend().get_title().get_text() == "period"
    # the amplitude was swept by logspace: a log axis, cells centred on the values
    assert ax.get_xscale() == "log" and ax.get_yscale() == "linear"
    np.testing.assert_allclose(ax.get_xlim(), [0.5 / np.sqrt(10), 50 * np.sqrt(10)])
    np.testing.assert_allclose(ax.get_ylim(), [23.5, 28.5])
    assert ax.get_xlabel() == "amplitude of force 'drive' (forces.drive.amplitude, N)"
    assert ax.get_ylabel() == "frequency of force 'drive' (forces.drive.freq, Hz)"
    assert title == "period over forces.drive.amplitude and forces.drive.freq, 15 scenes"
    # swapped axes: the image is the transpose
    fig, _ = drawn_figure(plot_program, grid, "map", grid.path, "--x", FREQ,
                          "-o", tmp_path / "m.png")
    index = np.asarray(fig.axes[0].collections[0].get_array()).reshape(want.T.shape)
    np.testing.assert_array_equal(index, np.searchsorted(codes, want.T))
    assert fig.axes[0].get_yscale() == "log"


def test_plot_map_lyapunov_and_ids(plot_program, grid, tmp_path):
    """A real-valued column gets a colour bar, diverging around 0 when its
    sign changes; impacts per period and the orbit code a legend."""
    fig, _ = drawn_figure(plot_program, grid, "map", grid.path, "--column", "lyapunov",
                          "-o", tmp_path / "m.png")
    ax, bar = fig.axes
    want, _, _ = cells(grid, "lyapunov", AMP, FREQ)
    got = np.asarray(ax.collections[0].get_array()).reshape(want.shape)
    np.testing.assert_array_equal(got, want)
    norm = ax.collections[0].norm
    assert norm.vcenter == 0 and norm.vmin == np.nanmin(want) and norm.vmax == np.nanmax(want)
    assert bar.get_ylabel() == "lyapunov (1/s)"
    assert ax.get_legend() is None
    fig, _ = drawn_figure(plot_program, grid, "map", grid.path, "--column",
                          "impacts_per_period", "-o", tmp_path / "m.png")
    assert legend_texts(fig.axes[0]) == ["not periodic", "1 impact per period"]
    fig, _ = drawn_figure(plot_program, grid, "map", grid.path, "--column", "orbit",
                          "-o", tmp_path / "m.png")
    assert legend_texts(fig.axes[0]) == ["periodic", "irregular"]


def test_plot_map_errors(plot_program, grid, sweep, tmp_path):
    def err(st, *argv):
        r = subprocess.run([plot_program, "map", st.path, "-o", str(tmp_path / "x.png")]
                           + [str(a) for a in argv], capture_output=True, text=True)
        assert r.returncode == 1
        return r.stderr
    assert err(sweep) == ("%s: a map needs a 2-D grid sweep; the sweep varies 1 parameter "
                          "(forces.drive.freq)\n" % sweep.path)
    assert err(grid, "--column", "periods").startswith(
        "%s: no numeric column 'periods' in /study/table (valid: " % grid.path)
    assert err(grid, "--x", "bodies.oscillator.u0") == (
        "%s: 'bodies.oscillator.u0' is not a swept parameter (valid: %s, %s)\n"
        % (grid.path, AMP, FREQ))
    assert err(grid, "--at", "x") == (
        "%s: bad --at 'x' (expected PATH=VALUE, e.g. %s=1.5)\n" % (grid.path, FREQ))
    assert err(grid, "--at", "scene.fs=3") == (
        "%s: --at scene.fs: not a swept parameter besides x and y (valid: none)\n"
        % grid.path)


def test_plot_basin(plot_program, basin, tmp_path):
    fig, title = drawn_figure(plot_program, basin, "basin", basin.path,
                              "-o", tmp_path / "b.png")
    ax = fig.axes[0]
    want, xs, ys = cells(basin, "attractor", U0, V0)
    np.testing.assert_array_equal(xs, fx.BASIN_U0)
    ids = np.array(fx.basin_ids()).reshape(len(fx.BASIN_U0), len(fx.BASIN_V0)).T
    np.testing.assert_array_equal(want, ids)        # the table is the fixture's
    index = np.asarray(ax.collections[0].get_array()).reshape(want.shape)
    np.testing.assert_array_equal(index, ids + 1)   # codes -1, 0, 1
    assert legend_texts(ax) == ["no attractor (not periodic)", "attractor 0 (period 1)",
                                "attractor 1 (period 3)"]
    handles = ax.get_legend().legend_handles if hasattr(ax.get_legend(), "legend_handles") \
        else ax.get_legend().legendHandles
    colours = [tuple(np.round(h.get_facecolor(), 6)) for h in handles]
    assert len(set(colours)) == 3
    assert ax.get_xlabel() == "initial position of body 'oscillator' (bodies.oscillator.u0, m)"
    assert ax.get_ylabel() == ("initial velocity of body 'oscillator' "
                               "(bodies.oscillator.v0, m/s)")
    assert ax.get_xscale() == "linear"
    assert title == "basins of 2 attractors over bodies.oscillator.u0 and bodies.oscillator.v0"


def test_plot_kinds_write_files(plot_program, files, tmp_path):
    """Each new kind through the installed program, to an SVG whose text
    carries the axis labels and the legend."""
    runs = [("section", files["sweep"], ["--point", "oscillator", "--scene", "5"],
             ["velocity v of oscillator (m/s)", "scene 5: frequency = 26.5 Hz, period 2"]),
            ("bifurcation", files["sweep"], ["--point", "oscillator", "--color-by", "period"],
             ["period 3", "irregular", "not settled"]),
            ("map", files["grid"], ["--column", "lyapunov"], ["lyapunov (1/s)"]),
            ("basin", files["basin"], [], ["attractor 1 (period 3)"])]
    for kind, path, extra, texts in runs:
        svg = tmp_path / (kind + ".svg")
        r = subprocess.run([plot_program, kind, path, "-o", str(svg)] + extra,
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        text = svg.read_text()
        for t in texts:
            assert "<!-- %s -->" % t in text, (kind, t)


def test_random_grid_map(tmp_path):
    """A grid far past the examples (random sizes, random codes): every
    cell of the image is its scene's value."""
    rng = np.random.default_rng(20)
    nx, ny = rng.integers(17, 31, size=2)
    path = str(tmp_path / "r.h5")
    fx.write_random(path, int(nx), int(ny), rng)
    st = vibro.open(path)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    for column in ("period", "attractor", "lyapunov"):
        fig, ax = plt.subplots()
        drawn = vibro.plot_map(ax, st, column)
        want, _, _ = cells(st, column, drawn["xparam"], drawn["yparam"])
        got = np.asarray(ax.collections[0].get_array()).reshape(want.shape)
        if column == "lyapunov":
            np.testing.assert_array_equal(got, want)
        else:
            codes = sorted(set(want.ravel()))
            assert drawn["codes"] == codes
            np.testing.assert_array_equal(got, np.searchsorted(codes, want))
        plt.close(fig)


def test_sections_order(sweep, tmp_path):
    """Rows in any order in the file (shards, a merge) come back ordered by
    scene, then k; the impact map by scene, then t."""
    path = str(tmp_path / "shuffled.h5")
    shutil.copy(sweep.path, path)
    rng = np.random.default_rng(7)
    with h5py.File(path, "r+") as f:
        for group in ("sections", "impact_map"):
            g = f["study/" + group]
            perm = rng.permutation(len(g["scene"]))
            for name, ds in g.items():
                if name not in ("section", "impact", "point"):
                    ds[...] = ds[()][perm]
    st = vibro.open(path)
    a, b = sweep.sections(), st.sections()
    assert not np.array_equal(h5py.File(path)["study/sections/u"][:, 0],
                              h5py.File(sweep.path)["study/sections/u"][:, 0])
    assert a.equals(b)
    assert sweep.impact_map().equals(st.impact_map())


def test_plot_map_three_paths(plot_program, tmp_path):
    """A third swept path: one swept over a single value fixes itself, one
    over several needs --at (the nearest value is taken)."""
    st = vibro.open(fx.write_grid3(str(tmp_path / "g3.h5")))
    fig, _ = drawn_figure(plot_program, st, "map", st.path, "--x", FREQ, "--y", U0,
                          "--at", "%s=4.2" % AMP, "-o", tmp_path / "m.png")
    t = st.table[np.isclose(st.table[AMP], 5.0)].sort_values(FREQ)
    got = np.asarray(fig.axes[0].collections[0].get_array())
    codes = sorted(set(t["period"]))
    np.testing.assert_array_equal(got, np.searchsorted(codes, t["period"].to_numpy()))
    # default axes: the two paths that vary; u0 (one value) needs no --at
    fig, _ = drawn_figure(plot_program, st, "map", st.path, "-o", tmp_path / "m.png")
    assert fig.axes[0].get_xlabel().startswith("amplitude")
    assert fig.axes[0].get_ylabel().startswith("frequency")
    r = subprocess.run([plot_program, "map", st.path, "--x", FREQ, "--y", U0,
                        "-o", str(tmp_path / "x.png")], capture_output=True, text=True)
    assert r.returncode == 1 and r.stderr == (
        "%s: 3 swept parameters: a map shows two; fix %s with --at %s=VALUE "
        "(values: 0.5, 5)\n" % (st.path, AMP, AMP))

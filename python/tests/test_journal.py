"""vibro-plot's figures at a journal's size (issue 31 item 5): every kind
drawn at --size 3.4x2.4in --dpi 300 (one column of a two-column journal)
with no two texts overlapping, every text inside the figure, and no legend
covering data; and the figures' new choices: cor --first and --ylim, the
micro-impacts of a settling scene off cor's default axis, bifurcation --at
for a slice of a 2-D sweep, the signal's own name and units on its y axis,
the spectrogram's frequency axis up to its content.

The overlap checks are this file's own (the renderer's text extents and
the data's display coordinates), not vibro-plot's layout code, and the
expected values come from the studies' tables and signals."""

import os
import subprocess

import numpy as np
import pytest

import vibro
import analysis_fixture as fx
from conftest import SCENES
from test_examples import load_plot

JOURNAL = ["--size", "3.4x2.4in", "--dpi", "300"]


@pytest.fixture(scope="module")
def analysis_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("journal-analysis")
    return {k: fx.write(k, str(d / (k + ".h5"))) for k in ("sweep", "grid", "basin")}


@pytest.fixture(scope="module")
def settling(tmp_path_factory):
    """The ball on the plate at 8 kHz: it comes to rest in micro-impacts
    whose CORs run from -210 to 225 (v_out of the plate's vibration over a
    v_in near 0)."""
    d = tmp_path_factory.mktemp("journal-settle")
    text = open(os.path.join(SCENES, "bouncing-on-plate.cfg")).read()
    assert "fs = 44100.0;" in text
    cfg = d / "settle.cfg"
    cfg.write_text(text.replace("fs = 44100.0;", "fs = 8000.0;"))
    return vibro.run(str(cfg), str(d / "settle.h5"))


@pytest.fixture(scope="module")
def friction_files(tmp_path_factory):
    """The belt (scenes/belt-stick-slip.cfg) and a bow-force sweep of the
    bowed string at 0.4 s (issue 30 item 6's kinds)."""
    d = tmp_path_factory.mktemp("journal-friction")
    belt = vibro.run(os.path.join(SCENES, "belt-stick-slip.cfg"), str(d / "belt.h5"))
    text = open(os.path.join(SCENES, "bowed-string.cfg")).read()
    assert "duration = 0.5;" in text
    text = text.replace("duration = 0.5;", "duration = 0.4;")
    text += ('\nsweep = { mode = "grid"; params = ( { path = "contacts.hair.normal_force"; '
             'values = [0.002, 0.03, 0.4, 2.5]; } ); };\n')
    (d / "bow.cfg").write_text(text)
    return belt, vibro.run(str(d / "bow.cfg"), str(d / "bow.h5"))


def drawn(plot_program, study, *argv):
    """Run a kind in-process through vibro-plot's own save (its title and
    layout), stopping before the file is written; (figure, title)."""
    mod = load_plot(plot_program)
    got = {}
    mod.write = lambda fig, args: got.update(fig=fig)
    args = mod.build_parser().parse_args([str(a) for a in argv])
    mod.KINDS[args.kind][0](study, args)
    fig = got["fig"]
    fig.canvas.draw()
    title = fig._suptitle.get_text() if fig._suptitle is not None else ""
    return fig, title


# ------------------------------------------------------------ the checks

def shown_ticks(axis):
    """Tick labels of an axis that the renderer draws (within the view)."""
    lo, hi = sorted(axis.get_view_interval())
    span = abs(hi - lo)
    out = []
    for tick in axis.get_major_ticks():
        if lo - 1e-9 * span <= tick.get_loc() <= hi + 1e-9 * span:
            out += [t for t in (tick.label1, tick.label2) if t.get_visible() and t.get_text()]
    return out


def texts(fig):
    """(name, bbox) of every text drawn: the title, each axes' title, axis
    labels, offset texts and tick labels, and each legend's box whole."""
    r = fig.canvas.get_renderer()
    out = []
    if fig._suptitle is not None and fig._suptitle.get_text():
        out.append(("title", fig._suptitle.get_window_extent(r)))
    for i, ax in enumerate(fig.axes):
        for name, t in (("axes title", ax.title), ("x label", ax.xaxis.label),
                        ("y label", ax.yaxis.label),
                        ("x offset", ax.xaxis.get_offset_text()),
                        ("y offset", ax.yaxis.get_offset_text())):
            if t.get_visible() and t.get_text():
                out.append(("axes %d %s '%s'" % (i, name, t.get_text().replace("\n", " ")),
                            t.get_window_extent(r)))
        for axis, which in ((ax.xaxis, "x"), (ax.yaxis, "y")):
            for t in shown_ticks(axis):
                out.append(("axes %d %s tick '%s'" % (i, which, t.get_text()),
                            t.get_window_extent(r)))
        leg = ax.get_legend()
        if leg is not None and leg.get_visible():
            out.append(("axes %d legend" % i, leg.get_window_extent(r)))
    return out


def data_xy(ax):
    """Display coordinates of an axes' data: its lines' vertices and points
    every pixel along their segments, its scatters' points; lines spanning
    the axes (axhline, axvline: their x or y in axes units) are references,
    not data."""
    import matplotlib.transforms as mt
    pts = []
    for line in ax.get_lines():
        if not line.get_visible():
            continue
        tr = line.get_transform()
        if isinstance(tr, mt.BlendedGenericTransform):
            continue
        xy = tr.transform(np.column_stack([np.asarray(line.get_xdata(), float),
                                           np.asarray(line.get_ydata(), float)]))
        good = np.isfinite(xy).all(axis=1)
        pts.append(xy[good])
        if line.get_linestyle() in ("None", "", " "):
            continue
        for a, b, ok in zip(xy[:-1], xy[1:], good[:-1] & good[1:]):
            if ok:
                n = int(min(np.hypot(*(b - a)), 2000))
                if n > 1:
                    pts.append(a + np.linspace(0, 1, n)[:, None] * (b - a))
    for c in ax.collections:
        if type(c).__name__ == "PathCollection" and c.get_visible():
            xy = c.get_offset_transform().transform(np.asarray(c.get_offsets(), float))
            pts.append(xy[np.isfinite(xy).all(axis=1)])
    return np.concatenate(pts) if pts else np.zeros((0, 2))


def is_image(ax):
    return any(type(c).__name__ == "QuadMesh" for c in ax.collections)


def check_journal(fig, what):
    """No two texts overlap, all are inside the figure, no legend covers
    data (for an image: the legend keeps off the axes)."""
    check_texts(fig, what)
    check_legends(fig, what)


def check_texts(fig, what):
    """No two texts overlap, and all are inside the figure."""
    w, h = fig.bbox.width, fig.bbox.height
    assert abs(w - 3.4 * 300) < 2 and abs(h - 2.4 * 300) < 2, (what, w, h)
    items = texts(fig)
    assert items, what
    for name, b in items:
        assert b.x0 >= -0.5 and b.y0 >= -0.5 and b.x1 <= w + 0.5 and b.y1 <= h + 0.5, \
            "%s: %s outside the figure (%s, figure %gx%g)" % (what, name, b, w, h)
    for i in range(len(items)):
        for j in range(i + 1, len(items)):
            (na, a), (nb, b) = items[i], items[j]
            assert not a.overlaps(b), "%s: %s overlaps %s" % (what, na, nb)


def check_legends(fig, what):
    """No legend covers data (for an image: the legend keeps off it)."""
    r = fig.canvas.get_renderer()
    for i, ax in enumerate(fig.axes):
        leg = ax.get_legend()
        if leg is None or not leg.get_visible():
            continue
        box = leg.get_window_extent(r)
        if is_image(ax):
            assert not box.overlaps(ax.get_window_extent(r)), \
                "%s: axes %d's legend lies on its image" % (what, i)
            continue
        xy = data_xy(ax)
        inside = ((xy[:, 0] > box.x0) & (xy[:, 0] < box.x1) &
                  (xy[:, 1] > box.y0) & (xy[:, 1] < box.y1))
        assert not inside.any(), "%s: axes %d's legend covers %d data points" \
            % (what, i, inside.sum())


# ------------------------------------------------------------ every kind

def kinds(bar, study, analysis_files, settling, friction_files):
    """(label, study, argv) of every kind of vibro-plot, on data it draws."""
    belt, bow = friction_files
    sweep = vibro.open(analysis_files["sweep"])
    grid = vibro.open(analysis_files["grid"])
    basin = vibro.open(analysis_files["basin"])
    return [
        ("signal", bar, ["signal", bar.path]),
        ("signal of two units", bar, ["signal", bar.path, "--signal", "bodies/hammer/u",
                                      "--signal", "contacts/hit/force",
                                      "--signal", "energy/total"]),
        ("spectrum", bar, ["spectrum", bar.path]),
        ("spectrogram", bar, ["spectrogram", bar.path]),
        ("phase", bar, ["phase", bar.path]),
        ("force", bar, ["force", bar.path]),
        ("energy", bar, ["energy", bar.path]),
        ("vout", study, ["vout", study.path]),
        ("cor", study, ["cor", study.path]),
        ("cor --first", settling, ["cor", settling.path, "--first"]),
        ("cor of a settling scene", settling, ["cor", settling.path]),
        ("bifurcation", study, ["bifurcation", study.path, "--param", "contacts.hit.mu"]),
        ("bifurcation --at", study, ["bifurcation", study.path, "--param", "contacts.hit.mu",
                                     "--at", "bodies.hammer.v0=1.7"]),
        ("bifurcation of a section", sweep, ["bifurcation", sweep.path, "--point",
                                             "oscillator", "--color-by", "period"]),
        ("section", sweep, ["section", sweep.path, "--point", "oscillator"]),
        ("map", grid, ["map", grid.path]),
        ("map lyapunov", grid, ["map", grid.path, "--column", "lyapunov"]),
        ("basin", basin, ["basin", basin.path]),
        ("friction", belt, ["friction", belt.path]),
        ("friction --signed", belt, ["friction", belt.path, "--signed"]),
        ("friction of the bow", bow, ["friction", bow.path, "--scene", "2"]),
        ("stickslip", belt, ["stickslip", belt.path]),
        ("stickslip of the bow", bow, ["stickslip", bow.path, "--scene", "2"]),
        ("schelleng", bow, ["schelleng", bow.path]),
    ]


def test_every_kind_at_journal_size(plot_program, bar, study, analysis_files, settling,
                                    friction_files, tmp_path):
    failed = []
    for what, st, argv in kinds(bar, study, analysis_files, settling, friction_files):
        fig, _ = drawn(plot_program, st, *(argv + ["-o", tmp_path / "f.png"] + JOURNAL))
        keep = os.environ.get("VIBRO_JOURNAL_DIR")    # to look at them
        if keep:
            fig.savefig(os.path.join(keep, what.replace(" ", "_") + ".png"), dpi=300)
        try:
            check_journal(fig, what)
        except AssertionError as e:
            failed.append(str(e).split("\n")[0])
    assert not failed, "\n".join(failed)


def test_the_check_fails_on_overlap(plot_program, study, tmp_path):
    """The checks above can fail: a legend pinned over the points, and a
    tick label moved onto its neighbour."""
    fig, _ = drawn(plot_program, study, "cor", study.path, "-o", tmp_path / "c.png", *JOURNAL)
    ax = fig.axes[0]
    xy = ax.collections[0].get_offsets()
    ax.legend(loc="center", bbox_to_anchor=tuple(ax.transAxes.inverted().transform(
        ax.transData.transform(xy[0]))), bbox_transform=ax.transAxes)
    fig.canvas.draw()
    with pytest.raises(AssertionError, match="legend covers"):
        check_legends(fig, "pinned legend")
    fig, _ = drawn(plot_program, study, "vout", study.path, "-o", tmp_path / "v.png", *JOURNAL)
    ax = fig.axes[0]
    ticks = shown_ticks(ax.xaxis)
    ticks[1].set_text(ticks[1].get_text() + " " * 40 + "wide")
    with pytest.raises(AssertionError, match="overlaps"):
        check_texts(fig, "wide tick")


def test_every_kind_writes_at_journal_size(plot_program, bar, analysis_files, tmp_path):
    """The program itself at that size: a PNG of 1020 x 720 pixels."""
    import matplotlib.image as mimg
    for kind, path in (("spectrogram", bar.path), ("basin", analysis_files["basin"])):
        out = tmp_path / (kind + ".png")
        r = subprocess.run([plot_program, kind, path, "-o", str(out)] + JOURNAL,
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert mimg.imread(str(out)).shape[:2] == (720, 1020)


# ------------------------------------------------------------ cor

def simulated(ax):
    """The impacts a COR figure drew, (N, 2): its scatter, or its line of
    points labelled 'simulated' when nothing colours them."""
    if ax.collections:
        return np.asarray(ax.collections[0].get_offsets(), float)
    line = [ln for ln in ax.get_lines() if ln.get_label() == "simulated"][0]
    return np.column_stack([np.asarray(line.get_xdata(), float),
                            np.asarray(line.get_ydata(), float)])


def test_cor_micro_impacts_off_the_axis(plot_program, settling, tmp_path):
    """A settling scene: the default y axis spans the CORs of the impacts
    with v_in above 1 % of the largest, and the title counts those left
    off; --ylim sets it, --first keeps the first impact alone."""
    ev = settling.events()
    v_in, cor = ev["v_in"].to_numpy(float), ev["cor"].to_numpy(float)
    ok = np.isfinite(v_in) & np.isfinite(cor)
    assert cor[ok].min() < -100 and cor[ok].max() > 100      # what the issue saw
    big = ok & (v_in >= 0.01 * v_in[ok].max())
    lo, hi = cor[big].min(), cor[big].max()
    fig, title = drawn(plot_program, settling, "cor", settling.path, "-o", tmp_path / "c.png")
    ax = fig.axes[0]
    ylo, yhi = ax.get_ylim()
    pad = 0.05 * (hi - lo)
    assert ylo == pytest.approx(lo - pad) and yhi == pytest.approx(hi + pad)
    off = int((ok & ((cor < ylo) | (cor > yhi))).sum())
    assert off > 0
    assert ("%d micro-impacts (v_in < %.3g m/s) off the axis (--ylim)"
            % (off, 0.01 * v_in[ok].max())) in title
    np.testing.assert_array_equal(simulated(ax)[:, 1], cor)
    # --ylim
    fig, title = drawn(plot_program, settling, "cor", settling.path, "--ylim=-300,300",
                       "-o", tmp_path / "c.png")
    assert fig.axes[0].get_ylim() == (-300.0, 300.0)
    assert "micro-impacts" not in title and "outside --ylim" not in title
    fig, title = drawn(plot_program, settling, "cor", settling.path, "--ylim", "0,1",
                       "-o", tmp_path / "c.png")
    assert "%d outside --ylim" % int((ok & ((cor < 0) | (cor > 1))).sum()) in title
    # --first: the first impact of the scene's one contact
    fig, title = drawn(plot_program, settling, "cor", settling.path, "--first",
                       "-o", tmp_path / "c.png")
    first = ev[np.isfinite(ev["v_in"].to_numpy(float))].sort_values("t_on").iloc[0]
    np.testing.assert_array_equal(simulated(fig.axes[0]), [[first["v_in"], first["cor"]]])
    assert title.startswith("COR against v_in, 1 first impact")
    assert not title.startswith("COR against v_in, 1 first impacts")


def test_cor_first_of_each_scene(plot_program, study, tmp_path):
    """--first on a study: one impact a scene and contact, the earliest."""
    ev = study.events()
    want = ev.sort_values("t_on").groupby(["scene", "contact"]).head(1).sort_index()
    fig, _ = drawn(plot_program, study, "cor", study.path, "--first", "-o", tmp_path / "c.png")
    pts = np.asarray(fig.axes[0].collections[0].get_offsets())
    np.testing.assert_array_equal(pts[:, 0], want["v_in"].to_numpy(float))
    np.testing.assert_array_equal(pts[:, 1], want["cor"].to_numpy(float))


def test_cor_ylim_errors(plot_program, study, tmp_path):
    out = tmp_path / "c.png"
    for bad, why in (("1", "expected LO,HI, e.g. 0,1.2"), ("2,1", "LO must be below HI")):
        r = subprocess.run([plot_program, "cor", study.path, "--ylim", bad, "-o", str(out)],
                           capture_output=True, text=True)
        assert r.returncode == 1 and r.stderr == "bad --ylim '%s' (%s)\n" % (bad, why)


# ------------------------------------------------------------ bifurcation --at

def test_bifurcation_at(plot_program, study, analysis_files, tmp_path):
    """A slice of the 3 x 2 grid: mu on x at v0 = 1.7 only (the nearest
    swept value to 1.69), so each point is a scene's one impact there."""
    t = study.table
    scenes = t.index[t["bodies.hammer.v0"] == 1.7]
    ev = study.events()
    want = ev[ev["scene"].isin(scenes)]
    fig, title = drawn(plot_program, study, "bifurcation", study.path, "--param",
                       "contacts.hit.mu", "--at", "bodies.hammer.v0=1.69",
                       "-o", tmp_path / "b.png")
    ax = fig.axes[0]
    xy = np.asarray(ax.get_lines()[0].get_xydata() if ax.get_lines() else
                    ax.collections[0].get_offsets())
    np.testing.assert_array_equal(xy[:, 0], t.loc[want["scene"], "contacts.hit.mu"])
    np.testing.assert_array_equal(xy[:, 1], want["v_in"])
    assert title == "v_in against contacts.hit.mu, 3 impacts, at bodies.hammer.v0 = 1.7"
    # a swept path that is not one besides x, and a section's slice
    r = subprocess.run([plot_program, "bifurcation", study.path, "--param", "contacts.hit.mu",
                        "--at", "contacts.hit.k=1e9", "-o", str(tmp_path / "x.png")],
                       capture_output=True, text=True)
    assert r.returncode == 1
    assert r.stderr == ("%s: --at contacts.hit.k: not a swept parameter besides "
                        "contacts.hit.mu (valid: bodies.hammer.v0)\n" % study.path)
    grid = vibro.open(analysis_files["grid"])
    x, other = "forces.drive.freq", "forces.drive.amplitude"
    value = float(np.unique(grid.table[other].to_numpy(float))[1])   # 5 N
    fig, title = drawn(plot_program, grid, "bifurcation", grid.path, "--param", x,
                       "--at", "%s=%r" % (other, value), "--point", "oscillator",
                       "-o", tmp_path / "g.png")
    sec = grid.sections(point="oscillator")
    keep = sec[grid.table.loc[sec["scene"], other].to_numpy() == value]
    drawn_y = np.concatenate([ln.get_ydata() for ln in fig.axes[0].get_lines()])
    assert sorted(drawn_y) == sorted(keep["u"].to_numpy(float))
    assert "at %s = %g" % (other, value) in title


# ------------------------------------------------------------ signal, spectrogram

def test_signal_label_is_the_signals(plot_program, bar, tmp_path):
    """The y axis names the signal and its units, not "value (m)"."""
    fig, _ = drawn(plot_program, bar, "signal", bar.path, "--signal", "bodies/hammer/u",
                   "-o", tmp_path / "s.png")
    assert fig.axes[0].get_ylabel() == "displacement u of hammer (m)"
    assert fig.axes[0].get_legend() is None
    fig, _ = drawn(plot_program, bar, "signal", bar.path, "--signal", "energy/total",
                   "--signal", "energy/kinetic", "-o", tmp_path / "s.png")
    assert fig.axes[0].get_ylabel() == "energy (J)"
    for ax in fig.axes:
        assert not ax.get_ylabel().startswith("value"), ax.get_ylabel()


def test_spectrogram_follows_content(plot_program, bar, tmp_path):
    """The frequency axis ends a little above the frequency below which
    99.9 % of the signal's energy lies (here from the whole signal's FFT),
    not at fs/2; --fmax sets it."""
    fig, _ = drawn(plot_program, bar, "spectrogram", bar.path, "-o", tmp_path / "g.png")
    ax = fig.axes[0]
    path = [p for p in bar.scene(bar.scenes[0]).signals if p.startswith("bodies/bar/")
            and p.endswith("/u")][0]
    da = bar.scene(bar.scenes[0]).signal(path)
    x = np.asarray(da.values, float)
    fs = 1.0 / float(np.median(np.diff(da["time"].values)))
    p = np.abs(np.fft.rfft(x - x.mean())) ** 2
    f = np.fft.rfftfreq(len(x), 1 / fs)
    f999 = f[np.searchsorted(np.cumsum(p) / p.sum(), 0.999)]
    top = ax.get_ylim()[1]
    assert 0.5 * f999 < top < 0.5 * fs / 2, (f999, top, fs)
    fig, _ = drawn(plot_program, bar, "spectrogram", bar.path, "--fmax", "3000",
                   "-o", tmp_path / "g.png")
    assert fig.axes[0].get_ylim()[1] <= 3000 + fs / 2 / 100

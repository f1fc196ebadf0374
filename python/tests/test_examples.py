"""The examples in their reduced form (--quick), and vibro-plot's new kinds."""

import os
import re
import subprocess
import sys

import pytest

from conftest import TOP

EXAMPLES = os.path.join(TOP, "examples")


def run_example(name, tmp_path, *extra):
    png = tmp_path / (name + ".png")
    r = subprocess.run([sys.executable, os.path.join(EXAMPLES, name + ".py"), "--quick",
                        "-o", str(png), "--dir", str(tmp_path)] + list(extra),
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    return r.stdout


def test_fig8(tmp_path):
    out = run_example("papetti_fig8", tmp_path)
    # the corrected runs keep to the analytic impact times within 0.2 ms
    for line in out.splitlines():
        m = re.search(r"(corrected|uncorrected)\s+(\d+) bounces.*by ([-+][0-9.]+) ms", line)
        if m and m.group(1) == "corrected":
            assert abs(float(m.group(3))) < 0.2, line
    assert out.count(" corrected ") == 2


def test_cor(tmp_path):
    out = run_example("cor_hunt_crossley", tmp_path)
    assert out.startswith("20 impacts")


def test_impact_oscillator(tmp_path):
    out = run_example("impact_oscillator", tmp_path)
    assert "24:" in out and "29:" in out


def test_impact_oscillator_periods(tmp_path):
    """The bifurcation diagram with its period labels: the example exits 1
    when a period or impact speed at its stated frequencies is not the
    scene comment's; here the classes it printed are checked as well."""
    out = run_example("impact_oscillator_periods", tmp_path)
    found = dict(w.split(" Hz ") for w in out.splitlines()[0].split(", "))
    assert found == {"24": "period 1", "25": "period 1", "26.6": "period 2",
                     "26.8": "period 2", "28": "irregular", "29": "irregular"}, out
    assert "MISMATCH" not in out


def test_bouncing_ball_periods(tmp_path):
    """The shaken ball's period doubling: the example exits 1 when a scene
    between Gamma_1 and Gamma_2 is not period 1, one just past Gamma_2 not
    period 2, or the fitted boundary is off the closed form; here the
    closed form it printed and the classes are checked as well."""
    out = run_example("bouncing_ball_periods", tmp_path)
    lines = out.splitlines()
    assert lines[0].startswith("restitution 0.4704") and "Gamma_2 1.5988" in lines[0], out
    found = dict(w.split(" ", 1) for w in lines[1].split(", "))
    assert all(found[g] == "period 1" for g in ("1.2", "1.4", "1.55")), out
    assert all(found[g] == "period 2" for g in ("1.61", "1.62", "1.63", "1.64", "1.65",
                                                "1.66")), out
    assert "MISMATCH" not in out


def plot(plot_program, *args):
    return subprocess.run([plot_program] + [str(a) for a in args], capture_output=True,
                          text=True)


def test_plot_spectrum(plot_program, bar, study, tmp_path):
    svg = tmp_path / "spec.svg"
    r = plot(plot_program, "spectrum", bar.path, "-o", svg)
    assert r.returncode == 0, r.stderr
    text = svg.read_text()
    assert "<!-- modes of bar (3) -->" in text and "<!-- dB re 1 m -->" in text
    assert "<!-- bodies/bar/strike/u -->" in text
    r = plot(plot_program, "spectrum", bar.path, "--from", 0.1, "--to", 0.2,
             "--fmax", 3000, "-o", tmp_path / "spec.png", "--size", "640x400")
    assert r.returncode == 0, r.stderr
    r = plot(plot_program, "spectrogram", bar.path, "-o", tmp_path / "sg.svg", "--fmax", 3000)
    assert r.returncode == 0, r.stderr
    assert "(1024-sample segments)" in (tmp_path / "sg.svg").read_text()
    r = plot(plot_program, "spectrum", bar.path, "--from", 0.6, "-o", tmp_path / "x.png")
    assert r.returncode == 1 and r.stderr == (
        "%s: scene 0: no samples between 0.6 and inf s (recorded 0 to 0.5 s)\n" % bar.path)
    assert not (tmp_path / "x.png").exists()


def test_plot_signal_scales(plot_program, bar, tmp_path):
    """The hammer (mm) and the bar (um) get separate axes, each labelled
    with its signal's name and units (not "value (m)")."""
    svg = tmp_path / "sig.svg"
    r = plot(plot_program, "signal", bar.path, "--signal", "bodies/hammer/u",
             "--signal", "bodies/bar/strike/u", "--to", 0.01, "-o", svg)
    assert r.returncode == 0, r.stderr
    text = svg.read_text()
    assert text.count("<!-- displacement u of hammer (m) -->") == 1
    # (its power of ten in the label, which wraps on the short panel)
    assert text.count("<!-- displacement u of bar.strike (1e\u22125") == 1
    assert "value (m)" not in text
    r = plot(plot_program, "signal", bar.path, "--signal", "bodies/hammer/u",
             "--signal", "bodies/hammer/u", "-o", svg)
    assert svg.read_text().count("<!-- displacement u of hammer (m) -->") == 1


def test_plot_color_by(plot_program, study, tmp_path):
    svg = tmp_path / "vout.svg"
    r = plot(plot_program, "vout", study.path, "--color-by", "contacts.hit.mu", "-o", svg)
    assert r.returncode == 0, r.stderr
    assert "<!-- damping of contact 'hit' (contacts.hit.mu, s/m) -->" in svg.read_text()
    # two swept parameters: the second colours the bifurcation diagram
    r = plot(plot_program, "bifurcation", study.path, "--param", "bodies.hammer.v0",
             "--value", "cor", "-o", svg)
    assert r.returncode == 0, r.stderr
    text = svg.read_text()
    assert "<!-- initial velocity of body 'hammer' (bodies.hammer.v0, m/s) -->" in text and "<!-- damping of contact 'hit' (contacts.hit.mu, s/m) -->" in text
    r = plot(plot_program, "vout", study.path, "--color-by", "contacts.hit.muu", "-o", svg)
    assert r.returncode == 1 and r.stderr.startswith(
        "%s: --color-by: no numeric column 'contacts.hit.muu' in /study/table (valid: "
        "contacts.hit.mu, bodies.hammer.v0, status_code, " % study.path)


def test_plot_file_safety(plot_program, study, tmp_path):
    """The figure is written whole or not at all; symbolic links and the
    input are refused; a missing directory is one line."""
    link = tmp_path / "link.png"
    target = tmp_path / "target.png"
    target.write_bytes(b"keep")
    link.symlink_to(target)
    r = plot(plot_program, "vout", study.path, "-o", link)
    assert r.returncode == 1 and r.stderr == "%s: is a symbolic link; not writing through it\n" % link
    assert target.read_bytes() == b"keep"
    svg = tmp_path / "in.svg"
    os.link(study.path, svg)
    r = plot(plot_program, "vout", svg, "-o", svg)
    assert r.returncode == 1 and r.stderr == "%s: is the input file; not overwriting it\n" % svg
    r = plot(plot_program, "vout", study.path, "-o", tmp_path / "no" / "x.png")
    assert r.returncode == 1 and r.stderr == (
        "%s: cannot write: No such file or directory\n" % (tmp_path / "no" / "x.png"))
    old = tmp_path / "old.png"
    old.write_bytes(b"old")
    r = plot(plot_program, "vout", study.path, "-o", old)
    assert r.returncode == 0 and old.read_bytes()[:4] == b"\x89PNG"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.svg", "link.png", "old.png",
                                                          "target.png"]


def load_plot(plot_program):
    """vibro-plot as a module, to read what it draws."""
    import importlib.machinery
    import importlib.util
    loader = importlib.machinery.SourceFileLoader("vibro_plot", str(plot_program))
    spec = importlib.util.spec_from_loader("vibro_plot", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def test_plot_energy_balance_with_corrections(plot_program, bounce, tmp_path):
    """The bouncing ball with Papetti's corrections: the drawn balance line
    is the run's own balance, total + dissipated - external - correction
    (vb_run_balance_error), so it ends at the table's energy_balance_error;
    without the correction term (issue 21) it stepped at every corrected
    release and ended 1.75e-5 J away.  AM1's own energy error remains in it
    (the trapezoidal force average does not conserve V), as it should."""
    import numpy as np
    mod = load_plot(plot_program)
    drawn = {}
    mod.save = lambda fig, args, title: drawn.update(ax=fig.axes[0])
    args = mod.build_parser().parse_args(["energy", bounce.path, "-o", str(tmp_path / "e.png")])
    mod.kind_energy(bounce, args)
    lines = {ln.get_label(): np.asarray(ln.get_ydata()) for ln in drawn["ax"].get_lines()}
    key = "total + dissipated - external - correction"
    assert key in lines, sorted(lines)
    scale = np.max(np.abs(lines["total"]))
    corr = lines["correction"]
    assert abs(corr[-1]) > 1e-2 * scale  # the corrections did change the energy
    want = float(bounce.table["energy_balance_error"].iloc[0])
    got = lines[key][-1] - lines[key][0]
    assert abs(got - want) < 1e-12 * scale, (got, want)


def drawn_figure(plot_program, study, *argv):
    """Run a vibro-plot kind in-process; its figure and title."""
    mod = load_plot(plot_program)
    got = {}
    mod.save = lambda fig, args, title: got.update(fig=fig, title=title)
    args = mod.build_parser().parse_args([str(a) for a in argv])
    mod.KINDS[args.kind][0](study, args)
    return got["fig"], got["title"]


def test_plot_cor(plot_program, study, tmp_path):
    """cor: -v_out/v_in of every impact against v_in, coloured by the one
    swept parameter that is not the initial velocity (mu here), with the
    analytic COR through eq 6, one curve per mu, labelled in words."""
    import numpy as np
    fig, title = drawn_figure(plot_program, study, "cor", study.path, "-o", tmp_path / "c.png")
    ax, bar = fig.axes
    ev = study.events()
    pts = ax.collections[0].get_offsets()
    assert len(pts) == len(ev) == 6
    np.testing.assert_array_equal(np.asarray(pts)[:, 1], ev["cor"].to_numpy(float))
    np.testing.assert_array_equal(ax.collections[0].get_array(),
                                  ev["contacts.hit.mu"].to_numpy(float))
    assert bar.get_ylabel() == "damping of contact 'hit' (contacts.hit.mu, s/m)"
    curves = [ln for ln in ax.get_lines() if "eq 6" in ln.get_label()]
    assert len(curves) == 3  # one per mu: 0.1, 0.5, 2.385
    for ln in curves:
        mu = float(ln.get_label().rsplit("mu ", 1)[1])
        v_in = np.asarray(ln.get_xdata())
        want = [-vibro_v_out_exact(v, mu) / v for v in v_in]
        np.testing.assert_allclose(ln.get_ydata(), want, rtol=1e-9)
    assert title == "COR against v_in, 6 impacts"


def vibro_v_out_exact(v_in, mu):
    import vibro
    return vibro.v_out_exact(v_in, mu)


def test_plot_cor_counts_unfinished(plot_program, tmp_path):
    """An impact still in contact when the scene ends has no v_out: the
    title says how many were left out, rather than matplotlib dropping them
    silently (issue 21)."""
    import vibro
    from conftest import hammer
    scene = hammer(mu=0.5, v0=1.0)
    scene["scene"]["duration"] = 0.0001  # the contact lasts 0.136 ms
    st = vibro.run(scene, str(tmp_path / "short.h5"))
    fig, title = drawn_figure(plot_program, st, "cor", st.path, "-o", tmp_path / "c.png")
    assert "1 without cor (contact not over at the end of the scene)" in title, title


def test_shaker_controller(tmp_path):
    """The step API's example: the controller holds the table's mean
    amplitude within 3 % of its target (the example's exit status), and the
    stepped run's file reads as any output."""
    out = run_example("shaker_controller", tmp_path)
    assert "status done" in out, out
    st = vibro_open(tmp_path / "shaker.h5")
    assert len(st.events("bounce")) > 10
    assert st.table["status"].iloc[0] == "done"


def vibro_open(path):
    import vibro
    return vibro.open(str(path))

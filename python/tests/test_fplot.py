"""Friction's figures and what they read (issue 30 item 6): /model's
friction attributes, the friction curve a run traced, the stick-slip phase
portrait and the Schelleng regimes of a bow-force sweep, each against
values computed here (the belt's m g and mu_k, the bow curve's formula
written out below, the string's f1 = c / 2L and the regimes doc/friction.md
reports), never against vibro's own output."""

import os

import numpy as np
import pytest

import vibro
from conftest import SCENES
from test_journal import drawn, check_journal, JOURNAL

pytestmark = pytest.mark.filterwarnings("ignore:.*ended inside an impact")

EPS = np.finfo(float).eps
M, G, V, MU_S, MU_K = 1.0, 9.81, 0.02, 0.6, 0.4       # scenes/belt-stick-slip.cfg
# scenes/bowed-string.cfg: 0.33 m, 50 N, 2.87 g/m; the bow curve's parameters
L, T, RHO = 0.33, 50.0, 2.87e-3
BOW_MU_S, BOW_MU_D, BOW_V0 = 0.8, 0.3, 0.1
# a bow-force sweep, N: far below any stick (mu_s N = 1.6 mN against the
# 2 Z0 v_b = 76 mN it takes to bring a point of the string to the bow's
# speed), below Schelleng's minimum, inside the Helmholtz band (0.11 to
# 0.663 N, doc/friction.md) and above its maximum
FORCES = [0.002, 0.03, 0.4, 2.5]
REGIMES = ["no stick", "multiple slips", "Helmholtz", "raucous"]


@pytest.fixture(scope="module")
def belt(tmp_path_factory):
    d = tmp_path_factory.mktemp("fplot-belt")
    return vibro.run(os.path.join(SCENES, "belt-stick-slip.cfg"), str(d / "belt.h5"))


@pytest.fixture(scope="module")
def bowed(tmp_path_factory):
    """scenes/bowed-string.cfg for 0.4 s over FORCES."""
    d = tmp_path_factory.mktemp("fplot-bow")
    text = open(os.path.join(SCENES, "bowed-string.cfg")).read()
    assert "duration = 0.5;" in text
    text = text.replace("duration = 0.5;", "duration = 0.4;")
    text += ('\nsweep = { mode = "grid"; params = ( { path = "contacts.hair.normal_force"; '
             'values = [%s]; } ); };\n' % ", ".join(repr(f) for f in FORCES))
    cfg = d / "bow.cfg"
    cfg.write_text(text)
    return vibro.run(str(cfg), str(d / "bow.h5"))


@pytest.fixture(scope="module")
def swept_belt(tmp_path_factory):
    d = tmp_path_factory.mktemp("fplot-swept")
    text = open(os.path.join(SCENES, "belt-stick-slip.cfg")).read()
    text = text.replace("duration = 2.0;", "duration = 0.5;")
    text += ('\nsweep = { mode = "grid"; params = ( { path = "contacts.rub.friction.mu_k"; '
             'values = [0.4, 0.3]; } ); };\n')
    cfg = d / "belt.cfg"
    cfg.write_text(text)
    return vibro.run(str(cfg), str(d / "belt.h5"))


def test_model_has_the_friction_law(belt, bowed, swept_belt):
    c = belt.contacts().iloc[0]
    assert c["friction"] == "coulomb"
    assert (c["friction_mu_s"], c["friction_mu_k"]) == (MU_S, MU_K)
    assert c["friction_mu_s_units"] == "1"
    b = bowed.contacts().iloc[0]
    assert b["friction"] == "bow" and b["law"] == "none"
    assert (b["friction_mu_s"], b["friction_mu_d"], b["friction_v0"]) == \
        (BOW_MU_S, BOW_MU_D, BOW_V0)
    assert b["friction_v0_units"] == "m/s"
    assert [p.decode() if isinstance(p, bytes) else p for p in b["friction_points"]] == \
        ["", "bowing"]
    assert list(bowed.contacts()["normal_force"]) == FORCES
    # a swept friction parameter is named as /model names it, per scene
    assert list(swept_belt.contacts()["friction_mu_k"]) == [0.4, 0.3]
    # the string's modes along w: f1 = sqrt(T / rho) / 2L
    f = bowed._model["bodies"]["string"]["w_modes_freq"]
    assert len(f) == 50
    assert abs(f[0] - np.sqrt(T / RHO) / (2 * L)) <= 1e-12 * f[0]


def test_belt_slips_on_mu_k_n(belt):
    """The traced curve: N = m g to round-off, every slipping sample's |ft|
    = mu_k N and every sticking one's |ft| <= mu_s N, within round-off."""
    df = vibro.friction_trace(belt, belt.scene(0))
    assert df["t"].min() > 0
    assert np.max(np.abs(df["N"] - M * G)) <= 8 * EPS * M * G
    slip, stick = df[~df["stick"]], df[df["stick"]]
    assert len(slip) > 1000 and len(stick) > 1000
    assert np.max(np.abs(np.abs(slip["ft"]) - MU_K * slip["N"])) <= 4 * EPS * M * G
    assert np.all(np.abs(stick["ft"]) <= MU_S * stick["N"] * (1 + 4 * EPS))
    assert np.all(stick["slip"] == 0.0) and np.all(slip["slip"] != 0.0)
    assert np.all(vibro.friction_law_curve(df.attrs["info"], slip["slip"]) == MU_K)


def test_bow_curve_traced(bowed):
    """The Helmholtz scene's slipping samples on the bow curve written out
    here, mu_d + (mu_s - mu_d) v0 / (v0 + |s|), under the prescribed 0.4 N."""
    df = vibro.friction_trace(bowed, bowed.scene(2))
    assert np.all(df["N"] == 0.4)
    slip = df[~df["stick"]]
    s = np.abs(slip["slip"].to_numpy())
    mu = BOW_MU_D + (BOW_MU_S - BOW_MU_D) * BOW_V0 / (BOW_V0 + s)
    assert len(slip) > 100
    assert np.max(np.abs(slip["mu"].to_numpy() - mu)) <= 8 * EPS
    law = vibro.friction_law_curve(df.attrs["info"], slip["slip"])
    assert np.max(np.abs(law - mu)) <= 2 * EPS


def test_stickslip_portrait(belt):
    """The block rides the belt while it sticks (vw = 0.02 m/s to round-off)
    and leaves it while it slips."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots()
    df = vibro.plot_stickslip(ax, belt, belt.scene(0))
    assert df.attrs["body"] == "block"
    st = df[df["stick"]]
    assert np.max(np.abs(st["y"] - V)) <= 16 * EPS * V
    assert np.min(np.abs(df[~df["stick"]]["y"] - V)) >= 0.0
    assert np.max(np.abs(df[~df["stick"]]["y"] - V)) > 0.5 * V
    plt.close(fig)


def test_stickslip_of_a_modal_point(bowed):
    """The bowed string's portrait is of the contact's point (/model's
    friction_points): while it sticks, the bow point moves with the bow at
    0.1 m/s, to the round-off of a sum over 50 modes."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots()
    df = vibro.plot_stickslip(ax, bowed, 2)
    assert df.attrs["body"] == "string/bowing"
    st = df[df["stick"]]
    assert len(st) > 1000
    assert np.max(np.abs(st["y"] - 0.1)) <= 64 * EPS * 0.1
    assert vibro.plot_stickslip(ax, bowed, 2, body="string/far").attrs["body"] == "string/far"
    plt.close(fig)


def test_schelleng_regimes(bowed):
    reg = vibro.schelleng_regimes(bowed)
    assert list(reg["regime"]) == REGIMES
    assert np.allclose(reg["f1"], np.sqrt(T / RHO) / (2 * L), rtol=1e-12)
    # Helmholtz: one slip per period over the second half (0.2 s, 40 periods)
    assert reg.loc[2, "slips"] in (39, 40, 41)
    # below the minimum bow force: three slips per period
    assert abs(reg.loc[1, "slips_per_period"] - 3) < 0.05
    with pytest.raises(vibro.VibroError, match="no contact with friction 'nope'"):
        vibro.schelleng_regimes(bowed, contact="nope")


def test_errors(belt, bar):
    with pytest.raises(vibro.VibroError, match="records no friction signals"):
        vibro.friction_trace(bar, bar.scene(0))
    with pytest.raises(vibro.VibroError, match="no w and vw of body 'belt'"):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots()
        try:
            vibro.plot_stickslip(ax, belt, belt.scene(0), body="belt")
        finally:
            plt.close(fig)


def test_schelleng_title(plot_program, bowed, tmp_path):
    """vibro-plot schelleng's title counts the regimes (the journal size's
    layout checks are test_journal.py's, with the other kinds)."""
    fig, title = drawn(plot_program, bowed, "schelleng", bowed.path, "-o", tmp_path / "s.png",
                       *JOURNAL)
    assert "4 scenes (1 Helmholtz, 1 multiple slips, 1 raucous, 1 no stick)" \
        in " ".join(title.split())
    check_journal(fig, "schelleng")


@pytest.fixture(scope="module")
def frets(tmp_path_factory):
    """scenes/bass-fretted-2pol.cfg for 30 ms, every friction signal of its
    20 fret points recorded (the distributed contact 'frets')."""
    import shutil
    d = tmp_path_factory.mktemp("fplot-frets")
    for f in os.listdir(SCENES):
        if f.endswith(".csv"):
            shutil.copy(os.path.join(SCENES, f), str(d / f))
    text = open(os.path.join(SCENES, "bass-fretted-2pol.cfg")).read()
    assert "duration = 0.1;" in text and '"contacts/*/force"' in text
    text = text.replace("duration = 0.1;", "duration = 0.03;")
    text = text.replace('"contacts/*/force"', '"contacts/frets/*"')
    cfg = d / "frets.cfg"
    cfg.write_text(text)
    return vibro.run(str(cfg), str(d / "frets.h5"))


def test_distributed_friction_trace(frets):
    """A distributed contact's point frets[i] is traced from row i of the
    [scene][point][time] signals, read here with h5py: N is the recorded
    normal force that bounded the step (contacts.frets.normal), never the
    three-point sample force; the cone holds at every point; the whole
    contact 'frets' is its 20 points' traces one after another."""
    import h5py
    with h5py.File(frets.path, "r") as f:
        ft = f["signals/contacts.frets.ft"][0]
        nn = f["signals/contacts.frets.normal"][0]
        slip = f["signals/contacts.frets.slip"][0]
    assert ft.shape[0] == 20
    touched = 0
    for i in range(20):
        df = vibro.friction_trace(frets, frets.scene(0), "frets[%d]" % i)
        assert df.attrs["contact"] == "frets[%d]" % i
        assert np.array_equal(df["ft"].to_numpy(), ft[i, 1:])
        assert np.array_equal(df["N"].to_numpy(), nn[i, 1:])
        # (the slip of a point apart is NaN: not recorded)
        assert np.array_equal(df["slip"].to_numpy(), slip[i, 1:], equal_nan=True)
        on = df["N"] > 0
        touched += int(on.sum())
        assert np.all(df["mu"][on] <= 0.3 * (1 + 16 * EPS))
        assert np.all(df["ft"][~on] == 0.0)
    assert touched > 50
    whole = vibro.friction_trace(frets, frets.scene(0), "frets")
    assert len(whole) == 20 * (ft.shape[1] - 1)
    assert list(whole["point"].unique()) == ["frets[%d]" % i for i in range(20)]
    two = whole[whole["point"] == "frets[2]"].reset_index(drop=True)
    assert np.array_equal(two["ft"].to_numpy(), ft[2, 1:])
    with pytest.raises(vibro.VibroError, match="choose one with --contact"):
        vibro.friction_trace(frets, frets.scene(0))


def test_distributed_friction_figures(plot_program, frets, tmp_path):
    """vibro-plot friction and stickslip draw a fret point and the whole
    distributed contact (they said "records no friction signals")."""
    import subprocess
    for kind in ("friction", "stickslip"):
        for c in ("frets", "frets[2]"):
            out = tmp_path / ("%s-%s.png" % (kind, c.replace("[", "").replace("]", "")))
            p = subprocess.run([str(plot_program), kind, frets.path, "--contact", c,
                                "-o", str(out)], capture_output=True, text=True)
            assert p.returncode == 0, p.stderr
            assert out.stat().st_size > 1000

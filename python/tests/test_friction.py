"""Friction's output read by the package (issue 30; doc/format.md's
/study/phases and the table's friction_work and stick_share): the belt's
stick-slip phases against the closed form, computed here with numpy, and
the sliding sphere's rolling onset."""

import os

import numpy as np
import pytest

import vibro

# a pressed contact stays closed to the end: its last impact is unfinished
# (engaged_at_end), as the block and the ball are meant to stay on
pytestmark = pytest.mark.filterwarnings("ignore:.*ended inside an impact")

FS = 10000.0
M, G, KW, MU_S, V = 1.0, 9.81, 1000.0, 0.6, 0.02


def belt(duration=0.8, sweep=None):
    """A 1 kg block on a belt at 0.02 m/s, spring 1000 N/m to ground along
    w, N = m g (scenes/belt-stick-slip.cfg at 10 kHz), with a sweep."""
    scene = {
        "scene": {"name": "belt", "fs": FS, "duration": duration, "gravity": G},
        "bodies": [
            {"name": "belt", "type": "wall", "position": 0.0,
             "w_drive": {"type": "velocity", "v": V}},
            {"name": "block", "type": "mass", "mass": M, "u0": -M * G / 1.0e7, "w0": 0.0,
             "vw0": V, "kw": KW}],
        "contacts": [
            {"name": "rub", "between": ["belt", "block"], "law": "power", "k": 1.0e7,
             "alpha": 1.0, "scheme": "two-point",
             "friction": {"law": "coulomb", "mu_s": MU_S, "mu_k": 0.4}}],
    }
    if sweep is not None:
        scene["sweep"] = sweep
    return scene


def closed(mu_k):
    """The closed form (doc/friction.md): first breakaway, slip and stick
    durations, and a slip's friction work."""
    n, om = M * G, np.sqrt(KW / M)
    d = (MU_S - mu_k) * n / KW
    slip = (np.pi + 2 * np.arctan(V / om / d)) / om
    return MU_S * n / (KW * V), slip, 2 * d / V, mu_k * n * (V * slip + 2 * d)


@pytest.fixture(scope="module")
def belts(tmp_path_factory):
    path = os.path.join(str(tmp_path_factory.mktemp("friction")), "belt.h5")
    sweep = {"mode": "grid", "params": [{"path": "contacts.rub.friction.mu_k",
                                         "values": [0.4, 0.3]}]}
    return vibro.run(belt(sweep=sweep), path)


def test_phases_closed_form(belts):
    """Each scene's phases alternate stick, slip, ... from t = 0; the first
    stick ends at the breakaway, each full slip and stick lasts the closed
    form's time within two steps, a slip takes mu_k N (v T + 2 D) within
    mu_k N 4 v h and a stick nothing; the last phase is open (NaN t_off)."""
    ph = belts.phases()
    assert list(ph.columns[:9]) == ["scene", "contact", "stick", "t_on", "t_off", "duration",
                                    "mean_slip", "friction_work", "steps"]
    assert ph.attrs["units"]["friction_work"] == "J"
    assert ph.attrs["units"]["mean_slip"] == "m/s"
    h = 1.0 / FS
    for scene, mu_k in ((0, 0.4), (1, 0.3)):
        p = ph[ph["scene"] == scene].reset_index(drop=True)
        assert np.allclose(p["contacts.rub.friction.mu_k"], mu_k)
        tb, slip, stick, work = closed(mu_k)
        assert len(p) >= 4, p
        assert list(p["stick"]) == [i % 2 == 0 for i in range(len(p))]
        assert (p["contact"] == "rub").all()
        assert p["t_on"][0] == 0.0 and abs(p["t_off"][0] - tb) < 2 * h
        assert np.all(p["t_on"][1:].to_numpy() == p["t_off"][:-1].to_numpy())
        assert np.isnan(p["t_off"].iloc[-1]) and np.isnan(p["duration"].iloc[-1])
        full = p.iloc[1:-1]
        slips, sticks = full[~full["stick"]], full[full["stick"]]
        assert len(slips) >= 1
        assert np.all(np.abs(slips["duration"] - slip) < 2 * h), (slips["duration"], slip)
        assert np.all(np.abs(sticks["duration"] - stick) < 2 * h), (sticks["duration"], stick)
        assert np.all(np.abs(slips["friction_work"] - work) < mu_k * M * G * 4 * V * h)
        assert np.all(sticks["friction_work"] == 0.0) and np.all(sticks["mean_slip"] == 0.0)
        assert np.all(slips["mean_slip"] < -V)  # the block swings back against the belt
        # the table's columns: the phases' works add up to the contact's,
        # the sticks' steps over the run's are its share
        row = belts.table.loc[scene]
        assert row["friction_work:rub"] == pytest.approx(p["friction_work"].sum(), rel=1e-12)
        steps = row["samples"] - 1
        assert row["stick_share:rub"] == pytest.approx(
            p[p["stick"]]["steps"].sum() / steps, rel=1e-12)


def test_phases_views(belts):
    """One contact by name, one scene, xarray along `phase`; an unknown
    contact is refused naming the valid ones."""
    ph = belts.phases("rub")
    assert len(ph) == len(belts.phases())
    one = belts.scene(1).phases()
    assert (one["scene"] == 1).all() and len(one) == (belts.phases()["scene"] == 1).sum()
    ds = belts.phases(xarray=True)
    assert "phase" in ds.dims and ds["t_on"].attrs["units"] == "s"
    with pytest.raises(vibro.VibroError, match=r"no contact 'hub' \(valid: rub\)"):
        belts.phases("hub")


def test_no_friction_no_phases(tmp_path):
    """A study without friction has no /study/phases and no friction
    columns (1-D files are unchanged), and says so."""
    from conftest import hammer
    st = vibro.run(hammer(), str(tmp_path / "hammer.h5"))
    assert not any(c.startswith(("friction_work", "stick_share")) for c in st.table.columns)
    with pytest.raises(vibro.VibroError, match="no contact with friction"):
        st.phases()


def test_sphere_rolls(tmp_path):
    """scenes/sliding-sphere.cfg: one slip from 0 to t* = 2 v0 / (7 mu g),
    taking m v0^2 / 7 at a mean slip v0 / 2, then rolling to the end."""
    st = vibro.run(os.path.join(os.path.dirname(__file__), "..", "..", "scenes",
                                "sliding-sphere.cfg"), str(tmp_path / "sphere.h5"))
    m, v0, mu, g = 0.163, 1.37, 0.21, 9.81
    p = st.phases()
    assert list(p["stick"]) == [False, True]
    assert p["t_off"][0] == pytest.approx(2 * v0 / (7 * mu * g), rel=1e-9)
    assert p["friction_work"][0] == pytest.approx(m * v0 ** 2 / 7, rel=1e-10)
    assert p["mean_slip"][0] == pytest.approx(v0 / 2, rel=1e-6)
    spin = st.signal(0, "bodies/ball/spin")
    assert spin.attrs["units"] == "rad/s"
    assert float(spin[-1]) == pytest.approx(-5 * v0 / (7 * 0.0286), rel=1e-10)


# ------------------------------------------------ modes along w (issue 30 item 6)

L_S, T_S, RHO_S, X_BOW, X_FAR = 0.33, 50.0, 2.87e-3, 0.33 / 7, 0.25


def bowed(directions, modes=True, nmodes=30):
    """scenes/bowed-string.cfg in 0.02 s at 44.1 kHz and 30 modes, its
    modes recorded (record.modes) or not."""
    scene = {
        "scene": {"name": "bowed", "fs": 44100.0, "duration": 0.02},
        "bodies": [
            {"name": "bow", "type": "wall", "w_drive": {"type": "velocity", "v": 0.1}},
            {"name": "string", "type": "modal", "directions": directions,
             "preset": {"kind": "string", "nmodes": nmodes, "length": L_S,
                        "tension": T_S, "linear_density": RHO_S},
             "loss": [1.0, 2e-7],
             "points": [{"name": "bowing", "x": X_BOW}, {"name": "far", "x": X_FAR}]}],
        "contacts": [
            {"name": "hair", "between": ["bow", "string.bowing"], "normal_force": 0.4,
             "scheme": "two-point",
             "friction": {"law": "bow", "mu_s": 0.8, "mu_d": 0.3, "v0": 0.1}}],
    }
    if modes:
        scene["record"] = {"modes": True}
    return scene


@pytest.mark.parametrize("directions", [["w"], ["u", "w"]])
def test_wmodes_recorded(tmp_path, directions):
    """bodies.B.wmodes.freq, .sigma, .mass against the string's closed form
    (f_n = n c / 2L, M = rho L / 2, sigma = b1 + b3 omega^2), and the
    recorded q along w at each point, times the string's shapes
    sin(n pi x / L) computed here, summed, is the recorded point signal
    bodies/string/P/w to round-off."""
    import h5py
    n = 30
    path = str(tmp_path / "bowed.h5")
    s = vibro.run(bowed(directions, nmodes=n), path)
    k = np.arange(1, n + 1)
    f = k * np.sqrt(T_S / RHO_S) / (2 * L_S)
    with h5py.File(path, "r") as h:
        sig = h["signals"]
        assert sig["wmode.string"][()].tolist() == list(range(n))
        np.testing.assert_allclose(sig["bodies.string.wmodes.freq"][0], f, rtol=1e-14)
        np.testing.assert_allclose(sig["bodies.string.wmodes.mass"][0], RHO_S * L_S / 2,
                                   rtol=1e-14)
        np.testing.assert_allclose(sig["bodies.string.wmodes.sigma"][0],
                                   1.0 + 2e-7 * (2 * np.pi * f) ** 2, rtol=1e-14)
        q = sig["bodies.string.wmodes.q"][0]
        assert q.shape == (n, 883)
        assert sig["bodies.string.wmodes.q"].attrs["units"] in (b"m", "m")
        for p, x in (("bowing", X_BOW), ("far", X_FAR)):
            w = sig["bodies.string.%s.w" % p][0]
            shape = np.sin(k * np.pi * x / L_S)
            err = np.max(np.abs(shape @ q - w))
            assert np.max(np.abs(w)) > 1e-6  # the bow moved it
            assert err <= 1e-13 * np.max(np.abs(w)), (p, err)
        # the modes along u: as before, none with ["w"]
        assert sig["bodies.string.modes.q"].shape[1] == (n if "u" in directions else 0)
    # the package reads them where it reads the modes along u
    m = s.scene(0).modes("string", direction="w")
    np.testing.assert_allclose(m["freq"].to_numpy(), f, rtol=1e-14)
    assert len(s.scene(0).modes("string")) == (n if "u" in directions else 0)
    da = s.signal(0, "bodies/string/wmodes/q")
    assert da.dims == ("mode", "time") and da.attrs["direction"] == "w"
    np.testing.assert_array_equal(da.values, q)
    assert "bodies/string/wmodes/q" in s.scene(0).signals
    # in process: the same datasets, on wmode.string
    ds = vibro.simulate(bowed(directions, nmodes=n)).signals
    assert ds["bodies.string.wmodes.q"].dims == ("wmode.string", "time")
    np.testing.assert_array_equal(ds["bodies.string.wmodes.q"].values, q)
    np.testing.assert_array_equal(ds["bodies.string.wmodes.freq"].values,
                                  m["freq"].to_numpy())


def test_wmodes_none(tmp_path):
    """A body without modes along w writes none of it, record.modes or
    not; one with them writes their properties always, as the modes along
    u, and their q only with record.modes."""
    import h5py
    plain = bowed(["w"], modes=False)
    u = {"scene": {"name": "u", "fs": 44100.0, "duration": 0.01},
         "bodies": [{"name": "string", "type": "modal",
                     "preset": {"kind": "string", "nmodes": 10, "length": L_S,
                                "tension": T_S, "linear_density": RHO_S},
                     "q0": [1e-3] * 10,
                     "points": [{"name": "p", "x": X_FAR}]}],
         "contacts": [], "record": {"modes": True}}
    for name, scene in (("plain", plain), ("u", u)):
        path = str(tmp_path / (name + ".h5"))
        vibro.run(scene, path)
        with h5py.File(path, "r") as h:
            names = list(h["signals"])
            got = sorted(x for x in names if "wmode" in x)
            want = [] if name == "u" else ["bodies.string.wmodes.freq", "bodies.string.wmodes.mass",
                                           "bodies.string.wmodes.sigma", "wmode.string"]
            assert got == want, (name, names)
    with h5py.File(str(tmp_path / "u.h5"), "r") as h:
        assert h["signals/bodies.string.modes.q"].shape == (1, 10, 442)

"""vibro.Stepper: a scene stepped in blocks in this process (lib/run/
stepping.c through ctypes) against vibro.simulate of the whole scene, bit
for bit; its state against the recording; a parameter changed between
blocks; the file it writes against the vibro program's."""

import os
import subprocess
import warnings

import numpy as np
import pytest

import vibro
from vibro import _lib
from conftest import SCENES, TOP, hammer

pytestmark = pytest.mark.skipif(not _lib.available(), reason="libvibro does not load here")


def bits(a):
    return np.ascontiguousarray(np.asarray(a, dtype=np.float64)).view(np.uint64)


def same(a, b):
    """Two Simulations the same bits: every signal, every event field."""
    assert sorted(a.signals.data_vars) == sorted(b.signals.data_vars)
    for k in a.signals.data_vars:
        assert np.array_equal(bits(a.signals[k]), bits(b.signals[k])), k
    assert list(a.events.columns) == list(b.events.columns)
    for k in a.events.columns:
        x, y = a.events[k].to_numpy(), b.events[k].to_numpy()
        if x.dtype.kind == "f":
            assert np.array_equal(bits(x), bits(y)), k
        else:
            assert list(x) == list(y), k
    assert (a.status, a.status_code) == (b.status, b.status_code)


@pytest.mark.parametrize("scene", ["papetti-case-b.cfg", "snare-wires.cfg", "belt-stick-slip.cfg"])
@pytest.mark.parametrize("block", [1, 7, 1000])
def test_blocks_equal_simulate(scene, block):
    path = os.path.join(SCENES, scene)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        whole = vibro.simulate(path)
        with vibro.Stepper(path) as s:
            assert (s.steps, s.t, s.status) == (0, 0.0, "running")
            while not s.done:
                s.advance(block)
            stepped = s.finish()
    same(whole, stepped)


def test_state_and_set():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = vibro.Stepper(hammer())
    with s:
        s.advance(30)
        u, v = s.point("hammer")
        q, qv = s.modes("hammer")
        assert (q[0], qv[0]) == (u, v)
        c = s.contact("hit")
        assert set(c) == {"force", "compression", "rate"}
        assert s.steps == 30 and s.t == pytest.approx(30 / 44100.0, rel=1e-15)
        with pytest.raises(vibro.VibroError, match=r"no body 'nope' \(valid: hammer, wall\)"):
            s.point("nope")
        with pytest.raises(vibro.VibroError, match="is a wall"):
            s.modes("wall")
        with pytest.raises(vibro.VibroError, match=r"contacts.hit.k: -1 is not valid \(valid: "):
            s.set("contacts.hit.k", -1)
        with pytest.raises(vibro.VibroError, match="whole number of steps"):
            s.advance(-3)
        s.set("contacts.hit.k", 1.0e9)       # its own value: nothing changes
        sim = s.finish()
        assert sim.status.startswith("ended at t=") and sim.status_code == _lib.VB_EINTR
        with pytest.raises(vibro.VibroError, match="has ended"):
            s.advance(1)
    whole = vibro.simulate(hammer())
    n = 31
    assert np.array_equal(bits(sim.signals["bodies.hammer.u"][:n]),
                          bits(whole.signals["bodies.hammer.u"][:n]))
    assert np.isnan(sim.signals["bodies.hammer.u"][n:]).all()


def test_set_equals_the_scene_written_so():
    """contacts.hit.k and mu set before the first step give the run of the
    scene written with those values, bit for bit (the law is read at each
    step, the predictions at each onset); and the softer contact lasts
    longer, as Papetti's eq 9 says (k^(-1/(alpha+1)): 4^0.4 = 1.74 for a
    quarter of k, within the duration's resolution at 44.1 kHz)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        written = vibro.simulate(hammer(mu=0.2, k=0.25e9))
        with vibro.Stepper(hammer(mu=0.5)) as s:
            s.set("contacts.hit.k", 0.25e9).set("contacts.hit.mu", 0.2)
            while not s.done:
                s.advance(50)
            stepped = s.finish()
        stiff = vibro.simulate(hammer(mu=0.2))
    same(written, stepped)
    ratio = stepped.events["duration"].iloc[0] / stiff.events["duration"].iloc[0]
    assert 1.65 < ratio < 1.80, ratio


def test_finish_writes_the_usual_file(tmp_path):
    path = os.path.join(SCENES, "papetti-case-b.cfg")
    out = tmp_path / "stepped.h5"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with vibro.Stepper(path) as s:
            s.run(333, lambda st: None)
            s.finish(str(out))
        cli = tmp_path / "cli.h5"
        vibro.run(path, str(cli), inprocess=False)
    a, b = vibro.open(str(out)), vibro.open(str(cli))
    assert a.format == b.format
    ta, tb = a.table, b.table
    for col in ("status", "final_energy", "energy_balance_error", "samples"):
        assert list(ta[col]) == list(tb[col]), col
    for sig in ("bodies/hammer/u", "contacts/hit/force", "energy/total"):
        assert np.array_equal(bits(a.signal(0, sig)), bits(b.signal(0, sig))), sig
    # an existing foreign file is not replaced
    junk = tmp_path / "junk.h5"
    junk.write_text("mine")
    with pytest.raises(vibro.VibroError, match="not a vibro output"):
        with vibro.Stepper(path) as s:
            s.finish(str(junk))
    assert junk.read_text() == "mine"


def test_friction_now():
    """A contact with friction now (issue 30 item 6): the belt's block rides
    the belt until the closed-form breakaway at mu_s m g / (kw v) = 0.2943 s
    (slip 0, |ft| below mu_s m g), then slips for 0.1191 s on mu_k m g (to
    round-off), its friction work growing; a contact without friction has
    no friction keys."""
    import numpy as np
    eps = np.finfo(float).eps
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with vibro.Stepper(os.path.join(SCENES, "belt-stick-slip.cfg")) as s:
            s.advance_to(0.25)
            c = s.contact("rub")
            assert c["stick"] is True and c["slip"] == 0.0
            assert 0 < abs(c["ft"]) <= 0.6 * 9.81 and c["friction_work"] < 1e-20
            assert "bristle" not in c
            s.advance_to(0.35)
            c = s.contact("rub")
            assert c["stick"] is False and c["slip"] != 0.0
            assert abs(abs(c["ft"]) - 0.4 * 9.81) <= 4 * eps * 9.81
            w1 = c["friction_work"]
            s.advance_to(0.40)
            assert s.contact("rub")["friction_work"] > w1 > 0
        with vibro.Stepper(hammer()) as s:
            s.advance(3)
            assert set(s.contact("hit")) == {"force", "compression", "rate"}


def test_scene_rate_is_the_recorded_rate(tmp_path):
    """Scene.fs is the stepping rate, Scene.rate the recorded signals' (issue
    31 item 6: study.scene(0).fs read 20000 for signals at 1000 Hz)."""
    d = hammer()
    d["record"] = {"every": 4}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        st = vibro.run(d, str(tmp_path / "r.h5"))
    sc = st.scene(0)
    assert sc.fs == 44100.0 and sc.rate == 44100.0 / 4
    t = st.signal(0, "bodies/hammer/u")["time"].to_numpy()
    assert abs((t[1] - t[0]) * sc.rate - 1.0) < 1e-12

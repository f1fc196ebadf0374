"""vibro in this process (libvibro through ctypes): vibro.simulate, and
vibro.run's in-process path, each against the vibro program's output of
the same input read back with vibro.open."""

import os
import re
import signal
import subprocess
import sys
import threading
import time
import warnings

import numpy as np
import pandas as pd
import pytest

import vibro
from vibro import _lib
from conftest import SCENES, TOP, hammer

pytestmark = pytest.mark.skipif(not _lib.available(), reason="libvibro does not load here")


def cli(scene, out):
    """The vibro program's run of a scene, opened."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return vibro.run(scene, str(out), inprocess=False)


def bits(a):
    """The bytes of a float64 array (NaN's bits included)."""
    return np.ascontiguousarray(np.asarray(a, dtype=np.float64)).view(np.uint64)


def same_bits(a, b, what):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, "%s: shape %s, not %s" % (what, a.shape, b.shape)
    diff = np.flatnonzero(bits(a).ravel() != bits(b).ravel())
    assert diff.size == 0, "%s: %d values differ, first at %d: %r != %r" % (
        what, diff.size, diff[0], a.ravel()[diff[0]], b.ravel()[diff[0]])


def assert_simulation_is_file(sim, study, index=0):
    """Every signal of the file's scene `index` is in sim.signals with the
    same bits, dimensions and units, and nothing more; the events are
    Study.events()'s rows of the scene, column for column."""
    sc = study.scene(index)
    names = {p.replace("/", ".") for p in sc.signals}
    mine = {k for k in sim.signals.data_vars if not k.endswith((".modes.freq", ".modes.sigma",
                                                                 ".modes.mass"))}
    assert mine == names
    for p in sc.signals:
        f = study.signal(index, p)
        s = sim.signals[p.replace("/", ".")]
        same_bits(s.values, f.values, p)
        same_bits(s["time"].values, f["time"].values, p + " time")
        assert s.attrs["units"] == f.attrs["units"], p
        assert s.dims[-1] == "time"
    # the whole of /signals, as xarray opens it: modes' dimensions and
    # properties too
    import xarray as xr
    with xr.open_dataset(study.path, group="signals", engine="h5netcdf") as ds:
        ds = ds.sel(scene=index)
        held = {k for k in ds.data_vars if k not in study.params}
        assert held == set(sim.signals.data_vars)
        assert sim.signals.sizes.get("time", 0) == ds.sizes.get("time", 0)
        if "time" in ds.coords and ds["time"].ndim == 1:
            same_bits(sim.signals["time"].values, ds["time"].values, "time")
        for k in held:
            assert ds[k].dims == sim.signals[k].dims, k
            same_bits(sim.signals[k].values, ds[k].values, k)
    ev = study.events()
    ev = ev[ev["scene"] == index].reset_index(drop=True)
    pd.testing.assert_frame_equal(sim.events, ev, check_exact=True)
    for k, u in ev.attrs["units"].items():
        if k in sim.events.columns and k not in ("contact",):
            assert sim.events.attrs["units"][k] == u, k
    assert sim.status == sc.status and sim.status_code == sc.attrs["status_code"]
    row = study.table.loc[index]
    same_bits(sim.signals.attrs["energy_balance_error"], row["energy_balance_error"],
              "energy_balance_error")
    same_bits(sim.signals.attrs["sample_interval"], row["sample_interval"], "sample_interval")


@pytest.mark.parametrize("scene", ["bouncing-ball", "avanzini-hammer-bar", "rolling-ball",
                                   "ducceschi-fig4", "chatziioannou-hard", "papetti-case-a"])
def test_simulate_scene_file(scene, tmp_path):
    path = os.path.join(SCENES, scene + ".cfg")
    sim = vibro.simulate(path)
    assert isinstance(sim.signals["time"].values, np.ndarray)
    assert_simulation_is_file(sim, cli(path, tmp_path / "a.h5"))


def test_simulate_dict_modes_corrections(tmp_path, monkeypatch):
    """A dict scene with Papetti's corrections (the correction energy is
    held) and a modal scene with record.modes (modal displacements on
    mode.B), against the program's run of the same text."""
    monkeypatch.chdir(tmp_path)
    d = hammer(mu=0.3, v0=1.3, corrections=["xmax", "vout"])
    sim = vibro.simulate(d)
    assert "energy.correction" in sim.signals and "energy.external" not in sim.signals
    assert sim.signals.attrs["source"] == "<dict>.cfg"
    assert_simulation_is_file(sim, cli(d, tmp_path / "c.h5"))
    with open(os.path.join(SCENES, "avanzini-hammer-bar.cfg")) as f:
        text = f.read().replace("record = { every = 1; };", "record = { every = 3; modes = true; };")
    assert "modes = true" in text
    cfg = tmp_path / "bar.cfg"
    cfg.write_text(text)
    sim = vibro.simulate(text)                    # libconfig text
    q = [k for k in sim.signals if k.endswith(".modes.q")]
    assert q and sim.signals[q[0]].dims[1] == "time" and sim.signals[q[0]].shape[0] > 1
    assert_simulation_is_file(sim, cli(str(cfg), tmp_path / "bar.h5"))


def test_simulate_no_signals(tmp_path, monkeypatch):
    """record.signals = []: the events alone, no time (as the file)."""
    monkeypatch.chdir(tmp_path)
    d = hammer()
    d["record"] = {"signals": []}
    sim = vibro.simulate(d)
    assert len(sim.signals.data_vars) == 0 and sim.signals.sizes.get("time", 0) == 0
    assert len(sim.events) == 1
    assert_simulation_is_file(sim, cli(d, tmp_path / "n.h5"))


def test_simulate_random_scenes(tmp_path, monkeypatch):
    """Random hammers (law, scheme, stiffness, damping, speed, rate, record
    settings) far past the examples: each the program's run, bitwise."""
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(20261126)
    schemes = ["am1", "two-point", "three-point", "quadratic", "verlet", "rk4", "heun"]
    for k in range(8):
        d = hammer(mu=float(rng.uniform(0, 3)), v0=float(10 ** rng.uniform(-2, 1)),
                   k=float(10 ** rng.uniform(6, 11)), alpha=float(rng.uniform(1, 3)),
                   scheme=str(rng.choice(schemes)))
        d["scene"]["fs"] = float(rng.choice([8000.0, 44100.0, 192000.0, 1.0e6]))
        d["scene"]["duration"] = float(rng.uniform(0.0005, 0.01))
        d["scene"]["gravity"] = float(rng.choice([0.0, 9.81]))
        d["record"] = {"every": int(rng.integers(1, 7))}
        pick = rng.integers(0, 4)
        if pick:
            d["record"]["signals"] = [[], ["contacts/*"], ["*/u", "energy/total"]][pick - 1]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sim = vibro.simulate(d)
        assert_simulation_is_file(sim, cli(d, tmp_path / ("r%d.h5" % k)))


def test_simulate_study_scene(tmp_path):
    """Scene `index` of a study: its swept values are columns of its
    events, as Study.events() gives them."""
    path = os.path.join(SCENES, "papetti-sweep.cfg")
    study = cli(path, tmp_path / "s.h5")
    for i in (0, 5, 63):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sim = vibro.simulate(path, index=i)
        assert sim.index == i and sim.params == study.scene(i).params
        assert_simulation_is_file(sim, study, i)
    with pytest.raises(vibro.VibroError, match=r"papetti-sweep.cfg: no scene 64 \(valid: 0 to 63\)"):
        vibro.simulate(path, index=64)


def test_simulate_bad_input(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    d = hammer(scheme="rk5")
    with pytest.raises(vibro.VibroError) as e:
        vibro.simulate(d)
    msg = str(e.value)
    text = vibro.scene_text(d).split("\n")
    assert msg.startswith("<dict>.cfg:")
    line = int(msg.split(":")[1])
    assert "rk5" in text[line - 1] or "hit" in text[line - 1]
    assert "contact 'hit': unknown scheme 'rk5' (valid: " in msg and "am1" in msg
    with pytest.raises(vibro.VibroError, match=r"<text>.cfg:1: "):
        vibro.simulate("scene = { fs = -1.0; };\n")
    with pytest.raises(vibro.VibroError, match="none.cfg"):
        vibro.simulate(str(tmp_path / "none.cfg"))
    with pytest.raises(vibro.VibroError, match="a scene is a dict"):
        vibro.simulate(3)
    assert os.listdir(tmp_path) == []             # nothing written


def test_simulate_unfinished_warns(tmp_path):
    """A run that diverges warns with its status; the samples after it are
    NaN, as in the program's file."""
    d = hammer(k=1e12, alpha=1.5, mu=0.5, scheme="rk4", v0=40.0)
    d["scene"]["duration"] = 0.004
    with pytest.warns(RuntimeWarning, match=r"vibro: <dict>.cfg: scene 'hammer' did not "
                      r"finish: diverged at t="):
        sim = vibro.simulate(d)
    assert sim.status.startswith("diverged at t=") and sim.status_code == _lib.VB_EDIVERGED
    assert np.isnan(sim.signals["bodies.hammer.u"].values[-1])
    assert_simulation_is_file(sim, cli(d, tmp_path / "d.h5"))


def test_simulate_check_warning():
    """What `vibro check` warns of the scene arrives as a VibroWarning."""
    d = hammer(k=1e12, alpha=1.5, mu=0.5, scheme="am1", v0=1.0)
    with pytest.warns(vibro.VibroWarning) as w:
        vibro.simulate(d)
    msgs = [str(x.message) for x in w if issubclass(x.category, vibro.VibroWarning)]
    assert any(m.startswith("<dict>.cfg: contact 'hit' lasts ") and "raise fs above" in m
               for m in msgs), msgs


def check_warnings(path):
    r = subprocess.run([vibro.program(), "check", path], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return [ln.split("warning: ", 1)[1] for ln in r.stdout.split("\n") if "warning: " in ln]


@pytest.mark.parametrize("inprocess", [True, False])
def test_run_warnings_are_check_warnings(tmp_path, inprocess):
    """papetti-sweep.cfg: check's warnings, word for word, as VibroWarning."""
    path = os.path.join(SCENES, "papetti-sweep.cfg")
    expected = check_warnings(path)
    assert any("21 of the other 63 scenes have a contact shorter" in x for x in expected)
    with pytest.warns(vibro.VibroWarning) as w:
        vibro.run(path, tmp_path / "w.h5", inprocess=inprocess)
    got = [str(x.message) for x in w if issubclass(x.category, vibro.VibroWarning)]
    assert got == ["%s: %s" % (path, x) for x in expected]


def test_scene_warnings_are_check_warnings(tmp_path):
    """Scene 0's warnings (saturated exact duration, too short a contact)
    word for word: a scene with both."""
    d = hammer(law="power", k=1e11, alpha=1.0, scheme="two-point", exact_duration=True,
               saturate=True)
    del d["contacts"][0]["mu"]
    d["scene"]["fs"] = 8000.0
    cfg = tmp_path / "sat.cfg"
    cfg.write_text(vibro.scene_text(d))
    expected = check_warnings(str(cfg))
    assert len(expected) == 2 and "saturated" in expected[0] and "lasts" in expected[1]
    with pytest.warns(vibro.VibroWarning) as w:
        vibro.simulate(str(cfg))
    assert [str(x.message) for x in w] == ["%s: %s" % (cfg, x) for x in expected]


def sweep_study(n=24, duration=0.002):
    sweep = {"mode": "grid", "params": [
        {"path": "contacts.hit.mu", "values": [0.1 + 0.1 * i for i in range(n // 2)]},
        {"path": "bodies.hammer.v0", "values": [0.6, 1.7]}]}
    d = hammer(sweep=sweep)
    d["scene"]["duration"] = duration
    return d


def test_run_inprocess_equals_program(tmp_path, monkeypatch):
    """A study in this process: the program's table and events, exactly."""
    monkeypatch.chdir(tmp_path)
    d = sweep_study(40, 0.004)
    here = vibro.run(d, tmp_path / "here.h5", jobs=2, inprocess=True)
    there = cli(d, tmp_path / "there.h5")
    assert here.format == there.format and len(here) == 40
    pd.testing.assert_frame_equal(here.table, there.table, check_exact=True)
    pd.testing.assert_frame_equal(here.events(), there.events(), check_exact=True)
    same_bits(here.signal(17, "contacts/hit/force"), there.signal(17, "contacts/hit/force"),
              "force")
    # errors: the program's message and exit status
    with pytest.raises(vibro.VibroError) as e:
        vibro.run(hammer(scheme="rk5"), tmp_path / "x.h5", inprocess=True)
    assert e.value.returncode == 1
    assert str(e.value).startswith("<dict>.cfg:") and "unknown scheme 'rk5'" in str(e.value)
    with pytest.raises(vibro.VibroError, match="jobs must be a positive integer"):
        vibro.run(d, tmp_path / "x.h5", jobs=0, inprocess=True)
    assert not (tmp_path / "x.h5").exists()


def test_run_unfinished_warns_inprocess(tmp_path):
    d = hammer(k=1e12, alpha=1.5, mu=0.5, scheme="rk4", v0=40.0)
    d["scene"]["duration"] = 0.004
    with pytest.warns(RuntimeWarning, match=r"vibro: <dict>.cfg: scene 'hammer' did not "
                      r"finish: diverged"):
        st = vibro.run(d, tmp_path / "d.h5", inprocess=True)
    assert st.table["status_code"].tolist() == [_lib.VB_EDIVERGED]


def test_progress(tmp_path, capsys):
    seen = []
    vibro.run(sweep_study(8), tmp_path / "p.h5", inprocess=True,
              progress=lambda *a: seen.append(a))
    assert seen and seen[-1][:2] == (8, 8)
    vibro.run(sweep_study(8), tmp_path / "q.h5", inprocess=True, progress=True)
    err = capsys.readouterr().err
    assert "\r8/8 scenes, " in err and err.endswith("\n")
    vibro.run(sweep_study(8), tmp_path / "r.h5", inprocess=True)   # not a terminal: quiet
    assert capsys.readouterr().err == ""
    with pytest.raises(vibro.VibroError, match="progress is None, True, False or a callable"):
        vibro.run(sweep_study(8), tmp_path / "s.h5", inprocess=True, progress="bar")


class SigintAfter:
    """A timer thread that sends this process SIGINT with os.kill once
    predicate() holds (unless cancelled first)."""

    def __init__(self, predicate, timeout=60.0):
        self.cancelled = False

        def send():
            end = time.monotonic() + timeout
            while not predicate() and not self.cancelled and time.monotonic() < end:
                time.sleep(0.005)
            if not self.cancelled:
                os.kill(os.getpid(), signal.SIGINT)
        self.thread = threading.Thread(target=send, daemon=True)
        self.thread.start()

    def join(self):
        self.cancelled = True
        self.thread.join()


def test_interrupt_and_resume(tmp_path, monkeypatch):
    """Ctrl-C after the first scenes: KeyboardInterrupt saying how to
    resume, OUT.part/ kept, the SIGINT handler given back; resume=True
    completes to the table of an uninterrupted run."""
    monkeypatch.chdir(tmp_path)
    d = sweep_study(200, 0.5)                   # 200 scenes of 22050 steps: seconds
    out = tmp_path / "i.h5"
    done = []
    before = signal.getsignal(signal.SIGINT)
    t = SigintAfter(lambda: done and done[-1] >= 2)
    t0 = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt) as e:
            vibro.run(d, out, jobs=1, inprocess=True, progress=lambda n, *a: done.append(n))
    finally:
        t.join()
    assert signal.getsignal(signal.SIGINT) is before
    msg = str(e.value)
    assert "interrupted after" in msg and "of 200 scenes" in msg, msg
    assert "vibro.run(..., resume=True)" in msg and "--resume" not in msg
    assert time.monotonic() - t0 < 30
    assert not out.exists() and (tmp_path / "i.h5.part").is_dir()
    kept = int(msg.split("interrupted after ")[1].split()[0])
    assert 2 <= kept < 200
    st = vibro.run(d, out, jobs=2, inprocess=True, resume=True)
    full = vibro.run(d, tmp_path / "full.h5", jobs=2, inprocess=True)
    pd.testing.assert_frame_equal(st.table, full.table, check_exact=True)
    pd.testing.assert_frame_equal(st.events(), full.events(), check_exact=True)


def test_second_interrupt_abandons(tmp_path, monkeypatch, capsys):
    """The first Ctrl-C says at once what is in flight and how long it
    needs; a second one 0.5 s later abandons the running scenes: the call
    raises KeyboardInterrupt within 2 s, saying so and how to resume, with
    nothing written for them.  (tests/interrupt.sh resumes to the file of an
    uninterrupted run.)"""
    monkeypatch.chdir(tmp_path)
    d = sweep_study(2, 5000.0)  # 2 scenes of 220 million steps: the hammer flies free after its impact, and a
    # free step costs tens of ns (200 s, 8.8 million steps, finished before the first Ctrl-C in CI)
    d["record"] = {"signals": []}
    out = tmp_path / "a.h5"
    t0 = time.monotonic()
    first = SigintAfter(lambda: time.monotonic() > t0 + 0.5)
    second = SigintAfter(lambda: time.monotonic() > t0 + 1.0)
    seen = []
    try:
        with pytest.raises(KeyboardInterrupt) as e:
            vibro.run(d, out, jobs=2, inprocess=True, progress=lambda *a: seen.append(a))
    finally:
        first.join()
        second.join()
    took = time.monotonic() - t0
    msg = str(e.value)
    assert took < 3.0, took
    assert "interrupted after 0 of 2 scenes, the 2 in flight abandoned" in msg, msg
    assert "vibro.run(..., resume=True)" in msg and "--resume" not in msg
    # no scene finished, yet progress was reported at the start (issue 21, item 7)
    assert seen and seen[0][:2] == (0, 2), seen
    err = capsys.readouterr().err
    assert re.search(r"stopping after the 2 scenes in flight \((about \d+ s|time unknown); kept "
                     r"in .*a\.h5\.part/\); press Ctrl-C again to abandon them", err), err
    assert "abandoning the scenes in flight" in err, err
    assert not out.exists()
    part = tmp_path / "a.h5.part"
    assert part.is_dir() and not [p for p in os.listdir(part) if p.endswith(".h5")]


@pytest.mark.parametrize("inprocess", [True, False])
def test_engaged_at_end_warns(tmp_path, monkeypatch, inprocess):
    """Scenes that end inside an impact: a VibroWarning counting them, the
    same count as the table's engaged_at_end and the events' unfinished
    last impacts (NaN t_off); a study whose impacts all end says nothing
    of it."""
    monkeypatch.chdir(tmp_path)
    d = sweep_study(16, 0.000135)               # contacts of 0.12 to 0.15 ms
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        st = vibro.run(d, tmp_path / "e.h5", jobs=2, inprocess=inprocess, progress=False)
    ev = st.events()
    last = ev.groupby("scene").tail(1)
    want = sorted(int(s) for s in last["scene"][last["t_off"].isna()])
    got = sorted(int(s) for s in st.table.index[st.table["engaged_at_end:hit"] > 0])
    assert got == want and 0 < len(want) < 16, (got, want)
    said = [str(x.message) for x in w if issubclass(x.category, vibro.VibroWarning)
            and "inside an impact" in str(x.message)]
    assert said == ["%s: %d of 16 scenes ended inside an impact (a contact still closed; "
                    "engaged_at_end, first: scene %d): the last impact has NaN v_out and cor; "
                    "lengthen the duration if the contact should open"
                    % (tmp_path / "e.h5", len(want), want[0])], said
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        vibro.run(sweep_study(16, 0.002), tmp_path / "f.h5", jobs=2, inprocess=inprocess,
                  progress=False)
    assert not [x for x in w if "inside an impact" in str(x.message)]


def test_engaged_at_end_simulate():
    """vibro.simulate of a scene that ends inside its impact warns, naming
    the contact; its last event has NaN t_off and v_out."""
    d = hammer()
    d["scene"]["duration"] = 0.0001
    with pytest.warns(vibro.VibroWarning, match=r"scene 'hammer' ended inside an impact "
                      r"\(contact 'hit' still closed\)"):
        sim = vibro.simulate(d)
    assert np.isnan(sim.events["t_off"].iloc[-1]) and np.isnan(sim.events["v_out"].iloc[-1])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        vibro.simulate(hammer())
    assert not [x for x in w if "inside an impact" in str(x.message)]


def test_interrupt_simulate(tmp_path):
    """Ctrl-C stops a long single scene at its next step."""
    d = hammer()
    d["scene"]["duration"] = 2000.0             # 88 million steps: minutes
    d["record"] = {"signals": []}
    before = signal.getsignal(signal.SIGINT)
    t0 = time.monotonic()
    t = SigintAfter(lambda: time.monotonic() > t0 + 0.5)   # the run is under way
    try:
        with pytest.raises(KeyboardInterrupt, match=r"<dict>.cfg: scene 'hammer' stopped at "
                           r"t=.* s on request"):
            vibro.simulate(d)
    finally:
        t.join()
    assert time.monotonic() - t0 < 10
    assert signal.getsignal(signal.SIGINT) is before


def test_stop_flag_in_c():
    """vb_run_exec_stop with the flag already set: nothing stepped, the
    status and code say so, every sample after the first is NaN."""
    import ctypes
    lib = _lib.library()
    st = _lib.load_study(vibro.scene_text(hammer()), "h.cfg")
    sc, run = ctypes.c_void_p(), ctypes.c_void_p()
    err = ctypes.create_string_buffer(_lib.ERRLEN)
    assert lib.vb_study_scene(st, 0, ctypes.byref(sc), err, _lib.ERRLEN) == 0
    assert lib.vb_run_alloc(sc, ctypes.byref(run), err, _lib.ERRLEN) == 0
    stop = ctypes.c_int(1)
    assert lib.vb_run_exec_stop(run, ctypes.byref(stop)) == _lib.VB_EINTR
    assert lib.vb_run_code(run) == _lib.VB_EINTR
    assert _lib.text(lib.vb_run_status(run)) == "stopped at t=0 s on request"
    stop.value = 0
    assert lib.vb_run_exec_stop(run, ctypes.byref(stop)) == 0
    assert _lib.text(lib.vb_run_status(run)) == "done"
    for f in (lib.vb_run_free, lib.vb_scene_free, lib.vb_study_free):
        f(run if f is lib.vb_run_free else sc if f is lib.vb_scene_free else st)


def test_simulate_in_a_thread():
    """From another thread: no SIGINT handler is touched, the same result."""
    box = {}
    t = threading.Thread(target=lambda: box.update(sim=vibro.simulate(hammer())))
    t.start()
    t.join()
    same_bits(box["sim"].signals["contacts.hit.force"], vibro.simulate(hammer())
              .signals["contacts.hit.force"], "force")


def run_python(code, env):
    e = dict(os.environ)
    e.update(env)
    e["PYTHONPATH"] = os.path.join(TOP, "python")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=e)


def test_library_search(tmp_path):
    """$VIBRO_LIB alone when set, named in the error with every place
    tried; run() falls back to the program, simulate() cannot."""
    code = ("import vibro, sys\nsys.path.insert(0, %r)\nfrom conftest import hammer\n"
            "try:\n    vibro.simulate(hammer())\nexcept vibro.VibroError as e:\n"
            "    print('ERR', e)\n"
            "st = vibro.run(hammer(), %r)\nprint('RAN', len(st))\n"
            % (os.path.join(TOP, "python", "tests"), str(tmp_path / "f.h5")))
    r = run_python(code, {"VIBRO_LIB": str(tmp_path / "nolib.so")})
    assert r.returncode == 0, r.stderr
    assert ("ERR no libvibro for the vibro package in %s: set $VIBRO_LIB to a built "
            "libvibro.so.0 (or unset it) (tried $VIBRO_LIB, %s: none;"
            % (os.path.join(TOP, "python", "vibro"), tmp_path / "nolib.so")) in r.stdout, r.stdout
    assert "RAN 1" in r.stdout
    (tmp_path / "bad.so").write_text("not a library")
    r = run_python("import vibro\nvibro.run({}, 'x.h5', inprocess=True)",
                   {"VIBRO_LIB": str(tmp_path / "bad.so")})
    assert "VibroError: no libvibro for the vibro package" in r.stderr and "bad.so" in r.stderr
    r = run_python("from vibro import _lib\nprint(_lib.candidates()[:2])", {"VIBRO_LIB": ""})
    assert r.stdout.strip() == repr([
        ("the package", os.path.join(TOP, "python", "vibro", "libvibro.so.0")),
        ("the build tree", os.path.join(TOP, "lib", ".libs", "libvibro.so.0"))])


def test_simulate_threads_at_once():
    """Runs are reentrant: 4 threads simulating different scenes at once
    (ctypes lets go of the GIL) give each scene's own sequential result."""
    scenes = [hammer(mu=0.1 * (i + 1), v0=0.5 + i) for i in range(8)]
    for d in scenes:
        d["scene"]["duration"] = 0.5
    alone = [vibro.simulate(d) for d in scenes]
    got = [None] * len(scenes)

    def work(k):
        for i in range(k, len(scenes), 4):
            got[i] = vibro.simulate(scenes[i])
    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for a, b in zip(alone, got):
        for k in a.signals.data_vars:
            same_bits(a.signals[k], b.signals[k], k)
        pd.testing.assert_frame_equal(a.events, b.events, check_exact=True)


def test_progress_in_a_notebook(tmp_path, monkeypatch):
    """In a Jupyter kernel: a tqdm bar when tqdm is installed (a stand-in
    here), nothing on stderr."""
    import types
    bars = []

    class FakeTqdm:
        def __init__(self, total, unit, desc):
            self.total, self.n, self.closed = total, 0, False
            bars.append(self)

        def refresh(self):
            pass

        def close(self):
            self.closed = True
    auto = types.ModuleType("tqdm.auto")
    auto.tqdm = FakeTqdm
    monkeypatch.setitem(sys.modules, "tqdm", types.ModuleType("tqdm"))
    monkeypatch.setitem(sys.modules, "tqdm.auto", auto)
    monkeypatch.setattr(_lib, "in_notebook", lambda: True)
    vibro.run(sweep_study(8), tmp_path / "n.h5", inprocess=True)
    assert len(bars) == 1 and bars[0].total == 8 and bars[0].n == 8 and bars[0].closed


def test_progress_widget_in_a_notebook(tmp_path, monkeypatch):
    """In a Jupyter kernel without tqdm: an ipywidgets IntProgress (a
    stand-in here) when ipywidgets is installed."""
    import types
    shown = []

    class IntProgress:
        def __init__(self, min, max, description):
            self.max, self.value, self.description = max, 0, description

    widgets = types.ModuleType("ipywidgets")
    widgets.IntProgress = IntProgress
    display = types.ModuleType("IPython.display")
    display.display = shown.append
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)          # not installed
    monkeypatch.setitem(sys.modules, "ipywidgets", widgets)
    monkeypatch.setitem(sys.modules, "IPython", types.ModuleType("IPython"))
    monkeypatch.setitem(sys.modules, "IPython.display", display)
    monkeypatch.setattr(_lib, "in_notebook", lambda: True)
    vibro.run(sweep_study(6), tmp_path / "w.h5", inprocess=True)
    assert len(shown) == 1 and shown[0].max == 6 and shown[0].value == 6
    assert shown[0].description == "6/6"


def law_variants():
    """A stiff hammer through every law the package's check speaks of, at a
    rate too low for some (each warns or not as `vibro check` says)."""
    out = []
    for law, extra in (("power", {}), ("hunt-crossley", {"mu": 0.385}),
                       ("rattle", {"h": 1.3e-5, "mu": 0.2}),
                       ("lankarani-nikravesh", {"e": 0.7}), ("flores", {"e": 0.7}),
                       ("polynomial", {"alpha": 3.0}), ("spring", {"c": 0.5})):
        d = hammer(law=law, k=2.385e11, alpha=1.5)
        del d["contacts"][0]["mu"]
        d["contacts"][0].update(extra)
        if law == "spring":
            del d["contacts"][0]["alpha"]
        d["scene"]["fs"] = 8000.0
        out.append((law, d))
    d = hammer()
    d["scene"]["duration"] = 1.0e-4            # ends within the 0.13 ms contact
    out.append(("ends-early", d))
    d = hammer()
    d["scene"].update(fs=1.0e9, duration=2000.0)  # recording beyond disk and memory
    out.append(("huge", d))
    return out


@pytest.mark.parametrize("name", sorted(f[:-4] for f in os.listdir(SCENES) if f.endswith(".cfg"))
                         + [law for law, _ in law_variants()])
def test_every_scene_warns_as_check(name, tmp_path):
    """Every example scene and every law: the warnings of vibro.run (the
    study's) and vibro.simulate (scene 0's) are `vibro check`'s, word for
    word (lib/pyapi.c says them again beside tools/cmd_check.c)."""
    variants = dict(law_variants())
    if name in variants:
        path = str(tmp_path / (name + ".cfg"))
        with open(path, "w") as f:
            f.write(vibro.scene_text(variants[name]))
    else:
        path = os.path.join(SCENES, name + ".cfg")
    expected = ["%s: %s" % (path, x) for x in check_warnings(path)]
    lib = _lib.library()
    st = _lib.load_study(path, None)
    try:
        got = ["%s: %s" % (path, x) for x in _lib.lines(lib.vb_study_warnings, st)]
        first = ["%s: %s" % (path, x) for x in
                 _lib.lines(lib.vb_scene_warnings, lib.vb_study_first(st))]
    finally:
        lib.vb_study_free(st)
    assert got == expected
    study_wide = (" of the other ", ": the recording needs up to ", ": a scene records up to ")
    assert first == [x for x in expected if not any(w in x for w in study_wide)]
    if name in variants:
        assert (name in ("polynomial", "spring")) == (expected == []), expected
    if name == "ends-early":
        assert any("after the scene ends" in x for x in expected), expected
    if name == "huge":
        assert any("free on the current directory's file system" in x for x in expected)
        assert any("bytes of memory" in x for x in expected), expected

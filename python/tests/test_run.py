"""vibro.run, vibro.program and vibro.scene_text."""

import os
import subprocess

import numpy as np
import pytest

import vibro
from conftest import SCENES, TOP, hammer


def test_scene_text_reads_back(tmp_path):
    d = hammer(mu=0.385, v0=np.float64(1.25), sweep={"mode": "zip", "params": [
        {"path": "contacts.hit.k", "logspace": [1e8, 1e10], "n": 3},
        {"path": "bodies.hammer.v0", "values": [0.5, 1, 2.385]}]})
    d["record"] = {"every": 2, "modes": False}
    text = vibro.scene_text(d)
    assert 'law = "hunt-crossley";' in text and "mu = 0.385;" in text
    assert "values = [0.5, 1.0, 2.385];" in text      # one type per array
    assert "every = 2;" in text and "modes = false;" in text
    cfg = tmp_path / "s.cfg"
    cfg.write_text(text)
    r = subprocess.run([vibro.program(), "check", str(cfg)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "3 scenes" in r.stdout


def test_scene_text_values():
    t = vibro.scene_text({"a": 0.1 + 0.2, "b": 1e-300, "c": 3, "d": 2 ** 40, "e": True,
                          "f": 'say "hi"\n', "g": np.array([1.5, 2.0]), "h": [],
                          "i": {"j": {"k": -7.0}}, "l": ["x", "y"], "m": 1e22})
    assert "a = 0.30000000000000004;" in t          # every digit: repr round-trips
    assert "b = 1.0e-300;" in t and "m = 1.0e+22;" in t
    assert "c = 3;" in t and "d = 1099511627776L;" in t and "e = true;" in t
    assert 'f = "say \\"hi\\"\\n";' in t and "g = [1.5, 2.0];" in t and "h = [ ];" in t
    assert "k = -7.0;" in t and 'l = ["x", "y"];' in t
    for bad in ({"a": float("nan")}, {"a": float("inf")}, {"1a": 1}, {"a b": 1},
                {"a": object()}, {"a": 2 ** 64}):
        with pytest.raises(ValueError):
            vibro.scene_text(bad)
    with pytest.raises(ValueError):
        vibro.scene_text([1])


def test_run_dict_and_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    st = vibro.run(hammer(mu=0.2), tmp_path / "a.h5")
    assert isinstance(st, vibro.Study) and st.scenes == [0]
    assert 'mu = 0.2;' in st.input
    assert os.listdir(tmp_path) == ["a.h5"]        # the scene file went
    st2 = vibro.run(os.path.join(SCENES, "papetti-case-b.cfg"), tmp_path / "b.h5", jobs=1)
    assert st2.scene(0).name == "papetti-case-b"
    # resume on a finished file checks it and runs nothing
    st3 = vibro.run(os.path.join(SCENES, "papetti-case-b.cfg"), tmp_path / "b.h5",
                    resume=True)
    assert np.array_equal(st3.events()["v_out"], st2.events()["v_out"])


def test_run_errors(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(vibro.VibroError) as e:
        vibro.run(hammer(scheme="rk5"), tmp_path / "x.h5")
    msg = str(e.value)
    assert e.value.returncode == 1
    assert ".cfg:" in msg and "contact 'hit': unknown scheme 'rk5' (valid: " in msg
    assert os.listdir(tmp_path) == []              # no output, no scene file
    with pytest.raises(vibro.VibroError) as e:
        vibro.run(tmp_path / "none.cfg", tmp_path / "x.h5")
    assert "none.cfg" in str(e.value)
    with pytest.raises(vibro.VibroError, match="jobs must be a positive integer"):
        vibro.run(hammer(), tmp_path / "x.h5", jobs=0)


def test_run_unfinished_scene_warns(tmp_path):
    """Exit 2 (a scene did not finish cleanly): a warning, and the study."""
    d = hammer(k=1e12, alpha=1.5, mu=0.5, scheme="rk4", v0=40.0)
    d["scene"]["duration"] = 0.004
    with pytest.warns(RuntimeWarning, match="vibro: ") as w:
        st = vibro.run(d, tmp_path / "d.h5")
    assert st.table["status_code"].tolist() != [0]
    assert st.table["status"][0] != "done"


def test_program(monkeypatch, tmp_path):
    monkeypatch.setenv("VIBRO", str(tmp_path / "nothing"))
    with pytest.raises(vibro.VibroError, match=r"\$VIBRO: .* is not an executable file"):
        vibro.program()
    fake = tmp_path / "vibro"
    fake.write_text("#!/bin/sh\necho 'x.cfg:3: fake failure' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("VIBRO", str(fake))
    assert vibro.program() == str(fake)
    with pytest.raises(vibro.VibroError) as e:
        vibro.run(hammer(), tmp_path / "y.h5", inprocess=False)
    assert str(e.value) == "x.cfg:3: fake failure"
    monkeypatch.delenv("VIBRO")
    built = os.path.join(TOP, "tools", "vibro")
    if os.path.exists(built):                   # an in-tree build
        assert vibro.program() == built


def test_version():
    with open(os.path.join(TOP, "configure.ac")) as f:
        assert "AC_INIT([vibro], [%s]" % vibro.__version__ in f.read()

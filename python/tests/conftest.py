"""Fixtures: small studies run here by the built vibro (or $VIBRO), so the
tests read whatever layout the tree writes today."""

import os
import shutil
import tempfile

import h5py
import pytest

import vibro

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCENES = os.path.join(TOP, "scenes")


def hammer(mu=0.5, v0=1.0, sweep=None, **contact):
    """Papetti's case b (a 10 g hammer against a wall, Hunt-Crossley, AM1)
    as a dict, with a sweep when given."""
    c = {"name": "hit", "between": ["hammer", "wall"], "law": "hunt-crossley",
         "k": 1.0e9, "alpha": 1.5, "mu": mu, "scheme": "am1"}
    c.update(contact)
    scene = {
        "scene": {"name": "hammer", "fs": 44100.0, "duration": 0.002, "gravity": 0.0},
        "bodies": [{"name": "hammer", "type": "mass", "mass": 0.01, "u0": 0.0, "v0": v0},
                   {"name": "wall", "type": "wall", "position": 0.0}],
        "contacts": [c],
    }
    if sweep is not None:
        scene["sweep"] = sweep
    return scene


def written_layout():
    """The layout the vibro under test writes (vibro-2 since vibro run lost
    the vibro-1 writer): every fixture study is made in it."""
    with tempfile.TemporaryDirectory() as d:
        return [vibro.run(hammer(), os.path.join(d, "probe.h5")).format]


LAYOUTS = written_layout()


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line("layouts tested: %s (of %s)"
                                % (", ".join(LAYOUTS), ", ".join(vibro.FORMATS)))


@pytest.fixture(scope="session", params=LAYOUTS)
def fmt(request):
    return request.param


@pytest.fixture(scope="session")
def workdir(tmp_path_factory, fmt):
    return tmp_path_factory.mktemp(fmt)


@pytest.fixture(scope="session")
def study(workdir, fmt):
    """A 3 x 2 grid: mu (s/m) slowest, then the impact velocity (m/s); one
    impact per scene."""
    sweep = {"mode": "grid", "params": [
        {"path": "contacts.hit.mu", "values": [0.1, 0.5, 2.385]},
        {"path": "bodies.hammer.v0", "values": [0.6, 1.7]}]}
    st = vibro.run(hammer(sweep=sweep), str(workdir / "study.h5"), jobs=2)
    assert st.format == fmt
    return st


@pytest.fixture(scope="session")
def bounce(workdir, fmt):
    """The bouncing ball (1.4 s): many impacts in one scene, gravity."""
    return vibro.run(os.path.join(SCENES, "bouncing-ball.cfg"), str(workdir / "ball.h5"))


@pytest.fixture(scope="session")
def bar(workdir, fmt):
    """Avanzini's hammer on the three-mode bar (0.5 s at 44.1 kHz)."""
    return vibro.run(os.path.join(SCENES, "avanzini-hammer-bar.cfg"),
                     str(workdir / "bar.h5"))


@pytest.fixture
def plot_program():
    exe = os.environ.get("VIBRO_PLOT") or os.path.join(TOP, "tools", "vibro-plot")
    if not os.path.exists(exe):
        pytest.fail("no vibro-plot at %s (build the tree, or set VIBRO_PLOT)" % exe)
    return exe

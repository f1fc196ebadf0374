"""vibro.open and the Study/Scene calls, against h5py reading the same file."""

import os
import shutil
import subprocess
import sys
import time

import h5py
import numpy as np
import pandas as pd
import pytest
import xarray as xr

import vibro
from conftest import SCENES


def test_header(study):
    assert study.format in vibro.FORMATS
    assert study.version == vibro.__version__
    assert "contacts.hit.mu" in study.input and "sweep" in study.input
    assert study.mode == "grid"
    assert study.params == ["contacts.hit.mu", "bodies.hammer.v0"]
    assert study.param_units == {"contacts.hit.mu": "s/m", "bodies.hammer.v0": "m/s"}
    assert study.scenes == list(range(6)) and len(study) == 6
    assert study.complete and study.has_table
    assert repr(study).endswith("6 scenes, swept contacts.hit.mu, bodies.hammer.v0>")


def test_table(study):
    t = study.table
    assert isinstance(t, pd.DataFrame)
    assert t.index.name == "scene" and t.index.tolist() == list(range(6))
    # grid: the first parameter varies slowest
    assert t["contacts.hit.mu"].tolist() == [0.1, 0.1, 0.5, 0.5, 2.385, 2.385]
    assert t["bodies.hammer.v0"].tolist() == [0.6, 1.7] * 3
    assert t["status"].tolist() == ["done"] * 6
    assert (t["impacts:hit"] == 1).all()
    with h5py.File(study.path, "r") as f:
        raw = f["study/table"][:]
    for name in raw.dtype.names:
        if name in ("index", "status"):
            continue
        assert np.array_equal(t[name].to_numpy(), raw[name], equal_nan=True), name
    u = t.attrs["units"]
    assert u["contacts.hit.mu"] == "s/m" and u["final_energy"] == "J"
    assert u["first_impact:hit"] == "s"


def test_events_against_h5py(study):
    ev = study.events()
    assert list(ev.columns[:3]) == ["scene", "contact", "impact"]
    assert ev.columns[-1] == "cor"
    assert len(ev) == int(study.table["impacts:hit"].sum()) == 6
    with h5py.File(study.path, "r") as f:
        rows = [(int(s), c, i, e) for s in sorted(f["scenes"])
                for c in sorted(f["scenes"][s]["contacts"])
                for i, e in enumerate(f["scenes"][s]["contacts"][c]["events"][:])]
    assert len(rows) == len(ev)
    for (s, c, i, e), (_, row) in zip(rows, ev.iterrows()):
        assert (row["scene"], row["contact"], row["impact"]) == (s, c, i)
        for name in e.dtype.names:
            assert row[name] == e[name] or (np.isnan(row[name]) and np.isnan(e[name])), name
    table = study.table
    for p in study.params:
        assert ev[p].tolist() == table.loc[ev["scene"], p].tolist()
    assert np.array_equal(ev["cor"], -ev["v_out"] / ev["v_in"])
    assert ((ev["cor"] > 0.2) & (ev["cor"] < 1)).all()
    # COR falls with mu and with the impact velocity (Papetti Fig 1)
    c = ev.set_index("scene")["cor"]
    assert c[0] > c[1] > c[3] > c[5] and c[0] > c[2] > c[4]
    units = ev.attrs["units"]
    assert units["v_in"] == "m/s" and units["cor"] == "1" and units["contacts.hit.mu"] == "s/m"


def test_events_contact(study, bounce):
    assert len(study.events("hit")) == 6
    with pytest.raises(vibro.VibroError) as e:
        study.events("hti")
    assert str(e.value) == "%s: no contact 'hti' in any scene (valid: hit)" % study.path
    ev = bounce.events()
    assert len(ev) > 10 and ev["impact"].tolist() == list(range(len(ev)))
    assert (np.diff(ev["t_on"]) > 0).all()


def test_signal(study):
    u = study.signal(3, "bodies/hammer/u")
    assert isinstance(u, xr.DataArray) and u.dims == ("time",)
    assert u.attrs["units"] == "m" and u["time"].attrs["units"] == "s"
    assert u.name == "bodies/hammer/u"
    with h5py.File(study.path, "r") as f:
        g = f["scenes/000003"]
        assert np.array_equal(u.values, g["bodies/hammer/u"][:])
        assert np.array_equal(u["time"].values, g["time"][:])
    assert np.isclose(u["time"].values[1], 1 / 44100.0, rtol=1e-12)
    assert study.signal("3", "/contacts/hit/force").attrs["units"] == "N"
    with pytest.raises(vibro.VibroError) as e:
        study.signal(3, "bodies/hamer/u")
    assert str(e.value).startswith("%s: no signal 'bodies/hamer/u' in scene 3 (valid: "
                                   "bodies/hammer/u, bodies/hammer/v, " % study.path)
    with pytest.raises(vibro.VibroError) as e:
        study.signal(6, "bodies/hammer/u")
    assert str(e.value) == "%s: no scene 6 (valid: 0-5)" % study.path
    with pytest.raises(vibro.VibroError):
        study.signal(2.5, "bodies/hammer/u")


def test_scene(study, bar):
    s = study.scene(4)
    assert s.index == 4 and s.name == "hammer" and s.status == "done" and s.fs == 44100.0
    assert s.params == {"contacts.hit.mu": 2.385, "bodies.hammer.v0": 0.6}
    assert s.contacts == ["hit"] and s.bodies == {"hammer": "mass", "wall": "wall"}
    assert "bodies/hammer/u" in s.signals and "energy/total" in s.signals
    assert s.attrs["record_every"] == 1
    assert len(s.events()) == 1 and s.events()["scene"].tolist() == [4]
    assert np.array_equal(s.signal("bodies/hammer/v").values,
                          study.signal(4, "bodies/hammer/v").values)
    assert s.modes().empty
    assert [sc.index for sc in study] == study.scenes
    m = bar.scene(0).modes()
    assert m["freq"].tolist() == [440.0, 1212.6, 2377.8]
    assert m["mass"].tolist() == [0.1, 0.1, 0.1]
    # sigma = omega / (2 Q) for quality Q (README, modal damping)
    assert np.allclose(m["sigma"], 2 * np.pi * m["freq"] / (2 * np.array([250.0, 180.0, 120.0])),
                       rtol=1e-12)
    assert "bodies/bar/modes/freq" not in bar.scene(0).signals
    with pytest.raises(vibro.VibroError) as e:
        bar.scene(0).modes("hammer")
    assert "valid: bar" in str(e.value)


def test_contacts(study):
    c = study.contacts()
    assert c["scene"].tolist() == list(range(6)) and set(c["contact"]) == {"hit"}
    assert c["mu"].tolist() == [0.1, 0.1, 0.5, 0.5, 2.385, 2.385]
    assert set(c["law"]) == {"hunt-crossley"} and set(c["scheme"]) == {"am1"}


def test_modal_q(workdir):
    scene = {"scene": {"name": "q", "fs": 8000.0, "duration": 0.01},
             "bodies": [{"name": "bar", "type": "modal", "freq": [100.0, 333.0],
                         "mass": 0.1, "quality": 50.0, "q0": [1e-3, 2e-4],
                         "points": [{"name": "p", "shape": [1.0, -0.5]}]}],
             "record": {"modes": True}}
    st = vibro.run(scene, str(workdir / "q.h5"))
    q = st.signal(0, "bodies/bar/modes/q")
    assert q.dims == ("mode", "time") and q.shape == (2, 81)
    u = st.signal(0, "bodies/bar/p/u")
    assert np.allclose(u.values, q.values[0] - 0.5 * q.values[1], rtol=0, atol=1e-18)


def test_not_vibro(tmp_path):
    junk = tmp_path / "junk.h5"
    junk.write_text("not hdf5")
    with pytest.raises(vibro.VibroError) as e:
        vibro.open(junk)
    assert str(e.value) == "%s: not a vibro output (not an HDF5 file)" % junk
    with h5py.File(tmp_path / "nf.h5", "w") as f:
        f["x"] = 1.0
    with pytest.raises(vibro.VibroError, match="no 'format' attribute"):
        vibro.open(tmp_path / "nf.h5")
    with h5py.File(tmp_path / "m.h5", "w") as f:
        f.attrs["format"] = "matlab-7"
    with pytest.raises(vibro.VibroError) as e:
        vibro.open(tmp_path / "m.h5")
    assert str(e.value) == "%s: not a vibro output (format 'matlab-7', expected %s)" % (
        tmp_path / "m.h5", " or ".join(vibro.FORMATS))
    with h5py.File(tmp_path / "v9.h5", "w") as f:
        f.attrs["format"] = "vibro-9"
    with pytest.raises(vibro.VibroError, match="newer than this package reads"):
        vibro.open(tmp_path / "v9.h5")
    with pytest.raises(vibro.VibroError, match="cannot open: No such file"):
        vibro.open(tmp_path / "none.h5")


def test_interrupted(study, tmp_path):
    """Only OUT.h5.part exists (an interrupted run): the scenes marked done."""
    part = tmp_path / "out.h5.part"
    shutil.copy(study.path, part)
    with h5py.File(part, "r+") as f:
        f["study/done"][1] = 0
        f["study/done"][4] = 0
    st = vibro.open(tmp_path / "out.h5")
    assert not st.complete and repr(st).endswith(", incomplete>")
    assert st.table.index.tolist() == [0, 2, 3, 5]
    assert st.events()["scene"].tolist() == [0, 2, 3, 5]


def test_running(study, tmp_path):
    """A file its writer holds open (HDF5 locks it): a clear error."""
    part = tmp_path / "run.h5.part"
    shutil.copy(study.path, part)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time, h5py; f = h5py.File(sys.argv[1], 'r+'); "
         "print('open', flush=True); time.sleep(30)", str(part)],
        stdout=subprocess.PIPE, text=True,
        env=dict(os.environ, HDF5_USE_FILE_LOCKING="TRUE"))
    try:
        assert holder.stdout.readline().strip() == "open"
        env = os.environ.get("HDF5_USE_FILE_LOCKING")
        if env and env.upper() == "FALSE":
            pytest.fail("HDF5_USE_FILE_LOCKING=FALSE: a running study cannot be told apart")
        with pytest.raises(vibro.VibroError) as e:
            vibro.open(tmp_path / "run.h5")
        if study.format == "vibro-1":
            assert str(e.value) == (
                "%s: a running study's file (its writer holds it); layout vibro-1 cannot be "
                "read until the run ends (vibro-2 files can)" % part)
    finally:
        holder.kill()
        holder.wait()

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


def raw_events(study):
    """(scene, contact, impact, row) of every event, read with plain h5py."""
    with h5py.File(study.path, "r") as f:
        if study.format == "vibro-1":
            return [(int(s), c, i, e) for s in sorted(f["scenes"])
                    for c in sorted(f["scenes"][s]["contacts"])
                    for i, e in enumerate(f["scenes"][s]["contacts"][c]["events"][:])]
        ds = f["study/events"]
        names = [n.decode() if isinstance(n, bytes) else n
                 for n in (ds.attrs["contacts"] if "contacts" in ds.attrs
                           else f["study/table/contact"][:])]
        out, count = [], {}
        rows = ds[:] if isinstance(ds, h5py.Dataset) else raw_columns(ds)
        for e in rows:
            key = (int(e["scene"]), names[e["contact"]])
            out.append(key + (count.get(key, 0), e))
            count[key] = count.get(key, 0) + 1
        return out


def raw_columns(g):
    """vibro-3: a table group's columns as a numpy structured array (a
    [row][contact] column X as "X:C" per contact C), read with plain h5py."""
    contacts = ([c.decode() for c in g["contact"][:]]
                if "contact" in g and g["contact"].dtype.kind == "S" else [])
    cols = {}
    for name, ds in g.items():
        if name == "event" or (name == "contact" and contacts):
            continue
        v = ds[:]
        if v.ndim == 2:
            for j, c in enumerate(contacts):
                cols["%s:%s" % (name, c)] = v[:, j]
        else:
            cols[name] = v
    n = len(next(iter(cols.values()))) if cols else 0
    out = np.zeros(n, [(k, v.dtype) for k, v in cols.items()])
    for k, v in cols.items():
        out[k] = v
    return out


def raw_table(f):
    """/study/table as a structured array: vibro-2's compound, or vibro-3's columns."""
    t = f["study/table"]
    return t[:] if isinstance(t, h5py.Dataset) else raw_columns(t)


def raw_signal(study, i, path):
    """(values, time) of a signal of scene i, read with plain h5py."""
    with h5py.File(study.path, "r") as f:
        if study.format == "vibro-1":
            g = f["scenes/%06d" % i]
            return g[path][:], g["time"][:]
        row = list(f["signals/scene"][:]).index(i)
        n = int(raw_table(f)[row]["samples"])
        return f["signals/" + path.replace("/", ".")][row][:n], f["signals/time"][:n]


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
        raw = raw_table(f)
    for name in raw.dtype.names:
        if name in ("index", "scene", "status"):
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
    rows = raw_events(study)
    assert len(rows) == len(ev)
    for (s, c, i, e), (_, row) in zip(rows, ev.iterrows()):
        assert (row["scene"], row["contact"], row["impact"]) == (s, c, i)
        for name in e.dtype.names:
            if name in ("scene", "contact"):
                continue
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
    values, t = raw_signal(study, 3, "bodies/hammer/u")
    assert np.array_equal(u.values, values) and np.array_equal(u["time"].values, t)
    # vibro-2's dataset names are accepted too
    assert np.array_equal(study.signal(3, "bodies.hammer.u").values, values)
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
    assert "bodies/wall/u" not in s.signals or study.format == "vibro-1"
    assert "bodies/hammer/u" in s.signals and "energy/total" in s.signals
    assert s.attrs["status"] == "done" and s.attrs["duration"] == 0.002
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
    assert str(e.value) == "%s: not a vibro output (format 'matlab-7', valid: %s)" % (
        tmp_path / "m.h5", "vibro-1, vibro-2, vibro-3")
    with h5py.File(tmp_path / "v9.h5", "w") as f:
        f.attrs["format"] = "vibro-9"
    with pytest.raises(vibro.VibroError, match="newer than this package reads"):
        vibro.open(tmp_path / "v9.h5")
    with pytest.raises(vibro.VibroError, match="cannot open: No such file"):
        vibro.open(tmp_path / "none.h5")


def test_interrupted(study, tmp_path):
    """Only OUT.h5.part/ exists (an interrupted run): its complete shards."""
    return interrupted2(study, tmp_path)


def test_running(study, tmp_path):
    """A running study is read from its complete shards."""
    return running2(study, tmp_path)


def running2(study, tmp_path):
    """vibro-2: a running study is read from its complete shards, and so is
    an interrupted one; a damaged shard is left out (doc/format.md)."""
    import signal
    out = tmp_path / "io.h5"
    cfg = tmp_path / "io.cfg"
    # the impact oscillator at 400 frequencies, 4 s each: several seconds
    cfg.write_text(vibro.scene_text({
        "scene": {"name": "io", "fs": 20000.0, "duration": 4.0},
        "bodies": [{"name": "oscillator", "type": "mass", "mass": 1.0, "k": 3947.8418,
                    "c": 6.2831853}, {"name": "stop", "type": "wall"}],
        "contacts": [{"name": "impact", "between": ["oscillator", "stop"],
                      "law": "hunt-crossley", "k": 1.0e7, "alpha": 1.0, "mu": 10.0,
                      "scheme": "am1"}],
        "forces": [{"name": "drive", "at": "oscillator", "type": "harmonic",
                    "amplitude": 3.9478418, "freq": 25.0}],
        "record": {"every": 20},
        "sweep": {"params": [{"path": "forces.drive.freq", "linspace": [24.0, 29.0],
                              "n": 400}]}}))
    # a shard every 8 scenes (doc/format.md's test hook): the writer's own
    # period, 10 s, can be longer than this whole study on a fast machine
    env = dict(os.environ, VIBRO_TEST_BATCH="8")
    proc = subprocess.Popen([vibro.program(), "run", str(cfg), "-o", str(out), "-j", "1",
                             "--quiet"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        st = None
        while time.monotonic() < deadline:
            try:
                st = vibro.open(out)
                break
            except vibro.VibroError as e:
                assert "holds no complete shard yet" in str(e) or "cannot open" in str(e)
                assert proc.poll() is None, proc.stderr.read()
                time.sleep(0.1)
        assert st is not None and not st.complete and proc.poll() is None
        n = len(st.scenes)
        assert 0 < n < 400 and st.table.index.tolist() == st.scenes
        ev = st.events()
        assert set(ev["scene"]) <= set(st.scenes) and len(ev) > 0
        assert (ev["forces.drive.freq"] == st.table.loc[ev["scene"], "forces.drive.freq"]
                .to_numpy()).all()
        u = st.signal(st.scenes[0], "bodies/oscillator/u")
        assert u.sizes["time"] == 4001 and u["time"].values[-1] == pytest.approx(4.0)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    part = str(out) + ".part"
    st = vibro.open(out)                    # interrupted: what was written
    kept = len(st.scenes)
    assert kept >= n
    # a damaged shard drops out, its scenes with it
    shards = sorted(p for p in os.listdir(part) if p.endswith(".h5"))
    with open(os.path.join(part, shards[0]), "r+b") as fh:
        fh.seek(100)
        b = fh.read(1)
        fh.seek(100)
        fh.write(bytes([b[0] ^ 0xFF]))
    if len(shards) > 1:
        assert 0 < len(vibro.open(out).scenes) < kept
    else:
        with pytest.raises(vibro.VibroError, match="holds no complete shard yet"):
            vibro.open(out)


def interrupted2(study, tmp_path):
    """vibro-2: OUT.part/ read through its manifest: a line whose own CRC
    fails, or naming a shard of another size, counts for nothing."""
    import zlib
    part = tmp_path / "out.h5.part"
    part.mkdir()
    with pytest.raises(vibro.VibroError) as e:
        vibro.open(tmp_path / "out.h5")
    assert str(e.value) == ("%s: interrupted (no process writes it), and %s/ holds no "
                            "complete shard yet" % (tmp_path / "out.h5", part))
    data = open(study.path, "rb").read()
    shutil.copy(study.path, part / "r000-000000.h5")
    head = "r000-000000.h5 %d %08x 6 0 5 00000000 " % (len(data), zlib.crc32(data))
    good = head + "%08x\n" % zlib.crc32(head.encode())
    for text, scenes in ((good[:-1], None),                   # no newline: unfinished
                         (good.replace(" 6 0 5 ", " 6 0 4 "), None),    # its CRC fails
                         (good.replace(" %d " % len(data), " %d " % (len(data) + 1)), None),
                         (good, list(range(6)))):
        (part / "manifest.r000").write_text(text)
        if scenes is None:
            with pytest.raises(vibro.VibroError, match="holds no complete shard yet"):
                vibro.open(tmp_path / "out.h5")
        else:
            st = vibro.open(tmp_path / "out.h5")
            assert st.scenes == scenes and not st.complete
            assert st.events()["cor"].tolist() == study.events()["cor"].tolist()


# ------------------------------------------- vibro-3 tables (issue 17)
OLD = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data", "study-vibro2.h5")


@pytest.fixture(scope="session")
def old_and_new(tmp_path_factory):
    """tests/data/study-vibro2.h5 (written by vibro at 632d625, layout
    vibro-2) and the same study run now."""
    d = tmp_path_factory.mktemp("tables")
    new = vibro.run(OLD.replace(".h5", ".cfg"), str(d / "new.h5"))
    return vibro.open(OLD), new


def test_vibro2_file_reads_as_written(old_and_new):
    """The package reads the old layout: every table column and event field
    as plain h5py reads the compound; the study run again in today's layout
    gives frames of the same columns and units."""
    old, new = old_and_new
    assert old.format == "vibro-2" and new.format == vibro.FORMATS[-1]
    t = old.table
    with h5py.File(OLD, "r") as f:
        raw = f["study/table"][:]
        ev = f["study/events"][:]
    for name in raw.dtype.names:
        if name not in ("index", "status"):
            assert np.array_equal(t[name].to_numpy(), raw[name], equal_nan=True), name
    e = old.events()
    assert len(e) == len(ev) > 0
    for name in ev.dtype.names:
        if name != "contact":
            assert np.array_equal(e[name].to_numpy(), ev[name], equal_nan=True), name
    # the same study written now: the same frames' shape, columns and units
    # (its values may move with the physics since 632d625)
    # columns vibro-3 adds (doc/format.md): state_drift, energy_balance_worst
    # (issue 32), and engaged_at_end per contact (issue 21)
    # and under_resolved per contact (issue 32 item 2)
    added = ["state_drift", "energy_balance_worst", "engaged_at_end:hit", "engaged_at_end:roof",
             "under_resolved:hit", "under_resolved:roof"]
    assert sorted(list(old.table.columns) + added) == sorted(new.table.columns)
    assert old.table.index.tolist() == new.table.index.tolist()
    assert list(old.events().columns) == list(new.events().columns)
    units = dict(new.table.attrs["units"])
    assert units.pop("state_drift") == "J^(1/2)"
    assert units.pop("energy_balance_worst") == "J"
    assert units.pop("engaged_at_end:hit") == units.pop("engaged_at_end:roof") == "1"
    assert units.pop("under_resolved:hit") == units.pop("under_resolved:roof") == "1"
    assert old.table.attrs["units"] == units
    assert old.events().attrs["units"] == new.events().attrs["units"]


def test_tables_are_netcdf_columns(old_and_new):
    """xarray opens /study/table as a Dataset on scene and contact, and
    /study/events on event; every column is a plain numeric or fixed-length
    string dataset with units, named without ':' (MATLAB's h5read and
    Octave read each)."""
    old, new = old_and_new
    t = new.table
    contacts = new.contacts()["contact"].unique().tolist()
    ds = xr.open_dataset(new.path, group="study/table", engine="h5netcdf")
    assert set(ds.dims) == {"scene", "contact"}
    assert ds.sizes["scene"] == len(t) and ds.sizes["contact"] == len(contacts) == 2
    assert [c.decode() for c in ds["contact"].values] == ["hit", "roof"]
    assert ds["impacts"].dims == ("scene", "contact")
    for j, c in enumerate(["hit", "roof"]):
        for k in ("impacts", "first_impact", "max_compression", "newton_iterations"):
            assert np.array_equal(ds[k].values[:, j], t["%s:%s" % (k, c)].to_numpy(),
                                  equal_nan=True), (k, c)
    assert ds["impacts"].attrs["units"] == "1" and ds["max_compression"].attrs["units"] == "m"
    ds.close()
    ev = xr.open_dataset(new.path, group="study/events", engine="h5netcdf")
    assert set(ev.dims) == {"event"} and ev.sizes["event"] == len(new.events())
    assert np.array_equal(ev["t_on"].values, new.events()["t_on"].to_numpy(), equal_nan=True)
    ev.close()
    with h5py.File(new.path, "r") as f:
        for group in ("study/table", "study/events"):
            for name, d in f[group].items():
                assert isinstance(d, h5py.Dataset) and d.dtype.kind in "iufS", (group, name)
                assert ":" not in name and d.ndim in (1, 2), (group, name)
                assert d.dtype.kind == "S" or "units" in d.attrs, (group, name)


def test_state_drift_column(tmp_path):
    """/study/table/state_drift: the sav scheme's largest |psi - sqrt(2 V)|
    over the run (J^(1/2)); psi departs from its definition by the scheme's
    own error, which shrinks as the rate rises (Papetti's case b, 6 to 96
    samples per contact); NaN for a scheme that keeps no state."""
    from conftest import hammer
    drift = []
    for fs in (44100.0, 176400.0, 705600.0):
        scene = hammer(law="power", scheme="sav")
        del scene["contacts"][0]["mu"]
        scene["scene"]["fs"] = fs
        st = vibro.run(scene, str(tmp_path / ("sav%d.h5" % fs)))
        drift.append(float(st.table["state_drift"].iloc[0]))
    assert all(np.isfinite(d) and d > 0.0 for d in drift), drift
    assert drift[0] > 4.0 * drift[1] > 16.0 * drift[2], drift
    assert st.table.attrs["units"]["state_drift"] == "J^(1/2)"
    am1 = vibro.run(hammer(), str(tmp_path / "am1.h5"))
    assert np.isnan(am1.table["state_drift"].iloc[0])


def test_grid(study, tmp_path):
    """study.grid(): a grid sweep's table (or any object along `scene`) with
    `scene` replaced by one dimension per swept path, in the sweep's order;
    every cell is its scene's row; a zip sweep has no grid."""
    g = study.grid()
    assert list(g["status_code"].dims) == ["contacts.hit.mu", "bodies.hammer.v0"]
    assert g["status_code"].shape == (3, 2)
    assert g["contacts.hit.mu"].attrs["units"] == "s/m"
    t = study.table
    for i, row in t.iterrows():
        cell = g.sel({"contacts.hit.mu": row["contacts.hit.mu"],
                      "bodies.hammer.v0": row["bodies.hammer.v0"]})
        assert float(cell["final_energy"]) == row["final_energy"]
        assert int(cell["impacts:hit"]) == row["impacts:hit"]
    ds = xr.open_dataset(study.path, group="study/table", engine="h5netcdf")
    g2 = study.grid(ds)
    assert g2["impacts"].dims == ("contact", "contacts.hit.mu", "bodies.hammer.v0")
    from conftest import hammer
    z = vibro.run(hammer(sweep={"mode": "zip", "params": [
        {"path": "contacts.hit.mu", "values": [0.1, 0.2]},
        {"path": "bodies.hammer.v0", "values": [0.5, 0.6]}]}), str(tmp_path / "zip.h5"))
    with pytest.raises(vibro.VibroError, match="the sweep is zip, not a grid"):
        z.grid()

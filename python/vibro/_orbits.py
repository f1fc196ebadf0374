"""The analysis layer of a study (issue 20, doc/format.md): the Poincare
sections, the impact map and the orbit columns of the table, as DataFrames
and xarray Datasets.  The Study methods sections(), impact_map() and
orbits() call these.

In the file (vibro-3, written when the scenes have an `analysis` block):
  /study/sections     along `section`: scene, k (drive period from the run's
                      start), t (s), u and v [section][point] (m, m/s), with a
                      `point` coordinate of names
  /study/impact_map   along `impact`: scene, contact (index into
                      /study/table/contact), t (s, onset), v_in (m/s), phase
                      (rad), since_previous (s), grazing (0/1)
  /study/phases       (issue 30, a contact with friction) along `phase`: scene,
                      contact, stick (0/1), t_on, t_off, duration (s), mean_slip
                      (m/s), friction_work (J), steps
  /study/table        orbit (code: flag_values / flag_meanings), period (m),
                      impacts_per_period (n), orbit_tolerance, sections,
                      attractor, and on request lyapunov, lyapunov_second_half
"""

import numpy as np

from ._errors import VibroError
from ._h5 import _items

# The orbit column's classes when the file carries no flag_meanings
# (analysis-spec.md: 0 no_section, 1 not_settled, 2 periodic, 3 irregular)
ORBIT_CLASSES = {0: "no_section", 1: "not_settled", 2: "periodic", 3: "irregular"}

# The table's analysis columns, in the order orbits() gives them
ORBIT_COLUMNS = ("orbit", "class", "label", "period", "impacts_per_period",
                 "orbit_tolerance", "sections", "attractor", "lyapunov",
                 "lyapunov_second_half", "lyapunov_perturbation")


def _text(value):
    if isinstance(value, (bytes, np.bytes_)):
        return value.decode("utf-8", "replace").rstrip("\0")
    if isinstance(value, np.ndarray) and value.shape == ():
        return _text(value[()])
    return str(value)


def orbit_label(cls, period):
    """The words for a scene's orbit: "period 2" (periodic, m = 2),
    "irregular", "not settled" or "no section"."""
    if cls == "periodic":
        return "period %d" % int(period)
    return str(cls).replace("_", " ")


def _read_group(study, name, dim):
    """The columns of /study/<name> of every file of the study, concatenated:
    ({column: array}, {column: units}, [point names] or None), or VibroError
    naming what the study lacks."""
    import h5py
    from ._study import _whole      # _study imports this module
    cols, units, points, found = {}, {}, None, False
    with study._each() as files:
        for f in files:
            if "study/" + name not in f:
                continue
            found = True
            g = f["study/" + name]
            # every column against the coordinates before anything is read:
            # a damaged header claiming 4e9 rows where the coordinate has 9
            # would be a MemoryError (or a column of another length, padded)
            rows = _coordinate(g, dim, "iu")
            npoints = _coordinate(g, "point", "S") if "point" in g else None
            if "point" in g:
                names = [_text(p) for p in _whole(g["point"])]
                if points is not None and names != points:
                    raise VibroError("%s: /study/%s: the shards name different points "
                                     "(%s; %s)" % (study.path, name, ", ".join(points),
                                                   ", ".join(names)))
                points = names
            for key, ds in _items(g):
                if key in (dim, "point") or not isinstance(ds, h5py.Dataset):
                    continue
                if ds.ndim not in (1, 2) or ds.shape[0] != rows or \
                        (ds.ndim == 2 and ds.shape[1] != npoints):
                    raise ValueError("%s has shape %s, its coordinates %s"
                                     % (ds.name, list(ds.shape),
                                        "[%d]" % rows if npoints is None
                                        else "[%d] or [%d][%d]" % (rows, rows, npoints)))
                cols.setdefault(key, []).append(_whole(ds))
                if "units" in ds.attrs:
                    units[key] = _text(ds.attrs["units"])
    if not found and name == "phases":
        raise VibroError("%s: no /study/phases: the scenes have no contact with friction "
                         "(doc/scene-file.md, \"Friction\"; valid: a contact with friction = "
                         "{ law = \"coulomb\"; ... })" % study.path)
    if not found:
        raise VibroError("%s: no /study/%s: the scenes have no analysis block asking for "
                         "%s (doc/scene-file.md, \"Analysis\"; valid: a scene file with analysis = "
                         "{ %s = {...}; })"
                         % (study.path, name, "a Poincare section" if name == "sections"
                            else "an impact map", "section" if name == "sections"
                            else "impact_map"))
    return {k: np.concatenate(v) for k, v in cols.items()}, units, points


def _coordinate(g, name, kinds):
    """The length of group g's 1-d coordinate `name` (numbers of a kind
    in `kinds`, or fixed-length text "S"); ValueError when it is absent or
    not one."""
    import h5py
    ds = g[name] if name in g else None
    if not isinstance(ds, h5py.Dataset) or ds.ndim != 1 or ds.dtype.kind not in kinds:
        raise ValueError("%s/%s: no 1-d coordinate" % (g.name, name))
    return ds.shape[0]


def _join_params(study, df, units):
    """The swept parameter values of each row's scene, as columns."""
    rows = study._param_rows()
    for p in study.params:
        df[p] = np.array([rows.get(int(s), {}).get(p, np.nan) for s in df["scene"]],
                         dtype=float)
        units[p] = study.param_units[p]
    return df


def _pick(study, what, arg, names):
    if arg is not None and arg not in names:
        raise VibroError("%s: no %s '%s' in the %s (valid: %s)"
                         % (study.path, what, arg,
                            "section" if what == "point" else "impact map",
                            ", ".join(names) or "none"))
    return arg


def sections(study, point=None, xarray=False):
    """The Poincare sections of every scene: one row per sample and point,
    columns scene, k, t (s), point, u (m), v (m/s) and the swept
    parameters, ordered by scene, then k.  `point` selects one point.
    With xarray=True: a Dataset along `section` and `point` (u, v on both;
    scene, k, t and the swept parameters along `section`)."""
    import pandas as pd
    cols, units, points = _read_group(study, "sections", "section")
    points = points or []
    _pick(study, "point", point, points)
    u = cols.get("u", np.zeros((0, len(points)))).reshape(-1, max(len(points), 1))
    v = cols.get("v", np.zeros((0, len(points)))).reshape(-1, max(len(points), 1))
    scene = cols.get("scene", np.zeros(0, np.int64)).astype(np.int64)
    order = np.lexsort((cols.get("k", np.zeros(len(scene))), scene))
    base = {"scene": scene[order], "k": cols.get("k", np.zeros(len(scene)))[order],
            "t": cols.get("t", np.full(len(scene), np.nan))[order]}
    u, v = u[order], v[order]
    if xarray:
        import xarray as xr
        data = {q: (("section", "point"), a, {"units": units.get(q, "")})
                for q, a in (("u", u), ("v", v))}
        data.update({q: ("section", a, {"units": units.get(q, "1")})
                     for q, a in base.items()})
        rows = study._param_rows()
        for p in study.params:
            data[p] = ("section", np.array([rows.get(int(s), {}).get(p, np.nan)
                                            for s in base["scene"]], float),
                       {"units": study.param_units[p]})
        ds = xr.Dataset(data, coords={"point": points, "section": np.arange(len(scene))})
        return ds.sel(point=[point]) if point is not None else ds
    npt = len(points)
    df = pd.DataFrame({"scene": np.repeat(base["scene"], npt),
                       "k": np.repeat(base["k"], npt),
                       "t": np.repeat(base["t"], npt),
                       "point": np.array(points * len(scene), dtype=object),
                       "u": u.reshape(-1), "v": v.reshape(-1)})
    if point is not None:
        df = df[df["point"] == point].reset_index(drop=True)
    out_units = {"scene": "1", "k": "1", "t": units.get("t", "s"), "point": "-",
                 "u": units.get("u", "m"), "v": units.get("v", "m/s")}
    df = _join_params(study, df, out_units)
    df.attrs["units"] = out_units
    return df


def impact_map(study, contact=None, xarray=False):
    """The impact map of every scene: one row per impact after the
    transient, columns scene, contact (its name), t (s, onset), v_in (m/s),
    phase (rad, of the section's drive at onset), since_previous (s, NaN
    for a scene's first), grazing (bool) and the swept parameters, ordered
    by scene, then t.  `contact` selects one contact by name.  With
    xarray=True: a Dataset along `impact`."""
    import pandas as pd
    cols, units, _ = _read_group(study, "impact_map", "impact")
    names = study._contact_names()
    n = len(cols.get("scene", ()))
    idx = cols.get("contact", np.zeros(n, np.int32))
    df = pd.DataFrame({"scene": cols.get("scene", np.zeros(n)).astype(np.int64),
                       "contact": np.array([names[k] if 0 <= k < len(names) else str(k)
                                            for k in idx], dtype=object)})
    for q in ("t", "v_in", "phase", "since_previous"):
        df[q] = np.asarray(cols.get(q, np.full(n, np.nan)), float)
    df["grazing"] = np.asarray(cols.get("grazing", np.zeros(n)), int) != 0
    for q in sorted(set(cols) - set(df.columns)):
        df[q] = cols[q]
    df = df.sort_values(["scene", "t"], kind="stable").reset_index(drop=True)
    _pick(study, "contact", contact, names)
    if contact is not None:
        df = df[df["contact"] == contact].reset_index(drop=True)
    out_units = {"scene": "1", "contact": "-", "t": "s", "v_in": "m/s", "phase": "rad",
                 "since_previous": "s", "grazing": "1"}
    out_units.update({k: v for k, v in units.items() if k not in ("contact", "scene")})
    df = _join_params(study, df, out_units)
    df.attrs["units"] = out_units
    if xarray:
        import xarray as xr
        ds = xr.Dataset.from_dataframe(df.rename_axis("impact"))
        for q in ds.data_vars:
            ds[q].attrs["units"] = out_units.get(q, "")
        return ds
    return df


def phases(study, contact=None, xarray=False):
    """The stick and slip phases of every scene's contacts with friction
    (issue 30, doc/format.md's /study/phases): one row per phase, columns
    scene, contact (its name), stick (bool: a stick, else a slip), t_on,
    t_off, duration (s; NaN t_off and duration for the phase a run ended
    in), mean_slip (m/s), friction_work (J), steps and the swept
    parameters, ordered by scene, contact, then t_on.  `contact` selects one
    contact by name.  With xarray=True: a Dataset along `phase`."""
    import pandas as pd
    cols, units, _ = _read_group(study, "phases", "phase")
    names = study._contact_names()
    n = len(cols.get("scene", ()))
    idx = cols.get("contact", np.zeros(n, np.int32))
    df = pd.DataFrame({"scene": cols.get("scene", np.zeros(n)).astype(np.int64),
                       "contact": np.array([names[k] if 0 <= k < len(names) else str(k)
                                            for k in idx], dtype=object)})
    df["stick"] = np.asarray(cols.get("stick", np.zeros(n)), int) != 0
    for q in ("t_on", "t_off", "duration", "mean_slip", "friction_work"):
        df[q] = np.asarray(cols.get(q, np.full(n, np.nan)), float)
    df["steps"] = np.asarray(cols.get("steps", np.zeros(n)), np.int64)
    for q in sorted(set(cols) - set(df.columns)):
        df[q] = cols[q]
    order = np.lexsort((df["t_on"].to_numpy(), idx, df["scene"].to_numpy()))
    df = df.iloc[order].reset_index(drop=True)
    if contact is not None:
        _pick_phase(study, contact, names)
        df = df[df["contact"] == contact].reset_index(drop=True)
    out_units = {"scene": "1", "contact": "-", "stick": "1", "t_on": "s", "t_off": "s",
                 "duration": "s", "mean_slip": "m/s", "friction_work": "J", "steps": "1"}
    out_units.update({k: v for k, v in units.items() if k not in ("contact", "scene", "stick")})
    df = _join_params(study, df, out_units)
    df.attrs["units"] = out_units
    if xarray:
        import xarray as xr
        ds = xr.Dataset.from_dataframe(df.rename_axis("phase"))
        for q in ds.data_vars:
            ds[q].attrs["units"] = out_units.get(q, "")
        return ds
    return df


def _pick_phase(study, contact, names):
    if contact not in names:
        raise VibroError("%s: no contact '%s' (valid: %s)"
                         % (study.path, contact, ", ".join(names) or "none"))


def _meanings(study):
    """{code: class name} of the orbit column: its flag_values and
    flag_meanings (CF), else ORBIT_CLASSES."""
    with study._each() as files:
        for f in files:
            if "study/table/orbit" in f:
                a = f["study/table/orbit"].attrs
                if "flag_values" in a and "flag_meanings" in a:
                    words = _text(a["flag_meanings"]).split()
                    values = [int(x) for x in np.atleast_1d(a["flag_values"])]
                    if len(words) == len(values):
                        return dict(zip(values, words))
    return dict(ORBIT_CLASSES)


def orbits(study):
    """The table's analysis columns, one row per scene (indexed by scene):
    the swept parameters, orbit (the code), class (its name from the
    column's flag_meanings: periodic, irregular, not_settled, no_section),
    label ("period 2", "irregular", ...), period (m, drive periods of the
    cycle; 0 when not periodic), impacts_per_period (n), orbit_tolerance,
    sections (samples), attractor (id >= 0, -1 when not periodic) and,
    when the study computed them, lyapunov and lyapunov_second_half (1/s)
    and lyapunov_perturbation (1, the twin's relative offset).
    VibroError when the study has no analysis block."""
    t = study.table
    if "orbit" not in t.columns:
        raise VibroError("%s: /study/table has no orbit column: the scenes have no "
                         "analysis block (doc/scene-file.md, \"Analysis\"; valid: a scene file with "
                         "analysis = { section = {...}; })" % study.path)
    classes = _meanings(study)
    df = t[list(study.params)].copy()
    code = t["orbit"].to_numpy()
    df["orbit"] = code
    df["class"] = np.array([classes.get(int(c), "code %d" % c) for c in code], dtype=object)
    period = t["period"].to_numpy() if "period" in t else np.zeros(len(t), int)
    df["label"] = np.array([orbit_label(c, m) for c, m in zip(df["class"], period)],
                           dtype=object)
    for q in ORBIT_COLUMNS[3:]:
        if q in t.columns:
            df[q] = t[q].to_numpy()
    units = t.attrs.get("units", {})
    df.attrs["units"] = {q: units.get(q, "1") for q in df.columns}
    df.attrs["units"].update({"class": "-", "label": "-"})
    df.attrs["classes"] = classes
    return df

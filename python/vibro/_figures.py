"""Figures of the analysis layer (issue 20): a Poincare section, a
bifurcation diagram coloured by each scene's period, a 2-D sweep as a map
coloured by a table column, and a basin of attraction.  Each draws into a
matplotlib Axes and returns what it drew, so that vibro-plot, the examples
and the tests share them:

    import matplotlib.pyplot as plt, vibro
    st = vibro.open("io.h5")
    fig, ax = plt.subplots()
    vibro.plot_bifurcation(ax, st, value="v_in")      # the impact map's v_in
    vibro.plot_map(ax, st, "period")                  # a grid sweep as an image
"""

import re

import numpy as np

from ._errors import VibroError

# What a parameter path's last key means, for axis labels
PARAM_WORDS = {"k": "stiffness", "alpha": "exponent", "mu": "damping", "h": "half-clearance",
               "e": "restitution", "c": "damping", "gap": "gap", "u0": "initial position",
               "v0": "initial velocity", "mass": "mass", "position": "position",
               "amplitude": "amplitude", "frequency": "frequency", "freq": "frequency",
               "phase": "phase", "fs": "sample rate", "duration": "duration",
               "gravity": "gravity", "every": "recording interval",
               "s": "scheme parameter", "q0": "initial modal displacement",
               "dq0": "initial modal velocity"}
_KINDS = {"contacts": "contact", "bodies": "body", "forces": "force", "scene": "scene"}
_NO_UNITS = ("", "1", "-", "SI")

# Colours of the classes that are not a period (a period m takes tab10's
# colour m - 1, cycling)
_CLASS_COLOURS = {"irregular": "k", "not settled": "0.6", "no section": "0.85",
                  "not periodic": "0.6", "no attractor": "0.6"}

# Table columns whose values are codes, counts or ids: a categorical map
CATEGORICAL = ("orbit", "period", "impacts_per_period", "attractor", "status_code")
CATEGORIES_MAX = 20   # more categories than this get a colour bar, not a legend


def label(name, units):
    """'name (units)', or name alone when it has no units."""
    return "%s (%s)" % (name, units) if units not in _NO_UNITS else name


def param_label(path, units):
    """A swept path in words, the path kept: 'contacts.hit.k' reads
    "stiffness of contact 'hit' (contacts.hit.k, N/m^alpha)"; a drive's
    'bodies.box.drive.freq' reads "frequency of the drive of body 'box'
    (bodies.box.drive.freq, Hz)"."""
    parts = re.sub(r"\[[0-9]+\]", "", path).split(".")
    what = PARAM_WORDS.get(parts[-1])
    if what is None or parts[0] not in _KINDS:
        return label(path, units)
    where = ""
    if len(parts) == 3:
        where = " of %s '%s'" % (_KINDS[parts[0]], parts[1])
    elif len(parts) == 4 and parts[2] in ("drive", "gap_drive"):
        where = " of the %s of %s '%s'" % (parts[2].replace("_", " "), _KINDS[parts[0]],
                                           parts[1])
    if units in _NO_UNITS:
        return "%s%s (%s)" % (what, where, path)
    return "%s%s (%s, %s)" % (what, where, path, units)


def log_sweep(study, path):
    """True when the sweep spaces `path` logarithmically: a `logspace` in the
    sweep's canonical text, or (a file without it) three or more positive
    values in geometric, not arithmetic, progression."""
    for line in study.sweep.splitlines():
        name, _, rest = line.partition(":")
        if name.strip() == path and rest.split()[:1]:
            return rest.split()[0] == "logspace"
    t = study.table
    if path not in t.columns:
        return False
    x = np.unique(t[path].to_numpy(float))
    x = x[np.isfinite(x)]
    if len(x) < 3 or (x <= 0).any():
        return False
    ratio = x[1:] / x[:-1]
    step = np.diff(x)
    return bool(np.allclose(ratio, ratio[0], rtol=1e-6)
                and not np.allclose(step, step[0], rtol=1e-6))


def class_colours(labels):
    """{label: colour} in legend order: the periods by m, then irregular,
    not settled, no section."""
    def key(lab):
        m = re.fullmatch(r"period (\d+)", lab)
        return (0, int(m.group(1)), lab) if m else (1, len(_CLASS_COLOURS), lab) \
            if lab not in _CLASS_COLOURS else (1, list(_CLASS_COLOURS).index(lab), lab)
    out = {}
    for lab in sorted(set(labels), key=key):
        m = re.fullmatch(r"period (\d+)", lab)
        out[lab] = period_colour(int(m.group(1))) if m else _CLASS_COLOURS.get(lab, "C9")
    return out


def period_colour(m):
    """The colour of period m, the same in every figure: tab10's nine
    colours that are not grey for periods 1-9, tab20's light shades of them
    for 10-18, tab20b's twenty for 19-38, then again (grey is for what is
    not periodic)."""
    import matplotlib
    import matplotlib.colors as mcolors
    k = (int(m) - 1) % 38
    if k >= 18:
        return mcolors.to_hex(matplotlib.colormaps["tab20b"].colors[k - 18])
    hues = (0, 1, 2, 3, 4, 5, 6, 8, 9)                 # tab10's, grey (7) left out
    return mcolors.to_hex(matplotlib.colormaps["tab20"].colors[2 * hues[k % 9] + (k >= 9)])


# How the caller names a choice (vibro-plot's option; the functions' argument)
_OPTION = {"point": "--point / point=", "swept parameter": "--param / param="}


def _one(study, what, arg, names):
    """arg, or the only name; VibroError naming the valid ones."""
    if arg is None:
        if len(names) == 1:
            return names[0]
        head, sep, tail = what.partition(" with ")  # contacts with friction
        raise VibroError("%s: %d %ss%s%s: choose one with %s (valid: %s)"
                         % (study.path, len(names), head, sep, tail, _OPTION[what],
                            ", ".join(names) or "none"))
    if arg not in names:
        raise VibroError("%s: no %s '%s' (valid: %s)"
                         % (study.path, what, arg, ", ".join(names) or "none"))
    return arg


def _window(df, after=None, before=None):
    if after is not None:
        df = df[df["t"] >= after]
    if before is not None:
        df = df[df["t"] <= before]
    return df


def scene_words(study, scene, labels=None):
    """'scene 3: frequency = 26.5 Hz, period 2' for a legend."""
    t = study.table
    parts = ["%s = %g%s" % (PARAM_WORDS.get(p.split(".")[-1], p), t.loc[scene, p],
                            "" if study.param_units.get(p, "") in _NO_UNITS
                            else " " + study.param_units[p])
             for p in study.params if scene in t.index]
    if labels is not None and scene in labels.index:
        parts.append(labels[scene])
    return "scene %d%s" % (scene, (": " + ", ".join(parts)) if parts else "")


def plot_section(ax, study, scenes=None, point=None, after=None, before=None, last=None):
    """The Poincare section of a point (u against v, one colour per scene,
    every sample after the transient the file removed; `after`/`before`
    (s) window it further, `last` keeps each scene's last samples).  scenes: a list of scene numbers (default:
    every scene with a section).  Returns the DataFrame drawn."""
    sec = study.sections()
    point = _one(study, "point", point, list(dict.fromkeys(sec["point"])))
    sec = _window(sec[sec["point"] == point], after, before)
    if last is not None:
        sec = sec.groupby("scene", sort=False).tail(last) if last > 0 else sec.iloc[:0]
    have = list(dict.fromkeys(sec["scene"]))
    if scenes is None:
        scenes = have
    for s in scenes:
        if s not in study.scenes:
            raise VibroError("%s: no scene %s (valid: %s)"
                             % (study.path, s, _ranges(study.scenes)))
        if s not in have:
            raise VibroError("%s: scene %d has no section samples%s"
                             % (study.path, s, "" if after is None and before is None
                                else " in the time window"))
    labels = _labels(study)
    sec = sec[sec["scene"].isin(scenes)]
    for i, s in enumerate(scenes):
        part = sec[sec["scene"] == s]
        ax.plot(part["u"].to_numpy(float), part["v"].to_numpy(float), "o", ms=4,
                color="C%d" % (i % 10), label=scene_words(study, s, labels))
    units = sec.attrs["units"]
    ax.set_xlabel(label("displacement u of %s" % point, units["u"]))
    ax.set_ylabel(label("velocity v of %s" % point, units["v"]))
    ax.grid(True, alpha=0.3)
    if len(scenes) <= CATEGORIES_MAX:
        ax.legend(fontsize="small")
    return sec


def _ranges(nums):
    nums = list(nums)
    if nums and nums == list(range(nums[0], nums[0] + len(nums))):
        return "%d-%d" % (nums[0], nums[-1]) if len(nums) > 1 else str(nums[0])
    return ", ".join(map(str, nums))


def _labels(study):
    """Each scene's orbit label ("period 2", "irregular", ...) as a Series,
    or None when the table has no orbit column."""
    try:
        return study.orbits()["label"]
    except VibroError:
        return None


# The bifurcation diagram's sources of a value
SECTION_VALUES = ("u", "v")
IMPACT_MAP_VALUES = ("v_in", "phase", "since_previous")


def bifurcation_data(study, param, value="u", point=None, contact=None, after=None,
                     before=None, last=None, scenes=None):
    """The points of a bifurcation diagram: a DataFrame with scene, x (the
    swept `param`), y (`value`: u or v of the section's `point`, or v_in,
    phase or since_previous of the impact map), label (the scene's orbit)
    and its .attrs["units"] of y.  The file removed the transient;
    after/before (s) window further, and last keeps each scene's last
    `last` samples (impacts): a slowly settling scene's approach dropped;
    scenes (a collection of scene numbers) keeps only theirs: a slice of a
    sweep of several parameters."""
    import pandas as pd
    if value in SECTION_VALUES:
        df = study.sections()
        point = _one(study, "point", point, list(dict.fromkeys(df["point"])))
        df = df[df["point"] == point]
        what = "%s of %s" % ("displacement u" if value == "u" else "velocity v", point)
    elif value in IMPACT_MAP_VALUES:
        df = study.impact_map(contact)
        what = {"v_in": "impact velocity v_in", "phase": "impact phase",
                "since_previous": "time since the previous impact"}[value]
    else:
        raise VibroError("%s: no section or impact-map value '%s' (valid: %s)"
                         % (study.path, value, ", ".join(SECTION_VALUES + IMPACT_MAP_VALUES)))
    t = study.table
    if param not in t.columns or t[param].dtype.kind not in "fiu":
        raise VibroError("%s: no swept parameter or numeric column '%s' in /study/table "
                         "(valid: %s)" % (study.path, param, ", ".join(study.params) or
                                          ", ".join(n for n in t.columns
                                                    if t[n].dtype.kind in "fiu")))
    units = df.attrs["units"].get(value, "")
    df = _window(df, after, before)
    if scenes is not None:
        df = df[df["scene"].isin(list(scenes))]
    if last is not None:
        df = df.groupby("scene", sort=False).tail(last) if last > 0 else df.iloc[:0]
    labels = _labels(study)
    scenes = df["scene"].to_numpy()
    out = pd.DataFrame({"scene": scenes,
                        "x": t[param].astype(float).reindex(scenes).to_numpy(),
                        "y": df[value].to_numpy(float)})
    out["label"] = (labels.reindex(out["scene"]).to_numpy() if labels is not None
                    else np.full(len(out), "", dtype=object))
    out.attrs["units"] = units
    out.attrs["what"] = what
    return out


def plot_bifurcation(ax, study, param=None, value="u", point=None, contact=None,
                     after=None, before=None, last=None, scenes=None):
    """A bifurcation diagram: `value` (see bifurcation_data) against the
    swept `param` (default: the only one), each scene's points coloured by
    its orbit, with a legend "period 1", "period 2", ..., "irregular",
    "not settled"; a log x axis for a log sweep; scenes: only theirs
    (bifurcation_data).  Returns the points drawn
    (bifurcation_data's frame)."""
    if param is None:
        param = _one(study, "swept parameter", None, list(study.params))
    data = bifurcation_data(study, param, value, point, contact, after, before, last, scenes)
    ok = np.isfinite(data["x"]) & np.isfinite(data["y"])
    data = data[ok.to_numpy()]
    if not len(data):
        raise VibroError("%s: no %s to plot%s" % (study.path, data.attrs["what"],
                                                  " in the time window" if after is not None
                                                  or before is not None else ""))
    draw_classes(ax, data["x"].to_numpy(), data["y"].to_numpy(), data["label"].to_numpy())
    if log_sweep(study, param):
        ax.set_xscale("log")
    ax.set_xlabel(param_label(param, study.param_units.get(param, "")))
    ax.set_ylabel(label(data.attrs["what"], data.attrs["units"]))
    ax.grid(True, alpha=0.3)
    return data


def draw_classes(ax, x, y, labels):
    """Points (x, y) coloured by their orbit label, one legend entry per
    label in class_colours' order ("period 1", "period 2", ...,
    "irregular", "not settled"); points without a label in black."""
    labels = np.array(["" if not isinstance(v, str) else v for v in labels], dtype=object)
    colours = class_colours([lab for lab in labels if lab])
    for lab, colour in colours.items():
        sel = labels == lab
        ax.plot(x[sel], y[sel], ".", ms=3, color=colour, label=lab)
    rest = labels == ""
    if rest.any():
        ax.plot(x[rest], y[rest], ".", ms=3, color="k")
    if colours:
        ax.legend(fontsize="small", markerscale=3)


def _edges(x, log):
    """Cell edges around the centres x (ascending): midpoints, in log
    space for a log axis."""
    x = np.asarray(x, float)
    if len(x) == 1:
        return np.array([x[0] / 1.5, x[0] * 1.5]) if log else np.array([x[0] - 0.5, x[0] + 0.5])
    y = np.log(x) if log else x
    mid = (y[1:] + y[:-1]) / 2
    e = np.concatenate([[2 * y[0] - mid[0]], mid, [2 * y[-1] - mid[-1]]])
    return np.exp(e) if log else e


def category_words(column, value, periods=None):
    """The legend text of a code, count or id of a table column."""
    v = int(value)
    if column == "period":
        return "period %d" % v if v > 0 else "not periodic"
    if column == "impacts_per_period":
        return "%d impact%s per period" % (v, "" if v == 1 else "s") if v > 0 \
            else "not periodic"
    if column == "attractor":
        if v < 0:
            return "no attractor (not periodic)"
        m = (periods or {}).get(v)
        return "attractor %d (period %d)" % (v, m) if m else "attractor %d" % v
    if column == "orbit":
        return (periods or {}).get(v, "code %d" % v).replace("_", " ")
    return "%s %d" % (column, v)


def _category_colours(column, codes, words):
    """A colour per code: a period's class colour, grey for what is not
    periodic (period or impacts 0, attractor -1), tab20 for ids."""
    import matplotlib
    out = {}
    for i, (c, w) in enumerate(zip(codes, words)):
        if (column in ("period", "impacts_per_period") and c <= 0) or (
                column == "attractor" and c < 0):
            out[c] = "0.6"
        elif column == "period":
            out[c] = class_colours([w])[w]
        elif column == "orbit":
            out[c] = "C0" if w == "periodic" else _CLASS_COLOURS.get(w, "C%d" % (i % 10))
        else:
            ids = [k for k in codes if k >= 0]
            out[c] = matplotlib.colormaps["tab10" if len(ids) <= 10 else "tab20"](
                ids.index(c) % 20)
    return out


def _plane(study, column, x, y, at):
    """The 2-D slice of a grid sweep: (values [y][x], x values, y values, x, y)."""
    params = list(study.params)
    t = study.table
    # a path swept over one value is no axis: it is fixed by itself
    varying = [p for p in params if p in t.columns and t[p].nunique() > 1]
    if len(varying) < 2 and (x is None or y is None):
        raise VibroError("%s: a map needs a 2-D grid sweep; the sweep varies %d parameter%s "
                         "(%s)" % (study.path, len(varying), "" if len(varying) == 1 else "s",
                                   ", ".join(varying) or "none"))
    x = varying[0] if x is None else x
    y = ([p for p in varying if p != x][0]) if y is None else y
    for p in (x, y):
        if p not in params:
            raise VibroError("%s: '%s' is not a swept parameter (valid: %s)"
                             % (study.path, p, ", ".join(params)))
    if x == y:
        raise VibroError("%s: the map's x and y are both '%s'" % (study.path, x))
    g = study.grid()
    if column not in g.data_vars:
        names = [n for n in g.data_vars if g[n].dtype.kind in "fiub"]
        raise VibroError("%s: no numeric column '%s' in /study/table (valid: %s)"
                         % (study.path, column, ", ".join(names)))
    da = g[column]
    at = dict(at or {})
    for p in params:
        if p in (x, y):
            continue
        if p not in at and g.sizes[p] == 1:
            da = da.isel({p: 0})
            continue
        if p not in at:
            raise VibroError("%s: %d swept parameters: a map shows two; fix %s with "
                             "--at %s=VALUE (values: %s)"
                             % (study.path, len(params), p, p,
                                ", ".join("%g" % v for v in g[p].values)))
        da = da.sel({p: float(at.pop(p))}, method="nearest")
    if at:
        raise VibroError("%s: --at %s: not a swept parameter besides x and y (valid: %s)"
                         % (study.path, ", ".join(at),
                            ", ".join(p for p in params if p not in (x, y)) or "none"))
    da = da.transpose(y, x).sortby(x).sortby(y)
    return da.values, da[x].values, da[y].values, x, y


def plot_map(ax, study, column="period", x=None, y=None, at=None, categorical=None):
    """A 2-D grid sweep as an image coloured by a table column: x and y
    the swept parameters (default: the first two, in sweep order; others
    fixed by at = {path: value}), labelled in words with units, log axes for
    log sweeps.  Codes, counts and ids (CATEGORICAL, or categorical=True)
    get one colour each and a legend; real values (lyapunov) a colour bar
    (diverging around 0 when they change sign).  Returns a dict: values
    ([y][x]), x, y (the centres), xparam, yparam, and for a categorical map
    codes and words (the legend, in its order)."""
    import matplotlib.colors as mcolors
    import matplotlib.patches as mpatches
    values, xs, ys, xp, yp = _plane(study, column, x, y, at)
    logx, logy = log_sweep(study, xp), log_sweep(study, yp)
    ex, ey = _edges(xs, logx), _edges(ys, logy)
    units = study.table.attrs["units"].get(column, "")
    cat = column in CATEGORICAL if categorical is None else categorical
    out = {"values": values, "x": xs, "y": ys, "xparam": xp, "yparam": yp}
    fig = ax.figure
    if cat:
        ok = np.isfinite(values)
        codes = sorted({int(v) for v in values[ok]})
        extra = _attractor_periods(study) if column == "attractor" else (
            study.orbits().attrs["classes"] if column == "orbit" else None)
        words = [category_words(column, c, extra) for c in codes]
        colours = _category_colours(column, codes, words)
        index = np.full(values.shape, np.nan)
        for i, c in enumerate(codes):
            index[ok & (values == c)] = i
        cmap = mcolors.ListedColormap([colours[c] for c in codes] or ["w"])
        norm = mcolors.BoundaryNorm(np.arange(len(codes) + 1) - 0.5, max(len(codes), 1))
        ax.pcolormesh(ex, ey, np.ma.masked_invalid(index), cmap=cmap, norm=norm)
        if len(codes) <= CATEGORIES_MAX:
            ax.legend(handles=[mpatches.Patch(color=colours[c], label=w)
                               for c, w in zip(codes, words)],
                      fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1),
                      title=label(column.replace("_", " "), units))
        else:
            fig.colorbar(ax.collections[-1], ax=ax, label=label(column, units))
        out.update(codes=codes, words=words)
    else:
        v = values[np.isfinite(values)]
        norm, cmap = None, "viridis"
        if v.size and v.min() < 0 < v.max():
            norm, cmap = mcolors.TwoSlopeNorm(0.0, v.min(), v.max()), "RdBu_r"
        mesh = ax.pcolormesh(ex, ey, np.ma.masked_invalid(values), cmap=cmap, norm=norm)
        fig.colorbar(mesh, ax=ax, label=label(column.replace("_", " "), units))
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_xlim(ex[0], ex[-1])
    ax.set_ylim(ey[0], ey[-1])
    ax.set_xlabel(param_label(xp, study.param_units.get(xp, "")))
    ax.set_ylabel(param_label(yp, study.param_units.get(yp, "")))
    return out


def _attractor_periods(study):
    """{attractor id: its period m} over the study's scenes."""
    o = study.orbits()
    if "attractor" not in o.columns:
        return {}
    per = o[o["attractor"] >= 0].groupby("attractor")["period"].first()
    return {int(a): int(m) for a, m in per.items()}


def plot_basin(ax, study, x=None, y=None, at=None):
    """The basins of attraction over an initial-condition sweep: the map of
    the attractor id, one colour per attractor, the legend giving each
    attractor's period ("attractor 1 (period 3)"), grey where the orbit is
    not periodic.  Returns plot_map's dict."""
    if "attractor" not in study.table.columns:
        raise VibroError("%s: /study/table has no attractor column: the scenes have no "
                         "analysis block (doc/scene-file.md, \"Analysis\")" % study.path)
    return plot_map(ax, study, "attractor", x, y, at, categorical=True)


# ------------------------------------------------ friction (issue 30 item 6)

def friction_law_curve(info, s):
    """The friction law's coefficient while slipping at slip rates s (m/s),
    |ft| / N = mu(|s|), from a contact's /model attributes (`friction` and
    `friction_<key>`, doc/format.md); None for a law without a curve
    (elasto-plastic: its force follows the bristle, not the slip alone) or
    a file from before they were written.  The laws as lib/base/
    friction_law.c has them:
      coulomb      mu_k (C.A. Coulomb 1785, the kinetic coefficient);
      stribeck     mu_k + (mu_s - mu_k) exp(-(|s|/v_s)^delta) + viscous |s|
                   (Armstrong-Helouvry, Dupont & Canudas de Wit, Automatica 30,
                   1994; Olsson et al., Eur. J. Control 4, 1998);
      bow          mu_d + (mu_s - mu_d) v0 / (v0 + |s|) (Smith & Woodhouse,
                   J. Mech. Phys. Solids 48, 2000);
      exponential  sqrt(2 a) |s| exp(-a s^2 + 1/2) (Desvages & Bilbao, Applied
                   Sciences 6, 2016)."""
    law = str(info.get("friction", "") or "")
    x = np.abs(np.asarray(s, float))

    def p(key):
        v = info.get("friction_" + key)
        return float(v) if v is not None else np.nan

    if law == "coulomb":
        return np.full_like(x, p("mu_k"))
    if law == "stribeck":
        return p("mu_k") + (p("mu_s") - p("mu_k")) * np.exp(-(x / p("v_s")) ** p("delta")) \
            + p("viscous") * x
    if law == "bow":
        return p("mu_d") + (p("mu_s") - p("mu_d")) * p("v0") / (p("v0") + x)
    if law == "exponential":
        a = p("a")
        return np.sqrt(2 * a) * x * np.exp(-a * x * x + 0.5)
    return None


def _contact_info(study, scene, contact):
    """The contact's row of study.contacts() for the scene (its /model
    attributes and swept values) as a dict."""
    attrs = study.contacts()
    attrs = attrs[(attrs["scene"] == scene.index) & (attrs["contact"] == contact)]
    return attrs.iloc[0].to_dict() if len(attrs) else {}


def _group(c):
    """A distributed contact's point "G[i]": its contact G; else None."""
    if c.endswith("]") and "[" in c:
        return c[:c.rindex("[")]
    return None


def _recorded(scene, contact, what):
    """Whether the scene records contact's signal `what` (a distributed
    contact's point G[i] records it in G's [point][time] signal)."""
    g = _group(contact)
    return ("contacts/%s/%s" % (contact, what) in scene.signals
            or (g is not None and "contacts/%s/%s" % (g, what) in scene.signals))


def _friction_contact(study, scene, contact):
    """The contact with friction to draw: a point contact, a distributed
    contact's point G[i], or a distributed contact G, all its points."""
    def point_order(c):  # frets[2] before frets[10]
        g = _group(c)
        k = c[len(g) + 1:-1] if g is not None else ""
        return (g, int(k)) if k.isdigit() else (c, -1)
    names = sorted((c for c in scene.contacts if _recorded(scene, c, "ft")), key=point_order)
    names += sorted({_group(c) for c in names if _group(c) is not None})
    if not names:
        raise VibroError("%s: scene %d records no friction signals (contacts/C/ft, slip: "
                         "a contact with friction, doc/scene-file.md \"Friction\")"
                         % (study.path, scene.index))
    return _one(study, "contact with friction", contact, names)


_OPTION["contact with friction"] = "--contact / contact="


def friction_trace(study, scene, contact=None, t_from=None, t_to=None):
    """A run's friction samples (issue 30 item 6) as a DataFrame: t (s), slip
    (m/s), ft (N, on body B along +w), N (N: contacts/C/normal where it is
    recorded, the normal force that bounded the step's friction; else the
    contact's force signal, or its prescribed normal_force with its sine
    profile), stick
    (bool, from contacts/C/stick when recorded, else slip == 0) and mu =
    |ft| / N (NaN where N is 0), from the first step on (the sample at t = 0
    has no step's force); t_from, t_to (s) window it.  A distributed
    contact's point is named G[i]; the distributed contact G itself gives
    every point's samples, one after another, with a column `point` (its
    name G[i]).  attrs: contact, info (the contact's attributes: of its
    first point for G), units."""
    import pandas as pd
    contact = _friction_contact(study, scene, contact)
    whole = "contacts/%s/ft" % contact in scene.signals and \
        scene.signal("contacts/%s/ft" % contact).ndim == 2
    if whole:
        return _friction_trace_points(study, scene, contact, t_from, t_to)
    ft = scene.signal("contacts/%s/ft" % contact)
    t = ft["time"].values
    slip = scene.signal("contacts/%s/slip" % contact).values
    info = _contact_info(study, scene, contact)
    if _recorded(scene, contact, "normal"):
        # the normal force that bounded the step's friction (a three-point
        # contact's sample force is not it: 4.4 mu_s on the fretted bass)
        n = scene.signal("contacts/%s/normal" % contact).values.astype(float)
    elif _recorded(scene, contact, "force") and str(info.get("law")) != "none":
        n = scene.signal("contacts/%s/force" % contact).values.astype(float)
    else:
        nf = info.get("normal_force")
        if nf is None or not np.isfinite(float(nf)):
            raise VibroError("%s: scene %d: contact '%s' has neither a normal force signal "
                             "nor a prescribed normal_force" % (study.path, scene.index,
                                                                contact))
        n = np.full(len(t), float(nf))
        amp = float(info.get("normal_force_amplitude", 0.0) or 0.0)
        if amp:
            n = n + amp * np.sin(2 * np.pi * float(info["normal_force_freq"]) * t
                                 + float(info.get("normal_force_phase", 0.0) or 0.0))
    if _recorded(scene, contact, "stick"):
        stick = scene.signal("contacts/%s/stick" % contact).values == 1
    else:
        stick = slip == 0
    ftv = ft.values.astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        mu = np.where(n > 0, np.abs(ftv) / n, np.nan)
    df = pd.DataFrame({"t": t, "slip": slip, "ft": ftv, "N": n, "stick": stick, "mu": mu})
    # the sample at t = 0 is the initial state, before any step's friction
    # force (ft 0 whatever the slip): not a point of the curve
    keep = t > 0
    if t_from is not None:
        keep &= t >= t_from
    if t_to is not None:
        keep &= t <= t_to
    df = df[keep]
    df.attrs.update(contact=contact, info=info,
                    units={"t": "s", "slip": "m/s", "ft": "N", "N": "N", "mu": "1"})
    return df


def _friction_trace_points(study, scene, group, t_from, t_to):
    """friction_trace of every point of the distributed contact `group`,
    point after point, with a column `point`."""
    import pandas as pd
    ft = scene.signal("contacts/%s/ft" % group)
    n = ft.shape[0]
    parts = []
    for i in range(n):
        df = friction_trace(study, scene, "%s[%d]" % (group, i), t_from, t_to)
        df.insert(1, "point", "%s[%d]" % (group, i))
        parts.append(df)
    out = pd.concat(parts, ignore_index=True)
    out.attrs.update(contact=group, info=parts[0].attrs["info"], units=parts[0].attrs["units"])
    return out


STICK_COLOUR, SLIP_COLOUR = "C0", "C3"


def plot_friction(ax, study, scene=None, contact=None, signed=False, t_from=None, t_to=None):
    """The friction curve a run traced (issue 30 item 6): |ft| / N against
    the slip rate (signed=True: ft in N against the slip), stick samples
    and slip samples apart, and the law's curve (friction_law_curve) beside
    it for the laws that have one.  Returns friction_trace's DataFrame."""
    scene = study.scene(scene) if not hasattr(scene, "signals") else scene
    df = friction_trace(study, scene, contact, t_from, t_to)
    y = df["ft"].to_numpy() if signed else df["mu"].to_numpy()
    s = df["slip"].to_numpy()
    st = df["stick"].to_numpy()
    ax.plot(s[st], y[st], ".", ms=3, color=STICK_COLOUR, label="stick")
    ax.plot(s[~st], y[~st], ".", ms=3, color=SLIP_COLOUR, label="slip")
    info = df.attrs["info"]
    lo, hi = (np.nanmin(s), np.nanmax(s)) if len(s) else (0.0, 1.0)
    span = max(abs(lo), abs(hi)) or 1.0
    xs = np.linspace(-span if signed or lo < 0 else 0.0, span, 801)
    xs = xs[xs != 0]
    mu = friction_law_curve(info, xs)
    if mu is not None:
        law = str(info.get("friction"))
        if signed:
            # ft = -N mu(|s|) sgn(s), at the run's mean normal force
            nbar = float(np.nanmean(df["N"].to_numpy()))
            ax.plot(xs, -np.sign(xs) * nbar * mu, "k-", lw=0.8,
                    label="%s law, N = %.3g N" % (law, nbar))
        else:
            ax.plot(xs, mu, "k-", lw=0.8, label="%s law" % law)
    ax.set_xlabel(label("slip rate of contact '%s'" % df.attrs["contact"], "m/s"))
    ax.set_ylabel(label("friction force ft", "N") if signed else "|ft| / N")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    return df


def plot_stickslip(ax, study, scene=None, contact=None, body=None, t_from=None, t_to=None):
    """A stick-slip phase portrait (issue 30 item 6), stick and slip in two
    colours: w against vw of a mass with a w coordinate (body, default the
    contact's body that has one, "B/P" for a modal body's point: default the
    contact's point), else the contact's slip against ft.
    Returns the DataFrame drawn (x, y, stick)."""
    import pandas as pd
    scene = study.scene(scene) if not hasattr(scene, "signals") else scene
    df = friction_trace(study, scene, contact, t_from, t_to)
    keep = df.index.to_numpy()
    cname = df.attrs["contact"]
    def names(key):
        return [b.decode() if isinstance(b, bytes) else str(b)
                for b in np.atleast_1d(df.attrs["info"].get(key, []))]
    if body is None:
        # the contact's bodies, a modal one's point (/model's friction_points)
        between, points = names("between"), names("friction_points")
        cands = [b + "/" + p if p else b
                 for b, p in zip(between, points + [""] * (len(between) - len(points)))]
        have = [b for b in cands if "bodies/%s/w" % b in scene.signals
                and "bodies/%s/vw" % b in scene.signals]
        body = have[0] if have else None
    elif "bodies/%s/w" % body not in scene.signals or "bodies/%s/vw" % body not in scene.signals:
        names = [p[len("bodies/"):-len("/w")] for p in scene.signals
                 if p.startswith("bodies/") and p.endswith("/w")]
        raise VibroError("%s: scene %d records no w and vw of body '%s' (valid: %s)"
                         % (study.path, scene.index, body, ", ".join(names) or "none"))
    if body is not None:
        x = scene.signal("bodies/%s/w" % body).values[keep]
        y = scene.signal("bodies/%s/vw" % body).values[keep]
        xl, yl = label("w of %s" % body, "m"), label("vw of %s" % body, "m/s")
    else:
        x, y = df["slip"].to_numpy(), df["ft"].to_numpy()
        xl, yl = label("slip rate of contact '%s'" % cname, "m/s"), label("ft", "N")
    st = df["stick"].to_numpy()
    out = pd.DataFrame({"x": x, "y": y, "stick": st})
    ax.plot(x, y, "-", lw=0.4, color="0.7")
    ax.plot(x[st], y[st], ".", ms=3, color=STICK_COLOUR, label="stick")
    ax.plot(x[~st], y[~st], ".", ms=3, color=SLIP_COLOUR, label="slip")
    ax.set_xlabel(xl)
    ax.set_ylabel(yl)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    out.attrs.update(body=body, contact=cname)
    return out


SCHELLENG_REGIMES = ("Helmholtz", "multiple slips", "raucous", "no stick")
SCHELLENG_COLOURS = {"Helmholtz": "C2", "multiple slips": "C0", "raucous": "C3",
                     "no stick": "0.6"}
HELMHOLTZ_TOL = 0.01


def _fundamental(study, scene, contact):
    """The lowest frequency (Hz) of the modes along w of the contact's modal
    body (/model's w_modes_freq), else of its modes (scene.modes());
    VibroError when it has none."""
    info = _contact_info(study, scene, contact)
    between = [b.decode() if isinstance(b, bytes) else str(b)
               for b in np.atleast_1d(info.get("between", []))]
    freqs = []
    for b in between:
        fr = study._model.get("bodies", {}).get(b, {}).get("w_modes_freq") \
            if hasattr(study, "_model") else None
        if fr is not None:
            freqs += [float(x) for x in np.atleast_1d(fr) if x > 0]
    if not freqs:
        m = scene.modes()
        m = m[(m["freq"] > 0) & m["body"].isin(between)]
        freqs = list(m["freq"].to_numpy(float))
    if not freqs:
        raise VibroError("%s: scene %d: contact '%s' joins no modal body to take the "
                         "fundamental from: give f1 (--f1)" % (study.path, scene.index,
                                                               contact))
    return min(freqs)


def _periodic_k(on, f):
    """k >= 2 when the slip onsets `on` (s) repeat at the fundamental f (Hz)
    with k slips per period: at least 3 periods, and every onset k onsets
    later within HELMHOLTZ_TOL of 1/f; else 0."""
    for k in range(2, 17):
        if len(on) < 3 * k:
            break
        d = (on[k:] - on[:-k]) * f
        if np.all(np.abs(d - 1) <= HELMHOLTZ_TOL):
            return k
    return 0


def schelleng_regimes(study, contact=None, f1=None, after=None):
    """Each scene's bowing regime (issue 30 item 6) from /study/phases, as a
    DataFrame indexed by scene: slips (slip phases with t_on in the window),
    periods (the window in fundamental periods), slips_per_period, regime.
    The window runs from `after` (s; default half the run) to the run's end;
    f1 (Hz; default the lowest mode frequency of the contact's modal body).
    The rule (doc/friction.md): "no stick" when no stick phase begins in
    the window (the string slides throughout: Schelleng's surface or
    sliding); "Helmholtz" when there are at least three slips and every
    interval between successive slip onsets is within 1 % of 1/f1 (one
    slip per period at the fundamental; tests/run/bowed_string.py's rule);
    else "multiple slips" when the onsets repeat at the fundamental with k >= 2
    slips per period (every onset k onsets later within 1 % of 1/f1: below
    Schelleng's minimum bow force), "raucous" otherwise (aperiodic: above
    the maximum)."""
    import pandas as pd
    ph = study.phases()
    names = list(dict.fromkeys(ph["contact"]))
    contact = _one(study, "contact with friction", contact, names)
    ph = ph[ph["contact"] == contact]
    duration = None
    rows = []
    for s in study.scenes:
        sc = study.scene(s)
        f = f1 if f1 is not None else _fundamental(study, sc, contact)
        t_end = float(sc.signal("contacts/%s/ft" % contact)["time"].values[-1]) \
            if "contacts/%s/ft" % contact in sc.signals else duration
        t0 = t_end / 2 if after is None else float(after)
        p = ph[(ph["scene"] == s) & (ph["t_on"] >= t0)]
        on = np.sort(p[~p["stick"]]["t_on"].to_numpy(float))
        nstick = int(p["stick"].sum())
        periods = (t_end - t0) * f
        iv = np.diff(on) * f
        if nstick == 0:
            reg = "no stick"
        elif len(on) >= 3 and np.all(np.abs(iv - 1) <= HELMHOLTZ_TOL):
            reg = "Helmholtz"
        elif _periodic_k(on, f) >= 2:
            reg = "multiple slips"
        else:
            reg = "raucous"
        rows.append({"scene": s, "slips": len(on), "periods": periods,
                     "slips_per_period": len(on) / periods if periods > 0 else np.nan,
                     "f1": f, "regime": reg})
    df = pd.DataFrame(rows).set_index("scene")
    df.attrs["contact"] = contact
    return df


def plot_schelleng(ax, study, contact=None, f1=None, after=None, x=None, y=None):
    """The Schelleng diagram (issue 30 item 6): each scene of a bow-force
    (x) by bow-position (y) sweep, or of a 1-D sweep against its one swept
    parameter, coloured by schelleng_regimes' regime.  Returns that
    DataFrame with the swept columns."""
    reg = schelleng_regimes(study, contact, f1, after)
    t = study.table
    params = [p for p in study.params if p in t.columns]
    if not params:
        raise VibroError("%s: not a sweep: the Schelleng diagram needs a swept bow force "
                         "(and position)" % study.path)
    x = params[0] if x is None else x
    if x not in params:
        raise VibroError("%s: no swept parameter '%s' (valid: %s)"
                         % (study.path, x, ", ".join(params)))
    if y is None and len(params) > 1:
        y = [p for p in params if p != x][0]
    xs = t.loc[reg.index, x].to_numpy(float)
    ys = t.loc[reg.index, y].to_numpy(float) if y is not None else reg["slips_per_period"] \
        .to_numpy(float)
    for r in SCHELLENG_REGIMES:
        m = (reg["regime"] == r).to_numpy()
        if m.any():
            ax.plot(xs[m], ys[m], "s" if y is not None else "o", ms=5,
                    color=SCHELLENG_COLOURS[r], label=r, ls="none")
    ax.set_xlabel(param_label(x, study.param_units.get(x, "")))
    ax.set_ylabel(param_label(y, study.param_units.get(y, "")) if y is not None
                  else "slips per fundamental period")
    if log_sweep(study, x):
        ax.set_xscale("log")
    if y is not None and log_sweep(study, y):
        ax.set_yscale("log")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize="small")
    out = reg.copy()
    out[x] = xs
    if y is not None:
        out[y] = ys
    return out

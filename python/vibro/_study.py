"""Reading vibro output files: `open(path) -> Study`.

The root attribute `format` decides how a file is read:
- "vibro-1" (doc/output.md): per-scene groups /scenes/NNNNNN with
  their signals and per-contact event tables, a /study/table compound with
  one row per scene, `units` attributes as one "field:unit ..." string;
  events are gathered by iterating the scene groups.
- "vibro-2" (doc/format.md): signals stacked [scene][time] in /signals
  with dimension scales, a flat /study/events table, `units` of a table an
  array of strings aligned with its fields, /model for scene 0's bodies and
  contacts; while a study runs, complete shards listed in OUT.part/manifest.r*.
- "vibro-3": as vibro-2, but /study/table and /study/events are groups of
  netCDF-style columns (one dataset each, with its `units`) along `scene`
  or `event`, per-contact figures [scene][contact] with a `contact`
  coordinate of names.  The DataFrame flattens a per-contact column X to
  the columns "X:C" (one per contact C, vibro-2's names); for the arrays
  with their dimensions, `xarray.open_dataset(path, group="study/table",
  engine="h5netcdf")`.
All give the same Study: a table, the events with a `cor` column, signals
as xarray DataArrays on time.
"""

import builtins
import contextlib
import functools
import os
import re
import stat

import numpy as np

from . import _part
from ._errors import VibroError
from ._h5 import _links, _items, _attr_items, check_strings, header_addresses, type_wrong
from ._analysis import param_units
from . import _orbits

# HDF5's own words when another process holds the file (file locking,
# HDF5 1.10+): the one failure to open that means a study is running.
# Not a bare "lock", which HDF5's "sblock" (superblock) also holds.
_LOCKED_RE = re.compile(r"unable to lock file|file locking|lock(ed)? by another process",
                        re.IGNORECASE)


def _reading(method):
    """Decorate a public method that reads the file: any exception but
    VibroError (h5py's OSError, RuntimeError, KeyError, numpy's and pandas'
    errors on what a damaged or foreign file holds) becomes one VibroError
    naming the file, with the original chained as its cause."""
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except VibroError:
            raise
        except Exception as e:  # noqa: B902 - every kind a damaged file gives
            study = getattr(self, "study", self)
            path = getattr(study, "path", "?")
            text = str(e).strip().splitlines()[0] if str(e).strip() else ""
            raise VibroError("%s: damaged or not a vibro output (%s%s%s)"
                             % (path, type(e).__name__, ": " if text else "", text)) from e
    return wrapper


# The layouts this package reads: FORMATS, the names of _READERS' rows (at the end).
_FORMAT_RE = re.compile(r"vibro-0*([1-9][0-9]*)")
_NO_UNITS = ("", "SI", "-")


def _text(value):
    """An attribute as str (h5py gives bytes for fixed-length strings)."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, np.ndarray) and value.shape == ():
        return _text(value[()])
    if isinstance(value, np.generic):
        return _text(value.item())
    return str(value)


def _whole(ds):
    """All of dataset ds, once its values are seen to fit in its file: an
    unfiltered dataset holds its bytes there, and a damaged header can
    claim 2^40 rows (ValueError, which _reading makes a VibroError), and
    its stored type is whole (_h5.type_wrong: libhdf5 converts a damaged
    one past its buffers)."""
    wrong = type_wrong(ds.id.get_type())
    if wrong:
        raise ValueError("%s: %s" % (ds.name, wrong))
    size = ds.size * ds.dtype.itemsize
    if ds.compression is None and size > os.path.getsize(ds.file.filename):
        raise ValueError("%s claims %d values of %d bytes, more than its file holds"
                         % (ds.name, ds.size, ds.dtype.itemsize))
    return ds[()]


def _units(ds):
    """{field: unit} of a compound dataset, or {None: unit} of a plain one.

    vibro-1 writes one string "name:unit name:unit ..." (a name may hold
    colons: `impacts:hit:1`); vibro-2 an array of strings aligned with the
    fields.  Units missing from the file are left out."""
    if "units" not in ds.attrs:
        return {}
    attr = ds.attrs["units"]
    names = ds.dtype.names
    if isinstance(attr, np.ndarray) and attr.ndim == 1:
        values = [_text(u) for u in attr]
        if names and len(values) == len(names):
            return dict(zip(names, values))
        return {None: " ".join(values)} if not names else {}
    text = _text(attr)
    if not names:
        return {None: text}
    out = {}
    for item in text.split():
        name, _, unit = item.rpartition(":")
        if name:
            out[name] = unit
    return out


def _decode(df):
    """Fixed-length byte-string columns of a DataFrame as str."""
    for col in df.columns:
        if df[col].dtype == object and len(df) and isinstance(df[col].iloc[0], bytes):
            df[col] = [v.decode("utf-8", "replace").rstrip("\0") for v in df[col]]
    return df


def _frame(records):
    """A structured numpy array as a DataFrame (strings decoded)."""
    import pandas as pd
    return _decode(pd.DataFrame.from_records(records) if len(records)
                   else pd.DataFrame({n: np.zeros(0, records.dtype[n])
                                      for n in records.dtype.names or ()}))


def _is_columns(obj):
    """True for a vibro-3 table: a group of columns."""
    import h5py
    return isinstance(obj, h5py.Group)


def _columns(g):
    """A vibro-3 table group as (DataFrame, {column: units}): its columns in
    the order written, a [row][contact] column X as "X:C" per contact C,
    the coordinates `contact` and `event` left out."""
    import h5py
    import pandas as pd
    coord = "contact" in g and g["contact"].dtype.kind == "S"
    contacts = [_text(c).rstrip("\0") for c in _whole(g["contact"])] if coord else []
    dim = "scene" if "scene" in g else "event"
    rows = g[dim].shape[0] if dim in g and len(g[dim].shape) == 1 else None
    parts, units = [], {}
    for name, ds in _items(g):
        if (name == "event" or (name == "contact" and coord)
                or not isinstance(ds, h5py.Dataset)):
            continue
        if ds.dtype.kind not in "fiuS" or ds.ndim not in (1, 2):
            continue
        u = _text(ds.attrs["units"]) if "units" in ds.attrs else ("-" if ds.dtype.kind == "S" else "")
        if rows is not None and (ds.shape[0] != rows or
                                 (ds.ndim == 2 and ds.shape[1] != len(contacts))):
            # a damaged file: pandas would pad the short column with NaN
            raise ValueError("%s has shape %s, its table %d rows and %d contacts"
                             % (ds.name, list(ds.shape), rows, len(contacts)))
        v = _whole(ds)
        if ds.ndim == 2:
            names = ["%s:%s" % (name, c) for c in contacts]
            if v.shape[1] != len(names):
                continue
            parts.append(pd.DataFrame(v, columns=names))
            units.update(dict.fromkeys(names, u))
        else:
            parts.append(pd.DataFrame({name: v}))
            units[name] = u
    df = pd.concat(parts, axis=1) if parts else pd.DataFrame()
    return _decode(df), units


def _column_names(t):
    """The columns of a table: a compound dataset or a vibro-3 group."""
    if _is_columns(t):
        return tuple(_columns(t)[1])
    return t.dtype.names or ()


def _is_signal(obj):
    import h5py
    return isinstance(obj, h5py.Dataset) and obj.ndim in (1, 2) and obj.dtype.kind in "fiu"


def _signal_paths(group, prefix="", depth=0):
    """Paths of every numeric 1-d or 2-d dataset below group, except time."""
    import h5py
    out = []
    if depth > 8:
        return out
    for name in _links(group):
        try:
            obj = group[name]
        except (KeyError, OSError):
            continue
        path = prefix + name
        if isinstance(obj, h5py.Group):
            out += _signal_paths(obj, path + "/", depth + 1)
        elif path != "time" and _is_signal(obj) and not (
                obj.ndim == 1 and group.name.rsplit("/", 1)[-1] == "modes"):
            out.append(path)
    return out


def _choices(names, limit=240):
    out = ""
    for i, name in enumerate(names):
        piece = (", " if i else "") + str(name)
        if len(out) + len(piece) > limit:
            return out + (", ..." if i else "...")
        out += piece
    return out or "none"


def _strings(attr):
    """A string-array attribute as a list (h5py gives Empty for none)."""
    if isinstance(attr, (str, bytes)):
        return [_text(attr)]
    try:
        return [_text(x) for x in attr]
    except TypeError:
        return []


def _slash(path):
    """A signal path in the package's form, `bodies/hammer/u` (vibro-2's
    dataset names are `bodies.hammer.u`; vibro names hold no dots)."""
    return str(path).strip("/").replace(".", "/")


def _regular(path):
    """Whether path is a regular file (reading a FIFO would wait for a writer)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _shards(part):
    """The shards of a running (or interrupted) vibro-2 study, from the
    valid lines of OUT.part/manifest.r*: complete lines whose own CRC-32
    matches, naming a shard of the listed size and CRC-32 (doc/format.md)."""
    import zlib
    out = []
    for name in sorted(os.listdir(part)):
        if not re.fullmatch(r"manifest\.r[0-9]+", name) or not _regular(os.path.join(part, name)):
            continue
        with builtins.open(os.path.join(part, name), "rb") as fh:
            lines = fh.read().split(b"\n")[:-1]      # an unfinished last line has no \n
        for line in lines:
            head, _, tail = line.rpartition(b" ")
            try:
                ok = zlib.crc32(head + b" ") == int(tail, 16)
            except ValueError:
                ok = False
            words = head.split()
            if not ok or len(words) < 3:
                continue
            shard = os.path.join(part, os.path.basename(words[0].decode("utf-8", "replace")))
            try:
                size, crc = int(words[1]), int(words[2], 16)
                if not _regular(shard):
                    continue
                with builtins.open(shard, "rb") as fh:
                    data = fh.read()
            except (OSError, ValueError):
                continue
            try:
                lo = int(words[4])
            except (IndexError, ValueError):
                lo = 0
            if len(data) == size and zlib.crc32(data) == crc and shard not in (p for _, _, p in out):
                out.append((lo, os.path.basename(shard), shard))   # a shard listed twice counts once
    return _unique_scenes([p for _, _, p in sorted(out)])


def _unique_scenes(shards):
    """The shards (in order of lowest scene, then name) less those holding
    a scene that a shard before them holds too: a shard copied under a new
    name with its own valid manifest line would count its scenes twice
    (tools/outputs.c, shards_unique, keeps the same ones).  A shard whose
    scenes cannot be read is kept: reading it then says what is wrong."""
    import h5py
    seen, out = set(), []
    for path in shards:
        try:
            with h5py.File(path, "r") as f:
                ds = f["study/table/scene"] if "study/table/scene" in f else None
                scenes = set(int(x) for x in _whole(ds)) if isinstance(ds, h5py.Dataset) \
                    and ds.ndim == 1 and ds.dtype.kind in "iu" else set()
        except Exception:  # noqa: B902 - a damaged shard is reported when it is read
            scenes = set()
        if not scenes & seen:
            out.append(path)
        seen |= scenes
    return out


def open(path):
    """Open a vibro output file (HDF5, layout vibro-1 or vibro-2) as a Study.

    `path` is the output named by `vibro run -o`.  While a study runs (or
    after it was interrupted) only `path.part` exists: a vibro-2 file is
    then read as far as it is complete (doc/format.md); vibro-1 cannot be
    read while its writer holds it, and says so.  Raises VibroError (one
    line naming the file) for anything that is not a vibro output."""
    return Study(path)


class Study:
    """A vibro output file: the study table, every impact, every signal.

    Attributes: `path`, `format` ("vibro-1", "vibro-2" or "vibro-3"), `version` (of
    the vibro that wrote it), `input` (the scene or study file's text),
    `source` (its path), `mode` and `sweep` (the sweep as parsed), `params`
    (the swept parameter paths, in sweep order), `param_units` ({path:
    units}), `scenes` (the scene numbers in the file), `has_table` (whether
    the file has a /study/table), `complete` (False while a study runs or
    after an interrupted one), `state` ("complete"; for a study read from
    OUT.part/ "running (process N)" while its writer runs, "interrupted
    (process N is gone)" after, as `vibro info` says).  The file is opened
    for each call and closed after it, so a Study holds no HDF5 handle."""

    @_reading
    def __init__(self, path):
        self.path = os.fspath(path)
        self._file_path = self.path
        self.complete = not self.path.endswith(".part")
        self.state = "complete" if self.complete else "incomplete"
        self._files = None                  # vibro-2 shards of a running study
        part = self.path if self.path.endswith(".part") else self.path + ".part"
        if os.path.isdir(part) and (part == self.path or not os.path.exists(self.path)):
            self.complete = False
            self.state = _part.state(part)
            self._files = _shards(part)
            if not self._files:
                raise VibroError("%s: %s, and %s/ holds no complete shard yet"
                                 % (self.path, self.state, part))
            self._file_path = self._files[0]
        elif not os.path.exists(self.path) and os.path.exists(self.path + ".part"):
            self._file_path = self.path + ".part"
            self.complete = False
        self._read_header()

    @contextlib.contextmanager
    def _each(self):
        """Every file of the study (the shards of a running vibro-2 study,
        else the one file), opened: a list of h5py.File."""
        import h5py
        if self._files is None:
            with self._h5() as f:
                yield [f]
            return
        files = []
        try:
            for path in self._files:
                try:
                    files.append(h5py.File(path, "r"))
                except OSError as e:
                    raise VibroError("%s: cannot open the shard %s (%s)"
                                     % (self.path, path, e)) from None
                self._strings_checked(files[-1], path)
            yield files
        finally:
            for f in files:
                f.close()

    # ------------------------------------------------------------ access
    @contextlib.contextmanager
    def _h5(self):
        import h5py
        path = self._file_path
        try:
            if not stat.S_ISREG(os.stat(path).st_mode):   # a FIFO would block its reader
                raise VibroError("%s: not a vibro output (not a regular file)" % path)
            with builtins.open(path, "rb"):
                pass
        except OSError as e:
            raise VibroError("%s: cannot open: %s" % (self.path, e.strerror)) from e
        if not h5py.is_hdf5(path):
            raise VibroError("%s: not a vibro output (not an HDF5 file)" % path)
        try:
            f = h5py.File(path, "r")
        except OSError as e:
            if _LOCKED_RE.search(str(e)):
                raise VibroError(
                    "%s: a running study's file (its writer holds it); layout vibro-1 "
                    "cannot be read until the run ends (vibro-2 files can)" % path) from e
            raise VibroError("%s: cannot open the HDF5 file (%s)" % (path, e)) from e
        with f:
            self._strings_checked(f, path)
            yield f

    def _strings_checked(self, f, path):
        """Refuse the file (ValueError) if libhdf5 would read a damaged
        global heap for one of its variable-length string attributes
        (_h5.check_strings); once per file and version of it."""
        st = os.stat(path)
        key = (path, st.st_size, st.st_mtime_ns)
        if key not in self.__dict__.setdefault("_checked", set()):
            check_strings(path, header_addresses(f))
            self._checked.add(key)

    def _read_header(self):
        with self._h5() as f:
            if "format" not in f.attrs:
                raise VibroError("%s: not a vibro output (no 'format' attribute)"
                                 % self._file_path)
            fmt = _text(f.attrs["format"])
            m = _FORMAT_RE.fullmatch(fmt)
            if fmt not in _READERS:
                raise VibroError("%s: not a vibro output (format '%s', valid: %s)"
                                 % (self._file_path, fmt, ", ".join(FORMATS))
                                 if not m else
                                 "%s: format '%s' is newer than this package reads (%s): "
                                 "update vibro's Python package" % (self._file_path, fmt,
                                                                    ", ".join(FORMATS)))
            self.format = fmt
            self._reader = _READERS[fmt]
            a = f.attrs
            self.version = _text(a.get("vibro_version", ""))
            self.input = _text(a.get("input", ""))
            self.source = _text(a.get("source", ""))
            st = f["study"].attrs if "study" in f else {}
            self.mode = _text(st.get("mode", "none"))
            self.sweep = _text(st.get("sweep", ""))
            self._done = None
            if "study/done" in f:
                self._done = _whole(f["study/done"]).astype(bool)
            names = ()
            self._table_units = {}
            self.has_table = "study/table" in f
            if "study/table" in f:
                t = f["study/table"]
                names = _column_names(t)
                self._table_units = (_columns(t)[1] if _is_columns(t) else _units(t))
            self.params = self._swept(f, names)
            file_units = {}
            if "study" in f and "param_units" in f["study"].attrs:
                file_units = dict(zip(self.params, _strings(f["study"].attrs["param_units"])))
            law = self._reader.laws(self, f)
            self.param_units = {}
            for p in self.params:
                u = file_units.get(p) or self._table_units.get(p, "")
                if u in _NO_UNITS:
                    parts = p.split(".")
                    u = param_units(p, law.get(parts[1]) if len(parts) > 2 else None)
                self.param_units[p] = u

        self._reader.locate(self)

    def _laws_v1(self, f):
        """vibro-1: {contact: law} of the first scene's contact groups."""
        law = {}
        scenes = self._scene_numbers(f)
        if scenes:
            g = self._scene_group(f, scenes[0])
            for c in _links(g["contacts"]) if "contacts" in g else ():
                law[c] = _text(g["contacts"][c].attrs.get("law", ""))
        return law

    def _laws_v2(self, f):
        """vibro-2 and -3: {contact: law} of /model (read here, kept)."""
        self._model = self._read_model(f)
        return {c: a.get("law", "") for c, a in self._model["contacts"].items()}

    def _locate_v1(self):
        """vibro-1: the scenes are the groups of /scenes."""
        with self._h5() as f:
            self.scenes = self._scene_numbers(f)

    def _swept(self, f, names):
        """The swept parameter paths: vibro-2's /study attribute `params`,
        else the table columns named by a path (contacts.hit.k), unlike the
        summary columns (impacts:hit)."""
        if "study" in f and "params" in f["study"].attrs:
            return _strings(f["study"].attrs["params"])
        return [n for n in names if "." in n and ":" not in n]

    @staticmethod
    def _attrs(obj):
        return {k: (_text(v) if isinstance(v, (str, bytes)) else
                    [_text(x) for x in v] if isinstance(v, np.ndarray) and v.dtype.kind == "O"
                    else v.item() if isinstance(v, np.generic) else v)
                for k, v in _attr_items(obj)}

    def _read_model(self, f):
        """vibro-2's /model: scene 0's bodies and contacts (attributes)."""
        out = {"bodies": {}, "contacts": {}}
        for kind in out:
            if "model/" + kind in f:
                for name, g in _items(f["model/" + kind]):
                    out[kind][name] = self._attrs(g)
        return out

    def _locate_v2(self):
        """vibro-2 and -3: where each scene is (file number, row of /signals), and
        each scene's row of the table."""
        self._where = {}
        self._rows = {}
        with self._each() as files:
            for k, f in enumerate(files):
                if "signals/scene" in f:
                    for row, i in enumerate(_whole(f["signals/scene"])):
                        self._where[int(i)] = (k, row)
                if "study/table" in f:
                    t = f["study/table"]
                    idx = (_whole(t["scene"]) if _is_columns(t) else
                           t["index"] if "index" in (t.dtype.names or ()) else range(len(t)))
                    for row, i in enumerate(idx):
                        self._rows[int(i)] = (k, row)
        self.scenes = sorted(set(self._where) | set(self._rows))

    def _scene_numbers(self, f):
        if "scenes" not in f:
            return []
        return sorted(int(n) for n in _links(f["scenes"]) if n.isdigit())

    def _scene_group(self, f, i):
        name = "%06d" % i
        if "scenes" not in f or name not in f["scenes"]:
            raise VibroError("%s: no scene %s (valid: %s)"
                             % (self.path, i, _scene_choices(self.scenes)))
        return f["scenes"][name]

    def _index(self, scene):
        if isinstance(scene, Scene):
            return scene.index
        try:
            i = int(scene)
        except (TypeError, ValueError):
            raise VibroError("%s: no scene %r (valid: %s)"
                             % (self.path, scene, _scene_choices(self.scenes))) from None
        if i != scene and not isinstance(scene, str):
            raise VibroError("%s: no scene %r (valid: %s)"
                             % (self.path, scene, _scene_choices(self.scenes)))
        if i not in self.scenes:
            raise VibroError("%s: no scene %s (valid: %s)"
                             % (self.path, i, _scene_choices(self.scenes)))
        return i

    # ------------------------------------------------------------ the table
    @property
    @_reading
    def table(self):
        """The study table as a pandas DataFrame, one row per scene, indexed
        by the scene number: the swept parameters as columns named by their
        paths (contacts.hit.k), status_code, status, final_energy,
        energy_balance_error and the per-contact summaries (impacts:hit,
        ...).  `.attrs["units"]` maps each column to its units (swept
        columns included).  While a study runs, only the scenes written so
        far."""
        import pandas as pd
        with self._each() as files:
            recs = [(_columns(f["study/table"])[0] if _is_columns(f["study/table"])
                     else _whole(f["study/table"])) for f in files if "study/table" in f]
        if not recs:
            df = pd.DataFrame(index=pd.Index([], name="scene", dtype=np.int64))
            df.attrs["units"] = {}
            return df
        if isinstance(recs[0], pd.DataFrame):
            df = pd.concat(recs, ignore_index=True).rename(columns={"scene": "index"})
        else:
            df = _frame(np.concatenate(recs))
        if "index" in df.columns:
            df = df.set_index("index").sort_index()
        df.index.name = "scene"
        if not self.complete and self._done is not None and self._reader.done_flags:
            done = self._written()
            df = df[df.index.isin(done)]
        units = {k: v for k, v in self._table_units.items() if k not in ("index", "scene")}
        units.update(self.param_units)
        df.attrs["units"] = units
        return df

    def _written(self):
        if self._done is None:
            return self.scenes
        return [i for i in self.scenes if i < len(self._done) and self._done[i]]

    def _param_rows(self):
        """{scene: {param: value}} from the table."""
        if not self.params:
            return {}
        t = self.table
        return {int(i): {p: float(row[p]) for p in self.params}
                for i, row in t[self.params].iterrows()}

    # ------------------------------------------------------------ events
    @_reading
    def events(self, contact=None):
        """Every impact of every scene as one DataFrame.

        Columns: `scene`, `contact`, `impact` (its number within the scene
        and contact, from 0), the event fields (t_on, t_off, duration, v_in,
        v_out, x_max, peak_force, the analytic predictions, ...), the swept
        parameter values, and `cor` = -v_out / v_in (Papetti eq 5; NaN where
        either is unmeasured).  `contact` selects one contact by name.
        `.attrs["units"]` maps each column to its units."""
        df, units = self._reader.events(self)
        if contact is not None:
            names = sorted(set(df["contact"])) if len(df) else self._contact_names()
            if contact not in names:
                raise VibroError("%s: no contact '%s' in any scene (valid: %s)"
                                 % (self.path, contact, _choices(names)))
            df = df[df["contact"] == contact].reset_index(drop=True)
        if not self.complete and self._reader.done_flags:
            df = df[df["scene"].isin(self._written())].reset_index(drop=True)
        rows = self._param_rows()
        for p in self.params:
            df[p] = np.array([rows.get(int(s), {}).get(p, np.nan) for s in df["scene"]],
                             dtype=float)
            units[p] = self.param_units[p]
        if "v_in" in df.columns and "v_out" in df.columns:
            with np.errstate(divide="ignore", invalid="ignore"):
                df["cor"] = -df["v_out"].to_numpy(float) / df["v_in"].to_numpy(float)
        else:
            df["cor"] = np.full(len(df), np.nan)
        units["cor"] = "1"
        df.attrs["units"] = units
        return df

    def _events_v1(self):
        """vibro-1: (DataFrame, units) of every scene's event tables."""
        with self._h5() as f:
            return self._events_scenes(f)

    def _events_v2(self):
        """vibro-2 and -3: (DataFrame, units) of every file's /study/events."""
        import pandas as pd
        with self._each() as files:
            parts = [self._events_flat(f) for f in files if "study/events" in f]
        units = {}
        for _, u in parts:
            units.update(u)
        df = (pd.concat([d for d, _ in parts], ignore_index=True) if parts
              else pd.DataFrame({"scene": np.zeros(0, np.int64),
                                 "contact": np.zeros(0, object),
                                 "impact": np.zeros(0, np.int64)}))
        return df.sort_values("scene", kind="stable").reset_index(drop=True), units

    def _contact_names(self):
        return self._reader.contact_names(self)

    def _contact_names_v2(self):
        return sorted(self._model["contacts"])

    def _contact_names_v1(self):
        names = set()
        with self._h5() as f:
            for i in self.scenes:
                g = self._scene_group(f, i)
                names.update(_links(g["contacts"]) if "contacts" in g else ())
        return sorted(names)

    def _events_scenes(self, f):
        """vibro-1: the per-contact event tables of every scene, gathered."""
        import pandas as pd
        parts, units, dtype = [], {"scene": "1", "contact": "-", "impact": "1"}, None
        for i in self.scenes:
            g = self._scene_group(f, i)
            if "contacts" not in g:
                continue
            for c in sorted(_links(g["contacts"])):
                grp = g["contacts"][c]
                if "events" not in grp:
                    continue
                ds = grp["events"]
                units.update({k: v for k, v in _units(ds).items() if k})
                ev = _whole(ds)
                dtype = dtype or ev.dtype
                df = _frame(ev)
                df.insert(0, "impact", np.arange(len(ev), dtype=np.int64))
                df.insert(0, "contact", c)
                df.insert(0, "scene", np.full(len(ev), i, dtype=np.int64))
                parts.append(df)
        if parts:
            return pd.concat(parts, ignore_index=True), units
        cols = {"scene": np.zeros(0, np.int64), "contact": np.zeros(0, object),
                "impact": np.zeros(0, np.int64)}
        for n in (dtype.names if dtype is not None else ()):
            cols[n] = np.zeros(0, dtype[n])
        return pd.DataFrame(cols), units

    def _events_flat(self, f):
        """vibro-2 and vibro-3: the flat /study/events table."""
        ds = f["study/events"]
        if _is_columns(ds):
            df, units = _columns(ds)
        else:
            units = {k: v for k, v in _units(ds).items() if k}
            df = _frame(_whole(ds))
        if "contact" in df.columns and df["contact"].dtype.kind in "iu":
            # vibro-2: an attribute; vibro-3: /study/table's `contact` coordinate
            names = ([_text(n) for n in ds.attrs["contacts"]] if "contacts" in ds.attrs else
                     [_text(n).rstrip("\0") for n in _whole(f["study/table/contact"])]
                     if "study/table/contact" in f else [])
            df["contact"] = np.array([names[k] if 0 <= k < len(names) else str(k)
                                      for k in df["contact"]], dtype=object)
        if "impact" not in df.columns:
            df.insert(2, "impact", df.groupby(["scene", "contact"]).cumcount().astype(np.int64)
                      if len(df) else np.zeros(0, np.int64))
        units.setdefault("scene", "1")
        units.setdefault("contact", "-")
        units.setdefault("impact", "1")
        return df, units

    @_reading
    def contacts(self):
        """Every contact of every scene as a DataFrame: `scene`, `contact`
        and the contact group's attributes (law, scheme, k, alpha, mu, h,
        gap, newton_failures, fallbacks, newton_iterations)."""
        import pandas as pd
        rows = self._reader.contacts(self)
        return pd.DataFrame(rows, columns=None if rows else ["scene", "contact"])

    def _contacts_v2(self):
        """vibro-2 and -3: the rows of contacts()."""
        rows = []
        values = self._param_rows()
        for i in self.scenes:
            for c in sorted(self._model["contacts"]):
                row = {"scene": i, "contact": c}
                row.update(self._model["contacts"][c])
                for p, v in values.get(i, {}).items():
                    parts = p.split(".")
                    if len(parts) == 3 and parts[:2] == ["contacts", c]:
                        row[parts[2]] = v
                    elif len(parts) == 4 and parts[:3] == ["contacts", c, "friction"]:
                        row["friction_" + parts[3]] = v   # as /model names them
                rows.append(row)
        return rows

    def _contacts_v1(self):
        """vibro-1: the rows of contacts()."""
        rows = []
        with self._h5() as f:
            for i in self.scenes:
                g = self._scene_group(f, i)
                for c in sorted(_links(g["contacts"])) if "contacts" in g else ():
                    row = {"scene": i, "contact": c}
                    for k, v in _attr_items(g["contacts"][c]):
                        row[k] = _text(v) if isinstance(v, (str, bytes)) else (
                            v.item() if isinstance(v, np.generic) else v)
                    rows.append(row)
        return rows

    @_reading
    def grid(self, obj=None):
        """A grid sweep's parameters as dimensions: obj (an xarray Dataset or
        DataArray along `scene`, e.g. the table as
        `xarray.Dataset.from_dataframe(study.table)` or one read with
        `xarray.open_dataset(path, group="study/table",
        engine="h5netcdf")`; default: the study table) with `scene` replaced
        by one dimension per swept path, in the sweep's order, each
        coordinate carrying its units.  Only for mode "grid": a zip or
        random sweep has no grid (VibroError).  Scenes not yet written are
        NaN."""
        import xarray as xr
        if self.mode != "grid" or not self.params:
            raise VibroError("%s: the sweep is %s, not a grid: its scenes have no grid to "
                             "lay them on" % (self.path, self.mode))
        t = self.table
        if obj is None:
            obj = xr.Dataset.from_dataframe(t.drop(columns=self.params))
        if "scene" not in obj.dims:
            raise VibroError("grid: the object has no 'scene' dimension (its dims: %s)"
                             % ", ".join(map(str, obj.dims)))
        scenes = obj["scene"].values
        obj = obj.assign_coords({p: ("scene", t[p].reindex(scenes).to_numpy(float))
                                 for p in self.params})
        cells = int(np.prod([obj[p].to_series().nunique() for p in self.params]))
        if cells != len(scenes):
            # cells without a scene (a study still running) are NaN, which
            # an integer column cannot hold: those become float64
            obj = obj.map(lambda v: v.astype(float) if v.dtype.kind in "iu" else v)
        with np.errstate(invalid="ignore"):
            out = obj.set_index(scene=list(self.params)).unstack("scene")
        for p in self.params:
            out[p].attrs["units"] = self.param_units.get(p, "")
        return out

    # ------------------------------------------------------------ analysis
    @_reading
    def sections(self, point=None, xarray=False):
        """The Poincare sections (scene, k, t, point, u, v and the swept
        parameters), a DataFrame or with xarray=True a Dataset: see
        vibro._orbits.sections."""
        return _orbits.sections(self, point, xarray)

    @_reading
    def impact_map(self, contact=None, xarray=False):
        """The impact map (scene, contact, t, v_in, phase, since_previous,
        grazing and the swept parameters): see vibro._orbits.impact_map."""
        return _orbits.impact_map(self, contact, xarray)

    @_reading
    def phases(self, contact=None, xarray=False):
        """The stick and slip phases of the contacts with friction (scene,
        contact, stick, t_on, t_off, duration, mean_slip, friction_work,
        steps and the swept parameters): see vibro._orbits.phases."""
        return _orbits.phases(self, contact, xarray)

    @_reading
    def orbits(self):
        """Each scene's orbit: class, period, impacts per period, attractor,
        Lyapunov exponent: see vibro._orbits.orbits."""
        return _orbits.orbits(self)

    # ------------------------------------------------------------ scenes
    @_reading
    def scene(self, i):
        """Scene number i as a Scene: its attributes, swept values, signals,
        events and modes."""
        return Scene(self, self._index(i))

    def __len__(self):
        return len(self.scenes)

    def __iter__(self):
        for i in self.scenes:
            yield Scene(self, i)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def close(self):
        """Nothing to close: the file is opened per call."""

    def __repr__(self):
        return "<vibro.Study %r: %s, %d scene%s%s%s>" % (
            self.path, self.format, len(self.scenes), "" if len(self.scenes) == 1 else "s",
            ", swept " + ", ".join(self.params) if self.params else "",
            "" if self.complete else ", " + self.state)

    @_reading
    def signal(self, scene, path):
        """A recorded signal of a scene as an xarray.DataArray on a `time`
        coordinate (s), named by its path relative to the scene
        (`bodies/hammer/u`, `contacts/hit/force`, `energy/total`), with the
        signal's `units` in attrs.  Modal displacements `bodies/<b>/modes/q`
        are 2-d, on (`mode`, `time`), and so are those along w
        `bodies/<b>/wmodes/q` (issue 30: row j is the body's mode j along w,
        attrs direction "w"); a distributed contact's signal
        (`contacts/neck/force`, vibro-3) on (`point`, `time`), with each
        point's position `x` (m) and point contact `contact` ("neck[3]") as
        coordinates, and `contacts/neck[3]/force` is its point 3."""
        return self._reader.signal(self, self._index(scene), path)

    def _signal_v1(self, i, path):
        """vibro-1: signal() from the scene's group."""
        import xarray as xr
        with self._h5() as f:
            g = self._scene_group(f, i)
            key = _slash(path)
            obj = None
            try:
                obj = g[key] if key else None
            except (KeyError, OSError, ValueError):
                obj = None
            if obj is None or not _is_signal(obj) or key == "time":
                what = ("'%s' in scene %d is not a signal" if obj is not None
                        else "no signal '%s' in scene %d")
                raise VibroError(("%s: " + what + " (valid: %s)")
                                 % (self.path, key, i, _choices(_signal_paths(g))))
            data = _whole(obj)
            units = _units(obj).get(None, "")
            n = data.shape[-1]
            t = self._time(g, obj, n)
        attrs = {"units": units, "scene": i, "path": key}
        tc = ("time", t, {"units": "s"})
        if data.ndim == 2:
            return xr.DataArray(data, dims=("mode", "time"),
                                coords={"time": tc, "mode": np.arange(data.shape[0])},
                                name=key, attrs=attrs)
        return xr.DataArray(data, dims=("time",), coords={"time": tc}, name=key,
                            attrs=attrs)

    def _signal_names2(self, f):
        """vibro-2: the signals of /signals, in the package's path form."""
        skip = set(self.params) | {"scene", "time", "sample"}
        out = []
        for name, ds in _items(f["signals"]):
            if (name in skip or name.startswith("mode.") or name.startswith("wmode.")
                    or name.startswith("point.") or ds.ndim < 2):
                continue
            if re.search(r"\.w?modes\.(freq|sigma|mass)$", name):
                continue
            out.append(_slash(name))
        return sorted(out)

    def _signal_v2(self, i, path):
        """vibro-2 and -3: signal() from the scene's row of /signals."""
        import xarray as xr
        key = _slash(path)
        point = None
        k, row = self._where.get(i, (None, None))
        if k is None:
            raise VibroError("%s: scene %d has no signals in the file" % (self.path, i))
        samples = None
        t = self.table
        if "samples" in t.columns and i in t.index:
            samples = int(t.loc[i, "samples"])
        with self._each() as files:
            f = files[k]
            names = self._signal_names2(f)
            m = re.match(r"^(contacts/[^/]+)\[(\d+)\](/[^/]+)$", key)
            if key not in names and m and m.group(1) + m.group(3) in names:
                # a distributed contact's point: a row of its [scene][point][time]
                key, point = m.group(1) + m.group(3), int(m.group(2))
            if key not in names:
                what = ("'%s' in scene %d is not a signal"
                        if key.replace("/", ".") in f["signals"] or key == "time"
                        else "no signal '%s' in scene %d")
                raise VibroError(("%s: " + what + " (valid: %s)")
                                 % (self.path, key, i, _choices(names)))
            ds = f["signals"][key.replace("/", ".")]
            _signal_fits(f, ds, row)
            pc = _point_coords(f, ds)
            if point is not None and (pc is None or point >= ds.shape[1]):
                raise VibroError("%s: '%s' has no point %d (valid: 0-%d)"
                                 % (self.path, key, point, ds.shape[1] - 1))
            data = ds[row] if point is None else ds[row, point]
            units = _units(ds).get(None, "")
            time = f["signals/time"]
            t_all = _whole(time) if time.ndim == 1 else time[row]
        n = data.shape[-1] if samples is None else min(samples, data.shape[-1])
        data = data[..., :n]
        tc = ("time", np.asarray(t_all[:n], dtype=float), {"units": "s"})
        attrs = {"units": units, "scene": i, "path": key}
        if pc is not None and point is not None:
            attrs.update(point=point, x=float(pc["x"][1][point]), path=_slash(path),
                         contact=pc["contact"][1][point])
            return xr.DataArray(data, dims=("time",), coords={"time": tc},
                                name=_slash(path), attrs=attrs)
        if pc is not None:
            # a distributed contact's signal: on (point, time), with each
            # point's position x (m) and its point contact's name
            return xr.DataArray(data, dims=("point", "time"),
                                coords=dict(pc, time=tc, point=np.arange(data.shape[0])),
                                name=key, attrs=attrs)
        if data.ndim == 2:
            if key.endswith("/wmodes/q"):
                attrs["direction"] = "w"
            return xr.DataArray(data, dims=("mode", "time"),
                                coords={"time": tc, "mode": np.arange(data.shape[0])},
                                name=key, attrs=attrs)
        return xr.DataArray(data, dims=("time",), coords={"time": tc}, name=key, attrs=attrs)

    def _time(self, g, obj, n):
        """Time of each of n samples (s): the dataset's dimension scale, the
        scene's time dataset, or the sample rate.  The time coordinate
        beside it (vibro-3's /signals/time) is read by its name first: its
        DIMENSION_LIST, a list of references, is read only where there is
        none (a damaged one crashed libhdf5 under h5py's dims)."""
        import h5py
        t = obj.parent.get("time")
        if isinstance(t, h5py.Dataset) and t.shape == (n,) and t.dtype.kind == "f":
            return np.asarray(t[()], dtype=float)
        try:
            dim = obj.dims[obj.ndim - 1]
            if len(dim):
                t = dim[0][()]
                if t.shape == (n,):
                    return np.asarray(t, dtype=float)
        except (AttributeError, IndexError, KeyError, RuntimeError):
            pass
        if "time" in g and g["time"].shape == (n,):
            return np.asarray(g["time"][()], dtype=float)
        fs = float(g.attrs.get("fs", 1.0))
        every = float(g.attrs.get("record_every", 1))
        return np.arange(n) * every / fs


def _signal_fits(f, ds, row):
    """Refuse (ValueError) a vibro-2/3 signal [scene]...[time] whose shape
    disagrees with its coordinates (/signals/scene, /signals/time) or whose
    row of scene `row` claims more bytes than the file holds: a damaged
    header would otherwise be a MemoryError or a row padded from nowhere."""
    import h5py
    scenes = f["signals/scene"] if "signals/scene" in f else None
    time = f["signals/time"] if "signals/time" in f else None
    if isinstance(scenes, h5py.Dataset) and scenes.ndim == 1 and ds.shape[0] != scenes.shape[0]:
        raise ValueError("%s has %d rows, /signals/scene %d" % (ds.name, ds.shape[0],
                                                                  scenes.shape[0]))
    if (isinstance(time, h5py.Dataset) and time.ndim == 1 and ds.ndim >= 2
            and ds.shape[-1] != time.shape[0]):
        raise ValueError("%s has %d samples a row, /signals/time %d"
                         % (ds.name, ds.shape[-1], time.shape[0]))
    if not 0 <= row < ds.shape[0]:
        raise ValueError("%s has no row %d (%d rows)" % (ds.name, row, ds.shape[0]))
    per_row = int(np.prod(ds.shape[1:], dtype=np.float64)) * ds.dtype.itemsize
    if ds.compression is None and per_row > os.path.getsize(ds.file.filename):
        raise ValueError("%s claims %d bytes a row, more than its file holds"
                         % (ds.name, per_row))


def _point_coords(f, ds):
    """A distributed contact's [scene][point][time] signal (vibro-3): the
    coordinates of its points, `x` (m, from its `point.NAME` dimension
    scale) and `contact` (the point contacts' names, NAME[k]); else None."""
    import h5py
    if ds.ndim != 3 or not ds.name.startswith("/signals/contacts."):
        return None
    # the scale by its name, /signals/point.NAME, not through the dataset's
    # DIMENSION_LIST: a damaged list of references crashed libhdf5 under
    # h5py's dims (the reader fuzz, tests/fuzz/README.md)
    scale = ds.parent.get("point." + ds.name.split("/")[-1].split(".")[1])
    if not isinstance(scale, h5py.Dataset) or scale.ndim != 1:
        scale = None
    n = ds.shape[1]
    x = np.asarray(scale[()], dtype=float) if scale is not None and scale.shape == (n,) \
        else np.full(n, np.nan)
    name = _text(scale.attrs.get("contact", "")) if scale is not None else ""
    if not name:
        name = ds.name.split("/")[-1].split(".")[1]
    names = np.array(["%s[%d]" % (name, k) for k in range(n)], dtype=object)
    return {"x": ("point", x, {"units": "m"}), "contact": ("point", names)}


def _scene_choices(nums):
    if nums and nums == list(range(nums[0], nums[0] + len(nums))):
        return "%d-%d" % (nums[0], nums[-1]) if len(nums) > 1 else str(nums[0])
    return _choices(nums)


def _recorded_rate(attrs, fs):
    """Hz of a scene's recorded samples: 1 / its table's sample_interval
    (vibro-2, -3), else fs / its record_every attribute (vibro-1)."""
    dt = attrs.get("sample_interval")
    if dt is not None and np.isfinite(float(dt)) and float(dt) > 0:
        return 1.0 / float(dt)
    return fs / float(attrs.get("record_every", 1) or 1)


class Scene:
    """One scene of a Study.

    Attributes: `index`, `name`, `attrs` (the scene group's attributes: fs,
    duration, gravity, record_every, steps, status, energy_balance_error),
    `status`, `fs` (Hz, the stepping rate), `rate` (Hz, the rate of the
    recorded signals: fs / record.every), `params` ({path: value} swept for this scene),
    `signals` (the paths `signal` accepts), `contacts`, `bodies` ({name:
    type})."""

    @_reading
    def __init__(self, study, index):
        self.study = study
        self.index = index
        study._reader.scene(self)

    def _init_v1(self):
        """vibro-1: the scene's group, its attributes and signals."""
        study, index = self.study, self.index
        with study._h5() as f:
            g = study._scene_group(f, index)
            self.attrs = {k: (_text(v) if isinstance(v, (str, bytes)) else
                              v.item() if isinstance(v, np.generic) else v)
                          for k, v in _attr_items(g)}
            self.signals = _signal_paths(g)
            self.contacts = sorted(_links(g["contacts"])) if "contacts" in g else []
            self.bodies = {b: _text(g["bodies"][b].attrs.get("type", ""))
                           for b in sorted(_links(g["bodies"]))} if "bodies" in g else {}
            self.params = {p: float(g.attrs[p]) for p in study.params if p in g.attrs}
        if study.params and len(self.params) < len(study.params):
            self.params = study._param_rows().get(index, self.params)
        self.name = self.attrs.get("name", "")
        self.status = self.attrs.get("status", "")
        self.fs = float(self.attrs.get("fs", np.nan))
        self.rate = _recorded_rate(self.attrs, self.fs)

    def _init_v2(self):
        """vibro-2 and -3: the scene's row of the table, the model, its signals."""
        st = self.study
        t = st.table
        row = t.loc[self.index].to_dict() if self.index in t.index else {}
        self.attrs = {k: (v.item() if isinstance(v, np.generic) else v) for k, v in row.items()
                      if k not in st.params and ":" not in k}
        m = re.search(r"scene\s*=\s*\{([^}]*)\}", st.input)
        block = m.group(1) if m else ""
        for key in ("name", "fs", "duration", "gravity"):
            mm = re.search(r"\b%s\s*=\s*(\"[^\"]*\"|[-+0-9.eE]+)" % key, block)
            if mm:
                v = mm.group(1)
                self.attrs[key] = v.strip('"') if v.startswith('"') else float(v)
        for p in st.params:
            if p.startswith("scene."):
                self.attrs[p[6:]] = row.get(p)
        self.contacts = sorted(st._model["contacts"])
        self.bodies = {b: str(a.get("type", "")) for b, a in sorted(st._model["bodies"].items())}
        self.params = {p: float(row[p]) for p in st.params if p in row}
        k = st._where.get(self.index, (0, 0))[0]
        with st._each() as files:
            self.signals = st._signal_names2(files[k])
        self.name = self.attrs.get("name", "")
        self.status = self.attrs.get("status", "")
        self.fs = float(self.attrs.get("fs", np.nan))
        self.rate = _recorded_rate(self.attrs, self.fs)

    def __repr__(self):
        return "<vibro.Scene %d %r of %r: %s%s>" % (
            self.index, self.name, self.study.path, self.status,
            "".join(", %s = %g" % kv for kv in self.params.items()))

    def signal(self, path):
        """A recorded signal as an xarray.DataArray on time (see Study.signal)."""
        return self.study.signal(self.index, path)

    @_reading
    def events(self, contact=None):
        """This scene's impacts (see Study.events)."""
        ev = self.study.events(contact)
        return ev[ev["scene"] == self.index].reset_index(drop=True)

    @_reading
    def phases(self, contact=None):
        """This scene's stick and slip phases (see Study.phases)."""
        ph = self.study.phases(contact)
        return ph[ph["scene"] == self.index].reset_index(drop=True)

    @_reading
    def modes(self, body=None, direction="u"):
        """The modes of the scene's modal bodies as a DataFrame with columns
        `body`, `mode`, `freq` (Hz), `sigma` (1/s), `mass` (kg); `body`
        selects one.  Empty when the scene has no modal body.  direction
        "w" gives their modes along w instead (issue 30: /signals'
        bodies.B.wmodes.*; the bodies without them have no rows)."""
        import pandas as pd
        if direction not in ("u", "w"):
            raise VibroError("%s: modes(direction=%r): no such direction (valid: u, w)"
                             % (self.study.path, direction))
        rows = self.study._reader.modes(self, body, direction)
        df = pd.DataFrame(rows, columns=["body", "mode", "freq", "sigma", "mass"])
        df.attrs["units"] = {"freq": "Hz", "sigma": "1/s", "mass": "kg", "mode": "1",
                             "body": "-"}
        return df

    def _modes_v2(self, body, direction="u"):
        """vibro-2 and -3: the rows of modes() from /signals' modes.* rows
        (direction "w": the wmodes.* rows)."""
        rows = []
        group = "wmodes" if direction == "w" else "modes"
        k, row = self.study._where.get(self.index, (0, 0))
        with self.study._each() as files:
            sig = files[k]["signals"]
            names = [b for b in self.bodies if "bodies.%s.%s.freq" % (b, group) in sig]
            if body is not None:
                if body not in names:
                    raise VibroError("%s: scene %d has no modal body '%s' (valid: %s)"
                                     % (self.study.path, self.index, body, _choices(names)))
                names = [body]
            for b in names:
                col = {q: sig["bodies.%s.%s.%s" % (b, group, q)][row]
                       for q in ("freq", "sigma", "mass")
                       if "bodies.%s.%s.%s" % (b, group, q) in sig}
                for j, fr in enumerate(col["freq"]):
                    if np.isfinite(fr):
                        rows.append({"body": b, "mode": j, "freq": float(fr),
                                     "sigma": float(col["sigma"][j]) if "sigma" in col
                                     else np.nan,
                                     "mass": float(col["mass"][j]) if "mass" in col
                                     else np.nan})
        return rows

    def _modes_v1(self, body, direction="u"):
        """vibro-1: the rows of modes() from the scene's body groups (no
        modes along w: vibro-1 predates them)."""
        rows = []
        if direction == "w":
            return rows
        with self.study._h5() as f:
            g = self.study._scene_group(f, self.index)
            names = [b for b in self.bodies if "modes" in g["bodies"][b]]
            if body is not None:
                if body not in names:
                    raise VibroError("%s: scene %d has no modal body '%s' (valid: %s)"
                                     % (self.study.path, self.index, body, _choices(names)))
                names = [body]
            for b in names:
                m = g["bodies"][b]["modes"]
                freq = m["freq"][()] if "freq" in m else np.zeros(0)
                for j, fr in enumerate(freq):
                    rows.append({"body": b, "mode": j, "freq": float(fr),
                                 "sigma": float(m["sigma"][j]) if "sigma" in m else np.nan,
                                 "mass": float(m["mass"][j]) if "mass" in m else np.nan})
        return rows


class _Reader:
    """One reader per layout, chosen when a file is opened (Study's header:
    `_READERS[format]`), as netCDF-c's dispatch tables choose a format's
    functions and tools/formats.h's rows do for the command line: Study
    and Scene reach a layout through its row and never ask which version
    a file is.  A new layout is a new row.

    done_flags: the file's /study/done flags say which scenes a running
    study has written (vibro-1; the stacked layouts hold written scenes
    only).  The rest are the layout's functions (Study's or Scene's
    methods, called with the study or scene first)."""

    def __init__(self, name, done_flags, **ops):
        self.name = name
        self.done_flags = done_flags
        self.__dict__.update(ops)


_STACKED = dict(laws=Study._laws_v2, locate=Study._locate_v2, events=Study._events_v2,
                contact_names=Study._contact_names_v2, contacts=Study._contacts_v2,
                signal=Study._signal_v2, scene=Scene._init_v2, modes=Scene._modes_v2)
_READERS = {r.name: r for r in (
    _Reader("vibro-1", True, laws=Study._laws_v1, locate=Study._locate_v1,
            events=Study._events_v1, contact_names=Study._contact_names_v1,
            contacts=Study._contacts_v1, signal=Study._signal_v1, scene=Scene._init_v1,
            modes=Scene._modes_v1),
    # vibro-3 differs from vibro-2 in its tables (groups of columns), which
    # the shared table readers take as they find them (_is_columns)
    _Reader("vibro-2", False, **_STACKED),
    _Reader("vibro-3", False, **_STACKED),
)}
FORMATS = tuple(_READERS)

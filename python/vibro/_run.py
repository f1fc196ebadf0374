"""Running vibro from Python: `simulate`, `run`, `program`, `scene_text`.

`simulate` runs one scene in this process through libvibro and returns its
signals and events in memory; `run` runs a study into its HDF5 file, in
this process when libvibro loads (python/vibro/_lib.py), else through the
vibro program."""

import ctypes
import math
import numbers
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

from . import _lib
from ._errors import VibroError

# The name a scene given as a dict has in vibro's messages (its text is
# scene_text's; relative file names in it are taken from the current
# directory).
DICT_NAME = "<dict>.cfg"


class VibroWarning(UserWarning):
    """A warning of `vibro check` about a scene or study that is valid but
    will not give what it seems to (a contact shorter than its scheme
    resolves, a saturated exact-duration contact)."""

_NAME_RE = re.compile(r"[A-Za-z*][-A-Za-z0-9_*]*")


def program():
    """The vibro program run() uses: $VIBRO when set; else the one next to
    this package in a build tree (python/vibro -> tools/vibro); else the one
    on PATH.  Raises VibroError when there is none."""
    env = os.environ.get("VIBRO")
    if env:
        if not (os.path.isfile(env) and os.access(env, os.X_OK)):
            raise VibroError("$VIBRO: '%s' is not an executable file" % env)
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    built = os.path.join(os.path.dirname(os.path.dirname(here)), "tools", "vibro")
    if os.path.isfile(built) and os.access(built, os.X_OK):
        return built
    found = shutil.which("vibro")
    if found:
        return found
    raise VibroError("no vibro program: set $VIBRO, build the source tree, or put "
                     "vibro on PATH")


def _source(scene):
    """(text, name) of a scene given as a dict or as libconfig text, or
    (path, None) of a file.  A str holding a newline or a ';' is text
    (no file name holds them); another str or a path-like is a file."""
    if isinstance(scene, dict):
        return scene_text(scene), DICT_NAME
    if isinstance(scene, str) and ("\n" in scene or ";" in scene):
        return scene, "<text>.cfg"
    if isinstance(scene, (str, bytes, os.PathLike)):
        return os.fsdecode(scene), None
    raise VibroError("a scene is a dict, libconfig text or a file path (got %s)"
                     % type(scene).__name__)


def _warn_check(lines, where, stacklevel):
    for line in lines:
        warnings.warn("%s: %s" % (where, line), VibroWarning, stacklevel=stacklevel + 1)


def _jobs(jobs):
    if jobs is not None and (not isinstance(jobs, numbers.Integral)
                             or isinstance(jobs, bool) or jobs < 1):
        raise VibroError("jobs must be a positive integer (got %r)" % (jobs,))
    return None if jobs is None else int(jobs)


def run(scene, out, jobs=None, resume=False, inprocess=None, progress=None):
    """Run a scene or study with vibro into its output file and open it.

    `scene` is a dict (written out with scene_text(); relative file names
    in it, @include and data files, are taken from the current directory),
    libconfig text, or the path of a scene file.  `out` is the output path;
    `jobs` the number of scenes run at a time (vibro's -j; default all
    cores); `resume` continues an interrupted run (--resume).  Returns the
    Study.

    In this process (`inprocess` None: when libvibro loads, see
    vibro._lib.candidates; True: always, False: never) the study runs
    through libvibro: `progress` None shows a line on a terminal (stderr),
    a tqdm or ipywidgets bar in a notebook when one of them is installed,
    else nothing; False shows nothing; a callable gets (done, total,
    scenes per second, seconds left) about 4 times a second.  What `vibro
    check` warns of arrives as a VibroWarning.  Ctrl-C stops the study
    cleanly: no new scene starts, those running finish (a line on stderr
    says how many and about how long) and are kept in OUT.part/, and
    KeyboardInterrupt is raised saying how many are kept and to continue
    with run(..., resume=True); a second Ctrl-C abandons the running scenes
    (not written: a resume runs them) and raises at once.  SIGTERM (a batch
    system's time limit, scancel) and SIGHUP stop it the same way, keeping
    what finished, and then end the process as that signal would have
    (exit status 143 for SIGTERM, as the vibro program's), after a line on
    stderr saying how many scenes are kept; a Python handler of the signal
    runs instead when there is one.  The signals are caught when run() is
    called from the main thread.  Otherwise the vibro program runs
    (vibro.program()) with --quiet.

    Bad input raises VibroError with vibro's `file:line: object: what
    (valid: ...)` message; scenes that did not finish cleanly (diverged,
    Newton's cap) give a RuntimeWarning naming the first, and the study
    (their `status` says why)."""
    jobs = _jobs(jobs)
    if inprocess is None:
        inprocess = _lib.available()
    if not inprocess:
        study = _run_program(scene, out, jobs, resume)
    else:
        study = _run_here(scene, os.fspath(out), jobs, resume, progress)
    _warn_engaged(study, 2)
    return study


def _engaged_note(what, which, more=""):
    """The warning for scenes that ended inside an impact."""
    return ("%s ended inside an impact (%s still closed%s): the last impact has NaN v_out and "
            "cor; lengthen the duration if the contact should open" % (what, which, more))


def _warn_engaged(study, stacklevel):
    """A VibroWarning when scenes ended inside an impact (the table's
    engaged_at_end:CONTACT columns)."""
    table = study.table
    cols = [c for c in table.columns if str(c).startswith("engaged_at_end:")]
    if not cols:
        return
    ended = (table[cols] > 0).any(axis=1)
    n = int(ended.sum())
    if n == 0:
        return
    if len(table) == 1:
        note = _engaged_note("%s: the scene" % study.path, "a contact")
    else:
        note = _engaged_note("%s: %d of %d scenes" % (study.path, n, len(table)),
                             "a contact", "; engaged_at_end, first: scene %d"
                             % int(ended[ended].index[0]))
    warnings.warn(note, VibroWarning, stacklevel=stacklevel + 1)


def _check_disk(out, need):
    """Refuse a study whose recording cannot fit where OUT goes (the
    vibro program's check, with its message)."""
    try:
        free = shutil.disk_usage(os.path.dirname(os.path.abspath(out))).free
    except OSError:
        return
    if need > free:
        raise VibroError("%s: the recording needs up to %.3g bytes, only %.3g free on its "
                         "file system; raise record.every or shorten the duration"
                         % (out, need, free), 1)


def _python_words(message):
    """vibro's message with its command-line advice said for Python."""
    return (message.replace("run again with --resume to continue",
                            "continue with vibro.run(..., resume=True)")
            .replace("run again with --resume", "continue with vibro.run(..., resume=True)")
            .replace("--resume", "resume=True"))


def _run_here(scene, out, jobs, resume, progress):
    """run() in this process through vb_study_run."""
    from ._study import Study
    lib = _lib.library()
    source, name = _source(scene)
    st = _lib.load_study(source, name)
    try:
        where = name or source
        _warn_check(_lib.lines(lib.vb_study_warnings, st), where, 3)
        n = lib.vb_study_scenes(st)
        _check_disk(out, lib.vb_study_record_total(st))
        # no more threads than scenes (a team with nothing to do costs its start)
        threads = jobs or 0
        if (threads == 0 or threads > n) and n < 2:
            threads = 1
        elif threads > n:
            threads = n
        rc, report, status, err, signum = _study_run(lib, st, out, threads, resume,
                                                     _progress(progress))
        path = _lib.text(lib.vb_study_path(st))
        name0 = _lib.text(lib.vb_scene_title(lib.vb_study_first(st)))
    finally:
        lib.vb_study_free(st)
    message = _python_words(_lib.text(err.value))
    if rc == _lib.VB_EINTR:
        message = message or "%s: interrupted; continue with vibro.run(..., resume=True)" % out
        _lib.pass_on(signum, "vibro: " + message)
        raise KeyboardInterrupt(message)
    if rc != _lib.VB_OK:
        raise VibroError(message or _lib.text(lib.vb_strerror(rc)), 1)
    scenes, failed, first = report[0], report[3], report[4]
    if failed > 0:
        if n == 1:
            what = "%s: scene '%s' did not finish: %s" % (path, name0, status)
        else:
            what = ("%s: %d of %d scenes did not finish%s (status_code in /study/table)"
                    % (path, failed, n, "; first: " + status if first >= 0 else ""))
        warnings.warn("vibro: " + what, RuntimeWarning, stacklevel=3)
    return Study(out)


def _study_run(lib, st, out, threads, resume, show):
    """vb_study_run_flat in a worker thread (SIGINT, SIGTERM and SIGHUP
    set its stop flag: the finished scenes are kept, as by the vibro
    program), with progress shown from this thread."""
    stop = ctypes.c_int(0)
    latest = []

    def on_progress(done, total, rate, left, ctx):
        latest.append((done, total, rate, left))

    stopping = []

    def on_stop(running, seconds, ctx):
        # from the run's watcher thread: said by poll(), in this thread
        stopping.append((running, seconds))

    callback = _lib.PROGRESS(on_progress)
    stop_callback = _lib.STOPPING(on_stop)
    report = (ctypes.c_long * 5)()
    status = ctypes.create_string_buffer(160)
    err = ctypes.create_string_buffer(_lib.ERRLEN)

    shown = [None]

    def poll():
        if latest and show is not None and latest[-1] is not shown[0]:
            shown[0] = latest[-1]
            show.update(*shown[0])
        if stopping and sys.stderr is not None:
            sys.stderr.write("\n" + _stopping_note(*stopping.pop(), out) + "\n")
            sys.stderr.flush()

    def call():
        return lib.vb_study_run_flat(st, os.fsencode(out), threads, 1 if resume else 0,
                                     ctypes.byref(stop), callback, None, 0.25, stop_callback,
                                     report, status, 160, err, _lib.ERRLEN)
    try:
        rc, signum = _lib.call_interruptibly(call, stop, poll, again=(
            "vibro: abandoning the scenes in flight; writing the finished ones to %s.part/"
            % out), signals=_lib.STOP_SIGNALS)
        poll()
    finally:
        if show is not None:
            show.close()
    return rc, list(report), _lib.text(status.value), err, signum


def _stopping_note(running, seconds, out):
    """What the first Ctrl-C does: the vibro program's words, said for Python."""
    if running == 0:
        return "vibro: stopping; no scene is in flight"
    when = "about %.0f s" % math.ceil(seconds) if math.isfinite(seconds) else "time unknown"
    return ("vibro: stopping after the %d scene%s in flight (%s; kept in %s.part/); press "
            "Ctrl-C again to abandon %s" % (running, "" if running == 1 else "s", when, out,
                                            "it" if running == 1 else "them"))


class _Line:
    """Progress as one line rewritten in place on a terminal (stderr)."""

    def __init__(self, stream):
        self.stream, self.shown = stream, False

    def update(self, done, total, rate, left):
        t = int(left + 0.5) if math.isfinite(left) and left >= 0 else -1
        eta = "?" if t < 0 else ("%d:%02d:%02d" % (t // 3600, t // 60 % 60, t % 60)
                                 if t >= 3600 else "%d:%02d" % (t // 60, t % 60))
        self.stream.write("\r%d/%d scenes, %.3g/s, %s left   " % (done, total, rate, eta))
        self.stream.flush()
        self.shown = True

    def close(self):
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()


class _Bar:
    """Progress as a tqdm bar (tqdm.auto: a widget in a notebook)."""

    def __init__(self, tqdm):
        self.tqdm, self.bar = tqdm, None

    def update(self, done, total, rate, left):
        if self.bar is None:
            self.bar = self.tqdm(total=total, unit="scene", desc="vibro")
        self.bar.n = done
        self.bar.refresh()

    def close(self):
        if self.bar is not None:
            self.bar.close()


class _Widget:
    """Progress as an ipywidgets IntProgress in a notebook."""

    def __init__(self, widgets, display):
        self.widgets, self.display, self.bar = widgets, display, None

    def update(self, done, total, rate, left):
        if self.bar is None:
            self.bar = self.widgets.IntProgress(min=0, max=max(total, 1),
                                                description="vibro")
            self.display(self.bar)
        self.bar.value = done
        self.bar.description = "%d/%d" % (done, total)

    def close(self):
        pass


class _Call:
    """Progress handed to a callable."""

    def __init__(self, fn):
        self.fn = fn

    def update(self, done, total, rate, left):
        self.fn(done, total, rate, left)

    def close(self):
        pass


def _progress(progress):
    """The progress display run() was asked for (None: none)."""
    if progress is False:
        return None
    if callable(progress):
        return _Call(progress)
    if progress not in (None, True):
        raise VibroError("progress is None, True, False or a callable (got %r)"
                         % (progress,))
    if _lib.in_notebook():
        try:
            from tqdm.auto import tqdm
            return _Bar(tqdm)
        except ImportError:
            pass
        try:
            import ipywidgets
            from IPython.display import display
            return _Widget(ipywidgets, display)
        except ImportError:
            return None
    stream = sys.stderr
    if progress is True or (stream is not None and hasattr(stream, "isatty")
                            and stream.isatty()):
        return _Line(stream)
    return None


def _run_program(scene, out, jobs, resume):
    """run() through the vibro program (a subprocess)."""
    from ._study import Study
    exe = program()
    out = os.fspath(out)
    tmp = None
    if isinstance(scene, dict) or (isinstance(scene, str) and ("\n" in scene or ";" in scene)):
        text = scene_text(scene) if isinstance(scene, dict) else scene
        where = os.getcwd() if os.access(os.getcwd(), os.W_OK) else None
        fd, tmp = tempfile.mkstemp(prefix=".vibro-scene-", suffix=".cfg", dir=where)
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        path = tmp
    else:
        path = os.fspath(scene)
    cmd = [exe, "run", path, "-o", out, "--quiet"]
    if jobs is not None:
        cmd += ["-j", str(jobs)]
    if resume:
        cmd.append("--resume")
    try:
        check = subprocess.run([exe, "check", path], stdin=subprocess.DEVNULL,
                               capture_output=True, text=True)
        if check.returncode == 0:
            _warn_check([ln.split("warning: ", 1)[1] for ln in check.stdout.split("\n")
                         if "warning: " in ln], path, 3)
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True,
                              text=True)
    finally:
        if tmp is not None:
            os.unlink(tmp)
    # the run repeats check's warnings on stderr: warned above already
    message = "\n".join(ln for ln in proc.stderr.strip().split("\n")
                        if not ln.startswith("warning: ")).strip()
    if proc.returncode == 2:
        warnings.warn("vibro: %s" % (message or "some scenes did not finish cleanly "
                                     "(see the table's status)"), RuntimeWarning,
                      stacklevel=3)
    elif proc.returncode != 0:
        raise VibroError(message or "vibro run failed with exit status %d"
                         % proc.returncode, proc.returncode)
    return Study(out)


def _key(name):
    if not isinstance(name, str) or not _NAME_RE.fullmatch(name):
        raise ValueError("scene_text: %r is not a libconfig setting name "
                         "(a letter or *, then letters, digits, -, _ or *)" % (name,))
    return name


def _scalar(v, where):
    """One libconfig scalar: bool, integer (64-bit with L), float, string."""
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, numbers.Integral):
        v = int(v)
        if not -2 ** 63 <= v < 2 ** 63:
            raise ValueError("scene_text: %s: integer %d does not fit 64 bits" % (where, v))
        return "%dL" % v if not -2 ** 31 <= v < 2 ** 31 else "%d" % v
    if isinstance(v, numbers.Real):
        v = float(v)
        if not math.isfinite(v):
            raise ValueError("scene_text: %s: %r has no libconfig form (finite "
                             "numbers only)" % (where, v))
        return _float(v)
    if isinstance(v, str):
        return '"%s"' % (v.replace("\\", "\\\\").replace('"', '\\"')
                         .replace("\n", "\\n").replace("\t", "\\t"))
    raise ValueError("scene_text: %s: cannot write a %s" % (where, type(v).__name__))


def _float(v):
    """A float that libconfig reads back as a float, exactly (repr
    round-trips; a decimal point or exponent is always there)."""
    s = repr(v)
    if "e" in s or "E" in s:
        mant, _, exp = s.partition("e")
        if "." not in mant:
            mant += ".0"
        return mant + "e" + exp
    if "." not in s:
        s += ".0"
    return s


def _is_scalar(v):
    return isinstance(v, (str, bool, np.bool_, numbers.Number))


def _value(v, where, indent):
    pad = "  " * (indent + 1)
    if isinstance(v, np.ndarray):
        v = v.tolist()
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, dict):
        if not v:
            return "{ }"
        body = "".join("%s%s = %s;\n" % (pad, _key(k), _value(x, "%s.%s" % (where, k),
                                                               indent + 1))
                       for k, x in v.items())
        return "{\n%s%s}" % (body, "  " * indent)
    if isinstance(v, (list, tuple)):
        if v and all(_is_scalar(x) and not isinstance(x, str) for x in v) or \
                v and all(isinstance(x, str) for x in v):
            # An array: libconfig wants one type, so ints become floats
            # beside any float
            if any(isinstance(x, numbers.Real) and not isinstance(x, numbers.Integral)
                   for x in v) and not any(isinstance(x, (bool, np.bool_)) for x in v):
                v = [float(x) for x in v]
            return "[%s]" % ", ".join(_scalar(x, "%s[%d]" % (where, i))
                                      for i, x in enumerate(v))
        if not v:
            return "[ ]"
        items = ",\n".join(pad + _value(x, "%s[%d]" % (where, i), indent + 1)
                           for i, x in enumerate(v))
        return "(\n%s\n%s)" % (items, "  " * indent)
    return _scalar(v, where)


def scene_text(scene):
    """libconfig text for a scene or study given as a dict.

    Dicts become groups `{ ... }`, lists of dicts (bodies, contacts, sweep
    params) lists `( ... )`, lists of numbers or of strings arrays `[...]`
    (integers beside floats are written as floats, as libconfig arrays hold
    one type), floats keep every digit (repr) and always a decimal point,
    integers beyond 32 bits get libconfig's L.  Keys keep the dict's order.
    Raises ValueError for what libconfig cannot hold (NaN, infinities, bad
    names, other types)."""
    if not isinstance(scene, dict):
        raise ValueError("scene_text: a scene is a dict (got %s)" % type(scene).__name__)
    return "".join("%s = %s;\n" % (_key(k), _value(v, k, 0)) for k, v in scene.items())


class Simulation:
    """One scene run in this process by simulate().

    `signals`: an xarray.Dataset with coordinate `time` (s) and every signal
    an output file of the scene would hold, named as there
    (`contacts.hit.force`, `bodies.hammer.u`, `energy.total`; a modal
    body B's `bodies.B.modes.freq`, `.sigma`, `.mass` on dimension `mode.B`
    and, with record.modes, `bodies.B.modes.q` on (`mode.B`, `time`), and
    with record.modes its modes along w `bodies.B.wmodes.freq`, `.sigma`,
    `.mass` on `wmode.B` and `bodies.B.wmodes.q` on (`wmode.B`, `time`)), each
    with its `units` attribute; its attrs hold the scene's name, status and
    status_code, source, sample_interval (s) and energy_balance_error (J,
    the table's: total + dissipated - external - correction - initial).
    `events`: a pandas DataFrame of every impact, the columns of
    Study.events() (scene, contact, impact, the event fields, the swept
    values of a study's scene, cor), `.attrs["units"]` their units.
    `status` ("done", "diverged at t=...", "newton failed at t=...",
    "friction solve did not converge at t=..."), `status_code` (0 when done), `name`, `index` (of the scene in its
    study), `params` ({path: value} swept for this scene)."""

    def __init__(self, signals, events, status, status_code, name, index, params):
        self.signals, self.events = signals, events
        self.status, self.status_code = status, status_code
        self.name, self.index, self.params = name, index, params

    def __repr__(self):
        return "<vibro.Simulation %r (scene %d): %s, %d signals, %d events>" % (
            self.name, self.index, self.status, len(self.signals.data_vars), len(self.events))


def simulate(scene, index=0):
    """Run one scene in this process and return its results in memory (no
    file is written): a Simulation with `.signals` (xarray.Dataset on
    `time`, s), `.events` (pandas DataFrame, as Study.events()) and
    `.status`.

    `scene` is a dict (see scene_text), libconfig text, or the path of a
    scene file; for a study (a scene with a sweep) `index` picks the scene.
    What `vibro check` warns of for that scene arrives as a VibroWarning; a
    run that diverged or hit Newton's cap warns (RuntimeWarning) with its
    status.  Bad input raises VibroError with vibro's `file:line: object:
    what (valid: ...)` message.  Ctrl-C stops the run at its next step and
    raises KeyboardInterrupt; SIGTERM and SIGHUP stop it there too, and
    then go on as without the run (by default, the process ends).

        sim = vibro.simulate({"scene": {...}, "bodies": [...], "contacts": [...]})
        sim.signals["contacts.hit.force"].plot()
        sim.events[["v_in", "v_out", "cor"]]
    """
    lib = _lib.library()
    source, name = _source(scene)
    st = _lib.load_study(source, name)
    sc, run = ctypes.c_void_p(), ctypes.c_void_p()
    try:
        n = lib.vb_study_scenes(st)
        if not isinstance(index, numbers.Integral) or not 0 <= index < n:
            raise VibroError("%s: no scene %r (valid: 0 to %d)"
                             % (name or source, index, n - 1))
        index = int(index)
        err = ctypes.create_string_buffer(_lib.ERRLEN)
        rc = lib.vb_study_scene(st, index, ctypes.byref(sc), err, _lib.ERRLEN)
        if rc == _lib.VB_OK:
            rc = lib.vb_run_alloc(sc, ctypes.byref(run), err, _lib.ERRLEN)
        if rc != _lib.VB_OK:
            raise VibroError(_lib.text(err.value) or _lib.text(lib.vb_strerror(rc)), 1)
        _warn_check(_lib.lines(lib.vb_scene_warnings, sc), name or source, 2)
        stop = ctypes.c_int(0)
        code, signum = _lib.call_interruptibly(
            lambda: lib.vb_run_exec_stop(run, ctypes.byref(stop)), stop,
            signals=_lib.STOP_SIGNALS)
        status = _lib.text(lib.vb_run_status(run))
        title = _lib.text(lib.vb_scene_title(sc))
        if code == _lib.VB_EINTR:
            message = "%s: scene '%s' %s (simulate keeps nothing)" % (name or source, title,
                                                                     status)
            _lib.pass_on(signum, "vibro: " + message)
            raise KeyboardInterrupt(message)
        params = {_lib.text(lib.vb_study_param(st, p)): lib.vb_study_value(st, index, p)
                  for p in range(lib.vb_study_nparams(st))}
        units = {_lib.text(lib.vb_study_param(st, p)): _lib.text(lib.vb_study_param_units(st, p))
                 for p in range(lib.vb_study_nparams(st))}
        signals = _signals(lib, sc, run)
        signals.attrs["energy_balance_error"] = lib.vb_run_balance_error(run)
        signals.attrs["energy_balance_worst"] = lib.vb_run_balance_worst(run)
        events = _events(lib, sc, run, index, params, units)
    finally:
        lib.vb_run_free(run)
        lib.vb_scene_free(sc)
        lib.vb_study_free(st)
    signals.attrs.update({"scene": title, "status": status, "status_code": code,
                          "source": name or source})
    if code != _lib.VB_OK:
        warnings.warn("vibro: %s: scene '%s' did not finish: %s" % (name or source, title, status),
                      RuntimeWarning, stacklevel=2)
    # an impact still open at the end has NaN t_off (lib/run/events.c)
    closed = sorted(set(events["contact"][events["t_off"].isna()])) if len(events) else []
    if code == _lib.VB_OK and closed:
        which = ", ".join("'%s'" % c for c in closed)
        warnings.warn(_engaged_note("%s: scene '%s'" % (name or source, title),
                                    "contact " + which),
                      VibroWarning, stacklevel=2)
    return Simulation(signals, events, status, code, title, index, params)


def _point_x(lib, sc, name, n):
    """Positions x (m) of the n points of distributed contact `name`
    (contacts name[0] .. name[n-1])."""
    c = 0
    while True:
        got = lib.vb_scene_contact_name(sc, c)
        if got is None:
            return np.full(n, np.nan)
        if _lib.text(got) == name + "[0]":
            return np.array([lib.vb_scene_contact_x(sc, c + k) for k in range(n)])
        c += 1


def _signals(lib, sc, run):
    """The run's signals as an xarray.Dataset (copies)."""
    import xarray as xr
    n = lib.vb_run_samples(run)
    dt = lib.vb_scene_sample_interval(sc)
    data_vars, coords = {}, {"time": ("time", np.arange(n, dtype=np.float64) * dt, {"units": "s"})}
    buf = ctypes.create_string_buffer(256)
    units, rows = ctypes.c_char_p(), ctypes.c_int()
    ptr = ctypes.POINTER(ctypes.c_double)()
    k = 0
    while True:
        kind = lib.vb_run_signal_at(run, k, buf, 256, ctypes.byref(units), ctypes.byref(rows),
                                    ctypes.byref(ptr))
        if kind < 0:
            break
        k += 1
        key, r = _lib.text(buf.value), rows.value
        attrs = {"units": _lib.text(units.value)}
        if kind == 0:
            a = np.ctypeslib.as_array(ptr, shape=(n,)).copy() if n else np.zeros(0)
            data_vars[key] = (("time",), a, attrs)
            continue
        if kind == 3:
            # a distributed contact's signal, on its points as in a file
            dim = "point." + key.split(".")[1]
            if dim not in coords:
                coords[dim] = (dim, _point_x(lib, sc, key.split(".")[1], r), {"units": "m"})
            a = np.ctypeslib.as_array(ptr, shape=(r, n)).copy() if n and r else \
                np.zeros((r, n))
            data_vars[key] = ((dim, "time"), a, attrs)
            continue
        # bodies.B.modes.* on mode.B, its modes along w bodies.B.wmodes.* on
        # wmode.B (issue 30), as in a file
        w = ".wmodes." in key
        mode = ("wmode." if w else "mode.") + \
            key[len("bodies."):key.rindex(".wmodes." if w else ".modes.")]
        coords.setdefault(mode, (mode, np.arange(r, dtype=np.int64)))
        if kind == 1:
            a = np.ctypeslib.as_array(ptr, shape=(r, n)).copy() if n and r else \
                np.zeros((r, n))
            data_vars[key] = ((mode, "time"), a, attrs)
        else:
            a = np.ctypeslib.as_array(ptr, shape=(r,)).copy() if r else np.zeros(0)
            data_vars[key] = ((mode,), a, attrs)
    if not any("time" in v[0] for v in data_vars.values()):
        coords["time"] = ("time", np.zeros(0), {"units": "s"})   # as a file: no signal, no time
    ds = xr.Dataset(data_vars, coords=coords)
    ds.attrs["sample_interval"] = dt
    return ds


def _events(lib, sc, run, index, params, param_units):
    """The run's events as the DataFrame Study.events() gives."""
    import pandas as pd
    fields, units = [], {"scene": "1", "contact": "-", "impact": "1"}
    u, is_int = ctypes.c_char_p(), ctypes.c_int()
    while True:
        f = lib.vb_event_field(len(fields), ctypes.byref(u), ctypes.byref(is_int))
        if f is None:
            break
        fields.append((_lib.text(f), bool(is_int.value)))
        units[fields[-1][0]] = _lib.text(u.value)
    parts = []
    c = 0
    while True:
        contact = lib.vb_scene_contact_name(sc, c)
        if contact is None:
            break
        ne = lib.vb_run_events(run, c, None)
        rows = (ctypes.c_double * max(ne * len(fields), 1))()
        lib.vb_run_events(run, c, rows)
        parts.append((_lib.text(contact), np.ctypeslib.as_array(rows)[:ne * len(fields)]
                      .reshape(ne, len(fields))))
        c += 1
    total = sum(len(a) for _, a in parts)
    cols = {"scene": np.full(total, index, dtype=np.int64),
            "contact": np.array([c for c, a in parts for _ in range(len(a))], dtype=object),
            "impact": np.concatenate([np.arange(len(a), dtype=np.int64) for _, a in parts])
            if parts else np.zeros(0, np.int64)}
    table = np.concatenate([a for _, a in parts]) if parts else np.zeros((0, len(fields)))
    for j, (f, integer) in enumerate(fields):
        cols[f] = table[:, j].astype(np.int32) if integer else table[:, j].copy()
    for p, v in params.items():
        cols[p] = np.full(total, v, dtype=float)
        units[p] = param_units.get(p, "")
    with np.errstate(divide="ignore", invalid="ignore"):
        cols["cor"] = -cols["v_out"] / cols["v_in"] if "v_out" in cols and "v_in" in cols \
            else np.full(total, np.nan)
    units["cor"] = "1"
    df = pd.DataFrame(cols)
    df.attrs["units"] = units
    return df

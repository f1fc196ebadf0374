"""libvibro in this process, through ctypes (no compiler needed at import).

`library()` finds and loads libvibro (`candidates` says where it looks) and
declares the functions the package calls: the loaders, vb_run_* and the
flat interface of lib/pyapi.c (numbers, strings and opaque pointers, so
that no struct of vibro.h is mirrored here).  `call_interruptibly` runs a
long C call in a worker thread while the caller's thread waits, so that
Ctrl-C (SIGINT), and for runs SIGTERM and SIGHUP, set the call's stop flag
instead of going unheard or ending the process; `pass_on` then gives a
SIGTERM or SIGHUP back to what the process would have done.
"""

import ctypes
import os
import signal
import stat
import sys
import threading
import time

from ._errors import VibroError

# Codes of vibro.h.
VB_OK, VB_EINVAL, VB_ENOMEM, VB_ENOCONV, VB_EIO, VB_EDIVERGED = 0, -1, -2, -3, -4, -5
VB_EINTR = -7

# Bytes of a message buffer (vibro's messages are one line; warnings a few).
ERRLEN = 4096
WARNLEN = 65536

_P = ctypes.c_void_p
_S = ctypes.c_char_p
_D = ctypes.c_double
_I = ctypes.c_int
_L = ctypes.c_long
_Z = ctypes.c_size_t

# The progress callback of vb_study_run_flat: done, total, scenes/s,
# seconds left, context.
PROGRESS = ctypes.CFUNCTYPE(None, _L, _L, _D, _D, _P)
# Its stop callback: scenes in flight, seconds they need (NaN: unknown),
# context.
STOPPING = ctypes.CFUNCTYPE(None, _L, _D, _P)
# vb_study_options.stop at this value abandons the scenes in flight.
STOP_ABANDON = 2

# name: (result type, argument types), every function the package calls.
_PROTOTYPES = {
    "vb_version": (_S, []),
    "vb_strerror": (_S, [_I]),
    "vb_study_load": (_I, [_S, ctypes.POINTER(_P), _S, _Z]),
    "vb_study_load_string": (_I, [_S, _S, ctypes.POINTER(_P), _S, _Z]),
    "vb_study_free": (None, [_P]),
    "vb_study_scenes": (_L, [_P]),
    "vb_study_nparams": (_I, [_P]),
    "vb_study_param": (_S, [_P, _I]),
    "vb_study_param_units": (_S, [_P, _I]),
    "vb_study_value": (_D, [_P, _L, _I]),
    "vb_study_path": (_S, [_P]),
    "vb_study_first": (_P, [_P]),
    "vb_study_scene": (_I, [_P, _L, ctypes.POINTER(_P), _S, _Z]),
    "vb_study_record_total": (_D, [_P]),
    "vb_study_warnings": (_I, [_P, _S, _Z]),
    "vb_study_run_flat": (_I, [_P, _S, _I, _I, ctypes.POINTER(_I), PROGRESS, _P, _D,
                               STOPPING, ctypes.POINTER(_L), _S, _Z, _S, _Z]),
    "vb_scene_free": (None, [_P]),
    "vb_scene_title": (_S, [_P]),
    "vb_scene_sample_interval": (_D, [_P]),
    "vb_scene_contact_name": (_S, [_P, _I]),
    "vb_scene_contact_x": (_D, [_P, _I]),
    "vb_scene_warnings": (_I, [_P, _S, _Z]),
    "vb_run_alloc": (_I, [_P, ctypes.POINTER(_P), _S, _Z]),
    "vb_run_free": (None, [_P]),
    "vb_run_exec_stop": (_I, [_P, ctypes.POINTER(_I)]),
    "vb_run_code": (_I, [_P]),
    "vb_run_status": (_S, [_P]),
    "vb_run_samples": (_L, [_P]),
    "vb_run_balance_error": (_D, [_P]),
    "vb_run_balance_worst": (_D, [_P]),
    "vb_run_signal_at": (_I, [_P, _I, _S, _Z, ctypes.POINTER(_S), ctypes.POINTER(_I),
                              ctypes.POINTER(ctypes.POINTER(_D))]),
    "vb_event_field": (_S, [_I, ctypes.POINTER(_S), ctypes.POINTER(_I)]),
    # stepping a run in blocks (vibro.h, lib/run/stepping.c)
    "vb_run_begin": (_I, [_P]),
    "vb_run_advance": (_I, [_P, _L]),
    "vb_run_advance_to": (_I, [_P, _D]),
    "vb_run_end": (_I, [_P]),
    "vb_run_steps_done": (_L, [_P]),
    "vb_run_steps_total": (_L, [_P]),
    "vb_run_now": (_D, [_P]),
    "vb_run_point_now": (_I, [_P, _I, _I, ctypes.POINTER(_D), ctypes.POINTER(_D)]),
    "vb_run_modes_now": (_I, [_P, _I, ctypes.POINTER(_D), ctypes.POINTER(_D), _I]),
    "vb_run_contact_now": (_D, [_P, _I, _I]),
    "vb_run_friction_force": (_D, [_P, _I]),
    "vb_run_friction_slip": (_D, [_P, _I]),
    "vb_run_friction_work": (_D, [_P, _I]),
    "vb_run_friction_sticks": (_D, [_P, _I]),
    "vb_run_friction_bristle": (_D, [_P, _I]),
    "vb_run_set": (_I, [_P, _S, _D, _S, _Z]),
    "vb_study_write_run": (_I, [_P, _P, _S, _S, _Z]),
    "vb_scene_body_name": (_S, [_P, _I]),
    "vb_run_events": (_L, [_P, _I, ctypes.POINTER(_D)]),
}

_lock = threading.Lock()
_loaded = None   # the CDLL, or the VibroError saying why there is none


LIBRARY = "libvibro.so.0"


def _tree(here):
    """The vibro source tree the package is imported from (python/vibro
    in it), or None: the directory above python/ when it holds vibro's
    configure.ac and lib/vibro.h."""
    top = os.path.dirname(os.path.dirname(here))
    if os.path.basename(os.path.dirname(here)) != "python":
        return None
    if os.path.isfile(os.path.join(top, "configure.ac")) and \
            os.path.isfile(os.path.join(top, "lib", "vibro.h")):
        return top
    return None


def _installed_libdir():
    """The libdir `make install` put libvibro in, as it wrote it beside
    the package (vibro/_installed.py), or None."""
    try:
        from . import _installed
    except ImportError:
        return None
    return getattr(_installed, "libdir", None)


def candidates():
    """The places library() tries, in order, as (where, path): $VIBRO_LIB
    alone when it is set; else the package's own directory (the engine a
    pip install carries: vibro/libvibro.so.0), the libdir of the prefix
    `make install` installed it with, the build tree when the package is
    imported from a source checkout (TOP/python/vibro -> TOP/lib/.libs),
    and the system loader's (libvibro.so.0 by its name: LD_LIBRARY_PATH,
    ld.so's cache and directories; no program is run to find it).  No
    other directory is looked in: an ancestor's lib/ is
    not (anybody who can write there could plant a library), and a
    library in a directory others can write is refused (unsafe())."""
    env = os.environ.get("VIBRO_LIB")
    if env:
        return [("$VIBRO_LIB", env)]
    here = os.path.dirname(os.path.abspath(__file__))
    out = [("the package", os.path.join(here, LIBRARY))]
    libdir = _installed_libdir()
    if libdir:
        out.append(("the prefix it was installed with", os.path.join(libdir, LIBRARY)))
    top = _tree(here)
    if top:
        out.append(("the build tree", os.path.join(top, "lib", ".libs", LIBRARY)))
    out.append(("the system loader", LIBRARY))
    return out


def _others_can_write(st):
    """Whether users other than this one (and root) can write a file or
    directory of this stat: it is owned by another, writable by all
    (a directory without the sticky bit), or writable by a group that
    has members other than this user."""
    import grp
    import pwd
    me = os.getuid()
    if st.st_uid not in (0, me):
        return "owned by user %d" % st.st_uid
    sticky = stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_ISVTX
    if st.st_mode & stat.S_IWOTH and not sticky:
        return "writable by every user"
    if st.st_mode & stat.S_IWGRP and not sticky:
        try:
            members = set(grp.getgrgid(st.st_gid).gr_mem)
            members |= {p.pw_name for p in pwd.getpwall() if p.pw_gid == st.st_gid}
            myname = pwd.getpwuid(me).pw_name
        except KeyError:
            return "writable by group %d" % st.st_gid
        if members - {myname}:
            return "writable by group %d (%s)" % (st.st_gid, ", ".join(sorted(members - {myname})))
    return None


def unsafe(path):
    """(place, why) when a library at `path` could have been put there by
    someone else: the file or a directory above it, as named or with its
    links resolved, is writable by another user (_others_can_write);
    else None."""
    seen = set()
    for p in (os.path.abspath(path), os.path.realpath(path)):
        d = p
        while True:
            if d not in seen:
                seen.add(d)
                try:
                    st = os.stat(d)
                except OSError:
                    d2 = os.path.dirname(d)
                    if d2 == d:
                        break
                    d = d2
                    continue
                why = _others_can_write(st)
                if why:
                    return d, why
            up = os.path.dirname(d)
            if up == d:
                break
            d = up
    return None


def _action(tried):
    """The one thing to do when no libvibro loads, for where the package is."""
    here = os.path.dirname(os.path.abspath(__file__))
    top = _tree(here)
    for where, path, why in tried:
        if isinstance(why, tuple) and why[2].startswith("owned"):
            return "use a libvibro in directories of your own (%s is %s)" % why[1:]
        if isinstance(why, tuple):
            return "make %s writable only by you and root: chmod go-w %s" % (why[1], why[1])
    if os.environ.get("VIBRO_LIB"):
        return "set $VIBRO_LIB to a built libvibro.so.0 (or unset it)"
    if top:
        if os.path.isfile(os.path.join(top, "config.status")):
            return "build the source tree it is in: make -C %s" % top
        if os.path.isfile(os.path.join(top, "configure")):
            return "build the source tree it is in: cd %s && ./configure && make" % top
        return "build the source tree it is in: cd %s && autoreconf -fi && ./configure && make" \
            % top
    libdir = _installed_libdir()
    if libdir:
        return "install vibro again (make install, from its source tree): %s is missing" % \
            os.path.join(libdir, LIBRARY)
    return ("install the package with its engine: python -m pip install ./python, "
            "in a vibro source tree")


def _declare(lib):
    for name, (res, args) in _PROTOTYPES.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args


def _load():
    tried = []
    for where, path in candidates():
        if os.path.isabs(path) or os.sep in path:
            if not os.path.exists(path):
                tried.append((where, path, "none"))
                continue
            why = unsafe(path)
            if why:
                tried.append((where, path, ("refused", why[0], why[1])))
                continue
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            if os.sep not in path and "cannot open shared object file" in str(e):
                tried.append((where, path, "none"))       # the system loader has none
            else:
                tried.append((where, path, "not loadable: %s" % e))
            continue
        missing = [n for n in _PROTOTYPES if not hasattr(lib, n)]
        if missing:
            tried.append((where, path, "an older libvibro, without %s" % missing[0]))
            continue
        _declare(lib)
        return lib
    return VibroError("no libvibro for the vibro package in %s: %s (tried %s; "
                      "vibro.run(..., inprocess=False) runs the vibro program instead)"
                      % (os.path.dirname(os.path.abspath(__file__)), _action(tried),
                         "; ".join("%s, %s: %s" % (w, p, y if not isinstance(y, tuple) else
                                                    "refused, %s is %s" % y[1:])
                                   for w, p, y in tried)))


def library():
    """The loaded libvibro (a ctypes.CDLL), found as candidates() says.
    Raises VibroError naming every place tried when none loads."""
    global _loaded
    with _lock:
        if _loaded is None:
            _loaded = _load()
    if isinstance(_loaded, VibroError):
        raise VibroError(str(_loaded))
    return _loaded


def available():
    """Whether libvibro can be loaded (library() would not raise)."""
    try:
        library()
        return True
    except VibroError:
        return False


def text(b):
    """A C string as str."""
    return b.decode("utf-8", "replace") if b is not None else ""


def load_study(source, name):
    """Load a study (or scene) from a path (name None) or text (named
    `name` in messages); returns its opaque pointer.  Raises VibroError
    with vibro's `file:line: object: what (valid: ...)` message."""
    lib = library()
    st = _P()
    err = ctypes.create_string_buffer(ERRLEN)
    if name is None:
        rc = lib.vb_study_load(os.fsencode(source), ctypes.byref(st), err, ERRLEN)
    else:
        rc = lib.vb_study_load_string(source.encode("utf-8"), os.fsencode(name),
                                      ctypes.byref(st), err, ERRLEN)
    if rc != VB_OK:
        raise VibroError(text(err.value) or text(lib.vb_strerror(rc)), 1)
    return st


def lines(fill, *args):
    """The lines a vb_*_warnings call appends to its buffer."""
    buf = ctypes.create_string_buffer(WARNLEN)
    fill(*args, buf, WARNLEN)
    return [x for x in text(buf.value).split("\n") if x]


# The signals that stop a run as they stop the vibro program: a user's
# Ctrl-C, a batch system's time limit or scancel, a closed terminal.
STOP_SIGNALS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP")
                     if hasattr(signal, n))


def call_interruptibly(fn, stop, poll=None, period=0.1, note=None, again=None,
                       signals=(signal.SIGINT,)):
    """Run fn() in a worker thread while this thread waits, calling poll()
    every `period` s; any of `signals` meanwhile (SIGINT: Ctrl-C; with
    STOP_SIGNALS also SIGTERM and SIGHUP, as the vibro program) sets
    stop.value = 1 (a ctypes.c_int the C call watches) instead of raising
    or ending the process.  The handlers are installed only in the main
    thread, and only over the default action or a Python handler (an
    ignored signal stays ignored, a C library's handler stays); the previous
    ones are restored afterwards.  `note`, when given, is printed on stderr
    at the first signal.  With `again` (a message), a second signal sets
    stop.value = STOP_ABANDON and prints it.  Returns (fn's result, the
    first signal that came, or 0).  If this thread is stopped otherwise (an
    exception in poll), the call is stopped and waited for before the
    exception goes on: the C call never outlives the memory it uses."""
    box = {}

    def work():
        try:
            box["result"] = fn()
        except BaseException as e:      # handed to the caller's thread
            box["error"] = e

    hits = []

    def on_signal(signum, frame):
        said = note if not hits else again if len(hits) == 1 else None
        if said and sys.stderr is not None:
            sys.stderr.write("\n" + said + "\n")
            sys.stderr.flush()
        hits.append(signum)
        stop.value = STOP_ABANDON if again and len(hits) > 1 else 1

    old = {}
    if threading.current_thread() is threading.main_thread():
        for sig in signals:
            current = signal.getsignal(sig)
            if current not in (signal.SIG_IGN, None):
                old[sig] = current
                signal.signal(sig, on_signal)
    worker = threading.Thread(target=work, name="vibro", daemon=True)
    try:
        worker.start()
        while worker.is_alive():
            worker.join(period)
            if poll is not None:
                poll()
    finally:
        if worker.is_alive():
            stop.value = 1
            worker.join()
        for sig, handler in old.items():
            signal.signal(sig, handler)
    if "error" in box:
        raise box["error"]
    return box.get("result"), hits[0] if hits else 0


def pass_on(signum, message):
    """After a run a signal stopped (its handler given back): a SIGTERM or
    SIGHUP goes on to what this process would have done without the run
    (the default: the process ends by that signal, exit status 128 + N as
    the vibro program's), with `message` on stderr first; a Python handler
    of it runs.  Returns when the process is still alive (SIGINT, or a
    handler that returned), for the caller to raise KeyboardInterrupt."""
    if signum in (0, getattr(signal, "SIGINT", None)):
        return
    if sys.stderr is not None and message:
        sys.stderr.write(message + "\n")
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass
    os.kill(os.getpid(), signum)
    # a Python handler runs at the next bytecode; the default action ends
    # the process before this returns
    time.sleep(0.05)


def in_notebook():
    """Whether this Python is a Jupyter kernel (IPython with a kernel)."""
    ip = sys.modules.get("IPython")
    if ip is None or "ipykernel" not in sys.modules:
        return False
    try:
        shell = ip.get_ipython()
    except Exception:
        return False
    return shell is not None and getattr(shell, "kernel", None) is not None

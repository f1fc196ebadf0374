"""Running vibro from Python: `run`, `program`, `scene_text`."""

import math
import numbers
import os
import re
import shutil
import subprocess
import tempfile
import warnings

import numpy as np

from ._errors import VibroError

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


def run(scene, out, jobs=None, resume=False):
    """Run a scene or study with vibro and open its output.

    `scene` is the path of a scene file, or a dict written out with
    scene_text() (to a temporary file in the current directory, so relative
    file names in it, @include and data files, are taken from there).
    `out` is the output path; `jobs` the number of scenes run at a time
    (vibro's -j; default all cores); `resume` continues an interrupted run
    (--resume).  Returns the Study.  Bad input raises VibroError with
    vibro's `file:line: object: what (valid: ...)` message; scenes that did
    not finish cleanly (exit 2) give a warning naming them, and the study
    (their `status` says why)."""
    from ._study import Study
    exe = program()
    out = os.fspath(out)
    tmp = None
    if isinstance(scene, dict):
        text = scene_text(scene)
        where = os.getcwd() if os.access(os.getcwd(), os.W_OK) else None
        fd, tmp = tempfile.mkstemp(prefix=".vibro-scene-", suffix=".cfg", dir=where)
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        path = tmp
    else:
        path = os.fspath(scene)
    cmd = [exe, "run", path, "-o", out, "--quiet"]
    if jobs is not None:
        if not isinstance(jobs, numbers.Integral) or jobs < 1:
            raise VibroError("jobs must be a positive integer (got %r)" % (jobs,))
        cmd += ["-j", str(int(jobs))]
    if resume:
        cmd.append("--resume")
    try:
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True,
                              text=True)
    finally:
        if tmp is not None:
            os.unlink(tmp)
    message = proc.stderr.strip()
    if proc.returncode == 2:
        warnings.warn("vibro: %s" % (message or "some scenes did not finish cleanly "
                                     "(see the table's status)"), RuntimeWarning,
                      stacklevel=2)
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

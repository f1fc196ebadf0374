#!/usr/bin/python3
"""readers.py - the reader fuzz (issue 19, item 6): byte-flipped vibro
outputs through `vibro info`, `vibro events` and the Python package, each
under a timeout.

    readers.py --vibro tools/vibro --python-path python --seed 19 \
        --variants 2000 [--timeout 20] [--keep DIR] [--strict] NAME=FILE ...

Every FILE (a study with signals, one without, a vibro-2 file, a
distributed contact's, an analysis's) gives
`--variants` damaged copies: 1 to 8 bytes flipped, anywhere (half the
time) or in the file's first and last 64 KiB where HDF5 keeps most of its
metadata; every 10th copy is instead cut short.  The variant k of a file
depends only on (seed, NAME, k), so a failure is replayed by its numbers.

Per variant and reader the outcome is one of
  ok        exit 0 (C) / no exception (Python)
  refused   exit 1 with one line naming the file (C) / VibroError (Python)
  crash     killed by a signal (a segfault, an abort)
  hang      still running after the timeout
  exit      another exit status (C)
  message   exit 1 whose stderr is not one line naming the file (C)
  raw       an exception other than VibroError (Python), by class
The counts per file and reader are printed as a table; with --keep the
variants that were not ok are saved there (NAME-K.h5 and a line in
DIR/failures.txt).  --strict exits 1 when any variant is not ok or
refused, but for the outcomes --allow lists (crash: the crashes left are
inside libhdf5, tests/fuzz/README.md)."""

import argparse
import collections
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

META = 65536  # bytes at each end of the file where flips are aimed half the time


def variant(data, seed, name, k):
    """The k-th damaged copy of data (bytes) and what was done to it."""
    rng = random.Random("%d/%s/%d" % (seed, name, k))
    if k % 10 == 9:
        cut = rng.randrange(1, len(data))
        return data[:cut], "cut at %d" % cut
    out = bytearray(data)
    flips = []
    for _ in range(rng.randint(1, 8)):
        if rng.random() < 0.5 or len(data) <= 2 * META:
            pos = rng.randrange(len(data))
        else:
            pos = rng.randrange(2 * META)
            pos = pos if pos < META else len(data) - 2 * META + pos
        bit = 1 << rng.randrange(8)
        out[pos] ^= bit
        flips.append("%d^%d" % (pos, bit))
    return bytes(out), "flip " + " ".join(flips)


def run_c(vibro, command, path, timeout):
    """One C reader on path: its outcome."""
    try:
        p = subprocess.run([vibro, command, path], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "hang", ""
    if p.returncode < 0:
        return "crash", "signal %d" % -p.returncode
    if p.returncode not in (0, 1):
        return "exit", "exit %d" % p.returncode
    err = p.stderr.decode("utf-8", "replace")
    if p.returncode == 1 and (err.count("\n") != 1 or not err.startswith(path + ":")):
        return "message", err.strip().replace("\n", " | ")[:300]
    return ("ok" if p.returncode == 0 else "refused"), ""


def python_reads(path, sig="bodies/hammer/u"):
    """What a user does with a study: open it, its table, events, contacts,
    its analysis (sections, impact map, orbits, stick-slip phases: empty
    where the file has none) and a signal of its first scene when it has
    one."""
    import vibro
    try:
        s = vibro.open(path)
        s.table
        s.events()
        s.contacts()
        for part in (s.sections, s.impact_map, s.orbits, s.phases):
            try:
                part()
            except vibro.VibroError as e:
                # a file without that part says so (": no /study/sections",
                # "has no orbit column"); any other refusal is the outcome
                if ": no /study/" not in str(e) and "has no orbit column" not in str(e):
                    raise
        if s.scenes:
            try:
                s.signal(s.scenes[0], sig)
            except vibro.VibroError as e:
                if "no signal" not in str(e) and "has no signals" not in str(e):
                    raise
    except vibro.VibroError:
        return "VibroError"
    except BaseException as e:  # noqa: B902 - the point is to catch every other kind
        return type(e).__name__ + ": " + str(e).replace("\n", " ")[:200]
    return None


def run_python(path, timeout, sig):
    """The Python package on path in a forked child: its outcome."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            what = python_reads(path, sig)
        except BaseException as e:  # noqa: B902
            what = "harness: %r" % e
        os.write(w, (what or "").encode("utf-8", "replace"))
        os._exit(0 if what is None else 4 if what == "VibroError" else 3)
    os.close(w)
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(r)
            return "hang", ""
        time.sleep(0.002)
    text = os.read(r, 4096).decode("utf-8", "replace")
    os.close(r)
    if os.WIFSIGNALED(status):
        return "crash", "signal %d" % os.WTERMSIG(status)
    if os.WEXITSTATUS(status) == 0:
        return "ok", ""
    if os.WEXITSTATUS(status) == 4:
        return "refused", ""
    return "raw", text


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--vibro", required=True)
    ap.add_argument("--python-path", default=None)
    ap.add_argument("--seed", type=int, default=19)
    ap.add_argument("--variants", type=int, default=2000)
    ap.add_argument("--first", type=int, default=0, help="first variant number")
    ap.add_argument("--timeout", type=float, default=20.0)
    ap.add_argument("--keep", default=None)
    ap.add_argument("--strict", action="store_true")
    ap.add_argument("--allow", default="", help="outcomes --strict lets pass, e.g. crash")
    ap.add_argument("--no-python", action="store_true")
    ap.add_argument("--only-kept", default=None,
                    help="read again only the variants a --keep DIR holds (the others were "
                         "ok or refused for every reader when kept), and count only those")
    ap.add_argument("--signal", action="append", default=[],
                    help="NAME=PATH: the signal the package reads of file NAME's first scene "
                         "(default bodies/hammer/u)")
    ap.add_argument("files", nargs="+", help="NAME=FILE")
    a = ap.parse_args()
    if a.python_path:
        sys.path.insert(0, a.python_path)
    if not a.no_python:
        import vibro  # noqa: F401 - loaded once, before the forks
        import pandas  # noqa: F401
        import xarray  # noqa: F401
    readers = ["info", "events"] + ([] if a.no_python else ["python"])
    kinds = ["crash", "hang", "exit", "message", "raw"]
    shown = kinds + ["refused"]
    counts = collections.OrderedDict()
    tmpdir = tempfile.mkdtemp(prefix="vibro-readers.")
    failures = []
    t0 = time.monotonic()
    sigs = dict(x.partition("=")[::2] for x in a.signal)
    for spec in a.files:
        name, _, path = spec.partition("=")
        sig = sigs.get(name, "bodies/hammer/u")
        with open(path, "rb") as fh:
            data = fh.read()
        for rd in readers:
            counts[(name, rd)] = collections.Counter()
        for k in range(a.first, a.first + a.variants):
            damaged, how = variant(data, a.seed, name, k)
            if a.only_kept:
                kept = os.path.join(a.only_kept, "%s-%d.h5" % (name, k))
                if not os.path.exists(kept):
                    continue
                with open(kept, "rb") as fh:
                    damaged = fh.read()
            v = os.path.join(tmpdir, "%s-%d.h5" % (name, k))
            with open(v, "wb") as fh:
                fh.write(damaged)
            for rd in readers:
                what, detail = (run_python(v, a.timeout, sig) if rd == "python"
                                else run_c(a.vibro, rd, v, a.timeout))
                counts[(name, rd)][what] += 1
                if what not in ("ok", "refused"):
                    failures.append("%s %d %s: %s %s (%s)" % (name, k, rd, what, detail, how))
                    if a.keep:
                        os.makedirs(a.keep, exist_ok=True)
                        keep = os.path.join(a.keep, "%s-%d.h5" % (name, k))
                        if not os.path.exists(keep):
                            with open(keep, "wb") as fh:
                                fh.write(damaged)
            os.unlink(v)
    os.rmdir(tmpdir)
    print("reader fuzz: seed %d, variants %d..%d of each file, timeout %g s, %.0f s"
          % (a.seed, a.first, a.first + a.variants - 1, a.timeout, time.monotonic() - t0))
    print("%-10s %-7s %8s" % ("file", "reader", "variants") +
          "".join(" %7s" % k for k in shown))
    total = collections.Counter()
    for (name, rd), c in counts.items():
        print("%-10s %-7s %8d" % (name, rd, sum(c.values())) +
              "".join(" %7d" % c[k] for k in shown))
        total.update(c)
    print("%-18s %8d" % ("total", sum(total.values())) + "".join(" %7d" % total[k] for k in shown))
    for line in failures[:40]:
        print("  " + line)
    if len(failures) > 40:
        print("  ... and %d more" % (len(failures) - 40))
    if a.keep and failures:
        with open(os.path.join(a.keep, "failures.txt"), "w") as fh:
            fh.write("\n".join(failures) + "\n")
    allowed = set(a.allow.split(",")) - {""}
    bad = sum(total[k] for k in kinds if k not in allowed)
    return 1 if a.strict and bad else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""drive.py - run genscene.py's random scenes through `vibro check` and
`vibro run` and check what must hold for any valid scene:

  - check and run exit 0 (or run 2, a scene that did not finish, with its
    status saying why) or 1 with `file:line: ...` as the message's start;
    never a signal, a sanitizer report or a hang (60 s);
  - check and run agree: a scene check accepts is not refused by run;
  - a finished scene (status_code 0) has no NaN or Inf in any signal and
    in the table's final_energy and energy_balance_error;
  - an island family that conserves energy (two-point, three-point, sav)
    without corrections keeps energy_balance_error below 1e-9 of the
    largest |energy.total| (only scenes of such islands alone);
  - with --jobs: -j 1 and -j 2 give identical files (h5diff);
  - with --kill: a run SIGKILLed at a random moment and resumed gives
    the file of the uninterrupted run (h5diff).

    drive.py VIBRO FIRST COUNT [--jobs] [--kill]
exits 1 on the first failure, printing the seed and the scene.
"""
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
MSG = re.compile(r"^[^\s:][^:]*:\d+: ")
BAD = ("AddressSanitizer", "runtime error:", "LeakSanitizer", "Segmentation", "Aborted")
CONSERVING = {"two-point", "three-point", "sav"}


def run(cmd, timeout=60):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "", "timeout after %d s" % timeout
    return p.returncode, p.stdout, p.stderr


def finite_file(path):
    """(problems) NaN/Inf in finished scenes' signals or table."""
    out = []
    with h5py.File(path, "r") as f:
        t = f["study/table"]
        code = t["status_code"][()]
        done = code == 0
        for col in ("final_energy", "energy_balance_error"):
            v = t[col][()]
            if not np.all(np.isfinite(v[done])):
                out.append("non-finite %s in a finished scene" % col)
        if "signals" in f:
            for name, d in f["signals"].items():
                if not isinstance(d, h5py.Dataset) or d.ndim < 2 or d.shape[0] != len(code):
                    continue
                if name.endswith(".aux"):       # NaN for a scheme without one (README)
                    continue
                v = d[()][done]
                if not np.all(np.isfinite(v)):
                    out.append("non-finite signal %s in a finished scene" % name)
    return out


def balance(path, scale_floor=1e-12):
    with h5py.File(path, "r") as f:
        t = f["study/table"]
        code = t["status_code"][()]
        err = t["energy_balance_error"][()]
        if "signals" in f and "energy.total" in f["signals"]:
            e = np.abs(f["signals/energy.total"][()])
            scale = np.maximum(e.max(axis=1), scale_floor)
        else:
            scale = np.maximum(np.abs(t["final_energy"][()]), scale_floor)
        rel = np.abs(err) / scale
        return [(i, float(rel[i])) for i in range(len(code)) if code[i] == 0]


def one(vibro, seed, tmp, jobs, kill, log):
    d = os.path.join(tmp, "s%d" % seed)
    os.makedirs(d)
    facts = json.loads(subprocess.check_output([sys.executable, os.path.join(HERE, "genscene.py"),
                                                str(seed), d]))
    cfg = os.path.join(d, "s.cfg")
    fails = []
    rc, out, err = run([vibro, "check", cfg])
    if rc is None or rc not in (0, 1) or any(b in err for b in BAD):
        fails.append("check exited %s: %s" % (rc, err[-2000:]))
        return fails, facts, "crash"
    if rc == 1:
        first = err.strip().splitlines()[0] if err.strip() else ""
        if not MSG.match(first):
            fails.append("check refused without file:line: %r" % first)
        return fails, facts, "refused: " + first[:160]
    a = os.path.join(d, "a.h5")
    rc, out, err = run([vibro, "run", cfg, "-o", a, "-j", "1", "--quiet"], timeout=120)
    if rc is None or rc not in (0, 2) or any(b in err for b in BAD):
        fails.append("run -j 1 exited %s after check accepted: %s" % (rc, err[-2000:]))
        return fails, facts, "crash"
    fails += finite_file(a)
    with h5py.File(a, "r") as f:
        st = [s.decode() if isinstance(s, bytes) else str(s) for s in f["study/table/status"][()]]
        codes = f["study/table/status_code"][()]
    if rc == 0 and np.any(codes != 0):
        fails.append("exit 0 with a scene not done: %s" % st)
    if rc == 2 and np.all(codes == 0):
        fails.append("exit 2 with every scene done")
    isl = facts["islands"]
    if all(i["scheme"] in CONSERVING and not i["corrected"] for i in isl):
        for i, rel in balance(a):
            if rel > 1e-9:
                fails.append("scene %d: energy_balance_error %.3g of the energy (schemes %s)"
                             % (i, rel, [x["scheme"] for x in isl]))
    if jobs:
        b = os.path.join(d, "b.h5")
        rc2, _, err2 = run([vibro, "run", cfg, "-o", b, "-j", "2", "--quiet"], timeout=120)
        if rc2 != rc:
            fails.append("-j 2 exited %s, -j 1 %s: %s" % (rc2, rc, err2[-500:]))
        else:
            r3, o3, _ = run(["h5diff", a, b])
            if r3 != 0:
                fails.append("-j 1 and -j 2 differ: %s" % o3[:500])
    if kill:
        k = os.path.join(d, "k.h5")
        t0 = time.time()
        rc0, _, _ = run([vibro, "run", cfg, "-o", os.path.join(d, "t.h5"), "-j", "1", "--quiet"], timeout=120)
        full = time.time() - t0
        p = subprocess.Popen([vibro, "run", cfg, "-o", k, "-j", "2", "--quiet"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(random.Random(seed).uniform(0, full))
        p.send_signal(signal.SIGKILL)
        p.wait()
        rc4, _, err4 = run([vibro, "run", cfg, "-o", k, "-j", "2", "--quiet", "--resume"], timeout=120)
        if rc4 != rc and not (rc4 == 1 and "nothing to resume" in err4):
            fails.append("resume after SIGKILL exited %s (uninterrupted %s): %s" % (rc4, rc, err4[-500:]))
        elif rc4 in (0, 2):
            r5, o5, _ = run(["h5diff", a, k])
            if r5 != 0:
                fails.append("resumed after SIGKILL differs from the uninterrupted run: %s" % o5[:500])
    return fails, facts, "ran %d (%s) [%s]" % (rc, ",".join(sorted(set(st)))[:120],
                                              " ".join(i["scheme"] for i in facts["islands"]))


def main():
    vibro, first, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    jobs, kill = "--jobs" in sys.argv, "--kill" in sys.argv
    keep = "--keep" in sys.argv
    tmp = tempfile.mkdtemp(prefix="vibro-genscene.")
    nfail, tally = 0, {}
    try:
        for seed in range(first, first + count):
            fails, facts, what = one(vibro, seed, tmp, jobs, kill, None)
            key = what.split(":")[0] if not what.startswith("ran") else what[:6]
            tally[key] = tally.get(key, 0) + 1
            print("seed %d: %s" % (seed, what), flush=True)
            if fails:
                nfail += 1
                print("FAIL seed %d:\n  %s" % (seed, "\n  ".join(fails)), flush=True)
                with open(os.path.join(tmp, "s%d" % seed, "s.cfg")) as f:
                    print(f.read(), flush=True)
            elif not keep:
                shutil.rmtree(os.path.join(tmp, "s%d" % seed))
    finally:
        if not keep and nfail == 0:
            shutil.rmtree(tmp, ignore_errors=True)
    print("tally:", json.dumps(tally))
    print("%d scenes, %d failed%s" % (count, nfail, (" (kept in %s)" % tmp) if nfail else ""))
    sys.exit(1 if nfail else 0)


if __name__ == "__main__":
    main()

"""bench_python.py - one 1 s scene from Python: in this process (libvibro
through ctypes) against the vibro program (a whole process), best of N.

    PYTHONPATH=python python3 tests/bench/bench_python.py [N]

The scene is scenes/bouncing-ball.cfg cut to 1 s (44100 steps, 29 impacts
become 24, recorded every 4th step).  Timed, each the best of N (default
7) wall times:
  program         `vibro run SCENE -o OUT --quiet` as a subprocess, the
                  process alone (what a shell user waits for)
  program + open  the same, then vibro.open(OUT).table: what the
                  subprocess path of vibro.run does (less its vibro check)
  run here        vibro.run(SCENE, OUT, inprocess=True).table: the study in
                  this process (vb_study_run), the same file, opened
  simulate        vibro.simulate(SCENE): the scene in this process, its
                  signals and events in memory, no file
The in-process calls must not be slower: exit status 1 when `run here` is
slower than `program + open`, or `simulate` slower than the program alone."""

import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "python"))

import vibro                                   # noqa: E402
from vibro import _lib                         # noqa: E402


def best(fn, n):
    """The shortest of n wall times of fn(), s."""
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    if not _lib.available():
        print("bench_python: libvibro does not load (%s): skipped"
              % _lib._load())
        return 0
    with open(os.path.join(TOP, "scenes", "bouncing-ball.cfg")) as f:
        text = f.read().replace("duration = 1.4;", "duration = 1.0;")
    assert "duration = 1.0;" in text
    exe = vibro.program()
    with tempfile.TemporaryDirectory() as d:
        scene = os.path.join(d, "ball.cfg")
        with open(scene, "w") as f:
            f.write(text)
        out = os.path.join(d, "out.h5")

        def program():
            subprocess.run([exe, "run", scene, "-o", out, "--quiet"], check=True,
                           stdin=subprocess.DEVNULL)
            os.unlink(out)

        def program_open():
            subprocess.run([exe, "run", scene, "-o", out, "--quiet"], check=True,
                           stdin=subprocess.DEVNULL)
            vibro.open(out).table
            os.unlink(out)

        def run_here():
            vibro.run(scene, out, inprocess=True).table
            os.unlink(out)

        def simulate():
            vibro.simulate(scene)

        for fn in (program, program_open, run_here, simulate):       # warm caches and imports
            fn()
        t = {"program": best(program, n), "program + open": best(program_open, n),
             "run here": best(run_here, n), "simulate": best(simulate, n)}
    print("bench_python: a 1 s scene (bouncing ball, 44100 steps), best of %d:" % n)
    for k, v in t.items():
        print("  %-15s %8.2f ms" % (k, 1e3 * v))
    r1 = t["run here"] / t["program + open"]
    r2 = t["simulate"] / t["program"]
    print("  run here / (program + open): %.3f" % r1)
    print("  simulate / program:          %.3f" % r2)
    if r1 > 1.0 or r2 > 1.0:
        print("bench_python: FAIL: in this process is slower than the program")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

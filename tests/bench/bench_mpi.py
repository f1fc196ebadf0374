"""bench_mpi.py - issue 33 item 6: a study recording every sample on 1, 2
and 4 MPI ranks (oversubscribed: one core each at most on a small machine).

The study: Papetti's hammer swept over k and v0, 2000 scenes of 0.065 s at
44.1 kHz, every sample recorded (414 MB).  Each configuration is a whole
process as a user starts it (`vibro run`, or `mpirun -np R vibro run -j 1`),
3 runs in turn; the median (and min) of its CPU time (user + system of the
process and every descendant it reaped: mpirun, its daemons and the ranks,
getrusage(RUSAGE_CHILDREN)) and of its wall time.  Then once per
configuration the bytes every rank wrote (the wchar of /proc/PID/io,
children reaped included) against the file's size: 1.0x when no recorded
sample is written twice, 2.0x when rank 0's merge copies every one.  The
target (issue 33): 2 ranks at most 1.15x the CPU of 1 rank.

Then the same for scenes of different lengths (the duration swept from
0.03 to 0.10 s instead of v0: 2000 scenes, 423 MB, rows of the longest
padded with NaN), and for those scenes flushed every 0.5 s
(VIBRO_TEST_BATCH_SECONDS), as the 10 s rule flushes a long study: before
issue 33's session 16 both went through rank 0's merge.

Not a test: `make bench`.  Usage: bench_mpi.py VIBRO WITH_MPI [TMPDIR]
(VIBRO_BASE=path: the same figures for another vibro, e.g. main's, first).
"""
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

STUDY = """scene = { name = "papetti-sweep"; fs = 44100.0; duration = 0.065; gravity = 0.0; };
bodies = ( { name = "hammer"; type = "mass"; mass = 0.01; u0 = 0.0; v0 = 1.0; },
           { name = "wall"; type = "wall"; position = 0.0; } );
contacts = ( { name = "hit"; between = ["hammer", "wall"]; law = "hunt-crossley";
               k = 1.0e9; alpha = 1.5; mu = 0.5; scheme = "am1"; } );
sweep = { mode = "grid"; params = (
  { path = "contacts.hit.k"; logspace = [1.0e8, 1.0e10]; n = 40; },
  { path = "bodies.hammer.v0"; linspace = [0.25, 2.0]; n = 50; } ); };
"""

# scenes of different lengths: the duration swept instead of v0
RAGGED = STUDY.replace('{ path = "bodies.hammer.v0"; linspace = [0.25, 2.0]; n = 50; }',
                       '{ path = "scene.duration"; linspace = [0.03, 0.10]; n = 50; }')
assert RAGGED != STUDY

# (what, study, environment)
STUDIES = [("2000 scenes x 0.065 s", STUDY, {}),
           ("2000 scenes of 0.03 to 0.10 s (a swept duration)", RAGGED, {}),
           ("the same, a flush every 0.5 s (the 10 s rule of a long study)", RAGGED,
            {"VIBRO_TEST_BATCH_SECONDS": "0.5"})]

# each rank's bytes written, when the run ends (the wrapper's own are a few)
WRAP = """#!/bin/sh
"$@"
s=$?
awk '/^wchar/ { print $2 }' /proc/$$/io >"$IO_DIR/rank.${OMPI_COMM_WORLD_RANK:-0}"
exit $s
"""


def command(vibro, ranks, study, out, wrap=None):
    run = [vibro, "run", study, "-o", out, "-j", "1", "--quiet"]
    if wrap:
        run = [wrap] + run
    if ranks == 0:
        return run
    return ["mpirun", "-np", str(ranks)] + run


def remove(out):
    for p in (out, out + ".part"):
        if os.path.isdir(p):
            shutil.rmtree(p)
        elif os.path.exists(p):
            os.remove(p)


def timed(cmd, out):
    remove(out)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        sys.exit("bench_mpi: %s: exit %d: %s" % (" ".join(cmd), r.returncode,
                                                 r.stderr.decode()[-300:]))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def figures(label, vibro, tmp, configs, what, text, env):
    study = os.path.join(tmp, "study.cfg")
    out = os.path.join(tmp, "out.h5")
    with open(study, "w") as f:
        f.write(text)
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    runs = {c: [] for c in configs}
    for _ in range(3):
        for c in configs:
            runs[c].append(timed(command(vibro, c, study, out), out))
    wrap = os.path.join(tmp, "wrap.sh")
    iodir = os.path.join(tmp, "io")
    os.makedirs(iodir, exist_ok=True)
    os.environ["IO_DIR"] = iodir
    ref = None
    print("bench_mpi (%s): %s, every sample recorded; median (min) of 3" % (label, what))
    for c in configs:
        for f in os.listdir(iodir):
            os.remove(os.path.join(iodir, f))
        timed(command(vibro, c, study, out, wrap), out)
        size = os.path.getsize(out)
        wrote = sum(int(open(os.path.join(iodir, f)).read() or 0) for f in os.listdir(iodir))
        cpu = statistics.median(r[0] for r in runs[c])
        wall = statistics.median(r[1] for r in runs[c])
        if ref is None:
            ref = cpu
        name = "1 process" if c == 0 else "%d rank%s" % (c, "" if c == 1 else "s")
        print("  %-10s CPU %6.3f s (min %6.3f, %.2fx 1 process)  wall %6.3f s (min %6.3f)  "
              "written %5.0f MB = %.2fx the file (%.0f MB)"
              % (name, cpu, min(r[0] for r in runs[c]), cpu / ref, wall,
                 min(r[1] for r in runs[c]), wrote / 1e6, wrote / size, size / 1e6))
        if c == 2:
            one = statistics.median(r[0] for r in runs[1]) if 1 in runs else ref
            print("  target (issue 33): 2 ranks at most 1.15x the CPU of 1 rank: %.2fx (%s)"
                  % (cpu / one, "met" if cpu / one <= 1.15 else "NOT met"))
    remove(out)
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    vibro, with_mpi = os.path.abspath(sys.argv[1]), sys.argv[2]
    if with_mpi != "yes" or not shutil.which("mpirun"):
        print("bench_mpi: not built --with-mpi (or no mpirun): skipped")
        return
    os.environ.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                      OMPI_MCA_rmaps_base_oversubscribe="1")
    tmp = tempfile.mkdtemp(prefix="bench-mpi.", dir=sys.argv[3] if len(sys.argv) > 3 else None)
    try:
        wrap = os.path.join(tmp, "wrap.sh")
        with open(wrap, "w") as f:
            f.write(WRAP)
        os.chmod(wrap, 0o755)
        configs = [0, 1, 2, 4]
        for what, text, env in STUDIES:
            if os.environ.get("VIBRO_BASE"):
                figures("before: " + os.environ["VIBRO_BASE"], os.environ["VIBRO_BASE"], tmp,
                        configs, what, text, env)
            figures("this build", vibro, tmp, configs, what, text, env)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

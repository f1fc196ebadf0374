"""bench_bowed.py - the bowed modal string's real-time factor (issue 30,
step 3; make bench): scenes/bowed-string.cfg with 200 modes along w at
44.1 kHz (tension 12.5 N: f1 = 100 Hz, the 200th mode at 20 kHz, below
fs/2), bowed at 0.1 N (Helmholtz motion: one slip per period), 10 s of sound, every signal recorded at every
sample.  The whole process (`vibro run`, loading, stepping, writing the
HDF5 file) is timed on one core (OMP_NUM_THREADS=1, pinned to one CPU
where taskset exists), seven runs; the real-time factor is the sound's
duration over the median wall time (and over the median CPU time, which
a loaded machine inflates less).  The target of issue 30: >= 20.
Usage: bench_bowed.py VIBRO SCENE TMPDIR"""
import os, re, resource, shutil, subprocess, sys, time

vibro, scene, tmp = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(scene).read()
for key, value in (("nmodes", "200"), ("tension", "12.5"), ("duration", "10.0"),
                   ("normal_force", "0.1")):
    text = re.sub(key + r" = [-0-9.e]+", f"{key} = {value}", text, count=1)
duration = 10.0
cfg, out = os.path.join(tmp, "bowed200.cfg"), os.path.join(tmp, "bowed200.h5")
with open(cfg, "w") as f:
    f.write(text)
cmd = [vibro, "run", cfg, "-o", out, "--quiet"]
if shutil.which("taskset"):
    cmd = ["taskset", "-c", "0"] + cmd
env = dict(os.environ, OMP_NUM_THREADS="1")
walls, cpus = [], []
for k in range(7):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, check=True)
    walls.append(time.perf_counter() - t0)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpus.append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
med = lambda x: sorted(x)[len(x) // 2]
w, c = med(walls), med(cpus)
print(f"bench_bowed: 200 modes along w, 44.1 kHz, {duration:g} s of sound, whole process on "
      f"one core: median wall {w:.3f} s ({duration / w:.1f}x real time), median CPU {c:.3f} s "
      f"({duration / c:.1f}x); {w / (duration * 44100) * 1e6:.3f} us a step "
      f"(target >= 20x; load average {os.getloadavg()[0]:.2f})")

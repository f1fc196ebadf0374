#!/bin/sh
# layers.sh - the library's wings hold their order.  The wings, bottom up:
# lib/base, solvers, lib/island, lib/run, lib/scene, lib/output, lib/study,
# and the root (lib/vibro.h, lib/pyapi.c).  Read from the objects as built
# (nm, objdump) and from the sources' #include lines:
#   1. no call from a file of a lower wing into a file of a higher one
#      (the graph "file A calls a function defined in file B");
#   2. no function handed over at run time to a lower wing (its address
#      taken and passed to, or stored for, a call of a lower wing's
#      function) unless it is listed below with the interface it belongs to;
#   3. a file includes headers of its own wing and only the face (the one
#      header named after the wing) of a wing below it, never a higher one;
#   4. no circle of files (issue 11).
# Prints the files and lines of each wing, the arrows within and between
# wings and the callbacks.  Skipped (77) without nm or the objects.
set -u
python=${PYTHON:-/usr/bin/python3}
srcdir=${srcdir:-.}
command -v nm >/dev/null 2>&1 || { echo "no nm: skipped"; exit 77; }
# the objects of lib/libvibro_all.la (Makefile.am) alone
objs=$(ls lib/.libs/libvibro_all_la-*.o lib/*/.libs/libvibro_all_la-*.o \
  solvers/.libs/lib_libvibro_all_la-*.o 2>/dev/null)
[ -n "$objs" ] || { echo "no library objects in lib/.libs: skipped"; exit 77; }
# shellcheck disable=SC2086
"$python" - "$srcdir" $objs <<'PY'
import os, re, subprocess, sys

ORDER = ["base", "solvers", "island", "run", "scene", "output", "study", "root"]
FACE = {"base": "base/base.h", "solvers": "scheme.h", "island": "island/island.h",
        "run": "run/run.h", "scene": "scene/scene.h", "output": "output/output.h",
        "study": "study/study.h", "root": "vibro.h"}
# Functions of a higher wing that a lower wing calls through a pointer, by
# design, each with the interface it belongs to.  Anything else fails.
HANDED_DOWN = {
    "island.island.system_accel": "solvers: an explicit scheme steps the island as a "
                           "system of equations (vb_system, solvers/scheme.h)",
    "root.pyapi.flat_progress_call": "study: the user's progress callback of "
                                "vb_study_run (vibro.h)",
}
srcdir, objs = sys.argv[1], sys.argv[2:]
failed = []

def wing_of_obj(o):
    d = os.path.dirname(os.path.dirname(o))  # strip .libs
    parts = d.split(os.sep)
    if parts[-1] == "solvers":
        return "solvers"
    if parts[-1] == "lib":
        return "root"
    return parts[-1]

def wing_of_src(path):
    parts = path.split("/")
    if parts[0] == "solvers":
        return "solvers"
    return parts[1] if len(parts) == 3 else "root"

rank = {w: i for i, w in enumerate(ORDER)}
defs, undef, wing = {}, {}, {}
for o in objs:
    name = "%s.%s" % (wing_of_obj(o), os.path.basename(o).split("-", 1)[-1][:-2])
    wing[name] = wing_of_obj(o)
    d, u = set(), set()
    for line in subprocess.run(["nm", o], capture_output=True, text=True, check=True).stdout.split("\n"):
        f = line.split()
        if len(f) == 3 and f[1] in "TDRBV":
            d.add(f[2])
        elif len(f) == 2 and f[0] == "U":
            u.add(f[1])
    defs[name], undef[name] = d, u
unknown = sorted(n for n in wing if wing[n] not in rank)
for n in unknown:
    failed.append("%s: in no wing (known: %s)" % (n, ", ".join(ORDER)))
owner = {s: n for n, d in defs.items() for s in d}
arrows = {n: {} for n in defs}
for n, u in undef.items():
    for s in sorted(u):
        if s in owner and owner[s] != n:
            arrows[n].setdefault(owner[s], s)

# 1. calls up
ups = 0
for a in sorted(arrows):
    for b, s in sorted(arrows[a].items()):
        if wing[a] in rank and wing[b] in rank and rank[wing[b]] > rank[wing[a]]:
            ups += 1
            failed.append("a call up: %s (%s) -> %s (%s) (%s)" % (a, wing[a], b, wing[b], s))

# 2. callbacks: a file's own function whose address its code takes (lea
# ...(%rip)), and the first call after it in the same function: the one it
# is handed to.  Handed down when that is a function of a lower wing, or
# an operation called through a pointer (a scheme's, say); handed to the C
# library or HDF5 (qsort, H5Pset_...) or kept, it is not.
callbacks, handed = [], []
try:
    for o in objs:
        name = "%s.%s" % (wing_of_obj(o), os.path.basename(o).split("-", 1)[-1][:-2])
        d = subprocess.run(["objdump", "-dr", o], capture_output=True, text=True, check=True).stdout
        local = set(re.findall(r"^[0-9a-f]+ <([\w.]+)>:$", d, re.M))
        for body in re.split(r"\n(?=[0-9a-f]+ <[\w.]+>:\n)", d):
            lines = body.split("\n")
            for k, line in enumerate(lines):
                m = re.search(r"\blea\s+\S*\(%rip\),%\w+\s+# [0-9a-f]+ <([\w.]+)>", line)
                if not m:
                    continue
                f = m.group(1)
                if f not in local or ".arch_" in f or f.endswith(".default") or "_omp_fn" in f:
                    continue
                cb = "%s.%s" % (name, f)
                if cb not in callbacks:
                    callbacks.append(cb)
                to = None
                for nxt in lines[k + 1:]:
                    if re.search(r"\bcall\s+\*", nxt):
                        to = "an operation through a pointer"
                        break
                    if re.search(r"\bcall\s", nxt) or "R_X86_64_PLT32" in nxt:
                        r = re.search(r"R_X86_64_PLT32\s+([\w.]+)-0x4", nxt)
                        if r:
                            t = r.group(1)
                            if t in owner and owner[t] != name and rank.get(wing[owner[t]], 99) < rank.get(wing[name], 99):
                                to = owner[t]
                            break
                        if "R_X86_64_PLT32" not in nxt and "call" in nxt and "<" in nxt and "+0x" not in nxt:
                            break  # a call of a function of the same file
                if to:
                    handed.append((cb, to))
    # a sanitizer build's instrumentation takes functions' addresses and
    # calls its runtime between them: there the callbacks are listed, not judged
    judged = os.environ.get("WITH_SANITIZERS", "no") != "yes"
    for cb, to in sorted(set(handed)):
        if cb not in HANDED_DOWN and judged:
            failed.append("a function handed down at run time: %s, to %s" % (cb, to))
    print("%d callbacks handed over at run time: %s" % (len(callbacks), ", ".join(sorted(callbacks))))
    print("handed down to a lower wing: %s" % (", ".join(
        "%s to %s (%s)" % (cb, to, HANDED_DOWN.get(cb, "NOT LISTED"))
        for cb, to in sorted(set(handed))) or "none"))
except (OSError, subprocess.CalledProcessError):
    print("no objdump: callbacks not checked")

# 3. includes
nlines = {}
for top in ("lib", "solvers"):
    for dirpath, _, files in os.walk(os.path.join(srcdir, top)):
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.relpath(os.path.join(dirpath, f), srcdir)
            w = wing_of_src(path)
            text = open(os.path.join(srcdir, path), encoding="utf-8").read()
            nlines.setdefault(w, [0, 0])
            nlines[w][0] += 1
            nlines[w][1] += text.count("\n")
            for h in re.findall(r'^#include "([^"]+)"', text, re.M):
                if h in ("config.h", "vibro.h"):
                    continue  # the user's types and API, which every wing implements a part of
                here = os.path.join(os.path.dirname(path), h)
                if os.path.exists(os.path.join(srcdir, here)) and "/" not in h:
                    continue  # a header of its own folder
                hw = [x for x, face in FACE.items() if face == h]
                if not hw:
                    failed.append("%s includes \"%s\": not a wing's face (faces: %s)"
                                  % (path, h, ", ".join(FACE.values())))
                elif rank[hw[0]] > rank[w]:
                    failed.append("%s (%s) includes the face of a higher wing, \"%s\""
                                  % (path, w, h))

# 4. circles of files (Tarjan's strongly connected components)
index, low, stack, on, cycles, count = {}, {}, [], set(), [], [0]
sys.setrecursionlimit(10000)
def visit(v):
    index[v] = low[v] = count[0]
    count[0] += 1
    stack.append(v)
    on.add(v)
    for w in arrows[v]:
        if w not in index:
            visit(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop()
            on.discard(w)
            comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            cycles.append(sorted(comp))
for v in sorted(defs):
    if v not in index:
        visit(v)
for c in cycles:
    failed.append("a circle of files: " + ", ".join(c))

for w in ORDER:
    if w in nlines:
        inside = sum(1 for a in arrows if wing[a] == w for b in arrows[a] if wing[b] == w)
        down = sum(1 for a in arrows if wing[a] == w for b in arrows[a] if wing[b] != w)
        print("%-8s %3d files %6d lines  %3d arrows inside, %3d down" % (w, nlines[w][0], nlines[w][1], inside, down))
between = {}
for a in arrows:
    for b in arrows[a]:
        if wing[a] != wing[b]:
            between[(wing[a], wing[b])] = between.get((wing[a], wing[b]), 0) + 1
print("between wings: " + ", ".join("%s->%s %d" % (a, b, n) for (a, b), n in sorted(
    between.items(), key=lambda x: (rank.get(x[0][0], 99), rank.get(x[0][1], 99)))))
print("%d files, %d arrows, %d calls up, %d circles" % (len(defs), sum(len(a) for a in arrows.values()), ups, len(cycles)))
# The check can fail: with the wings' order reversed, the same arrows must
# all run up (every arrow between wings is then a call up).
rev = {w: len(ORDER) - 1 - i for i, w in enumerate(ORDER)}
ups_reversed = sum(1 for a in arrows for b in arrows[a]
                   if wing[a] != wing[b] and rev[wing[b]] > rev[wing[a]])
if ups_reversed != sum(between.values()) or not between:
    failed.append("the check itself: with the order reversed it finds %d calls up of %d "
                  "arrows between wings" % (ups_reversed, sum(between.values())))
for f in failed:
    print("FAIL: " + f)
print("%d passed, %d failed" % (1 - bool(failed), int(bool(failed))))
sys.exit(1 if failed else 0)
PY

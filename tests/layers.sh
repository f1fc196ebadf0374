#!/bin/sh
# layers.sh - no circle of files in the library (issue 11): the graph "file
# A calls a function defined in file B", read with nm from the objects of
# lib/ and solvers/ as built, has no cycle.  A cycle is printed with the
# symbols that make each arrow.  Skipped (77) without nm or the objects.
set -u
python=${PYTHON:-/usr/bin/python3}
command -v nm >/dev/null 2>&1 || { echo "no nm: skipped"; exit 77; }
# the objects of lib/libvibro_all.la (Makefile.am) alone: a tree built before
# it was named so keeps stale libvibro_la-*.o beside them
objs=$(ls lib/.libs/libvibro_all_la-*.o solvers/.libs/lib_libvibro_all_la-*.o 2>/dev/null)
[ -n "$objs" ] || { echo "no library objects in lib/.libs: skipped"; exit 77; }
# shellcheck disable=SC2086
"$python" - $objs <<'PY'
import os, re, subprocess, sys
defs, undef = {}, {}
for o in sys.argv[1:]:
    name = os.path.basename(o).split("-", 1)[-1][:-2]
    d, u = set(), set()
    for line in subprocess.run(["nm", o], capture_output=True, text=True, check=True).stdout.split("\n"):
        f = line.split()
        if len(f) == 3 and f[1] in "TDRB":
            d.add(f[2])
        elif len(f) == 2 and f[0] == "U":
            u.add(f[1])
    defs[name], undef[name] = d, u
owner = {s: n for n, d in defs.items() for s in d}
arrows = {n: {} for n in defs}
for n, u in undef.items():
    for s in sorted(u):
        if s in owner and owner[s] != n:
            arrows[n].setdefault(owner[s], s)
# Tarjan's strongly connected components
index, low, stack, on, cycles, count = {}, {}, [], set(), [], [0]
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
    print("FAIL: a circle of files: " + ", ".join(c))
    for a in c:
        for b in c:
            if b in arrows[a]:
                print("  %s -> %s (%s)" % (a, b, arrows[a][b]))
print("%d files, %d arrows, %d circles" % (len(defs), sum(len(a) for a in arrows.values()), len(cycles)))
# What the arrows cannot show (printed, not judged): a function whose address
# its own file's code takes (lea ...(%rip) in objdump -d) is handed over at
# run time and called back through a pointer (a sort comparator, an OpenMP
# body, a residual for Newton).  A table of pointers named by another file
# (the registry's schemes, the writer's columns) is an arrow above already.
callbacks = []
try:
    for o in sys.argv[1:]:
        name = os.path.basename(o).split("-", 1)[-1][:-2]
        d = subprocess.run(["objdump", "-d", o], capture_output=True, text=True, check=True).stdout
        local = set(re.findall(r"^[0-9a-f]+ <([\w.]+)>:$", d, re.M))
        for f in sorted(set(re.findall(r"\blea\s+\S*\(%rip\),%\w+\s+# [0-9a-f]+ <([\w.]+)>", d))):
            if f in local and ".arch_" not in f and not f.endswith(".default"):
                callbacks.append("%s.%s" % (name, f))
    print("%d callbacks handed over at run time: %s" % (len(callbacks), ", ".join(callbacks)))
except (OSError, subprocess.CalledProcessError):
    print("no objdump: callbacks not listed")
print("%d passed, %d failed" % (1 - (len(cycles) > 0), int(len(cycles) > 0)))
sys.exit(1 if cycles else 0)
PY

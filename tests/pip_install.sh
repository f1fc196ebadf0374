#!/bin/sh
# pip_install.sh - the Python package carries its engine (issue 31 item 1):
# `pip install ./python` into a fresh virtual environment, offline
# (--no-build-isolation --no-deps --no-index), leaves nothing in the source
# tree (no build/, no vibro.egg-info/) and gives a package that runs
# vibro.simulate and vibro.run in-process, from another directory, with
# $VIBRO_LIB, $VIBRO and PYTHONPATH unset, no vibro on PATH and every
# subprocess call made to fail; the same from a wheel made by `pip wheel`,
# in another environment and under the system Python (pip --target);
# under another interpreter (pyenv's) in a venv of its own;
# `pip install -e` imports the source tree's package.
# Without its library the package names the one thing to do.  Run by make
# check; skipped without venv, pip, setuptools and wheel.
set -u
# A sanitizer build's libvibro cannot be loaded by an uninstrumented Python
# without the sanitizers' runtimes preloaded into every process it starts
# (pip, the compiler, make): the package in-process under the sanitizers is
# tests/python.sh's, which preloads them.
if [ "${WITH_SANITIZERS:-no}" = yes ]; then echo "SKIP: a sanitizer build (tests/python.sh loads it)"; exit 77; fi
srcdir=$(cd "${srcdir:-.}" && pwd)
build=${abs_top_builddir:-$PWD}
python=${PYTHON:-/usr/bin/python3}
for m in venv pip setuptools wheel numpy h5py pandas xarray; do
  "$python" -c "import $m" 2>/dev/null || { echo "SKIP: $python lacks $m"; exit 77; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vibro-pip.XXXXXX")
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
. "$srcdir/tests/testlib.sh"

# The build tree's library, when it is not the source tree (a VPATH build:
# pip's backend would configure and make the sources afresh otherwise)
settings=
[ -f "$srcdir/config.status" ] || settings="--config-settings=build-dir=$build"
pipflags="--no-build-isolation --no-deps --no-index --disable-pip-version-check --quiet"

# What a user runs, checked with no way out of the process: every
# subprocess call fails, nothing names a library or a program
cat >"$tmp/inprocess.py" <<'PY'
import os, subprocess, sys
# the dependencies first: Debian's pandas runs `uname -p` when imported
import numpy, h5py, pandas, xarray


def refuse(*args, **kwargs):
    raise RuntimeError("a subprocess was started: %r" % (args[-1:],))


subprocess.Popen.__init__ = refuse
for name in ("system", "popen", "posix_spawn", "posix_spawnp", "fork", "forkpty", "execv",
             "execve", "execvp", "execvpe", "spawnv", "spawnve"):
    if hasattr(os, name):
        setattr(os, name, refuse)

import vibro
from vibro import _lib

hammer = {
    "scene": {"name": "hammer", "fs": 44100.0, "duration": 0.002, "gravity": 0.0},
    "bodies": [{"name": "hammer", "type": "mass", "mass": 0.01, "u0": 0.0, "v0": 1.0},
               {"name": "wall", "type": "wall", "position": 0.0}],
    "contacts": [{"name": "hit", "between": ["hammer", "wall"], "law": "hunt-crossley",
                  "k": 1.0e9, "alpha": 1.5, "mu": 0.5, "scheme": "am1"}],
}
here = os.path.dirname(vibro.__file__)
assert _lib.library()._name == os.path.join(here, "libvibro.so.0"), _lib.library()._name
sim = vibro.simulate(hammer)
study = dict(hammer, sweep={"mode": "grid", "params": [
    {"path": "contacts.hit.mu", "values": [0.2, 0.35, 0.5]}]})
st = vibro.run(study, "out.h5")
print(here, sim.status, len(sim.events), len(st.table), st.format)
PY
# run_inprocess PYTHON [SITE]: the script above in an empty directory
run_inprocess() {
  rm -rf "$tmp/elsewhere" && mkdir "$tmp/elsewhere" "$tmp/elsewhere/bin" 2>/dev/null
  (cd "$tmp/elsewhere" && env -u VIBRO_LIB -u VIBRO -u PYTHONPATH PATH="$tmp/elsewhere/bin" \
    ${2:+PYTHONPATH="$2"} "$1" "$tmp/inprocess.py") >"$tmp/out" 2>"$tmp/err"
}
listing() { (cd "$srcdir/python" && find . -name __pycache__ -prune -o -print | sort); }

before=$(listing)
expect 0 "$python" -m venv --system-site-packages "$tmp/venv"
expect 0 "$tmp/venv/bin/python" -m pip install $pipflags $settings "$srcdir/python"
equal "files pip install left in python/" "$(listing)" "$before"
[ -e "$srcdir/python/build" ] || [ -e "$srcdir/python/vibro.egg-info" ] &&
  bad "pip install left build/ or vibro.egg-info/ in $srcdir/python" || ok
run_inprocess "$tmp/venv/bin/python" && ok || bad "the venv's package: $(cat "$tmp/err")"
site=$("$tmp/venv/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
platsite=$("$tmp/venv/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['platlib'])")
case $(cat "$tmp/out") in
  "$site/vibro done 1 3 vibro-3"|"$platsite/vibro done 1 3 vibro-3") ok ;;
  *) bad "the venv's package ran: '$(cat "$tmp/out")'" ;;
esac

# the notebooks headless, as doc/python.md says: the venv's kernel
# registered (here under JUPYTER_PATH instead of --user), jupyter-execute
# with it; the kernel is the venv's Python and imports the venv's package
if command -v jupyter-execute >/dev/null 2>&1 &&
    "$tmp/venv/bin/python" -c "import ipykernel, nbformat" 2>/dev/null; then
  expect 0 "$tmp/venv/bin/python" -m ipykernel install --prefix "$tmp/jupyter" --name vibro-venv
  mkdir -p "$tmp/nb/examples" && ln -s "$srcdir/scenes" "$tmp/nb/scenes"
  cp "$srcdir/examples/listen.ipynb" "$tmp/nb/examples/"
  "$python" -c "
import nbformat, sys
nb = nbformat.v4.new_notebook()
nb.cells = [nbformat.v4.new_code_cell('import os, sys, vibro\\n'
    'assert sys.prefix == os.environ[\"WANT_PREFIX\"], sys.prefix\\n'
    'assert vibro.__file__.startswith(sys.prefix), vibro.__file__\\n'
    'assert vibro._lib.library()._name.startswith(sys.prefix)')]
nbformat.write(nb, sys.argv[1])" "$tmp/nb/examples/where.ipynb"
  for nb in where listen; do
    (cd "$tmp/nb/examples" && env -u VIBRO_LIB -u VIBRO -u PYTHONPATH WANT_PREFIX="$tmp/venv" \
      JUPYTER_PATH="$tmp/jupyter/share/jupyter" VIBRO_QUICK=1 \
      jupyter-execute --kernel_name=vibro-venv $nb.ipynb) >"$tmp/out" 2>&1 &&
      ok || bad "the notebook $nb.ipynb headless in the venv's kernel: $(tail -n 5 "$tmp/out")"
  done
else
  echo "SKIP (phase): no jupyter-execute or ipykernel (python3-nbclient, python3-ipykernel)"
fi

# a wheel: for this platform, any Python 3, holding the library
expect 0 "$tmp/venv/bin/python" -m pip wheel $pipflags $settings -w "$tmp/wheels" "$srcdir/python"
equal "files pip wheel left in python/" "$(listing)" "$before"
wheel=$(ls "$tmp/wheels"/vibro-*.whl 2>/dev/null | head -n 1)
case $wheel in */vibro-*-py3-none-linux_*.whl) ok ;; *) bad "the wheel: '$wheel'" ;; esac
"$python" -c "import sys, zipfile; sys.exit('vibro/libvibro.so.0' not in zipfile.ZipFile(sys.argv[1]).namelist())" \
  "$wheel" && ok || bad "$wheel holds no vibro/libvibro.so.0"
# (without a pip of its own: the system's, through the system site path)
expect 0 "$python" -m venv --system-site-packages --without-pip "$tmp/venv2"
expect 0 "$tmp/venv2/bin/python" -m pip install $pipflags "$wheel"
run_inprocess "$tmp/venv2/bin/python" && ok || bad "the wheel's package: $(cat "$tmp/err")"
contains "$tmp/out" " done 1 3 vibro-3"

# the wheel under the system Python, in a directory of its own
expect 0 "$python" -m pip install $pipflags --target "$tmp/site" "$wheel"
run_inprocess "$python" "$tmp/site" && ok || bad "the system Python's package: $(cat "$tmp/err")"
equal "the system Python's package ran" "$(cat "$tmp/out")" "$tmp/site/vibro done 1 3 vibro-3"

# editable (pip install -e): the source tree's package, its build tree's
# library (when the tree is built in place), nothing written into python/
expect 0 "$python" -m venv --system-site-packages --without-pip "$tmp/venv3"
expect 0 "$tmp/venv3/bin/python" -m pip install $pipflags -e "$srcdir/python"
equal "files pip install -e left in python/" "$(listing)" "$before"
if [ -f "$srcdir/config.status" ]; then
  (cd "$tmp" && env -u VIBRO_LIB -u PYTHONPATH "$tmp/venv3/bin/python" -c "
import vibro
from vibro import _lib
print(vibro.__file__, _lib.library()._name)") >"$tmp/out" 2>"$tmp/err"
  equal "the editable package" "$(cat "$tmp/out")" \
    "$srcdir/python/vibro/__init__.py $srcdir/lib/.libs/libvibro.so.0"
fi

# another interpreter (pyenv's, the python3 first on PATH on this kind of
# machine): a venv of its own, pip and wheel only from Debian's offline
# wheels (python3-wheel-whl), the package built and installed by that pip;
# it runs with the system's numpy and h5py on PYTHONPATH (the same CPython
# minor version: nothing else offers them offline), its engine the one its
# pip install put in the package
other=
for cand in $(command -v -a python3 2>/dev/null) $HOME/.pyenv/shims/python3; do
  [ -x "$cand" ] || continue
  exe=$("$cand" -c "import sys; print(sys.executable)" 2>/dev/null) || continue
  [ "$(readlink -f "$exe")" = "$(readlink -f "$python")" ] && continue
  other=$exe; break
done
wheels=/usr/share/python-wheels
same=$("$python" -c "import sys; print('%d.%d' % sys.version_info[:2])")
if [ -z "$other" ]; then
  echo "SKIP (phase): no Python 3 besides $python on PATH"
elif [ "$("$other" -c "import sys; print('%d.%d' % sys.version_info[:2])")" != "$same" ]; then
  echo "SKIP (phase): $other is not Python $same (the system's numpy would not load in it)"
elif ! ls "$wheels"/wheel-*.whl >/dev/null 2>&1; then
  echo "SKIP (phase): no $wheels/wheel-*.whl (Debian's python3-wheel-whl)"
else
  expect 0 "$other" -m venv "$tmp/venv4"
  expect 0 "$tmp/venv4/bin/python" -m pip install --quiet --no-index --find-links "$wheels" wheel setuptools
  expect 0 "$tmp/venv4/bin/python" -m pip install $pipflags $settings "$srcdir/python"
  equal "files the other Python's pip install left in python/" "$(listing)" "$before"
  site4=$("$tmp/venv4/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['platlib'])")
  sysdist=$("$python" -c "import numpy, os; print(os.path.dirname(os.path.dirname(numpy.__file__)))")
  run_inprocess "$tmp/venv4/bin/python" "$sysdist" && ok || bad "$other's venv's package: $(cat "$tmp/err")"
  equal "$other's venv's package ran" "$(cat "$tmp/out")" "$site4/vibro done 1 3 vibro-3"
fi

# without its library: one thing to do, not a list of places
rm -f "$tmp/site/vibro/libvibro.so.0"
(cd "$tmp" && env -u VIBRO_LIB PYTHONPATH="$tmp/site" "$python" -c "
import vibro
try:
    vibro.simulate({})
except vibro.VibroError as e:
    print(e)") >"$tmp/out" 2>"$tmp/err"
contains "$tmp/out" "no libvibro for the vibro package in $tmp/site/vibro: install the package with its engine: python -m pip install ./python, in a vibro source tree (tried the package, $tmp/site/vibro/libvibro.so.0: none;"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

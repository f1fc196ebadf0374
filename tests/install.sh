#!/bin/sh
# install.sh - make install into a temporary prefix: the installed vibro
# runs without LD_LIBRARY_PATH (and does not reach into the build tree),
# the README, the scenes and the man pages are installed, an installed
# scene runs, and make uninstall removes it all.  Run by make check.
set -u
srcdir=$(cd "${srcdir:-.}" && pwd)
build=${abs_top_builddir:-$PWD}
make=${MAKE:-make}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vibro-install.XXXXXX")
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
. "$srcdir/tests/testlib.sh"

prefix="$tmp/prefix"
(cd "$build" && $make install prefix="$prefix") >"$tmp/make.out" 2>&1 && ok ||
  { bad "make install: $(tail -n 20 "$tmp/make.out")"; echo "$pass passed, $fail failed"; exit 1; }
doc="$prefix/share/doc/vibro"
for f in bin/vibro bin/vibro-plot share/man/man1/vibro.1 share/doc/vibro/README.md \
         share/doc/vibro/format.md share/doc/vibro/examples/papetti_fig8.py \
         share/doc/vibro/scenes/papetti-case-b.cfg share/doc/vibro/scenes/README.md \
         share/doc/vibro/scenes/rolling-profile.txt include/vibro.h lib/pkgconfig/vibro.pc; do
  [ -e "$prefix/$f" ] && ok || bad "make install did not install $f"
done
ncfg=$(ls "$srcdir"/scenes/*.cfg | wc -l)
equal "installed scenes" "$(ls "$doc"/scenes/*.cfg | wc -l)" "$ncfg"

equal "installed examples" "$(ls "$doc"/examples/*.py | wc -l)" "$(ls "$srcdir"/examples/*.py | wc -l)"

# the installed program runs from anywhere with a clean environment, and
# names no directory of the build tree
cd "$tmp"
expect 0 env -u LD_LIBRARY_PATH PATH=/usr/bin:/bin "$prefix/bin/vibro" --version
contains "$tmp/out" "vibro "
expect 0 env -u LD_LIBRARY_PATH PATH=/usr/bin:/bin "$prefix/bin/vibro" \
  run "$doc/scenes/papetti-case-b.cfg" -o "$tmp/b.h5" --quiet
[ -f "$tmp/b.h5" ] && ok || bad "the installed vibro wrote no output"
expect 0 env -u LD_LIBRARY_PATH "$prefix/bin/vibro" run "$doc/scenes/rolling-ball.cfg" \
  -o "$tmp/r.h5" --quiet
if command -v readelf >/dev/null; then
  readelf -d "$prefix/bin/vibro" >"$tmp/dyn"
  grep -q "$build" "$tmp/dyn" && bad "installed vibro has the build tree in its run path" || ok
  grep -q "libvibro" "$tmp/dyn" && ldd "$prefix/bin/vibro" | grep -q "libvibro.*not found" &&
    bad "installed vibro cannot find libvibro" || ok
fi

# vibro-plot finds its package wherever it is put, with no PYTHONPATH:
# installed under this prefix (not configure's), in a copied source tree
# (tools/ beside python/), and alone it names where it looked
python=${PYTHON:-/usr/bin/python3}
if "$python" -c "import h5py, matplotlib, pandas, xarray" 2>/dev/null; then
  expect 0 env -u PYTHONPATH "$prefix/bin/vibro-plot" energy "$tmp/b.h5" -o "$tmp/installed.png"
  [ -s "$tmp/installed.png" ] && ok || bad "the installed vibro-plot drew nothing"
  mkdir -p "$tmp/moved/tools" "$tmp/moved/python"
  cp "$build/tools/vibro-plot" "$tmp/moved/tools/" && cp -R "$srcdir/python/vibro" "$tmp/moved/python/"
  expect 0 env -u PYTHONPATH "$tmp/moved/tools/vibro-plot" energy "$tmp/b.h5" -o "$tmp/moved.png"
  [ -s "$tmp/moved.png" ] && ok || bad "a copied tree's vibro-plot drew nothing"
  mkdir -p "$tmp/lone/bin" && cp "$build/tools/vibro-plot" "$tmp/lone/bin/"
  # (unless this machine's Python has a vibro installed where it looks:
  # configure's pythondir after a `make install`, or its own site path)
  if (cd "$tmp/lone" && env -u PYTHONPATH "$python" -c "import vibro" 2>/dev/null) ||
     [ -d "$(sed -n 's/^    return dirs + \["\(.*\)"\]$/\1/p' "$build/tools/vibro-plot")/vibro" ]; then
    echo "SKIP: a vibro package is installed for $python: the lone vibro-plot would find it"
  else
    expect 1 env -u PYTHONPATH "$tmp/lone/bin/vibro-plot" energy "$tmp/b.h5" -o "$tmp/lone.png"
    contains "$tmp/err" "vibro-plot: the vibro Python package is in none of $tmp/lone/python"
  fi
  # the installed package loads the libvibro installed with it (the
  # prefix's libdir, which make install records beside the package), with
  # no variable set; pip installs are tests/pip_install.sh's
  # (not in a sanitizer build: an uninstrumented Python cannot load its
  # library without the runtimes preloaded, which tests/python.sh does)
  site=$(dirname "$(dirname "$(find "$prefix" -path '*/vibro/__init__.py' | head -n 1)")")
  [ "${WITH_SANITIZERS:-no}" = yes ] || expect 0 env -u PYTHONPATH -u VIBRO_LIB PYTHONDONTWRITEBYTECODE=1 "$python" -c "
import sys; sys.path.insert(0, '$site')
import vibro
from vibro import _lib
print(vibro.__file__.startswith('$prefix/'), _lib.library()._name)"
  [ "${WITH_SANITIZERS:-no}" = yes ] ||
    equal "the installed package's libvibro" "$(cat "$tmp/out")" "True $prefix/lib/libvibro.so.0"
else
  echo "SKIP: $python lacks h5py, matplotlib, pandas or xarray: vibro-plot's install not tried"
fi

(cd "$build" && $make uninstall prefix="$prefix") >"$tmp/make.out" 2>&1 && ok ||
  bad "make uninstall: $(tail -n 20 "$tmp/make.out")"
left=$(find "$prefix" -type f | head -n 5)
equal "files left after uninstall" "$left" ""

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

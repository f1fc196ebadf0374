#!/bin/sh
# install.sh - make install into a temporary prefix: the installed vibro
# runs without LD_LIBRARY_PATH (and does not reach into the build tree),
# the README, the scenes and the man pages are installed, an installed
# scene runs, and make uninstall removes it all.  Run by make check.
set -u
srcdir=${srcdir:-.}
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
         share/doc/vibro/scenes/papetti-case-b.cfg share/doc/vibro/scenes/README.md \
         share/doc/vibro/scenes/rolling-profile.txt include/vibro.h lib/pkgconfig/vibro.pc; do
  [ -e "$prefix/$f" ] && ok || bad "make install did not install $f"
done
ncfg=$(ls "$srcdir"/scenes/*.cfg | wc -l)
equal() { if [ "$2" = "$3" ]; then ok; else bad "$1: got '$2', expected '$3'"; fi; }
equal "installed scenes" "$(ls "$doc"/scenes/*.cfg | wc -l)" "$ncfg"

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

(cd "$build" && $make uninstall prefix="$prefix") >"$tmp/make.out" 2>&1 && ok ||
  bad "make uninstall: $(tail -n 20 "$tmp/make.out")"
left=$(find "$prefix" -type f | head -n 5)
equal "files left after uninstall" "$left" ""

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

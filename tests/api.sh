#!/bin/sh
# api.sh - the installed headers are the user's API, and only it (issue 17
# item 5): `make install` puts lib/vibro.h alone under include/; the
# functions the installed headers declare are exactly the symbols the
# installed libvibro.so exports (the library is built with hidden
# visibility, Makefile.am); and an outside program that takes the address
# of every exported symbol compiles against the installed headers alone,
# links against the installed library and runs.  Skipped (77) without nm.
set -u
srcdir=$(cd "${srcdir:-.}" && pwd)
build=${abs_top_builddir:-$PWD}
make=${MAKE:-make}
cc=${CC:-cc}
command -v nm >/dev/null 2>&1 || { echo "no nm: skipped"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vibro-api.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$srcdir/tests/testlib.sh"

prefix="$tmp/prefix"
(cd "$build" && $make install-includeHEADERS install-libLTLIBRARIES prefix="$prefix") \
  >"$tmp/make.out" 2>&1 && ok ||
  { bad "make install: $(tail -n 20 "$tmp/make.out")"; echo "$pass passed, $fail failed"; exit 1; }
so="$prefix/lib/libvibro.so"
[ -e "$so" ] && ok || bad "make install did not install lib/libvibro.so"
equal "installed headers" "$(cd "$prefix/include" && ls | tr '\n' ' ')" "vibro.h "

# the functions the installed headers declare (after the preprocessor: no
# comments; a member `(*name)(` is a function pointer, not a declaration)
for h in "$prefix"/include/*.h; do
  printf '#include <%s>\n' "$(basename "$h")"
done >"$tmp/all.c"
"$cc" -E -P -I"$prefix/include" "$tmp/all.c" >"$tmp/all.i" 2>"$tmp/err" && ok ||
  bad "the installed headers do not preprocess: $(cat "$tmp/err")"
grep -oE '\(?\*?[A-Za-z_][A-Za-z0-9_]* *\(' "$tmp/all.i" | grep -v '^(\*' |
  sed 's/[(* ]//g' | grep -E '^vb_' | sort -u >"$tmp/declared"
# the symbols the installed library exports (defined, dynamic)
nm -D --defined-only "$so" | awk '{print $NF}' | sort -u >"$tmp/exported"
[ -s "$tmp/declared" ] && [ -s "$tmp/exported" ] && ok || bad "no declarations or no exports"
comm -13 "$tmp/declared" "$tmp/exported" >"$tmp/internal"
comm -23 "$tmp/declared" "$tmp/exported" >"$tmp/missing"
[ -s "$tmp/internal" ] && bad "libvibro.so exports symbols no installed header declares" \
  "(internal: declare them in an internal header, hidden): $(tr '\n' ' ' <"$tmp/internal")" || ok
[ -s "$tmp/missing" ] && bad "installed headers declare symbols libvibro.so does not export" \
  "(internal calls in a public header, or dead declarations): $(tr '\n' ' ' <"$tmp/missing")" || ok
echo "$(wc -l <"$tmp/declared") functions declared, $(wc -l <"$tmp/exported") symbols exported"

# an outside program: the installed headers alone (no -I into the source
# tree), every exported symbol by name, linked against the installed library
if [ "${WITH_SANITIZERS:-no}" = yes ]; then
  echo "SKIP: the outside program (a sanitizer build's library needs its runtime)"
else
  {
    for h in "$prefix"/include/*.h; do printf '#include <%s>\n' "$(basename "$h")"; done
    echo '#include <stdio.h>'
    echo 'static void (*const api[])(void) = {'
    sed 's/.*/  (void (*)(void))&,/' "$tmp/exported"
    echo '};'
    printf '%s\n' 'int main(void) { printf("%s %zu\n", vb_version(), sizeof api / sizeof *api); return 0; }'
  } >"$tmp/outside.c"
  expect 0 "$cc" -std=c99 -Wall -Wextra -Werror \
    -I"$prefix/include" "$tmp/outside.c" -o "$tmp/outside" -L"$prefix/lib" -lvibro
  expect 0 env LD_LIBRARY_PATH="$prefix/lib" "$tmp/outside"
  contains "$tmp/out" " $(wc -l <"$tmp/exported")"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

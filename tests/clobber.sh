#!/bin/sh
# clobber.sh - vibro run never destroys a file the user has (outside review
# of session 8): the output may not be a file the scene reads, found by
# what the load read (a preset's `frequencies` and `initial` files were
# missed by a scan of the scene text and overwritten with exit 0), and an
# existing file that is not a vibro output (a text file, another
# program's HDF5 file) is refused and left byte for byte as it was, while
# an earlier vibro output or an empty file is replaced as before.  Run by
# make check.
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vibro-clobber.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$srcdir/tests/testlib.sh"

# the fretted bass for 1 ms: a frequencies file, an initial file and a
# points/profile file, all read through the preset and the contact
for f in bass-fretted.cfg bass-fretted-modes.csv bass-fretted-pluck.csv bass-frets.csv; do
  cp "$srcdir/scenes/$f" "$tmp/$f"
done
sed -i 's/duration = 0.1;/duration = 0.001;/' "$tmp/bass-fretted.cfg"
cd "$tmp" || exit 1
sums() { cksum bass-fretted.cfg bass-fretted-modes.csv bass-fretted-pluck.csv bass-frets.csv; }
before=$(sums)

# (the message names the input as the scene names it)
for f in bass-fretted-modes.csv ./bass-fretted-pluck.csv "$tmp/bass-frets.csv"; do
  error "$f: is the input ${f##*/}; refusing to overwrite it" \
    "$vibro" run bass-fretted.cfg -o "$f" --quiet
done
# a hard link to an input is the input too (compared by inode)
ln bass-fretted-modes.csv link.h5
error "link.h5: is the input bass-fretted-modes.csv; refusing to overwrite it" \
  "$vibro" run bass-fretted.cfg -o link.h5 --quiet
equal "inputs after the refused runs" "$(sums)" "$before"

# files that are not vibro outputs: refused, kept byte for byte
printf 'my notes\n' >notes.txt
printf '\211HDF\r\n\032\nnot really' >fake.h5
for f in notes.txt fake.h5; do
  sum=$(cksum <"$f")
  expect 1 "$vibro" run bass-fretted.cfg -o "$f" --quiet
  contains "$tmp/err" "$f: exists and is not a vibro output ("
  contains "$tmp/err" "refusing to replace it (valid: a new name, a vibro output, or remove the file first)"
  equal "$f after the refused run" "$(cksum <"$f")" "$sum"
  expect 1 "$vibro" run bass-fretted.cfg -o "$f" --quiet --resume
  equal "$f after the refused resume" "$(cksum <"$f")" "$sum"
  [ ! -e "$f.part" ] && ok || bad "$f.part left behind"
done

# an empty file (mktemp) and an earlier vibro output are replaced
: >empty.h5
expect 0 "$vibro" run bass-fretted.cfg -o empty.h5 --quiet
[ -s empty.h5 ] && ok || bad "empty.h5 not written"
expect 0 "$vibro" run bass-fretted.cfg -o empty.h5 --quiet
# another program's HDF5 file: a vibro output made foreign by a copy
# whose signature holds but whose content is not vibro's
head -c 4096 empty.h5 >cut.h5
sum=$(cksum <cut.h5)
expect 1 "$vibro" run bass-fretted.cfg -o cut.h5 --quiet
contains "$tmp/err" "cut.h5: exists and is not a vibro output (an HDF5 file"
equal "cut.h5 after the refused run" "$(cksum <cut.h5)" "$sum"

echo "clobber.sh: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

#!/bin/sh
# triage.sh - where each crash of the reader fuzz is (tests/fuzz/README.md):
#
#     tests/fuzz/triage.sh tests/fuzz/kept/failures.txt tests/fuzz/kept VIBRO [PYTHONPATH]
#
# For every "crash" line of failures.txt (NAME K READER: crash ...), runs
# READER (info, events, or the Python package) on DIR/NAME-K.h5 under gdb
# (the reads of readers.py) and prints the crash's innermost frame that is not the C library's
# (malloc, memcpy, abort), the first HDF5 API call on the stack, and the
# first frame of vibro's own code (tools/*.c, lib/*.c) or of h5py, then a
# count per innermost function: "libhdf5" when it is an H5 function.
set -u
failures=$1 dir=$2 vibro=$3 pypath=${4:-python}
python=${PYTHON:-/usr/bin/python3}
command -v gdb >/dev/null || { echo "triage.sh needs gdb"; exit 77; }
bt=$(mktemp "${TMPDIR:-/tmp}/vibro-triage.XXXXXX")
out=$(mktemp "${TMPDIR:-/tmp}/vibro-triage.XXXXXX")
trap 'rm -f "$bt" "$out"' EXIT
grep ': crash ' "$failures" | while read -r name k reader rest; do
  reader=${reader%:}
  f="$dir/$name-$k.h5"
  [ -f "$f" ] || continue
  if [ "$reader" = python ]; then
    PYTHONPATH=$pypath:$(dirname "$0") gdb -q -batch -ex run -ex bt --args "$python" -c \
      "import sys, readers; readers.python_reads(sys.argv[1])" "$f" >"$bt" 2>&1 </dev/null
  else
    gdb -q -batch -ex run -ex bt --args "$vibro" "$reader" "$f" >"$bt" 2>&1 </dev/null
  fi
  frames=$(grep -E '^#[0-9]' "$bt" | sed -E 's/^#[0-9]+ +(0x[0-9a-f]+ in )?//; s/ \(.*//')
  inner=$(echo "$frames" | grep -vE '^(__|_int_|malloc|free|raise|abort|memcpy|memmove|cfree|__libc)' | head -n 1)
  api=$(echo "$frames" | grep -E '^H5[A-Z][a-z]*[a-z0-9_]*$' | grep -vE '^H5[A-Z]+_' | head -n 1)
  ours=$(grep -oE 'at (tools|lib)/[a-z0-9_]+\.c:[0-9]+|h5py/[^ ]*' "$bt" | head -n 1)
  case $inner in
    H5*) where=libhdf5 ;;
    "") where=unknown ;;
    *) where=other ;;
  esac
  echo "$name-$k $reader: $where $inner <- ${api:-?} <- ${ours:-?}" | tee -a "$out"
done
echo "crashes by innermost function:"
awk '{ print $3, $4 }' "$out" | sort | uniq -c | sort -rn

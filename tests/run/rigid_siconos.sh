#!/bin/sh
# rigid_siconos.sh - the rigid law under moreau-jean against Siconos's
# Moreau-Jean (tests/run/rigid_siconos.py, doc/rigid.md); skipped where
# python3-siconos is not installed.  Run by make check.
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-$PWD/tools/vibro}
python=${PYTHON:-/usr/bin/python3}
if ! "$python" -c 'import siconos.kernel, h5py, numpy' 2>/dev/null; then
  echo "SKIP: $python lacks siconos (python3-siconos), h5py or numpy"
  exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vibro-siconos.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$python" "$srcdir/tests/run/rigid_siconos.py" "$vibro" "$tmp"

#!/bin/sh
# genscene.sh - random valid scenes of what tests/random_scene leaves out
# (tests/random/genscene.py: the modal presets, measured modes, distributed
# contacts, contacts between modal bodies, sav, exact_duration, sweeps of
# every spec and mode) through `vibro check` and `vibro run -j 1` and
# `-j 2` (tests/random/drive.py: exit codes and messages, no NaN in a
# finished scene, energy balance of the conserving schemes, -j 1 = -j 2),
# and a few of them killed (SIGKILL) at a random moment and resumed.
# VIBRO_GENSCENES (default 12) scenes from seed VIBRO_GENSCENE_SEED
# (default 1).  A failure prints the seed and the scene;
# `tests/random/genscene.py SEED DIR` writes it again.
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
python=/usr/bin/python3
if ! "$python" -c 'import numpy, h5py' 2>/dev/null; then
  echo "SKIP: $python lacks numpy or h5py"
  exit 77
fi
command -v h5diff >/dev/null || { echo "SKIP: no h5diff"; exit 77; }
n=${VIBRO_GENSCENES:-12}
seed=${VIBRO_GENSCENE_SEED:-1}
fail=0
"$python" "$srcdir/tests/random/drive.py" "$vibro" "$seed" "$n" --jobs || fail=1
"$python" "$srcdir/tests/random/drive.py" "$vibro" 1001 3 --kill || fail=1
exit $fail

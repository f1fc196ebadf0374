#!/bin/sh
# mpi.sh - with ./configure --with-mpi: a study under mpirun with 2 ranks
# gives the same file as a single process.  Skipped (77) otherwise.
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
[ "${WITH_MPI:-no}" = yes ] || { echo "not built --with-mpi: skipped"; exit 77; }
command -v mpirun >/dev/null && command -v h5diff >/dev/null || { echo "no mpirun/h5diff"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vibro-mpi.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$srcdir/tests/testlib.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
study="$srcdir/scenes/papetti-sweep.cfg"

"$vibro" run "$study" -o "$tmp/serial.h5" -j 1 --quiet && ok || bad "serial run failed"
mpirun -np 2 --oversubscribe "$vibro" run "$study" -o "$tmp/mpi.h5" -j 1 --quiet \
  >"$tmp/out" 2>&1 && ok || bad "mpirun failed: $(cat "$tmp/out")"
h5diff "$tmp/serial.h5" "$tmp/mpi.h5" >"$tmp/diff" 2>&1 && ok || bad "2 ranks differ from 1: $(head "$tmp/diff")"
ls -d "$tmp"/mpi.h5.* >/dev/null 2>&1 && bad "shards left: $(ls -d "$tmp"/mpi.h5.*)" || ok
# 2 ranks x 2 threads
mpirun -np 2 --oversubscribe "$vibro" run "$study" -o "$tmp/mpi2.h5" -j 2 --quiet \
  >"$tmp/out" 2>&1 && ok || bad "mpirun -j 2 failed: $(cat "$tmp/out")"
h5diff "$tmp/serial.h5" "$tmp/mpi2.h5" >/dev/null 2>&1 && ok || bad "2 ranks x 2 threads differ"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

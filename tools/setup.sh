#!/bin/sh
# Set up vibro on a Debian 12 machine: install what is missing (apt-get),
# then build in the source tree.  Safe to run again; installs nothing that
# is already there.  Usage: tools/setup.sh [--with-mpi]
# --with-mpi also installs OpenMPI (openmpi-bin, libopenmpi-dev) and builds
# vibro with MPI, so that `mpirun vibro run` spreads a study over ranks.
set -eu
cd "$(dirname "$0")/.."

mpi=no
for arg in "$@"; do
  case $arg in
    --with-mpi) mpi=yes ;;
    *) echo "setup: unknown option '$arg' (valid: --with-mpi)" >&2; exit 1 ;;
  esac
done

packages="gcc make autoconf automake libtool pkg-config
  libhdf5-dev hdf5-tools libconfig-dev check zlib1g-dev libisal-dev libsndfile1-dev
  liblapacke-dev
  python3 python3-h5py python3-matplotlib python3-numpy
  python3-pandas python3-xarray python3-h5netcdf python3-pytest
  python3-setuptools python3-wheel python3-wheel-whl python3-pip python3-venv python3-scipy sox
  python3-nbclient python3-nbformat python3-ipykernel"
[ "$mpi" = yes ] && packages="$packages openmpi-bin libopenmpi-dev"

missing=""
for p in $packages; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done

if [ -n "$missing" ]; then
  echo "setup: installing:$missing"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
else
  echo "setup: all dependencies present"
fi

[ -x configure ] && [ configure -nt configure.ac ] || autoreconf -fi
if [ "$mpi" = yes ]; then
  grep -q '^WITH_MPI = yes' Makefile 2>/dev/null && [ config.status -nt configure ] ||
    ./configure --quiet --with-mpi
else
  [ -f Makefile ] && [ config.status -nt configure ] || ./configure --quiet
fi
make -j"$(nproc 2>/dev/null || echo 2)"
echo "setup: built tools/vibro"

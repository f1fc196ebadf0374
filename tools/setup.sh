#!/bin/sh
# Set up vibro on a Debian 12 machine: install what is missing (apt-get),
# then build in the source tree.  Safe to run again; installs nothing that
# is already there.  Usage: tools/setup.sh
set -eu
cd "$(dirname "$0")/.."

packages="gcc make autoconf automake libtool pkg-config
  libhdf5-dev hdf5-tools libconfig-dev check
  python3 python3-h5py python3-matplotlib python3-numpy"

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
[ -f Makefile ] && [ config.status -nt configure ] || ./configure --quiet
make -j"$(nproc 2>/dev/null || echo 2)"
echo "setup: built tools/vibro"

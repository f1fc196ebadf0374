#!/bin/sh
# python.sh - the vibro Python package's pytest suite (python/tests: every
# call of the package on small studies run here, vibro-plot's new kinds,
# the examples in their reduced form).  Run by make check.  Exit 77 (skip)
# only when the Python lacks a module the package needs, saying which.
set -u
srcdir=${srcdir:-.}
python=${PYTHON:-/usr/bin/python3}
for m in numpy h5py pandas xarray matplotlib pytest; do
  if ! "$python" -c "import $m" 2>/dev/null; then
    echo "SKIP: $python lacks $m (tools/setup.sh installs python3-$m): pytest not run"
    exit 77
  fi
done
# A sanitizer build's libvibro (loaded in-process by the package's ctypes)
# needs the sanitizers' runtimes loaded first in an uninstrumented Python;
# Python's own allocations are not the library's leaks.
if [ "${WITH_SANITIZERS:-no}" = yes ]; then
  cc=${CC:-gcc}
  asan=$($cc -print-file-name=libasan.so 2>/dev/null)
  ubsan=$($cc -print-file-name=libubsan.so 2>/dev/null)
  if [ -f "$asan" ] && [ -f "$ubsan" ]; then
    LD_PRELOAD="$asan:$ubsan${LD_PRELOAD:+:$LD_PRELOAD}"
    ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
    export LD_PRELOAD ASAN_OPTIONS
  else
    echo "SKIP: the sanitizers' runtimes of $cc are not found: the in-process tests need them"
    exit 77
  fi
fi
VIBRO_PLOT=${VIBRO_PLOT:-$(dirname "${VIBRO:-tools/vibro}")/vibro-plot}
PYTHONPATH="$srcdir/python${PYTHONPATH:+:$PYTHONPATH}"
export VIBRO_PLOT PYTHONPATH
out=$(mktemp "${TMPDIR:-/tmp}/vibro-pytest.XXXXXX")
trap 'rm -f "$out"' EXIT
"$python" -m pytest -p no:cacheprovider -q -rs "$srcdir/python/tests" >"$out" 2>&1
rc=$?
cat "$out"
last=$(grep -E '^=* ?[0-9]+ (passed|failed|error|skipped)' "$out" | tail -1)
count() { echo "$last" | grep -oE "[0-9]+ $1" | grep -oE '^[0-9]+' || echo 0; }
pass=$(count passed)
fail=$(($(count failed) + $(count errors) + $(count error)))
skip=$(count skipped)
if [ "$rc" -eq 5 ]; then
  echo "FAIL: pytest collected no tests from $srcdir/python/tests"
  fail=$((fail + 1))
elif [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then
  echo "FAIL: pytest exited $rc"
  fail=1
fi
[ "$skip" -gt 0 ] && echo "pytest skipped $skip (reasons above)"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

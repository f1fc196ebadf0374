#!/bin/sh
# python_signals.sh - a study run in a Python process (vibro.run through
# libvibro, lib/pyapi.c) under the signals a batch system or a closed
# terminal sends, as tests/interrupt.sh does for the vibro program
# (issue 31 item 2).  SIGTERM and SIGHUP during a 300-scene study: the
# finished scenes are kept in OUT.part/, the process ends by the signal
# (exit 143, 129) after saying how many are kept and how to resume;
# `vibro info` and vibro.open say "running (process N)" before and
# "interrupted (process N is gone)" after; a resume in a Python process
# gives the file of an uninterrupted run (h5diff).  SIGKILL keeps what
# was written and reads as interrupted, not running.  Run by make check;
# needs h5diff and the Python package's modules.
set -u
# A sanitizer build's libvibro cannot be loaded by an uninstrumented Python
# without the sanitizers' runtimes preloaded into every process it starts
# (pip, the compiler, make): the package in-process under the sanitizers is
# tests/python.sh's, which preloads them.
if [ "${WITH_SANITIZERS:-no}" = yes ]; then echo "SKIP: a sanitizer build (tests/python.sh loads it)"; exit 77; fi
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
python=${PYTHON:-/usr/bin/python3}
command -v h5diff >/dev/null || { echo "SKIP: no h5diff"; exit 77; }
for m in numpy h5py pandas xarray; do
  "$python" -c "import $m" 2>/dev/null || { echo "SKIP: $python lacks $m"; exit 77; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vibro-pysignals.XXXXXX")
pid=
trap '[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
. "$srcdir/tests/testlib.sh"
PYTHONPATH="$srcdir/python${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONPATH

# shards DIR: scenes listed in the shard manifests of DIR
shards() {
  cat "$1"/manifest.r* 2>/dev/null | awk '{ n += $4 } END { print n + 0 }'
}

# wait_for WHAT TRIES: poll (every 0.01 s, TRIES times) until WHAT succeeds
wait_for() {
  tries=0
  until eval "$1" || [ "$tries" -ge "$2" ]; do
    sleep 0.01
    tries=$((tries + 1))
  done
  eval "$1"
}

# 300 scenes of a ball coming to rest on a floor, 0.5 s each (about 6 s
# for all of them on two cores)
cat >"$tmp/s300.cfg" <<'CFG'
scene = { name = "s300"; fs = 44100.0; duration = 0.5; gravity = 9.81; };
bodies = (
  { name = "floor"; type = "wall"; position = 0.0; },
  { name = "ball";  type = "mass"; mass = 0.01; u0 = 4.5e-3; v0 = 0.0; }
);
contacts = (
  { name = "bounce"; between = ["floor", "ball"];
    law = "hunt-crossley"; k = 1.0e7; alpha = 1.1; mu = 0.1; scheme = "am1"; }
);
record = { every = 441; };
sweep = { mode = "grid"; params = (
  { path = "contacts.bounce.mu"; linspace = [0.1, 0.5]; n = 150; },
  { path = "bodies.ball.u0"; values = [4.5e-3, 2.5e-3]; } ); };
CFG
# the driver (S300.cfg OUT JOBS [resume]): vibro.run in this process,
# never the program, with the
# number of scenes done in OUT.done (the writer's default batches: the
# finished scenes reach OUT.part/ when the run stops)
cat >"$tmp/drive.py" <<'PY'
import sys, warnings
import vibro
warnings.simplefilter("ignore", vibro.VibroWarning)


def progress(done, *rest):
    with open(sys.argv[2] + ".done", "w") as f:
        f.write("%d\n" % done)


vibro.run(sys.argv[1], sys.argv[2], jobs=int(sys.argv[3]), inprocess=True, progress=progress,
          resume=len(sys.argv) > 4)
print("finished")
PY
# state OUT: what vibro.open says of OUT (its state, or the VibroError
# of a study with no shard yet)
state() {
  "$python" -c "
import sys, vibro
try:
    print(vibro.open(sys.argv[1]).state)
except vibro.VibroError as e:
    print(e)" "$1" 2>&1
}

expect 0 "$python" "$tmp/drive.py" "$tmp/s300.cfg" "$tmp/ref.h5" 2
[ -f "$tmp/ref.h5" ] && ok || bad "the uninterrupted run wrote no file"

# start OUT: the driver into OUT in the background, its pid in $pid;
# returns once it has finished 20 scenes (one at a time, about 10 s for
# all: the checks before the signal take a second or two)
start() {
  rm -rf "$1" "$1.part" "$1.done"
  "$python" "$tmp/drive.py" "$tmp/s300.cfg" "$1" 1 >"$tmp/run.out" 2>"$tmp/run.err" &
  pid=$!
  wait_for "[ \$(cat '$1.done' 2>/dev/null || echo 0) -ge 20 ]" 6000 ||
    bad "no 20 scenes finished in 60 s"
}

for sig in TERM HUP; do
  out=$tmp/$sig.h5
  start "$out"
  expect 0 "$vibro" info "$out"
  contains "$tmp/out" "running (process $pid): "
  case $(state "$out") in
    "running (process $pid)"|"$out: running (process $pid), and $out.part/ holds no complete shard yet") ok ;;
    *) bad "SIG$sig: Python says $(state "$out") while it runs" ;;
  esac
  kill -"$sig" "$pid"
  wait "$pid"
  got=$?
  dead=$pid
  pid=
  case $sig in TERM) want=143 ;; HUP) want=129 ;; esac
  equal "SIG$sig: exit status" "$got" "$want"
  kept=$(shards "$out.part")
  [ "$kept" -ge 20 ] && [ "$kept" -lt 300 ] && ok || bad "SIG$sig: $kept scenes kept"
  echo "SIG$sig: exit $got, $kept of 300 scenes kept"
  contains "$tmp/run.err" "vibro: $out: interrupted after $kept of 300 scenes; continue with vibro.run(..., resume=True)"
  grep -q Traceback "$tmp/run.err" && bad "SIG$sig: a traceback: $(cat "$tmp/run.err")" || ok
  [ -e "$out" ] && bad "SIG$sig left $out" || ok
  expect 0 "$vibro" info "$out"
  contains "$tmp/out" "$out: vibro-3"
  contains "$tmp/out" "; interrupted (process $dead is gone): "
  grep -q running "$tmp/out" && bad "SIG$sig: vibro info says running: $(head -3 "$tmp/out")" || ok
  equal "SIG$sig: Python's state after" "$(state "$out")" "interrupted (process $dead is gone)"
  expect 0 "$python" "$tmp/drive.py" "$tmp/s300.cfg" "$out" 2 resume
  same "$tmp/ref.h5" "$out" "SIG$sig in process, then resume"
done

# SIGKILL once the run has started: nothing can be caught; what was
# written reads as interrupted, never running
out=$tmp/KILL.h5
rm -rf "$out" "$out.part"
"$python" "$tmp/drive.py" "$tmp/s300.cfg" "$out" 1 >"$tmp/run.out" 2>"$tmp/run.err" &
pid=$!
wait_for "[ -s '$out.part/lock.r000' ]" 6000 || bad "no lock in 60 s"
kill -KILL "$pid"
wait "$pid"
dead=$pid
pid=
expect 0 "$vibro" info "$out"
contains "$tmp/out" "interrupted (process $dead is gone)"
grep -q running "$tmp/out" && bad "SIGKILL: vibro info says running: $(head -3 "$tmp/out")" || ok
case $(state "$out") in
  "interrupted (process $dead is gone)"|"$out: interrupted (process $dead is gone), and $out.part/ holds no complete shard yet") ok ;;
  *) bad "SIGKILL: Python says $(state "$out")" ;;
esac
expect 0 "$python" "$tmp/drive.py" "$tmp/s300.cfg" "$out" 2 resume
same "$tmp/ref.h5" "$out" "SIGKILL in process, then resume"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

#!/bin/sh
# interrupt.sh - Ctrl-C on a study of long scenes (issue 21, item 7).  One
# SIGINT: vibro says at once how many scenes are in flight and how long
# they need, finishes and writes them, exits 130 with the resume hint.  A
# second SIGINT 0.5 s later: the scenes in flight are abandoned at their
# next step and not written, the finished ones are, the process exits
# within 2 s.  Each is followed by --resume, which must give the file of an
# uninterrupted run (h5diff).  Run by make check; needs h5diff.
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
command -v h5diff >/dev/null || { echo "no h5diff"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vibro-interrupt.XXXXXX")
pid=
trap '[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
. "$srcdir/tests/testlib.sh"


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

ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

# 5 scenes of a ball that bounces and comes to rest on a floor, run -j 2:
# scenes 0, 1 and 4 are 15 s simulated at 44.1 kHz (about 1 s of wall time
# on an idle machine), scenes 2 and 3, the ones in flight when the signals
# come, 60 s (about 4 s each).  With all five at 15 s, an idle machine
# finished a scene in flight between the two SIGINTs (.ci/run: 3 kept,
# not 2)
cat >"$tmp/long.cfg" <<'EOF'
scene = { name = "long"; fs = 44100.0; duration = 15.0; gravity = 9.81; };
bodies = (
  { name = "floor"; type = "wall"; position = 0.0; },
  { name = "ball";  type = "mass"; mass = 0.01; u0 = 4.5e-3; v0 = 0.0; }
);
contacts = (
  { name = "bounce"; between = ["floor", "ball"];
    law = "hunt-crossley"; k = 1.0e7; alpha = 1.1; mu = 0.1; scheme = "am1"; }
);
record = { every = 441; };
sweep = { mode = "zip"; params = (
  { path = "contacts.bounce.mu"; linspace = [0.1, 0.5]; n = 5; },
  { path = "scene.duration"; values = [15.0, 15.0, 60.0, 60.0, 15.0]; } ); };
EOF
t=$(date +%s%N)
expect 0 "$vibro" run "$tmp/long.cfg" -o "$tmp/ref.h5" -j 2 --quiet
echo "uninterrupted: 5 scenes in $(ms "$t") ms"

# start: a run of long.cfg into $1 (a shard per scene), its pid in $pid;
# returns once the first two scenes are written and the last two started
start() {
  rm -rf "$1" "$1.part"
  VIBRO_TEST_BATCH=1 "$vibro" run "$tmp/long.cfg" -o "$1" -j 2 --quiet >"$tmp/out" 2>"$tmp/err" &
  pid=$!
  wait_for "[ \$(shards '$1.part') -ge 2 ]" 6000 || bad "no two scenes written in 60 s"
  sleep 0.3
}

# finish: wait for $pid; its exit status in $got, ms since $1 in $took
finish() {
  wait "$pid"
  got=$?
  took=$(ms "$1")
  pid=
}

# One SIGINT: the note at once, the 2 scenes in flight finish and are kept
start "$tmp/one.h5"
t=$(date +%s%N)
kill -INT "$pid"
wait_for "grep -q 'stopping after the 2 scenes in flight (about [0-9]* s); press Ctrl-C again to abandon them' '$tmp/err'" 100 &&
  ok || bad "no note within 1 s of SIGINT: $(cat "$tmp/err")"
finish "$t"
equal "one SIGINT: exit status" "$got" 130
equal "one SIGINT: scenes kept" "$(shards "$tmp/one.h5.part")" 4
contains "$tmp/err" "one.h5: interrupted after 4 of 5 scenes; run again with --resume"
grep -v 'again to abandon' "$tmp/err" | grep -q abandon && bad "one SIGINT abandoned: $(cat "$tmp/err")" || ok
echo "one SIGINT: exit after $took ms"
expect 0 "$vibro" run "$tmp/long.cfg" -o "$tmp/one.h5" --resume -j 2 --quiet
same "$tmp/ref.h5" "$tmp/one.h5" "one SIGINT, then --resume"

# Two SIGINTs 0.5 s apart: the scenes in flight are abandoned, the process
# exits within 2 s of the second, only the 2 finished scenes are kept
start "$tmp/two.h5"
kill -INT "$pid"
sleep 0.5
t=$(date +%s%N)
kill -INT "$pid"
finish "$t"
equal "two SIGINTs: exit status" "$got" 130
[ "$took" -lt 2000 ] && ok || bad "two SIGINTs: the process exited $took ms after the second"
echo "two SIGINTs: exit $took ms after the second"
equal "two SIGINTs: scenes kept" "$(shards "$tmp/two.h5.part")" 2
contains "$tmp/err" "stopping after the 2 scenes in flight"
contains "$tmp/err" "vibro: abandoning the scenes in flight; writing the finished ones"
contains "$tmp/err" "two.h5: interrupted after 2 of 5 scenes, the 2 in flight abandoned; run again with --resume"
[ -e "$tmp/two.h5" ] && bad "two SIGINTs left two.h5" || ok
expect 0 "$vibro" run "$tmp/long.cfg" -o "$tmp/two.h5" --resume -j 2 --quiet
same "$tmp/ref.h5" "$tmp/two.h5" "two SIGINTs, then --resume"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

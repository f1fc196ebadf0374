#!/bin/sh
# writer_thread.sh - a scene recorded in place whose windows a writer thread
# of its own writes (lib/run/record_file.c, issue 17 item 7) gives the file of
# the scene that writes them itself (h5diff), alone, in a study at -j 1 and
# -j 2, by default (fewer scenes running than cores) or forced on and off
# (VIBRO_TEST_WRITER_THREAD=1/0); SIGKILL and SIGTERM from outside at random
# moments, each followed by --resume, give the uninterrupted file; a full
# disk (a small tmpfs, when this user may mount one) fails the same way with
# the thread and without.  Run by make check; needs h5diff.
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
command -v h5diff >/dev/null || { echo "no h5diff"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vibro-writer.XXXXXX")
mnt=
trap '[ -n "$mnt" ] && umount "$mnt" 2>/dev/null; rm -rf "$tmp"' EXIT
. "$srcdir/tests/testlib.sh"


# Avanzini's hammer on the bar, every sample (12 series): 5 s is 220,501
# samples, five windows of 43,520 and a tail, so the ring of three goes
# round; the study, three scenes of 4 s (51 MB, laid out and in place)
sed 's/duration = 0.5;/duration = 5.0;/' "$srcdir/scenes/avanzini-hammer-bar.cfg" >"$tmp/one.cfg"
sed 's/duration = 0.5;/duration = 4.0;/' "$srcdir/scenes/avanzini-hammer-bar.cfg" >"$tmp/study.cfg"
cat >>"$tmp/study.cfg" <<'EOF'
sweep = { mode = "zip"; params = (
  { path = "bodies.hammer.v0"; values = [1.0, 0.7, 0.4]; } ); };
EOF

for cfg in one study; do
  expect 0 env VIBRO_TEST_WRITER_THREAD=0 "$vibro" run "$tmp/$cfg.cfg" -o "$tmp/$cfg-ref.h5" -j 1 --quiet
  for j in 1 2; do
    for hook in 1 0 default; do
      rm -f "$tmp/t.h5"
      if [ "$hook" = default ]; then
        expect 0 "$vibro" run "$tmp/$cfg.cfg" -o "$tmp/t.h5" -j "$j" --quiet
      else
        expect 0 env VIBRO_TEST_WRITER_THREAD="$hook" "$vibro" run "$tmp/$cfg.cfg" -o "$tmp/t.h5" \
          -j "$j" --quiet
      fi
      same "$tmp/$cfg-ref.h5" "$tmp/t.h5" "$cfg, -j $j, writer thread $hook"
    done
  done
done
# the windows are in place: the study's signals are in the file at their
# length (a check that the scenes ran, not that they were written)
h5ls -r "$tmp/study-ref.h5" 2>/dev/null | grep -q "contacts.hit.force.*{3, 176401}" && ok ||
  bad "study: no contacts.hit.force of 3 x 176401 samples: $(h5ls -r "$tmp/study-ref.h5" 2>&1 | head -5)"

# the time a run of the study takes here, for the random moments
t0=$(date +%s%N)
VIBRO_TEST_WRITER_THREAD=1 "$vibro" run "$tmp/study.cfg" -o "$tmp/t.h5" -j 1 --quiet
ms=$(( ($(date +%s%N) - t0) / 1000000 + 1 ))

# SIGKILL or SIGTERM at random moments of a run whose writer threads write,
# then --resume with them: the uninterrupted file
seed=${SEED:-$(date +%s)}
echo "writer_thread.sh: a run takes $ms ms here; random moments from seed $seed"
i=0
for sig in KILL TERM KILL TERM KILL TERM; do
  i=$((i + 1))
  seed=$(( (seed * 1103515245 + 12345) % 2147483648 ))
  at=$(( seed % ms ))
  j=$(( i % 2 + 1 ))
  rm -rf "$tmp/k.h5" "$tmp/k.h5.part"
  VIBRO_TEST_WRITER_THREAD=1 "$vibro" run "$tmp/study.cfg" -o "$tmp/k.h5" -j "$j" --quiet \
    >/dev/null 2>&1 &
  pid=$!
  sleep "$(awk "BEGIN { print $at / 1000 }")"
  kill -"$sig" "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  expect 0 env VIBRO_TEST_WRITER_THREAD=1 "$vibro" run "$tmp/study.cfg" -o "$tmp/k.h5" -j "$j" \
    --resume --quiet
  same "$tmp/study-ref.h5" "$tmp/k.h5" "SIG$sig after $at ms (-j $j), then --resume"
done

# a full disk: tmpfs of random sizes below the file's; the thread changes
# neither the exit status nor the message
mnt=$tmp/mnt
mkdir "$mnt"
if mount -t tmpfs -o size=64m tmpfs "$mnt" 2>/dev/null; then
  umount "$mnt"
  for k in 1 2 3; do
    seed=$(( (seed * 1103515245 + 12345) % 2147483648 ))
    kib=$(( 2048 + seed % 48000 ))
    for hook in 0 1; do
      mount -t tmpfs -o "size=${kib}k" tmpfs "$mnt"
      VIBRO_TEST_WRITER_THREAD=$hook "$vibro" run "$tmp/study.cfg" -o "$mnt/f.h5" --quiet \
        >"$tmp/out" 2>"$tmp/err$hook"
      echo "$?" >"$tmp/rc$hook"
      umount "$mnt"
    done
    equal "full disk of $kib KiB: exit status" "$(cat "$tmp/rc1")" "$(cat "$tmp/rc0")"
    equal "full disk of $kib KiB: message" "$(cat "$tmp/err1")" "$(cat "$tmp/err0")"
    [ "$(cat "$tmp/rc0")" -ne 0 ] && ok || bad "full disk of $kib KiB: exit 0"
  done
else
  echo "writer_thread.sh: cannot mount a tmpfs here: no full-disk case"
fi

echo "writer_thread.sh: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

#!/bin/sh
# tools.sh - the commands that read an output file, end to end: vibro info,
# events and export, and every kind of vibro-plot; every error path with its
# exact message; the WAV header, the PNG size, the CSV rows against h5py.
# A study file (several scenes, a /study/table, a modal body, external work)
# is made with h5py following the README's layout.  Run by make check.
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
plot=${VIBRO_PLOT:-$(dirname "$vibro")/vibro-plot}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vibro-tools.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$srcdir/tests/testlib.sh"

# error MESSAGE CMD...: CMD exits 1 with exactly MESSAGE on stderr
error() {
  msg=$1; shift
  expect 1 "$@"
  only_line "$tmp/err" "$msg"
}

# error_start START CMD...: CMD exits 1 with one line on stderr that starts
# with START (for lists of signals that grow with the layout)
error_start() {
  start=$1; shift
  expect 1 "$@"
  if [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ "$(head -c ${#start} "$tmp/err")" = "$start" ]; then ok
  else bad "expected one line starting '$start', got '$(cat "$tmp/err")'"; fi
}

# equal WHAT GOT WANT
equal() {
  if [ "$2" = "$3" ]; then ok; else bad "$1: got '$2', expected '$3'"; fi
}

# bytes FILE OFFSET COUNT: unsigned bytes, space-separated
bytes() { od -An -tu1 -j"$2" -N"$3" "$1" | tr -s ' \n' '  ' | sed 's/^ //; s/ $//'; }
# le FILE OFFSET COUNT: little-endian unsigned integer
le() { bytes "$1" "$2" "$3" | awk '{ v = 0; for (i = NF; i >= 1; i--) v = v * 256 + $i; printf "%d", v }'; }
# be FILE OFFSET COUNT: big-endian unsigned integer
be() { bytes "$1" "$2" "$3" | awk '{ v = 0; for (i = 1; i <= NF; i++) v = v * 256 + $i; printf "%d", v }'; }
# text FILE OFFSET COUNT: bytes as characters
text() { dd if="$1" bs=1 skip="$2" count="$3" 2>/dev/null; }

# png FILE W H: a PNG of exactly W x H pixels (signature, IHDR width/height)
png() {
  equal "$1 signature" "$(bytes "$1" 0 8)" "137 80 78 71 13 10 26 10"
  equal "$1 IHDR" "$(text "$1" 12 4)" "IHDR"
  equal "$1 size" "$(be "$1" 16 4)x$(be "$1" 20 4)" "$2x$3"
}

# ------------------------------------------------------------- a real run
b="$tmp/b.h5"
expect 0 "$vibro" run "$srcdir/scenes/papetti-case-b.cfg" -o "$b" --quiet
samples=89 # round(0.002 s * 44100 Hz) = 88 steps, each recorded, and the start

# --help of everything
expect 0 "$vibro" --help
contains "$tmp/out" "info OUT.h5"
contains "$tmp/out" "events OUT.h5"
contains "$tmp/out" "export OUT.h5"
for cmd in info events export; do
  expect 0 "$vibro" "$cmd" --help
  contains "$tmp/out" "usage: vibro $cmd OUT.h5"
done

# info
expect 0 "$vibro" info "$b"
contains "$tmp/out" "$b: vibro-3, written by vibro "
contains "$tmp/out" "1 scene finished"
contains "$tmp/out" "1 done, 0 failed"
contains "$tmp/out" "scene 0 'papetti-case-b': done; 89 samples at 44100 Hz"
contains "$tmp/out" "model 'papetti-case-b', bodies: hammer (mass), wall (wall)"
contains "$tmp/out" "  contact 'hit': hunt-crossley, am1, 1 impact"
contains "$tmp/out" "largest absolute energy balance error: "
# the balance error relative to the initial energy plus the work done, as
# the man page says, from the table and /signals read with h5py
"${PYTHON:-/usr/bin/python3}" - "$b" "$tmp/out" <<'PY' >"$tmp/py.out" 2>&1 && ok || bad "relative balance: $(cat "$tmp/py.out")"
import sys, h5py
f = h5py.File(sys.argv[1], "r")
bal = f["study/table/energy_balance_error"][0]
g = f["signals"]
scale = abs(g["energy.total"][0, 0]) + (abs(g["energy.external"][0, -1]) if "energy.external" in g else 0)
want = "  energy balance error %.3g J = %.3g of the initial energy plus the work done, %.6g J" % (
    bal, abs(bal / scale), scale)
lines = open(sys.argv[2]).read().split("\n")
assert want in lines, (want, lines)
PY

# events as text: header, units, one row per impact
expect 0 "$vibro" events "$b"
equal "events text lines" "$(wc -l <"$tmp/out" | tr -d ' ')" 3
contains "$tmp/out" " scene  contact          t_on"
contains "$tmp/out" "[m/s]"
expect 0 "$vibro" events "$b" --scene 0 --contact hit --csv
cp "$tmp/out" "$tmp/b-events.csv"
equal "events csv lines" "$(wc -l <"$tmp/b-events.csv" | tr -d ' ')" 2
equal "events csv header" "$(head -n 1 "$tmp/b-events.csv")" \
  "scene,contact,t_on,t_off,duration,v_in,v_out,x_max,peak_force,x_max_pred,v_out_pred,v_out_exact,duration_pred,energy_before,energy_after,energy_correction,newton_iterations_max,fallbacks,samples,corrections,impact,cor"

# export CSV: header with units, one line per sample
expect 0 "$vibro" export "$b" --scene 0 --signal bodies/hammer/u --csv "$tmp/u.csv"
equal "csv header" "$(head -n 1 "$tmp/u.csv")" "time (s),bodies/hammer/u (m)"
equal "csv lines" "$(wc -l <"$tmp/u.csv" | tr -d ' ')" $((samples + 1))
expect 0 "$vibro" export "$b" --signal contacts/hit/force --csv -
equal "csv to stdout" "$(sed -n 1p "$tmp/out")" "time (s),contacts/hit/force (N)"

# export WAV: RIFF/WAVE, PCM mono 16-bit at fs, data = 2 bytes a sample
w="$tmp/force.wav"
expect 0 "$vibro" export "$b" --scene 0 --signal contacts/hit/force --wav "$w"
contains "$tmp/out" "$w: 89 samples at 44100 Hz, 16-bit mono"
equal "RIFF" "$(text "$w" 0 4)" "RIFF"
equal "RIFF size" "$(le "$w" 4 4)" $((36 + 2 * samples))
equal "WAVE" "$(text "$w" 8 4)" "WAVE"
equal "fmt" "$(text "$w" 12 4)" "fmt "
equal "fmt size" "$(le "$w" 16 4)" 16
equal "PCM" "$(le "$w" 20 2)" 1
equal "channels" "$(le "$w" 22 2)" 1
equal "sample rate" "$(le "$w" 24 4)" 44100
equal "byte rate" "$(le "$w" 28 4)" 88200
equal "block align" "$(le "$w" 32 2)" 2
equal "bits" "$(le "$w" 34 2)" 16
equal "data" "$(text "$w" 36 4)" "data"
equal "data size" "$(le "$w" 40 4)" $((2 * samples))
equal "wav length" "$(wc -c <"$w" | tr -d ' ')" $((44 + 2 * samples))

# a signal that is zero throughout: silence, not a division by zero (vibro-2
# records no wall signals, so: a hammer at rest on the wall, whose contact
# force stays 0)
sed 's/v0 = 1.0;/v0 = 0.0;/' "$srcdir/scenes/papetti-case-b.cfg" >"$tmp/rest.cfg"
expect 0 "$vibro" run "$tmp/rest.cfg" -o "$tmp/rest.h5" --quiet
expect 0 "$vibro" export "$tmp/rest.h5" --signal contacts/hit/force --wav "$tmp/zero.wav"
equal "silent wav length" "$(wc -c <"$tmp/zero.wav" | tr -d ' ')" $((44 + 2 * samples))
equal "silent wav" "$(od -An -v -tu1 -j44 "$tmp/zero.wav" | tr -s ' \n' '\n' | sort -u | tr -d '\n')" "0"

# recorded every 3rd step: the WAV runs at fs / 3, with the recorded samples
sed 's/every = 1;/every = 3;/' "$srcdir/scenes/papetti-case-b.cfg" >"$tmp/every3.cfg"
expect 0 "$vibro" run "$tmp/every3.cfg" -o "$tmp/e3.h5" --quiet
expect 0 "$vibro" export "$tmp/e3.h5" --signal bodies/hammer/v --wav "$tmp/e3.wav" --csv "$tmp/e3.csv"
equal "decimated rate" "$(le "$tmp/e3.wav" 24 4)" 14700
n3=$(($(wc -l <"$tmp/e3.csv") - 1))
equal "decimated data size" "$(le "$tmp/e3.wav" 40 4)" $((2 * n3))
equal "decimated samples" "$n3" 30

# ------------------------------------------------------------- errors
printf 'not hdf5\n' >"$tmp/junk.h5"
error "$tmp/junk.h5: not a vibro output (not an HDF5 file)" "$vibro" info "$tmp/junk.h5"
error "$tmp/missing.h5: cannot open: No such file or directory" "$vibro" events "$tmp/missing.h5"
error "$b: no scene 7 (valid: 0)" "$vibro" events "$b" --scene 7
error "$b: no scene 7 (valid: 0)" "$vibro" export "$b" --scene 7 --signal bodies/hammer/u --csv "$tmp/x.csv"
error "$b: no contact 'hti' (valid: hit)" "$vibro" events "$b" --scene 0 --contact hti
error "$b: no contact 'hti' (valid: hit)" "$vibro" events "$b" --contact hti
error "$b: no signal 'bodies/hamer/u' of [scene][time] in /signals (valid: bodies.hammer.u, bodies.hammer.v, contacts.hit.compression, contacts.hit.force, contacts.hit.rate, energy.dissipated, energy.kinetic, energy.potential, energy.total)" \
  "$vibro" export "$b" --scene 0 --signal bodies/hamer/u --csv "$tmp/x.csv"
[ -e "$tmp/x.csv" ] && bad "export left a file after an error" || ok
# the events are a table, not a signal
error "$b: no signal 'contacts/hit/events' of [scene][time] in /signals (valid: bodies.hammer.u, bodies.hammer.v, contacts.hit.compression, contacts.hit.force, contacts.hit.rate, energy.dissipated, energy.kinetic, energy.potential, energy.total)" \
  "$vibro" export "$b" --signal contacts/hit/events --wav "$tmp/x.wav"
error "$tmp/no/dir/x.wav: cannot write: No such file or directory" \
  "$vibro" export "$b" --signal bodies/hammer/u --wav "$tmp/no/dir/x.wav"
error "vibro export: missing --csv FILE, --wav FILE or --flac FILE (see vibro help export)" \
  "$vibro" export "$b" --signal bodies/hammer/u
error "vibro events: unknown option '--bogus' (valid: --scene N, --contact NAME, --csv, --phases, --help)" \
  "$vibro" events "$b" --bogus
error "vibro info: missing OUT.h5 (see vibro help info)" "$vibro" info

# ---------------------------------------------------- export's file safety
# a failing export (here the file size limit, EFBIG) leaves an existing
# destination as it was, and no temporary file beside it
mkdir "$tmp/safe"
echo keep >"$tmp/safe/u.csv"
(trap '' XFSZ; ulimit -f 1; "$vibro" export "$b" --signal bodies/hammer/u --csv "$tmp/safe/u.csv") \
  >"$tmp/out" 2>"$tmp/err" && bad "export beyond the file size limit succeeded" || ok
contains "$tmp/err" "$tmp/safe/u.csv: cannot write: File too large"
[ "$(cat "$tmp/safe/u.csv" 2>/dev/null)" = keep ] && ok || bad "a failed export changed its destination"
equal "files beside a failed export" "$(ls -A "$tmp/safe")" "u.csv"
# a successful export replaces the destination whole
expect 0 "$vibro" export "$b" --signal bodies/hammer/u --csv "$tmp/safe/u.csv"
equal "replaced destination" "$(wc -l <"$tmp/safe/u.csv" | tr -d ' ')" $((samples + 1))
equal "files beside an export" "$(ls -A "$tmp/safe")" "u.csv"
# not a regular file: a device (as root, a copy of /dev/null), a FIFO, a
# directory: refused, left as it was
if mknod "$tmp/safe/null" c 1 3 2>/dev/null; then
  error "$tmp/safe/null: is not a regular file (a device, FIFO or socket); refusing to replace it (use - for standard output)" \
    "$vibro" export "$b" --signal bodies/hammer/u --wav "$tmp/safe/null"
  [ -c "$tmp/safe/null" ] && ok || bad "export replaced a device node"
  rm -f "$tmp/safe/null"
fi
mkfifo "$tmp/safe/fifo"
error "$tmp/safe/fifo: is not a regular file (a device, FIFO or socket); refusing to replace it (use - for standard output)" \
  timeout 20 "$vibro" export "$b" --signal bodies/hammer/u --csv "$tmp/safe/fifo"
[ -p "$tmp/safe/fifo" ] && ok || bad "export replaced a FIFO"
rm -f "$tmp/safe/fifo"
error "$tmp/safe: is a directory; name a file in it" \
  "$vibro" export "$b" --signal bodies/hammer/u --csv "$tmp/safe"
# a symbolic link: refused, its target untouched
ln -s "$tmp/safe/u.csv" "$tmp/safe/link.csv"
cp "$tmp/safe/u.csv" "$tmp/u.orig"
error "$tmp/safe/link.csv: is a symbolic link; refusing to write through it (name the file it points to)" \
  "$vibro" export "$b" --signal bodies/hammer/u --csv "$tmp/safe/link.csv"
cmp -s "$tmp/safe/u.csv" "$tmp/u.orig" && ok || bad "export wrote through a symbolic link"
rm -f "$tmp/safe/link.csv"
# the output file itself, by another name: refused, untouched
cp "$b" "$tmp/b.orig"
ln "$b" "$tmp/safe/b-again.wav"
error "$tmp/safe/b-again.wav: is the input $b; refusing to overwrite it" \
  "$vibro" export "$b" --signal bodies/hammer/u --wav "$tmp/safe/b-again.wav"
error "$b: is the input $b; refusing to overwrite it" \
  "$vibro" export "$b" --signal bodies/hammer/u --csv "$b"
cmp -s "$b" "$tmp/b.orig" && ok || bad "export onto its own input changed it"
rm -f "$tmp/safe/b-again.wav"

# ------------------------------------------------------------- with h5py
python=$(sed -n '1s/^#! *//p' "$plot")
if ! "$python" -c 'import h5py, numpy, matplotlib' 2>/dev/null; then
  echo "SKIP: $python lacks h5py, numpy or matplotlib: vibro-plot and the h5py checks not run"
  echo "$pass passed, $fail failed"
  [ "$fail" -eq 0 ]
  exit
fi

# Files that are HDF5 but not vibro outputs, and a study made by hand that
# follows the README: 12 scenes, one failed, a /study/table sweeping
# contacts.hit.mu, a modal body in scene 1 with a 2-d modal dataset, a
# second contact and external work in scene 1.
s="$tmp/study.h5"
"$python" - "$tmp" <<'PY' || bad "could not make the study file"
import sys, h5py, numpy as np
tmp = sys.argv[1]
with h5py.File(tmp + "/noformat.h5", "w") as f:
    f["x"] = np.arange(3.0)
with h5py.File(tmp + "/wrongformat.h5", "w") as f:
    f.attrs["format"] = "matlab-7"
fields = ["t_on", "t_off", "duration", "v_in", "v_out", "x_max", "peak_force",
          "x_max_pred", "v_out_pred", "v_out_exact", "duration_pred",
          "energy_before", "energy_after"]
units = {"t_on": "s", "t_off": "s", "duration": "s", "v_in": "m/s", "v_out": "m/s",
         "x_max": "m", "peak_force": "N", "x_max_pred": "m", "v_out_pred": "m/s",
         "v_out_exact": "m/s", "duration_pred": "s", "energy_before": "J",
         "energy_after": "J", "newton_iterations_max": "1", "fallbacks": "1",
         "samples": "1"}
dtype = [(n, "<f8") for n in fields] + [("newton_iterations_max", "<i4"),
                                         ("fallbacks", "<i4"), ("samples", "<i4")]
def v_out_exact(mu, v):
    # Papetti eq 6: mu v_out - ln(1 + mu v_out) = mu v_in - ln(1 + mu v_in)
    g = lambda w: mu * w - np.log1p(mu * w) - (mu * v - np.log1p(mu * v))
    lo, hi = -1.0 / mu + 1e-15, 0.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if g(mid) > 0 else (lo, mid)
    return 0.5 * (lo + hi)
def events(rng, mu, n):
    ev = np.zeros(n, dtype=dtype)
    for i in range(n):
        v_in = 0.3 + 2.385 * rng.random()
        ex = v_out_exact(mu, v_in)
        ev[i] = (0.001 * i, 0.001 * i + 1.3e-4, 1.3e-4, v_in, ex * 1.01, 3.8e-5 * v_in,
                 250.0 * v_in, 3.9e-5 * v_in, ex * 1.002, ex, 1.33e-4,
                 0.005, 0.003, 4, 0, 5)
    return ev
def dataset(g, name, data, unit):
    d = g.create_dataset(name, data=data)
    d.attrs["units"] = unit
    return d
rng = np.random.default_rng(2385)
nscenes, fs, every, n = 12, 44100.0, 2, 51
mus = [0.1, 0.3, 0.5, 0.7]
with h5py.File(tmp + "/study.h5", "w") as f:
    f.attrs["format"] = "vibro-1"
    f.attrs["vibro_version"] = "0.1.0"
    f.attrs["source"] = "sweep.cfg"
    f.attrs["input"] = "# made by tests/tools.sh\n"
    rows = []
    for s in range(nscenes):
        mu = mus[s % 4]
        g = f.create_group("scenes/%06d" % s)
        g.attrs["name"] = "sweep"
        g.attrs["fs"] = fs
        g.attrs["duration"] = 0.002
        g.attrs["gravity"] = 0.0
        g.attrs["record_every"] = np.int64(every)
        g.attrs["steps"] = np.int64((n - 1) * every)
        g.attrs["status"] = "diverged at t=0.00123" if s == 2 else "done"
        g.attrs["energy_balance_error"] = 1e-6 * (s + 1)
        t = np.arange(n) * every / fs
        dataset(g, "time", t, "s")
        u = 1e-4 * np.sin(2 * np.pi * 1000 * t + s)
        b = g.create_group("bodies/hammer")
        b.attrs["type"] = "mass"
        b.attrs["mass"] = 0.01
        dataset(b, "u", u, "m")
        dataset(b, "v", np.gradient(u, t), "m/s")
        w = g.create_group("bodies/wall")
        w.attrs["type"] = "wall"
        dataset(w, "u", np.zeros(n), "m")
        dataset(w, "v", np.zeros(n), "m/s")
        c = g.create_group("contacts/hit")
        for k, v in (("law", "hunt-crossley"), ("scheme", "am1")):
            c.attrs[k] = v
        for k, v in (("k", 1e9), ("alpha", 1.5), ("mu", mu), ("h", 0.0), ("gap", 0.0)):
            c.attrs[k] = v
        for k in ("newton_failures", "fallbacks", "newton_iterations"):
            c.attrs[k] = np.int64(0)
        dataset(c, "compression", u, "m")
        dataset(c, "force", 1e9 * np.clip(u, 0, None) ** 1.5, "N")
        ev = events(rng, mu, 2 + s % 4)
        d = dataset(c, "events", ev, " ".join("%s:%s" % (k, units[k]) for k in units))
        e = g.create_group("energy")
        total = 0.005 + 1e-6 * np.cos(t)
        for name, data in (("total", total), ("kinetic", 0.6 * total),
                           ("potential", 0.4 * total), ("dissipated", 1e-5 * t)):
            dataset(e, name, data, "J")
        if s == 1:
            p = g.create_group("bodies/plate")
            p.attrs["type"] = "modal"
            dataset(p, "p1/u", 2e-6 * np.sin(2 * np.pi * 3000 * t), "m")
            dataset(p, "p1/v", 2e-6 * np.cos(2 * np.pi * 3000 * t), "m/s")
            dataset(p, "modes/q", np.zeros((3, n)), "m")
            dataset(e, "external", 1e-5 * t, "J")
            c2 = g.create_group("contacts/stop")
            c2.attrs["law"] = "power"
            c2.attrs["scheme"] = "two-point"
            dataset(c2, "compression", -u, "m")
            dataset(c2, "force", np.zeros(n), "N")
            dataset(c2, "events", events(rng, mu, 1), d.attrs["units"])
        if s == 3:
            probe = np.zeros(n)
            probe[:6] = [0.0, 1.5, -3.0, np.inf, np.nan, 0.75]
            dataset(g, "probe/diverged", probe, "m")
        rows.append((s, mu, -5 if s == 2 else 0,
                     b"diverged at t=0.00123" if s == 2 else b"done", 0.005, 1e-6 * (s + 1),
                     len(ev), ev["t_on"][0], 1.3e-4, u.max()))
    cols = [("index", "<i8", "1"), ("contacts.hit.mu", "<f8", "SI"),
            ("status_code", "<i4", "1"), ("status", "S128", "-"),
            ("final_energy", "<f8", "J"), ("energy_balance_error", "<f8", "J"),
            ("impacts:hit", "<i8", "1"), ("first_impact:hit", "<f8", "s"),
            ("mean_contact_duration:hit", "<f8", "s"), ("max_compression:hit", "<f8", "m")]
    table = np.array(rows, dtype=[c[:2] for c in cols])
    d = f.create_dataset("study/table", data=table)
    d.attrs["units"] = " ".join("%s:%s" % (c[0], c[2]) for c in cols)
    f["study"].attrs["mode"] = "grid"
    f["study"].attrs["scenes"] = np.int64(nscenes)
    done = np.ones(nscenes, dtype=np.uint8)
    done[7] = 0
    f.create_dataset("study/done", data=done)
with h5py.File(tmp + "/later.h5", "w") as f:     # a layout from a later vibro
    f.attrs["format"] = "vibro-9"
with h5py.File(tmp + "/nostudy.h5", "w") as f:
    f.attrs["format"] = "vibro-1"
    g = f.create_group("scenes/000000")
    dataset(g, "time", np.arange(4.0), "s")
PY

# the file is rejected or read as the README says
error "$tmp/noformat.h5: not a vibro output (no 'format' attribute)" "$vibro" info "$tmp/noformat.h5"
error "$tmp/wrongformat.h5: not a vibro output (format 'matlab-7', valid: vibro-1, vibro-2, vibro-3)" \
  "$vibro" export "$tmp/wrongformat.h5" --signal x --csv "$tmp/x.csv"
# a later layout is named as such, not read as a damaged vibro-3
for cmd in info events; do
  error "$tmp/later.h5: format 'vibro-9' is newer than this vibro reads (valid: vibro-1, vibro-2, vibro-3): update vibro" \
    "$vibro" $cmd "$tmp/later.h5"
done
error "$tmp/later.h5: format 'vibro-9' is newer than this vibro reads (valid: vibro-1, vibro-2, vibro-3): update vibro" \
  "$vibro" export "$tmp/later.h5" --signal x --csv "$tmp/x.csv"
# one reader per layout, chosen from the file's format (tools/formats.c): a
# vibro-3 file relabelled vibro-2 is read by vibro-2's reader, which finds
# its compound table missing, not by a reader that looks at what is there
cp "$b" "$tmp/relabel.h5"
"$python" -c 'import h5py, sys; h5py.File(sys.argv[1], "r+").attrs["format"] = "vibro-2"' "$tmp/relabel.h5"
for cmd in info events; do
  error "$tmp/relabel.h5: damaged: /study/table: cannot open the dataset" "$vibro" $cmd "$tmp/relabel.h5"
done
expect 0 "$vibro" info "$s"
contains "$tmp/out" "12 scenes: 11 done, 1 failed, 1 not marked complete in /study/done (vibro run --resume)"
contains "$tmp/out" "scene 1 'sweep': done; fs 44100 Hz, 51 samples (every 2 steps), 0.002 s"
contains "$tmp/out" "  bodies: hammer (mass), plate (modal), wall (wall)"
contains "$tmp/out" "  contact 'stop': power, two-point, 1 impact"
contains "$tmp/out" "energy balance error 2e-06 J = 0.0004 of the initial energy plus the work done, 0.00500102 J"
contains "$tmp/out" "... 9 more scenes (vibro info --all shows each)"
contains "$tmp/out" "contact 'hit': 42 impacts in 12 scenes, 2 to 5 per scene"
contains "$tmp/out" "failed: scene 2 'sweep': diverged at t=0.00123"
contains "$tmp/out" "worst energy balance error: 1.2e-05 J = 0.0024 of the initial energy plus the work done, scene 11 'sweep'"
contains "$tmp/out" "study table: 12 rows, sweep mode grid"
contains "$tmp/out" "  swept contacts.hit.mu: 0.1 .. 0.7, 4 values"
contains "$tmp/out" "  other columns: index, status_code, status, final_energy, energy_balance_error, impacts:hit, first_impact:hit, mean_contact_duration:hit, max_compression:hit"
expect 0 "$vibro" info "$s" --all
equal "info --all scenes" "$(grep -c '^scene ' "$tmp/out")" 12
error "$s: 12 scenes: choose one with --scene (valid: 0-11)" \
  "$vibro" export "$s" --signal bodies/hammer/u --csv "$tmp/x.csv"
error "$s: no scene 12 (valid: 0-11)" "$vibro" events "$s" --scene 12
expect 0 "$vibro" export "$s" --scene 1 --signal bodies/plate/p1/u --csv "$tmp/p1.csv"
equal "modal point csv lines" "$(wc -l <"$tmp/p1.csv" | tr -d ' ')" 52
error "$s: 'bodies/plate/modes/q' in scene 1 is not a 1-d signal (valid: bodies/hammer/u, bodies/hammer/v, bodies/plate/p1/u, bodies/plate/p1/v, bodies/wall/u, bodies/wall/v, contacts/hit/compression, contacts/hit/force, contacts/stop/compression, contacts/stop/force, energy/dissipated, energy/external, ...)" \
  "$vibro" export "$s" --scene 1 --signal bodies/plate/modes/q --csv "$tmp/x.csv"
list0="bodies/hammer/u, bodies/hammer/v, bodies/wall/u, bodies/wall/v, contacts/hit/compression, contacts/hit/force, energy/dissipated, energy/kinetic, energy/potential, energy/total"
error "$s: no signal 'bodies/hamer/u' in scene 0 (valid: $list0)" \
  "$vibro" export "$s" --scene 0 --signal bodies/hamer/u --wav "$tmp/x.wav"
error "$s: no signal 'bodies/hamer/u' in scene 0 (valid: $list0)" \
  "$plot" signal "$s" --scene 0 --signal bodies/hamer/u -o "$tmp/x.png"
expect 0 "$vibro" export "$s" --scene 1 --signal energy/external --wav "$tmp/ext.wav"
equal "study rate" "$(le "$tmp/ext.wav" 24 4)" 22050
expect 0 "$vibro" export "$s" --scene 3 --signal probe/diverged --wav "$tmp/nan.wav"
contains "$tmp/out" "peak 3 m -> full scale"
pcm=""
for off in 44 46 48 50 52 54; do
  v=$(le "$tmp/nan.wav" $off 2)
  [ "$v" -ge 32768 ] && v=$((v - 65536))
  pcm="$pcm${pcm:+ }$v"
done
equal "non-finite samples" "$pcm" "0 16384 -32767 0 0 8192"

# events of every scene and contact, as CSV, against h5py cell by cell;
# the CSV and WAV exports against h5py sample by sample
expect 0 "$vibro" events "$s" --csv
cp "$tmp/out" "$tmp/s-events.csv"
equal "study events csv lines" "$(wc -l <"$tmp/s-events.csv" | tr -d ' ')" 44
expect 0 "$vibro" events "$s" --contact stop
equal "one contact's events" "$(wc -l <"$tmp/out" | tr -d ' ')" 3
expect 0 "$vibro" events "$s" --scene 5
equal "one scene's events" "$(wc -l <"$tmp/out" | tr -d ' ')" 5
"$python" - "$tmp" <<'PY' >"$tmp/py.out" 2>&1 && ok || bad "h5py cross-check: $(cat "$tmp/py.out")"
import csv, struct, sys, h5py, numpy as np
tmp = sys.argv[1]
def check_events(h5, name):
    rows = list(csv.reader(open(tmp + "/" + name)))
    header, rows = rows[0], rows[1:]
    want = []
    with h5py.File(tmp + "/" + h5, "r") as f:
        v1 = "scenes" in f
        if v1:  # vibro-1 (the hand-made study)
            for s in sorted(f["scenes"]):
                for c in sorted(f["scenes"][s]["contacts"]):
                    for ev in f["scenes"][s]["contacts"][c]["events"][:]:
                        want.append((int(s), c, ev))
        else:  # vibro-2, vibro-3: /study/events, by scene, then contact, then time
            ev = f["study/events"]
            names = [n.decode() if isinstance(n, bytes) else n
                     for n in (ev.attrs["contacts"] if "contacts" in ev.attrs
                               else f["study/table/contact"][:])]
            if isinstance(ev, h5py.Group):  # vibro-3: a column per field
                cols = {k: d[:] for k, d in ev.items() if k != "event"}
                table = [{k: v[i] for k, v in cols.items()} for i in range(len(cols["scene"]))]
            else:
                table = ev[:]
            for e in table:
                want.append((int(e["scene"]), names[int(e["contact"])], e))
    assert len(rows) == len(want), (name, len(rows), len(want))
    # vibro-2 and vibro-3 add impact (its index on its contact in its
    # scene, from 0) and cor = -v_out/v_in last
    extra = header[-2:] == ["impact", "cor"]
    assert extra == (not v1), (name, header)
    counts = {}
    for row, (s, c, ev) in zip(rows, want):
        assert int(row[0]) == s and row[1] == c, (row[:2], s, c)
        names, cells = header[2:], row[2:]
        if extra:
            counts[(s, c)] = counts.get((s, c), -1) + 1
            assert int(cells[-2]) == counts[(s, c)], (name, s, c, cells[-2], counts[(s, c)])
            got, exp = float(cells[-1]), -ev["v_out"] / ev["v_in"]
            assert got == exp or (np.isnan(got) and np.isnan(exp)), (name, s, c, "cor", got, exp)
            names, cells = names[:-2], cells[:-2]
        for k, cell in zip(names, cells):
            got, exp = float(cell), ev[k]
            assert got == exp or (np.isnan(got) and np.isnan(exp)), (name, s, c, k, got, exp)
check_events("b.h5", "b-events.csv")
check_events("study.h5", "s-events.csv")
with h5py.File(tmp + "/b.h5", "r") as f:
    g = f["signals"]
    t, u = np.loadtxt(tmp + "/u.csv", delimiter=",", skiprows=1, unpack=True)
    assert np.array_equal(t, g["time"][:]) and np.array_equal(u, g["bodies.hammer.u"][0])
    force = g["contacts.hit.force"][0]
    raw = open(tmp + "/force.wav", "rb").read()
    pcm = np.array(struct.unpack("<%dh" % len(force), raw[44:]))
    assert np.array_equal(pcm, np.rint(force / np.abs(force).max() * 32767)), pcm
    assert np.abs(pcm).max() == 32767
PY

# sound through libsndfile: channels, encodings, FLAC, fixed gain, clipping
expect 0 "$vibro" export "$b" --signal contacts/hit/force --signal bodies/hammer/u \
  --wav "$tmp/two.wav" --encoding pcm24 --csv "$tmp/two.csv"
contains "$tmp/out" "$tmp/two.wav: 89 samples at 44100 Hz, 24-bit, 2 channels, peak "
equal "two-signal csv header" "$(head -n 1 "$tmp/two.csv")" \
  "time (s),contacts/hit/force (N),bodies/hammer/u (m)"
expect 0 "$vibro" export "$b" --signal contacts/hit/force --wav "$tmp/gain.wav" \
  --encoding float --gain 0.00125
contains "$tmp/out" "32-bit float mono, peak "
contains "$tmp/out" ", gain 0.00125 -> "
expect 0 "$vibro" export "$b" --signal contacts/hit/force --wav "$tmp/clip.wav" --gain 1
contains "$tmp/err" "$tmp/clip.wav: "
contains "$tmp/err" "samples beyond full scale clipped"
expect 0 "$vibro" export "$b" --signal contacts/hit/force --flac "$tmp/force.flac" --encoding pcm24
contains "$tmp/out" "$tmp/force.flac: 89 samples at 44100 Hz, 24-bit mono"
"$vibro" export "$b" --signal contacts/hit/force --wav - >"$tmp/stdout.wav" && ok ||
  bad "WAV on standard output failed"
cmp -s "$tmp/stdout.wav" "$tmp/force.wav" && ok || bad "WAV on standard output differs from the file"
error "$tmp/x.flac: FLAC holds integer samples (valid --encoding: pcm16, pcm24)" \
  "$vibro" export "$b" --signal contacts/hit/force --flac "$tmp/x.flac" --encoding float
error "vibro export: --encoding pcm8: unknown (valid: pcm16, pcm24, float)" \
  "$vibro" export "$b" --signal contacts/hit/force --wav "$tmp/x.wav" --encoding pcm8
error "vibro export: --gain and --normalize exclude each other" \
  "$vibro" export "$b" --signal contacts/hit/force --wav "$tmp/x.wav" --gain 2 --normalize
error "vibro export: --gain -1: not a positive number" \
  "$vibro" export "$b" --signal contacts/hit/force --wav "$tmp/x.wav" --gain -1
error "vibro export: only one of --csv, --wav and --flac can write to standard output" \
  "$vibro" export "$b" --signal contacts/hit/force --wav - --csv -
[ -e "$tmp/x.wav" ] || [ -e "$tmp/x.flac" ] && bad "export left a file after an error" || ok
"$python" - "$tmp" <<'PY' >"$tmp/py.out" 2>&1 && ok || bad "sound cross-check: $(cat "$tmp/py.out")"
import struct, sys, h5py, numpy as np
tmp = sys.argv[1]
def chunks(path):
    raw = open(path, "rb").read()
    assert raw[:4] == b"RIFF" and raw[8:12] == b"WAVE", path
    out, i = {}, 12
    while i + 8 <= len(raw):
        tag, size = raw[i:i + 4], struct.unpack("<I", raw[i + 4:i + 8])[0]
        out[tag] = raw[i + 8:i + 8 + size]
        i += 8 + size + (size & 1)
    return out
with h5py.File(tmp + "/b.h5", "r") as f:
    g = f["signals"]
    force, u = g["contacts.hit.force"][0], g["bodies.hammer.u"][0]
# two channels of 24 bits, scaled by the peak of both
c = chunks(tmp + "/two.wav")
fmt = struct.unpack("<HHIIHH", c[b"fmt "][:16])
assert fmt[1] == 2 and fmt[2] == 44100 and fmt[5] == 24, fmt
d = np.frombuffer(c[b"data"], dtype=np.uint8).reshape(-1, 3).astype(np.int64)
v = d[:, 0] | (d[:, 1] << 8) | (d[:, 2] << 16)
v = np.where(v >= 1 << 23, v - (1 << 24), v).reshape(-1, 2)
peak = max(np.abs(force).max(), np.abs(u).max())
assert np.array_equal(v[:, 0], np.rint(force / peak * 8388607)), v[:5]
assert np.array_equal(v[:, 1], np.rint(u / peak * 8388607)), v[:5]
# float at a fixed gain: the samples times the gain, unclipped
c = chunks(tmp + "/gain.wav")
assert struct.unpack("<H", c[b"fmt "][:2])[0] in (3, 0xFFFE)
x = np.frombuffer(c[b"data"], dtype="<f4")
assert np.array_equal(x, (force * 0.00125).astype(np.float32)), x[:5]
# gain 1 on a force of hundreds of newtons: clipped to full scale
x = np.frombuffer(chunks(tmp + "/clip.wav")[b"data"], dtype="<i2")
assert np.array_equal(x, np.rint(np.clip(force, -1, 1) * 32767)), x[:5]
# FLAC: its STREAMINFO says 44100 Hz, mono, 24 bits, 89 samples
raw = open(tmp + "/force.flac", "rb").read()
assert raw[:4] == b"fLaC" and raw[4] & 0x7F == 0, raw[:8]
bits = int.from_bytes(raw[18:26], "big")
rate, ch, bps, n = bits >> 44, ((bits >> 41) & 7) + 1, ((bits >> 36) & 31) + 1, bits & (2**36 - 1)
assert (rate, ch, bps, n) == (44100, 1, 24, len(force)), (rate, ch, bps, n)
PY

# ------------------------------------------------ layout vibro-2 (doc/format.md)
# a finished file and a running study (OUT.part/ with a manifest and
# shards), made with h5py as doc/format.md lays them out: info and events
# read /study/table and /study/events, and the shards that the manifest
# lists with an intact line, in scene order
"$python" - "$tmp" <<'PY' >"$tmp/py.out" 2>&1 && ok || bad "making vibro-2 files: $(cat "$tmp/py.out")"
import os, sys, zlib, h5py, numpy as np
tmp = sys.argv[1]
contacts = ["hit", "stop"]
def study(path, scenes, nimpacts):
    with h5py.File(path, "w") as f:
        f.attrs["format"] = "vibro-2"
        f.attrs["vibro_version"] = "0.2.0"
        f.attrs["source"] = "v2.cfg"
        f.attrs["scenes"] = np.int64(len(scenes))
        st = f.create_group("study")
        st.attrs["mode"] = "grid"
        st.attrs["scenes"] = np.int64(6)
        st.attrs["params"] = ["contacts.hit.mu"]
        st.attrs["param_units"] = ["s/m"]
        tt = np.dtype([("index", "<i8"), ("contacts.hit.mu", "<f8"), ("status_code", "<i4"),
                       ("status", "S128"), ("samples", "<i8"), ("sample_interval", "<f8"),
                       ("final_energy", "<f8"), ("energy_balance_error", "<f8"),
                       ("events_start", "<i8"), ("events_count", "<i8"),
                       ("impacts:hit", "<i8"), ("newton_failures:hit", "<i8"), ("fallbacks:hit", "<i8"),
                       ("impacts:stop", "<i8"), ("newton_failures:stop", "<i8"), ("fallbacks:stop", "<i8")])
        et = np.dtype([("scene", "<i8"), ("contact", "<i4"), ("t_on", "<f8"), ("v_in", "<f8"),
                       ("samples", "<i4"), ("contacts.hit.mu", "<f8")])
        rows, events = [], []
        for i in scenes:
            mu = 0.1 + 0.2 * i
            failed = i == 4
            n = nimpacts(i)
            rows.append((i, mu, -3 if failed else 0, b"diverged at t=0.00123" if failed else b"done",
                         89, 1 / 44100.0, 0.005, 1e-6 * (i + 1), len(events), 2 * n,
                         n, 0, i, n, 0, 0))
            for c in range(2):
                for k in range(n):
                    events.append((i, c, 0.001 * k + 1e-4 * c, 1.0 - 0.125 * k, 16 + k, mu))
        t = st.create_dataset("table", data=np.array(rows, dtype=tt))
        t.attrs["units"] = ["1", "s/m", "1", "-", "1", "s", "J", "J", "1", "1", "1", "1", "1", "1", "1", "1"]
        e = st.create_dataset("events", data=np.array(events, dtype=et))
        e.attrs["units"] = ["1", "1", "s", "m/s", "1", "s/m"]
        e.attrs["contacts"] = contacts
        sg = f.create_group("signals")
        sg.create_dataset("scene", data=np.array(list(scenes), dtype="<i8"))
        sg.create_dataset("time", data=np.arange(89) / 44100.0).attrs["units"] = "s"
        force = np.array([np.sin(0.1 * (i + 1) * np.arange(89)) * (i + 1) for i in scenes])
        sg.create_dataset("contacts.hit.force", data=force).attrs["units"] = "N"
        sg.create_dataset("contacts.hit.mu", data=np.array([0.1 + 0.2 * i for i in scenes]))
        m = f.create_group("model")
        m.attrs["name"] = "v2"
        for b, kind in (("hammer", "mass"), ("wall", "wall")):
            m.create_group("bodies/" + b).attrs["type"] = kind
        for c in contacts:
            g = m.create_group("contacts/" + c)
            g.attrs["law"] = "hunt-crossley"
            g.attrs["scheme"] = "am1"
impacts = lambda i: 1 + i % 3
study(tmp + "/v2.h5", range(6), impacts)
part = tmp + "/run.h5.part"
os.mkdir(part)
study(part + "/r000-000001.h5", [3, 4], impacts)
study(part + "/r000-000000.h5", [0, 1, 2], impacts)
study(part + "/r000-000002.h5", [5], impacts)  # listed with a damaged line: not read
study(part + "/r000-000003.h5.tmp", [5], impacts)
def line(name, lo, hi):
    text = "%s %d %08x %d %d %d %08x " % (name, os.path.getsize(part + "/" + name), 0, hi - lo + 1, lo, hi, 0)
    return text + "%08x\n" % zlib.crc32(text.encode())
with open(part + "/manifest.r000", "w") as f:
    f.write(line("r000-000001.h5", 3, 4))
    f.write(line("r000-000000.h5", 0, 2))
    f.write(line("r000-000002.h5", 5, 5).replace(" 5 5 ", " 5 6 "))
PY
expect 0 "$vibro" info "$tmp/v2.h5"
contains "$tmp/out" "$tmp/v2.h5: vibro-2, written by vibro 0.2.0, from v2.cfg"
contains "$tmp/out" "model 'v2', bodies: hammer (mass), wall (wall)"
contains "$tmp/out" "6 scenes finished"
contains "$tmp/out" "scene 1 'v2': done; 89 samples at 44100 Hz; contacts.hit.mu 0.3"
contains "$tmp/out" "  contact 'stop': hunt-crossley, am1, 2 impacts"
contains "$tmp/out" "  contact 'hit': hunt-crossley, am1, 3 impacts, 2 quadratic fall-backs"
contains "$tmp/out" "5 done, 1 failed"
contains "$tmp/out" "failed: scene 4: diverged at t=0.00123"
contains "$tmp/out" "largest absolute energy balance error: 6e-06 J, scene 5"
contains "$tmp/out" "study events: 24 impacts in /study/events"
contains "$tmp/out" "  swept contacts.hit.mu: 0.1 .. 1.1 s/m, 6 values"
expect 0 "$vibro" info "$tmp/v2.h5" --all
equal "v2 info --all scenes" "$(grep -c '^scene ' "$tmp/out")" 6
expect 0 "$vibro" events "$tmp/v2.h5" --csv
equal "v2 events header" "$(head -n 1 "$tmp/out")" "scene,contact,t_on,v_in,samples,contacts.hit.mu"
equal "v2 events rows" "$(($(wc -l <"$tmp/out") - 1))" 24
equal "v2 events row 4" "$(sed -n 5p "$tmp/out")" "1,hit,0.001,0.875,17,0.30000000000000004"
expect 0 "$vibro" events "$tmp/v2.h5" --scene 2 --contact stop
equal "v2 events of scene 2, stop" "$(sed 1,2d "$tmp/out" | awk '{print $1, $2, $3}' | tr '\n' ';')" \
  "2 stop 0.0001;2 stop 0.0011;2 stop 0.0021;"
contains "$tmp/out" "[m/s]"
error "$tmp/v2.h5: no scene 6 (valid: 0-5)" "$vibro" events "$tmp/v2.h5" --scene 6
error "$tmp/v2.h5: no contact 'hti' (valid: hit, stop)" "$vibro" events "$tmp/v2.h5" --contact hti
# the running study: by OUT (not there yet) or by OUT.part, intact lines only
for name in "$tmp/run.h5" "$tmp/run.h5.part"; do
  expect 0 "$vibro" info "$name"
  contains "$tmp/out" "$name: vibro-2, written by vibro 0.2.0, from v2.cfg; interrupted (no process writes it): 2 shards finished so far"
  contains "$tmp/out" "5 scenes finished of the study's 6 (1 not yet)"
  expect 0 "$vibro" events "$name" --csv
  equal "running study events" "$(sed 1d "$tmp/out" | cut -d, -f1 | uniq | tr '\n' ' ')" "0 1 2 3 4 "
done
# export: the scene's row of a stacked signal, by either spelling of its
# path, from the finished file and from a shard of the running study
expect 0 "$vibro" export "$tmp/v2.h5" --scene 3 --signal contacts/hit/force --csv "$tmp/v2-3.csv"
expect 0 "$vibro" export "$tmp/run.h5" --scene 3 --signal contacts.hit.force --csv "$tmp/run-3.csv"
expect 0 "$vibro" export "$tmp/v2.h5" --scene 5 --signal contacts/hit/force --wav "$tmp/v2-5.wav"
contains "$tmp/out" "$tmp/v2-5.wav: 89 samples at 44100 Hz, 16-bit mono, peak "
"$python" - "$tmp" <<'PY' >"$tmp/py.out" 2>&1 && ok || bad "vibro-2 export: $(cat "$tmp/py.out")"
import sys, h5py, numpy as np
tmp = sys.argv[1]
want = h5py.File(tmp + "/v2.h5", "r")["signals/contacts.hit.force"][3]
for name in ("v2-3.csv", "run-3.csv"):
    t, v = np.loadtxt(tmp + "/" + name, delimiter=",", skiprows=1, unpack=True)
    assert np.array_equal(v, want) and np.array_equal(t, np.arange(89) / 44100.0), name
assert open(tmp + "/v2-3.csv").readline().strip() == "time (s),contacts/hit/force (N)"
PY
error "$tmp/v2.h5: 6 scenes: choose one with --scene (valid: 0-5)" \
  "$vibro" export "$tmp/v2.h5" --signal contacts/hit/force --csv "$tmp/x.csv"
error "$tmp/v2.h5: no scene 9 (valid: 0-5)" \
  "$vibro" export "$tmp/v2.h5" --scene 9 --signal contacts/hit/force --csv "$tmp/x.csv"
error "$tmp/v2.h5: no signal 'contacts/hit/forc' of [scene][time] in /signals (valid: contacts.hit.force)" \
  "$vibro" export "$tmp/v2.h5" --scene 1 --signal contacts/hit/forc --csv "$tmp/x.csv"
mkdir "$tmp/empty.h5.part"
expect 0 "$vibro" info "$tmp/empty.h5"
contains "$tmp/out" "$tmp/empty.h5: interrupted (no process writes it), no scene finished yet"
error "$tmp/none.h5: cannot open: No such file or directory" "$vibro" info "$tmp/none.h5"

# ------------------------------------------------------------- vibro-plot
expect 0 "$plot" --help
contains "$tmp/out" "usage: vibro-plot KIND OUT.h5 -o FIGURE"
# every kind the top help lists has its own help
kinds=$("$plot" --help | sed -n '/^  KIND$/,/^$/p' | awk '/^    [a-z]/ {print $1}')
equal "the kinds vibro-plot --help lists" "$(echo $kinds)" \
  "signal spectrum spectrogram phase force energy vout cor bifurcation section map friction stickslip schelleng basin"
for kind in $kinds; do
  expect 0 "$plot" "$kind" --help
  contains "$tmp/out" "usage: vibro-plot $kind"
done
# (sizes whose width / dpi * dpi falls a hair short of a whole pixel)
for kind in signal phase force energy vout; do
  expect 0 "$plot" "$kind" "$b" -o "$tmp/$kind.png" --size 402x226
  png "$tmp/$kind.png" 402 226
done
expect 0 "$plot" signal "$s" --scene 1 --signal bodies/hammer/u --signal bodies/plate/p1/u --signal energy/external \
  -o "$tmp/signals.png" --size 3x2in --dpi 50
png "$tmp/signals.png" 150 100
expect 0 "$plot" phase "$s" --scene 1 --contact stop --full -o "$tmp/phase1.png" --size 500x500
png "$tmp/phase1.png" 500 500
expect 0 "$plot" energy "$s" --scene 1 -o "$tmp/energy1.png"
png "$tmp/energy1.png" 800 600
expect 0 "$plot" vout "$s" --contact hit -o "$tmp/vout.png" --size 640x480
png "$tmp/vout.png" 640 480
expect 0 "$plot" bifurcation "$s" --value v_out -o "$tmp/bif.png" --size 701x333
png "$tmp/bif.png" 701 333
expect 0 "$plot" bifurcation "$s" --param contacts.hit.mu --last 1 -o "$tmp/bif.pdf"
equal "PDF magic" "$(text "$tmp/bif.pdf" 0 5)" "%PDF-"
expect 0 "$plot" bifurcation "$s" --last 1 -o "$tmp/last.svg"
contains "$tmp/last.svg" "<!-- v_in against contacts.hit.mu, 13 impacts -->"
expect 0 "$plot" force "$b" -o "$tmp/force.svg"
equal "SVG magic" "$(text "$tmp/force.svg" 0 5)" "<?xml"
contains "$tmp/force.svg" "<svg"
contains "$tmp/force.svg" "hunt-crossley, am1"

# what the figures show: matplotlib's SVG keeps each text in a comment
expect 0 "$plot" phase "$b" -o "$tmp/phase.svg"
contains "$tmp/phase.svg" "<!-- analytic x_max (eq 4) -->"
contains "$tmp/phase.svg" "<!-- analytic v_out (eq 6) -->"
contains "$tmp/phase.svg" "<!-- v_out eq 7-8 -->"
expect 0 "$plot" energy "$s" --scene 1 -o "$tmp/energy.svg"
contains "$tmp/energy.svg" "<!-- external -->"
contains "$tmp/energy.svg" "<!-- total + dissipated - external -->"
expect 0 "$plot" vout "$s" -o "$tmp/vout.svg"
contains "$tmp/vout.svg" "<!-- v_out_exact (eq 6), mu 0.7 -->"
contains "$tmp/vout.svg" "<!-- v_out_pred (eq 7-8), mu 0.1 -->"
contains "$tmp/vout.svg" "<!-- v_out against v_in, 43 impacts -->"
expect 0 "$plot" bifurcation "$s" --value x_max --after 0.002 -o "$tmp/bif.svg"
contains "$tmp/bif.svg" "<!-- x_max against contacts.hit.mu, 18 impacts -->"
contains "$tmp/bif.svg" "<!-- x_max (m) -->"
expect 0 "$plot" bifurcation "$s" --value max_compression:hit -o "$tmp/bifs.svg"
contains "$tmp/bifs.svg" "<!-- max_compression:hit against contacts.hit.mu, 12 scenes -->"
contains "$tmp/bifs.svg" "<!-- max_compression:hit (m) -->"

# its helpers: which samples a contact figure draws, sizes, cut lists
"$python" - "$plot" <<'PY' >"$tmp/py.out" 2>&1 && ok || bad "vibro-plot helpers: $(cat "$tmp/py.out")"
import importlib.machinery, importlib.util, sys, numpy as np
loader = importlib.machinery.SourceFileLoader("vibro_plot", sys.argv[1])
spec = importlib.util.spec_from_loader("vibro_plot", loader)
vp = importlib.util.module_from_spec(spec)
loader.exec_module(vp)
x = np.array([-1.0, -0.5, 0.2, 0.3, -0.1, -2.0, -3.0, 0.4])
assert vp.in_contact(x, "hunt-crossley", 0.0, False).tolist() == \
    [False, True, True, True, True, False, True, True]
assert vp.in_contact(x, "rattle", 1.5, False).tolist() == \
    [False, False, False, False, True, True, True, True]
assert vp.in_contact(x, "hunt-crossley", 0.0, True).all()
assert np.isnan(vp.broken(x, x > 0)[0]) and vp.broken(x, x > 0)[2] == 0.2
assert vp.parse_size("6.4x4.8in", 50) == (6.4, 4.8)
assert abs(vp.parse_size("201x113", 100)[0] * 100 - 201) < 1e-5
assert vp.join_choices(["a" * 100, "b" * 100, "c" * 100]) == "a" * 100 + ", " + "b" * 100 + ", ..."
PY

# vibro-plot's errors: one line, exit 1
error "$tmp/junk.h5: not a vibro output (not an HDF5 file)" "$plot" energy "$tmp/junk.h5" -o "$tmp/x.png"
error "$tmp/noformat.h5: not a vibro output (no 'format' attribute)" "$plot" energy "$tmp/noformat.h5" -o "$tmp/x.png"
error "$tmp/wrongformat.h5: not a vibro output (format 'matlab-7', valid: vibro-1, vibro-2, vibro-3)" \
  "$plot" vout "$tmp/wrongformat.h5" -o "$tmp/x.png"
error "$tmp/nostudy.h5: no /study/table: a bifurcation diagram needs a study (a scene file with a sweep)" \
  "$plot" bifurcation "$tmp/nostudy.h5" -o "$tmp/x.png"
# a plain scene's output has a one-row /study/table without swept columns
if "$python" -c 'import sys, h5py; sys.exit("study/table" not in h5py.File(sys.argv[1], "r"))' "$b"; then
  error "$b: /study/table has no swept parameter: a bifurcation diagram needs a study (a scene file with a sweep)" \
    "$plot" bifurcation "$b" -o "$tmp/x.png"
else
  error "$b: no /study/table: a bifurcation diagram needs a study (a scene file with a sweep)" \
    "$plot" bifurcation "$b" -o "$tmp/x.png"
fi
error "$b: no scene 3 (valid: 0)" "$plot" phase "$b" --scene 3 -o "$tmp/x.png"
error "$s: 12 scenes: choose one with --scene (valid: 0-11)" "$plot" energy "$s" -o "$tmp/x.png"
error "$s: scene 1 has 2 contacts: choose one with --contact (valid: hit, stop)" \
  "$plot" force "$s" --scene 1 -o "$tmp/x.png"
error "$b: no contact 'hti' in scene 0 (valid: hit)" "$plot" phase "$b" --contact hti -o "$tmp/x.png"
error "$b: no signal 'bodies/hamer/u' in scene 0 (valid: bodies/hammer/u, bodies/hammer/v, contacts/hit/compression, contacts/hit/force, contacts/hit/rate, energy/dissipated, energy/kinetic, energy/potential, energy/total)" \
  "$plot" signal "$b" --signal bodies/hamer/u -o "$tmp/x.png"
error "$s: no column 'contacts.hit.k' in /study/table (valid: contacts.hit.mu)" \
  "$plot" bifurcation "$s" --param contacts.hit.k -o "$tmp/x.png"
error "$s: no event field or /study/table column 'vin' (valid: duration, duration_pred, energy_after, energy_before, fallbacks, newton_iterations_max, peak_force, samples, t_off, t_on, v_in, v_out, v_out_exact, v_out_pred, x_max, x_max_pred, status_code, final_energy, energy_balance_error, impacts:hit, ...)" \
  "$plot" bifurcation "$s" --value vin -o "$tmp/x.png"
error "$tmp/x.jpg: unsupported figure format '.jpg' (valid: .png, .pdf, .svg)" \
  "$plot" energy "$b" -o "$tmp/x.jpg"
error "bad --size '800by600' (expected WxH in pixels, e.g. 800x600, or WxHin in inches, e.g. 6.4x4.8in)" \
  "$plot" energy "$b" -o "$tmp/x.png" --size 800by600
[ -e "$tmp/x.png" ] && bad "vibro-plot left a figure after an error" || ok

# ------------------------------------------- an old file: vibro-2 (tests/data)
# tests/data/study-vibro2.h5 was written by vibro at 632d625 (layout
# vibro-2); study-vibro2.expected/ holds what the vibro-2 readers printed for
# it (info, events as text and CSV, filtered, and export).  Today's readers
# must print the same.  The same study written now (vibro-3) has the same
# columns (the values may move with the physics: not compared here)
for spec in "info:info.txt" "events:events.txt" "events --csv:events.csv" \
  "events --scene 2 --contact roof:events-scene2-roof.txt" \
  "export --scene 3 --signal contacts/roof/force --signal energy/total --csv -:export-scene3.csv"; do
  cmd=${spec%%:*}
  want="$srcdir/tests/data/study-vibro2.expected/${spec#*:}"
  # shellcheck disable=SC2086
  (cd "$srcdir/tests/data" && "$vibro" $cmd study-vibro2.h5) >"$tmp/old.out" 2>&1 ||
    bad "vibro $cmd on the vibro-2 file failed: $(cat "$tmp/old.out")"
  if cmp -s "$want" "$tmp/old.out"; then ok; else
    bad "vibro $cmd on the vibro-2 file: $(diff "$want" "$tmp/old.out" | head -5)"
  fi
done
cp "$srcdir/tests/data/study-vibro2.cfg" "$tmp/v2again.cfg"
expect 0 "$vibro" run "$tmp/v2again.cfg" -o "$tmp/v2again.h5" -j 1
expect 0 "$vibro" events "$tmp/v2again.h5" --csv
equal "vibro-3 events columns" "$(head -n 1 "$tmp/out")" \
  "$(head -n 1 "$srcdir/tests/data/study-vibro2.expected/events.csv"),impact,cor"
expect 0 "$vibro" info "$tmp/v2again.h5"
# (vibro-3 says which scenes ended inside an impact: engaged_at_end)
equal "vibro-3 info lines" "$(grep -vc '^ended inside an impact: ' "$tmp/out")" \
  "$(wc -l <"$srcdir/tests/data/study-vibro2.expected/info.txt" | tr -d ' ')"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

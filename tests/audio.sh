#!/bin/sh
# audio.sh - vibro export's sound files against independent readers: a
# float WAV read by Python's own RIFF parsing and by sox (no warning), the
# --dc and --highpass conditioning against numpy and scipy.signal, the
# rate warning when fs / record.every is not whole, and the names refused.
# Run by make check.
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
python=${PYTHON:-/usr/bin/python3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vibro-audio.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$srcdir/tests/testlib.sh"

# a hammer that rests on the wall after its bounce: u has a static offset
# (gravity pushes it into a soft contact), the pickup's click at the start
cat >"$tmp/rest.cfg" <<'CFG'
scene = { name = "rest"; fs = 44100.0; duration = 0.05; gravity = 9.81; };
bodies = (
  { name = "hammer"; type = "mass"; mass = 0.01; u0 = 0.0; v0 = -0.3; },
  { name = "wall";   type = "wall"; position = 0.0; }
);
contacts = (
  { name = "hit"; between = ["wall", "hammer"]; law = "hunt-crossley";
    k = 1.0e5; alpha = 1.0; mu = 5.0; scheme = "two-point"; }
);
CFG
b="$tmp/rest.h5"
expect 0 "$vibro" run "$tmp/rest.cfg" -o "$b" --quiet

# names: a WAV is .wav, .wave or has no extension; FLAC .flac
error "vibro export: --wav $tmp/x.mp3: writes a WAV file; name it .wav (valid: .wav, .wave, or no extension)" \
  "$vibro" export "$b" --signal bodies/hammer/u --wav "$tmp/x.mp3"
error "vibro export: --flac $tmp/x.ogg: writes a FLAC file; name it .flac (valid: .flac, or no extension)" \
  "$vibro" export "$b" --signal bodies/hammer/u --flac "$tmp/x.ogg"
error "vibro export: --dc and --highpass apply to sound files (--wav, --flac); a CSV holds the signals as recorded" \
  "$vibro" export "$b" --signal bodies/hammer/u --csv "$tmp/x.csv" --dc
error "vibro export: --highpass -5: not a positive frequency in Hz" \
  "$vibro" export "$b" --signal bodies/hammer/u --wav "$tmp/x.wav" --highpass -5
error "$tmp/x.wav: --highpass 30000: at or above half the recorded rate, 22050 Hz" \
  "$vibro" export "$b" --signal bodies/hammer/u --wav "$tmp/x.wav" --highpass 30000
ls "$tmp"/x.* >/dev/null 2>&1 && bad "export left a file after an error" || ok
expect 0 "$vibro" export "$b" --signal bodies/hammer/u --wav "$tmp/UPPER.WAV"
expect 0 "$vibro" export "$b" --signal bodies/hammer/u --wav "$tmp/plain"

# the three conditionings, float, two channels
expect 0 "$vibro" export "$b" --signal bodies/hammer/u --signal contacts/hit/force \
  --wav "$tmp/raw.wav" --encoding float
expect 0 "$vibro" export "$b" --signal bodies/hammer/u --signal contacts/hit/force \
  --wav "$tmp/dc.wav" --encoding float --dc
expect 0 "$vibro" export "$b" --signal bodies/hammer/u --signal contacts/hit/force \
  --wav "$tmp/hp.wav" --encoding float --highpass 120
expect 0 "$vibro" export "$b" --signal bodies/hammer/u --signal contacts/hit/force \
  --wav "$tmp/hp16.wav" --highpass 120

if "$python" -c "import h5py, numpy, scipy.signal" 2>/dev/null; then
  "$python" - "$tmp" <<'PY' >"$tmp/py.out" 2>&1 && ok || bad "sound files against numpy/scipy: $(cat "$tmp/py.out")"
import struct, sys
import h5py, numpy as np, scipy.signal as ss
tmp = sys.argv[1]

def chunks(path):
    raw = open(path, "rb").read()
    assert raw[:4] == b"RIFF" and raw[8:12] == b"WAVE", path
    assert struct.unpack("<I", raw[4:8])[0] == len(raw) - 8, "RIFF size"
    out, i = {}, 12
    while i < len(raw):
        cid, n = raw[i:i + 4], struct.unpack("<I", raw[i + 4:i + 8])[0]
        out[cid] = raw[i + 8:i + 8 + n]
        i += 8 + n + (n & 1)
    return out

f = h5py.File(tmp + "/rest.h5", "r")
n = int(f["study/table"]["samples"][0])
x = np.stack([f["signals/bodies.hammer.u"][0, :n], f["signals/contacts.hit.force"][0, :n]], 1)

def check(name, want):
    c = chunks(tmp + "/" + name)
    tag, ch, rate, bps, align, bits, cb = struct.unpack("<HHIIHHH", c[b"fmt "])
    assert len(c[b"fmt "]) == 18 and cb == 0, "fmt chunk of 18 bytes with cbSize 0"
    assert (tag, ch, rate, bps, align, bits) == (3, 2, 44100, 44100 * 8, 8, 32), c[b"fmt "]
    assert struct.unpack("<I", c[b"fact"])[0] == n, "fact: frames"
    got = np.frombuffer(c[b"data"], "<f4").reshape(n, 2)
    ref = (want / np.abs(want).max()).astype(np.float32)
    assert np.array_equal(got, ref) or np.abs(got - ref).max() < 4e-7, (name, np.abs(got - ref).max())
    return got

check("raw.wav", x)
assert abs(x[0, 0] - x[:, 0].mean()) > 0.1 * np.abs(x[:, 0]).max(), "the scene has an offset"
check("dc.wav", x - x.mean(0))
b, a = ss.butter(2, 120.0, "highpass", fs=44100.0)
# at rest on the first sample (as if it had always been there): the same as
# filtering the signal less its first sample from zero state; no click
y = np.stack([ss.lfilter(b, a, x[:, k] - x[0, k]) for k in range(2)], 1)
got = check("hp.wav", y)
assert got[0, 0] == 0.0, "the high-pass starts at rest"
pcm = np.frombuffer(chunks(tmp + "/hp16.wav")[b"data"], "<i2").reshape(n, 2)
assert np.abs(pcm - np.rint(y / np.abs(y).max() * 32767)).max() <= 1, "pcm16 high-passed"
print("ok")
PY
else
  echo "SKIP: $python lacks h5py, numpy or scipy: sound files not compared"
fi

# sox reads the float WAV without a warning (it warned of a 16-byte fmt chunk)
if command -v soxi >/dev/null 2>&1; then
  expect 0 soxi "$tmp/raw.wav"
  [ -s "$tmp/err" ] && bad "soxi: $(cat "$tmp/err")" || ok
  contains "$tmp/out" "32-bit Floating Point PCM"
else
  echo "SKIP: no soxi (apt-get install sox): the float WAV is not read by sox"
fi

# fs / record.every not whole: written rounded, with a warning in cents
{ cat "$tmp/rest.cfg"; echo 'record = { every = 13; };'; } >"$tmp/every13.cfg"
expect 0 "$vibro" run "$tmp/every13.cfg" -o "$tmp/e13.h5" --quiet
expect 0 "$vibro" export "$tmp/e13.h5" --signal bodies/hammer/u --wav "$tmp/e13.wav"
only_line "$tmp/err" "warning: $tmp/e13.wav: the recorded rate fs / record.every, 3392.30769 Hz, is written as 3392 Hz (-0.157 cents)"
expect 0 "$vibro" export "$b" --signal bodies/hammer/u --wav "$tmp/whole.wav"
[ -s "$tmp/err" ] && bad "a whole rate warned: $(cat "$tmp/err")" || ok

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

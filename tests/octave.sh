#!/bin/sh
# octave.sh - GNU Octave reads every table column, event column and signal
# of a vibro-3 file with its own HDF5 reader (`load -hdf5`: no package,
# no h5read in Octave 7), and gets the values h5py gets: for each numeric
# dataset its element count, first, middle and last element (HDF5 order,
# which Octave's transposed arrays keep in linear indexing), minimum and
# maximum, printed with %.17g, and the first text of each text column.
# Skipped (77) where octave-cli is not installed; run by make check.
set -u
srcdir=${srcdir:-.}
vibro=${VIBRO:-tools/vibro}
python=${PYTHON:-/usr/bin/python3}
command -v octave-cli >/dev/null 2>&1 || { echo "octave-cli not installed: skipped"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vibro-octave.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$srcdir/tests/testlib.sh"

# two contacts (a per-contact column is [scene][contact]), a 3-scene sweep,
# every signal recorded, events on both contacts
cat >"$tmp/two.cfg" <<'CFG'
scene = { name = "two"; fs = 44100.0; duration = 0.05; gravity = 0.0; };
bodies = (
  { name = "bead"; type = "mass"; mass = 0.002; u0 = 0.0; v0 = 0.5; },
  { name = "floor"; type = "wall"; position = -1.0e-3; },
  { name = "roof"; type = "wall"; position = 1.0e-3; }
);
contacts = (
  { name = "top"; between = ["bead", "roof"]; law = "hunt-crossley";
    k = 1.0e7; alpha = 1.5; mu = 0.2; scheme = "two-point"; },
  { name = "bottom"; between = ["floor", "bead"]; law = "power";
    k = 1.0e7; alpha = 1.5; scheme = "am1"; }
);
record = { every = 4; };
sweep = { params = ( { path = "bodies.bead.v0"; values = [0.3, 0.5, 0.8]; } ); };
CFG
f="$tmp/two.h5"
expect 0 "$vibro" run "$tmp/two.cfg" -o "$f" --quiet

# Octave: walk the structs load() builds (groups), '.' in a name becomes '_'
cat >"$tmp/dump.m" <<'OCT'
function walk(x, path)
  names = sort(fieldnames(x));
  for i = 1:numel(names)
    v = x.(names{i});
    p = [path "/" names{i}];
    if isstruct(v)
      walk(v, p);
    elseif ischar(v)
      printf("%s text %s\n", p, strtrim(v(1, :)));
    elseif isnumeric(v)
      v = double(v(:));
      n = numel(v);
      m = floor((n - 1) / 2) + 1;
      printf("%s %d %.17g %.17g %.17g %.17g %.17g\n", p, n, v(1), v(m), v(end), min(v), max(v));
    end
  end
end
x = load("-hdf5", getenv("FILE"));
walk(x, "");
OCT
FILE="$f" octave-cli --no-gui --quiet --eval "source('$tmp/dump.m')" >"$tmp/octave.txt" 2>"$tmp/octave.err"
rc=$?
equal "octave-cli's exit status ($(head -3 "$tmp/octave.err"))" "$rc" 0

# h5py: the same walk over the file, names as Octave gives them
"$python" - "$f" >"$tmp/h5py.txt" <<'PY'
import sys, warnings, h5py, numpy as np
warnings.simplefilter("ignore", RuntimeWarning)  # nanmin of an all-NaN column: NaN, as Octave
def walk(g, path):
    for name in sorted(g.keys(), key=lambda k: k.replace(".", "_")):
        v = g[name]
        p = path + "/" + name.replace(".", "_")
        if isinstance(v, h5py.Group):
            walk(v, p)
        elif v.dtype.kind == "S":
            # Octave's char matrix: one row per string; its first row
            first = v[()].ravel()[0] if v.size else b""
            print(p, "text", first.decode().strip())
        elif v.dtype.kind in "iuf":
            a = np.asarray(v[()], dtype=float).ravel()
            n = a.size
            m = (n - 1) // 2
            print(p, n, *("%.17g" % x for x in (a[0], a[m], a[-1], np.nanmin(a), np.nanmax(a))))
with h5py.File(sys.argv[1], "r") as f:
    walk(f, "")
PY
# Octave's min/max skip NaN as numpy's nanmin/nanmax do; its NaN prints "NaN"
sed 's/\bnan\b/NaN/g; s/\binf\b/Inf/g' "$tmp/h5py.txt" | sort >"$tmp/h5py.sorted"
sort "$tmp/octave.txt" >"$tmp/octave.sorted"
if cmp -s "$tmp/h5py.sorted" "$tmp/octave.sorted"; then ok
else bad "Octave and h5py differ: $(diff "$tmp/h5py.sorted" "$tmp/octave.sorted" | head -20)"; fi

# what the file must hold for the comparison to mean something: every
# column of both tables and every signal, each seen by Octave
for path in /study/table/impacts /study/table/contact /study/table/status \
            /study/table/bodies_bead_v0 /study/events/v_in /study/events/t_on \
            /study/events/contact /signals/contacts_top_force /signals/bodies_bead_u; do
  contains "$tmp/octave.txt" "$path "
done
n=$(wc -l <"$tmp/octave.txt")
want=$(wc -l <"$tmp/h5py.txt")
equal "datasets Octave read" "$n" "$want"
# the [scene][contact] impacts: 3 scenes x 2 contacts, at least one impact each
grep "^/study/table/impacts " "$tmp/octave.txt" | { read -r p n first mid last lo hi
  equal "impacts' element count" "$n" 6
  if [ "$lo" -ge 1 ] 2>/dev/null; then ok; else bad "a scene's contact without an impact: $lo"; fi; }

echo "octave.sh: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

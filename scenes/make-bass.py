#!/usr/bin/python3
"""make-bass.py - write scenes/bass-fretted.cfg from the published bass case.

The electric-bass string of Issanchou, Acary, Perignon, Touze & Le Carrou
(JASA 143(5), 2018; data of the Siconos examples, siconos-tutorials,
examples/mechanics/Music, Apache-2.0, converted from .mat to CSV: the
bass-*.csv files here).  Its pluck, bass-fretted-pluck.csv's q0, is given in
the mass-normalised form (shapes sqrt(2/L) sin(j pi x/L)); vibro's string
has the shapes sin(j pi x/L) and modal mass mu L/2, so q_j = q0_j sqrt(2/L).
The pluck is written into the scene as q0; everything else is read by the
scene from the CSV files.  Run from scenes/:  ./make-bass.py
"""
import csv
import math

L = 0.863


def q0_physical(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    return [float(r["q0"]) * math.sqrt(2.0 / L) for r in rows]


def main():
    q0 = q0_physical("bass-fretted-pluck.csv")
    text = f"""# bass-fretted.cfg: the published electric-bass string (Issanchou et al.,
# JASA 143(5), 2018) on the 20 frets of its neck: 862 measured modes
# (bass-fretted-modes.csv: frequencies and decay rates), the string's
# analytic shapes sin(j pi x/L), the published pluck (q0, from
# bass-fretted-pluck.csv by make-bass.py; do not edit by hand), and one
# distributed contact of 20 points at the frets (bass-frets.csv: x and
# height, the neck below the string).  The three-point scheme steps every
# mode, the 789 above fs/2 aliased exactly (lib/nyquist.c).  The published
# contact is rigid (restitution 0, 0.5 or 1); here a stiff power law.
scene = {{ name = "bass-fretted"; fs = 62720.0; duration = 0.1; gravity = 0.0; }};
bodies = (
  {{ name = "neck"; type = "wall"; }},
  {{ name = "string"; type = "modal";
    preset = {{ kind = "string"; nmodes = 862; length = {L}; tension = 191.6;
               linear_density = 0.0067; frequencies = "bass-fretted-modes.csv"; }};
    points = ( {{ name = "pickup"; x = 0.501; }}, {{ name = "bridge_end"; x = 0.854; }} );
    q0 = [{", ".join(repr(v) for v in q0)}];
  }}
);
contacts = (
  {{ name = "frets"; between = ["neck", "string"]; law = "power"; k = 1e10; alpha = 1.5;
    scheme = "three-point";
    points = {{ file = "bass-frets.csv"; }};
    profile = {{ file = "bass-frets.csv"; }};
  }}
);
record = {{ signals = ["bodies/string/pickup/u", "energy/*", "contacts/*/force"]; }};
"""
    with open("bass-fretted.cfg", "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""genscene.py - random valid scenes for what tests/random/scenegen.c leaves
out: the modal presets (bar, plate, membrane, string with inharmonicity,
pluck and loss), measured modes (modes_file CSV), distributed contacts
(points from/to/n, x lists and CSV files; profiles height, heights,
parabola and CSV files), a string's measured frequencies and any preset's
initial displacements from CSV files, oscillators, constant and harmonic
forces, sine, noise and profile drives, contacts between two modal
bodies, the sav scheme, exact_duration and sweeps (linspace, logspace,
values; grid, zip, random).

    genscene.py SEED DIR      writes DIR/s.cfg (and DIR/modes.csv when used)
                              and prints, on stdout, one line of facts
                              (islands' schemes) for the driver.

The same seed gives the same text on every machine (random.Random).
"""
import json
import math
import os
import random
import sys

SCHEMES = ["two-point", "am1", "three-point", "quadratic", "verlet",
           "position-verlet", "heun", "rk4", "sav"]
EXPLICIT = {"verlet", "position-verlet", "heun", "rk4"}
CORRECTABLE = {"two-point", "am1", "verlet", "position-verlet", "heun", "rk4"}


def r(x):
    return repr(float(x))


class Gen:
    def __init__(self, seed, outdir):
        self.R = random.Random(seed)
        self.dir = outdir
        self.bodies = []
        self.contacts = []
        self.forces = []
        self.sweepable = []      # (path, value > 0 or any, kind)
        self.facts = {"islands": []}
        self.nb = 0

    def name(self, stem):
        self.nb += 1
        return "%s%d" % (stem, self.nb)

    # ---- bodies -------------------------------------------------------
    def preset(self, kind, explicit, fs):
        R = self.R
        nm = R.randint(1, 6 if explicit else 24)
        if kind == "string":
            L = R.uniform(0.3, 1.0)
            p = {"kind": "string", "nmodes": nm, "length": L,
                 "tension": R.uniform(20, 120), "linear_density": R.uniform(5e-4, 6e-3)}
            if R.random() < 0.3:
                p["inharmonicity"] = R.choice([0.0, R.uniform(0, 1e-3)])
            geom = ("line", L)
        elif kind == "bar":
            L = R.uniform(0.1, 0.5)
            p = {"kind": "bar", "nmodes": min(nm, 8), "length": L, "width": R.uniform(0.01, 0.04),
                 "thickness": R.uniform(0.002, 0.01), "youngs": R.uniform(5e9, 2e11),
                 "density": R.uniform(700, 8000)}
            geom = ("line", L)
        elif kind == "plate":
            L, W = R.uniform(0.2, 0.5), R.uniform(0.1, 0.4)
            p = {"kind": "plate", "nmodes": nm, "length": L, "width": W,
                 "thickness": R.uniform(0.001, 0.004), "youngs": R.uniform(5e9, 2e11),
                 "density": R.uniform(700, 8000), "poisson": R.uniform(0.2, 0.4)}
            geom = ("rect", L, W)
        else:
            a = R.uniform(0.05, 0.2)
            p = {"kind": "membrane", "nmodes": nm, "radius": a,
                 "tension": R.uniform(500, 4000), "surface_density": R.uniform(0.1, 0.4)}
            geom = ("disc", a)
        return p, geom

    def point_xy(self, geom, margin=0.05):
        R = self.R
        if geom[0] == "line":
            return (R.uniform(margin, 1 - margin) * geom[1], None)
        if geom[0] == "rect":
            return (R.uniform(margin, 1 - margin) * geom[1], R.uniform(margin, 1 - margin) * geom[2])
        rho, th = geom[1] * R.uniform(0, 0.9), R.uniform(0, 2 * math.pi)
        return (rho * math.cos(th), rho * math.sin(th))

    def modal(self, scheme, fs, k_isl):
        """A modal body: preset, freq list or modes_file. Returns dict."""
        R = self.R
        explicit = scheme in EXPLICIT
        nm = self.name("m")
        how = R.choice(["preset", "preset", "preset", "freq", "file"])
        b = {"name": nm, "points": [], "geom": None, "preset": None}
        txt = '{ name = "%s"; type = "modal";' % nm
        npts = R.randint(1, 3)
        fmax = fs / 12.0 if explicit else fs / 3.0
        if how == "preset":
            kind = R.choice(["string", "bar", "plate", "membrane"])
            p, geom = self.preset(kind, explicit, fs)
            b["geom"], b["preset"] = geom, kind
            if kind == "string" and R.random() < 0.4:
                p["pluck"] = [R.uniform(0.1, 0.9) * geom[1], R.uniform(-2e-4, 2e-4)]
            elif R.random() < 0.2:
                fn = "init%d.csv" % self.nb
                with open(os.path.join(self.dir, fn), "w") as f:
                    f.write("mode,q0\n")
                    for j in range(p["nmodes"] + R.randint(0, 3)):
                        f.write("%d,%s\n" % (j + 1, r(R.uniform(-1e-5, 1e-5) / (j + 1))))
                p["initial"] = "{ file = \"%s\"; column = \"q0\"; scale = %s; }" % (fn, r(R.uniform(0.5, 2)))
            if kind == "string" and "inharmonicity" not in p and R.random() < 0.25:
                fn = "freqs%d.csv" % self.nb
                f0 = R.uniform(50, 300)
                with open(os.path.join(self.dir, fn), "w") as f:
                    f.write("mode,freq_hz,sigma_per_s\n")
                    for j in range(p["nmodes"] + R.randint(0, 3)):
                        f.write("%d,%s,%s\n" % (j + 1, r(f0 * (j + 1) * R.uniform(0.99, 1.01)), r(R.uniform(0, 5))))
                p["frequencies"] = "\"%s\"" % fn
            fields = "; ".join("%s = %s" % (k, ('"%s"' % v if k == "kind" else v) if isinstance(v, str) else
                                           (str(v) if isinstance(v, int) else
                                            "[%s]" % ", ".join(r(x) for x in v) if isinstance(v, list) else r(v)))
                               for k, v in p.items())
            txt += " preset = { %s; };" % fields
            pts = []
            for i in range(npts):
                x, y = self.point_xy(geom)
                pname = "p%d" % i
                pts.append('{ name = "%s"; x = %s;%s }' % (pname, r(x), "" if y is None else " y = %s;" % r(y)))
                b["points"].append(pname)
            txt += " points = ( %s );" % ", ".join(pts)
            nmodes = p["nmodes"]
        elif how == "freq":
            nmodes = R.randint(1, 5)
            freqs = sorted(R.uniform(20, fmax) for _ in range(nmodes))
            if R.random() < 0.3:
                freqs[0] = 0.0
            txt += " freq = [%s]; mass = %s;" % (", ".join(r(f) for f in freqs), r(R.uniform(0.005, 0.1)))
            pts = []
            for i in range(npts):
                pname = "p%d" % i
                pts.append('{ name = "%s"; shape = [%s]; }' % (pname, ", ".join(r(R.uniform(-1, 1)) for _ in range(nmodes))))
                b["points"].append(pname)
            txt += " points = ( %s );" % ", ".join(pts)
        else:
            nmodes = R.randint(1, 5)
            fn = "modes%d.csv" % self.nb
            with open(os.path.join(self.dir, fn), "w") as f:
                pn = ["p%d" % i for i in range(npts)]
                f.write("freq,t60,mass," + ",".join(pn) + "\n")
                for j in range(nmodes):
                    f.write("%s,%s,%s,%s\n" % (r(R.uniform(20, fmax)), r(R.uniform(0.1, 3)),
                                               r(R.uniform(0.005, 0.1)),
                                               ",".join(r(R.uniform(-1, 1)) for _ in pn)))
            b["points"] = pn
            txt += ' modes_file = "%s";' % fn
        # damping (not for lossless islands half the time)
        d = R.random()
        if d < 0.15:
            txt += " t60 = %s;" % r(R.uniform(0.05, 2))
        elif d < 0.3:
            txt += " zeta = %s;" % r(R.uniform(0, 0.05))
        elif d < 0.4:
            txt += " quality = %s;" % r(R.uniform(5, 500))
        elif d < 0.5:
            txt += " loss = [%s, %s];" % (r(R.uniform(0, 5)), r(R.uniform(0, 1e-6)))
        if R.random() < 0.3 and how != "file" and "pluck" not in txt:
            txt += " dq0 = [%s];" % ", ".join(r(R.uniform(-0.3, 0.3)) for _ in range(nmodes))
        txt += " }"
        b["text"] = txt
        b["kind"] = "modal"
        self.bodies.append(b)
        return b

    def mass(self):
        R = self.R
        nm = self.name("b")
        if R.random() < 0.25:
            txt = '{ name = "%s"; type = "oscillator"; mass = %s; freq = %s; v0 = %s;' % (
                nm, r(R.uniform(0.002, 0.05)), r(R.uniform(20, 2000)), r(R.uniform(-1, 1)))
            d = R.choice(["", " zeta = %s;" % r(R.uniform(0, 0.1)), " quality = %s;" % r(R.uniform(5, 500)),
                          " t60 = %s;" % r(R.uniform(0.01, 2))])
            txt += d + " }"
            b = {"name": nm, "kind": "mass", "text": txt, "points": []}
            self.bodies.append(b)
            self.sweepable.append(("bodies.%s.v0" % nm, "v"))
            return b
        txt = '{ name = "%s"; type = "mass"; mass = %s; v0 = %s;' % (nm, r(R.uniform(0.002, 0.05)),
                                                                  r(R.uniform(-1, 1)))
        if R.random() < 0.4:
            txt += " u0 = %s;" % r(R.uniform(-1e-4, 1e-4))
        if R.random() < 0.3:
            txt += " k = %s;" % r(R.uniform(1e2, 1e5))
        txt += " }"
        b = {"name": nm, "kind": "mass", "text": txt, "points": []}
        self.bodies.append(b)
        self.sweepable.append(("bodies.%s.v0" % nm, "v"))
        return b

    def wall(self, driven=False):
        R = self.R
        nm = self.name("w")
        txt = '{ name = "%s"; type = "wall";' % nm
        if R.random() < 0.5:
            txt += " position = %s;" % r(R.uniform(-1e-4, 1e-4))
        if driven:
            kind = R.choice(["sine", "sine", "noise", "profile"])
            if kind == "sine":
                txt += ' drive = { type = "sine"; amplitude = %s; freq = %s; };' % (
                    r(R.uniform(0, 1e-4)), r(R.uniform(10, 500)))
            elif kind == "noise":
                txt += ' drive = { type = "noise"; rms = %s; bandwidth = %s; seed = %d; components = %d; };' % (
                    r(R.uniform(0, 3e-5)), r(R.uniform(10, 2000)), R.randint(0, 99), R.randint(1, 64))
            else:
                fn = "prof%d.txt" % self.nb
                with open(os.path.join(self.dir, fn), "w") as f:
                    for _ in range(R.randint(4, 50)):
                        f.write("%s\n" % r(R.uniform(-5e-5, 5e-5)))
                txt += ' drive = { type = "profile"; file = "%s"; speed = %s; spacing = %s; };' % (
                    fn, r(R.uniform(0.1, 3)), r(R.uniform(1e-3, 1e-2)))
        txt += " }"
        b = {"name": nm, "kind": "wall", "text": txt, "points": []}
        self.bodies.append(b)
        return b

    # ---- contacts -----------------------------------------------------
    def at(self, b):
        if b["kind"] == "modal":
            return "%s.%s" % (b["name"], self.R.choice(b["points"]))
        return b["name"]

    def law_text(self, scheme):
        R = self.R
        laws = ["power", "hunt-crossley", "rattle", "lankarani-nikravesh", "flores",
                "polynomial", "spring"]
        if scheme == "sav":
            laws = laws[:5]
        law = R.choice(laws)
        keff, x0 = 10 ** R.uniform(4, 6.5), 1e-4
        alpha = 1.0 if R.random() < 0.3 else R.uniform(1.0, 2.5)
        t = 'law = "%s";' % law
        lossless = True
        if law in ("power", "hunt-crossley", "rattle", "lankarani-nikravesh", "flores"):
            t += " k = %s; alpha = %s;" % (r(keff / x0 ** (alpha - 1)), r(alpha))
        if law == "hunt-crossley":
            mu = 0.0 if scheme == "sav" or R.random() < 0.3 else R.uniform(0, 1.5)
            t += " mu = %s;" % r(mu)
            lossless = mu == 0
        if law == "rattle":
            t += " h = %s;" % r(R.uniform(0, 2e-4))
            if scheme != "sav" and R.random() < 0.4:
                t += " mu = %s;" % r(R.uniform(0, 1.0))
                lossless = False
        if law in ("lankarani-nikravesh", "flores"):
            e = 1.0 if scheme == "sav" or R.random() < 0.3 else R.uniform(0.3, 1.0)
            t += " e = %s;" % r(e)
            lossless = e == 1.0
        if law == "polynomial":
            a = R.choice([1.0, 3.0])
            t = 'law = "polynomial"; k = %s; alpha = %s;' % (r(keff / 30 / (a * x0 ** (a - 1))), r(a))
        if law == "spring":
            t = 'law = "spring"; k = %s;' % r(keff / 30)
            if R.random() < 0.5:
                t += " c = %s;" % r(R.uniform(0, 2))
                lossless = False
        return law, alpha, t, lossless

    def contact(self, a, b, scheme, island):
        R = self.R
        nm = self.name("c")
        if R.random() < 0.5:
            a, b = b, a
        law, alpha, lt, lossless = self.law_text(scheme)
        t = '{ name = "%s"; between = ["%s", "%s"]; scheme = "%s"; %s' % (nm, self.at(a), self.at(b), scheme, lt)
        if law not in ("polynomial", "spring"):
            t += " gap = %s;" % r(R.uniform(0, 1e-4))
        if scheme == "quadratic" and R.random() < 0.4:
            t += " s = %s;" % r(R.uniform(0.5, 3))
        if scheme in CORRECTABLE and law not in ("polynomial", "spring") and R.random() < 0.3:
            c = R.choice(['"xmax"', '"vout"', '"xmax", "vout"'])
            t += " corrections = [%s];" % c
            island["corrected"] = True
        if law == "power" and alpha == 1.0 and scheme in ("two-point", "three-point") and R.random() < 0.5:
            t += " exact_duration = true; saturate = true;"
        t += " }"
        island["lossless"] &= lossless
        self.contacts.append(t)
        if law not in ("polynomial", "spring"):
            self.sweepable.append(("contacts.%s.k" % nm, "k"))
        return nm

    def distributed(self, body, other, scheme, island):
        R = self.R
        nm = self.name("d")
        geom = body["geom"]
        span = geom[1] if geom[0] != "disc" else geom[1]
        n = R.randint(2, 40)
        lo, hi = (0.05 * span, 0.95 * span) if geom[0] != "disc" else (-0.8 * span, 0.8 * span)
        a, b = sorted(R.uniform(lo, hi) for _ in range(2))
        if b - a < 1e-4:
            b = a + 1e-3
        from_file = R.random() < 0.15
        if from_file:
            fn = "neck%d.csv" % self.nb
            xs = [a + (b - a) * i / max(n - 1, 1) for i in range(n)]
            with open(os.path.join(self.dir, fn), "w") as f:
                f.write("point,x_m,height_m\n")
                for i, x in enumerate(xs):
                    f.write("%d,%s,%s\n" % (i, r(x), r(R.uniform(-2e-4, 2e-4))))
            pts = '{ file = "%s";' % fn
        elif R.random() < 0.7:
            pts = "{ from = %s; to = %s; n = %d;" % (r(a), r(b), n)
        else:
            xs = sorted(set(R.uniform(a, b) for _ in range(n)))
            n = len(xs)
            pts = "{ x = [%s];" % ", ".join(r(x) for x in xs)
        if geom[0] == "rect":
            pts += " y = %s;" % r(R.uniform(0.1, 0.9) * geom[2])
        elif geom[0] == "disc":
            pts += " y = %s;" % r(R.uniform(-0.3, 0.3) * geom[1])
        pts += " }"
        pk = R.random()
        if from_file:
            prof = '{ file = "%s"; }' % fn
        elif pk < 0.4:
            prof = "{ height = %s; }" % r(R.uniform(-2e-4, 2e-4))
        elif pk < 0.7:
            prof = "{ heights = [%s]; }" % ", ".join(r(R.uniform(-2e-4, 2e-4)) for _ in range(n))
        else:
            prof = "{ parabola = [%s, %s, %s]; }" % (r((a + b) / 2), r(R.uniform(-1e-4, 1e-4)),
                                                    r(R.uniform(-1, 1)))
        law, alpha, lt, lossless = self.law_text(scheme)
        if law in ("polynomial", "spring"):
            lt = 'law = "power"; k = 1e9; alpha = 1.5;'
            lossless = True
        pair = [body["name"], other["name"]]
        if R.random() < 0.5:
            pair.reverse()
        t = '{ name = "%s"; between = ["%s", "%s"]; scheme = "%s"; %s points = %s; profile = %s;' % (
            nm, pair[0], pair[1], scheme, lt, pts, prof)
        t += " }"
        island["lossless"] &= lossless
        island["distributed"] = True
        self.contacts.append(t)
        self.sweepable.append(("contacts.%s.k" % nm, "k"))
        return nm

    # ---- a scene ------------------------------------------------------
    def island(self, fs):
        R = self.R
        scheme = R.choice(SCHEMES)
        isl = {"scheme": scheme, "lossless": True, "corrected": False, "distributed": False}
        members = []
        for _ in range(R.randint(1, 2)):
            members.append(self.modal(scheme, fs, isl))
        for _ in range(R.randint(0, 2)):
            members.append(self.mass())
        # a spanning chain of contacts, then extras against walls
        for i in range(1, len(members)):
            self.contact(members[R.randrange(i)], members[i], scheme, isl)
        for _ in range(R.randint(0, 2)):
            w = self.wall(driven=R.random() < 0.3)
            self.contact(R.choice(members), w, scheme, isl)
        presets = [m for m in members if m.get("preset")]
        # the quadratic scheme steps no distributed contact (refused at load)
        if presets and scheme != "quadratic" and R.random() < 0.6:
            body = R.choice(presets)
            other = self.wall(driven=R.random() < 0.2) if R.random() < 0.6 else self.mass()
            self.distributed(body, other, scheme, isl)
        if len(members) == 1 and not any(isl.get(k) for k in ("distributed",)) and \
                len(self.contacts) == 0:
            self.contact(members[0], self.wall(), scheme, isl)
        self.facts["islands"].append(isl)

    def scene(self):
        R = self.R
        fs = R.choice([22050.0, 44100.0, 48000.0, 96000.0])
        dur = R.uniform(0.002, 0.02)
        grav = R.choice([0.0, 0.0, 9.81])
        for _ in range(R.randint(1, 4)):
            self.island(fs)
        out = ['scene = { name = "rand"; fs = %s; duration = %s; gravity = %s; };' % (r(fs), r(dur), r(grav))]
        out.append("bodies = (\n  " + ",\n  ".join(b["text"] for b in self.bodies) + "\n);")
        out.append("contacts = (\n  " + ",\n  ".join(self.contacts) + "\n);")
        movable = [b for b in self.bodies if b["kind"] != "wall"]
        forces = []
        for i in range(R.choice([0, 0, 1, 2])):
            b = R.choice(movable)
            if R.random() < 0.5:
                forces.append('{ name = "f%d"; at = "%s"; type = "constant"; value = %s; }' % (i, self.at(b), r(R.uniform(-2, 2))))
            else:
                forces.append('{ name = "f%d"; at = "%s"; type = "harmonic"; amplitude = %s; freq = %s; phase = %s; }' % (
                    i, self.at(b), r(R.uniform(0, 3)), r(R.uniform(1, 1500)), r(R.uniform(-3, 3))))
        if forces:
            out.append("forces = (\n  " + ",\n  ".join(forces) + "\n);")
        rec = []
        if R.random() < 0.3:
            rec.append("every = %d;" % R.randint(1, 4))
        if R.random() < 0.3:
            rec.append('signals = ["*"];')
        if rec:
            out.append("record = { %s };" % " ".join(rec))
        nsw = R.choice([0, 0, 1, 1, 2])
        self.facts["scenes"] = 1
        if nsw and self.sweepable:
            mode = R.choice(["grid", "grid", "zip", "random"])
            ps = R.sample(self.sweepable, min(nsw, len(self.sweepable)))
            n = R.randint(2, 4)
            lines = []
            for path, kind in ps:
                if mode == "random":
                    sp = ("loguniform = [1e4, 1e8];" if kind == "k" else "uniform = [-1.0, 1.0];")
                elif kind == "k":
                    sp = R.choice(["logspace = [1e4, 1e8]; n = %d;" % n,
                                   "values = [%s];" % ", ".join(r(10 ** R.uniform(4, 8)) for _ in range(n))])
                else:
                    sp = R.choice(["linspace = [-1.0, 1.0]; n = %d;" % n,
                                   "values = [%s];" % ", ".join(r(R.uniform(-1, 1)) for _ in range(n))])
                lines.append('{ path = "%s"; %s }' % (path, sp))
            head = 'mode = "%s";' % mode + (" n = %d; seed = %d;" % (n, R.randint(0, 99)) if mode == "random" else "")
            out.append("sweep = { %s params = ( %s ); };" % (head, ", ".join(lines)))
            self.facts["scenes"] = n if mode != "grid" else n ** len(ps)
        return "\n".join(out) + "\n"


def main():
    seed, outdir = int(sys.argv[1]), sys.argv[2]
    g = Gen(seed, outdir)
    text = g.scene()
    with open(os.path.join(outdir, "s.cfg"), "w") as f:
        f.write(text)
    print(json.dumps(g.facts))


if __name__ == "__main__":
    main()

/* scenegen.c - a seeded generator of valid random scenes (see scenegen.h).
 *
 * Scales are chosen so that the scenes are meaningful rather than merely
 * valid: millimetre-scale approach over gaps of 20-300 um at up to 0.6 m/s,
 * contacts whose stiffness at 100 um penetration is 1e5-1e7 N/m (contact
 * times of a few to a few dozen samples), modes below the explicit
 * schemes' stability limit, 80-400 steps.  Every number is written with
 * %.17g, so the text is the scene exactly. */
#include "scenegen.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* splitmix64: the generator the sweeps use too. */
typedef struct {
  uint64_t s;
} rng;

static uint64_t
next(rng *r)
{
  uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double
unit(rng *r)
{
  return (double)(next(r) >> 11) * 0x1.0p-53;
}

static double
uni(rng *r, double lo, double hi)
{
  return lo + (hi - lo) * unit(r);
}

static double
logu(rng *r, double lo, double hi)
{
  return exp(uni(r, log(lo), log(hi)));
}

/* Integer in [lo, hi]. */
static int
pick(rng *r, int lo, int hi)
{
  return lo + (int)(next(r) % (uint64_t)(hi - lo + 1));
}

/* True with probability p. */
static int
chance(rng *r, double p)
{
  return unit(r) < p;
}

/* A growing string. */
typedef struct {
  char *s;
  size_t n, cap;
} buf;

static void
put(buf *b, const char *fmt, ...)
{
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
    va_end(ap);
    if (k < 0)
      abort();
    if (b->s && b->n + (size_t)k < b->cap) {
      b->n += (size_t)k;
      return;
    }
    b->cap = 2 * (b->cap + (size_t)k + 256);
    b->s = realloc(b->s, b->cap);
    if (b->s == NULL)
      abort();
  }
}

/* Whether a number prints as a libconfig float (it has '.', 'e', "inf" or
 * "nan"): "%.17g" of 2.0 is "2", an integer. */
static const char *
real(double x, char *tmp, size_t len)
{
  snprintf(tmp, len, "%.17g", x);
  if (strpbrk(tmp, ".eEn") == NULL)
    strncat(tmp, ".0", len - strlen(tmp) - 1);
  return tmp;
}

/* A number array "[a, b, ...]" of floats (libconfig wants one type). */
static void
put_array(buf *b, const double *x, int n)
{
  char tmp[40];
  put(b, "[");
  for (int i = 0; i < n; i++)
    put(b, "%s%s", i ? ", " : "", real(x[i], tmp, sizeof tmp));
  put(b, "]");
}

/* What the generator knows of a body it made. */
typedef struct {
  char name[32];
  int kind;          /* 0 mass, 1 modal, 2 wall */
  int npoints;
  char points[3][16];
} gbody;

typedef struct {
  sg_scene *g;
  rng r;
  const char *srcdir;
  double fs;
  int explicit_family; /* of the island being made */
  int conserving_only; /* two-level islands use two-point only */
  gbody b[SG_MAX_ITEMS];
} gen;

static sg_item *
add_item(sg_item *items, int *n, const char *name, int island, buf *text)
{
  sg_item *it = &items[(*n)++];
  snprintf(it->name, sizeof it->name, "%s", name);
  it->island = island;
  it->text = text->s;
  return it;
}

/* A drive group (sine, profile or noise) of amplitude about `amp` m. */
static void
put_drive(gen *G, buf *t, double amp)
{
  char a[40];
  switch (pick(&G->r, 0, 2)) {
  case 0:
    put(t, "{ type = \"sine\"; amplitude = %s; freq = %s;", real(uni(&G->r, 0.0, amp), a, 40),
        real(uni(&G->r, 20.0, 900.0), (char[40]){ 0 }, 40));
    if (chance(&G->r, 0.5))
      put(t, " phase = %s;", real(uni(&G->r, -3.0, 3.0), a, 40));
    put(t, " }");
    break;
  case 1:
    /* heights of a few um, 50 um apart: scale them to about amp */
    put(t, "{ type = \"profile\"; file = \"%s/scenes/rolling-profile.txt\"; speed = %s; "
        "spacing = 5.0e-05;", G->srcdir, real(uni(&G->r, 0.1, 2.0), a, 40));
    if (chance(&G->r, 0.5))
      put(t, " start = %s;", real(uni(&G->r, 0.0, 0.1), a, 40));
    put(t, " scale = %s; }", real(uni(&G->r, -1.0, 1.0) * amp / 5e-6, a, 40));
    break;
  default:
    put(t, "{ type = \"noise\"; rms = %s; bandwidth = %s;", real(uni(&G->r, 0.0, amp), a, 40),
        real(uni(&G->r, 50.0, 2000.0), (char[40]){ 0 }, 40));
    if (chance(&G->r, 0.5))
      put(t, " seed = %d;", pick(&G->r, 0, 1000000));
    if (chance(&G->r, 0.5))
      put(t, " components = %d;", pick(&G->r, 1, 80));
    put(t, " }");
  }
}

/* Highest mode frequency the island's family steps stably at fs, Hz
 * (explicit: well under heun's omega dt < 1, the strictest). */
static double
max_freq(const gen *G)
{
  return G->explicit_family ? 0.08 * G->fs : 3000.0;
}

/* A mass, an oscillator or a modal object in island k; returns its index
 * in G->b. */
static int
make_body(gen *G, int k, int free_body)
{
  sg_scene *g = G->g;
  int i = g->nbodies;
  gbody *b = &G->b[i];
  buf t = { 0 };
  char a[40], c[40];
  snprintf(b->name, sizeof b->name, "%s%d", free_body ? "free" : "b", i);
  if (chance(&G->r, 0.5)) {
    b->kind = 0;
    b->npoints = 1;
    double m = logu(&G->r, 0.005, 0.2);
    /* a mass on a spring to ground is written as k and c of a mass or,
     * half the time, as freq and zeta of an oscillator */
    int spring = chance(&G->r, 0.3), osc = spring && chance(&G->r, 0.5);
    double f = spring ? uni(&G->r, 10.0, fmin(800.0, max_freq(G))) : 0.0;
    put(&t, "{ name = \"%s\"; type = \"%s\"; mass = %s;", b->name, osc ? "oscillator" : "mass",
        real(m, a, 40));
    if (chance(&G->r, 0.5))
      put(&t, " u0 = %s;", real(uni(&G->r, -2e-5, 2e-5), a, 40));
    put(&t, " v0 = %s;", real(uni(&G->r, -0.6, 0.6), a, 40));
    if (osc) {
      put(&t, " freq = %s;", real(f, a, 40));
      if (chance(&G->r, 0.5))
        put(&t, " zeta = %s;", real(uni(&G->r, 0.0, 0.05), a, 40));
    } else if (spring) {
      put(&t, " k = %s;", real(m * pow(2 * M_PI * f, 2), a, 40));
      if (chance(&G->r, 0.5))
        put(&t, " c = %s;", real(uni(&G->r, 0.0, 2.0 * m * 2 * M_PI * f * 0.05), a, 40));
    }
    put(&t, " }");
  } else {
    b->kind = 1;
    int nm = pick(&G->r, 1, 5);
    double freq[5], mass[5], q0[5], dq0[5], damp[5], grav[5];
    for (int j = 0; j < nm; j++) {
      freq[j] = j == 0 && chance(&G->r, 0.5) ? 0.0 : uni(&G->r, 30.0, max_freq(G));
      mass[j] = logu(&G->r, 0.005, 0.2);
      q0[j] = uni(&G->r, -1e-5, 1e-5);
      dq0[j] = uni(&G->r, -0.5, 0.5);
      grav[j] = uni(&G->r, -1.0, 1.0);
    }
    put(&t, "{ name = \"%s\"; type = \"modal\"; freq = ", b->name);
    put_array(&t, freq, nm);
    if (nm > 1 && chance(&G->r, 0.3))
      put(&t, "; mass = %s", real(mass[0], a, 40));
    else {
      put(&t, "; mass = ");
      put_array(&t, mass, nm);
    }
    put(&t, ";");
    switch (pick(&G->r, 0, 4)) {
    case 0:
      break;
    case 1:
      for (int j = 0; j < nm; j++)
        damp[j] = uni(&G->r, 5.0, 500.0);
      put(&t, " quality = ");
      put_array(&t, damp, nm);
      put(&t, ";");
      break;
    case 2:
      put(&t, " t60 = %s;", real(uni(&G->r, 0.05, 3.0), a, 40));
      break;
    case 3:
      for (int j = 0; j < nm; j++)
        damp[j] = uni(&G->r, 0.0, 0.05);
      put(&t, " zeta = ");
      put_array(&t, damp, nm);
      put(&t, ";");
      break;
    default:
      put(&t, " loss = [%s, %s];", real(uni(&G->r, 0.0, 5.0), a, 40),
          real(uni(&G->r, 0.0, 1e-6), c, 40));
    }
    if (chance(&G->r, 0.6)) {
      put(&t, " q0 = ");
      put_array(&t, q0, nm);
      put(&t, ";");
    }
    if (chance(&G->r, 0.8)) {
      put(&t, " dq0 = ");
      put_array(&t, dq0, nm);
      put(&t, ";");
    }
    if (chance(&G->r, 0.3)) {
      put(&t, " gravity = ");
      put_array(&t, grav, nm);
      put(&t, ";");
    }
    b->npoints = pick(&G->r, 1, 3);
    put(&t, " points = (");
    for (int p = 0; p < b->npoints; p++) {
      double shape[5];
      for (int j = 0; j < nm; j++)
        shape[j] = uni(&G->r, -1.0, 1.0);
      shape[0] = uni(&G->r, 0.5, 1.0); /* every point moves */
      snprintf(b->points[p], sizeof b->points[p], "p%d", p);
      put(&t, "%s { name = \"%s\"; shape = ", p ? "," : "", b->points[p]);
      put_array(&t, shape, nm);
      put(&t, "; }");
    }
    put(&t, " ); }");
  }
  add_item(g->bodies, &g->nbodies, b->name, k, &t);
  return i;
}

/* A wall in island k (driven or not); returns its index in G->b. */
static int
make_wall(gen *G, int k, int driven)
{
  sg_scene *g = G->g;
  int i = g->nbodies;
  gbody *b = &G->b[i];
  buf t = { 0 };
  char a[40];
  snprintf(b->name, sizeof b->name, "w%d", i);
  b->kind = 2;
  b->npoints = 1;
  put(&t, "{ name = \"%s\"; type = \"wall\";", b->name);
  if (chance(&G->r, 0.5))
    put(&t, " position = %s;", real(uni(&G->r, -1e-5, 1e-5), a, 40));
  if (driven) {
    put(&t, " drive = ");
    put_drive(G, &t, 4e-5);
    put(&t, ";");
  }
  put(&t, " }");
  add_item(g->bodies, &g->nbodies, b->name, k, &t);
  return i;
}

/* The name of a point of body i, as `between` or `at` names it. */
static void
point_name(gen *G, int i, char *out, size_t len)
{
  const gbody *b = &G->b[i];
  if (b->kind == 1)
    snprintf(out, len, "%s.%s", b->name, b->points[pick(&G->r, 0, b->npoints - 1)]);
  else
    snprintf(out, len, "%s", b->name);
}

static const char *const laws[] = { "power", "hunt-crossley", "rattle", "polynomial",
                                     "spring", "lankarani-nikravesh", "flores" };

/* A contact of island k between bodies i and j with a scheme of family
 * fam (0 two-level, 1 three-level, 2 explicit; scheme = the explicit one). */
static void
make_contact(gen *G, int k, int i, int j, int fam, const char *xscheme)
{
  sg_scene *g = G->g;
  buf t = { 0 };
  char name[32], pa[48], pb[48], a[40], c[40];
  const char *scheme = fam == 0 ? (G->conserving_only || chance(&G->r, 0.5) ? "two-point" : "am1")
                       : fam == 1 ? (chance(&G->r, 0.5) ? "three-point" : "quadratic")
                       : xscheme;
  int law = pick(&G->r, 0, 6);
  /* stiffness at 100 um of penetration */
  double keff = logu(&G->r, 1e5, 1e7), x0 = 1e-4;
  double alpha = 1.0, gap = uni(&G->r, 2e-5, 3e-4);
  snprintf(name, sizeof name, "c%d", g->ncontacts);
  if (chance(&G->r, 0.5)) {
    int s = i;
    i = j;
    j = s;
  }
  point_name(G, i, pa, sizeof pa);
  point_name(G, j, pb, sizeof pb);
  put(&t, "{ name = \"%s\"; between = [\"%s\", \"%s\"]; law = \"%s\"; scheme = \"%s\";", name,
      pa, pb, laws[law], scheme);
  int exact = 0;
  switch (law) {
  case 0: /* power */
    alpha = chance(&G->r, 0.3) ? 1.0 : uni(&G->r, 1.0, 2.5);
    exact = alpha == 1.0 && (strcmp(scheme, "two-point") == 0 ||
                             strcmp(scheme, "three-point") == 0) && chance(&G->r, 0.5);
    put(&t, " k = %s; alpha = %s;", real(keff / pow(x0, alpha - 1.0), a, 40), real(alpha, c, 40));
    break;
  case 1: /* hunt-crossley */
    alpha = uni(&G->r, 1.0, 2.5);
    put(&t, " k = %s; alpha = %s; mu = %s;", real(keff / pow(x0, alpha - 1.0), a, 40),
        real(alpha, c, 40), real(uni(&G->r, 0.0, 1.5), (char[40]){ 0 }, 40));
    break;
  case 2: /* rattle, damped half the time */
    alpha = uni(&G->r, 1.0, 2.5);
    put(&t, " k = %s; alpha = %s; h = %s;", real(keff / pow(x0, alpha - 1.0), a, 40),
        real(alpha, c, 40), real(uni(&G->r, 0.0, 2e-4), (char[40]){ 0 }, 40));
    if (chance(&G->r, 0.5))
      put(&t, " mu = %s;", real(uni(&G->r, 0.0, 1.5), (char[40]){ 0 }, 40));
    break;
  case 3: /* polynomial, always engaged: soft, odd alpha */
    alpha = chance(&G->r, 0.5) ? 1.0 : 3.0;
    keff /= 30.0;
    put(&t, " k = %s; alpha = %s;", real(keff / (alpha * pow(x0, alpha - 1.0)), a, 40),
        real(alpha, c, 40));
    gap = uni(&G->r, -2e-5, 2e-5);
    break;
  case 5: /* lankarani-nikravesh and flores: damping set by restitution e */
  case 6:
    alpha = uni(&G->r, 1.0, 2.5);
    put(&t, " k = %s; alpha = %s; e = %s;", real(keff / pow(x0, alpha - 1.0), a, 40),
        real(alpha, c, 40), real(uni(&G->r, 0.3, 1.0), (char[40]){ 0 }, 40));
    break;
  default: /* spring, always engaged */
    keff /= 30.0;
    put(&t, " k = %s;", real(keff, a, 40));
    if (chance(&G->r, 0.6))
      put(&t, " c = %s;", real(uni(&G->r, 0.0, 2.0), a, 40));
    gap = uni(&G->r, -2e-5, 2e-5);
  }
  if (chance(&G->r, 0.8))
    put(&t, " gap = %s;", real(gap, a, 40));
  if (chance(&G->r, 0.1)) {
    put(&t, " gap_drive = ");
    put_drive(G, &t, 1e-5);
    put(&t, ";");
  }
  if (strcmp(scheme, "quadratic") == 0 && chance(&G->r, 0.5))
    put(&t, " s = %s;", real(uni(&G->r, 0.5, 3.0), a, 40));
  if ((law <= 2 || law >= 5) && fam != 1 && chance(&G->r, 0.3)) {
    int which = pick(&G->r, 1, 3);
    put(&t, " corrections = [%s%s%s];", which & 1 ? "\"xmax\"" : "",
        which == 3 ? ", " : "", which & 2 ? "\"vout\"" : "");
    if ((which & 2) && chance(&G->r, 0.5))
      put(&t, " vout = \"%s\";", chance(&G->r, 0.5) ? "exact" : "approx");
  }
  if (exact)
    put(&t, " exact_duration = true; saturate = true;");
  put(&t, " }");
  if (g->sweep_path[0] == '\0') {
    snprintf(g->sweep_path, sizeof g->sweep_path, "contacts.%s.gap", name);
    g->sweep_value = gap;
  }
  add_item(g->contacts, &g->ncontacts, name, k, &t);
}

/* A force at a point of body i (a mass or modal object). */
static void
make_force(gen *G, int k, int i)
{
  sg_scene *g = G->g;
  buf t = { 0 };
  char name[32], at[48], a[40], c[40];
  snprintf(name, sizeof name, "f%d", g->nforces);
  point_name(G, i, at, sizeof at);
  if (chance(&G->r, 0.5))
    put(&t, "{ name = \"%s\"; at = \"%s\"; type = \"constant\"; value = %s; }", name, at,
        real(uni(&G->r, -2.0, 2.0), a, 40));
  else {
    put(&t, "{ name = \"%s\"; at = \"%s\"; type = \"harmonic\"; amplitude = %s; freq = %s;",
        name, at, real(uni(&G->r, 0.0, 3.0), a, 40), real(uni(&G->r, 0.0, 1500.0), c, 40));
    if (chance(&G->r, 0.5))
      put(&t, " value = %s;", real(uni(&G->r, -1.0, 1.0), a, 40));
    if (chance(&G->r, 0.5))
      put(&t, " phase = %s;", real(uni(&G->r, -3.0, 3.0), a, 40));
    put(&t, " }");
  }
  add_item(g->forces, &g->nforces, name, k, &t);
}

void
sg_generate(sg_scene *g, uint64_t seed, const char *srcdir)
{
  static const double rates[] = { 22050.0, 44100.0, 48000.0, 96000.0 };
  static const char *const explicit_schemes[] = { "verlet", "position-verlet", "heun", "rk4" };
  gen G;
  buf t = { 0 };
  char a[40], c[40];

  memset(g, 0, sizeof *g);
  memset(&G, 0, sizeof G);
  g->seed = seed;
  G.g = g;
  G.r.s = seed;
  G.srcdir = srcdir;
  G.fs = rates[pick(&G.r, 0, 3)];
  long steps = pick(&G.r, 80, 400);
  put(&t, "scene = { name = \"random-%llu\"; fs = %s; duration = %s;", (unsigned long long)seed,
      real(G.fs, a, 40), real(steps / G.fs, c, 40));
  if (chance(&G.r, 0.6))
    put(&t, " gravity = %s;", real(chance(&G.r, 0.5) ? 9.81 : uni(&G.r, -20.0, 20.0), a, 40));
  put(&t, " };\n");
  g->header = t.s;
  t = (buf){ 0 };
  put(&t, "record = { every = %d;%s };\n", chance(&G.r, 0.6) ? 1 : pick(&G.r, 2, 4),
      chance(&G.r, 0.2) ? " modes = true;" : "");
  g->record = t.s;

  int nis = pick(&G.r, 1, 4);
  /* a quarter of the scenes are stepped by energy-conserving schemes only,
   * so that the energy balance is checked on whole scenes too */
  G.conserving_only = chance(&G.r, 0.25);
  for (int k = 0; k < nis; k++) {
    int fam = G.conserving_only ? pick(&G.r, 0, 1) : pick(&G.r, 0, 2);
    const char *xs = explicit_schemes[pick(&G.r, 0, (int)(sizeof explicit_schemes / sizeof *explicit_schemes) - 1)];
    G.explicit_family = fam == 2;
    g->conserving[k] = 1;
    int nb = pick(&G.r, 1, 3), first = g->nbodies;
    for (int i = 0; i < nb; i++)
      make_body(&G, k, 0);
    int nw = pick(&G.r, nb == 1 ? 1 : 0, 2), wfirst = g->nbodies;
    for (int i = 0; i < nw; i++)
      make_wall(&G, k, chance(&G.r, 0.4));
    int cfirst = g->ncontacts;
    /* a spanning tree over the movable bodies, then each wall, then extras */
    for (int i = 1; i < nb; i++)
      make_contact(&G, k, first + i, first + pick(&G.r, 0, i - 1), fam, xs);
    for (int w = 0; w < nw; w++)
      make_contact(&G, k, first + pick(&G.r, 0, nb - 1), wfirst + w, fam, xs);
    for (int e = pick(&G.r, 0, 2); e > 0; e--) {
      int i = first + pick(&G.r, 0, nb - 1), j = first + pick(&G.r, 0, nb + nw - 1);
      if (j == i)
        j = nw > 0 ? wfirst + pick(&G.r, 0, nw - 1) : (i == first ? first + nb - 1 : first);
      if (j != i)
        make_contact(&G, k, i, j, fam, xs);
    }
    for (int c2 = cfirst; c2 < g->ncontacts; c2++)
      g->conserving[k] &= strstr(g->contacts[c2].text, "scheme = \"two-point\"") != NULL ||
                          strstr(g->contacts[c2].text, "scheme = \"three-point\"") != NULL ||
                          strstr(g->contacts[c2].text, "scheme = \"quadratic\"") != NULL;
    for (int f = pick(&G.r, 0, 2); f > 0; f--)
      make_force(&G, k, first + pick(&G.r, 0, nb - 1));
  }
  /* free bodies, each an island of its own, stepped two-level */
  G.explicit_family = 0;
  for (int n = pick(&G.r, 0, 2); n > 0; n--) {
    int k = nis++;
    g->conserving[k] = 1;
    int i = make_body(&G, k, 1);
    if (chance(&G.r, 0.5))
      make_force(&G, k, i);
  }
  /* a driven wall in no contact joins the first island */
  if (chance(&G.r, 0.2))
    make_wall(&G, 0, 1);
  g->nislands = nis;
}

void
sg_free(sg_scene *g)
{
  free(g->header);
  free(g->record);
  for (int i = 0; i < g->nbodies; i++)
    free(g->bodies[i].text);
  for (int i = 0; i < g->ncontacts; i++)
    free(g->contacts[i].text);
  for (int i = 0; i < g->nforces; i++)
    free(g->forces[i].text);
  memset(g, 0, sizeof *g);
}

/* One list ("bodies = ( ... );") of the items in island (or all). */
static void
put_list(buf *t, const char *key, const sg_item *items, int n, const int *perm, int island)
{
  int any = 0;
  for (int i = 0; i < n; i++)
    any |= island < 0 || items[i].island == island;
  if (!any)
    return;
  put(t, "%s = (\n", key);
  int first = 1;
  for (int i = 0; i < n; i++) {
    const sg_item *it = &items[perm ? perm[i] : i];
    if (island >= 0 && it->island != island)
      continue;
    put(t, "%s  %s", first ? "" : ",\n", it->text);
    first = 0;
  }
  put(t, "\n);\n");
}

char *
sg_render(const sg_scene *g, int island, const int *pbodies, const int *pcontacts,
          const int *pforces, int nsweep)
{
  buf t = { 0 };
  char tmp[40];
  put(&t, "# random scene, seed %llu%s\n", (unsigned long long)g->seed,
      island >= 0 ? " (one island)" : "");
  put(&t, "%s", g->header);
  put_list(&t, "bodies", g->bodies, g->nbodies, pbodies, island);
  put_list(&t, "contacts", g->contacts, g->ncontacts, pcontacts, island);
  put_list(&t, "forces", g->forces, g->nforces, pforces, island);
  put(&t, "%s", g->record);
  if (nsweep > 0 && g->sweep_path[0]) {
    put(&t, "sweep = { mode = \"grid\"; params = ( { path = \"%s\"; values = [", g->sweep_path);
    for (int i = 0; i < nsweep; i++)
      put(&t, "%s%s", i ? ", " : "", real(g->sweep_value + 1e-5 * i, tmp, sizeof tmp));
    put(&t, "]; } ); };\n");
  }
  return t.s;
}

void
sg_permutation(uint64_t seed, int n, int *out)
{
  rng r = { seed ^ 0x5DEECE66Dull };
  for (int i = 0; i < n; i++)
    out[i] = i;
  for (int i = n - 1; i > 0; i--) {
    int j = (int)(next(&r) % (uint64_t)(i + 1));
    int s = out[i];
    out[i] = out[j];
    out[j] = s;
  }
}

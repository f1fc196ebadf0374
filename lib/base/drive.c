/* drive.c - prescribed displacements of driven walls and gaps, and the part
 * of a contact's compression that its walls and gap make. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "base.h"

/* Catmull-Rom interpolation of a periodic profile at sample position p. */
static double
profile_at(const vb_drive *d, double p, double *slope)
{
  long n = d->nsamples;
  double fl = floor(p);
  double u = p - fl;
  long i = (long)fmod(fl, (double)n);
  if (i < 0)
    i += n;
  double y0 = d->samples[(i + n - 1) % n], y1 = d->samples[i];
  double y2 = d->samples[(i + 1) % n], y3 = d->samples[(i + 2) % n];
  double a = -0.5 * y0 + 1.5 * y1 - 1.5 * y2 + 0.5 * y3;
  double b = y0 - 2.5 * y1 + 2.0 * y2 - 0.5 * y3;
  double c = -0.5 * y0 + 0.5 * y2;
  *slope = (3.0 * a * u + 2.0 * b) * u + c;
  return ((a * u + b) * u + c) * u + y1;
}

/* Prescribed displacement w(t), m, and its rate, m/s. */
double
vb_drive_eval(const vb_drive *d, double t, double *rate)
{
  switch (d->kind) {
  case VB_DRIVE_SINE: {
    double w = 2.0 * M_PI * d->freq, ph = w * t + d->phase;
    *rate = d->amplitude * w * cos(ph);
    return d->amplitude * sin(ph);
  }
  case VB_DRIVE_PROFILE: {
    /* the profile is swept at `speed`, periodic beyond its end */
    double slope, p = (d->start + d->speed * t) / d->spacing;
    double y = profile_at(d, p, &slope);
    *rate = d->amplitude * slope * d->speed / d->spacing;
    return d->amplitude * y;
  }
  case VB_DRIVE_NOISE: {
    double w = 0.0, r = 0.0;
    for (long k = 0; k < d->nsamples; k++) {
      double om = 2.0 * M_PI * d->nfreq[k], ph = om * t + d->nphase[k];
      w += d->namp[k] * cos(ph);
      r -= d->namp[k] * om * sin(ph);
    }
    *rate = r;
    return w;
  }
  case VB_DRIVE_VELOCITY: /* a w drive only (load_friction.c): start + speed t */
    *rate = d->speed;
    return d->start + d->speed * t;
  default: *rate = 0.0; return 0.0;
  }
}

/* splitmix64: a small portable generator, so a seed means the same noise
 * on every machine. */
static double
uniform(unsigned long long *state)
{
  unsigned long long z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return (double)(z >> 11) / 9007199254740992.0;
}

/* Band-limited noise as a sum of `ncomp` cosines with seeded random
 * frequencies uniform in (0, freq] and random phases, of equal amplitude
 * scaled to rms `amplitude`: exact at any time, with an exact rate.
 * Allocates the components (owned by the drive). */
int
vb_drive_noise_setup(vb_drive *d, long ncomp)
{
  unsigned long long st = d->seed;
  d->nsamples = ncomp;
  d->nfreq = malloc((size_t)ncomp * sizeof(double));
  d->nphase = malloc((size_t)ncomp * sizeof(double));
  d->namp = malloc((size_t)ncomp * sizeof(double));
  if (!d->nfreq || !d->nphase || !d->namp)
    return VB_ENOMEM;
  double a = d->amplitude * sqrt(2.0 / (double)ncomp);
  for (long k = 0; k < ncomp; k++) {
    d->nfreq[k] = d->freq * (1.0 - uniform(&st));
    d->nphase[k] = 2.0 * M_PI * uniform(&st);
    d->namp[k] = a;
  }
  return VB_OK;
}

/* --------------------------------------------------------------- table */

#define DOUBLE(name, field, unit, req, def, lo, open, cond)                                        \
  {                                                                                                \
    .key = name, .units = unit, .offset = offsetof(vb_drive, field), .required = req,              \
    .fallback = def, .min = lo, .min_open = open, .condition = cond                                \
  }
#define INTEGER(name, unit, def, lo, hi)                                                           \
  {                                                                                                \
    .key = name, .units = unit, .offset = VB_DRIVE_INTEGER, .fallback = def, .min = lo, .max = hi, \
    .condition = "between " #lo " and " #hi                                                        \
  }
#define ANY (-INFINITY)

/* The drive types: every numeric key with its units, field and condition
 * (the loader and the sweep iterate it), in the order the loader reads
 * them. */
static const vb_drive_info drive_table[] = {
    {.name = "sine",
     .kind = VB_DRIVE_SINE,
     .params = (const vb_drive_param[]){DOUBLE("amplitude", amplitude, "m", 1, 0.0, ANY, 0, NULL),
                                        DOUBLE("freq", freq, "Hz", 1, 0.0, 0.0, 0, ">= 0"),
                                        DOUBLE("phase", phase, "rad", 0, 0.0, ANY, 0, NULL),
                                        {.key = NULL}}},
    {.name = "profile",
     .kind = VB_DRIVE_PROFILE,
     .file = 1,
     .params = (const vb_drive_param[]){DOUBLE("speed", speed, "m/s", 1, 0.0, ANY, 0, NULL),
                                        DOUBLE("spacing", spacing, "m", 1, 0.0, 0.0, 1, "> 0"),
                                        DOUBLE("start", start, "m", 0, 0.0, ANY, 0, NULL),
                                        DOUBLE("scale", amplitude, "1", 0, 1.0, ANY, 0, NULL),
                                        {.key = NULL}}},
    {.name = "noise",
     .kind = VB_DRIVE_NOISE,
     .params = (const vb_drive_param[]){DOUBLE("rms", amplitude, "m", 1, 0.0, 0.0, 0, ">= 0"),
                                        DOUBLE("bandwidth", freq, "Hz", 1, 0.0, 0.0, 1, "> 0"),
                                        {.key = "seed",
                                         .units = "1",
                                         .offset = VB_DRIVE_INTEGER,
                                         .fallback = 1.0,
                                         .min = -INFINITY,
                                         .max = INFINITY},
                                        INTEGER("components", "1", 64, 1, 100000),
                                        {.key = NULL}}},
};
#define NDRIVES (int)(sizeof drive_table / sizeof drive_table[0])

/* The row of a drive type by its scene-file name, or NULL. */
const vb_drive_info *
vb_drive_lookup(const char *name)
{
  for (int i = 0; i < NDRIVES; i++)
    if (name != NULL && strcmp(name, drive_table[i].name) == 0)
      return &drive_table[i];
  return NULL;
}

/* Row i of the drive table (0 .. count-1), NULL beyond; *n (when not NULL)
 * receives the count. */
const vb_drive_info *
vb_drive_info_at(int i, int *n)
{
  if (n != NULL)
    *n = NDRIVES;
  return i >= 0 && i < NDRIVES ? &drive_table[i] : NULL;
}

/* Whether x is a valid value of a drive parameter. */
int
vb_drive_param_valid(const vb_drive_param *p, double x)
{
  if (p->offset == VB_DRIVE_INTEGER)
    return x == floor(x) && x >= p->min && x <= p->max;
  return p->min_open ? x > p->min : x >= p->min;
}

/* ------------------------------------------------- walls of a contact */

/* Displacement of a wall at time t (its position plus its drive). */
double
vb_wall_u(const vb_body *b, double t, double *rate)
{
  double r = 0.0, u = b->u0;
  if (b->drive.kind != VB_DRIVE_NONE)
    u += vb_drive_eval(&b->drive, t, &r);
  *rate = r;
  return u;
}

/* Part of contact ct's compression not carried by modes: walls and gap. */
double
vb_contact_drive(const vb_scene *sc, const vb_contact *ct, double t, double *rate)
{
  double x = -ct->gap, r = 0.0, rw;
  /* a driven gap (a surface profile under a rolling ball) */
  if (ct->gap_drive.kind != VB_DRIVE_NONE) {
    x -= vb_drive_eval(&ct->gap_drive, t, &rw);
    r -= rw;
  }
  if (sc->bodies[ct->a].kind == VB_BODY_WALL) {
    x += vb_wall_u(&sc->bodies[ct->a], t, &rw);
    r += rw;
  }
  if (sc->bodies[ct->b].kind == VB_BODY_WALL) {
    x -= vb_wall_u(&sc->bodies[ct->b], t, &rw);
    r -= rw;
  }
  *rate = r;
  return x;
}

/* Whether a wall of contact ct or its gap is driven. */
int
vb_contact_driven(const vb_scene *sc, const vb_contact *ct)
{
  const vb_body *a = &sc->bodies[ct->a], *b = &sc->bodies[ct->b];
  return ct->gap_drive.kind != VB_DRIVE_NONE ||
         (a->kind == VB_BODY_WALL && a->drive.kind != VB_DRIVE_NONE) ||
         (b->kind == VB_BODY_WALL && b->drive.kind != VB_DRIVE_NONE);
}

/* drive.c - prescribed displacements of driven walls. */
#include <math.h>
#include <stdlib.h>
#include "internal.h"

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
  default:
    *rate = 0.0;
    return 0.0;
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

/* orbit_gen.h - random sections and cycles for the tests of lib/base/orbit.c
 * (tests/check_orbit.c, tests/orbit_dump.c): periodic sequences with
 * noise, transients, chaotic maps, rotations and sets of cycles around a
 * few attractors.  Each generator fills a caller's array from a seed. */
#ifndef VIBRO_ORBIT_GEN_H
#define VIBRO_ORBIT_GEN_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/orbit.h"

/* The next uniform double in [0, 1) of a splitmix64 stream. */
static inline double
og_uniform(uint64_t *s)
{
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1.0p-53;
}

/* A uniform double in [lo, hi). */
static inline double
og_range(uint64_t *s, double lo, double hi)
{
  return lo + (hi - lo) * og_uniform(s);
}

/* A uniform integer in [lo, hi]. */
static inline int
og_int(uint64_t *s, int lo, int hi)
{
  return lo + (int)(og_uniform(s) * (hi - lo + 1));
}

/* A period-m section x[n][d]: a random cycle c[m][d] (coordinate j of
 * size about scale[j]), started at a random point of the cycle, each
 * coordinate moved by uniform noise in [-noise, noise] times scale[j]. */
static inline void
og_periodic(uint64_t *s, double *x, long n, int d, const double *scale, int m, double noise)
{
  double *c = malloc((size_t)m * (size_t)d * sizeof *c);
  int start = og_int(s, 0, m - 1);
  for (int i = 0; i < m * d; i++)
    c[i] = og_range(s, -1.0, 1.0) * scale[i % d];
  for (long i = 0; i < n; i++)
    for (int j = 0; j < d; j++)
      x[i * d + j] = c[((i + start) % m) * d + j] + noise * og_range(s, -1.0, 1.0) * scale[j];
  free(c);
}

/* Add a transient to x[n][d]: a deviation of size a times scale at the
 * end, growing back in time by 1/rho a point and turning by phi a point
 * (coordinate j at phase j pi/2: a spiral seen in (u, v); with phi = 0 or
 * pi a real eigenvalue, one sign or alternating). */
static inline void
og_transient(double *x, long n, int d, const double *scale, double a, double rho, double phi)
{
  for (long i = 0; i < n; i++)
    for (int j = 0; j < d; j++)
      x[i * d + j] +=
          a * pow(rho, (double)(i - (n - 1))) * cos(phi * (double)i + j * M_PI / 2) * scale[j];
}

/* Add to x[n][d] the scatter of an orbit whose multiplier is mu (near -1,
 * before a period doubling): each coordinate's deviation follows
 * a_i = mu a_(i-1) + uniform noise in [-noise, noise] times scale[j]
 * (from 0, after 50 points dropped), an alternation whose size wanders. */
static inline void
og_alternation(uint64_t *s, double *x, long n, int d, const double *scale, double mu,
               double noise)
{
  for (int j = 0; j < d; j++) {
    double a = 0.0;
    for (long i = -50; i < n; i++) {
      a = mu * a + noise * og_range(s, -1.0, 1.0);
      if (i >= 0)
        x[i * d + j] += a * scale[j];
    }
  }
}

/* Chaotic maps for x[n][d]: 0 the logistic map at r = 4 (d = 1), 1 a
 * tent map of slope mu in [1.5, 1.99] (d = 1), 2 the Henon map at a =
 * 1.4, b = 0.3 (d = 2); after 100 points dropped. */
static inline void
og_chaotic(uint64_t *s, int kind, double *x, long n)
{
  double p = og_range(s, 0.1, 0.9), q = og_range(s, -0.1, 0.1), mu = og_range(s, 1.5, 1.99);
  for (long i = -100; i < n; i++) {
    if (kind == 0)
      p = 4.0 * p * (1.0 - p);
    else if (kind == 1)
      p = mu * (p < 1.0 - p ? p : 1.0 - p);
    else {
      double np = 1.0 - 1.4 * p * p + q;
      q = 0.3 * p;
      p = np;
    }
    if (i < 0)
      continue;
    x[kind == 2 ? 2 * i : i] = p;
    if (kind == 2)
      x[2 * i + 1] = q;
  }
}

/* A quasi-periodic section x[n][d] (d = 1 or 2): rotation by omega
 * turns a point on a circle of radius r (d = 2: (cos, sin); d = 1: cos
 * plus a second tone at omega2, a 2-torus seen in one coordinate). */
static inline void
og_rotation(double *x, long n, int d, double r, double omega, double omega2, double psi)
{
  for (long i = 0; i < n; i++) {
    double th = 2 * M_PI * omega * (double)i + psi;
    if (d == 2) {
      x[2 * i] = r * cos(th);
      x[2 * i + 1] = r * sin(th);
    } else
      x[i] = r * cos(th) + 0.5 * r * cos(2 * M_PI * omega2 * (double)i);
  }
}

/* A rotation number in (0.05, 0.95) at least gap from every p/q with
 * q <= qmax: the rotation closes under no shift up to qmax within
 * 2 sin(pi gap) of the radius. */
static inline double
og_irrational(uint64_t *s, int qmax, double gap)
{
  for (;;) {
    double w = og_range(s, 0.05, 0.95);
    int ok = 1;
    for (int q = 1; q <= qmax && ok; q++)
      ok = fabs(q * w - floor(q * w + 0.5)) >= gap;
    if (ok)
      return w;
  }
}

#endif

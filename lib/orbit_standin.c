/* orbit_standin.c - a plain stand-in for orbit.c's kernels (orbit.h), weak
 * symbols that the branch `orbit`'s lib/orbit.c replaces when it is
 * linked in; to be removed once it is merged.  Each does the obvious
 * thing: the smallest shift that closes the last points, a greedy match
 * of cycles, a count of impacts, a median. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "orbit.h"

#define WEAK __attribute__((weak))

WEAK long
vb_orbit_window(int m)
{
  return 2L * m > 8 ? 2L * m : 8;
}

WEAK long
vb_orbit_needed(int pmax)
{
  return pmax + (2L * pmax > 16 ? 2L * pmax : 16);
}

/* Largest scaled distance between point i and point j. */
static double
dist(const double *x, long i, long j, int d, const double *scale)
{
  double worst = 0.0;
  for (int c = 0; c < d; c++) {
    double e = fabs(x[i * d + c] - x[j * d + c]) / (scale ? scale[c] : 1.0);
    worst = e > worst || isnan(e) ? e : worst;
  }
  return worst;
}

WEAK void
vb_orbit_classify(const double *x, long n, int d, const double *scale, double tol, int pmax,
                  vb_orbit *out)
{
  out->cls = VB_ORBIT_NONE;
  out->period = 0;
  out->tolerance = tol;
  out->spread = NAN;
  if (!x || n <= 0)
    return;
  for (int m = 1; m <= pmax; m++) {
    long w = vb_orbit_window(m);
    double worst = 0.0;
    if (w + m > n)
      break;
    for (long i = n - w; i < n; i++) {
      double e = dist(x, i, i - m, d, scale);
      worst = e > worst || isnan(e) ? e : worst;
    }
    if (worst <= tol) {
      out->cls = VB_ORBIT_PERIODIC;
      out->period = m;
      out->spread = worst;
      return;
    }
    out->spread = isnan(out->spread) || worst < out->spread ? worst : out->spread;
  }
  out->cls = n < vb_orbit_needed(pmax) ? VB_ORBIT_UNSETTLED : VB_ORBIT_IRREGULAR;
}

WEAK long
vb_orbit_attractors(const double *const *cycle, const int *period, long nscenes, int d,
                    const double *scale, double tol, long *id)
{
  long *first = malloc(((size_t)nscenes + 1) * sizeof *first), na = 0;

  if (!first)
    return -2;
  for (long s = 0; s < nscenes; s++) {
    id[s] = -1;
    if (!cycle[s] || period[s] < 1)
      continue;
    for (long a = 0; a < na && id[s] < 0; a++) {
      long f = first[a];
      int m = period[s];
      if (period[f] != m)
        continue;
      for (int shift = 0; shift < m && id[s] < 0; shift++) {
        double worst = 0.0;
        for (int i = 0; i < m; i++)
          for (int c = 0; c < d; c++) {
            double e = fabs(cycle[s][i * d + c] - cycle[f][((i + shift) % m) * d + c]) /
                       (scale ? scale[c] : 1.0);
            worst = e > worst || isnan(e) ? e : worst;
          }
        if (worst <= tol)
          id[s] = a;
      }
    }
    if (id[s] < 0) {
      first[na] = s;
      id[s] = na++;
    }
  }
  free(first);
  return na;
}

WEAK int
vb_orbit_impacts(const double *t_impact, long nimpacts, const double *t_section, long ns, int m)
{
  long K, count = 0;
  double lo, hi;

  if (m < 1)
    return -1;
  K = vb_orbit_window(m) / m;
  if (ns < K * m + 1)
    return -1;
  lo = t_section[ns - 1 - K * m];
  hi = t_section[ns - 1];
  for (long i = 0; i < nimpacts; i++)
    count += t_impact[i] >= lo && t_impact[i] < hi;
  return (int)lround((double)count / (double)K);
}

static int
cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

WEAK int
vb_orbit_grazing(const double *v_in, long n, double fraction, int *flag, double *median)
{
  double *s = malloc(((size_t)n + 1) * sizeof *s), med = NAN;
  long k = 0;

  if (!s)
    return -2;
  for (long i = 0; i < n; i++)
    if (isfinite(v_in[i]))
      s[k++] = fabs(v_in[i]);
  if (k > 0) {
    qsort(s, (size_t)k, sizeof *s, cmp_double);
    med = k % 2 ? s[k / 2] : 0.5 * (s[k / 2 - 1] + s[k / 2]);
  }
  for (long i = 0; i < n; i++)
    flag[i] = isfinite(v_in[i]) && fabs(v_in[i]) < fraction * med;
  if (median)
    *median = med;
  free(s);
  return 0;
}
